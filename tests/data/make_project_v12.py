"""Write ``project_v12.dcwb``, the sample saved by schema version 12.  Run once; commit.

Version 12 added whether a storage tier is read with GPUDirect Storage.  Like the older
samples, this file must stay as version-12 code wrote it, so that later workbenches
prove they still open it; a new schema version gets its own sample and script.

    .venv/bin/python tests/data/make_project_v12.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from store_designs import small_design  # noqa: E402

from workbench.model.design import Team  # noqa: E402
from workbench.store import SCHEMA_VERSION, save_design  # noqa: E402

if __name__ == "__main__":
    if SCHEMA_VERSION != 12:
        sys.exit(f"schema is version {SCHEMA_VERSION}; the v12 sample must come from version 12")
    design = small_design("Sample saved by schema version 12")
    design.teams = [Team("t1", "research", gpus=8, priority=2)]
    design.storage_tiers[0].gpudirect_storage = True
    target = HERE / "project_v12.dcwb"
    save_design(design, target)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
