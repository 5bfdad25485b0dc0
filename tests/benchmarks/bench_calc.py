"""Benchmark: ``summarize`` and ``rack_loads`` on a 12,500-device design.

The window calls ``summarize(design)`` after every edit (issue 2 §7, issue 3), so it
must take a few milliseconds on the largest designs: here 10,000 DGX H100 nodes
(80,000 GPUs) 4 to a rack plus 1 switch per rack → 2,500 racks, 12,500 devices.

Run: ``.venv/bin/python tests/benchmarks/bench_calc.py``
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calc_designs import dgx_design  # noqa: E402

from workbench.calc import evaluate_workload, rack_loads, summarize  # noqa: E402
from workbench.model.design import Workload  # noqa: E402


def timed(func, *args, repeat: int = 50) -> tuple[float, float]:
    """(median, max) milliseconds over ``repeat`` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func(*args)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), max(samples)


def main() -> int:
    design = dgx_design(10_000, per_rack=4, switches_per_rack=1)
    summary = summarize(design)
    assert summary.devices == 12_500 and summary.racks == 2_500, summary
    workload = Workload(id="w", name="405B", model="llama3-405b", tokens=15e12, tp=8, pp=16)
    print(f"design: {summary.racks} racks, {summary.devices} devices, {summary.gpus} GPUs")
    for name, func, args in [
        ("summarize", summarize, (design,)),
        ("rack_loads", rack_loads, (design,)),
        ("evaluate_workload (given summary)", evaluate_workload, (design, workload, summary)),
    ]:
        median, worst = timed(func, *args)
        print(f"{name:36s} median {median:7.2f} ms   max {worst:7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
