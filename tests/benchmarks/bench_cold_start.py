"""Benchmark: cold start to the first drawn frame, beside a bare PySide6 window.

Each sample is a fresh Python process, timed from just before it is spawned until the
window has finished its first paint (a zero-length timer queued by the first paint event
of the main window fires after that paint pass).  The baseline is the same harness on a
bare ``QMainWindow`` with a label: what importing and starting Qt itself costs here, the
floor under any window.  The window is measured as shipped: the sample design (or FILE),
the catalog, the docks as a person has them (Cables and Storage tabbed behind Checks).

    .venv/bin/python tests/benchmarks/bench_cold_start.py [--runs 5] [--gpus 100000]

``--gpus N`` also times opening a design of N GPUs made by ``workbench new`` (untimed),
``--file F`` opening a design already made.
Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The child: start Qt (bare) or the workbench, report the wall clock after the first
#: paint of the main window, then leave without tearing anything down.
CHILD = r"""
import os, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

app = QApplication.instance() or QApplication(sys.argv[:1])
state = {"done": False}

def report():
    window = next(w for w in app.topLevelWidgets() if isinstance(w, QMainWindow))
    figures = getattr(getattr(window, "document", None), "figures", None)
    checked = bool(figures is not None and figures.checked)
    print(f"FRAME {time.time():.6f} {int(checked)}", flush=True)
    os._exit(0)

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if not state["done"] and event.type() == QEvent.Type.Paint:
            window = obj.window() if hasattr(obj, "window") else None
            if isinstance(window, QMainWindow):
                state["done"] = True
                QTimer.singleShot(0, report)
        return False

spy = FirstPaint()
app.installEventFilter(spy)
if sys.argv[1] == "bare":
    window = QMainWindow()
    window.setCentralWidget(QLabel("bare"))
    window.resize(1600, 1000)
    window.show()
    sys.exit(app.exec())
else:
    try:
        from workbench.ui.shell.app import run_app
    except ImportError:  # a tree from before the window's views had packages
        from workbench.ui.app import run_app
    sys.exit(run_app(sys.argv[2] if len(sys.argv) > 2 else None))
"""


def one_run(kind: str, path: str | None, env: dict[str, str]) -> tuple[float, bool]:
    """Seconds from spawn to the first drawn frame, and whether the check had run."""
    args = [sys.executable, "-c", CHILD, kind] + ([path] if path else [])
    start = time.time()
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    for line in done.stdout.splitlines():
        if line.startswith("FRAME "):
            _tag, when, checked = line.split()
            return float(when) - start, checked == "1"
    raise SystemExit(f"{kind}: no frame reported\n{done.stdout}\n{done.stderr}")


def series(kind: str, path: str | None, runs: int, env: dict[str, str]) -> list[float]:
    one_run(kind, path, env)  # warm the file cache: the numbers are of a second start
    found = [one_run(kind, path, env) for _ in range(runs)]
    if any(checked for _s, checked in found):
        print(f"  note: {kind} {path or ''} ran its full check before the first frame")
    return [s for s, _c in found]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--gpus", type=int, nargs="*", default=[])
    parser.add_argument("--file", nargs="*", default=[], help="also time opening these designs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        # As installed: byte-code cached (the warm-up run writes it), not compiled anew.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        env["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # no saved layout or recovery
        env["HOME"] = tmp
        rows = [("bare PySide6 window", series("bare", None, args.runs, env))]
        rows.append(("workbench, sample", series("app", None, args.runs, env)))
        for gpus in args.gpus:
            path = str(Path(tmp) / f"design-{gpus}.dcwb")
            subprocess.run(
                [sys.executable, "-m", "workbench", "new", path, "--gpus", str(gpus)],
                env=env,
                check=True,
                capture_output=True,
            )
            rows.append((f"workbench, {gpus:,} GPUs", series("app", path, args.runs, env)))
        for given in args.file:
            rows.append((f"workbench, {Path(given).name}", series("app", given, args.runs, env)))
    print(f"\ncold start to the first drawn frame ({args.runs} runs after one warm-up)")
    for name, values in rows:
        print(f"  {name:28s} min {min(values):6.2f} s   median {statistics.median(values):6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
