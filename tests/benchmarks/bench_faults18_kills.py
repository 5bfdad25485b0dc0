"""Kill long writes at random moments; after the next run of any write into the
folder, count what is left beside the outputs (issue 18, measurement 1).

Run: ``python tests/benchmarks/bench_faults18_kills.py ARGS`` (see ``sys.argv`` below); the
numbers of the issue-18 run are in that session's report.
"""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

PY = sys.executable
root = Path(sys.argv[1])
root.mkdir(parents=True, exist_ok=True)
env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
proj = root / "big.dcwb"
subprocess.run(
    [
        PY,
        "-m",
        "workbench",
        "new",
        str(proj),
        "--template",
        "dgx-h100-superpod",
        "--gpus",
        "8192",
        "--force",
    ],
    check=True,
    env=env,
    capture_output=True,
)
out = root / "out"
out.mkdir(exist_ok=True)
commands = {
    "export --cables": ["export", str(proj), "--cables", str(out / "cables.xlsx")],
    "export --bom": ["export", str(proj), "--bom", str(out / "bom.xlsx")],
    "print": ["print", str(proj), "--out", str(out / "racks.pdf")],
    "print --svg-dir": [
        "print",
        str(proj),
        "--out",
        str(out / "r2.pdf"),
        "--svg-dir",
        str(out / "svg"),
    ],
    "netbox export": ["netbox", "export", str(proj), str(out / "nb")],
    "export --slurm": ["export", str(proj), "--slurm", str(out / "slurm")],
    "save (versions import)": None,
}
rng = random.Random(18)
kills = 0
durations = {}
for name, args in commands.items():
    if args is None:
        continue
    t = time.time()
    subprocess.run([PY, "-m", "workbench", *args], env=env, capture_output=True)
    durations[name] = time.time() - t
for name, args in commands.items():
    if args is None:
        continue
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 10):
        p = subprocess.Popen(
            [PY, "-m", "workbench", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.55 * durations[name], 1.0 * durations[name]))
        p.send_signal(signal.SIGKILL)
        p.wait()
        kills += 1


def litter():
    found = []
    for dirpath, dirnames, filenames in os.walk(out):
        for n in dirnames + filenames:
            if n.startswith(".") and (".tmp" in n or n.endswith(".export")):
                found.append(os.path.join(dirpath, n))
    return found


before = litter()
size = sum(
    (os.path.getsize(p) if os.path.isfile(p) else sum(f.stat().st_size for f in Path(p).rglob("*")))
    for p in before
)
old = time.time() - 120  # as if the next run came two minutes later (the sweep waits 30 s)
for p in before:
    for q in [p, *map(str, Path(p).rglob("*"))] if os.path.isdir(p) else [p]:
        os.utime(q, (old, old))
# The next run of ONE write (the cables export) and the window's start-up sweep of the
# folder of another (print's): every kind must go.
subprocess.run([PY, "-m", "workbench", *commands["export --cables"]], env=env, capture_output=True)
subprocess.run([PY, "-m", "workbench", *commands["print --svg-dir"]], env=env, capture_output=True)
subprocess.run([PY, "-m", "workbench", *commands["export --slurm"]], env=env, capture_output=True)
after = litter()
print(
    f"kills: {kills}; leftovers before the next runs: {len(before)} ({size / 1e6:.1f} MB); after: {len(after)}"
)
for p in after:
    print("  left:", p)
