"""The ports module: NetBox interface types read as ports, the planes host ports serve,
breakout lanes, the compatibility of two ends, and the next free port.

Speeds and cages are those the NetBox interface type names spell out (``400gbase-x-osfp``
is 400GBASE-X in an OSFP cage; ``infiniband-ndr`` a 4x NDR port, 400 Gb/s, IBTA); the
catalog items are the shipped QM9700 (64 × NDR), SN5600 (64 × 800G OSFP), DGX H100
(compute0..7 400G OSFP, storage0..3 400G QSFP112, mgmt0 10GBASE-T, bmc 1000BASE-T
management-only) and the 48-port management switch (eth1..48 10GBASE-T, uplink1..4
100G QSFP28, mgmt0).
"""

from __future__ import annotations

import pytest

from workbench.catalog import load_catalog
from workbench.catalog.item import CatalogItem, Interface
from workbench.catalog.netbox import interface_speed_gbps
from workbench.model.design import Design, Device, Link, Rack, Row, Site
from workbench.model.ports import (
    breakout_ways,
    candidate_ports,
    device_port_names,
    end_problem,
    free_port,
    host_plane,
    lanes_in_use,
    link_problem,
    link_speed,
    port_kind,
    port_named,
    ports_of,
    split_lane,
)


def item(slug: str, kind: str, *interfaces: tuple[str, str], **props) -> CatalogItem:
    return CatalogItem(
        slug=slug,
        kind=kind,
        manufacturer="Test",
        model=slug,
        interfaces=tuple(Interface(n, t) for n, t in interfaces),
        props=props,
    )


SWITCH_400 = item("sw-400", "switch", *((f"p{n}", "400gbase-x-osfp") for n in range(1, 5)))
TOR_25 = item("tor-25", "switch", *((f"p{n}", "25gbase-x-sfp28") for n in range(1, 5)))
NO_SPLIT = item("no-split", "switch", ("p1", "400gbase-x-osfp"), breakout=[])


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


# -- reading interface types ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("netbox", "speed", "family", "cage", "twisted", "label"),
    [
        ("400gbase-x-osfp", 400, "ethernet", "osfp", False, "400G OSFP"),
        ("400GBASE-X-QSFP112", 400, "ethernet", "qsfp112", False, "400G QSFP112"),
        ("25gbase-x-sfp28", 25, "ethernet", "sfp28", False, "25G SFP28"),
        ("10gbase-x-sfpp", 10, "ethernet", "sfp+", False, "10G SFP+"),
        ("10gbase-t", 10, "ethernet", "rj45", True, "10G RJ45"),
        ("1000base-t", 1, "ethernet", "rj45", True, "1G RJ45"),
        ("100base-tx", 0.1, "ethernet", "rj45", True, "100M RJ45"),
        ("infiniband-ndr", 400, "infiniband", "osfp", False, "400G OSFP"),
        ("infiniband-hdr", 200, "infiniband", "qsfp56", False, "200G QSFP56"),
        ("infiniband-xdr", 800, "infiniband", "osfp", False, "800G OSFP"),
        ("infiniband-ndr-4x", 400, "infiniband", "osfp", False, "400G OSFP"),  # NetBox 4.4
        ("1.6tbase-x-osfp1600", 1600, "ethernet", "osfp1600", False, "1600G OSFP1600"),
        ("400gbase-x-osfp-rhs", 400, "ethernet", "osfp", False, "400G OSFP"),
        ("100gbase-sr4", 100, "ethernet", "", False, "100G"),
    ],
)
def test_interface_types_are_read_as_ports(netbox, speed, family, cage, twisted, label):
    kind = port_kind(netbox)
    assert kind is not None
    assert (kind.speed_gbps, kind.family, kind.cage, kind.twisted_pair) == (
        speed,
        family,
        cage,
        twisted,
    )
    assert kind.label == label


