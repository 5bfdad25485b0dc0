"""The Fabric view in the window, driven with real mouse and key events: click a spine
and its links light up, the plane filter, the selection shared with the Racks view,
cabling two devices by dragging (and the refusal of an impossible cable), deleting a
bundle, editing a bundle's speed in the inspector, dropping a switch from the catalog,
and what a failure costs.  Every edit is asserted on the model, then undone.

The small fabric's ports are worked out by hand in ``fabric_cabling.small_fabric``.
"""

from __future__ import annotations

import pytest
from fabric_cabling import cable_template, small_fabric
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication
from qt_helpers import open_window, palette_mime

from workbench.calc.fabric.planes import plane_structure
from workbench.catalog import load_catalog
from workbench.catalog.item import CatalogItem, Interface
from workbench.model import Design, Device, Link, Network, Rack, Row, Site
from workbench.render import colors
from workbench.templates import sample_design
from workbench.ui.fabric.view import FabricView

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def make_window(qtbot, tmp_path, design, catalog):
    window = open_window(qtbot, tmp_path, design, catalog)
    window.file_actions.autosave_timer.stop()
    return window


@pytest.fixture
def small(qtbot, tmp_path, catalog):
    window = make_window(qtbot, tmp_path, small_fabric(catalog), catalog)
    yield window
    window.document.undo_stack.setClean()


def show_fabric(qtbot, window, plane: str | None = None) -> FabricView:
    window.tabs.setCurrentWidget(window.fabric_view)
    view = window.fabric_view
    qtbot.waitExposed(view)
    QApplication.processEvents()  # the fit put off to after the first show
    if plane is not None:
        view.set_plane(plane)
    view.fit()
    QApplication.processEvents()
    return view


def point_of(view: FabricView, key: str) -> QPoint:
    """The viewport point of a box's centre, without scrolling (it must be on screen)."""
    rect = view.fabric.box_rect(key)
    assert rect is not None, key
    point = view.mapFromScene(rect.center())
    assert view.viewport().rect().contains(point), key
    return point


def drag(qtbot, view: FabricView, start: QPoint, end: QPoint) -> None:
    qtbot.mousePress(view.viewport(), LEFT, pos=start)
    for k in range(1, 6):
        qtbot.mouseMove(view.viewport(), start + (end - start) * (k / 5))
    qtbot.mouseRelease(view.viewport(), LEFT, pos=end)


def near(color: QColor, hex_color: str, tolerance: int = 40) -> bool:
    want = QColor(hex_color)
    return all(
        abs(a - b) <= tolerance
        for a, b in zip(
            (color.red(), color.green(), color.blue()),
            (want.red(), want.green(), want.blue()),
            strict=True,
        )
    )


# -- the test: the sample design, a spine clicked -------------------------------------


def test_clicking_a_spine_of_the_sample_lights_its_links_and_shows_it(qtbot, tmp_path, catalog):
    design = sample_design(catalog)
    if not design.links:  # the templates before the generator: cable them by hand
        cable_template(design)
    window = make_window(qtbot, tmp_path, design, catalog)
    view = show_fabric(qtbot, window, "compute")
    compute = plane_structure(design, "compute")
    spine = compute.switches_in(2)[0]
    name = design.find_device(spine)[1].name
    qtbot.mouseClick(view.viewport(), LEFT, pos=view.view_point_of_box(f"compute:{spine}"))
    assert window.document.selection == spine
    compute_ids = {link.id for link in compute.links}
    mine = design.index.links_of(spine) & compute_ids
    assert mine and view.fabric.highlighted_links() == mine
    # Its leaves are lit as neighbours; the inspector shows the spine.
    leaves = {
        link.b_device if link.a_device == spine else link.a_device
        for link in design.links
        if link.id in mine
    }
    assert {f"compute:{leaf}" for leaf in leaves} <= view.fabric.highlight.neighbours
    assert window.inspector.title.text() == f"Device · {name}"
    assert "spine" in window.inspector.device_fields["fabric"].text()
    # On screen: the middle of a lit bundle is drawn in the selection colour.
    view.fit()
    QApplication.processEvents()
    key = next(iter(view.fabric.highlight.bundles))
    bundle = view.fabric.layout.bundles[key]
    (ax, ay), (bx, by) = bundle.a_point, bundle.b_point
    middle = view.mapFromScene(QPointF(ax + (bx - ax) * 0.6, ay + (by - ay) * 0.6))
    image = view.viewport().grab().toImage()
    ratio = image.width() / view.viewport().width()
    found = [
        image.pixelColor(round((middle.x() + dx) * ratio), round((middle.y() + dy) * ratio))
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
    ]
    assert any(near(c, colors.SELECTION) for c in found)
    window.document.undo_stack.setClean()


