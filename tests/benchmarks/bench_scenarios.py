"""Benchmark: the scenario comparison table on 100,000-GPU designs.

Three figures, each beside what it is built from:

* computing one scenario's figures cold (:func:`figures_of`: the summary, every rule,
  the fabric figures and the training estimate), beside ``summarize`` alone;
* the table of two cached scenarios (:func:`figures_of_file` on files already read
  once: what the Scenarios panel and a repeated ``compare`` pay), which must be well
  under a second;
* building the table itself from figures in hand (:func:`compare`).

    .venv/bin/python tests/benchmarks/bench_scenarios.py [--gpus 100000]

Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from workbench.calc.summary import summarize
from workbench.planning.scenarios import compare, figures_of
from workbench.planning.scenarios.figures import figures_of_file
from workbench.store import save_design
from workbench.templates.builder import build_template


def timed(fn):  # noqa: ANN001, ANN201
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=100_000)
    args = parser.parse_args()
    h100 = build_template("dgx-h100-superpod", gpus=args.gpus)
    b200 = build_template("dgx-b200-liquid", gpus=args.gpus)
    t_sum, _ = timed(lambda: summarize(h100))
    t_fig, fig = timed(lambda: figures_of(h100, "h100"))
    print(f"{args.gpus:,} GPUs: figures cold {t_fig:.2f} s (summarize alone {t_sum:.3f} s)")
    with tempfile.TemporaryDirectory() as folder:
        a, b = Path(folder) / "a.dcwb", Path(folder) / "b.dcwb"
        save_design(h100, a)
        save_design(b200, b)
        t_first, _ = timed(lambda: compare([figures_of_file(a), figures_of_file(b)]))
        t_cached, _ = timed(lambda: compare([figures_of_file(a), figures_of_file(b)]))
    t_table, _ = timed(lambda: compare([fig, fig, fig, fig]))
    print(f"two files, first read and figures: {t_first:.2f} s")
    print(f"two files, table from the cache:  {t_cached * 1000:.2f} ms")
    print(f"table of four figures in hand:     {t_table * 1000:.3f} ms")


if __name__ == "__main__":
    main()
