"""Write ``project_v10.dcwb``, the sample saved by schema version 10.  Run once; commit.

Version 9 added the step-time job settings (global batch, goodput, NIC speed, virtual
stages, sequence parallelism), version 10 the software stack, context parallelism,
gradient precision, a measured step and "plan at 30 %".  The file must be written by
version-10 code, so this script runs against a checkout of the commit that introduced
schema 10 (47fc32b), not against today's code:

    mkdir /tmp/v10 && git archive 47fc32b workbench tests | tar -x -C /tmp/v10
    PYTHONPATH=/tmp/v10 .venv/bin/python tests/data/make_project_v10.py /tmp/v10
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    checkout = Path(sys.argv[1]).resolve()
    sys.path[:0] = [str(checkout), str(checkout / "tests")]
    from store_designs import small_design

    from workbench.store import SCHEMA_VERSION, save_design

    if SCHEMA_VERSION != 10:
        sys.exit(f"schema is version {SCHEMA_VERSION}; the v10 sample must come from version 10")
    design = small_design("Sample saved by schema version 10")
    job = design.workloads[0]
    for name, value in {
        "global_batch": 1024,
        "goodput": 0.9,
        "virtual_stages": 2,
        "sequence_parallel": True,
        "grad_precision": "fp32",
        "measured_step_s": 7.5,
        "framework": "megatron-lm",
        "cp": 2,
        "plan_at_30": True,
    }.items():
        setattr(job, name, value)
    target = HERE / "project_v10.dcwb"
    save_design(design, target)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
