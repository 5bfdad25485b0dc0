"""The model owns identity: structural edits keep the id index right and undo exactly.

The property test applies random add, move and remove edits of rows, racks, devices and
links, checks the index against a fresh one after each, then applies the inverses in
reverse order and compares the whole model with a deep copy of the start.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.model import Change, Design, Device, Link, Rack, Row, StorageTier, Waiver, ops
from workbench.model.errors import EditError
from workbench.model.index import index_problems


@pytest.fixture
def design(tiny_design) -> Design:
    tiny_design.links = [
        Link("l1", "d1", "eth0", "s1", "eth1"),
        Link("l2", "d2", "eth0", "s1", "eth2"),
    ]
    tiny_design.storage_tiers = [StorageTier("t1", "hot", device_ids=["d2", "d1"])]
    return tiny_design


def test_the_index_finds_everything_by_id(design):
    index = design.index
    assert design.find_device("d2") == (design.find_rack("r1"), design.find_rack("r1").devices[1])
    assert index.kind_of("r2") == "rack" and index.kind_of("row-b") == "row"
    assert index.kind_of("l1") == "link" and index.kind_of("nope") is None
    assert index.links_of("s1") == {"l1", "l2"}
    assert index_problems(design) == []


def test_new_ids_are_free_everywhere(design):
    design.sites[0].rows[0].racks[0].devices.append(Device("d000041", "x", "mgmt-48", 30))
    design.reindex()
    new = design.index.new_id("device")
    assert new == "d000042" and not design.index.in_use(new)
    assert design.index.new_id("device") == "d000043"  # never handed out twice
    assert design.index.new_id("rack").startswith("r")


def _one_by_one(design: Design, kind: str, count: int) -> list[str]:
    """The plain path: ``count`` single :meth:`new_id` calls on a copy."""
    twin = copy.deepcopy(design)
    twin.reindex()
    return [twin.index.new_id(kind) for _ in range(count)]


@pytest.mark.parametrize("foreign", ["l000005", "l05", "l0000005", "l5", "l000012", "L000005"])
@pytest.mark.parametrize("count", [1, 3, 12, 40])
def test_a_batch_of_ids_is_what_one_by_one_gives(design, foreign, count):
    """A device named like a link id the batch would hand out is never handed out again,
    whether the batch reads the small tables id by id or hashes itself into a set; an
    id spelt otherwise (fewer or more digits, another case) is no clash."""
    design.sites[0].rows[0].racks[0].devices.append(Device(foreign, "x", "mgmt-48", 30))
    design.reindex()
    expected = _one_by_one(design, "link", count)
    got = design.index.new_ids("link", count)
    assert got == expected
    assert not any(design.index.in_use(i) for i in got)


@pytest.mark.parametrize("count", [2, 30])
def test_a_batch_skips_a_link_added_after_the_last_batch(design, count):
    """An id added with its own name inside the range the next batch would take (a
    pasted link) is refused there, on both paths."""
    first = design.index.new_ids("link", 2)
    assert first == ["l000003", "l000004"]
    design.links.append(Link("l000006", "d1", "eth7", "s1", "eth7"))
    design.index.add_links([design.links[-1]])
    got = design.index.new_ids("link", count)
    assert got == [f"l{n:06d}" for n in range(5, 6 + count) if n != 6]
    assert design.index.new_id("link") == f"l{6 + count:06d}"


def test_removing_a_device_takes_its_links_and_tier_places_and_undo_puts_them_back(design):
    start = copy.deepcopy(design)
    applied = ops.apply(design, ops.RemoveDevice("d1"))
    assert design.find_device("d1") is None
    assert [link.id for link in design.links] == ["l2"]
    assert design.storage_tiers[0].device_ids == ["d2"]
    assert applied.change.removed == {"d1", "l1"} and applied.change.racks == {"r1"}
    assert not applied.change.layout
    ops.apply(design, applied.inverse)
    assert design == start
    assert design.find_device("d1")[1] is not start.find_device("d1")[1]  # same values
    assert index_problems(design) == []


def test_adding_a_device_names_what_it_touched(design):
    """A fresh drop names its rack and itself only; putting a removed device back names
    the links and tier places it brings back too (the same change either way it is
    worked out)."""
    fresh = ops.apply(design, ops.AddDevice("r1", Device("d9", "new", "mgmt-48", 30)))
    assert fresh.change == Change(
        racks=frozenset({"r1"}),
        devices=frozenset({"d9"}),
        links=frozenset(),
        tiers=frozenset(),
        added=frozenset({"d9"}),
    )
    assert fresh.inverse == ops.RemoveDevice("d9", detach=False)
    back = ops.apply(design, ops.apply(design, ops.RemoveDevice("d1")).inverse)
    assert back.change == Change(
        racks=frozenset({"r1"}),
        devices=frozenset({"d1", "s1"}),
        links=frozenset({"l1"}),
        tiers=frozenset({"t1"}),
        added=frozenset({"d1", "l1"}),
    )
    assert back.inverse == ops.RemoveDevice("d1", detach=True)
    with pytest.raises(EditError, match="already in use"):
        ops.apply(design, ops.AddDevice("r1", Device("d9", "other", "mgmt-48", 31)))
    with pytest.raises(EditError, match="non-empty id"):
        ops.apply(design, ops.AddDevice("r1", Device("", "other", "mgmt-48", 31)))


@pytest.mark.parametrize("kind", ["device", "rack", "row"])
def test_undoing_an_add_leaves_what_named_the_id_before_it(design, kind):
    """A tier and a link that name an id no device has yet (a dangling id a file held)
    still name it after the device arrives and the add is undone, and again after a redo
    and a second undo: the undo of an add is its exact inverse."""
    design.storage_tiers[0].device_ids.append("ghost")
    design.links.append(Link("l9", "ghost", "eth0", "s1", "eth9"))
    design.reindex()
    start = copy.deepcopy(design)
    device = Device("ghost", "ghost", "mgmt-48", 30)
    op: ops.Op
    if kind == "device":
        op = ops.AddDevice("r1", device)
    elif kind == "rack":
        op = ops.AddRack("row-a", Rack("r9", "R9", "rack-42u", devices=[device]))
    else:
        op = ops.AddRow(
            design.sites[0].id, Row("row-z", "Z", [Rack("r9", "R9", "rack-42u", devices=[device])])
        )
    for _ in range(2):  # do, undo, redo, undo
        undo = ops.apply(design, op).inverse
        assert design.find_device("ghost") is not None
        op = ops.apply(design, undo).inverse
        assert design == start
        assert index_problems(design) == []


def test_moving_a_device_between_racks_and_back(design):
    start = copy.deepcopy(design)
    applied = ops.apply(design, ops.MoveDevice("d2", "r2", 20, "rear"))
    rack, device = design.find_device("d2")
    assert rack.id == "r2" and (device.position, device.face) == (20, "rear")
    assert applied.change.racks == {"r1", "r2"} and applied.change.moved == {"d2"}
    ops.apply(design, applied.inverse)
    assert design == start


def test_removing_a_row_and_undo(design):
    start = copy.deepcopy(design)
    applied = ops.apply(design, ops.RemoveRow("row-a"))
    assert design.find_rack("r1") is None and design.find_device("d1") is None
    assert design.links == [] and design.storage_tiers[0].device_ids == []
    assert applied.change.layout and {"row-a", "r1", "d1", "d2", "s1"} <= applied.change.removed
    ops.apply(design, applied.inverse)
    assert design == start
    assert index_problems(design) == []


def test_refused_edits_change_nothing(design):
    start = copy.deepcopy(design)
    for op in (
        ops.AddDevice("nope", Device("d9", "x", "mgmt-48", 1)),
        ops.AddDevice("r1", Device("d1", "dup", "mgmt-48", 1)),  # id in use
        ops.AddRack("row-a", Rack("d2", "dup", "rack-42u")),  # id used by a device
        ops.MoveRack("r1", "row-a", 7),  # position out of range
        ops.AddLink(Link("l9", "d1", "eth0", "ghost", "eth0")),
        ops.RemoveWaiver("RACK-POWER", "r1"),
        ops.AddWaiver(Waiver("RACK-POWER", "r1", "  ")),  # a waiver needs its reason
    ):
        with pytest.raises(EditError):
            ops.apply(design, op)
        assert design == start
        assert index_problems(design) == []


def test_a_batch_is_all_or_nothing(design):
    start = copy.deepcopy(design)
    batch = ops.Batch((ops.MoveDevice("d1", "r2", 2, "front"), ops.RemoveDevice("ghost")))
    with pytest.raises(EditError):
        ops.apply(design, batch)
    assert design == start
    applied = ops.apply(
        design, ops.Batch((ops.MoveDevice("d1", "r2", 2, "front"), ops.RemoveDevice("s1")))
    )
    assert applied.change.racks == {"r1", "r2"} and "s1" in applied.change.removed
    ops.apply(design, applied.inverse)
    assert design == start


def test_changes_combine():
    a = Change(racks=frozenset({"r1"}), added=frozenset({"d9"}))
    b = Change(racks=frozenset({"r2"}), removed=frozenset({"d9"}), layout=True)
    both = a | b
    assert both.racks == {"r1", "r2"} and both.layout
    assert both.removed == {"d9"} and both.added == frozenset()
    c = Change(added=frozenset({"d9"}), links=frozenset({"l1"}), floor=True)
    assert Change.combine([a, b, c]) == (a | b) | c
    assert Change.combine([]) == Change()


def test_many_links_go_in_and_out_as_one_edit_at_their_old_places(design):
    start = copy.deepcopy(design)
    ids = design.index.new_ids("link", 3)
    assert len(set(ids)) == 3 and not any(design.index.in_use(i) for i in ids)
    links = tuple(Link(i, "d1", f"p{n}", "s1", f"q{n}") for n, i in enumerate(ids))
    added = ops.apply(design, ops.AddLinks(links))
    assert added.change.added == set(ids) and added.change.devices == {"d1", "s1"}
    assert design.index.links_of("s1") >= set(ids)
    # Take out an old link and a new one together; undo restores both positions.
    old = start.links[0].id
    removed = ops.apply(design, ops.RemoveLinks((ids[1], old)))
    assert old not in design.index.links and ids[1] not in design.index.links
    ops.apply(design, removed.inverse)
    assert [link.id for link in design.links] == [link.id for link in start.links] + ids
    ops.apply(design, added.inverse)
    assert design == start and index_problems(design) == []
    with pytest.raises(EditError, match="does not exist"):
        ops.apply(design, ops.AddLinks((Link("l77", "d1", "p", "ghost", "q"),)))
    # Of several links on nothing, the first in order is named, with its missing end.
    bad = (
        Link("l78", "d1", "p", "s1", "q"),
        Link("l79", "ghost-a", "p", "s1", "q"),
        Link("l80", "d1", "p", "ghost-b", "q"),
    )
    with pytest.raises(EditError, match="'l79' ends on a device that does not exist: 'ghost-a'"):
        ops.apply(design, ops.AddLinks(bad))
    with pytest.raises(EditError, match="'l80' ends .* 'ghost-b'"):
        ops.apply(design, ops.AddLinks(bad[::2]))
    with pytest.raises(EditError, match="already in use"):
        ops.apply(design, ops.AddLinks((Link(old, "d1", "p", "s1", "q"),)))
    assert design == start


# -- the property test -------------------------------------------------------------------------


def _random_op(data, design: Design) -> ops.Op:
    index = design.index
    racks = sorted(index.racks)
    devices = sorted(index.devices)
    rows = sorted(index.rows)
    choice = data.draw(
        st.sampled_from(
            [
                "add_device",
                "move_device",
                "remove_device",
                "add_rack",
                "move_rack",
                "remove_rack",
                "add_row",
                "move_row",
                "remove_row",
                "add_link",
                "remove_link",
                "add_links",
                "remove_links",
            ]
        )
    )
    if choice == "add_device" and racks:
        rack = data.draw(st.sampled_from(racks))
        slug = data.draw(st.sampled_from(["nvidia-dgx-h100", "mgmt-48"]))
        return ops.AddDevice(
            rack,
            Device(index.new_id("device"), "new", slug, data.draw(st.integers(1, 40))),
            data.draw(st.none() | st.just(0)),
        )
    if choice == "move_device" and devices and racks:
        return ops.MoveDevice(
            data.draw(st.sampled_from(devices)),
            data.draw(st.sampled_from(racks)),
            data.draw(st.none() | st.integers(1, 40)),
            data.draw(st.sampled_from(["front", "rear"])),
            data.draw(st.none() | st.just(0)),
        )
    if choice == "remove_device" and devices:
        return ops.RemoveDevice(data.draw(st.sampled_from(devices)))
    if choice == "add_rack" and rows:
        return ops.AddRack(
            data.draw(st.sampled_from(rows)),
            Rack(index.new_id("rack"), "new", "rack-42u"),
            data.draw(st.none() | st.just(0)),
        )
    if choice == "move_rack" and racks and rows:
        row = data.draw(st.sampled_from(rows))
        size = len(index.rows[row][1].racks)
        return ops.MoveRack(data.draw(st.sampled_from(racks)), row, data.draw(st.integers(0, size)))
    if choice == "remove_rack" and racks:
        return ops.RemoveRack(data.draw(st.sampled_from(racks)))
    if choice == "add_row":
        return ops.AddRow("s", Row(index.new_id("row"), "new"), data.draw(st.none() | st.just(0)))
    if choice == "move_row" and rows:
        return ops.MoveRow(data.draw(st.sampled_from(rows)), "s", 0)
    if choice == "remove_row" and rows:
        return ops.RemoveRow(data.draw(st.sampled_from(rows)))
    if choice == "add_link" and len(devices) >= 2:
        a, b = data.draw(st.lists(st.sampled_from(devices), min_size=2, max_size=2, unique=True))
        return ops.AddLink(Link(index.new_id("link"), a, "p1", b, "p2"))
    if choice == "remove_link" and index.links:
        return ops.RemoveLink(data.draw(st.sampled_from(sorted(index.links))))
    if choice == "add_links" and len(devices) >= 2:
        ids = index.new_ids("link", data.draw(st.integers(1, 4)))
        pairs = st.lists(st.sampled_from(devices), min_size=2, max_size=2, unique=True)
        links = []
        for link_id in ids:
            a, b = data.draw(pairs)
            links.append(Link(link_id, a, "p1", b, "p2"))
        return ops.AddLinks(tuple(links))
    if choice == "remove_links" and index.links:
        ids = data.draw(st.lists(st.sampled_from(sorted(index.links)), min_size=1, unique=True))
        return ops.RemoveLinks(tuple(ids))
    return ops.Batch(())


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_edits_keep_the_index_and_undo_to_the_start(design, data):
    design = copy.deepcopy(design)
    start = copy.deepcopy(design)
    inverses = []
    for _ in range(data.draw(st.integers(1, 12))):
        op = _random_op(data, design)
        try:
            applied = ops.apply(design, op)
        except EditError:
            assert index_problems(design) == []  # a refused edit leaves everything as it was
            continue
        inverses.append(applied.inverse)
        assert index_problems(design) == []
    for inverse in reversed(inverses):
        ops.apply(design, inverse)
        assert index_problems(design) == []
    assert design == start


class _NoScan(dict):
    """An id table that refuses to be walked: checking a few ids against it must ask
    for those ids, not iterate every id it holds (a million links at 1,000,000 GPUs)."""

    def __iter__(self):
        raise AssertionError("the whole id table was walked")


def test_fresh_ids_are_checked_without_walking_the_id_tables(tiny_design) -> None:
    """Issue 21: set.isdisjoint(dict) iterates the dict, so every device added to a
    1,000,000-GPU design walked all its links (the build went quadratic)."""
    index = tiny_design.index
    index.new_ids("link", 1)  # the first call finds the highest number in use, once
    index.links = _NoScan(index.links)
    index.devices = _NoScan(index.devices)
    device = Device("fresh-1", "fresh-1", "mgmt-48", position=30)
    ops.apply(tiny_design, ops.AddDevice("r2", device))
    assert len(index.new_ids("link", 3)) == 3


def test_the_link_tables_wait_for_their_first_read_and_hold_what_came_before(design):
    """Issue 21: the first frame of a 100,000-GPU design reads racks and devices only,
    so its 440,000 links are indexed when something first asks for them."""
    index = design.index
    assert design.find_rack("r1") is not None and design.find_device("d1") is not None
    assert not index.links_indexed
    version = index.fabric_version
    design.links.append(Link("l3", "d1", "eth1", "s1", "eth3"))  # an edit: the list first
    index.add_link(design.links[-1])
    assert index.fabric_version == version + 1 and not index.links_indexed
    assert index.links_of("s1") == {"l1", "l2", "l3"} and index.links_indexed
    assert index_problems(design) == []


def test_a_device_that_a_link_names_changes_the_cabling_before_the_link_tables_exist(design):
    """A file's dangling link end gains its device: the figures read off the cabling
    must be read again, as when the link tables were built with the index."""
    design.links.append(Link("l9", "d9", "eth0", "s1", "eth9"))
    design.reindex()
    index = design.index
    rack = design.find_rack("r2")
    version = index.fabric_version
    assert not index.links_indexed
    for device in (Device("d10", "other", "mgmt-48", 3), Device("d9", "new", "mgmt-48", 1)):
        rack.devices.append(device)  # as an edit does: the list first, then the index
        index.add_device(rack, device)
    assert index.fabric_version == version + 1  # d9 is news, d10 (no link names it) is not
    assert index_problems(design) == []
