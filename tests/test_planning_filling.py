"""Placement helpers: fill a rack with N × a model, spread K over racks, name devices.

Qt-free, on the shipped catalog: DGX H100 is 8U and 10.2 kW; generic-rack-42u-air is
cooled to 12 kW, generic-rack-48u-rdhx to 50 kW (rear-door heat exchanger).
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from workbench.calc.summary import rack_load
from workbench.catalog import load_catalog
from workbench.model import Design, Device, Rack, Row, Site, ops, requests
from workbench.model.errors import EditError
from workbench.model.index import index_problems
from workbench.model.placement import clashes
from workbench.planning import filling
from workbench.rules.budgets import rack_budgets

DGX = "nvidia-dgx-h100"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def rdhx(rack_id: str = "r1", name: str = "R01", **fields) -> Rack:
    """A 48U rack with a rear-door heat exchanger and a 50 kW power budget."""
    return Rack(
        rack_id, name, "generic-rack-48u-rdhx", cooling="rear-door", power_limit_kw=50.0, **fields
    )


def air(rack_id: str = "r1", name: str = "R01", **fields) -> Rack:
    """A 42U air-cooled rack (12 kW cooling, the default 12 kW power budget)."""
    return Rack(rack_id, name, "generic-rack-42u-air", **fields)


def design_of(catalog, *racks: Rack, extra: tuple[str, ...] = ()) -> Design:
    design = Design(sites=[Site("s", "Hall", [Row("w", "Row A", list(racks))])])
    slugs = {r.rack_type for r in racks} | set(extra)
    design.device_types = {slug: catalog[slug] for slug in slugs}
    return design


def positions(design: Design, rack_id: str, slug: str | None = None) -> list[int | None]:
    rack = design.find_rack(rack_id)
    assert rack is not None
    return sorted(
        (d.position for d in rack.devices if slug is None or d.device_type == slug),
        key=lambda u: u or 0,
    )


def budgets_of(design: Design, rack_id: str):
    rack = design.find_rack(rack_id)
    assert rack is not None
    return rack_budgets(design, rack, rack_load(design, rack))


# -- fill one rack ----------------------------------------------------------------------


def test_a_50_kw_rack_takes_four_dgx_h100_and_says_why_not_the_fifth(catalog):
    design = design_of(catalog, rdhx())
    start = copy.deepcopy(design)
    plan = filling.fill_rack(design, catalog, "r1", DGX, 10)
    report = plan.report
    assert len(report.placed) == 4 and report.missing == 6 and report.requested == 10
    assert [p.position for p in report.placed] == [1, 9, 17, 25]  # heavy equipment low
    assert design == start  # planning changes nothing
    (stop,) = report.stops
    assert stop.rack_id == "r1" and not stop.room
    assert set(stop.budgets) == {"power", "cooling"}
    assert "cooling limit (51.0 kW of 50.0 kW)" in stop.reason
    assert "power budget (51.0 kW of 50.0 kW)" in stop.reason
    assert stop.left_empty == (range(33, 49),)
    assert "U33–U48 stay empty: fit blanking panels" in stop.message
    assert "6 did not fit" in report.summary() and "51.0 kW of 50.0 kW" in report.summary()

    ops.apply(design, plan.batch)
    assert positions(design, "r1") == [1, 9, 17, 25]
    assert rack_load(design, design.find_rack("r1")).kw_max == pytest.approx(40.8)
    assert budgets_of(design, "r1").over() == []
    assert index_problems(design) == [] and clashes(design, design.find_rack("r1")) == []


def test_a_12_kw_air_rack_takes_one(catalog):
    design = design_of(catalog, air())
    report = filling.fill_rack(design, catalog, "r1", DGX, 10).report
    assert [p.position for p in report.placed] == [1]
    assert report.missing == 9
    assert "cooling limit (20.4 kW of 12.0 kW)" in report.stops[0].reason


def test_switches_go_in_from_the_top_and_servers_from_the_bottom(catalog):
    design = design_of(catalog, rdhx())
    plan = filling.fill_rack(design, catalog, "r1", "nvidia-qm9700", 3)
    assert [p.position for p in plan.report.placed] == [48, 47, 46]
    ops.apply(design, plan.batch)
    plan = filling.fill_rack(design, catalog, "r1", "nvidia-sn5600", 2)  # 2U each
    assert [p.position for p in plan.report.placed] == [44, 42]
    ops.apply(design, plan.batch)
    servers = filling.fill_rack(design, catalog, "r1", DGX, 1).report.placed
    assert [p.position for p in servers] == [1]
    # The direction can be chosen: a switch at the bottom on request.
    low = filling.fill_rack(design, catalog, "r1", "nvidia-qm9700", 1, top_down=False)
    assert [p.position for p in low.report.placed] == [1]


def test_an_occupied_rack_is_filled_around_its_devices(catalog):
    rack = rdhx(devices=[Device("d1", "old-1", DGX, 5), Device("s1", "mgmt", "nvidia-qm9700", 30)])
    design = design_of(catalog, rack, extra=(DGX, "nvidia-qm9700"))
    plan = filling.fill_rack(design, catalog, "r1", DGX, 10)
    # U1–U4 cannot hold 8U; U13 is the lowest start above the old server, U30 is taken.
    assert "the largest free run" not in plan.report.stops[0].reason  # a budget stop
    assert [p.position for p in plan.report.placed] == [13, 21, 31]
    ops.apply(design, plan.batch)
    assert clashes(design, design.find_rack("r1")) == []
    assert budgets_of(design, "r1").over() == []
    # 10.2 × 4 + 1.2 = 42.0 kW now; a fifth server would be 52.2 kW.
    assert "52.2 kW of 50.0 kW" in plan.report.stops[0].reason


def test_a_full_rack_reports_the_room_left(catalog):
    design = design_of(catalog, rdhx())
    report = filling.fill_rack(design, catalog, "r1", "generic-mgmt-48p-10g", 60).report
    assert len(report.placed) == 48  # 48 × 0.35 kW = 16.8 kW: room runs out first
    (stop,) = report.stops
    assert stop.room and stop.budgets == ()
    assert stop.reason.startswith("no free unit (front and rear) for another Generic 48-port")
    assert "it has no free unit" in stop.reason and stop.left_empty == ()


def test_the_weight_rating_stops_a_fill(catalog):
    design = design_of(catalog, rdhx(max_weight_kg=500.0))
    report = filling.fill_rack(design, catalog, "r1", "generic-hdd-enclosure-84", 20).report
    assert len(report.placed) == 3  # 3 × 130 kg = 390 kg; the 4th would be 520 kg
    assert report.stops[0].budgets == ("weight",)
    assert "weight rating (520 kg of 500 kg)" in report.stops[0].reason


def test_the_failover_feed_stops_a_fill(catalog):
    # Two 230 V 32 A single-phase feeds: 5.9 kW each continuous.  One server (10.2 kW)
    # splits 5.1 kW per feed in normal running, but one feed alone cannot carry it.
    feeds = {f"feed_{s}_{k}": v for s in "ab" for k, v in (("voltage", 230.0), ("phases", 1))}
    feeds |= {"feed_a_breaker_a": 32.0, "feed_b_breaker_a": 32.0}
    design = design_of(catalog, rdhx(**feeds))
    report = filling.fill_rack(design, catalog, "r1", DGX, 2).report
    assert report.placed == ()
    assert report.stops[0].budgets == ("failover",)
    assert "failover feed (one feed carrying the whole rack: 10.2 kW of 5.9 kW)" in (
        report.stops[0].reason
    )


def test_a_rack_already_over_takes_nothing_that_adds_to_it(catalog):
    rack = air(devices=[Device("d1", "old-1", DGX, 1), Device("d2", "old-2", DGX, 9)])
    design = design_of(catalog, rack, extra=(DGX,))
    report = filling.fill_rack(design, catalog, "r1", DGX, 1).report
    assert report.placed == ()
    assert "cooling limit, already over (30.6 kW of 12.0 kW)" in report.stops[0].reason


def test_undoing_a_fill_restores_the_design_exactly(catalog):
    design = design_of(catalog, rdhx())  # the server and its GPU are not in the snapshot yet
    start = copy.deepcopy(design)
    plan = filling.fill_rack(design, catalog, "r1", DGX, 10)
    kinds = [type(op).__name__ for op in plan.batch.ops]
    assert kinds == ["AddDeviceType", "AddDeviceType"] + ["AddDevice"] * 4
    applied = ops.apply(design, plan.batch)
    assert design != start and index_problems(design) == []
    ops.apply(design, applied.inverse)
    assert design == start and index_problems(design) == []


def test_bad_requests_say_why(catalog):
    design = design_of(catalog, rdhx())
    with pytest.raises(EditError, match="No rack with id 'nope'"):
        filling.fill_rack(design, catalog, "nope", DGX, 1)
    with pytest.raises(EditError, match="The catalog has no item 'no-such'"):
        filling.fill_rack(design, catalog, "r1", "no-such", 1)
    with pytest.raises(EditError, match="is a gpu, not something mounted in a rack"):
        filling.fill_rack(design, catalog, "r1", "nvidia-h100-sxm5-80gb", 1)
    with pytest.raises(EditError, match="not -1"):
        filling.fill_rack(design, catalog, "r1", DGX, -1)
    nothing = filling.fill_rack(design, catalog, "r1", DGX, 0)
    assert nothing.batch.ops == () and nothing.report.missing == 0


def test_zero_u_items_go_to_the_side_strip(catalog):
    design = design_of(catalog, rdhx())
    plan = filling.fill_rack(design, catalog, "r1", "generic-pdu-3ph-415v-32a", 2)
    assert [p.position for p in plan.report.placed] == [None, None]
    ops.apply(design, plan.batch)
    assert [d.name for d in design.find_rack("r1").devices] == ["pdu-R01-u0", "pdu-R01-u0-2"]
    more = filling.fill_rack(design, catalog, "r1", "generic-pdu-3ph-415v-63a", 9).report
    assert len(more.placed) == filling.ZERO_U_PER_RACK - 2
    assert more.stops[0].room and "0U strip already holds 4 devices" in more.stops[0].reason


# -- spread over racks ------------------------------------------------------------------


def test_ten_servers_spread_evenly_over_three_racks(catalog):
    design = design_of(catalog, rdhx("r1", "R01"), rdhx("r2", "R02"), rdhx("r3", "R03"))
    start = copy.deepcopy(design)
    plan = filling.place_across(design, catalog, ["r1", "r2", "r3"], DGX, 10)
    report = plan.report
    assert report.missing == 0 and report.stops == ()
    assert Counter(p.rack_id for p in report.placed) == {"r1": 4, "r2": 3, "r3": 3}
    # Round robin over equal racks: R01, R02, R03, R01 ...
    assert [p.rack_id for p in report.placed[:4]] == ["r1", "r2", "r3", "r1"]
    applied = ops.apply(design, plan.batch)
    for rack_id in ("r1", "r2", "r3"):
        assert budgets_of(design, rack_id).over() == []
    assert positions(design, "r2") == [1, 9, 17]
    ops.apply(design, applied.inverse)
    assert design == start


def test_what_does_not_fit_across_racks_is_reported_per_rack(catalog):
    racks = [rdhx("r1", "R01"), air("r2", "A01"), rdhx("r3", "R03")]
    design = design_of(catalog, *racks)
    report = filling.place_across(design, catalog, ["r1", "r2", "r3"], DGX, 12).report
    assert Counter(p.rack_id for p in report.placed) == {"r1": 4, "r2": 1, "r3": 4}
    assert report.missing == 3
    by_rack = {s.rack_id: s for s in report.stops}
    assert set(by_rack) == {"r1", "r2", "r3"}
    assert "20.4 kW of 12.0 kW" in by_rack["r2"].reason
    assert "51.0 kW of 50.0 kW" in by_rack["r1"].reason
    assert "A01:" in report.details() and "3 did not fit" in report.details()


def test_the_least_loaded_rack_gets_the_next_server(catalog):
    busy = rdhx("r1", "R01", devices=[Device("d1", "old-1", DGX, 1), Device("d2", "old-2", DGX, 9)])
    design = design_of(catalog, busy, rdhx("r2", "R02"), extra=(DGX,))
    report = filling.place_across(design, catalog, ["r1", "r2"], DGX, 3).report
    # R02 is empty: it takes two before R01 (already at 20.4 kW) gets the third.
    assert [p.rack_id for p in report.placed] == ["r2", "r2", "r1"]


def test_a_selection_names_racks_rows_and_sites(catalog):
    design = design_of(catalog, rdhx("r1", "R01"), rdhx("r2", "R02"))
    assert filling.racks_in(design, ["r2", "w", "nope"]) == ["r2", "r1"]
    assert filling.racks_in(design, ["s"]) == ["r1", "r2"]
    with pytest.raises(EditError, match="at least one rack"):
        filling.place_across(design, catalog, [], DGX, 1)


# -- names ------------------------------------------------------------------------------


def test_names_follow_the_design_pattern_and_stay_unique(catalog):
    design = design_of(catalog, rdhx())
    item, rack = catalog[DGX], design.find_rack("r1")
    assert requests.device_name(design, item, rack, 9) == "gpu-server-R01-u9"
    assert requests.device_name(design, item, rack, 9, {"gpu-server-R01-u9"}) == (
        "gpu-server-R01-u9-2"
    )
    design.properties["device_name_pattern"] = "{model}-{n:03d}"
    assert requests.device_name(design, item, rack, 9, {"dgx-h100-001"}) == "dgx-h100-002"
    design.properties["device_name_pattern"] = "{slug}@{rack}/{u}"
    assert requests.device_name(design, item, rack, None) == "nvidia-dgx-h100@R01/0"
    plan = filling.fill_rack(design, catalog, "r1", "nvidia-qm9700", 2)
    assert [p.name for p in plan.report.placed] == ["nvidia-qm9700@R01/48", "nvidia-qm9700@R01/47"]


@pytest.mark.parametrize("pattern", ["{oops}", "{role", "{rack.name}", "{u:s}", "", "{0}"])
def test_an_unusable_pattern_falls_back_to_the_default(catalog, pattern):
    design = design_of(catalog, rdhx())
    design.properties["device_name_pattern"] = pattern
    if pattern:
        assert requests.name_pattern_problem(pattern) is not None
    assert requests.name_pattern(design) == requests.DEFAULT_NAME_PATTERN
    name = requests.device_name(design, catalog[DGX], design.find_rack("r1"), 1)
    assert name == "gpu-server-R01-u1"


def test_a_fill_and_a_drop_name_devices_the_same_way(catalog):
    design = design_of(catalog, rdhx())
    ops.apply(design, requests.place_new(design, catalog, "r1", DGX, 1))
    plan = filling.fill_rack(design, catalog, "r1", DGX, 1)
    assert plan.report.placed[0].name == "gpu-server-R01-u9"
    dropped = requests.place_new(design, catalog, "r1", "nvidia-qm9700", 48).ops[-1]
    assert isinstance(dropped, ops.AddDevice)
    assert dropped.device.name == "compute-switch-R01-u48"
