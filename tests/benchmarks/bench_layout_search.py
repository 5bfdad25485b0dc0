"""Benchmark: ``auto_layout`` on large designs (target < 50 ms at 100,000 GPUs).

Run: ``.venv/bin/python tests/benchmarks/bench_layout_search.py``
"""

from __future__ import annotations

import statistics
import time

from workbench.calc import layout_search as ls
from workbench.calc import presets
from workbench.calc import step_time as st

H100 = st.Hardware(
    peak_tflops=989, gpus_per_node=8, nvlink_gbs=900, nic_gbps_per_gpu=400, hbm_tbs=3.35
)


def main() -> int:
    cases = [("llama3-405b", 100_000, 8192, 2000), ("llama3-405b", 16_384, 8192, 2048),
             ("llama2-70b", 64, 4096, 512)]  # fmt: skip
    worst = 0.0
    for name, gpus, seq, batch in cases:
        model = presets.get_preset(name)
        samples = []
        for _ in range(10):
            start = time.perf_counter()
            choice = ls.auto_layout(model, H100, gpus, "bf16", seq, batch, 79.6e9)
            samples.append((time.perf_counter() - start) * 1000)
        best = choice.best.reason if choice.best else "none fits"
        print(f"{name} on {gpus:,} GPUs: median {statistics.median(samples):.1f} ms, "
              f"max {max(samples):.1f} ms; {best}")  # fmt: skip
        if gpus >= 100_000:
            worst = max(worst, statistics.median(samples))
    return 0 if worst < 50 else 1


if __name__ == "__main__":
    raise SystemExit(main())
