"""What the commands that change a project file share: open it (catalog problems said
once), save it atomically, and who and when to record in the history they append."""

from __future__ import annotations

import getpass
from datetime import datetime, timezone
from pathlib import Path

from workbench.cli.errors import CliError
from workbench.model.design import Design

#: Exit status for input that cannot be read (a damaged project, a bad import file).
EXIT_BAD_INPUT = 2


def open_project(path: Path, *, quiet: bool = False) -> Design:
    """The design in ``path``; CliError (exit 2) naming the file when it cannot be read.
    ``quiet`` (the command's ``--quiet``) keeps the progress of a long open unsaid."""
    from workbench.cli.catalog_load import load_catalog_noting_errors
    from workbench.cli.progress import step
    from workbench.store import ProjectFileError, open_design

    try:
        with step(f"opening {path.name}", quiet=quiet) as tell:
            return open_design(path, catalog=load_catalog_noting_errors(), progress=tell)
    except ProjectFileError as exc:
        raise CliError(str(exc), EXIT_BAD_INPUT) from None


def save_project(design: Design, path: Path, *, quiet: bool = False) -> None:
    """Write ``design`` back atomically (the window's own save); CliError on failure.
    ``quiet`` keeps the progress of a long write unsaid."""
    from workbench.cli.progress import step
    from workbench.store import ProjectFileError, save_design

    try:
        with step(f"writing {path.name}", quiet=quiet) as tell:
            save_design(design, path, tell)
    except ProjectFileError as exc:
        raise CliError(str(exc)) from None


def login_name(given: str = "") -> str:
    """``given``, else the login name (``unknown`` in a container without one)."""
    if given:
        return given
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def now_utc() -> str:
    """Now as ISO 8601 UTC to the second, the form the history records use."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
