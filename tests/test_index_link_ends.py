"""The index's device → links table is made when first asked for, from the design's
link list; until then a device added is checked against the set of link ends (issue
21: a template's build never reads the table, and filling it link by link was a
seventh of a 1,000,000-GPU build).  Either way the index says what a fresh one says.
"""

from __future__ import annotations

import pytest
from store_designs import small_design

from workbench.model import ops
from workbench.model.design import Design, Device, Link
from workbench.model.index import DesignIndex, index_problems


def devices_of(design: Design) -> list[Device]:
    return [d for _r, d in design.iter_devices()]


def link(design: Design, a: str, b: str, port: str) -> Link:
    return Link(design.index.new_id("link"), a, port, b, port)


@pytest.mark.parametrize("read_table_first", [False, True])
def test_adds_and_drops_leave_the_table_a_fresh_index_makes(read_table_first: bool) -> None:
    design = small_design("ends")
    a, b = devices_of(design)[:2]
    if read_table_first:
        assert isinstance(design.index.device_links, dict)
    else:
        assert isinstance(design.index.links, dict)  # the id table only
    first = link(design, a.id, b.id, "p1")
    ops.apply(design, ops.AddLinks((first,)))
    second = link(design, a.id, b.id, "p2")
    ops.apply(design, ops.AddLinks((second,)))
    ops.apply(design, ops.RemoveLinks((second.id,)))
    assert index_problems(design) == []
    fresh = DesignIndex(design)
    assert {k: v for k, v in design.index.device_links.items() if v} == dict(fresh.device_links)
    assert first.id in design.index.device_links[a.id]
    assert second.id not in design.index.device_links[b.id]


@pytest.mark.parametrize("read_table_first", [False, True])
def test_a_device_a_link_already_names_changes_the_cabling(read_table_first: bool) -> None:
    """A file's dangling link end: the device that comes with its id is news to every
    figure read off the cabling; a device no link names is not."""
    design = small_design("dangling")
    a = devices_of(design)[0]
    rack = next(design.iter_racks())
    dangling = Link("l-dangling", a.id, "p9", "d-later", "p1")
    design.links.append(dangling)
    design.reindex()
    index = design.index
    assert isinstance(index.links, dict)  # the id table, as an edit's id check builds it
    if read_table_first:
        assert index.device_links["d-later"] == {"l-dangling"}
    before = index.fabric_version
    ops.apply(design, ops.AddDevice(rack.id, Device("d-other", "other", a.device_type)))
    assert index.fabric_version == before
    ops.apply(design, ops.AddDevice(rack.id, Device("d-later", "later", a.device_type)))
    assert index.fabric_version == before + 1
    # Once the dangling link is gone, its end names nothing.
    ops.apply(design, ops.RemoveLinks(("l-dangling",)))
    ops.apply(design, ops.RemoveDevice("d-later"))
    after = index.fabric_version
    ops.apply(design, ops.AddDevice(rack.id, Device("d-later", "later", a.device_type)))
    assert index.fabric_version == after


def test_the_link_ends_taken_in_from_an_add_of_links_are_both_ends_of_each() -> None:
    """AddLinks hands the index the ends it checked (a set of devices) rather than
    have it read both ends of every link again: the set is the one the links give."""
    design = small_design("ends-bulk")
    devices = devices_of(design)
    index = design.index
    ops.apply(design, ops.AddLinks((link(design, devices[0].id, devices[1].id, "p1"),)))
    spare = Device("spare-1", "spare-1", devices[0].device_type, None)
    ops.apply(design, ops.AddDevice(index.devices[devices[0].id][0].id, spare))
    assert index._ends is not None  # made: a device came while links were listed
    ids = index.new_ids("link", 3)
    pairs = [(devices[2], devices[3]), (devices[1], spare), (devices[4], devices[2])]
    added = tuple(Link(i, a.id, "q", b.id, "q") for i, (a, b) in zip(ids, pairs, strict=True))
    ops.apply(design, ops.AddLinks(added))
    plain = {end for each in design.links for end in (each.a_device, each.b_device)}
    assert index._ends == plain