@pytest.mark.parametrize("netbox", ["virtual", "lag", "ieee802.11ac", "infiniband-qqq", ""])
def test_types_that_carry_nothing_we_plan_are_not_ports(netbox):
    assert port_kind(netbox) is None


def test_a_hosts_ports_serve_the_plane_their_names_say(catalog):
    planes = {p.name: p.plane for p in ports_of(catalog["nvidia-dgx-h100"])}
    assert planes["compute0"] == "compute" and planes["storage3"] == "storage"
    assert planes["mgmt0"] == "management" and planes["bmc"] == "oob"
    assert (host_plane("ib0", False), host_plane("eth0", False), host_plane("x", True)) == (
        "compute",
        None,
        "oob",
    )
    # A switch's data ports serve any fabric; its management port the out-of-band plane.
    switch = {p.name: p.plane for p in ports_of(catalog["nvidia-qm9700"])}
    assert switch["p1"] is None and switch["mgmt0"] == "oob"


def test_unknown_interface_types_are_left_out_of_the_ports():
    odd = item("odd", "server", ("compute0", "400gbase-x-osfp"), ("bond0", "lag"))
    assert [p.name for p in ports_of(odd)] == ["compute0"]


@pytest.mark.parametrize(
    ("name", "split"),
    [
        ("p1/2", ("p1", 2)),
        ("p1", ("p1", None)),
        ("eth1/1/3", ("eth1/1", 3)),
        ("/2", ("/2", None)),
        ("p1/x", ("p1/x", None)),
    ],
)
def test_breakout_lane_names(name, split):
    assert split_lane(name) == split


def test_a_lane_names_its_physical_port(catalog):
    sn = catalog["nvidia-sn5600"]
    port = port_named(sn, "swp7/3")
    assert port is not None and port.name == "swp7"
    assert port_named(sn, "swp99") is None


# -- breakout ---------------------------------------------------------------------------------


def test_which_ports_break_out(catalog):
    sn, dgx, mgmt = (
        catalog["nvidia-sn5600"],
        catalog["nvidia-dgx-h100"],
        catalog["generic-mgmt-48p-10g"],
    )
    assert breakout_ways(sn, port_named(sn, "swp1")) == (2, 4)  # 800G switch port
    assert breakout_ways(mgmt, port_named(mgmt, "uplink1")) == (2, 4)  # 100G: the floor
    assert breakout_ways(mgmt, port_named(mgmt, "eth1")) == ()  # twisted pair never
    assert breakout_ways(TOR_25, port_named(TOR_25, "p1")) == ()  # under 100G
    assert breakout_ways(dgx, port_named(dgx, "compute0")) == ()  # hosts never
    assert breakout_ways(NO_SPLIT, port_named(NO_SPLIT, "p1")) == ()  # the catalog says none


def test_a_lane_carries_the_port_speed_over_the_ways(catalog):
    sn = catalog["nvidia-sn5600"]
    assert end_problem(sn, "swp1/3", 200) is None  # 4 × 200G, lane 3 of 4
    assert end_problem(sn, "swp1/2", 400) is None  # 2 × 400G
    assert "not a 400G breakout lane" in (end_problem(sn, "swp1/3", 400) or "")  # 2 lanes only
    assert "not a 200G breakout lane" in (end_problem(sn, "swp1/0", 200) or "")
    assert "not a 300G breakout lane" in (end_problem(sn, "swp1/1", 300) or "")


def test_whole_ports_run_at_their_speed_a_half_or_a_quarter(catalog):
    sn = catalog["nvidia-sn5600"]
    assert [end_problem(sn, "swp1", s) is None for s in (800, 400, 200, 100)] == [
        True,
        True,
        True,
        False,
    ]
    assert end_problem(TOR_25, "p1", 100) == "p1 is a 25G SFP28 port, slower than 100G"
    mgmt = catalog["generic-mgmt-48p-10g"]
    assert end_problem(mgmt, "eth1", 1) is None  # BASE-T auto-negotiates down to 1G
    assert end_problem(mgmt, "eth1", 0.5) == "eth1 cannot run below 1G"


