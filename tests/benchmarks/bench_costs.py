"""Benchmark: the cost figures of a 100,000-GPU design (issue 26 asks for well under a
second, so a comparison of four scenarios stays interactive).

The design is the sample's template (DGX H100, QM9700/Q3400 fabric, storage and
management planes, one Llama 3 70B training job) scaled to 100,000 GPUs, fully cabled.
``design_costs`` walks the BOM's lines (devices, racks, cables and optics of every
link), the summary, and evaluates the training job (the compute plane's figures).  The
first call pays for the design's index; the later ones are what an edit-by-edit view
sees.

Run: ``.venv/bin/python tests/benchmarks/bench_costs.py``
"""

from __future__ import annotations

import statistics
import time

from workbench.calc.costs import design_costs
from workbench.templates import build_template

GPUS = 100_000
ROUNDS = 5


def main() -> None:
    """Build the design, then time ``design_costs`` cold and warm."""
    start = time.perf_counter()
    design = build_template("dgx-h100-superpod", gpus=GPUS)
    print(f"built {GPUS:,} GPUs in {time.perf_counter() - start:.2f} s")
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        costs = design_costs(design)
        times.append(time.perf_counter() - start)
    print(f"design_costs: first {times[0]:.3f} s, median {statistics.median(times):.3f} s")
    print(
        f"capex {costs.capex_total:,.0f} {costs.currency}, opex {costs.opex_per_year:,.0f}/yr, "
        f"{costs.cost_per_gpu_hour:.2f}/GPU-hour, {costs.unpriced_lines} unpriced lines"
    )


if __name__ == "__main__":
    main()
