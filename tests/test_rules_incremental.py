"""What an edit re-runs: a rename re-checks names, a switch dropped into a rack leaves the
design-wide storage and fabric rules alone, and either way the findings equal a full
check (issue 21: a rename at 100,000 GPUs re-ran STORAGE-HOT-TIER and FABRIC-UNCABLED)."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_counting import cabled, counted_rules

from workbench.catalog import load_catalog
from workbench.model import Change, Device, edit, ops
from workbench.model.placement import free_ranges
from workbench.rules import Checker, check_design
from workbench.templates import sample_design

DESIGN_RULES = ("STORAGE-HOT-TIER", "STORAGE-CLIENT", "STORAGE-CHECKPOINT")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def same_as_full(checker: Checker) -> bool:
    return sorted(checker.findings(), key=repr) == sorted(check_design(checker.design), key=repr)


def uncabled_design(catalog):
    """The sample with one GPU server's compute links taken out (FABRIC-UNCABLED)."""
    design = sample_design(catalog)
    node = next(d for _r, d in design.iter_devices() if d.device_type == "nvidia-dgx-h100")
    compute = {n.id for n in design.networks if n.plane == "compute"}
    links = tuple(
        i for i in design.index.device_links[node.id] if design.index.links[i].network in compute
    )
    ops.apply(design, ops.RemoveLinks(links))
    return design, node


def test_a_rename_reruns_a_design_rule_only_when_a_finding_names_the_object(catalog):
    design, lonely = uncabled_design(catalog)
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    assert any(f.rule == "FABRIC-UNCABLED" for f in checker.findings())
    other = next(
        d
        for _r, d in design.iter_devices()
        if d.device_type == "nvidia-dgx-h100" and d is not lonely
    )
    calls.clear()
    edit.rename_device(design, other.id, "renamed-node")
    checker.update(Change(devices=frozenset({other.id}), labels=frozenset({other.id})))
    assert not set(DESIGN_RULES) & set(calls), calls
    # FABRIC-UNCABLED is a device rule: asked about the renamed node alone.
    assert calls["FABRIC-UNCABLED"] == 1
    assert same_as_full(checker)
    # The node a finding names: that rule runs again and its message says the new name.
    calls.clear()
    edit.rename_device(design, lonely.id, "the-lonely-node")
    checker.update(Change(devices=frozenset({lonely.id}), labels=frozenset({lonely.id})))
    assert calls["FABRIC-UNCABLED"] == 1
    assert any("the-lonely-node" in f.message for f in checker.findings())
    assert same_as_full(checker)


def test_a_switch_dropped_into_a_rack_leaves_storage_and_fabric_rules_alone(catalog):
    design, _lonely = uncabled_design(catalog)
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    rack = next(r for r in design.iter_racks() if free_ranges(design, r))
    spot = free_ranges(design, rack)[0].start
    device = Device(design.index.new_id("device"), "mgmt-new", "generic-mgmt-48p-10g", spot)
    calls.clear()
    applied = ops.apply(design, ops.AddDevice(rack.id, device))
    checker.update(applied.change)
    assert not {"STORAGE-HOT-TIER", "STORAGE-CLIENT"} & set(calls), calls
    # FABRIC-UNCABLED (a device rule) is asked about the new switch, not the design.
    assert calls["FABRIC-UNCABLED"] == 1
    assert same_as_full(checker)
    # Undoing the drop takes a switch out: the removal says what it was.
    checker.update(ops.apply(design, applied.inverse).change)
    assert not {"STORAGE-HOT-TIER", "STORAGE-CLIENT"} & set(calls), calls
    assert calls["FABRIC-UNCABLED"] == 1
    assert same_as_full(checker)
    calls.clear()
    # A GPU server dropped in does reach them.
    server = Device(design.index.new_id("device"), "gpu-new", "nvidia-dgx-h100", 1)
    target = next(
        r for r in design.iter_racks() if any(len(run) >= 8 for run in free_ranges(design, r))
    )
    start = next(run.start for run in free_ranges(design, target) if len(run) >= 8)
    server = dataclasses.replace(server, position=start)
    added = ops.apply(design, ops.AddDevice(target.id, server))
    checker.update(added.change)
    assert calls["FABRIC-UNCABLED"] == 1
    assert same_as_full(checker)
    assert any(f.object_id == server.id for f in checker.findings())
    # Its removal drops its finding; nothing else is asked.
    checker.update(ops.apply(design, added.inverse).change)
    assert calls["FABRIC-UNCABLED"] == 1
    assert not any(f.object_id == server.id for f in checker.findings())
    assert same_as_full(checker)


