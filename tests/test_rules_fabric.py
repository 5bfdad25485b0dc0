"""The fabric rules, each firing and not firing: FABRIC-PORT, FABRIC-MTU, FABRIC-UNCABLED,
FABRIC-OVERSUB.  Devices are the shipped catalog's QM9700 (64 × 400G NDR, p1..p64), DGX
H100 (compute0..7 400G OSFP, storage0..3, mgmt0, bmc) and SN5600 (64 × 800G, swp1..)."""

from __future__ import annotations

import pytest

from workbench.catalog import load_catalog
from workbench.catalog.item import CatalogItem, Interface
from workbench.model import ops
from workbench.model.design import Design, Device, Link, Network, Rack, Row, Site
from workbench.rules import REGISTRY, Checker, Finding, Severity, check_design

TOR_25G = CatalogItem(
    slug="test-tor-25g",
    kind="switch",
    manufacturer="Test",
    model="25G ToR",
    u_height=1,
    interfaces=tuple(Interface(f"p{n}", "25gbase-x-sfp28") for n in range(1, 5)),
)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def design_of(catalog, devices: dict[str, str | CatalogItem], links: list[Link], **kw) -> Design:
    """One rack per device; ``links`` on the compute network unless they say."""
    design = Design(networks=kw.pop("networks", [Network("net-compute", "Compute", "compute")]))
    row = Row("row", "A")
    design.sites.append(Site("site", "Hall", [row]))
    design.device_types["generic-rack-48u-air"] = catalog["generic-rack-48u-air"]
    for name, slug in devices.items():
        item = slug if isinstance(slug, CatalogItem) else catalog[slug]
        design.device_types[item.slug] = item
        row.racks.append(
            Rack(
                f"r-{name}",
                name,
                "generic-rack-48u-air",
                devices=[Device(name, name, item.slug, 1)],
            )
        )
    design.links = links
    design.reindex()
    return design


def link(n: int, a: str, a_port: str, b: str, b_port: str, **kw) -> Link:
    kw.setdefault("network", "net-compute")
    return Link(f"l{n}", a, a_port, b, b_port, **kw)


def findings(design: Design, rule_id: str) -> list[Finding]:
    mine = check_design(design, rules=[REGISTRY[rule_id]])
    assert mine == [f for f in check_design(design) if f.rule == rule_id]
    return mine


def leaf_spine(catalog, uplinks: int = 2) -> Design:
    """2 leaves of 2 DGX each (compute0, compute1 → p1..p4); each leaf has ``uplinks``
    links to each of 2 spines: 4 × 400G down against 2 × uplinks × 400G up."""
    devices: dict[str, str | CatalogItem] = {f"H{i}": "nvidia-dgx-h100" for i in range(1, 5)}
    devices |= {n: "nvidia-qm9700" for n in ("L1", "L2", "S1", "S2")}
    links = []
    for k, leaf in enumerate(("L1", "L2")):
        for slot, host in enumerate((f"H{2 * k + 1}", f"H{2 * k + 2}")):
            for port in (0, 1):
                links.append(
                    link(len(links), host, f"compute{port}", leaf, f"p{2 * slot + port + 1}")
                )
        for j, spine in enumerate(("S1", "S2")):
            for u in range(uplinks):
                links.append(
                    link(
                        len(links),
                        leaf,
                        f"p{5 + j * uplinks + u}",
                        spine,
                        f"p{k * uplinks + u + 1}",
                    )
                )
    return design_of(catalog, devices, links)


# -- FABRIC-PORT ------------------------------------------------------------------------------


def test_a_clean_fabric_has_no_port_finding(catalog):
    assert findings(leaf_spine(catalog), "FABRIC-PORT") == []


def test_a_port_the_device_does_not_have(catalog):
    design = design_of(
        catalog,
        {"H1": "nvidia-dgx-h100", "L1": "nvidia-qm9700"},
        [link(1, "H1", "compute0", "L1", "p99")],
    )
    (finding,) = findings(design, "FABRIC-PORT")
    assert finding.severity is Severity.ERROR
    assert finding.message == "L1 (Quantum-2 QM9700) has no port 'p99': link l1 to H1 compute0."
    assert finding.objects == ("L1", "H1", "l1")


def test_a_link_looped_back_to_its_own_device_is_read_at_both_ends(catalog):
    # Both ends are the device's own: each missing port is its own finding, in the order
    # of the ends, and one port at both ends of one cable is that port cabled twice.
    design = design_of(
        catalog,
        {"L1": "nvidia-qm9700"},
        [link(1, "L1", "p98", "L1", "p99"), link(2, "L1", "p1", "L1", "p1")],
    )
    assert [(f.message, f.objects) for f in findings(design, "FABRIC-PORT")] == [
        ("L1 (Quantum-2 QM9700) has no port 'p98': link l1 to L1 p99.", ("L1", "L1", "l1")),
        ("L1 (Quantum-2 QM9700) has no port 'p99': link l1 to L1 p98.", ("L1", "L1", "l1")),
        ("L1: p1 is cabled 2 times (links l2, l2).", ("L1", "l2", "l2")),
    ]


def doubled_links() -> list[Link]:
    """Links from H1 and H2 onto an SN5600 L1: swp1 twice, swp2 whole and as a lane,
    lane swp3/2 twice, and two distinct lanes of swp4 (fine)."""
    return [
        link(1, "H1", "compute0", "L1", "swp1"),
        link(2, "H2", "compute0", "L1", "swp1"),  # swp1 twice
        link(3, "H1", "compute1", "L1", "swp2", speed_gbps=400),
        link(4, "H2", "compute1", "L1", "swp2/1", speed_gbps=400),  # whole and a lane
        link(5, "H1", "compute2", "L1", "swp3/2", speed_gbps=400),
        link(6, "H2", "compute2", "L1", "swp3/2", speed_gbps=400),  # a lane twice
        link(7, "H1", "compute3", "L1", "swp4/1", speed_gbps=400),
        link(8, "H2", "compute3", "L1", "swp4/2", speed_gbps=400),  # two lanes: fine
    ]