# -- two ends ---------------------------------------------------------------------------------


def test_a_400g_osfp_to_a_25g_sfp28_without_breakout_is_refused_with_the_reason(catalog):
    """The issue's example: the link would run at the slower 25G, which a 400G OSFP
    switch port can neither run at (400, 200 or 100G) nor break out into (2 × 200G,
    4 × 100G)."""
    assert link_speed(SWITCH_400, "p1", TOR_25, "p1") == 25
    assert link_problem(SWITCH_400, "p1", TOR_25, "p1") == (
        "p1 (400G OSFP) runs at 400G, 200G or 100G, or breaks out into 2 × 200G or "
        "4 × 100G, not 25G"
    )
    # A host's 400G OSFP (no breakout on a host adapter) is refused the same way.
    dgx = catalog["nvidia-dgx-h100"]
    assert link_problem(dgx, "compute0", TOR_25, "p1") == (
        "compute0 (400G OSFP) runs at 400G, 200G or 100G, not 25G"
    )


def test_with_a_breakout_a_fast_port_meets_slower_ones(catalog):
    mgmt = catalog["generic-mgmt-48p-10g"]
    # 100G QSFP28 uplink split 4 × 25G: lane 2 to a 25G SFP28.
    assert link_problem(mgmt, "uplink1/2", TOR_25, "p1", 25) is None
    # An 800G SN5600 port split 4 × 200G to a DGX A100's 200G QSFP56 compute port.
    assert (
        link_problem(
            catalog["nvidia-sn5600"], "swp1/4", catalog["nvidia-dgx-a100"], "compute0", 200
        )
        is None
    )


def test_cages_media_and_protocol_families(catalog):
    dgx, sn, qm = catalog["nvidia-dgx-h100"], catalog["nvidia-sn5600"], catalog["nvidia-qm9700"]
    assert link_problem(dgx, "mgmt0", sn, "swp1") == (
        "mgmt0 is twisted pair (10G RJ45) and swp1 is a 800G OSFP cage: no cable joins them"
    )
    assert "different protocols" in (link_problem(qm, "p1", sn, "swp1", 400) or "")
    # A ConnectX adapter speaks either protocol: Ethernet-named host ports to an IB switch.
    assert link_problem(dgx, "compute0", qm, "p1") is None
    # An OSFP to a QSFP112 at the same speed is a cable with two different ends.
    assert link_problem(dgx, "storage0", sn, "swp2", 400) is None
    assert link_problem(dgx, "nope", qm, "p1") == "NVIDIA DGX H100 has no port 'nope'"
    assert link_problem(sn, "swp1/1", sn, "swp2/1") == "give the speed of a link on a breakout lane"


# -- ports in use and the next free one -------------------------------------------------------


def test_lanes_in_use_and_the_names_of_a_devices_link_ends(catalog):
    used = lanes_in_use(["p1", "p2/1", "p2/3", "p1"])
    assert dict(used) == {"p1": {None}, "p2": {1, 3}}
    design = Design(
        sites=[
            Site(
                "s",
                "S",
                [
                    Row(
                        "r",
                        "R",
                        [
                            Rack(
                                "k",
                                "K",
                                "rack",
                                devices=[Device("d", "d", "x"), Device("e", "e", "x")],
                            )
                        ],
                    )
                ],
            )
        ],
        links=[Link("l1", "d", "p1", "e", "p1"), Link("l2", "d", "p1", "d", "p2")],
    )
    # p1 twice (two links), and both ends of the loop l2.
    assert sorted(device_port_names(design, "d")) == ["p1", "p1", "p2"]


def test_candidate_ports_per_plane(catalog):
    dgx, qm = catalog["nvidia-dgx-h100"], catalog["nvidia-qm9700"]
    assert [p.name for p in candidate_ports(dgx, "storage", as_host=True)] == [
        f"storage{i}" for i in range(4)
    ]
    assert len(candidate_ports(qm, "compute", as_host=False)) == 64  # data ports, not mgmt0
    assert [p.name for p in candidate_ports(qm, "oob", as_host=True)] == ["mgmt0"]
    assert candidate_ports(qm, "compute", as_host=True) == []


