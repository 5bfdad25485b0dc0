"""The one error the project file raises.

Every way a ``.dcwb`` can fail to open or save (missing, empty, another app's database,
damaged, from a newer workbench, unwritable folder, full disk) ends as one
:class:`ProjectFileError` whose text is a single line naming the file and the cause.
The command line prints it to stderr and the window shows it in a dialog, so neither
has to know about sqlite3, JSON or OS error classes.
"""

from __future__ import annotations

import os
from pathlib import Path


class ProjectFileError(Exception):
    """A project file could not be read or written; ``str()`` is ``"<path>: <problem>"``."""

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        self.path = Path(path)
        # One line, always: sqlite and OS messages occasionally carry newlines.
        self.problem = " ".join(str(problem).split())
        super().__init__(f"{self.path}: {self.problem}")


def os_reason(exc: OSError) -> str:
    """The human part of an OSError (``Permission denied``), without errno noise."""
    return exc.strerror or str(exc) or type(exc).__name__
