"""The inspector's serial, asset tag and role boxes, driven with real keys in the main
window: a real change is one undo step that undo puts back exactly, a refused one leaves
no step and says why in the status bar, and passing through a box changes nothing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication
from qt_helpers import visit

from workbench.render import colors
from workbench.ui.shell.document import Document
from workbench.ui.shell.main_window import MainWindow


@pytest.fixture
def make_window(qtbot, tmp_path, monkeypatch):
    """A main window on ``design`` with ``selected`` shown in the inspector."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))

    def make(design, selected: str = "d1") -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(Document(design), settings=settings)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        QApplication.processEvents()
        window.document.select(selected)
        return window

    return make


def type_into(qtbot, editor, text: str) -> None:
    """Focus the box, replace its text by typing, and press Enter."""
    editor.setFocus()
    QApplication.processEvents()
    editor.selectAll()
    if text:
        qtbot.keyClicks(editor, text)
    else:
        qtbot.keyClick(editor, Qt.Key.Key_Delete)
    qtbot.keyClick(editor, Qt.Key.Key_Return)


def leave(window: MainWindow) -> None:
    """Move the keyboard focus out of the inspector, as a click in the rack view would."""
    window.rack_view.setFocus()
    QApplication.processEvents()


def test_a_typed_serial_is_one_undo_step_and_undo_restores_the_padded_old_one(
    qtbot, make_window, tiny_design
):
    device = tiny_design.find_device("d1")[1]
    device.serial = "  SN-OLD "
    window = make_window(tiny_design)
    box, stack = window.inspector.device_serial, window.document.undo_stack
    assert box.text() == "  SN-OLD "

    type_into(qtbot, box, " SN-1234  ")
    assert device.serial == "SN-1234"
    assert stack.count() == 1 and window.isWindowModified()
    leave(window)  # the focus leaving afterwards adds nothing
    assert stack.count() == 1

    window.undo_action.trigger()
    assert device.serial == "  SN-OLD "
    assert box.text() == "  SN-OLD "
    window.redo_action.trigger()
    assert device.serial == "SN-1234" and box.text() == "SN-1234"


def test_clearing_an_asset_tag_is_allowed_and_undone(qtbot, make_window, tiny_design):
    device = tiny_design.find_device("d1")[1]
    device.asset_tag = "AT-0001"
    window = make_window(tiny_design)
    type_into(qtbot, window.inspector.device_asset_tag, "")
    assert device.asset_tag == ""
    assert window.document.undo_stack.count() == 1
    window.undo_action.trigger()
    assert device.asset_tag == "AT-0001"


def test_a_duplicate_asset_tag_is_refused_naming_the_holder(qtbot, make_window, tiny_design):
    tiny_design.find_device("d2")[1].asset_tag = "AT-0042"
    device = tiny_design.find_device("d1")[1]
    device.asset_tag = "AT-0001"
    window = make_window(tiny_design)
    box = window.inspector.device_asset_tag

    type_into(qtbot, box, "at-0042")
    assert device.asset_tag == "AT-0001"
    assert window.document.undo_stack.count() == 0
    message = window.statusBar().currentMessage()
    assert "'at-0042'" in message and "“dgx-002”" in message
    assert box.text() == "AT-0001"  # the box shows the model again, not the refused text
    assert not window.inspector.message.isHidden()


def test_a_51_character_serial_is_refused_and_50_accepted(qtbot, make_window, tiny_design):
    device = tiny_design.find_device("d1")[1]
    window = make_window(tiny_design)
    box = window.inspector.device_serial

    type_into(qtbot, box, "S" * 51)  # NetBox's limit: the one rule in text_rules
    assert device.serial == ""
    assert window.document.undo_stack.count() == 0
    assert "51 characters" in window.statusBar().currentMessage()
    assert box.text() == ""

    type_into(qtbot, box, "S" * 50)
    assert device.serial == "S" * 50
    assert window.document.undo_stack.count() == 1


