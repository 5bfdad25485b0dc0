"""The project file (``.dcwb``): one SQLite database per design, written with sqlite-utils.

No Qt here (the command line and benchmarks use it headless).  The modules hold:
``schema`` (layout, versions, migrations), ``binding`` (which model class and field
each table and column holds), ``writer`` (atomic save), ``reader`` (read-only open and
validation), ``autosave`` (recovery copies) and ``errors``.
"""

from workbench.store.autosave import (
    autosave_is_newer,
    autosave_path,
    discard_autosave,
    write_autosave,
)
from workbench.store.errors import ProjectFileError
from workbench.store.reader import open_design
from workbench.store.schema import FILE_SUFFIX, SCHEMA_VERSION
from workbench.store.writer import save_design

__all__ = [
    "FILE_SUFFIX",
    "SCHEMA_VERSION",
    "ProjectFileError",
    "autosave_is_newer",
    "autosave_path",
    "discard_autosave",
    "open_design",
    "save_design",
    "write_autosave",
]
