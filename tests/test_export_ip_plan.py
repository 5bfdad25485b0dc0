"""IP plan: subnets per network, gateways, one address per host port, exhaustion."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import openpyxl
import pytest

from workbench.export.ip_plan import plan_addresses, write_ip_plan
from workbench.export.output import ExportError
from workbench.templates import build_template


@pytest.fixture(scope="module")
def design():
    return build_template("hgx-h100-air")


def _device(design, name: str):
    return next(d for _r, d in design.iter_devices() if d.name == name)


def test_gateways_are_first_usable_and_hosts_inside(design) -> None:
    plan = plan_addresses(design)
    assert [s.plane for s in plan.subnets] == ["compute", "storage", "management", "oob"]
    for s in plan.subnets:
        net = ipaddress.ip_network(s.cidr)
        assert s.gateway == str(net.network_address + 1)
    seen: set[str] = set()
    for a in plan.addresses:
        subnet = next(s for s in plan.subnets if s.network_id == a.network_id)
        net = ipaddress.ip_network(subnet.cidr)
        assert ipaddress.ip_address(a.address) in net
        assert a.address not in (subnet.gateway, str(net.broadcast_address))
        assert a.address not in seen
        seen.add(a.address)


def test_one_address_per_host_port(design) -> None:
    plan = plan_addresses(design)
    node = _device(design, "gpu00001")
    compute = plan.addresses_of(node.id, "compute")
    assert [a.port for a in compute] == [f"compute{i}" for i in range(8)]
    assert compute[0].address == "10.0.0.2"  # first host after the gateway
    assert plan.address_of(node.id, "oob") is not None
    assert plan.addresses_of(node.id, "oob")[0].port == "bmc"
    assert plan.address_of(node.id, "management") == "10.6.0.2"
    # Switch fabric ports are not hosts: 8 nodes x 8 rails = 64 compute addresses.
    assert next(s for s in plan.subnets if s.plane == "compute").used == 64
    # A PDU has no BMC and gets nothing.
    pdu = _device(design, "pdu-a01-a")
    assert plan.address_of(pdu.id, "oob") is None


def test_cidrs_option_and_network_subnet(design) -> None:
    plan = plan_addresses(design, {"compute": "172.16.0.0/16", "net-oob": "192.168.0.0/24"})
    by_plane = {s.plane: s for s in plan.subnets}
    assert by_plane["compute"].cidr == "172.16.0.0/16"
    assert by_plane["compute"].origin == "plane pool"
    assert by_plane["oob"].cidr == "192.168.0.0/24"
    assert by_plane["oob"].origin == "cidrs option"
    assert by_plane["oob"].gateway == "192.168.0.1"


def test_exhausted_subnet_names_subnet_need_and_size(design) -> None:
    with pytest.raises(ExportError) as err:
        plan_addresses(design, {"net-compute": "10.9.0.0/26"}, where="plan.xlsx")
    text = str(err.value)
    assert text.startswith("plan.xlsx: subnet 10.9.0.0/26 of network 'Compute fabric'")
    assert "needs 64 host addresses" in text and "holds 61" in text


def test_bad_cidr_overlap_and_unknown_key(design) -> None:
    with pytest.raises(ExportError, match="not a subnet in CIDR form"):
        plan_addresses(design, {"compute": "10.0.0.1/16"})
    with pytest.raises(ExportError, match="overlaps"):
        plan_addresses(design, {"net-storage": "10.0.0.0/24"})
    with pytest.raises(ExportError, match="names neither a plane nor a network"):
        plan_addresses(design, {"computer": "10.0.0.0/8"})


def test_workbook_has_both_sheets(design, tmp_path: Path) -> None:
    target = write_ip_plan(design, tmp_path / "ip.xlsx")
    book = openpyxl.load_workbook(target, read_only=True)
    assert book.sheetnames == ["Subnets", "Addresses"]
    rows = list(book["Addresses"].iter_rows(values_only=True))
    assert rows[0][5] == "Address"
    assert len(rows) - 1 == len(plan_addresses(design).addresses)


def test_exhausted_plan_writes_nothing(design, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="needs 64"):
        write_ip_plan(design, tmp_path / "ip.xlsx", cidrs={"net-compute": "10.9.0.0/26"})
    assert list(tmp_path.iterdir()) == []


def test_default_pools_grow_with_a_design_that_outgrows_them(design, monkeypatch) -> None:
    """A 1,000,000-GPU design needs a /12 for compute where the default pool is a /14
    (issue 21: its NetBox export failed).  The same path on this design, with default
    pools shrunk until it has outgrown them: every plane gets a pool that holds it,
    aligned, inside 10.0.0.0/8, none overlapping, every host inside its subnet."""
    from workbench.export import ip_plan

    kept = plan_addresses(design)
    monkeypatch.setattr(
        ip_plan,
        "DEFAULT_POOLS",
        {
            "compute": "10.0.0.0/28",
            "storage": "10.0.0.16/28",
            "management": "10.0.0.32/28",
            "oob": "10.0.0.48/28",
        },
    )
    plan = plan_addresses(design)
    nets = [ipaddress.ip_network(s.cidr) for s in plan.subnets]
    assert all(n.subnet_of(ipaddress.ip_network("10.0.0.0/8")) for n in nets)
    assert not any(a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1 :])
    assert {s.network_id: s.used for s in plan.subnets} == {
        s.network_id: s.used for s in kept.subnets
    }
    for s in plan.subnets:
        assert s.used <= s.capacity, s


def test_sized_pools_keep_defaults_that_suffice_and_size_the_rest() -> None:
    from workbench.export.ip_plan import sized_pools

    assert sized_pools({"compute": [1000], "oob": [500]}) is None
    grown = sized_pools({"compute": [1_000_003], "storage": [250_003], "oob": [140_003]})
    assert grown is not None
    assert str(grown["compute"]) == "10.0.0.0/12"
    assert grown["storage"].prefixlen == 14 and grown["oob"].prefixlen == 14
    assert not grown["compute"].overlaps(grown["storage"])
    with pytest.raises(ValueError, match="10.0.0.0/8"):
        sized_pools({"compute": [20_000_000]})
