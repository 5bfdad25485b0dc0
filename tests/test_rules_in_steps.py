"""The window's first check in steps (issue 21): every step small, the findings those of
a one-shot check, and an edit made between two steps never leaves stale findings.

The design is the sample with faults for the rules whose full-check shortcuts run in
steps: servers whose names clash or map to no host name (NODE-HOSTNAME), servers off
the compute plane (FABRIC-UNCABLED), a port cabled twice (FABRIC-PORT)."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.catalog import load_catalog
from workbench.catalog.item import is_gpu_server
from workbench.model import Design, ops
from workbench.rules import Checker, check_design
from workbench.rules import fabric as fabric_rules
from workbench.rules import identity as identity_rules
from workbench.rules import port_suspects as suspect_pass
from workbench.rules import storage as storage_rules
from workbench.templates import sample_design


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture(autouse=True)
def small_steps(monkeypatch):
    """Steps of a few items, so even the sample's passes span many steps."""
    monkeypatch.setattr(suspect_pass, "STEP_LINKS", 97)
    monkeypatch.setattr(identity_rules, "STEP_DEVICES", 5)
    monkeypatch.setattr(fabric_rules, "STEP_ITEMS", 53)
    monkeypatch.setattr(storage_rules, "STEP_RACKS", 2)


def servers(design: Design) -> list:
    types = design.device_types
    return [d for _r, d in design.iter_devices() if is_gpu_server(types.get(d.device_type))]


def faulty(catalog) -> Design:
    design = sample_design(catalog)
    gpus = servers(design)
    gpus[3].name = gpus[2].name  # two servers, one host name
    gpus[5].name = "gpu 05!"  # maps to no host name
    off = {gpus[7].id, gpus[8].id}  # taken off every plane
    design.links[:] = [
        link for link in design.links if link.a_device not in off and link.b_device not in off
    ]
    design.links.append(dataclasses.replace(design.links[0], id="l-twice"))
    design.reindex()
    return design


def rules_of(findings) -> set[str]:
    return {f.rule for f in findings}


def test_the_faults_are_found(catalog):
    found = rules_of(check_design(faulty(catalog)))
    assert {"NODE-HOSTNAME", "FABRIC-UNCABLED", "FABRIC-PORT"} <= found


def test_a_check_in_steps_gives_the_findings_of_a_one_shot_check(catalog):
    design = faulty(catalog)
    checker = Checker(design, check_now=False)
    steps = list(checker.recheck_in_steps(chunk=7))
    assert len(steps) > len(design.links) // 97  # the passes took steps of their own
    assert checker.findings() == check_design(design)


def edits(design: Design) -> list:
    """Edits that move the faulted rules' verdicts: a clash resolved, a server
    uncabled, a clash made, the doubled link removed."""
    gpus = servers(design)
    cabled = next(link for link in design.links if link.a_device == gpus[10].id)
    return [
        ops.RenameDevice(gpus[3].id, "gpu-renamed"),
        ops.RemoveLink(cabled.id),
        ops.RenameDevice(gpus[11].id, gpus[12].name.upper()),
        ops.RemoveLink("l-twice"),
        ops.RemoveDevice(gpus[20].id),
    ]


