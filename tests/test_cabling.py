"""Cable lengths and media, checked by hand on a small hall.

The hall (plan mm, x east, y south; 42U racks of 600 × 1200 mm, the shipped
``generic-rack-42u-air``; a footprint's corner is its front-left, see
``workbench/model/floor.py``):

* A1: facing south, corner (0, 1200) → footprint x 0–600, y 0–1200, centre (300, 600);
* A2: facing south beside it, corner (600, 1200) → centre (900, 600);
* B1: facing north across a 1,200 mm cold aisle, corner (600, 2400) → footprint
  x 0–600, y 2400–3600, centre (300, 3000);
* C1: facing south at the far end of the row, corner (40200, 1200) → centre (40500, 600);
* D1: facing south, corner (99700, 1200) → centre (100000, 600).

One U is 44.45 mm (EIA-310), so a 42U rack's top is 42 × 0.04445 = 1.8669 m, and a
device's ports are taken at its middle: an 8U DGX H100 at U1 at 4U = 0.1778 m, one at
U33 at 36U = 1.6002 m, a 1U switch at U41 at 40.5U = 1.800225 m and at U42 at 41.5U =
1.844675 m.  Slack: 10 % plus 0.25 m per end inside a rack, 0.5 m per end via the tray
(0.3 m above the rack tops).  Parts are the shipped catalog's (catalogs/cables,
catalogs/optics): 400G DAC 0.5-2 m, 400G AOC 3, 5, 7 and 10 m, 400G SR4 50 m, DR4 500 m,
FR4 2 km; Cat6a patch cables 1-30 m.  The QM9700's OSFP cages hold two ports each
(p1/p2 cage 1, p3/p4 cage 2 ...) and take one twin-port 2x400G module per cage.
"""

from __future__ import annotations

import copy

import pytest

from workbench.calc.cabling import cable_counts, measure_links, stocked_length
from workbench.calc.fabric.media import UNMEASURED, PartChooser, shipped_parts
from workbench.catalog import load_catalog
from workbench.model import floor
from workbench.model.design import Design, Device, Link, Network, Rack, Row, Site

RACK = "generic-rack-42u-air"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def _rack(rack_id: str, x: float | None, y: float | None, facing: str, *devices: Device) -> Rack:
    return Rack(
        rack_id, rack_id, RACK, devices=list(devices), floor_x_mm=x, floor_y_mm=y, facing=facing
    )


def hall(catalog) -> Design:
    """The hall of the module docstring, cabled (links l1..l10, see the tests)."""
    a1 = _rack(
        "A1",
        0,
        1200,
        "south",
        Device("gpu1", "gpu1", "nvidia-dgx-h100", 1),
        Device("gpu2", "gpu2", "nvidia-dgx-h100", 33),
        Device("mgmt1", "mgmt1", "generic-mgmt-48p-10g", 41),
        Device("leaf1", "leaf1", "nvidia-qm9700", 42),
    )
    a2 = _rack("A2", 600, 1200, "south", Device("spine1", "spine1", "nvidia-qm9700", 42))
    b1 = _rack("B1", 600, 2400, "north", Device("spine2", "spine2", "nvidia-qm9700", 42))
    c1 = _rack("C1", 40200, 1200, "south", Device("core1", "core1", "nvidia-qm9700", 42))
    d1 = _rack("D1", 99700, 1200, "south", Device("core2", "core2", "nvidia-qm9700", 42))
    e1 = _rack("E1", 0, 1200, "south", Device("far", "far", "nvidia-qm9700", 42))
    design = Design(
        sites=[
            Site("hall1", "Hall 1", [Row("A", "A", [a1, a2, c1, d1]), Row("B", "B", [b1])]),
            Site("hall2", "Hall 2", [Row("E", "E", [e1])]),
        ],
        networks=[Network("net-compute", "Compute", "compute")],
    )
    for slug in (RACK, "nvidia-dgx-h100", "generic-mgmt-48p-10g", "nvidia-qm9700"):
        design.device_types[slug] = catalog[slug]
    design.links = [
        Link("l1", "gpu1", "compute0", "leaf1", "p1"),
        Link("l2", "gpu2", "compute0", "leaf1", "p2"),
        Link("l3", "leaf1", "p3", "spine1", "p1"),
        Link("l4", "leaf1", "p4", "spine2", "p1"),
        Link("l5", "leaf1", "p5", "core1", "p1"),
        Link("l6", "leaf1", "p6", "core2", "p1"),
        Link("l7", "gpu1", "mgmt0", "mgmt1", "eth1"),
        Link("l8", "gpu2", "compute1", "leaf1", "p7", length_m=7.0),
        Link("l9", "gpu2", "compute2", "leaf1", "p8", cable_type="smf"),
        Link("l10", "leaf1", "p9", "far", "p1"),
    ]
    design.reindex()
    return design


