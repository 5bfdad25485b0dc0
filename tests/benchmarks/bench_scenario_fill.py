"""Benchmark: ``workbench scenario`` then the first ``workbench compare`` of its variants.

On a design built with ``build_template("dgx-h100-superpod", gpus=N)`` and saved as
``base.dcwb``, each round runs, each in a new process and with an empty cache folder:

* ``workbench scenario base.dcwb --cooling air,liquid`` (two variants, saved beside it),
  and the part of it spent keeping the variants' figures in the cache folder
  (:func:`workbench.planning.scenarios.figures.keep_figures_of_saved`, timed inside the
  child; absent from a checkout that does not have it);
* ``workbench compare base.dcwb <air> <liquid> --json``, the first time after it (a
  checkout whose ``scenario`` does not keep the base file's figures reads that file).

``--against TREE`` runs every row a second time from another checkout (an unpacked
``git archive`` of the baseline commit), interleaved round by round, so a change and its
baseline are measured under the same load::

    .venv/bin/python tests/benchmarks/bench_scenario_fill.py [--gpus 100000] [--runs 3]
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

from workbench.store import save_design
from workbench.templates.builder import build_template

#: ``workbench scenario`` as the console script runs it, with the time spent keeping
#: figures summed and printed on the last line of stderr.
SCENARIO = r"""
import sys, time
from workbench.planning.scenarios import figures
spent = [0.0]
real = getattr(figures, "keep_figures_of_saved", None)
if real is not None:
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start
    figures.keep_figures_of_saved = timed
from workbench.cli.main import main
code = main(sys.argv[1:])
print(f"\nkeep={spent[0]:.6f}", file=sys.stderr)
sys.exit(code)
"""


def run_child(argv: list[str], tree: str, env: dict[str, str]) -> tuple[float, str]:
    """Wall clock of one child process run from ``tree``, and its stderr."""
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stderr}")
    return took, proc.stderr


def one_round(base: Path, tree: str, label: str, tmp: Path, rows: dict[str, list[float]]) -> None:
    work = tmp / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    design = work / "base.dcwb"
    shutil.copy2(base, design)
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"), QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONPATH", None)  # ``-m`` and ``-c`` import the workbench of ``cwd``
    argv = [sys.executable, "-c", SCENARIO, "scenario", str(design), "--cooling", "air,liquid"]
    took, err = run_child(argv, tree, env)
    rows.setdefault(f"scenario --cooling air,liquid{label}", []).append(took)
    keep = float(err.rsplit("keep=", 1)[1])
    rows.setdefault(f"  of which keeping the figures{label}", []).append(keep)
    variants = sorted(work.glob("base.scenario-*.dcwb"))
    assert len(variants) == 2, variants
    compare = [sys.executable, "-m", "workbench", "compare", str(design), *map(str, variants)]
    took, _err = run_child([*compare, "--json"], tree, env)
    rows.setdefault(f"compare base air liquid --json, first{label}", []).append(took)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", help="also run every row from this checkout")
    args = parser.parse_args()
    trees = [("", str(Path(__file__).resolve().parents[2]))]
    if args.against:
        trees.append((f" ({Path(args.against).name})", str(Path(args.against).resolve())))
    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        base = tmp / "base.dcwb"
        save_design(build_template("dgx-h100-superpod", gpus=args.gpus), base)
        for _round in range(args.runs):
            for label, tree in trees:
                one_round(base, tree, label, tmp, rows)
    print(f"{args.gpus} GPUs, {args.runs} runs interleaved (min / median)")
    for name, values in rows.items():
        print(f"  {name:58s} {min(values):6.2f} s / {statistics.median(values):6.2f} s")


if __name__ == "__main__":
    main()
