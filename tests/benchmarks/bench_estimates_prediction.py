"""Benchmark: a layout edit of a training job whose MFU is predicted from the design
(issue 12), in the real main window with the Estimates tab on screen.

The product standard: one edit updates every live figure within a frame (16 ms at
60 Hz) up to 100,000 GPUs.  A TP edit now re-predicts the step (node, NVLink, NICs,
the cached compute-fabric figures), redraws the predicted curve (one step prediction per
GPU count), the step bar and the status strip.  Timed: the push through the undo stack
and the ``processEvents`` that paints it (the round trip a planner feels: every view's
slot, the design checks included), and apart from it the evaluation alone and the
Estimates view's own refresh (evaluate, curve, panel, plots, paint).  Also timed: the first read of the fabric figures (once
per cabling change) and a device rename, which must not recompute them.

Run offscreen: ``.venv/bin/python tests/benchmarks/bench_estimates_prediction.py
[--repeat N] [--gpus N]`` (not collected by the default pytest run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtGui import QUndoCommand  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.calc.workload import evaluate_workload  # noqa: E402
from workbench.model import Change  # noqa: E402
from workbench.templates import build_template  # noqa: E402
from workbench.ui.commands import rename_device, update_workload  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402
from workbench.ui.shell.main_window import MainWindow  # noqa: E402

TEMPLATE = "dgx-h100-superpod"


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--gpus", type=int, default=100_000)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv)
    design = build_template(TEMPLATE, gpus=args.gpus)
    workload = design.workloads[0]
    print(
        f"{TEMPLATE} at {args.gpus:,} GPUs; job {workload.name!r}, MFU {workload.mfu}", flush=True
    )
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        settings = QSettings(str(Path(tmp) / "settings.ini"), QSettings.Format.IniFormat)
        document = Document()
        window = MainWindow(document, settings=settings)
        window.file_actions.autosave_timer.stop()
        start = time.perf_counter()
        document.replace_design(design, None)
        figures = document.figures
        fabric_start = time.perf_counter()
        figures.fabric  # noqa: B018 - the first read: the compute plane's figures
        fabric_ms = _ms(fabric_start)
        window.resize(1600, 1000)
        window.show()
        window.tabs.setCurrentWidget(window.estimates_page)
        window.estimates.select_workload(workload.id)
        app.processEvents()
        print(
            f"open + first paint {_ms(start):.0f} ms (of which fabric figures {fabric_ms:.0f} ms)"
        )

        tps = (4, 8)
        round_trips, evaluations, refreshes = [], [], []
        for i in range(args.repeat):
            app.processEvents()
            begin = time.perf_counter()
            document.push(update_workload(document, workload.id, tp=tps[i % 2]))
            app.processEvents()
            round_trips.append(_ms(begin))
            document.undo_stack.push(QUndoCommand("barrier"))  # keep the edits apart
            edited = document.design.find_workload(workload.id)
            begin = time.perf_counter()
            evaluate_workload(document.design, edited, figures.summary, figures.fabric)
            evaluations.append(_ms(begin))
            # This view's own share: evaluate (cache dropped) + estimate + panel + plots.
            figures.on_changed(Change(workloads=frozenset({workload.id})))
            app.processEvents()
            begin = time.perf_counter()
            window.estimates._recompute()
            app.processEvents()
            refreshes.append(_ms(begin))
        fabric_reads = figures.computed["fabric"]
        rack = next(document.design.iter_racks())
        device = rack.devices[0]
        renames = []
        for i in range(args.repeat):
            app.processEvents()
            begin = time.perf_counter()
            document.push(rename_device(document, device.id, f"bench-{i}"))
            app.processEvents()
            renames.append(_ms(begin))
        recomputed = figures.computed["fabric"] - fabric_reads
        result = figures.workload(workload.id)
        document.undo_stack.setClean()  # no "save changes?" prompt on exit
        window.hide()

    def row(what: str, samples: list[float]) -> None:
        print(
            f"  {what:<34} median {statistics.median(samples):6.1f} ms   max {max(samples):6.1f} ms"
        )

    row("TP 8 <-> 4 round trip (push+paint)", round_trips)
    row("  evaluate_workload alone", evaluations)
    row("  Estimates refresh (evaluate+draw)", refreshes)
    row("rename device (Estimates shown)", renames)
    print(f"  fabric figures recomputed by the renames: {recomputed}")
    print(f"  last: MFU {result.mfu:.3f} ({result.mfu_source}), {result.days:,.1f} days")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
