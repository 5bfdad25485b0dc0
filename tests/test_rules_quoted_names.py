"""A finding filed under one device that quotes another device (FABRIC-PORT under a
link's ``a`` end names the ``b`` end, and reads its catalog item) follows a rename or a
new catalog item of that other device: the engine re-checks the devices whose findings
name it, and only those (not every device cabled to it), so the incremental findings
equal a full check."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from rules_counting import cabled, counted_rules

from workbench.catalog import load_catalog
from workbench.catalog.item import is_gpu_server
from workbench.model import Link, ops
from workbench.model.type_ops import ReplaceDeviceType
from workbench.rules import Checker
from workbench.templates import build_template


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def filed(checker: Checker) -> dict[tuple[str, str], list]:
    return {(rule.id, object_id): found for rule, object_id, found in checker.filed()}


def test_renaming_the_far_end_a_finding_quotes_rewrites_that_finding(catalog):
    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    node, other, switch, port, link = cabled(design)
    index = design.index
    # A link from ``other`` (its ``a`` end, a port it lacks) to the switch: the finding
    # is filed under ``other`` and quotes the switch's name.
    spare = Link(index.new_id("link"), other, "spare0", switch, port, link.network)
    ops.apply(design, ops.AddLink(spare))
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    switch_name = index.devices[switch][1].name
    assert any(
        f.rule == "FABRIC-PORT" and f.object_id == other and switch_name in f.message
        for f in checker.findings()
    )
    calls.clear()
    checker.update(ops.apply(design, ops.RenameDevice(switch, "renamed-leaf")).change)
    assert filed(checker) == filed(Checker(design))
    assert any(f.object_id == other and "renamed-leaf" in f.message for f in checker.findings())
    # The switch and the one device whose finding names it, not its hundreds of peers.
    assert calls["FABRIC-PORT"] == 2


def test_a_new_catalog_item_of_the_far_end_re_checks_the_finding_naming_it(catalog):
    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    node, other, switch, port, link = cabled(design)
    index, types = design.index, design.device_types
    # A link from the switch's InfiniBand cage (its ``a`` end) to the node's twisted-pair
    # BMC port: no cable joins them, a finding filed under the switch naming the node.
    node_port = "bmc"
    bad = Link(index.new_id("link"), switch, port, node, node_port, link.network)
    ops.apply(design, ops.AddLink(bad))
    checker = Checker(design)
    assert any(
        f.rule == "FABRIC-PORT"
        and f.object_id == switch
        and bad.id in f.objects
        and node in f.objects
        for f in checker.findings()
    ), [f for f in checker.findings() if f.object_id == switch]
    # The node's item without the port: the switch's finding about the link ends (the
    # missing port is the node's own finding).
    item = types[index.devices[node][1].device_type]
    fewer = tuple(i for i in item.interfaces if i.name != node_port)
    new_item = dataclasses.replace(item, interfaces=fewer)
    checker.update(ops.apply(design, ReplaceDeviceType(new_item)).change)
    assert port_findings(checker) == port_findings(Checker(design))


def port_findings(checker: Checker) -> dict[str, list]:
    """FABRIC-PORT's findings by object (the compute plane's figures, FABRIC-OVERSUB,
    are another rule's matter)."""
    return {obj: found for (rule, obj), found in filed(checker).items() if rule == "FABRIC-PORT"}


def same_as_full(checker: Checker) -> bool:
    return filed(checker) == filed(Checker(checker.design))


def test_renaming_a_device_a_rack_finding_quotes_re_checks_its_rack_alone(catalog):
    """RACK-OVERLAP, filed under the rack, quotes the devices that overlap."""
    from workbench.model import Device

    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    types = design.device_types
    rack, node = next(
        (r, d)
        for r in design.iter_racks()
        for d in r.devices
        if is_gpu_server(types[d.device_type])
    )
    rack.devices.append(Device("d-extra", "extra-node", node.device_type, position=node.position))
    design.reindex()
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    assert any(f.rule == "RACK-OVERLAP" and node.name in f.message for f in checker.findings())
    calls.clear()
    checker.update(ops.apply(design, ops.RenameDevice(node.id, "renamed-node")).change)
    assert same_as_full(checker)
    assert calls["RACK-OVERLAP"] == 1  # the node's rack, no other
    # A device no rack finding names re-checks no rack.
    calls.clear()
    other = next(d for d in rack.devices if d.id not in (node.id, "d-extra"))
    checker.update(ops.apply(design, ops.RenameDevice(other.id, "renamed-other")).change)
    assert same_as_full(checker)
    assert calls["RACK-OVERLAP"] == 0


def test_name_clashes_follow_a_rename_of_their_rack_and_a_move_to_another(catalog):
    """NAME-DUPLICATE quotes the racks of the devices sharing a name."""
    from workbench.model.hall_edits import move_devices
    from workbench.model.placement import free_ranges

    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    types = design.device_types
    first, second = [d for _r, d in design.iter_devices() if is_gpu_server(types[d.device_type])][
        :2
    ]
    second.name = first.name
    design.reindex()
    checker = Checker(design)
    home = design.index.rack_of(second.id)
    assert any(f.rule == "NAME-DUPLICATE" and home.name in f.message for f in checker.findings())
    checker.update(ops.apply(design, ops.RenameRack(home.id, "renamed-rack")).change)
    assert same_as_full(checker)
    height = int(types[second.device_type].u_height)
    rack_id, u = next(
        (rack.id, run.start)
        for rack in design.iter_racks()
        if rack.id != home.id
        for run in free_ranges(design, rack)
        if len(run) >= height
    )
    undo = ops.apply(design, move_devices(design, rack_id, [(second.id, u, "front")]))
    checker.update(undo.change)
    assert same_as_full(checker)
    checker.update(ops.apply(design, undo.inverse).change)
    assert same_as_full(checker)


def test_renaming_a_spinning_appliance_of_a_hot_tier_rewrites_its_tier_s_finding(catalog):
    """STORAGE-HOT-FLASH files under the tier and quotes its appliances' names."""
    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    tier = next(t for t in design.storage_tiers if t.tier == "hot")
    appliance = design.index.devices[tier.device_ids[0]][1]
    item = design.device_types[appliance.device_type]
    design.device_types[item.slug] = dataclasses.replace(item, props={**item.props, "media": "hdd"})
    design.index.touch_types()
    checker = Checker(design)
    assert any(
        f.rule == "STORAGE-HOT-FLASH" and appliance.name in f.message for f in checker.findings()
    )
    checker.update(ops.apply(design, ops.RenameDevice(appliance.id, "renamed-appliance")).change)
    assert same_as_full(checker)
