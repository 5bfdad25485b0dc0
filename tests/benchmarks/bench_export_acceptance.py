"""Benchmark: IP plan, checklist, health-check and monitoring export on a 100,000-GPU design.

12,500 GPU nodes, ~30,000 devices, ~440,000 links.  Not part of the default run.

Run: ``.venv/bin/python tests/benchmarks/bench_export_acceptance.py``
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from workbench.export.checklist import write_checklist
from workbench.export.health_check import write_health_check
from workbench.export.ip_plan import plan_addresses
from workbench.export.monitoring import write_monitoring
from workbench.templates import build_template


def main() -> None:
    design = build_template("dgx-h100-superpod", gpus=100000)
    start = time.perf_counter()
    plan = plan_addresses(design)
    print(f"plan_addresses: {len(plan.addresses)} addresses in {time.perf_counter() - start:.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        write_checklist(design, Path(tmp) / "checklist.xlsx")
        print(f"write_checklist (one Checks sheet): {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        write_health_check(design, Path(tmp) / "hc")
        print(f"write_health_check: {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        write_monitoring(design, Path(tmp) / "mon")
        print(f"write_monitoring: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
