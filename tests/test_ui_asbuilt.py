"""File ▸ Import ▸ As-built captures… in the window, and the Fabric view's marks.

The sample ibnetdiscover capture (``tests/data/captures``, taken on the 256-GPU SuperPOD
template with one fault of each kind put in) is imported through the menu action with
the folder dialog answered: one undo step, the summary's totals, the wrong links marked
on their bundles (asserted on the scene's items, not on pixels), the legend, tooltip,
inspector and the Cables panel's list; undo takes the marks away and redo brings them
back.  A malformed capture is refused with its file and line and changes nothing.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox, QProgressDialog
from qt_helpers import open_window

from workbench.catalog import load_catalog
from workbench.templates import build_template
from workbench.ui.asbuilt.actions import AsBuiltImport, install_asbuilt_import
from workbench.ui.fabric.asbuilt import MarksItem

DATA = Path(__file__).parent / "data" / "captures"
FAULTS = json.loads((DATA / "expected.json").read_text())["ibnetdiscover"]["faults"]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def window(qtbot, tmp_path, catalog):
    window = open_window(qtbot, tmp_path, build_template("dgx-h100-superpod", gpus=256), catalog)
    window.file_actions.autosave_timer.stop()
    yield window
    window.document.undo_stack.setClean()


def importer_of(window) -> AsBuiltImport:
    """The window's action (installed here until the main window installs it)."""
    found = getattr(window, "asbuilt_import", None)
    if found is not None:
        return found
    return install_asbuilt_import(window, window.menuBar().actions()[0].menu())


def answer_folder(monkeypatch, folder: Path) -> None:
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder))
    )


def faulty_links(design) -> dict[str, str]:
    """Design link id → the verdict expected.json gives it."""
    name = {d.id: d.name for _, d in design.iter_devices()}
    out = {}
    for link in design.links:
        for dev, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            for fault in FAULTS:
                if (name[dev], port) == (fault["device"], fault["port"]):
                    out[link.id] = fault["verdict"]
    return out


def show_compute(qtbot, window):
    window.tabs.setCurrentWidget(window.fabric_view)
    view = window.fabric_view
    qtbot.waitExposed(view)
    view.set_plane("compute")
    view.fit()
    QApplication.processEvents()
    return view


def marked_links(view) -> dict[str, str]:
    """Link id → verdict, for the wrong links in the bundles the marks items draw."""
    wrong = view.fabric.asbuilt.wrong()
    out = {}
    items = [i for i in view.fabric.items() if isinstance(i, MarksItem)]
    for item in items:
        for bundle, counts in item.marked:
            mine = {i: wrong[i].verdict for i in bundle.link_ids if i in wrong}
            assert Counter(mine.values()) == counts
            out.update(mine)
    return out


def test_import_is_one_undo_step_and_the_fabric_view_marks_the_wrong_links(
    qtbot, window, monkeypatch
) -> None:
    document, design = window.document, window.document.design
    importer = importer_of(window)
    menu = window.menuBar().actions()[0].menu().findChild(QMenu, "importMenu")
    assert importer.action in menu.actions()
    view = show_compute(qtbot, window)
    assert view.fabric.marks == {} and not view.overlays.legend.isVisible()
    answer_folder(monkeypatch, DATA / "ibnetdiscover")
    steps = document.undo_stack.count()

    importer.action.trigger()

    assert document.undo_stack.count() == steps + 1
    assert len(design.captures) == 512 and design.captures[0].source == "fabric.txt"
    summary = importer.summary
    assert summary is not None and summary.isVisible()
    overall = dict(summary.rows[0][1])
    assert overall["swapped"] == 4 and overall["missing"] == 1 and overall["unexpected"] == 1
    assert any(name == "Compute plane" for name, _c in summary.rows)
    summary.close()

    expected = faulty_links(design)
    QApplication.processEvents()
    assert marked_links(view) == expected
    assert sum(sum(c.values()) for c in view.fabric.marks.values()) == len(expected)
    legend = view.overlays.legend_counts
    assert view.overlays.legend.isVisible()
    assert (legend["swapped"].text(), legend["unexpected"].text()) == ("4", "1")

    # The tooltip of a marked bundle names the wrong links' file:line.
    key = next(k for k, c in view.fabric.marks.items() if c.get("swapped"))
    tip = view.overlays.tooltip(view.view_point_of_bundle(key))
    assert "As built" in tip and "fabric.txt:" in tip
    # The inspector shows a selected wrong link's verdict.
    missing = next(i for i, v in expected.items() if v == "missing")
    document.select(missing)
    QApplication.processEvents()
    text = window.inspector.link_page.fields["asbuilt"].text()
    assert "missing" in text and "no cable seen" in text
    # The Cables panel lists the unexpected cable (no design link to mark).
    window.show_cable_summary()
    QApplication.processEvents()
    listed = window.fabric_panel.asbuilt
    listed.refresh()
    verdicts = [listed.table.item(r, 0).text() for r in range(listed.table.rowCount())]
    assert verdicts[0] == "unexpected" and "ib-lab-01" in listed.table.item(0, 2).text()
    assert Counter(verdicts[1:]) == Counter(expected.values())

    document.undo()
    QApplication.processEvents()
    assert design.captures == []
    assert view.fabric.marks == {} and marked_links(view) == {}
    assert not view.overlays.legend.isVisible()
    assert window.inspector.link_page.fields["asbuilt"].isVisible() is False

    document.redo()
    QApplication.processEvents()
    assert marked_links(view) == expected


