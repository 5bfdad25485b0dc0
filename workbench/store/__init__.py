"""The project file (``.dcwb``): one SQLite database per design, written with sqlite-utils.

No Qt here (the command line and benchmarks use it headless).  The modules hold:
``schema`` (layout, versions, migrations), ``binding`` (which model class and field
each table and column holds), ``writer`` (atomic save), ``reader`` (read-only open),
``header`` (loading a file and checking its header), ``values`` with ``value_table``
and ``value_lists`` (every value a file holds, checked against the model's rules),
``temps`` (leftovers of interrupted saves), ``autosave`` (recovery copies) and
``errors``.
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
from workbench.store.temps import TempSweep, discard_temp, recover_temp, sweep_temps, target_of
from workbench.store.writer import save_design

__all__ = [
    "FILE_SUFFIX",
    "SCHEMA_VERSION",
    "ProjectFileError",
    "TempSweep",
    "autosave_is_newer",
    "autosave_path",
    "discard_autosave",
    "discard_temp",
    "open_design",
    "recover_temp",
    "save_design",
    "sweep_temps",
    "target_of",
    "write_autosave",
]