def test_labels_survive_only_where_nothing_else_touched_the_object():
    rename = Change(devices=frozenset({"d1"}), labels=frozenset({"d1"}))
    move = Change(devices=frozenset({"d1"}), moved=frozenset({"d1"}))
    assert (rename | move).labels == frozenset()
    assert Change.combine([rename, move]).labels == frozenset()
    other = Change(devices=frozenset({"d2"}), labels=frozenset({"d2"}))
    assert (rename | other).labels == frozenset({"d1", "d2"})
    assert Change.combine([rename, other]).labels == frozenset({"d1", "d2"})


def test_figures_cached_by_cabling_follow_every_link_edit(catalog):
    """FABRIC-UNCABLED's compute ends and the storage plane's Gb/s per host are kept per
    cabling version: a GPU server dropped in reuses them, and a link added or taken out
    (or a server removed with its links) is seen at once, as a full check sees it."""
    design, lonely = uncabled_design(catalog)
    checker = Checker(design)
    compute = {n.id for n in design.networks if n.plane == "compute"}
    storage = {n.id for n in design.networks if n.plane == "storage"}
    other = next(
        d
        for _r, d in design.iter_devices()
        if d.device_type == "nvidia-dgx-h100" and d is not lonely
    )
    taken = [
        design.index.links[i]
        for i in sorted(design.index.device_links[other.id])
        if design.index.links[i].network in compute | storage
    ]
    assert taken, "the sample cables its GPU servers"
    removed = ops.apply(design, ops.RemoveLinks(tuple(link.id for link in taken)))
    checker.update(removed.change)
    assert any(f.rule == "FABRIC-UNCABLED" and other.id in f.objects for f in checker.findings())
    assert same_as_full(checker)
    checker.update(ops.apply(design, removed.inverse).change)
    assert not any(
        f.rule == "FABRIC-UNCABLED" and other.id in f.objects for f in checker.findings()
    )
    assert same_as_full(checker)
    # The cabled server removed (its links with it), then put back.
    gone = ops.apply(design, ops.RemoveDevice(other.id))
    checker.update(gone.change)
    assert same_as_full(checker)
    checker.update(ops.apply(design, gone.inverse).change)
    assert same_as_full(checker)


def test_each_everyday_edit_and_its_undo_leave_the_findings_of_a_full_check(catalog):
    """The six edits bench_edits.py times (drop a GPU node, move one to another rack,
    rename one, remove a cabled one, and the undos), on a generated cabled design:
    after each, the incremental findings equal a full check, so the figures kept by
    cabling (compute plane, storage bandwidth) follow every edit."""
    from workbench.catalog.item import is_gpu_server
    from workbench.model import requests
    from workbench.model.hall_edits import move_devices
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    checker = Checker(design)
    assert same_as_full(checker)
    assert not any(f.rule == "FABRIC-UNCABLED" for f in checker.findings())
    types = design.device_types
    nodes = [d.id for _r, d in design.iter_devices() if is_gpu_server(types[d.device_type])]
    cabled = [n for n in nodes if design.index.device_links.get(n)]
    assert len(cabled) >= 3
    height = int(types[design.find_device(nodes[0])[1].device_type].u_height)
    spots = [
        (rack.id, run.start)
        for rack in design.iter_racks()
        for run in free_ranges(design, rack)
        if len(run) >= height
    ]
    assert len(spots) >= 2

    def step(op: ops.Op, what: str) -> ops.Op:
        applied = ops.apply(design, op)
        checker.update(applied.change)
        assert same_as_full(checker), what
        return applied.inverse

    rack_id, u = spots[0]
    undo_drop = step(requests.place_new(design, catalog, rack_id, NODE_SLUG, u), "drop")
    # The new node is on no fabric yet: the edits make findings come and go.
    assert any(f.rule == "FABRIC-UNCABLED" for f in checker.findings())
    step(undo_drop, "undo the drop")
    mover = cabled[0]
    home = design.index.rack_of(mover).id
    rack_id, u = next((r, u) for r, u in spots if r != home)
    undo_move = step(move_devices(design, rack_id, [(mover, u, "front")]), "move")
    step(undo_move, "undo the move")
    step(ops.RenameDevice(cabled[1], "renamed-node"), "rename")
    before = Counter(f.rule for f in checker.findings())
    undo_remove = step(requests.delete(design, [cabled[2]]), "remove a cabled node")
    step(undo_remove, "undo the removal")
    assert Counter(f.rule for f in checker.findings()) == before