def test_lengths_in_one_rack_across_the_row_and_across_the_hall(catalog):
    cables = measure_links(hall(catalog))
    # l1: gpu1 (0.1778) to leaf1 (1.844675) in A1: 1.666875 × 1.1 + 2 × 0.25 = 2.3335625,
    # stocked 2.5 m.  leaf1's p1 and p2 (l1, l2) share cage 1, one twin-port plug: on
    # copper an MCP7Y00 splitter DAC (800G OSFP to 2 × 400G OSFP), stocked at 2.5 m where
    # no single 400G DAC is (it was a 3 m AOC before the harnesses, and the 10 m AOC,
    # whatever the run, before issue 24).
    c = cables["l1"]
    assert c.raw_m == pytest.approx(2.3335625)
    assert (c.length_m, c.media, c.cable_slug, c.optic_slug) == (
        2.5,
        "dac",
        "dac-800g-osfp-2x400g-osfp-2p5m",
        None,
    )
    # l2: gpu2 (1.6002) to leaf1: 0.244475 × 1.1 + 0.5 = 0.7689225 → 1 m, the same cage's
    # harness (measured alone its lane needs the 1 m one; the cage buys the longer).
    c = cables["l2"]
    assert c.raw_m == pytest.approx(0.7689225)
    assert (c.length_m, c.media, c.cable_slug) == (1.0, "dac", "dac-800g-osfp-2x400g-osfp-1m")
    # l3: leaf1 (A1) to spine1 (A2), both at U42: up 1.8669 − 1.844675 + 0.3 = 0.322225 at
    # each end, 0.6 m along the tray: (0.64445 + 0.6) × 1.1 + 2 × 0.5 = 2.368895 → 2.5 m AOC.
    c = cables["l3"]
    assert c.raw_m == pytest.approx(2.368895)
    assert (c.length_m, c.media) == (2.5, "aoc")
    # l4: across the cold aisle to B1: 2.4 m along: (0.64445 + 2.4) × 1.1 + 1 = 4.348895 → 5.
    c = cables["l4"]
    assert c.raw_m == pytest.approx(4.348895)
    assert (c.length_m, c.media) == (5.0, "aoc")
    # l5: to C1, 40.2 m along: (40.84445) × 1.1 + 1 = 45.928895 → 50 m: past the AOC,
    # within the 50 m SR4: multimode.  Both ends are QM9700 cages: each end's cage takes
    # one twin-port 2xSR4 module (leaf1 p5 in cage 3, core1 p1 in cage 1), no 400G one.
    c = cables["l5"]
    assert c.raw_m == pytest.approx(45.928895)
    assert (c.length_m, c.media, c.cable_slug) == (50.0, "mmf", None)
    assert (c.optic_slug, c.optics) == ("optic-400g-osfp-sr4", 0)
    assert c.shared_optics == (
        ("leaf1", "cage 3", "optic-800g-osfp-2xsr4"),
        ("core1", "cage 1", "optic-800g-osfp-2xsr4"),
    )
    # l6: to D1, 99.7 m along: 100.34445 × 1.1 + 1 = 111.378895 → 150 m: single-mode,
    # twin-port 2xDR4 modules in both cages.
    c = cables["l6"]
    assert c.raw_m == pytest.approx(111.378895)
    assert (c.length_m, c.media, c.optic_slug, c.optics) == (150.0, "smf", "optic-400g-osfp-dr4", 0)
    assert [m for _d, _p, m in c.shared_optics] == ["optic-800g-osfp-2xdr4"] * 2


