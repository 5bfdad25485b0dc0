"""Write ``project_v7.dcwb``, the sample saved by schema version 7.  Run once; commit.

Version 7 added acceptance results.  Like the older samples, this file must stay as
version-7 code wrote it, so that later workbenches (schema 8 added as-built captures)
prove they still open it; a new schema version gets its own sample and script.

    .venv/bin/python tests/data/make_project_v7.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from store_designs import small_design  # noqa: E402

from workbench.model.acceptance import AcceptanceResult  # noqa: E402
from workbench.store import SCHEMA_VERSION, save_design  # noqa: E402

if __name__ == "__main__":
    if SCHEMA_VERSION != 7:
        sys.exit(f"schema is version {SCHEMA_VERSION}; the v7 sample must come from version 7")
    design = small_design("Sample saved by schema version 7")
    design.acceptance = [
        AcceptanceResult(
            "gpu-node-00 ✓",
            "nvidia-smi-gpus",
            "8",
            "PASS",
            "results-gpu-node-00.csv",
            2,
            "2026-04-01T10:00:00+00:00",
            "installer",
            "2026-04-01T09:58:00+00:00",
            "imp-1",
        ),
        AcceptanceResult(
            "gpu-node-01 ✓",
            "ib-link-rate",
            "200 Gb/s",
            "FAIL",
            "results-gpu-node-01.csv",
            5,
            "2026-04-01T10:00:00+00:00",
            "installer",
            "2026-04-01T09:59:00+00:00",
            "imp-1",
        ),
    ]
    target = HERE / "project_v7.dcwb"
    save_design(design, target)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