def block_pixel(window: MainWindow, device_id: str) -> QColor:
    """The colour painted on screen inside a device's block, away from its label text."""
    view = window.rack_view
    rect = view.scene_rect_of(device_id)
    point = rect.topLeft()
    point.setX(rect.left() + rect.width() * 0.9)
    point.setY(rect.top() + rect.height() * 0.5)
    view.centerOn(point)
    QApplication.processEvents()
    pos = view.mapFromScene(point)
    return view.viewport().grab().toImage().pixelColor(pos)


def block_role(window: MainWindow, device_id: str) -> str:
    """The role the rack view's item draws the device with (its geometry blocks)."""
    item = window.rack_view.rack_item(window.rack_view.rack_of(device_id))
    return next(b.role for b in item.blocks if b.device_id == device_id)


def test_choosing_a_role_recolours_the_block_and_undo_restores_the_catalog_role(
    qtbot, make_window, tiny_design
):
    window = make_window(tiny_design, "d2")
    device = tiny_design.find_device("d2")[1]
    combo = window.inspector.device_role
    assert combo.currentData() == ""
    assert combo.currentText() == "From catalog (GPU server)"
    assert "other" not in [combo.itemData(i) for i in range(combo.count())]
    assert block_role(window, "d2") == "gpu-server"
    assert block_pixel(window, "d2") == QColor(colors.role_color("gpu-server"))

    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_S)  # keyboard search: the first role starting with S
    assert device.role == "storage"
    assert combo.currentText() == "Storage"
    assert window.document.undo_stack.count() == 1
    assert block_role(window, "d2") == "storage"
    assert block_pixel(window, "d2") == QColor(colors.role_color("storage"))

    window.undo_action.trigger()
    assert device.role == ""
    assert combo.currentData() == ""
    assert block_role(window, "d2") == "gpu-server"
    assert block_pixel(window, "d2") == QColor(colors.role_color("gpu-server"))
    window.redo_action.trigger()
    assert device.role == "storage" and block_role(window, "d2") == "storage"


def test_visiting_the_boxes_changes_nothing(qtbot, make_window, tiny_design):
    """Stored values today's rules would refuse or rewrite (spaces, a duplicate tag, an
    unknown role) stay exactly as they are when the user only passes through."""
    tiny_design.find_device("d2")[1].asset_tag = "AT-7"
    device = tiny_design.find_device("d1")[1]
    device.serial, device.asset_tag, device.role = "  SN 1 ", "AT-7", "gpu"
    window = make_window(tiny_design)
    inspector = window.inspector
    assert inspector.device_role.currentText() == "gpu (unknown role)"
    for widget in (inspector.device_serial, inspector.device_asset_tag, inspector.device_role):
        visit(widget, window.rack_view)
    inspector.device_serial.setFocus()
    qtbot.keyClick(inspector.device_serial, Qt.Key.Key_Return)  # Enter without typing
    # Only spaces added around the stored value: no edit either.
    tiny_design.find_device("d1")[1].asset_tag = "AT-8"
    window.document.select("d2")
    window.document.select("d1")
    type_into(qtbot, inspector.device_asset_tag, "  AT-8 ")
    leave(window)
    assert (device.serial, device.asset_tag, device.role) == ("  SN 1 ", "AT-8", "gpu")
    assert window.document.undo_stack.count() == 0
    assert inspector.message.isHidden()


def test_a_serial_typed_but_not_committed_goes_to_the_device_it_was_typed_for(
    qtbot, make_window, tiny_design
):
    window = make_window(tiny_design)
    box = window.inspector.device_serial
    box.setFocus()
    qtbot.keyClicks(box, "SN-D1")
    window.document.select("d2")  # e.g. a click on another server in the rack view
    assert tiny_design.find_device("d1")[1].serial == "SN-D1"
    assert tiny_design.find_device("d2")[1].serial == ""
    assert box.text() == ""
    assert window.document.undo_stack.count() == 1
