"""Benchmark: the scenario comparison table on 100,000-GPU designs.

In this process, each figure beside what it is built from:

* computing one scenario's figures cold (:func:`figures_of`: the summary, every rule,
  the fabric figures and the training estimate), beside ``summarize`` alone;
* the table of two scenarios kept in memory (:func:`figures_of_file` on files already
  read once: what the Scenarios panel pays for a second comparison);
* building the table itself from figures in hand (:func:`compare`).

Then, each in a new process, as a user meets them (interleaved round by round, so a
load that comes and goes falls on every row alike; min and median of ``--runs``):

* **figures of one file, cold**: open and compute one 100,000-GPU file's figures, with
  no figures kept on disk (what the first comparison of a file costs);
* **compare, first time**: ``workbench compare a.dcwb b.dcwb --json``, the whole
  process, with an empty cache folder;
* **compare, repeat**: the same command again, the figures kept in the user's cache
  folder by the first run (:mod:`workbench.planning.scenarios.figures_cache`).

``--against TREE`` runs every process row a second time from another checkout (an
unpacked ``git archive`` of the baseline commit), so a change and its baseline are
measured in the same run::

    .venv/bin/python tests/benchmarks/bench_scenarios.py [--gpus 100000] [--runs 3]
        [--against /tmp/baseline-tree]

Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workbench.calc.summary import summarize
from workbench.planning.scenarios import compare, figures_of
from workbench.planning.scenarios.figures import figures_of_file
from workbench.store import save_design
from workbench.templates.builder import build_template

#: The child for "figures of one file, cold": prints its own wall clock, so the
#: interpreter's start and the imports are not counted (they are in the compare rows).
COLD_FIGURES = r"""
import inspect, sys, time
from workbench.cli.catalog_load import load_catalog_noting_errors
from workbench.planning.scenarios.figures import figures_of_file
catalog = load_catalog_noting_errors()
extra = {"disk_cache": False} if "disk_cache" in inspect.signature(figures_of_file).parameters else {}
start = time.perf_counter()
figures_of_file(sys.argv[1], catalog=catalog, **extra)
print(time.perf_counter() - start)
"""


def timed(fn):  # noqa: ANN001, ANN201
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def in_process(gpus: int, folder: Path) -> tuple[Path, Path]:
    """The in-process figures; returns the two saved files."""
    h100 = build_template("dgx-h100-superpod", gpus=gpus)
    b200 = build_template("dgx-b200-liquid", gpus=gpus)
    t_sum, _ = timed(lambda: summarize(h100))
    t_fig, fig = timed(lambda: figures_of(h100, "h100"))
    print(f"{gpus:,} GPUs: figures cold {t_fig:.2f} s (summarize alone {t_sum:.3f} s)")
    a, b = folder / "a.dcwb", folder / "b.dcwb"
    save_design(h100, a)
    save_design(b200, b)
    kwargs = {"disk_cache": False}
    t_first, _ = timed(lambda: compare([figures_of_file(p, **kwargs) for p in (a, b)]))
    t_cached, _ = timed(lambda: compare([figures_of_file(p, **kwargs) for p in (a, b)]))
    t_table, _ = timed(lambda: compare([fig, fig, fig, fig]))
    print(f"two files, first read and figures: {t_first:.2f} s")
    print(f"two files, table kept in memory:   {t_cached * 1000:.2f} ms")
    print(f"table of four figures in hand:     {t_table * 1000:.3f} ms")
    return a, b


def run_child(argv: list[str], tree: str | None, env: dict[str, str]) -> float:
    """Wall clock of one child process run from ``tree`` (default: this checkout)."""
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stderr}")
    return took


def processes(a: Path, b: Path, trees: list[tuple[str, str | None]], runs: int, tmp: Path) -> None:
    rows: dict[str, list[float]] = {}
    compare_argv = [sys.executable, "-m", "workbench", "compare", str(a), str(b), "--json"]
    for _round in range(runs):
        for label, tree in trees:
            cache = tmp / "cache"
            shutil.rmtree(cache, ignore_errors=True)
            env = dict(os.environ, XDG_CACHE_HOME=str(cache))
            env.pop("PYTHONPATH", None)  # ``-m`` imports the workbench of ``cwd``
            proc = subprocess.run(
                [sys.executable, "-c", COLD_FIGURES, str(a)],
                cwd=tree,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            rows.setdefault(f"figures of one file, cold{label}", []).append(float(proc.stdout))
            first = run_child(compare_argv, tree, env)
            rows.setdefault(f"compare a b --json, first time{label}", []).append(first)
            again = run_child(compare_argv, tree, env)
            rows.setdefault(f"compare a b --json, repeat{label}", []).append(again)
    print(f"\nin new processes ({runs} runs, interleaved; min / median)")
    for name, values in rows.items():
        print(f"  {name:52s} {min(values):6.2f} s / {statistics.median(values):6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", help="also run the process rows from this checkout")
    args = parser.parse_args()
    trees: list[tuple[str, str | None]] = [("", str(Path(__file__).resolve().parents[2]))]
    if args.against:
        trees.append((f" ({Path(args.against).name})", str(Path(args.against).resolve())))
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        a, b = in_process(args.gpus, tmp)
        processes(a, b, trees, args.runs, tmp)


if __name__ == "__main__":
    main()
