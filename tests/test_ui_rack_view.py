"""The rack view: one item per rack, maps both ways, partial refresh, zoom."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from workbench.model import Device, Rack, ops
from workbench.ui.commands import EditCommand, rename_device, set_rack_cooling
from workbench.ui.racks.view import RackItem, RackView
from workbench.ui.shell.document import Document


def make_view(qtbot, design) -> RackView:
    view = RackView(Document(design))
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    return view


def test_one_item_per_rack_and_maps_both_ways(qtbot, tiny_design):
    view = make_view(qtbot, tiny_design)
    racks = [i for i in view.scene().items() if isinstance(i, RackItem)]
    assert sorted(i.rack_id for i in racks) == ["r1", "r2"]
    assert view.rack_of("d1") == "r1" and view.rack_of("r2") == "r2"
    rect = view.scene_rect_of("d1")
    assert view.rack_item("r1").sceneBoundingRect().contains(rect)
    view.centerOn(rect.center())
    assert view.object_at(view.mapFromScene(rect.center())) == "d1"
    rack_id, u = view.rack_and_u_at(view.mapFromScene(rect.center()))
    assert rack_id == "r1" and 2 <= u <= 9


def test_rows_are_stacked_and_racks_left_to_right(qtbot, tiny_design):
    tiny_design.sites[0].rows[0].racks.append(
        type(tiny_design.sites[0].rows[1].racks[0])(id="r3", name="A02", rack_type="rack-42u")
    )
    view = make_view(qtbot, tiny_design)
    a01, a02, b01 = (view.rack_item(r).pos() for r in ("r1", "r3", "r2"))
    assert a01.y() == a02.y() and a02.x() > a01.x()
    assert b01.y() > a01.y() and b01.x() == a01.x()


def test_change_refreshes_only_the_touched_rack(qtbot, tiny_design, monkeypatch):
    view = make_view(qtbot, tiny_design)
    refreshed: list[str] = []
    for item in view._items.values():
        original = item.refresh
        monkeypatch.setattr(
            item,
            "refresh",
            lambda item=item, original=original: (refreshed.append(item.rack_id), original()),
        )
    items_before = dict(view._items)
    doc = view.document
    doc.push(rename_device(doc, "d1", "renamed"))
    assert refreshed == ["r1"]
    doc.push(set_rack_cooling(doc, "r2", "liquid"))
    assert refreshed == ["r1", "r2"]
    assert view._items == items_before  # no rebuild


def test_a_device_added_refreshes_its_rack_without_a_rebuild(qtbot, tiny_design):
    view = make_view(qtbot, tiny_design)
    items_before = dict(view._items)
    doc = view.document
    device = Device(id="d9", name="late", device_type="nvidia-dgx-h100", position=1)
    doc.push(EditCommand(doc, ops.AddDevice("r2", device), "Add device"))
    assert view.rack_of("d9") == "r2"
    assert view.scene_rect_of("d9") is not None
    assert view._items == items_before  # the same items: refreshed, not rebuilt
    doc.undo_stack.undo()
    assert view.rack_of("d9") is None and view.scene_rect_of("d9") is None


def test_racks_added_and_removed_are_laid_out_in_place(qtbot, tiny_design):
    view = make_view(qtbot, tiny_design)
    doc = view.document
    b01 = view.rack_item("r2")
    y_before = b01.pos().y()
    rack = Rack(id="r9", name="A03", rack_type="rack-42u")
    doc.push(EditCommand(doc, ops.AddRack("row-a", rack), "Add rack"))
    assert view.rack_item("r2") is b01  # untouched rack keeps its item
    new = view.rack_item("r9")
    assert new is not None and new.pos().y() == view.rack_item("r1").pos().y()
    assert new.pos().x() > view.rack_item("r1").pos().x()
    doc.push(EditCommand(doc, ops.RemoveRow("row-a"), "Remove row"))
    assert view.rack_item("r1") is None and view.rack_item("r9") is None
    assert view.rack_item("r2").pos().y() < y_before  # row B moved up into row A's place
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert view.rack_item("r9") is None and view.rack_item("r1") is not None
    assert view.rack_item("r2").pos().y() == y_before


def test_ctrl_wheel_zooms_and_fit_shows_everything(qtbot, tiny_design):
    view = make_view(qtbot, tiny_design)
    view.fit()
    fitted = view.zoom()
    view.zoom_by(2.0)
    assert abs(view.zoom() - 2 * fitted) < 1e-6
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QWheelEvent

    center = QPointF(view.viewport().rect().center())
    event = QWheelEvent(
        center,
        view.mapToGlobal(center),
        QPoint(0, 0),
        QPoint(0, -240),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.ControlModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    before = view.zoom()
    view.wheelEvent(event)
    assert view.zoom() < before
    view.fit()
    assert (
        view.mapToScene(view.viewport().rect())
        .boundingRect()
        .contains(view.rack_item("r2").sceneBoundingRect())
    )


def test_face_toggle_marks_front_devices_as_other_face(qtbot, tiny_design):
    view = make_view(qtbot, tiny_design)
    view.set_face("rear")
    blocks = view.rack_item("r1").blocks
    assert all(b.other_face for b in blocks if not b.zero_u)


def test_opening_fits_the_rows_without_a_horizontal_scroll_bar(qtbot):
    """The sample opens at a readable zoom with its widest row fitting the width: the
    vertical scroll bar is taken into account, so no horizontal one appears."""
    from workbench.templates import sample_design

    view = make_view(qtbot, sample_design())
    view.resize(1050, 800)
    qtbot.wait(10)
    view.fit_readable()
    qtbot.wait(10)
    assert view.verticalScrollBar().maximum() > 0  # taller than the view
    assert view.horizontalScrollBar().maximum() == 0


def test_clicking_a_device_near_the_edge_does_not_scroll_the_view(qtbot):
    """A click selects what is under the pointer; the canvas must not jump away from it
    (ensureVisible's margin used to scroll a rack at the left edge by a few pixels)."""
    from workbench.templates import sample_design

    design = sample_design()
    view = make_view(qtbot, design)
    view.resize(1050, 800)
    view.fit_readable()
    qtbot.wait(10)
    first = design.sites[0].rows[0].racks[0]
    device = next(d for d in first.devices if "gpu" in d.name)
    rect = view.scene_rect_of(device.id)
    pos = view.mapFromScene(rect.center())
    assert view.viewport().rect().contains(pos)
    before = (view.horizontalScrollBar().value(), view.verticalScrollBar().value())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert view.document.selection == device.id
    assert (view.horizontalScrollBar().value(), view.verticalScrollBar().value()) == before


def test_a_selection_made_elsewhere_is_still_scrolled_into_view(qtbot):
    from workbench.templates import sample_design

    design = sample_design()
    view = make_view(qtbot, design)
    view.fit_readable()
    last_rack = design.sites[0].rows[-1].racks[-1]
    view.document.select(last_rack.id)
    rect = view.mapFromScene(view.scene_rect_of(last_rack.id)).boundingRect()
    assert view.viewport().rect().intersects(rect)


def _sample_view(qtbot):
    from workbench.templates import sample_design

    view = make_view(qtbot, sample_design())
    view.resize(1100, 700)
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    return view


def test_the_zoom_buttons_zoom_around_the_centre_of_the_view(qtbot):
    """The pointer is on the button when it is clicked: zooming around it (the wheel's
    anchor) would slide the hall away from what the user was looking at."""
    from PySide6.QtWidgets import QToolButton

    view = _sample_view(qtbot)
    view.zoom_by(1.5)
    centre = view.mapToScene(view.viewport().rect().center())
    zoom_in = view._controls.findChild(QToolButton, "zoomIn")
    qtbot.mouseMove(zoom_in)  # the pointer over the button, as a click leaves it
    qtbot.mouseClick(zoom_in, Qt.MouseButton.LeftButton)
    after = view.mapToScene(view.viewport().rect().center())
    assert (
        abs(after.x() - centre.x()) < 3 / view.zoom()
        and abs(after.y() - centre.y()) < 3 / view.zoom()
    )


def test_the_toolbar_never_covers_a_rack_name(qtbot):
    """Front/Rear and the zoom buttons sit in a band above the drawing, however it is
    scrolled: no rack header is ever under them."""
    view = _sample_view(qtbot)
    bar = view._controls.geometry()
    for scroll in (0, view.verticalScrollBar().maximum() // 2):
        view.verticalScrollBar().setValue(scroll)
        assert bar.bottom() < view.viewport().geometry().top()
    # Every rack's header, wherever it is drawn, is inside the viewport, not the band.
    view.verticalScrollBar().setValue(0)
    header = view.rack_item(next(iter(view._items))).sceneBoundingRect()
    top_left = view.mapFromScene(header.topLeft()) + view.viewport().geometry().topLeft()
    assert top_left.y() > bar.bottom()


def test_fit_shows_the_last_rows_budget_bars_above_the_legend(qtbot):
    view = _sample_view(qtbot)
    view.fit()
    last_rack = list(view._items.values())[-1]
    bottom = view.mapFromScene(last_rack.sceneBoundingRect().bottomLeft()).y()
    legend_top = view._legend.geometry().top() - view.viewport().geometry().top()
    assert bottom <= legend_top
