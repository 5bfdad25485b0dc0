"""Structural edits from the window: Ctrl+click several devices, Delete, undo; a new
device placed through the document, as a drop will place it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from qt_helpers import open_window

from workbench.catalog import load_catalog


@pytest.fixture
def window(qtbot, tmp_path, tiny_design):
    window = open_window(
        qtbot, tmp_path, tiny_design, load_catalog(include_user=False, strict=True)
    )
    yield window
    window.document.undo_stack.setClean()


def click(qtbot, view, object_id: str, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    view.centerOn(view.scene_rect_of(object_id).center())
    point = view.mapFromScene(view.scene_rect_of(object_id).center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, modifier, point)


def test_ctrl_click_selects_several_and_delete_removes_them_in_one_step(qtbot, window):
    view, document = window.rack_view, window.document
    click(qtbot, view, "d1")
    click(qtbot, view, "d2", Qt.KeyboardModifier.ControlModifier)
    assert document.selected == ("d1", "d2") and document.selection == "d2"
    click(qtbot, view, "d1", Qt.KeyboardModifier.ControlModifier)  # Ctrl+click again: out
    assert document.selected == ("d2",)
    click(qtbot, view, "d1", Qt.KeyboardModifier.ControlModifier)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    rack = document.design.find_rack("r1")
    assert [d.id for d in rack.devices] == ["s1"]
    assert document.selected == ()  # what is gone is no longer selected
    assert view.scene_rect_of("d1") is None
    assert window.summary.figure("gpus") == "0 GPUs"
    assert document.undo_stack.count() == 1
    document.undo_stack.undo()
    assert [d.id for d in rack.devices] == ["d1", "d2", "s1"]
    assert view.scene_rect_of("d2") is not None
    assert window.summary.figure("gpus") == "16 GPUs"


def test_a_new_device_is_placed_with_its_catalog_item_and_undone(window):
    document = window.document
    assert "generic-mgmt-48p-10g" not in document.design.device_types
    new_id = document.place_new_device("r2", "generic-mgmt-48p-10g", 40)
    assert new_id is not None
    rack, device = document.design.find_device(new_id)
    assert rack.id == "r2" and device.position == 40
    assert "generic-mgmt-48p-10g" in document.design.device_types
    assert window.rack_view.scene_rect_of(new_id) is not None
    document.undo_stack.undo()
    assert document.design.find_device(new_id) is None
    assert "generic-mgmt-48p-10g" not in document.design.device_types


def test_a_placement_that_does_not_fit_leaves_no_step_and_says_why(window):
    document = window.document
    assert document.place_new_device("r1", "nvidia-dgx-h100", 6) is None
    assert document.undo_stack.count() == 0
    assert "is taken by dgx-001" in window.statusBar().currentMessage()
