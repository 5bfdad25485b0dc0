"""The floor plan in the window: click to see a rack's elevation, drag racks and rows by
whole tiles in one undo step, colours that follow the budgets, partial refresh, and
positions laid out for files older than the plan."""

from __future__ import annotations

import shutil
from dataclasses import astuple
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication
from qt_helpers import open_window

from workbench.catalog import load_catalog
from workbench.model import Rack, Row, ops
from workbench.model import floor as fl
from workbench.render import colors
from workbench.rules.budgets import BudgetState
from workbench.store import open_design
from workbench.ui.commands import EditCommand, set_rack_fields
from workbench.ui.floor.plan import FloorPlanView

TILE = fl.DEFAULT_TILE_MM
SAMPLE_V3 = Path(__file__).parent / "data" / "project_v3.dcwb"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def window(qtbot, tmp_path, tiny_design, catalog):
    window = open_window(qtbot, tmp_path, tiny_design, catalog)
    window.file_actions.autosave_timer.stop()
    yield window
    window.document.undo_stack.setClean()


def show_plan(qtbot, window) -> FloorPlanView:
    window.tabs.setCurrentWidget(window.floor_plan)
    view = window.floor_plan
    qtbot.waitExposed(view)
    QApplication.processEvents()  # the fit put off to after the first show
    return view


def place(window, rack_id: str) -> tuple[float, float, str]:
    rack = window.document.design.find_rack(rack_id)
    return (rack.floor_x_mm, rack.floor_y_mm, rack.facing)


def drag(qtbot, view: FloorPlanView, start: QPoint, dx_mm: float, dy_mm: float) -> None:
    """A real drag on the viewport: press, several moves, release."""
    zoom = view.zoom()
    end = start + QPoint(round(dx_mm * zoom), round(dy_mm * zoom))
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 6):
        qtbot.mouseMove(view.viewport(), start + (end - start) * (k / 5))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=end)


def test_the_tiny_design_opens_with_its_racks_on_the_floor_and_stays_clean(window):
    design = window.document.design
    assert all(fl.is_placed(r) for r in design.iter_racks())
    assert place(window, "r1")[2] == "south" and place(window, "r2")[2] == "north"
    assert not window.document.is_dirty
    assert not window.floor_plan._built  # drawn the first time it is shown
    assert [window.tabs.tabText(i) for i in range(4)] == [
        "Racks",
        "Floor plan",
        "Fabric",
        "Estimates",
    ]


def test_clicking_a_rack_selects_it_and_shows_its_elevation(qtbot, window):
    view = show_plan(qtbot, window)
    point = view.view_point_of("r2")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert window.document.selection == "r2"
    assert window.tabs.currentWidget() is window.rack_view
    rect = window.rack_view.scene_rect_of("r2")
    assert (
        window.rack_view.mapToScene(window.rack_view.viewport().rect())
        .boundingRect()
        .intersects(rect)
    )


def test_ctrl_click_adds_to_the_selection_and_stays_on_the_plan(qtbot, window):
    view = show_plan(qtbot, window)
    window.document.select("r1")
    point = view.view_point_of("r2")
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, ctrl, point)
    assert window.document.selected == ("r1", "r2")
    assert window.tabs.currentWidget() is view
    assert view.plan.selected == {"r1", "r2"}


def test_dragging_a_rack_moves_it_by_whole_tiles_in_one_undo_step(qtbot, window):
    view = show_plan(qtbot, window)
    document = window.document
    x, y, facing = place(window, "r1")
    steps = document.undo_stack.count()
    drag(qtbot, view, view.view_point_of("r1"), 2.3 * TILE, 0.2 * TILE)
    assert place(window, "r1") == (x + 2 * TILE, y, facing)
    assert document.undo_stack.count() == steps + 1
    assert view.spot("r1").rect.left() == x + 2 * TILE  # the plan follows the model
    assert view.rack_at(view.view_point_of("r1")) == "r1"
    document.undo_stack.undo()
    assert place(window, "r1") == (x, y, facing)
    assert view.spot("r1").rect.left() == x
    document.undo_stack.redo()
    assert place(window, "r1") == (x + 2 * TILE, y, facing)


def test_a_drop_onto_another_rack_is_refused_and_leaves_no_step(qtbot, window):
    view = show_plan(qtbot, window)
    document = window.document
    before = place(window, "r1")
    a, b = view.spot("r1").rect, view.spot("r2").rect
    steps = document.undo_stack.count()
    drag(qtbot, view, view.view_point_of("r1"), 0.0, b.top() - a.top())
    assert place(window, "r1") == before
    assert document.undo_stack.count() == steps
    assert "would stand on B01" in window.statusBar().currentMessage()
    assert view.plan.dragging == frozenset()