NODE_SLUG = "nvidia-dgx-h100"


def test_a_removal_and_its_undo_read_far_ends_ports_only_where_they_must(catalog):
    """Removing a cabled node: FABRIC-PORT re-checks none of the switches that only
    lost links to it and had no finding (taking links away cannot make one), but does
    re-check one whose finding names a removed link (its port cabled twice ends); the
    undo reads only the links it brings back at the switches (Rule.relinked), which
    brings that finding back.  A full check agrees after each."""
    from workbench.model import Link, requests
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    index = design.index
    node, other, switch, port, link = cabled(design)
    # A second cable from another node onto the same switch port: a finding that names
    # the node's link, under the switch (the other node's made-up port is its own).
    double = Link(index.new_id("link"), other, "spare0", switch, port, link.network)
    ops.apply(design, ops.AddLink(double))
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    assert any(
        f.rule == "FABRIC-PORT" and f.object_id == switch and link.id in f.objects
        for f in checker.findings()
    )
    ends = {
        lk.a_device if lk.b_device == node else lk.b_device
        for lk in (index.links[i] for i in index.device_links[node])
    }
    assert len(ends) > 2
    calls.clear()
    applied = ops.apply(design, requests.delete(design, [node]))
    checker.update(applied.change)
    # The switch with the finding, and those in the node's own rack (the change names
    # that rack: the switches there are re-checked as any device in it would be).
    rechecked = {switch} | {e for e in ends if index.rack_of(e).id in applied.change.racks}
    assert len(rechecked) < len(ends)
    # And the other node, whose finding quotes the switch's name (Rule.quotes_others).
    rechecked.add(other)
    assert calls["FABRIC-PORT"] == len(rechecked)
    assert same_as_full(checker)
    assert not any(f.rule == "FABRIC-PORT" and f.object_id == switch for f in checker.findings())
    calls.clear()
    checker.update(ops.apply(design, applied.inverse).change)
    in_rack = {e for e in ends if index.rack_of(e).id in applied.change.racks}
    # The others: Rule.relinked; the other node: its finding quotes the switch.
    assert calls["FABRIC-PORT"] == len(in_rack | {node, other})
    assert same_as_full(checker)
    assert any(f.rule == "FABRIC-PORT" and f.object_id == switch for f in checker.findings())


