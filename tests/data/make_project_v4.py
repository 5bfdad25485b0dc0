"""Write ``project_v4.dcwb``, the sample saved by schema version 4.  Run once; commit.

Version 4 added a rack's own cooling limit and weight rating, its A and B feeds and
its place on the hall floor.  Like the older samples, this file must stay as version-4
code wrote it, so that later workbenches prove they still open it; a new schema version
gets its own sample and script.

    .venv/bin/python tests/data/make_project_v4.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from store_designs import small_design  # noqa: E402

from workbench.model.design import Feed  # noqa: E402
from workbench.store import SCHEMA_VERSION, save_design  # noqa: E402

if __name__ == "__main__":
    if SCHEMA_VERSION != 4:
        sys.exit(f"schema is version {SCHEMA_VERSION}; the v4 sample must come from version 4")
    design = small_design("Sample saved by schema version 4")
    first, second = list(design.iter_racks())
    first.cooling_limit_kw, first.max_weight_kg = 38.0, 1400.0
    first.set_feed("a", Feed(415.0, 3, 63.0))
    first.set_feed("b", Feed(230.0, 1, 32.0))
    first.floor_x_mm, first.floor_y_mm, first.facing = 1200.0, 3000.0, "north"
    second.floor_x_mm, second.floor_y_mm = 1800.0, 3000.0
    target = HERE / "project_v4.dcwb"
    save_design(design, target)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
