"""Fabric analytics checked by hand on small fabrics: tiers, oversubscription, bisection,
hop counts, ports with breakout, hosts, failures and MTU.

The switches and servers are the shipped catalog's: the NVIDIA QM9700 (64 × 400G NDR
ports p1..p64, QM97X0 user manual) and the DGX H100 (compute0..7 400G OSFP, DGX H100
user guide).  Every expected figure is worked out in the comment beside it.
"""

from __future__ import annotations

import pytest

from workbench.calc.errors import InputError
from workbench.calc.fabric import analysis as fabric_analysis
from workbench.calc.fabric.analysis import (
    analyse_plane,
    fabric_report,
    mtu_problems,
)
from workbench.calc.fabric.failure import failure_impact
from workbench.calc.fabric.graph import CollapsedGraph, plane_graph
from workbench.catalog import load_catalog
from workbench.catalog.item import CatalogItem, Interface
from workbench.model.design import Design, Device, Link, Network, Rack, Row, Site


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


class Fabric:
    """A design being cabled by hand: devices in one rack each, links on one network."""

    def __init__(self, catalog, network: Network | None = None):
        self.catalog = catalog
        self.design = Design(name="test fabric")
        self.site = Site("site", "Hall")
        self.row = Row("row", "A")
        self.site.rows.append(self.row)
        self.design.sites.append(self.site)
        self.network = network or Network("net-compute", "Compute", "compute")
        self.design.networks.append(self.network)
        self.design.device_types["generic-rack-48u-air"] = catalog["generic-rack-48u-air"]

    def device(self, name: str, slug: str | CatalogItem) -> str:
        item = slug if isinstance(slug, CatalogItem) else self.catalog[slug]
        self.design.device_types[item.slug] = item
        rack = Rack(f"r-{name}", f"R-{name}", "generic-rack-48u-air")
        rack.devices.append(Device(name, name, item.slug, 1))
        self.row.racks.append(rack)
        return name

    def link(self, a: str, a_port: str, b: str, b_port: str, speed: float | None = None) -> None:
        n = len(self.design.links) + 1
        self.design.links.append(
            Link(f"l{n}", a, a_port, b, b_port, self.network.id, speed_gbps=speed)
        )

    def done(self) -> Design:
        self.design.reindex()
        return self.design


def two_tier(catalog, *, extra_uncabled: bool = False, dual_homed: bool = False) -> Design:
    """2 spines, 4 leaves, 8 DGX H100 (2 per leaf), all QM9700 at 400G.

    Leaf Lk: hosts on p1, p2; p3 up to S1, p4 up to S2.  Spine Sj: p1..p4 down to L1..L4.
    ``dual_homed``: each host also cables compute1 to the next leaf's p5/p6.
    """
    f = Fabric(catalog)
    spines = [f.device(f"S{j}", "nvidia-qm9700") for j in (1, 2)]
    leaves = [f.device(f"L{k}", "nvidia-qm9700") for k in (1, 2, 3, 4)]
    for k, leaf in enumerate(leaves):
        for slot in (0, 1):
            host = f.device(f"H{2 * k + slot + 1}", "nvidia-dgx-h100")
            f.link(host, "compute0", leaf, f"p{slot + 1}")
            if dual_homed:
                f.link(host, "compute1", leaves[(k + 1) % 4], f"p{slot + 5}")
        for j, spine in enumerate(spines):
            f.link(leaf, f"p{3 + j}", spine, f"p{k + 1}")
    if extra_uncabled:
        f.device("H9", "nvidia-dgx-h100")
    return f.done()


# -- tiers, oversubscription, bisection, hops -------------------------------------------------


