"""A catalog item replaced in the design's snapshot (``ReplaceDeviceType``) re-runs every
rule whose verdict reads that item, so the incremental checker agrees with a full check:
FABRIC-OVERSUB reads which of the compute plane's devices are hosts, and FABRIC-PORT
files a link's problem under its ``a`` end, a device whose own item did not change."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from test_rules_quoted_names import counted_rules, filed

from workbench.catalog import load_catalog
from workbench.catalog.item import is_gpu_server
from workbench.model import ops
from workbench.model.type_ops import ReplaceDeviceType
from workbench.rules import Checker
from workbench.templates import build_template


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def a_server(design):
    types, index = design.device_types, design.index
    return next(
        d
        for _r, d in design.iter_devices()
        if is_gpu_server(types[d.device_type]) and index.device_links.get(d.id)
    )


def test_a_server_item_that_is_no_host_re_runs_the_oversubscription(catalog):
    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    index = design.index
    # Half of one leaf's uplinks taken out: the leaf tier is oversubscribed.
    leaf = index.links[min(index.device_links[a_server(design).id])].b_device
    uplinks = sorted(
        i
        for i in index.device_links[leaf]
        if index.links[i].a_device == leaf
        and not is_gpu_server(
            design.device_types[index.devices[index.links[i].b_device][1].device_type]
        )
    )
    ops.apply(design, ops.RemoveLinks(tuple(uplinks[: len(uplinks) // 2])))
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    assert any(f.rule == "FABRIC-OVERSUB" for f in checker.findings())
    # The servers' item, now a switch's: the plane has no hosts, so no oversubscribed tier.
    item = design.device_types[a_server(design).device_type]
    replaced = ops.apply(design, ReplaceDeviceType(dataclasses.replace(item, kind="switch")))
    checker.update(replaced.change)
    assert not any(f.rule == "FABRIC-OVERSUB" for f in Checker(design).findings())
    assert filed(checker) == filed(Checker(design))
    # And back: the finding returns.
    checker.update(ops.apply(design, replaced.inverse).change)
    assert filed(checker) == filed(Checker(design))
    # A plain device edit (its role, no link, no item) leaves it alone.
    calls.clear()
    server = a_server(design)
    checker.update(ops.apply(design, ops.SetDeviceField(server.id, "role", "cpu-server")).change)
    assert calls["FABRIC-OVERSUB"] == 0
    assert filed(checker) == filed(Checker(design))


def test_a_far_end_item_making_a_link_wrong_re_checks_the_link_s_a_end(catalog):
    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    index, types = design.index, design.device_types
    server = a_server(design)
    # The server's management link: the server is its ``a`` end, the switch its ``b``.
    link = next(
        index.links[i]
        for i in sorted(index.device_links[server.id])
        if index.links[i].a_port == "mgmt0"
    )
    assert link.a_device == server.id
    switch_type = index.devices[link.b_device][1].device_type
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    assert not any(f.object_id == server.id for f in checker.findings())
    # The switch's item with an OSFP cage where its twisted-pair port was: the servers'
    # links to it are wrong, filed under the servers, whose own items did not change.
    item = types[switch_type]
    cages = tuple(
        dataclasses.replace(i, type="400gbase-x-osfp") if i.name == link.b_port else i
        for i in item.interfaces
    )
    calls.clear()
    checker.update(
        ops.apply(design, ReplaceDeviceType(dataclasses.replace(item, interfaces=cages))).change
    )
    assert any(
        f.rule == "FABRIC-PORT" and f.object_id == server.id for f in Checker(design).findings()
    )
    assert filed(checker) == filed(Checker(design))


def test_a_gpu_item_replaced_re_checks_the_nodes_fitted_with_it(catalog):
    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    server = design.device_types[a_server(design).device_type]
    gpu = design.device_types[server.gpu or ""]
    checker = Checker(design)
    assert not any(f.rule == "NODE-HOST-RAM" for f in checker.findings())
    # No device is of the GPU's item, but every node fitted with it reads it: more GPU
    # memory than the node's host memory is a finding on each of them.
    replaced = ops.apply(design, ReplaceDeviceType(dataclasses.replace(gpu, hbm_gb=1000)))
    checker.update(replaced.change)
    assert any(f.rule == "NODE-HOST-RAM" for f in Checker(design).findings())
    assert filed(checker) == filed(Checker(design))
    checker.update(ops.apply(design, replaced.inverse).change)
    assert filed(checker) == filed(Checker(design))


def test_port_tables_outlive_edits_that_touch_no_item_and_follow_a_swapped_one(
    catalog, monkeypatch
):
    """FABRIC-PORT's port-name tables are kept per catalog snapshot: a cabled node's
    removal and its undo build none anew once read (they were built after every edit); an item
    put in the snapshot without the checker being told is still read as itself (the
    tables start afresh when a slug's item is another), as a full check reads it."""
    from workbench.model import requests
    from workbench.rules import fabric

    design = build_template("dgx-h100-superpod", gpus=64, catalog=catalog)
    index, types = design.index, design.device_types
    server = a_server(design)
    checker = Checker(design)
    built: list[str] = []
    made = fabric._PortNames.__init__

    def counting(self, item):
        built.append(item.slug)
        made(self, item)

    monkeypatch.setattr(fabric._PortNames, "__init__", counting)
    for _ in range(2):
        built.clear()
        applied = ops.apply(design, requests.delete(design, [server.id]))
        checker.update(applied.change)
        checker.update(ops.apply(design, applied.inverse).change)
    assert built == []  # the first time round read the items, the second none
    assert filed(checker) == filed(Checker(design))
    # The switch at the server's management port swapped for one with a cage there,
    # behind the checker's back; the server's next edit re-reads its links.
    link = next(
        index.links[i]
        for i in sorted(index.device_links[server.id])
        if index.links[i].a_port == "mgmt0"
    )
    switch_type = index.devices[link.b_device][1].device_type
    item = types[switch_type]
    cages = tuple(
        dataclasses.replace(i, type="400gbase-x-osfp") if i.name == link.b_port else i
        for i in item.interfaces
    )
    types[switch_type] = dataclasses.replace(item, interfaces=cages)
    checker.update(ops.apply(design, ops.RenameDevice(server.id, "swapped")).change)
    applied = ops.apply(design, requests.delete(design, [server.id]))
    checker.update(applied.change)
    checker.update(ops.apply(design, applied.inverse).change)
    assert any(f.rule == "FABRIC-PORT" and f.object_id == server.id for f in checker.findings())
    # The server's own findings as a full check gives them (the others cabled to the
    # switch were not edited, so not re-checked: the checker was not told).
    assert switch_type in built
    mine = filed(checker)[("FABRIC-PORT", server.id)]
    assert mine and mine == filed(Checker(design))[("FABRIC-PORT", server.id)]
