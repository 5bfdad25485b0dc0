"""Benchmark: how long a key press waits while the first full check runs (issue 21).

Each sample starts the window as the ``workbench`` command does, on a design made by
``workbench new`` (or ``--file``), under Xvfb.  From the first paint until the first
full check and the training estimate are done, ``xdotool key shift`` is sent every
``--every`` seconds (a real X key event, as a hand makes it); the window notes when each
key press reaches its event loop.  The latency of one press is the wall-clock time from
just before ``xdotool`` ran to the press's arrival (so it includes starting xdotool and
the X round trip, a few milliseconds, in every row alike).

    .venv/bin/python tests/benchmarks/bench_key_latency.py [--runs 3] [--gpus 100000]
        [--file F] [--against TREE]

Printed per row: the worst and median latency over all presses of all runs, the worst
run's worst, and how many presses were timed.  Needs Xvfb and xdotool.  Not collected by
pytest: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_cold_start import child_env

#: The child: the window through the command's dispatch, noting each key press's wall
#: time; it says when it first painted and when the checks and estimate are done.
CHILD = r"""
import os, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

app = QApplication.instance() or QApplication(sys.argv[:1])
state = {"window": None, "keys": []}

def done(window):
    figures = window.document.figures
    if not getattr(figures, "settled", figures.checked):  # the check and its warm-up
        return False
    days = window.summary.figure("days") if getattr(window, "summary", None) else ""
    return "…" not in days and "pending" not in days

def poll():
    if done(state["window"]):
        print("KEYS " + " ".join(f"{t:.6f}" for t in state["keys"]), flush=True)
        print("DONE", flush=True)
        QTimer.singleShot(300, lambda: os._exit(0))
        return
    QTimer.singleShot(20, poll)

class Spy(QObject):
    def eventFilter(self, obj, event):
        kind = event.type()
        if kind == QEvent.Type.KeyPress and obj is app.focusWindow():
            state["keys"].append(time.time())
        if state["window"] is None and kind == QEvent.Type.Paint:
            window = obj.window() if hasattr(obj, "window") else None
            if isinstance(window, QMainWindow):
                state["window"] = window
                print(f"PAINTED {time.time():.6f} {int(window.winId())}", flush=True)
                QTimer.singleShot(0, poll)
        return False

spy = Spy()
app.installEventFilter(spy)
from workbench.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def start_xvfb() -> tuple[subprocess.Popen, str]:
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    return xvfb, f":{number}"


def one_run(path: str, env: dict[str, str], tree: str | None, every: float) -> list[float]:
    """Latencies (s) of the key presses sent between the first paint and done."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, path],
        env=env,
        cwd=tree,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert child.stdout is not None
    sent: list[float] = []
    arrived: list[float] = []
    line = child.stdout.readline()
    while line and not line.startswith("PAINTED"):
        line = child.stdout.readline()
    if not line:
        raise SystemExit("the window never painted")
    window = line.split()[2]
    subprocess.run(["xdotool", "windowfocus", "--sync", window], env=env, timeout=30)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(child.stdout), daemon=True)
    reader.start()
    while child.poll() is None and not any(t.startswith("DONE") for t in list(lines)):
        sent.append(time.time())
        subprocess.run(["xdotool", "key", "shift"], env=env, timeout=30)
        time.sleep(every)
    child.wait(timeout=60)
    reader.join(timeout=10)
    for text in lines:
        if text.startswith("KEYS"):
            arrived = [float(v) for v in text.split()[1:]]
    # Each press is matched to the first arrival after it was sent.
    latencies = []
    at = 0
    for when in sent:
        while at < len(arrived) and arrived[at] < when:
            at += 1
        if at < len(arrived):
            latencies.append(arrived[at] - when)
            at += 1
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--file", help="a design already made (instead of --gpus)")
    parser.add_argument("--against", help="also run this checkout (the baseline)")
    parser.add_argument("--every", type=float, default=0.05, help="seconds between presses")
    args = parser.parse_args()
    for program in ("Xvfb", "xdotool"):
        if shutil.which(program) is None:
            raise SystemExit(f"{program} is needed")
    xvfb, display = start_xvfb()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            env = child_env(tmp)
            env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb")
            env["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
            path = args.file and str(Path(args.file).resolve())
            if not path:
                path = str(Path(tmp) / f"design-{args.gpus}.dcwb")
                subprocess.run(
                    [sys.executable, "-m", "workbench", "new", path, "--gpus", str(args.gpus)],
                    env=env,
                    check=True,
                    capture_output=True,
                )
            rows: list[tuple[str, str | None]] = [("this checkout", None)]
            if args.against:
                rows.append((Path(args.against).name, str(Path(args.against).resolve())))
            for _name, tree in rows:
                one_run(path, env, tree, args.every)  # warm-up
            found: list[list[list[float]]] = [[] for _ in rows]
            for _ in range(args.runs):
                for at, (_name, tree) in enumerate(rows):
                    found[at].append(one_run(path, env, tree, args.every))
    finally:
        xvfb.terminate()
    print(f"\nkey press latency while the first check runs ({args.runs} runs)")
    for (name, _tree), runs in zip(rows, found, strict=True):
        every = [v * 1000 for run in runs for v in run]
        worst_runs = [max(run) * 1000 for run in runs if run]
        if not every:
            print(f"  {name:24s} no key press arrived")
            continue
        print(
            f"  {name:24s} worst {max(every):7.1f} ms   median {statistics.median(every):6.1f} ms"
            f"   worst per run min {min(worst_runs):6.1f} / median "
            f"{statistics.median(worst_runs):6.1f} ms   presses {len(every)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