def test_a_two_tier_fabric_by_hand(catalog):
    report = analyse_plane(two_tier(catalog), "compute")
    # 4 leaves (cabled to hosts), 2 spines (cabled to leaves only): 2 tiers.
    assert (report.depth, report.switches(1), report.switches(2), report.switches(3)) == (
        2,
        4,
        2,
        0,
    )
    assert report.hosts == 8
    # 8 host links + 4 leaves × 2 uplinks.
    assert report.links == 16 and report.links_by_layer == {1: 8, 2: 8}
    # Each leaf: 2 × 400G down, 2 × 400G up → 800 / 800 = 1:1.  The spines are the top.
    leaf, spine = report.tiers
    assert (leaf.down_gbps, leaf.up_gbps, leaf.ratio, leaf.worst_ratio) == (3200, 3200, 1.0, 1.0)
    assert spine.ratio is None and spine.down_gbps == 3200
    assert report.oversubscription == {"leaf": 1.0}
    # Bisection: half of min(hosts 8 × 400G = 3.2T, leaf uplinks 8 × 400G = 3.2T) = 1.6T.
    assert report.bisection_tbps == pytest.approx(1.6)
    # Host on L1 to host on L2: L1, a spine, L2 = 3 switches = 2 × depth − 1, exact.
    assert (report.hops.hops, report.hops.exact, report.hops.islands) == (3, True, 1)


def test_the_domain_brief_leaf_32x200_down_16x400_up_is_one_to_one(catalog):
    """Domain brief §3: "leaf with 32×200G down and 16×400G up ≈ 1:1" — 6,400 / 6,400.
    With 8 uplinks instead the same leaf is 6,400 / 3,200 = 2:1."""
    hdr_node = CatalogItem(
        slug="hdr-node",
        kind="server",
        manufacturer="Test",
        model="HDR node",
        u_height=2,
        gpu_count=8,
        interfaces=(Interface("compute0", "infiniband-hdr"),),  # 200G
    )
    for uplinks, ratio in ((16, 1.0), (8, 2.0)):
        f = Fabric(catalog)
        leaf = f.device("leaf", "nvidia-qm9700")
        for n in range(32):
            # The QM9700's 400G port runs the link at the host's 200G (ports.link_speed).
            f.link(f.device(f"h{n}", hdr_node), "compute0", leaf, f"p{n + 1}")
        for u in range(uplinks):
            f.link(leaf, f"p{33 + u}", f.device(f"s{u}", "nvidia-qm9700"), "p1")
        report = analyse_plane(f.done(), "compute")
        (leaf_tier, _spines) = report.tiers
        assert (leaf_tier.down_gbps, leaf_tier.up_gbps) == (6400, 400 * uplinks)
        assert report.oversubscription == {"leaf": ratio}
        # Bisection: half the smaller of 6.4T of hosts and the leaf's uplinks.
        assert report.bisection_tbps == pytest.approx(min(6.4, 0.4 * uplinks) / 2)


def test_hop_count_is_exact_on_a_fabric_that_is_not_a_clos(catalog):
    """L1 – S1 – L2 – S2 – L3: a host on L1 reaches one on L3 through 5 switches, more than
    the closed form's 2 × 2 − 1 = 3, and the exact count says so."""
    f = Fabric(catalog)
    leaves = [f.device(f"L{k}", "nvidia-qm9700") for k in (1, 2, 3)]
    s1, s2 = f.device("S1", "nvidia-qm9700"), f.device("S2", "nvidia-qm9700")
    for k, leaf in enumerate(leaves):
        f.link(f.device(f"H{k}", "nvidia-dgx-h100"), "compute0", leaf, "p1")
    f.link(leaves[0], "p2", s1, "p1")
    f.link(leaves[1], "p2", s1, "p2")
    f.link(leaves[1], "p3", s2, "p1")
    f.link(leaves[2], "p2", s2, "p2")
    report = analyse_plane(f.done(), "compute")
    assert report.depth == 2
    assert (report.hops.hops, report.hops.exact) == (5, True)


def two_islands(catalog, peer_link: bool = False) -> Design:
    """Two leaves of two hosts each, no spine; ``peer_link`` joins the leaves."""
    f = Fabric(catalog)
    for k in (1, 2):
        leaf = f.device(f"L{k}", "nvidia-qm9700")
        for n in (1, 2):
            f.link(f.device(f"H{k}{n}", "nvidia-dgx-h100"), "compute0", leaf, f"p{n}")
    if peer_link:
        f.link("L1", "p64", "L2", "p64")
    return f.done()


