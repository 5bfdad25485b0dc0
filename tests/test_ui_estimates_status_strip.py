"""Issue 3: editing a form field changes the plot and the status strip in the window.

Driven through the real main window on the bundled sample: the Estimates tab's MFU box
is typed into with key events, and the days point on the plot and the first workload's
days in the status strip both move in the same event-loop turn.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402

from workbench.templates import sample_design  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402
from workbench.ui.shell.main_window import MainWindow  # noqa: E402


def open_sample(qtbot, tmp_path, monkeypatch) -> MainWindow:
    """The real main window on the bundled sample, settings and autosave kept in tmp."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Document(sample_design()), settings=settings)
    qtbot.addWidget(window)
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    return window


def type_mfu(qtbot, window: MainWindow, text: str) -> None:
    """Replace the MFU box's text with real key presses and commit it with Enter."""
    mfu = window.estimates.form.editors["mfu"]
    mfu.setFocus()
    mfu.selectAll()
    qtbot.keyClick(mfu, Qt.Key.Key_Backspace)
    qtbot.keyClicks(mfu, text)
    qtbot.keyClick(mfu, Qt.Key.Key_Return)


def test_mfu_edit_moves_plot_and_status_strip(qtbot, tmp_path, monkeypatch) -> None:
    window = open_sample(qtbot, tmp_path, monkeypatch)
    document = window.document
    window.tabs.setCurrentWidget(window.estimates_page)
    view = window.estimates
    first = document.design.workloads[0]
    view.select_workload(first.id)

    strip_before = window.summary.text()
    _, y_before = view.days_plot.point.getOriginalDataset()
    # The sample's job has its MFU predicted from the design (issue 12).
    assert first.mfu is None
    predicted = document.figures.workload(first.id).mfu
    assert f"{first.name}" in strip_before and "days" in strip_before

    type_mfu(qtbot, window, "30")

    assert document.design.workloads[0].mfu == pytest.approx(0.30)
    _, y_after = view.days_plot.point.getOriginalDataset()
    # Days scale with 1/MFU (domain brief §1 formula; FLOPs, GPUs and goodput are the
    # same): the predicted MFU -> a typed 30 % makes the run predicted / 0.30 as long.
    assert y_after[0] == pytest.approx(y_before[0] * predicted / 0.3)
    strip_after = window.summary.text()
    assert strip_after != strip_before
    assert f"{y_after[0]:,.1f} days" in strip_after

    # One undo puts the MFU, the plot and the strip back.
    document.undo_stack.undo()
    assert document.design.workloads[0].mfu is None
    assert window.summary.text() == strip_before
    _, y_undone = view.days_plot.point.getOriginalDataset()
    assert y_undone[0] == pytest.approx(y_before[0])


def test_strip_follows_the_workload_being_edited(qtbot, tmp_path, monkeypatch) -> None:
    """Journey 3 on the sample: a newly added job is not the first workload, yet the strip
    shows it while it is open in Estimates, and its MFU edit moves the strip."""
    window = open_sample(qtbot, tmp_path, monkeypatch)
    document = window.document
    first_name = document.design.workloads[0].name
    assert first_name in window.summary.text()

    view = window.estimates
    qtbot.mouseClick(view.add_training_button, Qt.MouseButton.LeftButton)
    added = document.design.workloads[-1]
    assert document.current_workload == added.id
    assert added.name in window.summary.text() and first_name not in window.summary.text()

    before = window.summary.text()
    type_mfu(qtbot, window, "30")
    assert document.design.workloads[-1].mfu == pytest.approx(0.30)
    assert window.summary.text() != before

    # Back on the sample's own workload, the strip shows it again.
    view.select_workload(document.design.workloads[0].id)
    assert first_name in window.summary.text()
