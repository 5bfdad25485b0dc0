"""The hall floor: footprints, the layout of rows in hot/cold-aisle pairs, aisles read
back, and the floor edits with their exact inverses."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.catalog.item import CatalogItem
from workbench.model import Change, Design, Rack, Row, Site, ops
from workbench.model import floor as fl
from workbench.model.errors import EditError
from workbench.store import open_design, save_design

RACK_TYPES = {
    "std": CatalogItem(slug="std", kind="rack", manufacturer="G", model="600", u_height=42),
    "wide": CatalogItem(
        slug="wide",
        kind="rack",
        manufacturer="G",
        model="800",
        u_height=48,
        props={"width_mm": 800, "depth_mm": 1070},
    ),
}


def hall(*rows: list[str], rack_type: str = "std") -> Design:
    """A design with one row per argument, each holding racks of those names."""
    design = Design(
        name="Hall",
        sites=[
            Site(
                id="s1",
                name="Hall 1",
                rows=[
                    Row(
                        id=f"row{i}",
                        name=f"Row {chr(65 + i)}",
                        racks=[Rack(id=f"r-{n}", name=n, rack_type=rack_type) for n in names],
                    )
                    for i, names in enumerate(rows)
                ],
            )
        ],
        device_types=dict(RACK_TYPES),
    )
    design.reindex()
    return design


def rect_of(design: Design, rack_id: str) -> fl.Rect:
    rack = design.find_rack(rack_id)
    assert rack is not None
    found = fl.footprint(design, rack)
    assert found is not None
    return found


def assert_no_overlaps(design: Design) -> None:
    index = fl.FloorIndex.of(design)
    for rack_id, rect in index.rects.items():
        assert index.overlapping(rect, ignore=[rack_id]) == [], rack_id


# -- one footprint ----------------------------------------------------------------------


@pytest.mark.parametrize("facing", fl.FACINGS)
def test_footprint_turns_about_the_front_left_corner_and_back(facing: str) -> None:
    rect = fl.footprint_at(6000.0, 3000.0, 600.0, 1200.0, facing)
    assert fl.corner_of(rect, facing) == (6000.0, 3000.0)
    along, across = (
        (rect.width, rect.height) if facing in ("north", "south") else (rect.height, rect.width)
    )
    assert (along, across) == (600.0, 1200.0)
    # The front edge is on the side the rack faces, the back on the other.
    (ax, ay), (bx, by) = fl.front_edge(rect, facing)
    expected = {"south": ay == by == rect.y1, "north": ay == by == rect.y0}
    expected |= {"east": ax == bx == rect.x1, "west": ax == bx == rect.x0}
    assert expected[facing]
    assert fl.back_side(facing) != fl.front_side(facing)


def test_front_left_is_the_left_hand_of_someone_facing_the_front() -> None:
    # Facing south, a person in front of the rack looks north: their left is west.
    south = fl.footprint_at(0.0, 0.0, 600.0, 1200.0, "south")
    assert (south.x0, south.y1) == (0.0, 0.0)
    # Facing north, their left is east.
    north = fl.footprint_at(0.0, 0.0, 600.0, 1200.0, "north")
    assert (north.x1, north.y0) == (0.0, 0.0)


def test_rack_size_comes_from_the_catalog_with_a_default() -> None:
    design = hall(["A01"])
    rack = design.find_rack("r-A01")
    assert rack is not None
    assert fl.rack_size(design, rack) == (600.0, 1200.0)
    rack.rack_type = "wide"
    assert fl.rack_size(design, rack) == (800.0, 1070.0)
    rack.rack_type = "not-in-the-snapshot"
    assert fl.rack_size(design, rack) == (600.0, 1200.0)


def test_settings_come_from_properties_rounded_to_tiles() -> None:
    design = hall(["A01"])
    assert fl.FloorSettings.of(design) == fl.FloorSettings(600.0, 1200.0, 1200.0, 2400.0)
    design.properties |= {
        fl.TILE_KEY: "500",
        fl.COLD_AISLE_KEY: "1300",
        fl.HOT_AISLE_KEY: "nonsense",
        fl.MAIN_AISLE_KEY: "-4",
    }
    got = fl.FloorSettings.of(design)
    assert got.tile_mm == 500.0 and got.cold_aisle_mm == 1500.0  # 1300 → 3 tiles
    assert got.hot_aisle_mm == 1500.0  # the default 1200, rounded up to 500 mm tiles
    assert got.main_aisle_mm == 2500.0


# -- the layout -----------------------------------------------------------------------


def test_pairs_of_rows_face_each_other_across_a_cold_aisle() -> None:
    # Long rows: the two pairs stack in one column (see the blocks test for several).
    design = hall(*[[f"{r}{i:02d}" for i in range(1, 21)] for r in "ABCD"])
    placed = fl.lay_out(design)
    assert len(placed) == 80
    cold = fl.FloorSettings.of(design).cold_aisle_mm
    for first, second in (("A", "B"), ("C", "D")):
        a, b = rect_of(design, f"r-{first}01"), rect_of(design, f"r-{second}01")
        assert design.find_rack(f"r-{first}01").facing == "south"
        assert design.find_rack(f"r-{second}01").facing == "north"
        assert b.y0 - a.y1 == cold  # front to front across the cold aisle
        assert a.x0 == b.x0
    # Between the pairs, backs to each other: a hot aisle.
    assert rect_of(design, "r-C01").y0 - rect_of(design, "r-B01").y1 == 1200.0
    aisles = fl.aisles(design)
    cold_ab = [a for a in aisles if a.kind == "cold" and set(a.rows) == {"row0", "row1"}]
    assert len(cold_ab) == 1 and cold_ab[0].rect.height == cold
    hot_bc = [a for a in aisles if a.kind == "hot" and set(a.rows) == {"row1", "row2"}]
    assert len(hot_bc) == 1
    assert not any(a.mixed for a in aisles)
    assert_no_overlaps(design)


def test_racks_of_a_row_stand_side_by_side_in_row_order_on_the_grid() -> None:
    design = hall(["A01", "A02", "A03"], ["B01", "B02", "B03"])
    fl.lay_out(design)
    tile = fl.DEFAULT_TILE_MM
    for row in design.sites[0].rows:
        rects = [rect_of(design, r.id) for r in row.racks]
        for left, right in zip(rects, rects[1:], strict=False):
            assert left.x1 == right.x0 and left.y0 == right.y0
        for rect in rects:
            assert all(v % tile == 0 for v in (rect.x0, rect.y0, rect.x1, rect.y1))


def test_layout_keeps_positions_and_fills_the_missing_ones() -> None:
    design = hall(["A01", "A02", "A03"], ["B01", "B02"], ["C01"])
    a02 = design.find_rack("r-A02")
    a02.floor_x_mm, a02.floor_y_mm, a02.facing = 12000.0, 6000.0, "north"
    placed = fl.lay_out(design)
    assert "r-A02" not in placed
    assert (a02.floor_x_mm, a02.floor_y_mm, a02.facing) == (12000.0, 6000.0, "north")
    assert all(fl.is_placed(r) for r in design.iter_racks())
    # A partly placed row grows along its line: A01 before A02, A03 after it, same front.
    a01, a03, a02r = (rect_of(design, f"r-A0{i}") for i in (1, 3, 2))
    assert a01.x1 == a02r.x0 and a02r.x1 == a03.x0
    assert a01.y0 == a02r.y0 == a03.y0
    assert design.find_rack("r-A01").facing == "north"
    # Rows with nothing placed go below everything already on the floor.
    assert rect_of(design, "r-B01").y0 >= a02r.y1
    assert_no_overlaps(design)
    assert fl.lay_out(design) == []  # nothing left to do


def test_a_rack_is_never_laid_onto_another() -> None:
    design = hall(["A01", "A02"], ["Z01"])
    a01, z01 = design.find_rack("r-A01"), design.find_rack("r-Z01")
    a01.floor_x_mm, a01.floor_y_mm = 0.0, 1200.0
    z01.floor_x_mm, z01.floor_y_mm = 600.0, 1200.0  # where A02 would go next to A01
    fl.lay_out(design)
    assert rect_of(design, "r-A02").x0 == 1200.0  # one tile further along
    assert_no_overlaps(design)


def test_mixed_rack_sizes_keep_fronts_on_one_line() -> None:
    design = hall(["A01", "A02"], ["B01"])
    design.find_rack("r-A02").rack_type = "wide"
    fl.lay_out(design)
    a01, a02, b01 = (rect_of(design, r) for r in ("r-A01", "r-A02", "r-B01"))
    assert a01.y1 == a02.y1  # fronts (south) aligned
    assert a02.width == 800.0 and a02.height == 1070.0
    assert b01.y0 - a01.y1 == 1200.0
    assert_no_overlaps(design)


def test_a_big_hall_is_laid_out_in_blocks_not_a_strip() -> None:
    design = hall(*[[f"R{r:03d}-{i}" for i in range(8)] for r in range(80)])
    fl.lay_out(design)
    box = fl.bounds(fl.FloorIndex.of(design).rects.values())
    assert box is not None
    assert 0.7 < box.width / box.height < 2.5
    assert_no_overlaps(design)


def test_two_rows_blowing_into_each_others_cold_aisle_are_mixed() -> None:
    design = hall(["A01"], ["B01"])
    a, b = design.find_rack("r-A01"), design.find_rack("r-B01")
    a.floor_x_mm, a.floor_y_mm, a.facing = 0.0, 1200.0, "south"
    b.floor_x_mm, b.floor_y_mm, b.facing = 0.0, 3600.0, "south"  # its back on A's front
    assert any(x.mixed for x in fl.aisles(design))


def test_the_templates_come_laid_out(catalog) -> None:
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=2048, catalog=catalog)
    assert all(fl.is_placed(r) for r in design.iter_racks())
    assert_no_overlaps(design)
    facings = [row.racks[0].facing for row in design.sites[0].rows if row.racks]
    assert facings[:4] == ["south", "north", "south", "north"]


@pytest.fixture(scope="module")
def catalog():
    from workbench.catalog import load_catalog

    return load_catalog(include_user=False, strict=True)


cell = st.tuples(st.integers(0, 6), st.integers(0, 6), st.sampled_from(fl.FACINGS))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(st.integers(0, 5), min_size=1, max_size=7),
    pre=st.lists(st.tuples(st.integers(0, 40), cell), max_size=8),
    wide=st.sets(st.integers(0, 40), max_size=5),
)
def test_any_design_is_filled_without_overlaps_and_without_moving_anything(rows, pre, wide):
    design = hall(*[[f"{k}-{i}" for i in range(n)] for k, n in enumerate(rows)])
    racks = list(design.iter_racks())
    used: set[tuple[int, int]] = set()
    kept = {}
    for n, (cx, cy, facing) in pre:
        if not racks or (cx, cy) in used:
            continue
        rack = racks[n % len(racks)]
        if rack.id in kept:
            continue
        used.add((cx, cy))
        # Cells 3 m apart: pre-placed racks (≤ 1.2 m) never overlap one another.
        rack.floor_x_mm, rack.floor_y_mm, rack.facing = (
            cx * 3000.0 + 1200,
            cy * 3000.0 + 1200,
            facing,
        )
        kept[rack.id] = (rack.floor_x_mm, rack.floor_y_mm, rack.facing)
    for n in wide:
        if racks:
            racks[n % len(racks)].rack_type = "wide"
    placed = fl.lay_out(design)
    assert set(placed) == {r.id for r in racks} - set(kept)
    assert all(fl.is_placed(r) for r in racks)
    for rack_id, where in kept.items():
        rack = design.find_rack(rack_id)
        assert (rack.floor_x_mm, rack.floor_y_mm, rack.facing) == where
    assert_no_overlaps(design)


# -- edits ------------------------------------------------------------------------------


def laid_out() -> Design:
    design = hall(["A01", "A02"], ["B01", "B02"])
    fl.lay_out(design)
    return design


def test_move_rack_on_floor_undoes_exactly() -> None:
    design = laid_out()
    before = copy.deepcopy(design)
    applied = ops.apply(design, ops.MoveRackOnFloor("r-A01", 30000.0, 9000.0, "east"))
    rack = design.find_rack("r-A01")
    assert (rack.floor_x_mm, rack.floor_y_mm, rack.facing) == (30000.0, 9000.0, "east")
    assert applied.change.racks == {"r-A01"} and applied.change.floor
    assert not applied.change.structural  # a field of the rack, not the hall's structure
    again = ops.apply(design, applied.inverse)
    assert design == before
    assert again.inverse == ops.MoveRackOnFloor("r-A01", 30000.0, 9000.0, "east")


def test_move_row_on_floor_moves_every_rack_by_the_same_offset_and_undoes() -> None:
    design = laid_out()
    before = copy.deepcopy(design)
    start = {r.id: (r.floor_x_mm, r.floor_y_mm) for r in design.sites[0].rows[1].racks}
    applied = ops.apply(design, ops.MoveRowOnFloor("row1", 1200.0, -600.0))
    for rack in design.sites[0].rows[1].racks:
        x, y = start[rack.id]
        assert (rack.floor_x_mm, rack.floor_y_mm) == (x + 1200.0, y - 600.0)
    assert applied.change.racks == {"r-B01", "r-B02"} and applied.change.floor
    redo = ops.apply(design, applied.inverse).inverse
    assert design == before
    ops.apply(design, redo)  # redo: every rack to its own place again, exactly
    assert design.find_rack("r-B01").floor_x_mm == start["r-B01"][0] + 1200.0


def test_taking_a_rack_off_the_plan_and_putting_it_back() -> None:
    design = laid_out()
    before = copy.deepcopy(design)
    applied = ops.apply(design, ops.MoveRackOnFloor("r-A02", None, None, "south"))
    assert not fl.is_placed(design.find_rack("r-A02"))
    steps = fl.layout_ops(design)
    assert not fl.is_placed(design.find_rack("r-A02"))  # only asked, nothing changed
    assert [s.rack_id for s in steps] == ["r-A02"]
    ops.apply(design, ops.Batch(tuple(steps)))
    assert design == before  # laid out again where it was: beside A01
    ops.apply(design, applied.inverse)


@pytest.mark.parametrize(
    "op",
    [
        ops.MoveRackOnFloor("nope", 0.0, 0.0, "south"),
        ops.MoveRackOnFloor("r-A01", 0.0, 0.0, "up"),
        ops.MoveRackOnFloor("r-A01", math.nan, 0.0, "south"),
        ops.MoveRackOnFloor("r-A01", 0.0, math.inf, "south"),
        ops.MoveRowOnFloor("nope", 0.0, 0.0),
        ops.MoveRowOnFloor("row0", math.nan, 0.0),
    ],
)
def test_bad_floor_edits_are_refused_and_change_nothing(op) -> None:
    design = laid_out()
    before = copy.deepcopy(design)
    with pytest.raises(EditError):
        ops.apply(design, op)
    assert design == before


def test_a_change_combines_its_floor_flag() -> None:
    assert (Change(racks=frozenset({"a"})) | Change(floor=True)).floor
    assert not (Change() | Change()).floor


def test_floor_positions_survive_save_and_open(tmp_path: Path) -> None:
    design = laid_out()
    design.find_rack("r-B02").facing = "west"
    path = tmp_path / "hall.dcwb"
    save_design(design, path)
    again = open_design(path)
    assert [(r.id, r.floor_x_mm, r.floor_y_mm, r.facing) for r in again.iter_racks()] == [
        (r.id, r.floor_x_mm, r.floor_y_mm, r.facing) for r in design.iter_racks()
    ]


def test_layout_of_some_racks_leaves_the_others_off_the_plan() -> None:
    design = laid_out()
    for rack_id in ("r-A02", "r-B02"):
        ops.apply(design, ops.MoveRackOnFloor(rack_id, None, None, "south"))
    assert fl.lay_out(design, ["r-B02"]) == ["r-B02"]
    assert fl.is_placed(design.find_rack("r-B02"))
    assert not fl.is_placed(design.find_rack("r-A02"))
    assert fl.lay_out(design, ["r-B02"]) == []