@pytest.mark.parametrize("which", range(5))
def test_an_edit_between_steps_leaves_no_stale_finding(catalog, which):
    """As the window does: the edit is told to the checker between steps, the steps run
    on, and the edit's change is applied once they are done.  Tried at many points of
    the check: inside the suspects' passes, between rules, and at the end."""
    probe = faulty(catalog)
    total = sum(1 for _ in Checker(probe, check_now=False).recheck_in_steps(chunk=7))
    for at in range(0, total + 1, max(1, total // 23)):
        design = faulty(catalog)
        checker = Checker(design, check_now=False)
        steps = checker.recheck_in_steps(chunk=7)
        for _ in range(at):
            next(steps, None)
        change = ops.apply(design, edits(design)[which]).change
        checker.edited(change)
        for _ in steps:
            pass
        checker.update(change)
        expected = check_design(design)
        assert sorted(checker.findings(), key=repr) == sorted(expected, key=repr), at


def test_edits_keep_restarting_a_rule_only_so_often(catalog):
    """A stream of edits restarts the rule under way a few times, then it runs to its
    end in one step: the check always ends."""
    design = faulty(catalog)
    checker = Checker(design, check_now=False)
    steps = checker.recheck_in_steps(chunk=1)
    gpus = servers(design)
    pending = None
    for taken, _fraction in enumerate(steps):
        if taken > 100_000:
            raise AssertionError("the check did not end")
        change = ops.apply(design, ops.RenameDevice(gpus[30].id, f"gpu-edit-{taken}")).change
        checker.edited(change)
        pending = change if pending is None else pending | change
    assert pending is not None
    checker.update(pending)
    assert sorted(checker.findings(), key=repr) == sorted(check_design(design), key=repr)


def test_a_link_removed_while_the_port_pass_runs_misses_no_doubled_port(catalog):
    """FABRIC-PORT's suspects read the link list a chunk per step: a link removed
    before the chunk under way shifts the list, so one link would never be read.  The
    doubled port's second link sits at a chunk's start; an unrelated link is removed at
    every step of the pass.  The rule's pass must start again, not miss the fault."""
    step = suspect_pass.STEP_LINKS

    def design_with_fault() -> Design:
        design = sample_design(catalog)
        design.links.insert(step, dataclasses.replace(design.links[0], id="l-twice"))
        design.reindex()
        return design

    probe = design_with_fault()
    checker = Checker(probe, check_now=False)
    port_steps = [
        n
        for n, _ in enumerate(checker.recheck_in_steps(chunk=7))
        if "FABRIC-PORT" in checker._by_rule and list(checker._by_rule)[-1] == "FABRIC-PORT"
    ]
    assert port_steps
    twins = {probe.links[0].a_device, probe.links[0].b_device}
    for at in port_steps[:80]:
        design = design_with_fault()
        checker = Checker(design, check_now=False)
        steps = checker.recheck_in_steps(chunk=7)
        for _ in range(at + 1):
            next(steps)
        gone = next(
            link for link in design.links[1:step] if not {link.a_device, link.b_device} & twins
        )
        change = ops.apply(design, ops.RemoveLink(gone.id)).change
        checker.edited(change)
        for _ in steps:
            pass
        checker.update(change)
        found = sorted(checker.findings(), key=repr)
        assert found == sorted(check_design(design), key=repr), at
        assert any(f.rule == "FABRIC-PORT" for f in found)


def test_the_storage_figures_are_read_ahead_in_steps_and_kept_for_the_rules(catalog):
    """STORAGE-HOT-TIER's warm-up reads the storage figures a piece per step; the rule
    then reads them from the check's memo, and the findings are a one-shot check's."""
    from workbench.rules import REGISTRY, RuleContext
    from workbench.rules.storage import figures_in_steps

    design = faulty(catalog)
    ctx = RuleContext(design)
    assert REGISTRY["STORAGE-HOT-TIER"].warm_in_steps is figures_in_steps
    assert sum(1 for _ in figures_in_steps(ctx)) >= 3
    assert ("storage-figures", "") in ctx._memo
    checker = Checker(design, check_now=False)
    for _ in checker.recheck_in_steps(chunk=7):
        pass
    assert checker.findings() == check_design(design)


def test_a_warm_up_that_raises_leaves_the_rule_to_report(catalog, monkeypatch):
    """A warm-up only saves time: one that raises stops, and the rule still runs."""
    from workbench.rules import REGISTRY

    def broken(_ctx):
        yield
        raise RuntimeError("odd data")

    rule = REGISTRY["STORAGE-HOT-TIER"]
    monkeypatch.setitem(REGISTRY, rule.id, dataclasses.replace(rule, warm_in_steps=broken))
    design = faulty(catalog)
    checker = Checker(design, check_now=False)
    for _ in checker.recheck_in_steps(chunk=7):
        pass
    assert checker.findings() == check_design(design)


def test_the_link_tables_built_in_steps_are_those_built_at_once(catalog):
    design = faulty(catalog)
    index = design.index
    steps = sum(1 for _ in index.link_tables_in_steps(100))
    assert steps >= len(design.links) // 100 and index.links_indexed
    fresh = faulty(catalog).index
    assert index.links == fresh.links
    assert dict(index.device_links) == dict(fresh.device_links)


@pytest.mark.parametrize("edit", ["remove", "add"])
def test_link_tables_in_steps_are_not_kept_across_a_cabling_edit(catalog, edit):
    """A link edit between the steps: what the steps read is dropped, and the tables
    the readers then get are the edited design's."""
    design = faulty(catalog)
    index = design.index
    steps = index.link_tables_in_steps(100)
    next(steps)
    next(steps)
    if edit == "remove":
        ops.apply(design, ops.RemoveLink(design.links[-1].id))
    else:
        extra = dataclasses.replace(design.links[0], id="l-extra", a_port="p-extra")
        ops.apply(design, ops.AddLink(extra))
    for _ in steps:
        pass
    fresh = dataclasses.replace(design)
    fresh.reindex()
    assert index.links == fresh.index.links
    assert dict(index.device_links) == dict(fresh.index.device_links)


@pytest.mark.parametrize("edit", ["none", "rename-read", "rename-unread", "remove", "read"])
def test_racks_read_ahead_in_steps_are_current_at_the_next_read(catalog, edit):
    """per_rack_in_steps reads every rack a few per step for the next per_rack; a rack an
    edit touches meanwhile (read already or not yet) is read again by that call, and a
    reader that read the table meanwhile keeps its own."""
    design = faulty(catalog)
    index = design.index

    calls: list[str] = []

    def names(rack):
        calls.append(rack.id)
        return tuple(d.name for d in rack.devices)

    racks = list(design.iter_racks())
    steps = index.per_rack_in_steps("test-names", 1, names, None, 2)
    for _ in range(3):
        next(steps)
    first, last = racks[0].devices[0], racks[-1].devices[-1]
    if edit == "rename-read":
        ops.apply(design, ops.RenameDevice(first.id, "renamed-first"))
    elif edit == "rename-unread":
        ops.apply(design, ops.RenameDevice(last.id, "renamed-last"))
    elif edit == "remove":
        ops.apply(design, ops.RemoveDevice(first.id))
    elif edit == "read":
        index.per_rack("test-names", 1, names)
    for _ in steps:
        pass
    calls.clear()
    table = index.per_rack("test-names", 1, names)
    assert len(calls) == (0 if edit in ("none", "read") else 1)  # only the rack edited
    got = {rack_id: value for rack_id, (_rack, value) in table.items()}
    assert got == {rack.id: names(rack) for rack in design.iter_racks()}


@pytest.mark.parametrize("edit", [False, True])
def test_the_storage_bandwidth_summed_in_steps_is_the_one_pass(catalog, edit):
    """The storage plane's Gb/s per host summed a few links per step equals the one pass
    (the same sums, in the same order); a cabling edit between two steps keeps nothing."""
    from workbench.calc.fabric.planes import plane_structure
    from workbench.calc.storage_clients import (
        PlaneBandwidth,
        kept_bandwidth,
        kept_bandwidth_in_steps,
    )

    design = faulty(catalog)
    links = plane_structure(design, "storage").host_links
    assert len(links) > 6
    steps = kept_bandwidth_in_steps(design, 3)
    next(steps)
    if edit:
        ops.apply(design, ops.RemoveLink(links[0].id))
    taken = 1 + sum(1 for _ in steps)
    assert taken >= len(links) // 3 or edit
    kept = design.index.fabric_cache.get("storage_bandwidth")
    assert (kept is None) == edit
    one_pass = PlaneBandwidth(design, plane_structure(design, "storage").host_links)
    assert kept_bandwidth(design).gbps == one_pass.gbps
    assert one_pass.gbps  # the sample's storage plane has hosts


def test_the_racks_draws_read_in_steps_give_the_walked_pue(catalog):
    """The racks' cooling and draws read a few racks per step are kept for the PUE,
    which equals a walk of every rack."""
    from workbench.calc.summary import cooling_pue, design_pue_in_steps, walked_pue

    design = faulty(catalog)
    rack = next(iter(design.iter_racks()))
    ops.apply(design, ops.SetRackFields(rack.id, {"cooling": "liquid"}))
    taken = sum(1 for _ in design_pue_in_steps(design, 2))
    assert taken > len(list(design.iter_racks())) // 2  # in steps
    kept = design.index._per_rack["rack-it-watts"]
    assert cooling_pue(design) == walked_pue(design) != 1.3
    assert design.index._per_rack["rack-it-watts"][1] is kept[1]  # kept, not read anew
