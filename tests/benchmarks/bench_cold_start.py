"""Benchmark: cold start to the first drawn frame, beside a bare PySide6 window.

Each sample is a fresh Python process, timed from just before it is spawned until the
window has finished its first paint (a zero-length timer queued by the first paint event
of the main window fires after that paint pass).  The baseline is the same harness on a
bare ``QMainWindow`` with a label: what importing and starting Qt itself costs here, the
floor under any window.  The window is measured as shipped: the sample design (or FILE),
the catalog, the docks as a person has them (Cables and Storage tabbed behind Checks),
started as the ``workbench`` command starts it (``workbench.cli.main.main``: what
``python -m workbench`` and the console script run), or with ``--direct`` by calling
the window's ``run_app`` (the command's dispatch left out).

    .venv/bin/python tests/benchmarks/bench_cold_start.py [--runs 5] [--gpus 100000]

``--gpus N`` also times opening a design of N GPUs made by ``workbench new`` (untimed),
``--file F`` opening a design already made.  ``--against TREE`` times every workbench
row a second time from another checkout (an unpacked ``git archive`` of the baseline
commit), so a change and its baseline are measured in the same run.  The runs are
interleaved (one of each row per round), so a load that comes and goes while the
benchmark runs falls on every row alike.
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
elif sys.argv[1] == "command":  # as `workbench [FILE]` starts: through the CLI's dispatch
    from workbench.cli.main import main

    sys.exit(main(sys.argv[2:]))
else:
    try:
        from workbench.ui.shell.app import run_app
    except ImportError:  # a tree from before the window's views had packages
        from workbench.ui.app import run_app
    sys.exit(run_app(sys.argv[2] if len(sys.argv) > 2 else None))
"""


def one_run(
    kind: str, path: str | None, env: dict[str, str], tree: str | None = None
) -> tuple[float, bool]:
    """Seconds from spawn to the first drawn frame, and whether the check had run.

    ``tree``: the checkout whose workbench runs (the child's working folder comes first
    on its import path); None, the current folder."""
    args = [sys.executable, "-c", CHILD, kind] + ([path] if path else [])
    start = time.time()
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, cwd=tree)
    for line in done.stdout.splitlines():
        if line.startswith("FRAME "):
            _tag, when, checked = line.split()
            return float(when) - start, checked == "1"
    raise SystemExit(f"{kind}: no frame reported\n{done.stdout}\n{done.stderr}")


#: One row of the table: its name, "bare" or "app", the design (None: the sample) and
#: the checkout to run (None: this one).
Row = tuple[str, str, str | None, str | None]


def interleaved(rows: list[Row], runs: int, env: dict[str, str]) -> list[list[float]]:
    """``runs`` timings per row, taken round by round (each row once per round) after
    one warm-up start of each (the numbers are of a second start: files cached)."""
    for _name, kind, path, tree in rows:
        one_run(kind, path, env, tree)
    found: list[list[tuple[float, bool]]] = [[] for _ in rows]
    for _ in range(runs):
        for at, (_name, kind, path, tree) in enumerate(rows):
            found[at].append(one_run(kind, path, env, tree))
    for (name, *_rest), timings in zip(rows, found, strict=True):
        if any(checked for _s, checked in timings):
            print(f"  note: {name} ran its full check before the first frame")
    return [[s for s, _c in timings] for timings in found]


def child_env(tmp: str) -> dict[str, str]:
    """The children's environment: offscreen, and a fresh home under ``tmp`` (no saved
    layout, recovery file or cache), so every start is a first start."""
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    # As installed: byte-code cached (the warm-up run writes it), not compiled anew.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["XDG_STATE_HOME"] = str(Path(tmp) / "state")
    env["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")  # no saved layout or recovery
    env["HOME"] = tmp
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--gpus", type=int, nargs="*", default=[])
    parser.add_argument("--file", nargs="*", default=[], help="also time opening these designs")
    parser.add_argument("--against", help="also run every workbench row from this checkout")
    parser.add_argument("--direct", action="store_true", help="call run_app, not the command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = child_env(tmp)
        designs: list[tuple[str, str | None]] = [("sample", None)]
        for gpus in args.gpus:
            path = str(Path(tmp) / f"design-{gpus}.dcwb")
            subprocess.run(
                [sys.executable, "-m", "workbench", "new", path, "--gpus", str(gpus)],
                env=env,
                check=True,
                capture_output=True,
            )
            designs.append((f"{gpus:,} GPUs", path))
        designs += [(Path(given).name, str(Path(given).resolve())) for given in args.file]
        trees: list[tuple[str, str | None]] = [("", None)]
        if args.against:
            trees.append((f" ({Path(args.against).name})", str(Path(args.against).resolve())))
        rows: list[Row] = [("bare PySide6 window", "bare", None, None)]
        rows += [
            (f"workbench, {what}{label}", "app" if args.direct else "command", path, tree)
            for what, path in designs
            for label, tree in trees
        ]
        timings = interleaved(rows, args.runs, env)
    print(
        f"\ncold start to the first drawn frame ({args.runs} runs after one warm-up, interleaved)"
    )
    for (name, *_rest), values in zip(rows, timings, strict=True):
        print(f"  {name:36s} min {min(values):6.2f} s   median {statistics.median(values):6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