def test_two_islands_have_no_hop_count(catalog):
    report = analyse_plane(two_islands(catalog), "compute")
    assert (report.hops.hops, report.hops.islands) == (None, 2)
    # A single switch tier: the leaves are the top, so no oversubscription figure.
    assert report.oversubscription == {} and report.depth == 1
    # A peer link between the leaves joins them: H11 – L1 – L2 – H21 is 2 switches.
    joined = analyse_plane(two_islands(catalog, peer_link=True), "compute")
    assert (joined.hops.hops, joined.hops.islands) == (2, 1)


@pytest.mark.parametrize("build", ["two_tier", "two_islands", "joined", "dual"])
def test_islands_in_numpy_agree_with_networkx(catalog, build):
    design = {
        "two_tier": lambda: two_tier(catalog),
        "two_islands": lambda: two_islands(catalog),
        "joined": lambda: two_islands(catalog, peer_link=True),
        "dual": lambda: two_tier(catalog, dual_homed=True),
    }[build]()
    graph = plane_graph(design, "compute")
    assert graph.islands() == len(CollapsedGraph(graph).islands())


def test_large_fabrics_take_the_closed_form_hop_count(catalog, monkeypatch):
    """Past the exact budget: 2 × depth − 1 for a plane in one piece, None for islands."""
    monkeypatch.setattr(fabric_analysis, "EXACT_HOPS_BUDGET", 0)
    hops = analyse_plane(two_tier(catalog), "compute").hops
    assert (hops.hops, hops.exact, hops.islands) == (3, False, 1)
    hops = analyse_plane(two_islands(catalog), "compute").hops
    assert (hops.hops, hops.exact, hops.islands) == (None, False, 2)
    # Leaves joined by a peer link are one piece, but not a Clos: no closed form.
    hops = analyse_plane(two_islands(catalog, peer_link=True), "compute").hops
    assert (hops.hops, hops.exact, hops.islands) == (None, False, 1)


# -- ports ------------------------------------------------------------------------------------


def test_ports_used_and_free_count_breakout_lanes(catalog):
    """An SN5600 (64 × 800G, swp1..swp64): swp1 split 4 × 200G with 1 lane cabled is one
    used port with 3 free lanes; swp2 split 2 × 400G with both lanes cabled is used with
    none free; swp3 whole.  Used 3, free 61, free lanes 3."""
    f = Fabric(catalog)
    leaf = f.device("leaf", "nvidia-sn5600")
    l40s = f.device("gpu-a", "generic-pcie-4gpu-l40s")  # compute0..3: 200G QSFP56
    dgx = f.device("gpu-b", "nvidia-dgx-h100")  # compute0..7: 400G OSFP
    f.link(l40s, "compute0", leaf, "swp1/1", speed=200)
    f.link(dgx, "compute0", leaf, "swp2/1", speed=400)
    f.link(dgx, "compute1", leaf, "swp2/2", speed=400)
    f.link(dgx, "compute2", leaf, "swp3")
    report = analyse_plane(f.done(), "compute")
    (ports,) = report.ports
    assert (ports.ports, ports.used, ports.free, ports.free_lanes) == (64, 3, 61, 3)
    totals = report.to_json()["ports"]
    assert (totals["used"], totals["free"], totals["free_lanes"]) == (3, 61, 3)


def test_whole_ports_are_counted_once_and_other_planes_count_too(catalog):
    design = two_tier(catalog)
    report = analyse_plane(design, "compute")
    by_name = {p.name: p for p in report.ports}
    # A leaf: p1, p2 to hosts, p3, p4 up; a spine p1..p4 down.  QM9700 data ports: 64.
    assert (by_name["L1"].used, by_name["L1"].free) == (4, 60)
    assert (by_name["S2"].used, by_name["S2"].free) == (4, 60)
    # A storage-plane link on L1's p10 takes a port of the same switch.
    design.networks.append(Network("net-storage", "Storage", "storage", "ethernet", 400, 9000))
    design.links.append(Link("lx", "H1", "storage0", "L1", "p10", "net-storage"))
    design.reindex()
    again = {p.name: p for p in analyse_plane(design, "compute").ports}
    assert (again["L1"].used, again["L1"].free) == (5, 59)
    # The report of every plane hands each plane the others' links: the same answer.
    report = fabric_report(design)
    assert report["compute"]["ports"] == analyse_plane(design, "compute").to_json()["ports"]


