"""Unknown power is unknown, not 0 W: catalog items, NetBox power semantics, the
design and rack summaries, the report JSON, and the rule flagging each rack."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.calc.summary import rack_loads, summarize
from workbench.catalog import load_file, parse_item
from workbench.catalog.item import PowerPort
from workbench.catalog.netbox import netbox_power, power_source, supplies_in_service
from workbench.rules import check_design
from workbench.rules.power_unknown import rack_power_unknown
from workbench.templates import build_template

NETBOX = Path(__file__).parent / "data" / "netbox"


def test_supply_ratings_need_a_redundancy():
    ports = [PowerPort(f"psu{i}", "iec-60320-c20", maximum_draw=4400) for i in range(6)]
    assert netbox_power(ports, None).watts is None  # never 6 x 4.4 = 26.4 kW
    half = netbox_power(ports, "N+N")
    assert half.watts == 3 * 4400 and half.source.startswith("maximum_draw N+N: 3 of 6")
    assert netbox_power(ports, "4+2").watts == 4 * 4400
    assert netbox_power(ports, "N+1").watts == 5 * 4400
    assert supplies_in_service("N", 2) == 2
    with pytest.raises(ValueError, match="means 5 supplies"):
        supplies_in_service("4+1", 6)
    with pytest.raises(ValueError, match="not a redundancy"):
        supplies_in_service("two", 6)


def test_redundancy_in_props_gives_a_figure_with_its_source():
    raw = dict(load_file(NETBOX / "dell-poweredge-xe9680.yaml").items[0].raw)
    item = parse_item(raw | {"props": {"psu_redundancy": "N+N"}})
    assert item.max_power_w == 3 * 2800
    assert power_source(item).startswith("maximum_draw N+N")
    bad = raw | {"props": {"psu_redundancy": "4+1"}}
    with pytest.raises(Exception, match="psu_redundancy 4\\+1 means 5 supplies"):
        parse_item(bad)


def test_cli_import_with_psu_redundancy(tmp_path, capsys):
    from workbench.cli.main import main

    dest = tmp_path / "u"
    source = NETBOX / "dell-poweredge-xe9680.yaml"
    assert (
        main(
            [
                "catalog",
                "import-netbox",
                "--dest",
                str(dest),
                "--psu-redundancy",
                "N+N",
                str(source),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "power: 8,400 W (maximum_draw N+N: 3 of 6 supplies" in out
    [item] = load_file(dest / "dell-poweredge-xe9680.yaml").items
    assert item.props["psu_redundancy"] == "N+N" and item.max_power_w == 8400


def _with_unknown_switch():
    """The 64-GPU template with its SN5600s replaced by the library's file (no power)."""
    design = build_template("hgx-h100-air")
    [switch] = load_file(NETBOX / "nvidia-sn5600-library.yaml").items
    design.device_types[switch.slug] = switch
    holding = {
        rack.id: sum(1 for d in rack.devices if d.device_type == switch.slug)
        for rack in design.iter_racks()
    }
    return design, {rid: n for rid, n in holding.items() if n}, switch


def test_summary_and_rack_load_count_unknown_devices_instead_of_zero():
    design, holding, switch = _with_unknown_switch()
    assert sum(holding.values()) == 10  # the fabric rack's leaves and spines
    summary = summarize(design)
    assert summary.unknown_power_devices == sum(holding.values()) and not summary.power_complete
    assert summary.unknown_power_types == (switch.slug,)
    report = summary.to_dict()
    assert report["unknown_power_devices"] == summary.unknown_power_devices
    assert report["power_complete"] is False
    loads = rack_loads(design)
    assert {
        rid: load.unknown_power_devices for rid, load in loads.items() if not load.power_known
    } == holding
    before = summarize(build_template("hgx-h100-air"))
    assert summary.it_kw == pytest.approx(before.it_kw - sum(holding.values()) * 2.0)


def test_rule_flags_every_rack_holding_such_a_device():
    design, holding, switch = _with_unknown_switch()
    findings = check_design(design, rules=[rack_power_unknown])
    assert sorted(f.object_id for f in findings) == sorted(holding)
    for finding in findings:
        count = holding[finding.object_id]
        assert f"power of {count} device(s) is unknown ({count} x {switch.slug})" in finding.message
    clean = build_template("hgx-h100-air")
    assert check_design(clean, rules=[rack_power_unknown]) == []