def test_twisted_pair_own_length_own_media_and_other_halls(catalog):
    cables = measure_links(hall(catalog))
    # l7: gpu1 mgmt0 (10GBASE-T) to mgmt1 at U41: 1.622425 × 1.1 + 0.5 = 2.2846675 → 2.5 m,
    # a Cat6a patch cord (10G, 100 m).
    c = cables["l7"]
    assert c.raw_m == pytest.approx(2.2846675)
    assert (c.length_m, c.media, c.cable_slug) == (2.5, "utp", "cat6a-3m")
    # l8 says 7 m: not measured, stocked 7 m, the 7 m AOC.
    c = cables["l8"]
    assert (c.raw_m, c.length_m, c.measured, c.media) == (7.0, 7.0, False, "aoc")
    assert c.cable_slug == "aoc-400g-osfp-7m"
    # l9 asks for single-mode on a 1 m run (0.7689225 raw): the shortest-reach SMF optic
    # at the DGX, a twin-port 2xDR4 in leaf1's cage 4.
    c = cables["l9"]
    assert (c.length_m, c.media, c.optic_slug, c.optics) == (1.0, "smf", "optic-400g-osfp-dr4", 1)
    assert c.shared_optics == (("leaf1", "cage 4", "optic-800g-osfp-2xdr4"),)
    # l10 ends in another hall: no length, the farthest-reaching part, and why; no
    # twin-port module reaches as far as the FR4, so both ends take an FR4.
    c = cables["l10"]
    assert (c.raw_m, c.length_m, c.media, c.optic_slug) == (
        None,
        None,
        "smf",
        "optic-400g-osfp-fr4",
    )
    assert c.reason == UNMEASURED


def test_counts_by_media_length_and_part(catalog):
    counts = cable_counts(hall(catalog))
    # From the two tests above: DAC l1, l2; AOC l3, l4, l8; MMF l5; SMF l6, l9, l10; UTP l7.
    assert counts.links == 10
    assert dict(counts.by_media) == {"dac": 2, "aoc": 3, "mmf": 1, "smf": 3, "utp": 1}
    assert counts.by_length[("aoc", 2.5)] == 1 and counts.by_length[("smf", None)] == 1
    assert dict(counts.parts) == {
        "dac-800g-osfp-2x400g-osfp-2p5m": 1,  # l1 and l2: one harness for cage 1
        "aoc-400g-osfp-3m": 1,  # l3
        "aoc-400g-osfp-5m": 1,  # l4
        "aoc-400g-osfp-7m": 1,  # l8
        "cat6a-3m": 1,
        "optic-800g-osfp-2xsr4": 2,  # l5: a twin-port module in each end's cage
        "optic-800g-osfp-2xdr4": 3,  # l6 both cages, l9 leaf1 cage 4
        "optic-400g-osfp-dr4": 1,  # l9 at the DGX
        "optic-400g-osfp-fr4": 2,  # l10
    }
    assert counts.optics == 8 and counts.problems == 1
    assert counts.to_json()["by_media"]["aoc"] == 3
    # Per plane: l7 is on no network but its gpu1 mgmt0 end names the management plane.
    assert cable_counts(hall(catalog), "management").links == 1


def test_breakout_ends_share_one_module_per_split_port(catalog):
    """An SN5600 800G port split 4 × 200G feeds two L40S nodes 20 m away: each link takes
    a 200G SR4 at the node, and the split port one 800G 2 × SR4 for both lanes."""
    leaf = Device("leaf", "leaf", "nvidia-sn5600", 40)
    nodes = [Device(f"n{i}", f"n{i}", "generic-pcie-4gpu-l40s", 1 + 2 * i) for i in range(2)]
    design = Design(
        sites=[
            Site(
                "s",
                "Hall",
                [
                    Row(
                        "r",
                        "A",
                        [
                            _rack("A1", 0, 1200, "south", leaf),
                            _rack("A2", 15000, 1200, "south", *nodes),
                        ],
                    )
                ],
            )
        ]
    )
    for slug in (RACK, "nvidia-sn5600", "generic-pcie-4gpu-l40s"):
        design.device_types[slug] = catalog[slug]
    design.links = [
        Link(f"l{i}", f"n{i}", "compute0", "leaf", f"swp1/{i + 1}", speed_gbps=200)
        for i in range(2)
    ]
    design.reindex()
    cables = measure_links(design)
    # Centres 15 m apart (300 → 15,300); the SN5600 (2U at U40) has its middle at 40U =
    # 1.778 m, so 1.8669 − 1.778 + 0.3 = 0.3889 m up; n0 (2U at U1, middle 0.04445 m)
    # 2.12245 m up, n1 (U3, 0.13335 m) 2.03355 m: (0.3889 + 2.12245 + 15) × 1.1 + 1 =
    # 20.262485 m and (0.3889 + 2.03355 + 15) × 1.1 + 1 = 20.164695 m, both 25 m stocked.
    assert cables["l0"].raw_m == pytest.approx(20.262485)
    assert cables["l1"].raw_m == pytest.approx(20.164695)
    for i in range(2):
        c = cables[f"l{i}"]
        assert c.length_m == 25.0
        # Past the 10 m AOC, within the 100 m 200G SR4 and the 50 m 800G 2 × SR4.
        assert (c.media, c.optic_slug, c.optics) == ("mmf", "optic-200g-qsfp56-sr4", 1)
        assert c.shared_optics == (("leaf", "swp1", "optic-800g-osfp-2xsr4"),)
    counts = cable_counts(design)
    assert counts.parts == {"optic-200g-qsfp56-sr4": 2, "optic-800g-osfp-2xsr4": 1}
    assert counts.optics == 3


