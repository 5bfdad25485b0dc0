"""Autosave: a recovery copy beside the project, offered again after a crash.

The copy of ``site-a.dcwb`` is ``.site-a.dcwb.autosave`` in the same folder: hidden, so
it does not clutter a file dialog; beside the file, so it travels with a project folder
and its folder is as writable as the project's; and matched by the ``*.dcwb.autosave``
pattern in ``.gitignore``.  A design never saved has no folder of its own, so its copy
lives in the per-user state folder (``$XDG_STATE_HOME/workbench/autosave``, by default
``~/.local/state/workbench/autosave``).  The copy is an ordinary project file, written
atomically by :func:`save_design` and read by :func:`open_design`.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from workbench.model.design import Design
from workbench.store.errors import ProjectFileError, os_reason
from workbench.store.schema import AUTOSAVE_SUFFIX, FILE_SUFFIX
from workbench.store.writer import save_design


def _state_folder() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "workbench" / "autosave"


def autosave_path(path: str | os.PathLike[str] | None) -> Path:
    """Where the autosave of the project at ``path`` lives (``None``: an unsaved design)."""
    if path is None:
        return _state_folder() / f"untitled{FILE_SUFFIX}{AUTOSAVE_SUFFIX}"
    file = Path(path)
    return file.with_name(f".{file.name}{AUTOSAVE_SUFFIX}")


def write_autosave(design: Design, path: str | os.PathLike[str] | None) -> Path:
    """Atomically write the recovery copy for ``path``; returns where it went."""
    target = autosave_path(path)
    if path is None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProjectFileError(target, f"cannot save: {os_reason(exc)}") from exc
    save_design(design, target)
    return target


def autosave_is_newer(path: str | os.PathLike[str] | None) -> bool:
    """True when a recovery copy exists and is at least as new as the project file.

    "At least as new" rather than "newer": on file systems with coarse timestamps an
    autosave written in the same second as the save would otherwise be ignored, and
    offering a needless recovery costs a click where missing one costs work.  (The
    window discards the autosave after each successful save.)  With no project file
    (never saved, or deleted) any autosave counts.
    """
    copy = autosave_path(path)
    try:
        copy_mtime = copy.stat().st_mtime_ns
    except OSError:
        return False
    if path is None:
        return True
    try:
        return copy_mtime >= Path(path).stat().st_mtime_ns
    except OSError:
        return True


def discard_autosave(path: str | os.PathLike[str] | None) -> None:
    """Remove the recovery copy for ``path`` if there is one."""
    with contextlib.suppress(FileNotFoundError):
        autosave_path(path).unlink()
