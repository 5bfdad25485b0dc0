"""A removed device's links are found in the design's list from the positions the index
keeps (:meth:`workbench.model.index.DesignIndex.link_positions`), not by reading every
link: the list's order after removals, undos and link edits must be exactly what a scan
gives, and each inverse must put every link back where it stood."""

from __future__ import annotations

import random

import pytest
from storage_designs import storage_design

from workbench.catalog import load_catalog
from workbench.model import Design, Link, link_places
from workbench.model.link_places import HashedShards
from workbench.model.ops import AddLink, RemoveDevice, RemoveLink, RemoveRack, apply


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False)


def _design(catalog) -> Design:
    design = storage_design(catalog, nodes=9, appliances=3, appliance_links=2, node_links=2)
    # Interleave the links so a device's links are not next to each other.
    random.Random(7).shuffle(design.links)
    design.reindex()
    return design


def _ids(design: Design) -> list[str]:
    return [link.id for link in design.links]


def test_removals_and_undos_keep_the_list_order(catalog, monkeypatch) -> None:
    design = _design(catalog)
    original = _ids(design)
    reads: list[int] = []
    index = design.index
    read = index._read_link_positions

    def counted(links):
        reads.append(len(links))
        return read(links)

    monkeypatch.setattr(index, "_read_link_positions", counted)
    steps = [RemoveDevice("gpu-0"), RemoveDevice("gpu-4"), RemoveRack("rs"), RemoveDevice("gpu-8")]
    done = []
    for op in steps:
        before = _ids(design)
        applied = apply(design, op)
        gone = {link.id for _, link in applied.inverse.detached.links}
        assert gone and _ids(design) == [i for i in before if i not in gone]
        # The inverse names each link's old place, ascending.
        places = [i for i, _ in applied.inverse.detached.links]
        assert places == sorted(places) and [before[i] for i in places] == sorted(
            gone, key=before.index
        )
        done.append(applied)
    for applied in reversed(done):
        apply(design, applied.inverse)
    assert _ids(design) == original
    assert len(reads) == 1  # the list was read once, at the first removal
    # Remove and put back again, with single link edits between: places still exact.
    single = apply(design, RemoveLink(original[5]))
    extra = apply(design, AddLink(Link("l-x", "gpu-1", "storage3", "sw-1", "swp64"), index=2))
    again = apply(design, RemoveDevice("gpu-1"))
    assert "l-x" not in _ids(design)
    apply(design, again.inverse)
    apply(design, extra.inverse)
    apply(design, single.inverse)
    assert _ids(design) == original


def test_a_list_changed_behind_the_index_is_read_again(catalog) -> None:
    design = _design(catalog)
    apply(design, RemoveDevice("gpu-2"))  # the index has read the places now
    design.links.reverse()  # not an edit: no count says how far links moved
    expected = [link.id for link in design.links if "gpu-3" not in (link.a_device, link.b_device)]
    apply(design, RemoveDevice("gpu-3"))
    assert _ids(design) == expected


def test_places_read_in_steps_over_many_shards_stay_exact(catalog, monkeypatch) -> None:
    """The warm-up's table (:meth:`DesignIndex.link_positions_in_steps`), spread over
    shards of 3 links, answers the removals and undos like a scan does, and every link's
    filed place is where it stands."""
    monkeypatch.setattr(link_places, "SHARD", 3)
    design = _design(catalog)
    original = _ids(design)
    index = design.index
    assert index.links_indexed or index.links  # the id table the warm-up builds first
    for _step in index.link_positions_in_steps(2):
        pass
    at = index._link_at
    assert at is not None and len(at._shards) > 2
    assert [at.get(i) for i in original] == list(range(len(original)))
    monkeypatch.setattr(index, "_read_link_positions", None)  # no full read from here
    done = [apply(design, RemoveDevice(name)) for name in ("gpu-0", "gpu-4", "gpu-8")]
    for applied in reversed(done):
        apply(design, applied.inverse)
    assert _ids(design) == original


def test_a_duplicate_id_in_another_shard_is_not_kept(catalog, monkeypatch) -> None:
    """Two links with one id (a damaged file's) land in two shards; the table is then
    given up (the next removal scans), as the one-dict read gives it up."""
    monkeypatch.setattr(link_places, "SHARD", 3)
    design = _design(catalog)
    first = design.links[0]
    design.links.append(Link(first.id, first.a_device, first.a_port, "sw-1", "swp99"))
    design.reindex()
    index = design.index
    index.links  # noqa: B018 - the id table, as the warm-up builds it before
    for _step in index.link_positions_in_steps(2):
        pass
    assert index._link_at is None
    assert index.link_positions(design.links, [design.links[1]]) is None


def _agrees(design: Design) -> None:
    table = design.index.links
    fresh = {link.id: link for link in design.links}
    assert len(table) == len(fresh) and set(table) == set(fresh)
    assert all(table[key] is link and table.get(key) is link for key, link in fresh.items())
    assert "no-such-link" not in table and table.get("no-such-link") is None


def test_the_stepped_table_follows_edits_and_undos(catalog, monkeypatch) -> None:
    """Built in steps over many shards (two links each), the table answers as a fresh
    read of the design's list after removals, link edits and their undos."""
    monkeypatch.setattr(link_places, "ROUTED", 2)
    design = _design(catalog)
    index = design.index
    for _step in index.link_tables_in_steps(3):
        pass
    table = index.links
    assert isinstance(table, HashedShards) and len(table._shards) >= len(design.links) // 2
    _agrees(design)
    link = design.links[5]
    done = [
        apply(design, RemoveDevice("gpu-2")),
        apply(design, RemoveLink(link.id)),
        apply(design, AddLink(Link("lnew", link.a_device, link.a_port, "sw-1", "swp77"))),
        apply(design, RemoveDevice("gpu-6")),
    ]
    assert index.links is table  # edited in place, not rebuilt
    _agrees(design)
    for applied in reversed(done):
        apply(design, applied.inverse)
        _agrees(design)


def test_a_duplicate_id_keeps_the_last_link_as_a_dict_does(catalog, monkeypatch) -> None:
    """Two links with one id (a damaged file's): the stepped table holds the later one,
    counts the id once, and the link positions built after it are then given up."""
    monkeypatch.setattr(link_places, "ROUTED", 2)
    design = _design(catalog)
    first = design.links[0]
    twin = Link(first.id, first.a_device, first.a_port, "sw-1", "swp99")
    design.links.append(twin)
    design.reindex()
    index = design.index
    for _step in index.link_tables_in_steps(3):
        pass
    assert isinstance(index.links, HashedShards)
    assert index.links[first.id] is twin and len(index.links) == len(design.links) - 1
    for _step in index.link_positions_in_steps(2):
        pass
    assert index._link_at is None
