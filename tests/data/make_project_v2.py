"""Write ``project_v2.dcwb``, the sample saved by schema version 2.  Run once; commit.

Version 2 added ``Device.role``.  Like the version-1 sample, this file must stay as
version-2 code wrote it, so that later workbenches prove they still open it; a new schema
version gets its own sample and script.

    .venv/bin/python tests/data/make_project_v2.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from store_designs import small_design  # noqa: E402

from workbench.store import SCHEMA_VERSION, save_design  # noqa: E402

if __name__ == "__main__":
    if SCHEMA_VERSION != 2:
        sys.exit(f"schema is version {SCHEMA_VERSION}; the v2 sample must come from version 2")
    design = small_design("Sample saved by schema version 2")
    for _, device in design.iter_devices():
        if device.name.startswith("mgmt-"):
            device.role = "storage-switch"
    target = HERE / "project_v2.dcwb"
    save_design(design, target)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
