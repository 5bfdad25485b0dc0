"""Formatting of the live summary."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QStatusBar

from workbench.units import format_count, format_flops, format_power


def test_units_switch_at_a_thousand():
    assert format_power(950.04) == "950.0 kW"
    assert format_power(1421.1) == "1.42 MW"
    assert format_flops(15.83) == "15.8 PF"
    assert format_flops(989.4) == "989 PF"
    assert format_flops(1013.2) == "1.01 EF"


def test_counts_have_separators_and_plurals():
    assert format_count(1024, "GPU") == "1,024 GPUs"
    assert format_count(1, "rack") == "1 rack"


def test_a_long_status_message_is_read_whole_and_the_summary_gives_way(qtbot, tmp_path):
    """A drop's reason ("... would be 20.4 kW ...") must not be cut by the figures."""
    from qt_helpers import open_window

    from workbench.templates import sample_design

    window = open_window(qtbot, tmp_path, sample_design())
    window.resize(1100, 800)
    # The figures once the first check (run in slices after the first frame) and the
    # training estimate it waits for are done: read before, "days …" turns into days.
    qtbot.waitUntil(
        lambda: window.document.figures.checked and "…" not in window.summary.figure("days")
    )
    qtbot.wait(10)
    bar = window.statusBar()
    full = window.summary.text()
    message = (
        "Placed, but over budget: U10–U17 (8U) of A01 is free. It breaks the power budget "
        "12 kW (would be 20.4 kW), cooling limit 12 kW (would be 20.4 kW)."
    )
    bar.showMessage(message)
    qtbot.wait(10)
    needed = bar.fontMetrics().horizontalAdvance(message)
    assert window.summary.sizeHint().width() + needed <= bar.width()
    assert window.summary.text() == full  # the figures are all still there, behind "…"
    assert window.summary.findChild(QLabel, "summary-more").isVisible()
    # A message shown while the window was narrow gives the figures back when it widens.
    window.resize(700, 800)
    bar.showMessage("Opened /home/planner/site-a.dcwb")
    window.resize(1500, 800)
    qtbot.wait(10)
    assert not window.summary.findChild(QLabel, "summary-more").isVisible()
    bar.clearMessage()
    qtbot.wait(10)
    assert not window.summary.findChild(QLabel, "summary-more").isVisible()


def test_the_facility_figure_says_where_its_pue_comes_from():
    from workbench.calc.summary import summarize
    from workbench.catalog.loader import load_catalog
    from workbench.templates import sample_design
    from workbench.ui.shell.summary_strip import summary_parts

    design = sample_design(load_catalog(include_user=False, strict=True))
    design.workloads.clear()  # no training estimate to wait for

    def facility() -> str:
        return next(
            p[1] for p in summary_parts(summarize(design), design, None) if p[0] == "facility"
        )

    assert facility().endswith(", from cooling)")  # rear-door racks: a weighted figure
    design.properties["pue"] = "1.125"
    assert facility().endswith("(PUE 1.125, set)")  # a typed figure, as typed


class _WindowLayouts(QObject):
    """Counts the layout requests and the paints Qt delivers to the status bar and the
    main window."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []
        self.painted: list[str] = []

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if isinstance(watched, (QMainWindow, QStatusBar)):
            if event.type() == QEvent.Type.LayoutRequest:
                self.seen.append(type(watched).__name__)
            elif event.type() == QEvent.Type.Paint:
                self.painted.append(type(watched).__name__)
        return False


def test_new_figures_of_known_widths_lay_out_and_paint_neither_the_status_bar_nor_the_window(
    qtbot, tmp_path
):
    """An edit whose counts change (a node removed: devices, GPUs, power, findings)
    repaints the strip's labels and lays out nothing above them once each label has
    shown a text as wide: a label that may change size has Qt lay out its parents up
    to the main window, which re-placed every dock and painted the window again (~2.5
    ms of a move between racks at 100,000 GPUs).  Also: the edit's layouts are done
    when the edit returns (Document.push), before the window's first paint."""
    from qt_helpers import open_window

    from workbench.catalog.item import is_gpu_server
    from workbench.model.requests import delete
    from workbench.templates import sample_design
    from workbench.ui.commands import EditCommand

    window = open_window(qtbot, tmp_path, sample_design())
    qtbot.waitUntil(lambda: "…" not in window.summary.figure("days"))
    document = window.document
    types = document.design.device_types
    node = next(
        d.id
        for _r, d in document.design.iter_devices()
        if (item := types.get(d.device_type)) is not None and is_gpu_server(item)
    )

    def remove() -> None:
        document.push(EditCommand(document, delete(document.design, (node,)), "Delete"))

    before = window.summary.text()
    remove()  # the widths of the figures after a removal are met once
    QApplication.processEvents()
    after = window.summary.text()
    assert after != before
    document.undo()
    QApplication.processEvents()
    assert window.summary.text() == before
    counter = _WindowLayouts()
    QApplication.instance().installEventFilter(counter)
    try:
        remove()
        QApplication.processEvents()
        document.undo()
        QApplication.processEvents()
    finally:
        QApplication.instance().removeEventFilter(counter)
    assert window.summary.text() == before
    assert counter.seen == []
    # The figures' labels paint their own background: a new count repaints them, not
    # the status bar and the main window beneath them too.
    assert "QStatusBar" not in counter.painted