def test_links_brought_to_clean_switches_find_what_a_full_check_finds(catalog):
    """Bad links added in one edit to switches without findings (a port the switch
    lacks, a port taken twice, a loop back to itself, a link whose ends cannot run
    together) are read alone (Rule.relinked), not every link of the switches, and give
    what a full check gives, in its order; their removal ends the findings."""
    from workbench.catalog.item import is_gpu_server
    from workbench.model import Link
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    index = design.index
    types = design.device_types
    nodes = [d.id for _r, d in design.iter_devices() if is_gpu_server(types[d.device_type])]
    first = index.links[min(index.device_links[nodes[0]])]
    switch = first.b_device if first.a_device == nodes[0] else first.a_device
    taken = first.b_port if first.b_device == switch else first.a_port
    network = first.network
    new_ids = iter(index.new_ids("link", 4))
    bad = [
        Link(next(new_ids), nodes[1], "spare0", switch, "p99", network),
        Link(next(new_ids), nodes[2], "compute0", switch, taken, network),
        Link(next(new_ids), switch, "p98", switch, "p97", network),
        Link(next(new_ids), nodes[3], "compute1", switch, taken, network, speed_gbps=25),
    ]
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    assert not any(f.object_id == switch for f in checker.findings())
    applied = ops.apply(design, ops.Batch(tuple(ops.AddLink(link) for link in bad)))
    calls.clear()
    checker.update(applied.change)
    assert calls["FABRIC-PORT"] == 0  # every end without a finding: the links alone

    def filed(checker: Checker) -> dict[tuple[str, str], list]:
        """Each object's findings of each rule, in the order the rule gave them."""
        return {(rule.id, object_id): found for rule, object_id, found in checker.filed()}

    assert filed(checker) == filed(Checker(design))
    assert sum(f.object_id == switch for f in checker.findings() if f.rule == "FABRIC-PORT") > 2
    checker.update(ops.apply(design, applied.inverse).change)
    assert filed(checker) == filed(Checker(design))
    assert not any(f.object_id == switch for f in checker.findings())


def test_removing_a_server_re_checks_the_server_cabled_to_it_back_to_back(catalog):
    """A server whose only compute link runs to another server loses the fabric when
    that server goes: the removal names its links' far ends, so FABRIC-UNCABLED (a
    device rule) re-checks it, and undoing the removal clears the finding again."""
    from workbench.model import Link

    design, lonely = uncabled_design(catalog)
    other = next(
        d
        for _r, d in design.iter_devices()
        if d.device_type == "nvidia-dgx-h100" and d is not lonely
    )
    compute = next(n.id for n in design.networks if n.plane == "compute")
    link = Link(design.index.new_id("link"), lonely.id, "compute0", other.id, "compute0", compute)
    checker = Checker(design)
    checker.update(ops.apply(design, ops.AddLink(link)).change)
    assert not any(
        f.object_id == lonely.id for f in checker.findings() if f.rule == "FABRIC-UNCABLED"
    )
    assert same_as_full(checker)
    removed = ops.apply(design, ops.RemoveDevice(other.id))
    checker.update(removed.change)
    assert any(f.object_id == lonely.id for f in checker.findings() if f.rule == "FABRIC-UNCABLED")
    assert same_as_full(checker)
    checker.update(ops.apply(design, removed.inverse).change)
    assert not any(
        f.object_id == lonely.id for f in checker.findings() if f.rule == "FABRIC-UNCABLED"
    )
    assert same_as_full(checker)


def test_host_name_clashes_follow_renames_moves_removals_and_undos(catalog):
    """NODE-HOSTNAME is a device rule reading the other servers of one host name: a
    rename onto another server's host name (the model refuses only equal names) shows
    at once, a move that changes which server comes first re-words it, and a removal
    or undo re-checks the server left alone (a full check agrees after each)."""
    from workbench.catalog.item import is_gpu_server
    from workbench.model.hall_edits import move_devices
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=256, catalog=catalog)
    checker = Checker(design)
    types = design.device_types
    first, second = [d for _r, d in design.iter_devices() if is_gpu_server(types[d.device_type])][
        :2
    ]

    def clashes() -> list[tuple[str, ...]]:
        return [f.objects for f in checker.findings() if f.rule == "NODE-HOSTNAME"]

    def step(op: ops.Op) -> ops.Op:
        applied = ops.apply(design, op)
        checker.update(applied.change)
        assert same_as_full(checker), op
        return applied.inverse

    assert clashes() == []
    undo_rename = step(ops.RenameDevice(first.id, second.name.upper()))
    assert clashes() == [(first.id, second.id)]
    # Moved behind the other server, the renamed one is now the second holder.
    later = list(design.iter_racks())[-1]
    spot = next(run.start for run in free_ranges(design, later) if len(run) >= 8)
    undo_move = step(move_devices(design, later.id, [(first.id, spot, "front")]))
    assert clashes() == [(second.id, first.id)]
    step(undo_move)
    assert clashes() == [(first.id, second.id)]
    undo_remove = step(ops.RemoveDevice(second.id))
    assert clashes() == []
    step(undo_remove)
    assert clashes() == [(first.id, second.id)]
    step(undo_rename)
    assert clashes() == []