def test_dragging_a_row_by_its_label_moves_all_its_racks(qtbot, window):
    design = window.document.design
    design.sites[0].rows[0].racks.append(Rack(id="r3", name="A02", rack_type="rack-42u"))
    design.reindex()
    window.document.replace_design(design, None)  # as if opened so: r3 is laid out
    view = show_plan(qtbot, window)
    assert place(window, "r3")[0] == place(window, "r1")[0] + TILE
    label = view.plan.rows["row-a"].label_rect
    start = view.mapFromScene(label.center())
    before = {r: place(window, r) for r in ("r1", "r3", "r2")}
    drag(qtbot, view, start, -1.1 * TILE, -1.0 * TILE)
    for rack_id in ("r1", "r3"):
        x, y, facing = before[rack_id]
        assert place(window, rack_id) == (x - TILE, y - TILE, facing)
    assert place(window, "r2") == before["r2"]
    assert window.document.undo_stack.count() == 1
    window.document.undo_stack.undo()
    assert {r: place(window, r) for r in before} == before


def test_footprint_colours_follow_the_budgets(qtbot, window):
    view = show_plan(qtbot, window)
    spot = view.spot("r1")
    assert spot.state is not BudgetState.OVER
    document = window.document
    # Two 10.2 kW servers under a 5 kW budget in an air-cooled rack: over.
    document.push(set_rack_fields(document, "r1", {"cooling": "air", "power_limit_kw": 5.0}))
    assert view.spot("r1").state is BudgetState.OVER
    rect = view.spot("r1").rect
    QApplication.processEvents()
    probe = QPointF(rect.center().x(), rect.top() + rect.height() * 0.15)  # clear of text
    view.centerOn(rect.center())
    image = view.viewport().grab().toImage()
    pixel = image.pixelColor(view.mapFromScene(probe))
    assert pixel == QColor(colors.budget_color(BudgetState.OVER))
    document.undo_stack.undo()
    assert view.spot("r1").state is spot.state


def test_an_edit_refreshes_only_the_racks_it_names(qtbot, window):
    view = show_plan(qtbot, window)
    plan = view.plan
    rows, footprints = dict(plan.rows), plan.footprints
    other = plan.spots["r2"]
    document = window.document
    document.push(set_rack_fields(document, "r1", {"cooling": "air", "power_limit_kw": 5.0}))
    assert plan.rows == rows and plan.footprints is footprints  # no rebuild
    assert plan.spots["r2"] is other  # not even read again
    document.push(EditCommand(document, ops.MoveRackOnFloor("r2", 0.0, 9600.0, "north"), "m"))
    assert plan.spots["r2"] is not other and plan.rows == rows


def test_a_selection_made_elsewhere_is_highlighted(qtbot, window):
    view = show_plan(qtbot, window)
    window.document.select("d1")  # a device in r1, clicked in the rack view
    assert view.plan.selected == {"r1"}
    window.document.select(None)
    assert view.plan.selected == frozenset()


def test_a_rack_added_in_the_window_is_laid_out_beside_its_row(qtbot, window):
    view = show_plan(qtbot, window)
    document = window.document
    rack = Rack(id="r9", name="B02", rack_type="rack-42u")
    document.push(EditCommand(document, ops.AddRack("row-b", rack), "Add rack"))
    x, y, facing = place(window, "r2")
    assert place(window, "r9") == (x + TILE, y, facing)
    assert view.spot("r9") is not None
    document.undo_stack.undo()
    assert view.spot("r9") is None
    document.undo_stack.redo()
    assert place(window, "r9") == (x + TILE, y, facing)


def test_turning_a_rack_and_placing_racks_taken_off_the_plan(qtbot, window):
    view = show_plan(qtbot, window)
    document = window.document
    before = place(window, "r2")
    assert view.turn("r2", "east")
    assert place(window, "r2")[2] == "east"
    document.undo_stack.undo()
    assert place(window, "r2") == before
    document.push(EditCommand(document, ops.MoveRackOnFloor("r2", None, None, "north"), "off"))
    assert view.plan.unplaced == ["r2"] and view.spot("r2") is None
    steps = document.undo_stack.count()
    view.place_unplaced()
    assert document.undo_stack.count() == steps + 1
    # Alone in its row, it is laid out as a new row below the rest, on free floor.
    assert fl.is_placed(document.design.find_rack("r2")) and view.plan.unplaced == []
    assert fl.overlaps(document.design, {"r2": view.plan.index.rects["r2"]}) == {}
    document.undo_stack.undo()
    assert view.plan.unplaced == ["r2"]
    # Adding a rack lays out that rack only: r2 was taken off on purpose.
    rack = Rack(id="r9", name="A02", rack_type="rack-42u")
    document.push(EditCommand(document, ops.AddRack("row-a", rack), "Add rack"))
    assert fl.is_placed(rack) and view.plan.unplaced == ["r2"]