# -- hosts ------------------------------------------------------------------------------------


def test_hosts_and_the_gpu_servers_no_link_reaches(catalog):
    report = analyse_plane(two_tier(catalog, extra_uncabled=True), "compute")
    assert report.hosts == 8
    assert report.uncabled_hosts == ["H9"]
    # On the out-of-band plane nothing is cabled: every device with a BMC or mgmt port.
    oob = analyse_plane(two_tier(catalog), "oob")
    assert oob.hosts == 0 and len(oob.uncabled_hosts) == 8 + 4 + 2


# -- failures ---------------------------------------------------------------------------------


def test_one_spine_down_loses_half_the_leaf_spine_bandwidth_and_cuts_no_host(catalog):
    design = two_tier(catalog)
    impact = failure_impact(design, "compute", ["S1"])
    # S1 carries 4 of the 8 leaf–spine links: 1,600 of 3,200 Gb/s.
    (layer,) = impact.layers
    assert (layer.layer, layer.lost_gbps, layer.total_gbps) == (2, 1600, 3200)
    assert impact.bandwidth_lost_pct == pytest.approx(50.0)
    # Every leaf still reaches S2; hosts lost no port of their own.
    assert impact.hosts_cut_off == () and impact.hosts_degraded == ()


def test_one_leaf_down_cuts_off_its_single_homed_hosts(catalog):
    impact = failure_impact(two_tier(catalog), "compute", ["L1"])
    # L1: 2 × 400G of the 3,200 Gb/s host–leaf layer, and 2 × 400G of leaf–spine: 25 %.
    assert [(x.layer, x.lost_gbps) for x in impact.layers] == [(1, 800), (2, 800)]
    assert impact.bandwidth_lost_pct == pytest.approx(25.0)
    assert impact.hosts_cut_off == ("H1", "H2") and impact.hosts_degraded == ()


def test_dual_homed_hosts_are_degraded_not_cut_off(catalog):
    impact = failure_impact(two_tier(catalog, dual_homed=True), "compute", ["L1"])
    # L1's own hosts H1, H2 keep compute1 to L2; H7, H8 (on L4) lose compute1 to L1.
    assert impact.hosts_cut_off == ()
    assert impact.hosts_degraded == ("H1", "H2", "H7", "H8")


def test_both_spines_down_leaves_no_majority_island(catalog):
    impact = failure_impact(two_tier(catalog), "compute", ["S1", "S2"])
    # All 8 leaf–spine links gone (100 %); four islands of 2 hosts tie: all cut off.
    assert impact.bandwidth_lost_pct == pytest.approx(100.0)
    assert len(impact.hosts_cut_off) == 8


def test_the_plane_report_names_the_worst_single_leaf_and_spine(catalog):
    report = analyse_plane(two_tier(catalog), "compute")
    leaf, spine = report.worst_failures[1], report.worst_failures[2]
    # The closed form agrees with the graph answer for the switch it picks.
    for worst in (leaf, spine):
        asked = failure_impact(two_tier(catalog), "compute", worst.switches)
        assert worst.hosts_cut_off == asked.hosts_cut_off
        assert worst.bandwidth_lost_pct == pytest.approx(asked.bandwidth_lost_pct)
    assert len(leaf.hosts_cut_off) == 2 and spine.bandwidth_lost_pct == pytest.approx(50.0)


def test_a_spine_that_is_a_leafs_only_way_up_cuts_its_hosts_off(catalog):
    f = Fabric(catalog)
    s1, s2 = f.device("S1", "nvidia-qm9700"), f.device("S2", "nvidia-qm9700")
    l1, l2, l3 = (f.device(f"L{k}", "nvidia-qm9700") for k in (1, 2, 3))
    for k, leaf in enumerate((l1, l2, l3)):
        f.link(f.device(f"H{k + 1}", "nvidia-dgx-h100"), "compute0", leaf, "p1")
    f.link(l1, "p2", s1, "p1")  # L1's only uplink
    f.link(l2, "p2", s1, "p2")
    f.link(l2, "p3", s2, "p1")
    f.link(l3, "p2", s2, "p2")
    f.link(l3, "p3", s1, "p3")
    design = f.done()
    worst = analyse_plane(design, "compute").worst_failures[2]
    assert worst.switches == ("S1",) and worst.hosts_cut_off == ("H1",)
    assert failure_impact(design, "compute", ["S1"]).hosts_cut_off == ("H1",)