# -- the plane filter and the shared selection ------------------------------------------------


def test_the_plane_filter_shows_one_plane_or_all(qtbot, small):
    view = show_fabric(qtbot, small)
    assert view.plane == "compute"  # the cabled plane is shown first
    assert {p.plane for p in view.fabric.layout.panels} == {"compute", "uncabled"}
    qtbot.mouseClick(view._buttons["storage"], LEFT)
    assert view.fabric.planes == ("storage",)
    assert "compute:spine1" not in view.fabric.layout.boxes
    assert view.fabric.layout.panels[0].note.startswith("No links on this plane")
    qtbot.mouseClick(view._buttons["all"], LEFT)
    assert [p.plane for p in view.fabric.layout.panels] == [
        "compute",
        "storage",
        "management",
        "oob",
        "uncabled",
    ]
    assert "compute:spine1" in view.fabric.layout.boxes


def test_a_device_selected_in_the_racks_view_lights_up_here(qtbot, small):
    rack_view = small.rack_view
    rect = rack_view.scene_rect_of("leaf1")
    rack_view.centerOn(rect.center())
    qtbot.mouseClick(rack_view.viewport(), LEFT, pos=rack_view.mapFromScene(rect.center()))
    assert small.document.selection == "leaf1"
    view = show_fabric(qtbot, small)
    assert view.fabric.highlight.boxes == {"compute:leaf1"}
    assert view.fabric.highlighted_links() == small.document.design.index.links_of("leaf1")
    # ...and a click here selects for the Racks view too.
    qtbot.mouseClick(view.viewport(), LEFT, pos=point_of(view, "compute:spine2"))
    assert small.document.selected == ("spine2",)


def test_clicking_a_rack_group_selects_its_nodes(qtbot, small):
    view = show_fabric(qtbot, small)
    key = next(k for k, b in view.fabric.layout.boxes.items() if b.title == "A02")
    qtbot.mouseClick(view.viewport(), LEFT, pos=point_of(view, key))
    assert small.document.selected == ("n3", "n4")
    assert small.inspector.title.text() == "Device · dgx-04"


# -- cabling by hand ---------------------------------------------------------------------------


def test_dragging_from_a_switch_to_another_cables_their_next_free_ports(qtbot, small):
    document = small.document
    design = document.design
    view = show_fabric(qtbot, small)
    before = len(design.links)
    drag(qtbot, view, point_of(view, "uncabled:spare"), point_of(view, "compute:spine1"))
    assert len(design.links) == before + 1
    link = design.links[-1]
    # By hand: the spare has no link (p1 is next); spine-1 uses p1–p16 (p17 is next).
    assert (link.a_device, link.a_port, link.b_device, link.b_port) == (
        "spare",
        "p1",
        "spine1",
        "p17",
    )
    assert link.network == "net-compute" and link.speed_gbps is None
    assert document.undo_stack.count() == 1
    assert document.selection == link.id
    # The spare is now cabled: a tier above the spine, no longer in the tray.
    QApplication.processEvents()
    assert "uncabled:spare" not in view.fabric.layout.boxes
    assert "compute:spare" in view.fabric.layout.boxes
    document.undo_stack.undo()
    assert len(design.links) == before and link.id not in design.index.links
    QApplication.processEvents()
    assert "uncabled:spare" in view.fabric.layout.boxes
    document.undo_stack.redo()
    assert design.index.links[link.id].b_port == "p17"


def test_a_drag_between_ports_that_cannot_be_joined_is_refused_with_the_reason(
    qtbot, tmp_path, catalog
):
    """A 400G OSFP switch without breakout and a host whose free port is a 25G SFP28."""
    design = _mismatch_design()
    window = make_window(qtbot, tmp_path, design, catalog)
    view = show_fabric(qtbot, window)
    host_box = view.fabric.layout.boxes_of_device["h1"][0]
    drag(qtbot, view, point_of(view, "uncabled:big"), point_of(view, host_box))
    assert len(design.links) == 1 and window.document.undo_stack.count() == 0
    message = window.statusBar().currentMessage()
    assert "big p1 (400G OSFP) to h1 compute1 (25G SFP28)" in message
    assert "not 25G" in message
    window.document.undo_stack.setClean()