def test_a_malformed_capture_changes_nothing(qtbot, window, monkeypatch, tmp_path) -> None:
    document, design = window.document, window.document.design
    folder = tmp_path / "captures"
    shutil.copytree(DATA / "ibnetdiscover", folder)
    path = folder / "fabric.txt"
    lines = path.read_text().splitlines(keepends=True)
    bad = [i for i, line in enumerate(lines) if "4xNDR" in line][40]
    lines[bad] = lines[bad].replace("4xNDR", "4xZZZ")
    path.write_text("".join(lines))
    before = path.read_bytes()
    warnings: list[str] = []
    monkeypatch.setattr(
        QMessageBox, "warning", staticmethod(lambda _p, _t, text: warnings.append(text))
    )
    answer_folder(monkeypatch, folder)
    importer = importer_of(window)
    steps, dirty = document.undo_stack.count(), document.is_dirty

    assert importer.run() is False

    assert len(warnings) == 1
    assert f"fabric.txt:{bad + 1}: unknown InfiniBand rate 4xZZZ" in warnings[0], warnings[0]
    assert document.undo_stack.count() == steps and document.is_dirty == dirty
    assert design.captures == [] and path.read_bytes() == before
    view = show_compute(qtbot, window)
    assert view.fabric.marks == {}


def test_cancelling_the_read_changes_nothing(window, monkeypatch) -> None:
    monkeypatch.setattr(QProgressDialog, "wasCanceled", lambda self: True)
    steps = window.document.undo_stack.count()
    assert importer_of(window).run(DATA / "ibnetdiscover") is False
    assert window.document.undo_stack.count() == steps and window.document.design.captures == []


def test_storing_and_checking_are_said_in_a_dialog_while_they_run(window, monkeypatch) -> None:
    """After the read, storing the records, checking every link and counting the
    verdicts take ~3 s, ~8 s and ~4 s at 100,000 GPUs: a dialog says which runs, shown
    before each starts, and the check moves its bar and names its part as it goes (here
    on the 256-GPU design, with the size at which it shows lowered to it)."""
    from workbench.asbuilt import matcher
    from workbench.ui.asbuilt import actions

    shown: list[tuple[str, bool]] = []
    bars: list[tuple[int, int, str]] = []
    real_check = actions.AsBuiltCache.verdicts

    def dialog() -> QProgressDialog:
        return next(
            d for d in window.findChildren(QProgressDialog) if d.isVisible() and d.labelText()
        )

    def checking(cache, progress=None):
        shown.append((dialog().labelText(), QApplication.overrideCursor() is not None))

        def told(fraction: float, part: str) -> None:
            progress(fraction, part)
            bars.append((dialog().value(), dialog().maximum(), dialog().labelText()))

        return real_check(cache, told)

    monkeypatch.setattr(actions, "BUSY_LINKS", len(window.document.design.links))
    monkeypatch.setattr(actions.AsBuiltCache, "verdicts", checking)
    monkeypatch.setattr(matcher, "TELL_EVERY", 64)
    importer = importer_of(window)
    monkeypatch.setattr(importer, "show_summary", lambda read, totals: None)

    assert importer.run(DATA / "ibnetdiscover") is True

    links = len(window.document.design.links)
    checking_text = f"Checking {links:,} links against the captures…"
    assert importer.steps_said == [
        "Storing 512 captured neighbours…",
        checking_text,
        "Counting the verdicts by plane, row and rack…",
    ]
    assert shown == [(checking_text, True)]
    # The bar runs from 0 and rises; the label keeps the step and names the part.
    values = [value for value, _most, _label in bars]
    assert values[0] == 0 and values == sorted(values) and values[-1] > 0
    assert {most for _value, most, _label in bars} == {1000}
    assert bars[1][2] == f"{checking_text}\nreading: 0 of 512 captured neighbours"
    assert all(label.startswith(checking_text + "\n") for _v, _m, label in bars)
    # Closed and the cursor given back once the check is done.
    assert not any(d.isVisible() for d in window.findChildren(QProgressDialog))
    assert QApplication.overrideCursor() is None
