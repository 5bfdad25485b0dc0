"""Write ``project_v3.dcwb``, the sample saved by schema version 3.  Run once; commit.

Version 3 added waivers (findings the team accepted, with the reason) and
``Workload.target_days``.  Like the older samples, this file must stay as version-3 code
wrote it, so that later workbenches prove they still open it; a new schema version gets
its own sample and script.

    .venv/bin/python tests/data/make_project_v3.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from store_designs import small_design  # noqa: E402

from workbench.model.design import Waiver  # noqa: E402
from workbench.store import SCHEMA_VERSION, save_design  # noqa: E402

if __name__ == "__main__":
    if SCHEMA_VERSION != 3:
        sys.exit(f"schema is version {SCHEMA_VERSION}; the v3 sample must come from version 3")
    design = small_design("Sample saved by schema version 3")
    for _, device in design.iter_devices():
        if device.name.startswith("mgmt-"):
            device.role = "storage-switch"
    design.workloads[0].target_days = 45.5  # the pretrain job; w2 keeps None
    design.waivers = [
        Waiver(
            "RACK-POWER",
            "rack0",
            "Liquid loop rated 45 kW by facilities ✓\nsee ticket FAC-12",
            "2026-03-01T09:30:00+00:00",
        ),
        Waiver("WORKLOAD-DEADLINE", "w1", "Deadline moved; agreed with ACME ☃"),
    ]
    target = HERE / "project_v3.dcwb"
    save_design(design, target)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