def test_a_file_older_than_the_plan_opens_laid_out_and_saves_the_positions(qtbot, window, tmp_path):
    old = tmp_path / "old.dcwb"
    shutil.copy(SAMPLE_V3, old)
    assert not any(fl.is_placed(r) for r in open_design(old).iter_racks())
    assert window.file_actions.open_path(old, ask_save=False)
    design = window.document.design
    assert all(fl.is_placed(r) for r in design.iter_racks())
    assert not window.document.is_dirty
    view = show_plan(qtbot, window)
    assert set(view.plan.spots) == {r.id for r in design.iter_racks()}
    saved = tmp_path / "saved.dcwb"
    assert window.file_actions.save_to(saved)
    again = open_design(saved)
    assert [(r.floor_x_mm, r.floor_y_mm, r.facing) for r in again.iter_racks()] == [
        (r.floor_x_mm, r.floor_y_mm, r.facing) for r in design.iter_racks()
    ]


def test_aisles_kept_up_edit_by_edit_match_a_fresh_reading(qtbot, window):
    design = window.document.design
    for letter in "CDEF":
        racks = [
            Rack(id=f"{letter}{i}", name=f"{letter}0{i}", rack_type="rack-42u") for i in (1, 2)
        ]
        design.sites[0].rows.append(Row(id=f"row-{letter}", name=f"Row {letter}", racks=racks))
    design.reindex()
    window.document.replace_design(design, None)
    view = show_plan(qtbot, window)
    document = window.document

    def key(aisles):
        return sorted((a.kind, astuple(a.rect), tuple(sorted(a.rows)), a.mixed) for a in aisles)

    b01 = view.spot("r2").rect  # faces north, across the cold aisle from A01
    edits = [
        # B01 turned round where it stands: its back blows into A01's cold aisle.
        ops.MoveRackOnFloor("r2", b01.left(), b01.bottom(), "south"),
        ops.MoveRowOnFloor("row-C", 0.0, -2 * TILE),
        ops.MoveRackOnFloor("F2", 30 * TILE, 30 * TILE, "east"),
        ops.MoveRowOnFloor("row-a", 20 * TILE, 0.0),
    ]
    for n, op in enumerate(edits):
        document.push(EditCommand(document, op, "edit"))
        assert key(view.plan._aisles) == key(fl.aisles(document.design))
        if n == 0:
            assert any(a.mixed for a in view.plan._aisles)
    for _ in edits:
        document.undo_stack.undo()
        assert key(view.plan._aisles) == key(fl.aisles(document.design))


def test_the_plan_pins_grid_labels_and_a_scale_in_metres_to_its_edges(qtbot, window):
    """Column letters along the top, row numbers down the left and a scale bar: drawn
    at a fixed size whatever the zoom (render.floor_painter, as on the printed plan)."""
    from workbench.render.floor_painter import column_label, metres, scale_bar_mm

    assert [column_label(i) for i in (0, 25, 26)] == ["A", "Z", "AA"]
    assert (metres(1200), metres(14400)) == ("1.2 m", "14.4 m")
    assert scale_bar_mm(0.1) == 1000.0  # 120 px at 0.1 px/mm: a 1 m bar (100 px)
    view = show_plan(qtbot, window)
    for zoom in (1.0, 0.25):
        view.fit()
        view.zoom_by(zoom, around_centre=True)
        image = view.viewport().grab().toImage()
        top_band = [
            QColor(image.pixel(x, y)).lightness()
            for x in range(30, image.width(), 2)
            for y in range(2, 14)
        ]
        assert min(top_band) < 140, "no grid label along the top"
        left_band = [
            QColor(image.pixel(x, y)).lightness()
            for x in range(2, 20)
            for y in range(20, image.height() - 60, 2)
        ]
        assert min(left_band) < 140, "no row number down the left"


def test_rack_names_turn_along_the_rack_when_too_narrow_to_read_across(qtbot, window):
    """Zoomed out until "A01" no longer fits across a 600 mm rack, the name is still
    written, along its 1,200 mm side (as the printed plan writes it)."""
    from workbench.ui.floor.items import CHAR_EM, MIN_TEXT_PX

    view = show_plan(qtbot, window)
    spot = view.spot("r1")
    narrow, long = sorted((spot.rect.width(), spot.rect.height()))
    need = 3 * CHAR_EM * MIN_TEXT_PX + 4
    zoom = (need / long + need / narrow) / 2  # between the two thresholds
    assert zoom * narrow < need <= zoom * long and zoom * narrow >= MIN_TEXT_PX
    view.resetTransform()
    view.scale(zoom, zoom)
    view.centerOn(spot.rect.center())
    QApplication.processEvents()
    image = view.viewport().grab().toImage()
    # The middle of the footprint: clear of its outline and the dark band of its front.
    whole = view.mapFromScene(spot.rect).boundingRect()
    area = whole.adjusted(
        whole.width() // 4, whole.height() // 4, -whole.width() // 4, -whole.height() // 4
    )
    darkest = min(
        QColor(image.pixel(x, y)).lightness()
        for x in range(area.left(), area.right())
        for y in range(area.top(), area.bottom())
    )
    assert darkest < 110, "no name written on the rack"
