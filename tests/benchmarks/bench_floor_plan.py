"""Benchmark: the floor plan at 16,384 and 100,000 GPUs, in the real main window.

What a planner feels, each timed until ``processEvents`` returns (the repaint the step
scheduled included):

* what the plan adds to opening a design: its part of ``Document.replace_design`` with
  the positions in the file, and with none (a file older than the plan: laid out);
* building it: switching to the Floor plan tab, up to the end of the first paint;
* panning: scroll steps of (37, 23) px at 1.5 × "Fit" (most of the hall on screen: the
  most to draw) and at a zoom where rack names are readable; full repaints of both;
* zooming: 12 steps in by 15 % and 12 out again, from Fit;
* a drag of one rack, released: the undoable command and the repaint.

Run offscreen: ``.venv/bin/python tests/benchmarks/bench_floor_plan.py [--sizes ...]``
(not collected by the default pytest run: timings are not unit-test assertions).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.catalog import load_catalog  # noqa: E402
from workbench.model import ops  # noqa: E402
from workbench.templates import build_template  # noqa: E402
from workbench.ui.commands import EditCommand  # noqa: E402
from workbench.ui.floor.plan import READABLE_ZOOM  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402
from workbench.ui.shell.main_window import MainWindow  # noqa: E402

TEMPLATE = "dgx-h100-superpod"
FRAME_MS = 1000.0 / 60.0


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def timed(app: QApplication, action: Callable[[int], None], repeat: int) -> list[float]:
    """Milliseconds of ``action(i)`` plus the event processing (paint) it causes."""
    samples = []
    for i in range(repeat):
        app.processEvents()
        start = time.perf_counter()
        action(i)
        app.processEvents()
        samples.append(_ms(start))
    return samples


def bench_size(app: QApplication, catalog, gpus: int, settings_dir: Path):
    """Rows of (what, median ms, max ms) for one design size."""
    design = build_template(TEMPLATE, gpus=gpus, catalog=catalog)
    racks = list(design.iter_racks())
    rows_n = sum(len(s.rows) for s in design.sites)
    print(f"\n{TEMPLATE} at {gpus:,} GPUs: {len(racks):,} racks in {rows_n} rows")
    settings = QSettings(str(settings_dir / f"settings-{gpus}.ini"), QSettings.Format.IniFormat)
    document = Document()
    window = MainWindow(document, catalog=catalog, settings=settings)
    window.file_actions.autosave_timer.stop()
    document.replace_design(design, None)
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    plan = window.floor_plan
    out: list[tuple[str, float, float]] = []

    def once(name: str, samples: list[float]) -> None:
        out.append((name, statistics.median(samples), max(samples)))

    # What the plan adds to opening: its designReplaced slot, positions present / absent.
    present = []
    for _ in range(5):
        start = time.perf_counter()
        plan._on_design_replaced()  # hidden tab: positions checked, drawing put off
        present.append(_ms(start))
    once("open: plan's share", present)
    missing = []
    for _ in range(3):
        saved = [(r.floor_x_mm, r.floor_y_mm, r.facing) for r in racks]
        for r in racks:
            r.floor_x_mm = r.floor_y_mm = None
        start = time.perf_counter()
        plan._on_design_replaced()
        missing.append(_ms(start))
        for r, (x, y, f) in zip(racks, saved, strict=True):
            r.floor_x_mm, r.floor_y_mm, r.facing = x, y, f
    once("open: old file, laid out", missing)

    # Building: the tab is switched to, up to the end of its first paint.
    start = time.perf_counter()
    window.tabs.setCurrentWidget(plan)
    app.processEvents()
    plan.viewport().repaint()
    app.processEvents()
    build = _ms(start)
    out.append(("build + first paint", build, build))
    plan.fit()
    app.processEvents()

    def pan(i: int) -> None:
        sign = 1 if (i // 15) % 2 == 0 else -1  # there and back
        h, v = plan.horizontalScrollBar(), plan.verticalScrollBar()
        h.setValue(h.value() + sign * 37)
        v.setValue(v.value() + sign * 23)

    once("full repaint, Fit", timed(app, lambda _i: plan.viewport().repaint(), 20))

    def zoom(i: int) -> None:
        plan.zoom_by(1.15 if i < 12 else 1 / 1.15)

    once("zoom step", timed(app, zoom, 24))
    plan.fit()
    plan.zoom_by(1.5)  # most of the hall on screen, with room to pan
    app.processEvents()
    once("pan step, 1.5 × Fit", timed(app, pan, 30))
    plan.zoom_by(READABLE_ZOOM / plan.zoom())
    plan.centerOn(plan.plan.rack_rect(racks[len(racks) // 2].id).center())
    app.processEvents()
    once("pan step, names", timed(app, pan, 30))
    once("full repaint, names", timed(app, lambda _i: plan.viewport().repaint(), 20))

    # One rack moved by a tile and back, as a drag's release pushes it.
    rack = racks[0]
    x, y = rack.floor_x_mm, rack.floor_y_mm
    assert x is not None and y is not None

    def move(i: int) -> None:
        dx = 600.0 if i % 2 == 0 else 0.0
        op = ops.MoveRackOnFloor(rack.id, x - 2 * 600.0 + dx, y - 3000.0, rack.facing)
        document.push(EditCommand(document, op, "Move rack on the floor"))

    once("drop a rack (push)", timed(app, move, 10))
    document.undo_stack.setClean()
    window.close()
    window.deleteLater()
    app.processEvents()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16_384, 100_000])
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    catalog = load_catalog(include_user=False)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = tmp
        for gpus in args.sizes:
            results[gpus] = bench_size(app, catalog, gpus, Path(tmp))
    print(f"\n{'':26s}" + "".join(f"{f'{g:,} GPUs':>24s}" for g in args.sizes))
    print(
        f"{'ms (median / max)':26s}" + "".join(f"{'median':>12s}{'max':>12s}" for _ in args.sizes)
    )
    names = [name for name, _m, _x in results[args.sizes[0]]]
    for i, name in enumerate(names):
        cells = "".join(f"{results[g][i][1]:12.1f}{results[g][i][2]:12.1f}" for g in args.sizes)
        print(f"{name:26s}{cells}")
    print(f"(one frame = {FRAME_MS:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