def test_name_duplicate_re_runs_only_when_an_edit_can_make_or_end_a_clash(catalog):
    """A device dropped under a fresh name with no asset tag or serial cannot clash:
    NAME-DUPLICATE is not re-run; removing one of two devices sharing a serial (as an
    old file may hold) ends the clash, and undoing it brings it back."""
    design = sample_design(catalog)
    first, second = [d for _r, d in design.iter_devices()][:2]
    first.serial = second.serial = "SN-SHARED"
    design.reindex()
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))
    assert any(f.rule == "NAME-DUPLICATE" for f in checker.findings())
    rack = next(r for r in design.iter_racks() if free_ranges(design, r))
    spot = free_ranges(design, rack)[0].start
    device = Device(design.index.new_id("device"), "mgmt-fresh", "generic-mgmt-48p-10g", spot)
    calls.clear()
    dropped = ops.apply(design, ops.AddDevice(rack.id, device))
    checker.update(dropped.change)
    assert calls["NAME-DUPLICATE"] == 0
    assert same_as_full(checker)
    checker.update(ops.apply(design, dropped.inverse).change)
    assert same_as_full(checker)
    removed = ops.apply(design, ops.RemoveDevice(second.id))
    checker.update(removed.change)
    assert not any(f.rule == "NAME-DUPLICATE" for f in checker.findings())
    assert same_as_full(checker)
    checker.update(ops.apply(design, removed.inverse).change)
    assert any(f.rule == "NAME-DUPLICATE" for f in checker.findings())
    assert same_as_full(checker)


def test_name_duplicate_re_runs_after_a_removal_only_when_a_finding_names_what_went(catalog):
    """A removal makes no clash and ends only those naming what went: removing a device
    no NAME-DUPLICATE finding names (a cabled GPU node at 100,000 GPUs) does not walk
    every device; removing one of three devices sharing a name re-words the finding,
    removing a second ends it, and the undos bring each back (a full check agrees)."""
    design = sample_design(catalog)
    devices = [d for _r, d in design.iter_devices()]
    trio = devices[:3]
    for device in trio[1:]:
        device.name = trio[0].name
    design.reindex()
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))

    def holders() -> list[tuple[str, ...]]:
        return [f.objects for f in checker.findings() if f.rule == "NAME-DUPLICATE"]

    def step(op: ops.Op) -> ops.Op:
        applied = ops.apply(design, op)
        checker.update(applied.change)
        assert same_as_full(checker), op
        return applied.inverse

    assert holders() == [tuple(d.id for d in trio)]
    cabled = next(d for d in devices[3:] if design.index.device_links.get(d.id))
    calls.clear()
    undo_other = step(ops.RemoveDevice(cabled.id))
    assert calls["NAME-DUPLICATE"] == 0
    step(undo_other)
    assert calls["NAME-DUPLICATE"] == 0
    undo_first = step(ops.RemoveDevice(trio[0].id))
    assert calls["NAME-DUPLICATE"] == 1
    assert holders() == [(trio[1].id, trio[2].id)]
    undo_second = step(ops.RemoveDevice(trio[1].id))
    assert holders() == []
    step(undo_second)
    assert holders() == [(trio[1].id, trio[2].id)]
    step(undo_first)
    assert holders() == [tuple(d.id for d in trio)]


#: One edit of :func:`test_port_findings_follow_random_cabling_edits`: what, and a number
#: that picks its objects.
PORT_EDIT = st.tuples(
    st.sampled_from(["cable", "cable", "remove", "unlink", "undo", "redo"]),
    st.integers(0, 10**6),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(PORT_EDIT, min_size=1, max_size=8))
