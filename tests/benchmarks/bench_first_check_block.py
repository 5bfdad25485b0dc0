"""Benchmark: how long input waits between the first frame and the first full check's end.

Issue 21 asks for the window first, then the checks, without blocking input.  Each
sample is a fresh process that starts the window as the ``workbench`` command does, on
a design made by ``workbench new`` (untimed), with the docks as a person has them.  From
the first paint of the main window a 5 ms repeating ``QTimer`` records how late each
tick fires: the worst lateness is the longest the event loop was blocked (what a key
press or a drag would have waited).  The check is done once ``figures.checked`` and the
status strip shows the training estimate (not "days …"); the sample ends once the
warm-up that runs in slices after the check is done too (``figures.settled``; a tree
without it ends at the check), so its blocks count.

    .venv/bin/python tests/benchmarks/bench_first_check_block.py [--runs 3] [--gpus 100000]
        [--file F] [--against TREE] [--open]

Printed per row: the worst block after the first frame, the time from the first frame to
the checks (and estimate) complete, from spawn to the first frame, the "cpu block": the
most CPU time the main thread spent between two ticks, and the time from the first
frame to settled.  On a machine shared with other busy processes the wall-clock blocks
include the time the process waited for a core (a 5 ms block of its own can read
80 ms); the cpu block is its own work only.  ``--against TREE`` runs a second checkout (an unpacked ``git archive`` of the baseline) in the same
run, interleaved round by round.  ``--top`` lists the longest blocks of the last run.
``--open`` starts the window on the sample and, once it is checked, opens the design as
File > Open does; the blocks are then timed from the open's end (the open itself, one
synchronous read, is printed apart).
Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_cold_start import child_env

#: The child: start the window through the command's dispatch; from its first paint,
#: tick every 5 ms and report the gaps until the checks and the estimate are done.
CHILD = r"""
import os, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

app = QApplication.instance() or QApplication(sys.argv[:1])
state = {"painted": None, "last": None, "cpu": None, "gaps": [], "window": None}
TICK = 0.005

def done(window):
    figures = window.document.figures
    if not figures.checked:
        return False
    strip = getattr(window, "summary", None)
    days = strip.figure("days") if strip is not None else ""
    return "…" not in days and "pending" not in days

def tick():
    now, cpu = time.perf_counter(), time.thread_time()
    state["gaps"].append((now - state["last"] - TICK, now - state["painted"], cpu - state["cpu"]))
    state["last"], state["cpu"] = now, cpu
    if "checked" not in state and done(state["window"]):
        state["checked"] = now - state["painted"]
    figures = state["window"].document.figures
    if "checked" in state and getattr(figures, "settled", True):
        gaps = sorted(state["gaps"], reverse=True)
        busiest = max(cpu for _late, _at, cpu in gaps)
        print(f"RESULT {gaps[0][0]:.6f} {state['checked']:.6f} "
              f"{state['frame_at']:.6f} {state.get('open_s', 0.0):.6f} {busiest:.6f} "
              f"{now - state['painted']:.6f}", flush=True)
        for late, at, cpu in gaps[:8]:
            print(f"GAP {late:.6f} {at:.6f} {cpu:.6f}", flush=True)
        os._exit(0)

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if state["window"] is None and event.type() == QEvent.Type.Paint:
            window = obj.window() if hasattr(obj, "window") else None
            if isinstance(window, QMainWindow):
                state["window"] = window
                # Queued now, so it runs once this paint pass (the first frame) is
                # done and before anything the window queued from its own paint.
                QTimer.singleShot(0, start)
        return False

OPEN = os.environ.get("BENCH_OPEN")

def start():
    if OPEN:  # the window is up on the sample: open the design as File > Open does
        window = state["window"]
        if not window.document.figures.checked:
            QTimer.singleShot(20, start)
            return
        began = time.perf_counter()
        window.file_actions.open_path(OPEN, ask_save=False)
        state["open_s"] = time.perf_counter() - began
    state["painted"] = state["last"] = time.perf_counter()
    state["cpu"] = time.thread_time()
    state["frame_at"] = time.time()
    timer = QTimer(app)
    timer.setInterval(int(TICK * 1000))
    timer.timeout.connect(tick)
    timer.start()
    state["timer"] = timer

spy = FirstPaint()
app.installEventFilter(spy)
from workbench.cli.main import main
sys.exit(main([] if OPEN else sys.argv[1:]))
"""


def one_run(
    path: str, env: dict[str, str], tree: str | None, opened: bool = False
) -> tuple[float, float, float, float, float, float, list]:
    """(worst block s, first frame → done s, spawn → first frame s, File > Open s,
    the most main-thread CPU s between two ticks, first frame → settled s, longest
    gaps).  ``opened``: the window starts on the sample and then opens ``path``
    as File > Open does; the blocks are timed from the open's end."""
    start = time.time()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, path],
        env={**env, "BENCH_OPEN": path} if opened else env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tree,
    )
    result, gaps = None, []
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            worst, total, frame_at, open_s, busiest, settled = (float(v) for v in line.split()[1:])
            result = (worst, total, frame_at - start, open_s, busiest, settled)
        elif line.startswith("GAP "):
            gaps.append(tuple(float(v) for v in line.split()[1:]))
    if result is None:
        raise SystemExit(f"no result\n{done.stdout}\n{done.stderr[-3000:]}")
    return (*result, gaps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--file", help="a design already made (instead of --gpus)")
    parser.add_argument("--against", help="also run this checkout (the baseline)")
    parser.add_argument("--top", action="store_true", help="list the longest blocks")
    parser.add_argument(
        "--open",
        action="store_true",
        help="start on the sample, then open the design as File > Open does",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = child_env(tmp)
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
            one_run(path, env, tree, args.open)  # warm-up: byte-code and files cached
        found: list[list[tuple]] = [[] for _ in rows]
        for _ in range(args.runs):
            for at, (_name, tree) in enumerate(rows):
                found[at].append(one_run(path, env, tree, args.open))
    after = "the File > Open" if args.open else "the first frame"
    print(f"\nafter {after}, until checks and estimate are done ({args.runs} runs)")
    for (name, _tree), runs in zip(rows, found, strict=True):
        worst = [r[0] * 1000 for r in runs]
        total = [r[1] for r in runs]
        frame = [r[2] for r in runs]
        opens = [r[3] for r in runs]
        busiest = [r[4] * 1000 for r in runs]
        settled = [r[5] for r in runs]
        print(
            f"  {name:24s} worst block min {min(worst):7.1f} / median "
            f"{statistics.median(worst):7.1f} ms   frame→checked min {min(total):6.2f} / "
            f"median {statistics.median(total):6.2f} s   first frame min {min(frame):5.2f} s"
            f"   cpu block min {min(busiest):5.1f} / median {statistics.median(busiest):5.1f} ms"
            f"   frame→settled min {min(settled):5.2f} / median {statistics.median(settled):5.2f} s"
            + (
                f"   open min {min(opens):5.2f} / median {statistics.median(opens):5.2f} s"
                if args.open
                else ""
            )
        )
        if args.top:
            for late, at, cpu in runs[-1][6]:
                print(
                    f"      block {late * 1000:7.1f} ms ({cpu * 1000:5.1f} ms cpu) ending "
                    f"{at:6.2f} s after the frame"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
