"""Benchmark: the command line at campus scale, each figure beside its baseline.

Every sample is a whole process (start-up included), run after one untimed warm-up:

* ``workbench fabric --gpus N … --rail-optimized --json``, beside a bare interpreter
  start (``python -c pass``: the floor under any command);
* ``workbench new --gpus N`` (the design every later row reads; timed once per run);
* opening the design (:func:`workbench.store.open_design`) beside raw sqlite3 reading
  every row of every table of the same file (the floor for any reader of it);
* the peak memory (max RSS) of ``workbench report`` and ``workbench check``, beside a
  process that only opens the design;
* what the cable schedule export adds to the peak memory of that same open.

    .venv/bin/python tests/benchmarks/bench_cli_scale.py [--gpus 100000] [--runs 3]

Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable

#: A process that opens the design and nothing else (the memory baseline).
OPEN_ONLY = "import sys; from workbench.store import open_design; open_design(sys.argv[1])"

#: Raw sqlite3 reading every row of every table of the file (the open baseline).
RAW_READ = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1])\n"
    "names = [r[0] for r in c.execute(\"SELECT name FROM sqlite_master WHERE type='table'\")]\n"
    "n = sum(len(c.execute(f'SELECT * FROM \"{t}\"').fetchall()) for t in names)\n"
)

#: open_design alone, timed inside the process (no interpreter start or imports).
OPEN_TIMED = (
    "import sys, time\n"
    "from workbench.store import open_design\n"
    "t = time.perf_counter(); open_design(sys.argv[1]); print(time.perf_counter() - t)\n"
)
RAW_TIMED = (
    "import sqlite3, sys, time\n"
    "t = time.perf_counter()\n" + RAW_READ + "print(time.perf_counter() - t)\n"
)


def run(args: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MiB, stdout) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # check exits 1 when it finds errors
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {err.strip()[-400:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, peak, out


def peak_of(args: list[str]) -> float:
    """Peak RSS (MiB) of one run of ``args``, read from a fresh child of a fresh child
    (RUSAGE_CHILDREN keeps the largest child ever, so each measure gets its own)."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
    )
    done = subprocess.run([PY, "-c", probe, *args], capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def series(args: list[str], runs: int) -> list[float]:
    run(args)  # warm-up: file cache, byte-code
    return [run(args)[0] for _ in range(runs)]


def timed_inside(code: str, path: Path, runs: int) -> list[float]:
    subprocess.run([PY, "-c", code, str(path)], check=True, capture_output=True)
    return [float(run([PY, "-c", code, str(path)])[2].strip()) for _ in range(runs)]


def show(name: str, values: list[float], unit: str = "s") -> None:
    print(
        f"  {name:46s} min {min(values):8.2f} {unit}   median {statistics.median(values):8.2f} {unit}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    n = args.gpus
    os.environ.setdefault("PYTHONHASHSEED", "0")
    print(f"{n:,} GPUs, {args.runs} runs after a warm-up, {os.cpu_count()} CPUs")
    print("fabric command (whole process)")
    show("python -c pass (floor)", series([PY, "-c", "pass"], args.runs))
    fabric = [PY, "-m", "workbench", "fabric", "--gpus", str(n), "--node-model",
              "nvidia-dgx-h100", "--switch", "nvidia-q3400-ra", "--rail-optimized", "--json"]  # fmt: skip
    show("workbench fabric --rail-optimized --json", series(fabric, args.runs))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"d{n}.dcwb"
        wall, _peak, _out = run([PY, "-m", "workbench", "new", str(path), "--gpus", str(n)])
        print(f"new (one run)\n  {'workbench new --gpus':46s} {wall:8.2f} s")
        print(f"open ({path.stat().st_size / 1e6:,.0f} MB file)")
        raw = timed_inside(RAW_TIMED, path, args.runs)
        opened = timed_inside(OPEN_TIMED, path, args.runs)
        show("raw sqlite3, every row of every table", raw)
        show("open_design", opened)
        print(f"  ratio (median)  {statistics.median(opened) / statistics.median(raw):.2f}x")
        print("peak memory (MiB)")
        base = peak_of([PY, "-c", OPEN_ONLY, str(path)])
        print(f"  {'open only':46s} {base:8,.0f}")
        for what in ("report", "check"):
            used = peak_of([PY, "-m", "workbench", what, str(path), "--json"])
            print(f"  {'workbench ' + what + ' --json':46s} {used:8,.0f}")
        cables = Path(tmp) / "cables.xlsx"
        used = peak_of([PY, "-m", "workbench", "export", str(path), "--cables", str(cables)])
        print(f"  {'export --cables':46s} {used:8,.0f}   adds {used - base:,.0f} over open")
    return 0


if __name__ == "__main__":
    sys.exit(main())