def _mismatch_design() -> Design:
    """One host ``h1`` (two 25G SFP28 ports, compute0 cabled to a 25G switch) and an
    uncabled switch ``big`` of 400G OSFP ports that does not break out."""
    types = {
        "rack": CatalogItem(slug="rack", kind="rack", manufacturer="G", model="Rack", u_height=42),
        "host25": CatalogItem(
            slug="host25",
            kind="server",
            manufacturer="G",
            model="25G host",
            u_height=1,
            interfaces=(
                Interface("compute0", "25gbase-x-sfp28"),
                Interface("compute1", "25gbase-x-sfp28"),
            ),
        ),
        "sw25": CatalogItem(
            slug="sw25",
            kind="switch",
            manufacturer="G",
            model="25G switch",
            u_height=1,
            interfaces=tuple(Interface(f"e{i}", "25gbase-x-sfp28") for i in range(1, 5)),
        ),
        "sw400": CatalogItem(
            slug="sw400",
            kind="switch",
            manufacturer="G",
            model="400G switch",
            u_height=1,
            interfaces=tuple(Interface(f"p{i}", "400gbase-x-osfp") for i in range(1, 5)),
            props={"breakout": []},
        ),
    }
    rack = Rack(
        "r1",
        "A01",
        "rack",
        devices=[
            Device("h1", "h1", "host25", 1),
            Device("small", "small", "sw25", 10),
            Device("big", "big", "sw400", 11),
        ],
    )
    return Design(
        name="Mismatch",
        sites=[Site("s", "Hall", rows=[Row("row", "Row A", racks=[rack])])],
        device_types=types,
        networks=[Network("net-compute", "Compute", "compute", "ethernet", 25.0, 9000)],
        links=[Link("l1", "h1", "compute0", "small", "e1", "net-compute")],
    )


def test_deleting_a_bundle_removes_all_its_links_in_one_step(qtbot, small):
    document = small.document
    design = document.design
    view = show_fabric(qtbot, small)
    key = ("compute:leaf1", "compute:spine2")
    ids = list(view.fabric.layout.bundles[key].link_ids)
    assert len(ids) == 8
    point = view.mapFromScene(_on_line(view, key))
    qtbot.mouseClick(view.viewport(), LEFT, pos=point)
    assert set(document.selected) == set(ids)
    assert small.inspector.title.text() == "Bundle · 8 links"
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert not set(ids) & design.index.links.keys()
    assert len(design.links) == 64 - 8
    assert document.undo_stack.count() == 1
    QApplication.processEvents()
    assert key not in view.fabric.layout.bundles
    document.undo_stack.undo()
    assert set(ids) <= design.index.links.keys() and len(design.links) == 64
    QApplication.processEvents()
    assert view.fabric.layout.bundles[key].count == 8


def _on_line(view: FabricView, key) -> QPointF:
    bundle = view.fabric.layout.bundles[key]
    (ax, ay), (bx, by) = bundle.a_point, bundle.b_point
    return QPointF(ax + (bx - ax) * 0.55, ay + (by - ay) * 0.55)


def test_a_bundles_speed_is_set_in_the_inspector_and_undone(qtbot, small):
    document = small.document
    design = document.design
    view = show_fabric(qtbot, small)
    key = ("compute:leaf2", "compute:spine1")
    ids = view.fabric.layout.bundles[key].link_ids
    qtbot.mouseClick(view.viewport(), LEFT, pos=view.mapFromScene(_on_line(view, key)))
    page = small.inspector.link_page
    assert page.link_ids == tuple(ids)
    assert "8 links" in page.fields["links"].text()
    assert page.speed.currentData() is None  # as the ports run
    combo = page.speed
    combo.setFocus()
    qtbot.keyClicks(combo, "200")  # keyboard search: "200G"
    assert {design.index.links[i].speed_gbps for i in ids} == {200.0}
    assert document.undo_stack.count() == 1
    assert combo.currentText() == "200G"
    # 1600G is more than a 400G NDR port carries: refused, nothing changed, the reason.
    index = combo.findData(1600.0)
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    assert {design.index.links[i].speed_gbps for i in ids} == {200.0}
    assert document.undo_stack.count() == 1
    assert "cannot run at 1600G" in small.statusBar().currentMessage()
    assert combo.currentText() == "200G"  # the stored value is shown again
    document.undo_stack.undo()
    assert {design.index.links[i].speed_gbps for i in ids} == {None}
    assert page.speed.currentData() is None


