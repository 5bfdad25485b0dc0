"""File ▸ New's hall, built without the window: rows of racks with the cooling, budget
and feeds asked for; an empty design's first row brings its site (one undo step)."""

from __future__ import annotations

import copy

import pytest

from workbench.catalog import load_catalog
from workbench.model import Design, hall_edits, ops
from workbench.model.errors import EditError
from workbench.model.index import index_problems
from workbench.templates.new_hall import HallSpec, new_hall


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def test_a_new_hall_has_the_rows_racks_cooling_and_feeds_asked_for(catalog):
    spec = HallSpec(
        site="Shanghai DC",
        hall="Hall 3",
        rows=2,
        racks_per_row=3,
        cooling="rear-door",
        cooling_limit_kw=40.0,
        breaker_a=63.0,
        voltage=400.0,
    )
    design = new_hall(spec, catalog)
    assert design.name == "Shanghai DC" and design.sites[0].name == "Hall 3"
    assert [[r.name for r in row.racks] for row in design.sites[0].rows] == [
        ["A01", "A02", "A03"],
        ["B01", "B02", "B03"],
    ]
    rack = design.sites[0].rows[1].racks[2]
    assert (rack.cooling, rack.cooling_limit_kw, rack.power_limit_kw) == ("rear-door", 40.0, 40.0)
    assert rack.feed("a") == rack.feed("b")
    assert (rack.feed("a").breaker_a, rack.feed("a").voltage) == (63.0, 400.0)
    assert index_problems(design) == []


def test_a_hall_too_big_is_refused_in_one_line(catalog):
    with pytest.raises(EditError, match="1 to 200 rows"):
        new_hall(HallSpec(rows=10_000), catalog)


def test_the_first_row_of_an_empty_design_brings_its_site_and_undo_takes_both(catalog):
    design = Design(name="Untitled design")
    before = copy.deepcopy(design)
    applied = ops.apply(
        design,
        hall_edits.add_row(design, catalog=catalog, rack_type="generic-rack-42u-air", count=2),
    )
    assert design.sites[0].name == "Hall 1"
    assert [r.name for r in design.sites[0].rows[0].racks] == ["A01", "A02"]
    assert index_problems(design) == []
    ops.apply(design, applied.inverse)
    assert design == before


def test_a_new_halls_racks_have_pdus_sized_to_their_budget(catalog):
    """Before: File ▸ New's racks had no PDU, so the first drop made RACK-PDU fire.
    Each rack now has A and B PDUs carrying its budget alone (planning.rack_pdus)."""
    from workbench.planning.rack_pdus import PDU_CONTINUOUS_SHARE, is_pdu, pdu_capacity_kw

    spec = HallSpec(site="DC", hall="Hall 1", rows=1, racks_per_row=2, cooling="rear-door",
                    cooling_limit_kw=40.0, breaker_a=63.0, voltage=400.0)  # fmt: skip
    design = new_hall(spec, catalog)
    for rack in design.iter_racks():
        found = [d for d in rack.devices if is_pdu(design, d)]
        by_side = {"a": 0.0, "b": 0.0}
        for device in found:
            cap = pdu_capacity_kw(design.device_types[device.device_type]) or 0.0
            by_side[device.name.rsplit("-", 1)[1][0]] += cap * PDU_CONTINUOUS_SHARE
        assert min(by_side.values()) >= rack.power_limit_kw, (rack.name, by_side)
    assert index_problems(design) == []
