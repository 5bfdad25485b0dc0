"""Issue 21: a template's links are checked for fresh ids by their number runs, not a
table of 4.4 million ids, and every answer is the one the table gives.

Each shortcut is compared with the plain reading: :class:`NumberedRuns` with a set of
its ids, the index with a twin whose link table is built from the list.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.model import Design, Device, Link, ops
from workbench.model.errors import EditError
from workbench.model.id_numbers import NumberedRuns, highest_number, spelled_batch
from workbench.model.index import index_problems

_PROBES = ["l000001", "l000007", "l1", "l0000003", "L000002", "l00000x", "d000001", "", "l"]


def _ids_of(spans: list[tuple[int, int]]) -> set[str]:
    return {f"l{n:06d}" for a, b in spans for n in range(a, b)}


@st.composite
def _runs(draw) -> tuple[NumberedRuns, list[tuple[int, int]]]:
    runs, taken = NumberedRuns("l", 6), []
    for _ in range(draw(st.integers(0, 4))):
        first = draw(st.integers(0, 40))
        last = first + draw(st.integers(1, 8))
        if runs.add(first, last):
            taken.append((first, last))
        else:  # refused: it met ids held already, and nothing changed
            assert any(a < last and first < b for a, b in taken)
    return runs, taken


@given(_runs(), st.integers(0, 50), st.integers(1, 12))
def test_runs_answer_as_the_set_of_their_ids(drawn, first, count) -> None:
    runs, spans = drawn
    ids = _ids_of(spans)
    assert runs.count == len(ids)
    assert runs.highest() == highest_number(ids, "l")
    for probe in [*_PROBES, *(f"l{n:06d}" for n in range(first, first + count))]:
        assert runs.holds(probe) == (probe in ids), probe
    assert not runs.holds(7)
    for prefix, digits in (("l", 6), ("l0", 5), ("l", 5), ("d", 6)):
        batch = [f"{prefix}%0{digits}d" % n for n in range(first, first + count)]
        assert runs.meets_batch(prefix, digits, first, batch) == bool(ids & set(batch))


def _add_batch(design: Design, count: int) -> list[str]:
    ids = design.index.new_ids("link", count)
    links = tuple(Link(i, "d1", f"p-{i}", "s1", f"q-{i}") for i in ids)
    ops.apply(design, ops.AddLinks(links))
    return ids


def _twin(design: Design) -> Design:
    """The plain reading: the same design, its link table built from the list."""
    twin = copy.deepcopy(design)
    twin.reindex()
    assert twin.index.links is not None and twin.index.links_indexed
    return twin


@pytest.mark.parametrize("foreign", [None, "l000004", "l04", "l0000004"])
def test_batches_of_links_are_checked_without_the_link_table(tiny_design, foreign) -> None:
    """Ids handed out, links added, ids asked about and handed out again: the same as
    with the table, and the table is not built (but when a batch had to step round a
    taken id: its links are not one run, and the table answers)."""
    if foreign is not None:  # a device named like a link id the batches would take
        tiny_design.sites[0].rows[0].racks[0].devices.append(Device(foreign, "x", "mgmt-48", 30))
        tiny_design.reindex()
    index = tiny_design.index
    added = _add_batch(tiny_design, 3) + _add_batch(tiny_design, 5)
    assert not index.links_indexed
    twin = _twin(tiny_design)
    for probe in [*_PROBES, *added]:
        assert index.in_use(probe) == twin.index.in_use(probe), probe
    assert index.new_ids("link", 4) == twin.index.new_ids("link", 4)
    assert index.new_id("link") == twin.index.new_id("link")
    assert index.links_indexed is (foreign == "l000004")
    assert index_problems(tiny_design) == []


def test_a_taken_link_id_is_refused_while_the_runs_hold(tiny_design) -> None:
    ids = _add_batch(tiny_design, 3)
    again = tuple(Link(i, "d2", "a", "s1", "b") for i in ids)
    with pytest.raises(EditError, match="already in use"):
        ops.apply(tiny_design, ops.AddLinks(again))
    with pytest.raises(EditError, match="already in use"):
        ops.apply(tiny_design, ops.AddLink(Link(ids[1], "d2", "a", "s1", "b")))
    with pytest.raises(EditError, match="already in use"):
        ops.apply(tiny_design, ops.AddDevice("r2", Device(ids[2], "y", "mgmt-48", 1)))
    assert [link.id for link in tiny_design.links] == ids
    assert index_problems(tiny_design) == []


def test_other_links_end_the_runs(tiny_design) -> None:
    """A link with an id of its own, a removal, or a list changed behind the index's
    back: the answers are the table's again."""
    index = tiny_design.index
    ids = _add_batch(tiny_design, 3)
    tiny_design.links.pop()  # behind the index's back: the runs would still say in use
    assert not index.in_use(ids[2])
    assert index.in_use(ids[0])

    other = Design(sites=tiny_design.sites, device_types=tiny_design.device_types)
    ids = _add_batch(other, 3)
    ops.apply(other, ops.AddLink(Link("l000009", "d1", "x", "s1", "y")))
    assert other.index.in_use("l000009")
    assert other.index.new_ids("link", 7) == [f"l{n:06d}" for n in (4, 5, 6, 7, 8, 10, 11)]
    ops.apply(other, ops.RemoveLink(ids[0]))
    assert not other.index.in_use(ids[0])
    assert index_problems(other) == []


