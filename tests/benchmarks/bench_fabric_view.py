"""Benchmark: the Fabric view on large designs, in the real main window.

What a network engineer feels, each timed until ``processEvents`` returns (the repaint
the step scheduled included):

* opening the view: switching to the Fabric tab on a design just loaded, up to the end
  of the first paint (the planes' structures, the layout, the items);
* the analytics' figures arriving a moment later (oversubscription per tier, bisection:
  :func:`workbench.calc.fabric.analysis.analyse_plane` on the shown plane);
* selecting a spine with a real click: the shared selection, the highlight of its links
  and neighbours, the inspector, the repaint;
* a full repaint at Fit, and one hand-drawn link (a switch cabled to a spine: the edit,
  the relayout, the repaint) and its undo.

The designs are the template's (its generated fabric); a template without links is
cabled by hand (``tests/fabric_cabling.py``).  Run offscreen:
``.venv/bin/python tests/benchmarks/bench_fabric_view.py [--sizes 16384 100000]``
(not collected by pytest: timings are not unit-test assertions).
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
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fabric_cabling import cable_template  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.calc.fabric.planes import plane_structure  # noqa: E402
from workbench.catalog import load_catalog  # noqa: E402
from workbench.templates import build_template  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402
from workbench.ui.shell.main_window import MainWindow  # noqa: E402

TEMPLATE = "dgx-h100-superpod"


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def bench_size(
    app: QApplication, catalog, gpus: int, settings_dir: Path
) -> list[tuple[str, float]]:
    start = time.perf_counter()
    design = build_template(TEMPLATE, gpus=gpus, catalog=catalog)
    if not design.links:
        cable_template(design)
    built = _ms(start)
    compute = plane_structure(design, "compute")
    print(
        f"\n{TEMPLATE} at {gpus:,} GPUs: {len(design.links):,} links, "
        f"{len(compute.tiers):,} compute switches, {len(compute.hosts):,} compute hosts "
        f"(design built in {built / 1000:.1f} s)"
    )
    settings = QSettings(str(settings_dir / f"settings-{gpus}.ini"), QSettings.Format.IniFormat)
    document = Document()
    window = MainWindow(document, catalog=catalog, settings=settings)
    window.file_actions.autosave_timer.stop()
    document.replace_design(design, None)
    window.resize(1600, 1000)
    window.show()
    app.processEvents()
    view = window.fabric_view
    out: list[tuple[str, float]] = []

    # Opening: the tab shown, laid out and painted (the analytics come after).
    scene = view.fabric
    start = time.perf_counter()
    window.tabs.setCurrentWidget(view)
    view.ensure_built()
    view.viewport().repaint()
    out.append(("open the view + first paint", _ms(start)))
    start = time.perf_counter()
    app.processEvents()  # the deferred fit and the analytics' figures
    view.viewport().repaint()
    out.append(("figures arrive (analytics)", _ms(start)))
    layers = [
        (layer.name, layer.devices, len(layer.boxes)) for layer in scene.layout.panels[0].layers
    ]
    print(f"plane {view.plane}: layers (name, devices, boxes drawn) {layers}")
    print(f"boxes {len(scene.layout.boxes):,}, bundles {len(scene.layout.bundles):,}")

    # Selecting a spine: as the Racks view or the checks do (the shared selection), and
    # with a click on the box drawing it (its group's box on an aggregated fabric: the
    # click selects every switch of the group).
    spine = compute.switches_in(2)[0]
    key = scene.layout.boxes_of_device[spine][0]
    box = scene.layout.boxes[key]
    samples = []
    for _ in range(5):
        document.select(None)
        app.processEvents()
        start = time.perf_counter()
        document.select(spine)
        app.processEvents()
        view.viewport().repaint()
        samples.append(_ms(start))
    out.append(("select a spine (shared)", statistics.median(samples)))
    lit = len(scene.highlighted_links())
    print(f"spine {design.find_device(spine)[1].name}: {lit:,} links lit, in box {box.title!r}")
    point = view.view_point_of_box(key)
    app.processEvents()
    samples = []
    for _ in range(5):
        document.select(None)
        app.processEvents()
        start = time.perf_counter()
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
        app.processEvents()
        view.viewport().repaint()
        samples.append(_ms(start))
    assert spine in document.selected, "the click did not select the spine's box"
    out.append(("click its box", statistics.median(samples)))
    print(f"its box holds {len(box.members)} switch(es)")

    view.fit()
    app.processEvents()
    samples = []
    for _ in range(10):
        start = time.perf_counter()
        view.viewport().repaint()
        samples.append(_ms(start))
    out.append(("full repaint at Fit", statistics.median(samples)))

    # By hand: two switches dropped from the catalog, then cabled to each other (a full
    # fat tree has no free port to cable into), then the link undone.
    samples = []
    dropped = []
    for _ in range(2):
        start = time.perf_counter()
        dropped.append(view.drop_switch("nvidia-qm9700"))
        app.processEvents()
        view.viewport().repaint()
        samples.append(_ms(start))
    out.append(("drop a switch + relayout", statistics.median(samples)))
    a, b = (scene.layout.boxes[scene.layout.boxes_of_device[d][0]] for d in dropped if d)
    start = time.perf_counter()
    made = view.cable(a, b)
    app.processEvents()
    view.viewport().repaint()
    out.append(("cable by hand + relayout", _ms(start)))
    assert made is not None, window.statusBar().currentMessage()
    start = time.perf_counter()
    document.undo_stack.undo()
    app.processEvents()
    view.viewport().repaint()
    out.append(("undo it + relayout", _ms(start)))
    document.undo_stack.setClean()
    window.close()
    window.deleteLater()
    app.processEvents()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16_384])
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    catalog = load_catalog(include_user=False)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = tmp
        for gpus in args.sizes:
            results[gpus] = bench_size(app, catalog, gpus, Path(tmp))
    print(f"\n{'ms':30s}" + "".join(f"{f'{g:,} GPUs':>16s}" for g in args.sizes))
    names = [name for name, _ms_ in results[args.sizes[0]]]
    for name in names:
        cells = "".join(f"{dict(results[g]).get(name, float('nan')):16.1f}" for g in args.sizes)
        print(f"{name:30s}{cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
