"""Benchmark: drops from the catalog and panning/zooming the rack elevations.

Drops: on a generated design, 50 real drops (drag enter, move and drop events with the
palette's mime data) of a management switch into free units of racks across the hall;
each sample runs from the drop event to the end of the event processing it causes, so
every budget, the status strip, the Checks view and the Estimates figures are updated
inside it.  Then the frame time of repaints while panning and zooming the elevations.

    .venv/bin/python tests/benchmarks/bench_drop.py [--gpus 16384] [--drops 50]

Not collected by the default pytest run: timings are not unit-test assertions.
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

from PySide6.QtCore import QPointF, QSettings, Qt  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.catalog import load_catalog  # noqa: E402
from workbench.model.placement import free_ranges  # noqa: E402
from workbench.render import rack_geometry as geo  # noqa: E402
from workbench.templates import build_template  # noqa: E402
from workbench.ui.catalog.palette import SLUG_ROLE  # noqa: E402
from workbench.ui.racks.scene import SCENE_SCALE  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402
from workbench.ui.shell.main_window import MainWindow  # noqa: E402

SLUG = "generic-mgmt-48p-10g"


def _mime(window: MainWindow, slug: str = SLUG):
    proxy = window.palette_widget.proxy
    stack = [proxy.index(r, 0) for r in range(proxy.rowCount())]
    while stack:
        index = stack.pop()
        if index.data(SLUG_ROLE) == slug:
            return proxy.mimeData([index])
        stack.extend(proxy.index(r, 0, index) for r in range(proxy.rowCount(index)))
    raise SystemExit(f"{slug} is not in the catalog")


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def bench_drops(
    app,
    window: MainWindow,
    drops: int,
    undos: list[float] | None = None,
    slug: str = SLUG,
    height: int = 1,
) -> list[float]:
    """Milliseconds of each drop of ``slug`` (``height`` U); with ``undos``, each drop is
    undone (timed there)."""
    view, design = window.rack_view, window.document.design
    mime = _mime(window, slug)
    targets = []
    for rack in design.iter_racks():
        runs = [r for r in free_ranges(design, rack) if len(r) >= height]
        if runs:
            targets.append((rack, runs[-1].start))
        if len(targets) >= drops:
            break
    samples = []
    left, no = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    for rack, u in targets:
        item = view.rack_item(rack.id)
        rect = geo.u_rect(u, 1, geo.rack_units(rack, design), SCENE_SCALE)
        scene = item.mapToScene(QPointF(rect.x + rect.w / 2, rect.y + rect.h / 2))
        view.centerOn(scene)
        app.processEvents()
        where = view.mapFromScene(scene)
        action = Qt.DropAction.CopyAction
        QApplication.sendEvent(view.viewport(), QDragEnterEvent(where, action, mime, left, no))
        QApplication.sendEvent(view.viewport(), QDragMoveEvent(where, action, mime, left, no))
        app.processEvents()
        start = time.perf_counter()
        QApplication.sendEvent(view.viewport(), QDropEvent(QPointF(where), action, mime, left, no))
        app.processEvents()
        samples.append(_ms(start))
        if undos is not None:
            start = time.perf_counter()
            window.document.undo_stack.undo()
            app.processEvents()
            undos.append(_ms(start))
    return samples


def bench_pan_zoom(app, window: MainWindow, steps: int = 40) -> tuple[list[float], list[float]]:
    view = window.rack_view
    view.fit_readable()
    app.processEvents()
    pans, zooms = [], []
    bar = view.horizontalScrollBar()
    for k in range(steps):
        start = time.perf_counter()
        bar.setValue(bar.value() + (60 if k % 20 < 10 else -60))
        view.viewport().repaint()
        pans.append(_ms(start))
    for k in range(steps):
        start = time.perf_counter()
        view.zoom_by(1.15 if k % 10 < 5 else 1 / 1.15)
        view.viewport().repaint()
        zooms.append(_ms(start))
    return pans, zooms


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, nargs="+", default=[16_384])
    parser.add_argument("--drops", type=int, default=50)
    parser.add_argument("--slug", default=SLUG, help="what to drop (nvidia-dgx-h100: a node)")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    catalog = load_catalog(include_user=False)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = tmp
        for gpus in args.gpus:
            design = build_template("dgx-h100-superpod", gpus=gpus, catalog=catalog)
            racks = sum(1 for _ in design.iter_racks())
            settings = QSettings(str(Path(tmp) / f"s{gpus}.ini"), QSettings.Format.IniFormat)
            document = Document(catalog=catalog)
            window = MainWindow(document, catalog=catalog, settings=settings)
            window.file_actions.autosave_timer.stop()
            document.replace_design(design, None)
            window.resize(1600, 1000)
            window.show()
            app.processEvents()
            # The first check and its warm-up run in slices: let them end.
            while not getattr(document.figures, "settled", document.figures.checked):
                app.processEvents()
            undos: list[float] = []
            height = int(catalog[args.slug].u_height)
            drops = bench_drops(app, window, args.drops, undos, args.slug, height)
            pans, zooms = bench_pan_zoom(app, window)
            print(f"\n{gpus:,} GPUs, {racks:,} racks: {len(drops)} drops of {args.slug}")
            for name, values in (
                ("drop → all figures", drops),
                ("undo the drop", undos),
                ("pan repaint", pans),
                ("zoom repaint", zooms),
            ):
                print(
                    f"  {name:22s} min {min(values):6.1f} ms   "
                    f"median {statistics.median(values):6.1f} ms   worst {max(values):6.1f} ms"
                )
            document.undo_stack.setClean()
            window.close()
            window.deleteLater()
            app.processEvents()
    print("(one frame = 16.7 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