def test_a_port_or_lane_cabled_twice(catalog):
    devices = {"H1": "nvidia-dgx-h100", "H2": "nvidia-dgx-h100", "L1": "nvidia-sn5600"}
    design = design_of(catalog, devices, doubled_links())
    messages = sorted(f.message for f in findings(design, "FABRIC-PORT"))
    assert messages == [
        "L1: swp1 is cabled 2 times (links l1, l2).",
        "L1: swp2 is cabled whole and also split into lanes (links l3, l4).",
        "L1: swp3/2 cabled twice (links l5, l6).",
    ]


def test_a_400g_osfp_to_a_25g_sfp28_without_breakout_is_refused_naming_both_ends(catalog):
    design = design_of(
        catalog,
        {"H1": "nvidia-dgx-h100", "T1": TOR_25G},
        [link(1, "H1", "compute0", "T1", "p1")],
    )
    (finding,) = findings(design, "FABRIC-PORT")
    # The link runs at the slower 25G; a host's 400G OSFP only runs at 400, 200 or 100G.
    assert finding.message == (
        "H1 compute0 – T1 p1 (link l1): compute0 (400G OSFP) runs at 400G, 200G or 100G, not 25G."
    )
    assert finding.objects == ("H1", "T1", "l1")


def test_an_infiniband_switch_port_to_an_ethernet_switch_port(catalog):
    design = design_of(
        catalog,
        {"L1": "nvidia-qm9700", "E1": "nvidia-sn5600"},
        [link(1, "L1", "p1", "E1", "swp1", speed_gbps=400)],
    )
    (finding,) = findings(design, "FABRIC-PORT")
    assert "different protocols" in finding.message and finding.objects[0] == "L1"


def test_the_checker_follows_link_edits(catalog):
    design = leaf_spine(catalog)
    checker = Checker(design, rules={"FABRIC-PORT": REGISTRY["FABRIC-PORT"]})
    assert checker.findings() == []
    bad = Link("lbad", "H1", "compute2", "L1", "p5", "net-compute")  # p5 is L1's uplink
    applied = ops.apply(design, ops.AddLink(bad))
    checker.update(applied.change)
    assert [f.message for f in checker.findings()] == ["L1: p5 is cabled 2 times (links l4, lbad)."]
    checker.update(ops.apply(design, applied.inverse).change)
    assert checker.findings() == []


# -- FABRIC-MTU -------------------------------------------------------------------------------


def test_mtu_rules(catalog):
    design = leaf_spine(catalog)
    assert findings(design, "FABRIC-MTU") == []
    design.networks[0].mtu = 2048
    (finding,) = findings(design, "FABRIC-MTU")
    assert finding.severity is Severity.WARNING and finding.objects == ("net-compute",)
    assert "infiniband planes run at 4096" in finding.message
    assert "4096" in REGISTRY["FABRIC-MTU"].source and "9000" in REGISTRY["FABRIC-MTU"].source
    design.networks[0].mtu = 4096
    design.networks.append(Network("net-c2", "RoCE B", "compute", "roce", 400, 9000))
    # Both right for their technology, but one plane, two MTUs.  One network each: the
    # smaller MTU is taken as the plane's (every port carries it), so RoCE B is off.
    (finding,) = findings(design, "FABRIC-MTU")
    assert "disagree on the MTU" in finding.message and finding.objects == ("net-c2",)


# -- FABRIC-UNCABLED --------------------------------------------------------------------------


def test_a_gpu_server_off_the_compute_fabric(catalog):
    design = leaf_spine(catalog)
    assert findings(design, "FABRIC-UNCABLED") == []
    design.links = [lk for lk in design.links if lk.a_device != "H3"]
    design.reindex()
    (finding,) = findings(design, "FABRIC-UNCABLED")
    assert finding.objects == ("H3",) and finding.severity is Severity.WARNING
    assert finding.message.startswith("H3 has no link on the compute plane")


def test_no_compute_fabric_no_uncabled_warning(catalog):
    """Before any compute fabric is drawn (no compute network, no compute link) there is
    nothing to be missing from."""
    design = design_of(catalog, {"H1": "nvidia-dgx-h100"}, [], networks=[])
    assert findings(design, "FABRIC-UNCABLED") == []
    design.networks.append(Network("net-compute", "Compute", "compute"))
    assert [f.objects for f in findings(design, "FABRIC-UNCABLED")] == [("H1",)]


# -- FABRIC-OVERSUB ---------------------------------------------------------------------------


def test_a_non_blocking_compute_fabric_passes(catalog):
    # Each leaf: 4 × 400G down, 2 spines × 2 uplinks × 400G up = 1:1.
    assert findings(leaf_spine(catalog, uplinks=2), "FABRIC-OVERSUB") == []


def test_an_oversubscribed_compute_fabric_warns_with_the_ratio(catalog):
    # One uplink per spine: 1,600 Gb/s down, 800 up per leaf = 2:1.
    (finding,) = findings(leaf_spine(catalog, uplinks=1), "FABRIC-OVERSUB")
    assert finding.severity is Severity.WARNING
    assert finding.message.startswith(
        "Compute plane leaf tier is oversubscribed 2.00:1 (3.2 Tb/s down, 1.6 Tb/s up; "
        "worst L1 at 2.00:1)."
    )
    assert "all-reduce" in finding.message and "50 %" in finding.message
    assert finding.objects == ("L1",)