def test_unplaced_racks_are_measured_where_the_plan_would_put_them(catalog):
    design = hall(catalog)
    for rack in design.iter_racks():
        rack.floor_x_mm = rack.floor_y_mm = None
    placed = copy.deepcopy(design)
    floor.lay_out(placed)
    placed.reindex()
    assert measure_links(design) == measure_links(placed)
    assert all(r.floor_x_mm is None for r in design.iter_racks())  # untouched


def test_stocked_lengths_round_up():
    assert [stocked_length(x) for x in (0.1, 0.5, 0.51, 2.0, 2.01, 480.0)] == [
        0.5,
        0.5,
        1.0,
        2.0,
        2.5,
        500.0,
    ]
    # Beyond the longest stocked length (500 m): cut to order in 100 m steps.
    assert stocked_length(512.0) == 600.0


def test_a_run_no_part_reaches_says_so():
    chooser = PartChooser(shipped_parts())
    # 25G: only an SR optic (100 m on OM4) in the catalog.
    choice = chooser.choose(25.0, 150.0, ("sfp28",))
    assert (choice.media, choice.optic_slug) == ("mmf", "optic-25g-sfp28-sr")
    assert choice.reason == "no 25G part reaches 150 m; the longest is optic-25g-sfp28-sr (100 m)"
    # No part at 1.6T at all: the media by typical reach, and why.
    choice = chooser.choose(1600.0, 2.0, ("osfp",))
    assert (choice.media, choice.cable_slug, choice.optic_slug) == ("dac", None, None)
    assert "no 1600G" in (choice.reason or "")


def test_measuring_an_unknown_link_names_it(catalog):
    with pytest.raises(KeyError, match="no link with id 'nope'"):
        measure_links(hall(catalog), ["nope"])


def test_cable_length_covers_the_run_or_is_quoted(catalog):
    """Before: a 5 m and a 7 m run got the 3 m Cat6a patch cable (its medium reaches
    100 m) with no mark.  Now the shortest stocked length that covers the run; past the
    longest stocked one, a cable of the run's length to be quoted."""
    design = hall(catalog)
    design.links = [
        Link(f"t{n}", "gpu1", "mgmt0", "mgmt1", f"eth{n}", length_m=float(n)) for n in (5, 7, 40)
    ]
    design.reindex()
    cables = measure_links(design)
    assert cables["t5"].cable_slug == "cat6a-5m" and cables["t7"].cable_slug == "cat6a-7m"
    assert (cables["t40"].cable_slug, cables["t40"].media) == (None, "utp")
    assert "to be quoted" in (cables["t40"].reason or "")
    counts = cable_counts(design)
    assert counts.to_quote == {("utp", 40.0): 1} and counts.problems == 0
    for cable in cables.values():
        if cable.cable_slug:
            assert catalog[cable.cable_slug].props["length_m"] >= cable.length_m


@pytest.mark.parametrize(("ports", "modules"), [(("p1", "p2"), 1), (("p1", "p3"), 2)])
def test_qm9700_cages_take_one_twin_port_module_for_two_ports(catalog, ports, modules):
    """Before: one 400G module per QM9700 port; its OSFP cages hold two NDR ports and
    take one twin-port 2x400G module (NVIDIA QM97XX user manual, Interfaces)."""
    design = hall(catalog)
    design.links = [
        Link(f"h{i}", "gpu1", f"compute{i}", "core1", port) for i, port in enumerate(ports)
    ]
    design.reindex()
    parts = cable_counts(design).parts
    assert parts["optic-800g-osfp-2xsr4"] == modules  # switch side, per cage
    assert parts["optic-400g-osfp-sr4"] == 2  # host side, one per ConnectX-7 port
    assert catalog["optic-800g-osfp-2xsr4"].part_number == "MMA4Z00-NS"


def test_cables_measured_in_chunks_equal_the_whole_measure(catalog):
    """The cable schedule streams its rows (issue 21: it held every link's cable, ~300
    MB at 100,000 GPUs): measured a few links at a time, each cable is the same."""
    from workbench.calc.cabling import iter_cables
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    whole = measure_links(design)
    chunked = list(iter_cables(design, design.links, chunk=97))
    assert [link.id for link, _c in chunked] == [link.id for link in design.links]
    assert all(cable == whole[link.id] for link, cable in chunked)


