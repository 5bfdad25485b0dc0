"""A removed device's links are found in the design's list from the positions the index
keeps (:meth:`workbench.model.index.DesignIndex.link_positions`), not by reading every
link: the list's order after removals, undos and link edits must be exactly what a scan
gives, and each inverse must put every link back where it stood."""

from __future__ import annotations

import random

import pytest
from storage_designs import storage_design

from workbench.catalog import load_catalog
from workbench.model import Design, Link
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