def test_port_findings_follow_random_cabling_edits(catalog, edits):
    """FABRIC-PORT after links brought to switches that had no finding (Rule.relinked:
    only the switch links on the brought links' physical ports are read), cabled nodes
    removed, links taken out, undone and redone in any order: each device's findings,
    in their order, are those of a full check.  A cable lands on a port that is free,
    taken, a lane of a split port, or missing, from a node's port or a switch's."""
    from workbench.model import Link
    from workbench.model.errors import EditError
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=64, catalog=catalog)
    index = design.index
    checker = Checker(design)
    undo: list[ops.Op] = []
    redo: list[ops.Op] = []
    for kind, n in edits:
        links = design.links
        if kind == "cable" and links:
            pick = links[n % len(links)]
            other = links[(n // 7) % len(links)]
            port = [pick.b_port, f"{pick.b_port.partition('/')[0]}/{1 + n % 4}", "p99"][n % 3]
            ends = [(other.a_device, "spare0"), (other.b_device, other.b_port)][(n // 3) % 2]
            link = Link(index.new_id("link"), *ends, pick.b_device, port, pick.network)
            op: ops.Op | None = ops.AddLink(link)
        elif kind == "remove":
            nodes = [d.id for _r, d in design.iter_devices() if index.device_links.get(d.id)]
            op = ops.RemoveDevice(nodes[n % len(nodes)]) if nodes else None
        elif kind == "unlink" and links:
            op = ops.RemoveLink(links[n % len(links)].id)
        elif kind == "undo" and undo:
            op = undo.pop()
        elif kind == "redo" and redo:
            op = redo.pop()
        else:
            op = None
        if op is None:
            continue
        try:
            applied = ops.apply(design, op)
        except EditError:
            continue
        (redo if kind == "undo" else undo).append(applied.inverse)
        if kind not in ("undo", "redo"):
            redo.clear()
        checker.update(applied.change)
        full = Checker(design)
        mine = {(r.id, o): found for r, o, found in checker.filed() if r.id == "FABRIC-PORT"}
        assert mine == {(r.id, o): f for r, o, f in full.filed() if r.id == "FABRIC-PORT"}
    assert same_as_full(checker)


def test_a_removal_re_checks_no_rack_of_the_switches_that_only_lost_links(catalog):
    """A cabled node taken out (and put back): the racks of the switches at its links'
    far ends hold the same devices, so no rack rule re-runs there, nor a device rule
    that reads no link on those switches (engine._relinked_only); the rules that read
    links still do.  A rack over its power budget among them keeps its finding, and a
    full check agrees after each edit."""
    from workbench.model import requests
    from workbench.templates import build_template

    design = build_template("dgx-h100-superpod", gpus=512, catalog=catalog)
    index = design.index
    node = cabled(design)[0]
    own_rack = index.rack_of(node).id
    ends = {
        lk.a_device if lk.b_device == node else lk.b_device
        for lk in (index.links[i] for i in index.device_links[node])
    }
    far_racks = {index.rack_of(e).id for e in ends} - {own_rack}
    assert far_racks
    # One far rack over its budget: its finding must stand through both edits.
    over = sorted(far_racks)[0]
    ops.apply(design, ops.SetRackFields(over, {"power_limit_kw": 0.5}))
    calls: Counter[str] = Counter()
    checker = Checker(design, rules=counted_rules(calls))

    def power_on(rack_id: str) -> bool:
        return any(f.rule == "RACK-POWER" and f.object_id == rack_id for f in checker.findings())

    assert power_on(over)
    for step in ("remove", "undo"):
        calls.clear()
        if step == "remove":
            applied = ops.apply(design, requests.delete(design, [node]))
            change = applied.change
        else:
            change = ops.apply(design, applied.inverse).change
        checker.update(change)
        # The node's own rack only (one rack rule run each), and the node itself, and
        # the devices of its rack, for the device rule that reads racks.
        assert calls["RACK-POWER"] == 1, step
        in_rack = {d.id for d in index.racks[own_rack][1].devices} | {node}
        assert calls["NODE-HOSTNAME"] <= len(in_rack), step
        # FABRIC-UNCABLED reads links: the far ends are still asked about.
        assert calls["FABRIC-PORT"] + calls["FABRIC-UNCABLED"] > 0, step
        assert power_on(over), step
        assert same_as_full(checker), step
