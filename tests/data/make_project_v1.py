"""Write ``project_v1.dcwb``, the sample saved by schema version 1.  Run once; commit.

Never rerun this after SCHEMA_VERSION moves past 1: the point of the sample is that it
was written by version-1 code, so that every later workbench proves it still opens
files its users saved long ago.  A new schema version gets its own sample and script.

    .venv/bin/python tests/data/make_project_v1.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from store_designs import small_design  # noqa: E402

from workbench.store import SCHEMA_VERSION, save_design  # noqa: E402

if __name__ == "__main__":
    if SCHEMA_VERSION != 1:
        sys.exit(f"schema is version {SCHEMA_VERSION}; the v1 sample must come from version 1")
    target = HERE / "project_v1.dcwb"
    save_design(small_design("Sample saved by schema version 1"), target)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