def test_a_template_build_never_builds_the_link_table() -> None:
    from workbench.templates import build_template

    design = build_template("hgx-h100-air", gpus=64)
    assert design.links and not design.index.links_indexed
    twin = _twin(design)
    assert design.index.new_ids("link", 3) == twin.index.new_ids("link", 3)


def test_a_batch_taken_meanwhile_is_refused(tiny_design) -> None:
    """The ids handed out are checked again when their links come: an object may have
    taken one in between."""
    ids = tiny_design.index.new_ids("link", 3)
    ops.apply(tiny_design, ops.AddDevice("r2", Device(ids[1], "y", "mgmt-48", 1)))
    links = tuple(Link(i, "d1", f"p-{i}", "s1", f"q-{i}") for i in ids)
    with pytest.raises(EditError, match="already in use"):
        ops.apply(tiny_design, ops.AddLinks(links))
    assert tiny_design.links == [] and index_problems(tiny_design) == []


@pytest.mark.parametrize(
    ("prefix", "digits", "first", "count"),
    [
        ("l", 6, 1, 0),
        ("l", 6, 1, 1),
        ("l", 6, 1, 250),
        ("l", 6, 99, 2),
        ("l", 6, 123_456, 1_234),
        ("l", 6, 999_950, 120),  # runs past six digits
        ("d", 6, 0, 301),
        ("row", 3, 5, 1_000),
        ("r", 5, 99_999, 3),
        ("ab", 2, 7, 120),
        ("ab", 2, 7, 50),
        ("site", 1, 1, 30),
        ("wl-", 1, 8, 4),
    ],
)
def test_a_batch_is_spelt_as_each_id_alone(prefix, digits, first, count) -> None:
    plain = [f"{prefix}%0{digits}d" % n for n in range(first, first + count)]
    assert spelled_batch(prefix, digits, first, count) == plain


def test_link_values_are_those_of_the_links_while_the_runs_hold(tiny_design) -> None:
    index = tiny_design.index
    assert index.link_values("network") == set()
    _add_batch(tiny_design, 3)
    assert index.link_values("a_port") == {link.a_port for link in tiny_design.links}
    _add_batch(tiny_design, 2)  # read since: only the new batch is read
    for name in ("a_port", "b_port", "network", "a_device"):
        assert index.link_values(name) == {getattr(link, name) for link in tiny_design.links}
    tiny_design.links.pop()  # behind the index's back: no answer, the list is read
    assert index.link_values("a_port") is None


def test_a_plane_s_hosts_and_cabling_read_as_from_the_list(tiny_design) -> None:
    """has_links and the taken host ports, answered from the index's link values, are
    what reading every link gives (a twin whose index holds no values)."""
    from workbench.planning.fabric.inputs import _used_ports, has_links

    ids = tiny_design.index.new_ids("link", 2)
    links = (Link(ids[0], "d1", "eth0", "s1", "eth1"), Link(ids[1], "d2", "p2", "s1", "eth2"))
    ops.apply(tiny_design, ops.AddLinks(links))
    twin = _twin(tiny_design)
    assert tiny_design.index.link_values("network") == {None}
    assert twin.index.link_values("network") is None
    for plane in ("compute", "storage", "management", "oob"):
        assert has_links(tiny_design, plane) == has_links(twin, plane)
    for names in ({"eth0"}, {"eth1", "zz"}, {"zz"}, {"p2", "eth0"}):
        assert _used_ports(tiny_design, names) == _used_ports(twin, names)


def test_the_batches_naming_a_port_are_those_with_such_a_link(tiny_design) -> None:
    """link_batches_with picks, in list order, exactly the batches in which a link has
    the value, whenever asked (a batch added after a question is read too); and the
    taken host ports read from those batches alone are those every link gives."""
    from workbench.planning.fabric.inputs import _used_ports

    index = tiny_design.index
    first = _add_batch(tiny_design, 3)
    assert index.link_batches_with("a_port", {f"p-{first[1]}"}) == [tuple(tiny_design.links)]
    second = _add_batch(tiny_design, 2)
    ids = index.new_ids("link", 2)
    own = (Link(ids[0], "d2", "eth0", "d2", "eth0"), Link(ids[1], "s1", "x", "d1", "eth0"))
    ops.apply(tiny_design, ops.AddLinks(own))
    links = tiny_design.links
    batches = [tuple(links[:3]), tuple(links[3:5]), tuple(links[5:])]
    for name in ("a_port", "b_port"):
        for wanted in ({"eth0"}, {f"p-{first[0]}", f"p-{second[1]}"}, {"zz"}, set()):
            plain = [b for b in batches if any(getattr(k, name) in wanted for k in b)]
            assert index.link_batches_with(name, wanted) == plain
    twin = _twin(tiny_design)
    assert twin.index.link_batches_with("a_port", {"eth0"}) is None
    for names in ({"eth0"}, {"eth0", f"q-{second[0]}"}, {f"p-{first[2]}"}, {"zz"}):
        assert _used_ports(tiny_design, names) == _used_ports(twin, names)
    tiny_design.links.pop()  # behind the index's back: no answer, the list is read
    assert index.link_batches_with("a_port", {"eth0"}) is None