def test_a_links_media_is_set_in_the_inspector(qtbot, small):
    document = small.document
    design = document.design
    document.select("l000001")
    page = small.inspector.link_page
    assert small.inspector.title.text() == "Link · dgx-01 ↔ leaf-1"
    assert "compute0" in page.fields["ends"].text() and "p1" in page.fields["ends"].text()
    index = page.media.findData("aoc")
    page.media.setCurrentIndex(index)
    page.media.activated.emit(index)
    assert design.index.links["l000001"].cable_type == "aoc"
    document.undo_stack.undo()
    assert design.index.links["l000001"].cable_type is None


# -- a switch from the catalog ----------------------------------------------------------------


def _drop(view: FabricView, mime) -> bool:
    where = view.viewport().rect().center()
    copy, none = Qt.DropAction.CopyAction, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(view.viewport(), QDragEnterEvent(where, copy, mime, LEFT, none))
    QApplication.sendEvent(view.viewport(), QDragMoveEvent(where, copy, mime, LEFT, none))
    event = QDropEvent(QPointF(where), copy, mime, LEFT, none)
    QApplication.sendEvent(view.viewport(), event)
    return event.isAccepted()


def test_a_switch_dropped_from_the_catalog_goes_into_the_network_rack(qtbot, small):
    document = small.document
    design = document.design
    view = show_fabric(qtbot, small)
    assert _drop(view, palette_mime(small, "nvidia-sn5600"))
    (new,) = [d for _r, d in design.iter_devices() if d.device_type == "nvidia-sn5600"]
    rack, _device = design.find_device(new.id)
    assert rack.id == "r3" and new.position is not None  # N01, the rack of switches
    assert "nvidia-sn5600" in design.device_types
    assert document.selection == new.id
    assert document.undo_stack.count() == 1
    QApplication.processEvents()
    assert f"uncabled:{new.id}" in view.fabric.layout.boxes
    assert "Drag from it" in small.statusBar().currentMessage()
    document.undo_stack.undo()
    assert design.find_device(new.id) is None
    assert "nvidia-sn5600" not in design.device_types


def test_a_server_dropped_on_the_fabric_is_refused(qtbot, small):
    view = show_fabric(qtbot, small)
    count = sum(1 for _ in small.document.design.iter_devices())
    assert not _drop(view, palette_mime(small, "nvidia-dgx-h100"))
    assert sum(1 for _ in small.document.design.iter_devices()) == count
    assert "drop switches on the fabric" in small.statusBar().currentMessage()


def test_with_no_room_a_dropped_switch_has_no_rack_unit_and_the_checks_say_so(qtbot, small):
    design = small.document.design
    rack = design.find_rack("r3")
    rack.rack_type = "generic-rack-42u-air"  # make N01 small and fill what is left
    from workbench.catalog import snapshot_for

    design.device_types.update(snapshot_for(small.catalog, ["generic-rack-42u-air"]))
    taken = {u for d in rack.devices for u in [d.position]}
    for u in range(1, 43):
        if u not in taken:
            rack.devices.append(Device(f"x{u}", f"filler-{u}", "nvidia-qm9700", u))
    design.reindex()
    small.document.replace_design(design, None)
    view = show_fabric(qtbot, small)
    assert _drop(view, palette_mime(small, "nvidia-qm9700"))
    new_id = small.document.selection
    placed = design.find_device(new_id)
    assert placed[0].id == "r3" and placed[1].position is None
    assert "with no rack unit" in small.statusBar().currentMessage()
    small.document.figures.checker  # noqa: B018 - run the checks now
    rules = {f.rule for f in small.document.figures.checker.findings_of(new_id)}
    assert "RACK-OUTSIDE" in rules


# -- what a failure costs ---------------------------------------------------------------------


def test_what_if_a_spine_fails(qtbot, small):
    view = show_fabric(qtbot, small)
    text = view.show_failure(view.fabric.layout.boxes["compute:spine1"])
    # By hand: half the leaf–spine links go; every node keeps both leaves.
    assert "50.0 %" in text and "no node cut off" in text
    assert text in small.statusBar().currentMessage()
