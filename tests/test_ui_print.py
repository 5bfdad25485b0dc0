"""File ▸ Print Preview…, Print…, Export PDF…, Export SVG… in the window (journey 6, step 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QProgressDialog
from qt_helpers import open_window

from workbench.ui.shell.print_actions import PrintOptionsDialog

MENU_TEXTS = ("Print Preview…", "Print…", "Export PDF…", "Export SVG…")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, tiny_design):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return open_window(qtbot, tmp_path, tiny_design)


@pytest.fixture
def errors(boxes) -> list[tuple[str, str]]:
    return boxes("critical")


def _accept_options(monkeypatch, setup=None):
    """The options dialog answers OK at once, after ``setup(dialog)`` if given."""

    def exec_(dialog: PrintOptionsDialog) -> int:
        if setup is not None:
            setup(dialog)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(PrintOptionsDialog, "exec", exec_)


def _save_as(monkeypatch, path: Path) -> None:
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), "PDF files"))
    )


def _menu_texts(window) -> list[str]:
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    return [a.text().replace("&", "") for a in file_menu.actions()]


def test_the_file_menu_has_the_print_actions_above_quit(window):
    texts = _menu_texts(window)
    for text in MENU_TEXTS:
        assert text in texts, texts
    assert texts.index("Export SVG…") < texts.index("Quit")
    assert texts.index("Save As…") < texts.index("Print Preview…")
    assert all(a.isEnabled() for a in window.print_actions.actions)


def test_export_pdf_writes_the_file(window, monkeypatch, tmp_path):
    out = tmp_path / "racks.pdf"
    _accept_options(monkeypatch)
    _save_as(monkeypatch, out)
    window.print_actions.export_pdf_action.trigger()
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-64:]
    assert "racks.pdf: 2 pages" in window.statusBar().currentMessage()
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".pdf"] == ["racks.pdf"]


def test_export_pdf_adds_the_suffix_and_prints_the_selected_racks(window, monkeypatch, tmp_path):
    window.document.select("d1")  # a device: its rack is printed
    _accept_options(monkeypatch, lambda dialog: dialog.selected.setChecked(True))
    _save_as(monkeypatch, tmp_path / "chosen")
    assert window.print_actions.export_pdf() == tmp_path / "chosen.pdf"
    assert (tmp_path / "chosen.pdf").exists()
    assert "1 page" in window.statusBar().currentMessage()
    assert window.print_actions.options.rack_ids == {"r1"}


def test_a_failed_export_names_the_file_and_leaves_nothing(window, monkeypatch, tmp_path, errors):
    out = tmp_path / "no-such-folder" / "racks.pdf"
    _accept_options(monkeypatch)
    _save_as(monkeypatch, out)
    assert window.print_actions.export_pdf() is None
    assert errors == [("Export PDF", f"{out}: cannot write: No such file or directory")]
    assert not out.parent.exists()


def test_cancelling_the_progress_leaves_no_file(window, monkeypatch, tmp_path):
    out = tmp_path / "racks.pdf"
    _accept_options(monkeypatch)
    _save_as(monkeypatch, out)
    monkeypatch.setattr(QProgressDialog, "wasCanceled", lambda self: True)
    assert window.print_actions.export_pdf() is None
    assert list(tmp_path.glob("*.pdf")) == [] and list(tmp_path.glob(".*.tmp")) == []
    assert "cancelled" in window.statusBar().currentMessage()


def test_export_svg_writes_one_file_per_page(window, monkeypatch, tmp_path):
    folder = tmp_path / "svg"
    folder.mkdir()
    _accept_options(monkeypatch, lambda dialog: dialog.per_page.setCurrentIndex(1))
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(folder))
    )
    files = window.print_actions.export_svg()
    assert [f.name for f in files] == ["001-Row-A.svg", "002-Row-B.svg"]
    assert sorted(p.name for p in folder.iterdir()) == ["001-Row-A.svg", "002-Row-B.svg"]


def test_cancelling_the_options_does_nothing(window, monkeypatch, tmp_path):
    monkeypatch.setattr(PrintOptionsDialog, "exec", lambda self: QDialog.DialogCode.Rejected)
    called = []
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: called.append(1) or ("", ""))
    )
    assert window.print_actions.export_pdf() is None
    assert called == []


def test_options_dialog_counts_pages_and_refuses_an_empty_job(window, qtbot):
    dialog = PrintOptionsDialog(window.document, window.print_actions.options, window)
    qtbot.addWidget(dialog)
    assert dialog.page_count.text() == "2 pages"
    assert not dialog.selected.isEnabled()  # nothing selected
    dialog.pattern.setText("B*")
    dialog.by_name.setChecked(True)
    assert dialog.page_count.text() == "1 page"
    assert dialog.options().pattern == "B*"
    dialog.pattern.setText("Z*")
    dialog._update()
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled() and "nothing to print" in dialog.page_count.text()
    dialog.orientation.setCurrentIndex(1)
    dialog.paper.setCurrentText("A3")
    options = dialog.options()
    assert options.landscape and options.paper == "A3"


def test_the_rack_view_paints_budget_bars(window):
    """The screen item passes the rack's budgets to the shared painter."""
    from PySide6.QtGui import QColor, QImage, QPainter

    from workbench.render import colors
    from workbench.render import rack_geometry as geo
    from workbench.rules.budgets import BudgetState
    from workbench.ui.racks.scene import SCENE_SCALE

    item = window.rack_view._scene.items_by_rack["r1"]
    bounds = item.boundingRect()
    image = QImage(int(bounds.width()) + 1, int(bounds.height()) + 1, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    item.paint(painter, None)  # type: ignore[arg-type]
    painter.end()
    cell = geo.budget_bar_rects(42, SCENE_SCALE)[0]  # U: 17 of 42 used, ok
    pixel = image.pixelColor(int(cell.x + 1), int(cell.y + cell.h / 2)).name()
    assert pixel == colors.budget_color(BudgetState.OK)


def test_file_print_offers_a_floor_plan_page(window, qtbot, tmp_path, monkeypatch):
    dialog = PrintOptionsDialog(window.document, window.print_actions.options, window)
    qtbot.addWidget(dialog)
    assert dialog.page_count.text() == "2 pages"
    dialog.floor_plan.setChecked(True)
    assert dialog.page_count.text() == "3 pages"
    options = dialog.options()
    assert options.floor_plan
    path = tmp_path / "with-plan.pdf"
    monkeypatch.setattr(window.print_actions, "ask_options", lambda _title: options)
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(path), "PDF files"))
    )
    before = [(r.floor_x_mm, r.floor_y_mm) for r in window.document.design.iter_racks()]
    assert window.print_actions.export_pdf() == path
    assert path.stat().st_size > 0
    # Racks the plan had not placed are placed on a copy: the document is unchanged.
    assert [(r.floor_x_mm, r.floor_y_mm) for r in window.document.design.iter_racks()] == before