@pytest.mark.parametrize("plane", ["compute", "storage", "management"])
def test_the_closed_form_worst_failures_agree_with_the_graph_on_the_sample(catalog, plane):
    """On the sample design's generated fabrics (Clos on every plane but out of band),
    the closed-form worst leaf and spine cost what removing them from the graph costs."""
    from workbench.templates import sample_design

    design = sample_design(catalog)
    report = analyse_plane(design, plane, cables=False)
    assert set(report.worst_failures) == {1, 2}
    for worst in report.worst_failures.values():
        asked = failure_impact(design, plane, worst.switches)
        assert worst.hosts_cut_off == asked.hosts_cut_off
        assert worst.hosts_degraded == asked.hosts_degraded
        assert worst.bandwidth_lost_pct == pytest.approx(asked.bandwidth_lost_pct)


def test_failing_something_that_is_not_a_switch_of_the_plane_is_refused(catalog):
    design = two_tier(catalog)
    with pytest.raises(InputError, match=r"'H1' \(H1\) is not a switch of the compute plane"):
        failure_impact(design, "compute", ["H1"])
    with pytest.raises(InputError, match="'nope' is not a switch"):
        failure_impact(design, "compute", ["nope"])


# -- MTU and the JSON report ------------------------------------------------------------------


def test_mtu_consistency_per_plane(catalog):
    design = two_tier(catalog)
    assert mtu_problems(design, "compute") == []
    design.networks[0].mtu = 2048
    (problem,) = mtu_problems(design, "compute")
    assert "MTU 2048" in problem.message and "4096" in problem.message
    design.networks[0].mtu = 4096
    design.networks.append(Network("net-c2", "Compute B", "compute", "roce", 400, 1500))
    messages = [p.message for p in mtu_problems(design, "compute")]
    assert any("roce planes run at 9000" in m for m in messages)
    assert any("disagree on the MTU" in m for m in messages)


def test_fabric_report_is_plain_json_per_plane(catalog):
    import json

    report = fabric_report(two_tier(catalog))
    assert list(report) == ["compute"]
    compute = report["compute"]
    json.dumps(compute)  # plain JSON types only
    for key in (
        "tiers",
        "leaf_switches",
        "spine_switches",
        "core_switches",
        "links",
        "oversubscription",
        "bisection_tbps",
        "cables",
    ):
        assert key in compute
    assert (compute["tiers"], compute["leaf_switches"], compute["spine_switches"]) == (2, 4, 2)
    assert compute["oversubscription"] == {"leaf": 1.0}
    assert compute["failures"]["worst_spine"]["bandwidth_lost_pct"] == 50.0
    assert compute["cables"]["links"] == 16


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_switch_order_follows_the_links_and_breaks_ties(catalog, seed: int) -> None:
    """Switches are ordered as the design's links first name them (leaves by their host
    links, then the switch links' ends), and on a tie the worst switch of a tier is the
    first in that order: every leaf of ``two_tier`` runs 2 × 400G down and 2 × 400G up."""
    import random

    from workbench.calc.fabric.planes import plane_structures

    design = two_tier(catalog)
    random.Random(seed).shuffle(design.links)
    design.reindex()
    order: list[str] = []
    hosts = {link.a_device for link in design.links if link.a_device.startswith("H")}
    for link in design.links:  # leaves as host links name them
        if link.a_device in hosts and link.b_device not in order:
            order.append(link.b_device)
    for link in design.links:  # then the ends of switch links
        if link.a_device not in hosts:
            order += [e for e in (link.a_device, link.b_device) if e not in order]
    structure = plane_structures(design, ["compute"])["compute"]
    assert list(structure.tiers) == order
    leaves = [s for s in order if s.startswith("L")]
    report = analyse_plane(design, "compute", structure=structure, cables=False)
    leaf = report.tiers[0]
    assert leaf.worst_ratio == pytest.approx(1.0)
    assert leaf.worst_switch == leaves[0]