def test_a_copper_breakout_takes_one_splitter_harness_per_split_port(catalog):
    """An SN5600 800G port split 2 × 400G feeds two DGX H100 in its own rack: one NVIDIA
    MCP7Y00 splitter DAC (800G twin-port OSFP to 2 × 400G OSFP) for both lanes, not a
    400G DAC per lane; a whole 800G port to another SN5600 keeps a plain 800G DAC."""
    leaf = Device("leaf", "leaf", "nvidia-sn5600", 40)
    other = Device("spine", "spine", "nvidia-sn5600", 37)
    nodes = [Device(f"n{i}", f"n{i}", "nvidia-dgx-h100", 1 + 8 * i) for i in range(2)]
    design = Design(
        sites=[
            Site("s", "Hall", [Row("r", "A", [_rack("A1", 0, 1200, "south", leaf, other, *nodes)])])
        ]
    )
    for slug in (RACK, "nvidia-sn5600", "nvidia-dgx-h100"):
        design.device_types[slug] = catalog[slug]
    design.links = [
        Link(f"l{i}", f"n{i}", "compute0", "leaf", f"swp1/{i + 1}", speed_gbps=400)
        for i in range(2)
    ]
    design.links.append(Link("up", "leaf", "swp2", "spine", "swp2", speed_gbps=800))
    design.reindex()
    cables = measure_links(design)
    lanes = [cables[f"l{i}"] for i in range(2)]
    # Each lane, measured alone, names the harness its own run needs ...
    for lane in lanes:
        item = catalog[lane.cable_slug]
        assert item.part_number.startswith("MCP7Y00-")
        assert item.props["length_m"] >= lane.length_m
    # ... and the split port takes one, long enough for its longer lane.
    longest = max(lanes, key=lambda c: c.length_m)
    assert cables["up"].media == "dac"
    assert "breakout_lanes" not in catalog[cables["up"].cable_slug].props
    counts = cable_counts(design)
    assert counts.parts == {longest.cable_slug: 1, cables["up"].cable_slug: 1}
    assert counts.links == 3


def test_a_twin_port_cage_to_two_hosts_on_copper_takes_one_harness(catalog):
    """A QM9700's cage 1 holds ports p1 and p2 (one twin-port plug): cabled on copper to
    two DGX H100 in its rack, the cage takes one MCP7Y00 splitter DAC, not two cables."""
    leaf = Device("leaf", "leaf", "nvidia-qm9700", 40)
    nodes = [Device(f"n{i}", f"n{i}", "nvidia-dgx-h100", 1 + 8 * i) for i in range(2)]
    design = Design(
        sites=[Site("s", "Hall", [Row("r", "A", [_rack("A1", 0, 1200, "south", leaf, *nodes)])])]
    )
    for slug in (RACK, "nvidia-qm9700", "nvidia-dgx-h100"):
        design.device_types[slug] = catalog[slug]
    design.links = [
        Link(f"l{i}", f"n{i}", "compute0", "leaf", f"p{i + 1}", speed_gbps=400) for i in range(2)
    ]
    design.reindex()
    cables = measure_links(design)
    assert {c.media for c in cables.values()} == {"dac"}
    longest = max(cables.values(), key=lambda c: c.length_m)
    assert catalog[longest.cable_slug].part_number.startswith("MCP7Y00-")
    assert cable_counts(design).parts == {longest.cable_slug: 1}


def test_runs_measured_in_slices_equal_one_whole_pass(catalog, monkeypatch):
    """run_lengths measures a big fabric a slice at a time (issue 21: its temporaries
    held ~100 bytes a link at once); every run, and every count, is what one pass gives."""
    from workbench.calc import cabling
    from workbench.calc.fabric.tables import DeviceTable, link_arrays
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    devices = DeviceTable(design)
    arrays = link_arrays(devices, design.links)
    where = cabling.spots(design, devices)
    whole = cabling._run_lengths(where, arrays.a, arrays.b)
    counts = cable_counts(design).to_json()
    monkeypatch.setattr(cabling, "_RUN_SLICE", 37)
    assert len(design.links) > 3 * 37
    sliced = cabling.run_lengths(where, arrays.a, arrays.b)
    assert sliced.tobytes() == whole.tobytes()  # NaN where unmeasured, bit for bit
    assert cable_counts(design).to_json() == counts
