"""Benchmark: the Slurm and Kubernetes handoffs of a 100,000-GPU design.

The DGX H100 SuperPOD template at 100,000 GPUs (12,500 GPU nodes, ~440,000 links):
``write_slurm`` (slurm.conf, gres.conf, topology.conf from the compute fabric, qos.sh)
and ``write_k8s`` (12,500 Node documents, quotas, Pod template), each timed cold (the
plane structure not yet cached) and warm.  Both must take a few seconds at most.

Run: ``.venv/bin/python tests/benchmarks/bench_export_handoff.py``
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from workbench.export.k8s import write_k8s
from workbench.export.slurm import write_slurm
from workbench.templates import build_template

LIMIT_S = 5.0


def main() -> int:
    started = time.perf_counter()
    design = build_template("dgx-h100-superpod", gpus=100_000)
    print(f"build: {time.perf_counter() - started:.2f} s, {len(design.links):,} links")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for label, run in (
            ("slurm (cold)", lambda: write_slurm(design, Path(tmp) / "slurm")),
            ("slurm (warm)", lambda: write_slurm(design, Path(tmp) / "slurm")),
            ("k8s", lambda: write_k8s(design, Path(tmp) / "k8s")),
        ):
            start = time.perf_counter()
            files = run()
            took = time.perf_counter() - start
            worst = max(worst, took)
            sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e3:,.0f} kB" for p in files)
            print(f"{label}: {took:.2f} s ({sizes})")
        lines = (Path(tmp) / "slurm" / "topology.conf").read_text().count("SwitchName=")
        print(f"topology.conf: {lines} switches")
    print(f"worst {worst:.2f} s (limit {LIMIT_S} s)")
    return 0 if worst <= LIMIT_S else 1


if __name__ == "__main__":
    sys.exit(main())