def test_free_port_prefers_exact_ports_then_lanes_then_slower_ports(catalog):
    sn, dgx = catalog["nvidia-sn5600"], catalog["nvidia-dgx-h100"]
    assert free_port(sn, {}, speed=800) == "swp1"
    # No 200G whole port: a fresh 4-way split, then the next lane of it, then a new port.
    assert free_port(sn, {}, speed=200) == "swp1/1"
    assert free_port(sn, lanes_in_use(["swp1/1"]), speed=200) == "swp1/2"
    full = lanes_in_use(["swp1/1", "swp1/2", "swp1/3", "swp1/4"])
    assert free_port(sn, full, speed=200) == "swp2/1"
    # Without breakout: a whole 800G port run at a quarter of its speed.
    assert free_port(sn, {}, speed=200, breakout=False) == "swp1"
    assert free_port(sn, lanes_in_use(["swp1"]), speed=800) == "swp2"
    # A host offers the ports of the plane asked, and none once they are all used.
    assert free_port(dgx, {}, speed=400, plane="compute", as_host=True) == "compute0"
    taken = lanes_in_use([f"compute{i}" for i in range(8)])
    assert free_port(dgx, taken, speed=400, plane="compute", as_host=True) is None


def test_free_port_does_not_mix_two_splits_on_one_port(catalog):
    sn = catalog["nvidia-sn5600"]
    # swp1/1 runs at 400G: swp1 is split 2 ways, so a 200G link must go elsewhere.
    assert free_port(sn, lanes_in_use([("swp1/1", 400.0)], sn), speed=200) == "swp2/1"
    # Split 4 ways (200G lanes), it offers its next 200G lane and no 400G lane.
    four = lanes_in_use([("swp1/1", 200.0)], sn)
    assert free_port(sn, four, speed=200) == "swp1/2"
    assert free_port(sn, four, speed=400) == "swp2/1"
    # A lane number beyond a split's ways says the same without speeds.
    assert free_port(sn, lanes_in_use(["swp1/3"]), speed=400) == "swp2/1"


@pytest.mark.parametrize(
    "netbox",
    ["1.6tbase-x-osfp1600", "1.6tbase-cr8", "800gbase-x-osfp", "400gbase-x-qsfp112",
     "25gbase-x-sfp28", "1000base-t", "100base-tx", "infiniband-hdr", "infiniband-xdr-4x",
     "9999999gbase-x-sfp", "99999999999999999999gbase-x", "virtual", "1000base-bx10-d"],
)  # fmt: skip
def test_ports_and_the_catalog_read_a_types_speed_alike(netbox):
    """Issue 19: model.ports and catalog.netbox read line rates apart (1.6T: None in
    one, 1600 in the other; only one capped absurd digits).  One reading now."""
    kind = port_kind(netbox)
    speed = interface_speed_gbps(netbox)
    assert (kind.speed_gbps if kind else None) == speed
    assert speed is None or speed < 10_000_000  # a stranger's digits stay bounded


def test_ports_of_follows_the_item_kind_when_two_items_share_their_interfaces(catalog):
    """ports_of remembers ports by the interfaces' identity: a switch and a server built
    on one tuple of interfaces still get their own planes."""
    from dataclasses import replace

    server = catalog["nvidia-dgx-h100"]
    switch = replace(server, slug="test-switch", kind="switch")
    assert switch.interfaces is server.interfaces
    server_planes = {p.name: p.plane for p in ports_of(server)}
    assert server_planes["compute0"] == "compute" and server_planes["bmc"] == "oob"
    switch_planes = {p.name: p.plane for p in ports_of(switch)}
    assert switch_planes["compute0"] is None and switch_planes["bmc"] == "oob"
    assert {p.name: p.plane for p in ports_of(server)} == server_planes
