"""Networks, link fields and storage tiers: edits with exact inverses and named refusals."""

from __future__ import annotations

import copy

import pytest

from workbench.catalog import load_catalog
from workbench.model import Device, Link, Rack, Row, Site, StorageTier, net_ops, ops
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.model.index import index_problems


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def design(catalog) -> Design:
    """One DGX H100 cabled to one QM9700 and one SN4600 in a rack."""
    devices = [
        Device("d1", "gpu-1", "nvidia-dgx-h100", 2),
        Device("s1", "leaf-1", "nvidia-qm9700", 40),
        Device("s2", "stor-1", "nvidia-sn4600", 42),
    ]
    design = Design(
        sites=[
            Site("site", "Hall", [Row("row", "A", [Rack("r1", "A01", "rack", devices=devices)])])
        ],
        device_types={s: catalog[s] for s in ("nvidia-dgx-h100", "nvidia-qm9700", "nvidia-sn4600")},
        links=[
            Link("l1", "d1", "compute0", "s1", "p1", "net-compute"),
            Link("l2", "d1", "compute1", "s1", "p2", "net-compute"),
            Link("l3", "d1", "storage0", "s2", "swp1", "net-storage"),
        ],
    )
    for plane in ("compute", "storage"):
        ops.apply(design, net_ops.network(design, plane))
    return design


def test_a_plane_gets_its_usual_defaults_and_a_fresh_id(design):
    compute, storage = design.networks
    assert (compute.id, compute.technology, compute.mtu) == ("net-compute", "infiniband", 4096)
    assert (storage.id, storage.mtu, storage.speed_gbps) == ("net-storage", 9000, 200.0)
    again = net_ops.network(design, "compute")
    assert again.network.id == "net-compute-2"


def test_network_fields_are_checked_and_undone(design):
    start = copy.deepcopy(design)
    applied = ops.apply(
        design,
        net_ops.SetNetworkFields("net-storage", (("vlan", 30), ("subnet", " 10.20.0.0/16 "))),
    )
    assert (design.networks[1].vlan, design.networks[1].subnet) == (30, "10.20.0.0/16")
    assert applied.change.networks == {"net-storage"}
    ops.apply(design, applied.inverse)
    assert design == start
    for field, value, words in [
        ("vlan", 5000, "1 to 4094"),
        ("subnet", "10.20.0.1/16", "not a subnet"),
        ("mtu", 100, "576 to 65535"),
        ("plane", "data", "compute, storage"),
    ]:
        with pytest.raises(EditError, match=words):
            ops.apply(design, net_ops.SetNetworkFields("net-storage", ((field, value),)))
    assert design == start


def test_a_network_in_use_is_not_removed(design):
    with pytest.raises(EditError, match="2 links are on network 'Compute fabric'"):
        ops.apply(design, net_ops.RemoveNetwork("net-compute"))


def test_a_bundle_changes_speed_at_once_and_each_link_gets_its_own_back(design):
    design.index.links["l2"].cable_type = "aoc"
    start = copy.deepcopy(design)
    applied = ops.apply(
        design, net_ops.SetLinkFields(("l1", "l2"), (("speed_gbps", 200.0), ("cable_type", "dac")))
    )
    assert [(link.speed_gbps, link.cable_type) for link in design.links[:2]] == [
        (200.0, "dac"),
        (200.0, "dac"),
    ]
    assert applied.change.links == {"l1", "l2"} and applied.change.devices == {"d1", "s1"}
    ops.apply(design, applied.inverse)
    assert design == start


def test_a_speed_the_ports_cannot_carry_is_refused_with_the_reason(design):
    # A 400G OSFP host port to a 400G NDR switch port runs at 400, 200 or 100G, never 25G.
    with pytest.raises(EditError, match="cannot run at 25G: .*runs at 400G, 200G or 100G"):
        ops.apply(design, net_ops.SetLinkFields(("l1",), (("speed_gbps", 25.0),)))
    with pytest.raises(EditError, match="Cable media is one of"):
        ops.apply(design, net_ops.SetLinkFields(("l1",), (("cable_type", "string"),)))


def test_storage_tiers_come_and_go_with_their_devices_listed_once(design):
    start = copy.deepcopy(design)
    tier = StorageTier("tier-hot", "Hot", "hot", "Lustre", ["d1"])
    added = ops.apply(design, net_ops.AddStorageTier(tier))
    edited = ops.apply(design, net_ops.SetTierFields("tier-hot", (("name", "Hot pool A"),)))
    assert design.storage_tiers[0].name == "Hot pool A"
    with pytest.raises(EditError, match="each device once"):
        ops.apply(design, net_ops.SetTierFields("tier-hot", (("device_ids", ("d1", "d1")),)))
    ops.apply(design, edited.inverse)
    ops.apply(design, added.inverse)
    assert design == start and index_problems(design) == []
