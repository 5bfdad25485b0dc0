"""The first check's warm-up: what the first edit after opening a design would build in
one go (the link tables and positions, the planes' replay state, the name counts) is
built in steps once the check is done, and whatever lands meanwhile leaves every table
what a fresh build gives."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from workbench.calc.fabric import plane_edits
from workbench.calc.fabric.planes import PlaneStructure, plane_structures
from workbench.calc.steps import drain
from workbench.catalog import load_catalog
from workbench.catalog.item import is_gpu_server
from workbench.model.id_numbers import ID_SHAPES, highest_number
from workbench.model.index import DesignIndex, _host
from workbench.rules import check_design
from workbench.templates import sample_design
from workbench.ui.shell.document import Document
from workbench.ui.shell.live_figures import LiveFigures


def _document(monkeypatch) -> Document:
    monkeypatch.setattr(LiveFigures, "SLICE_MS", 0)  # one step per slice
    monkeypatch.setattr(LiveFigures, "STEP_WARM", 3)  # many warm-up steps
    design = sample_design(load_catalog(include_user=False, strict=True))
    design.reindex()  # a fresh index, as an opened file has
    return Document(design)


def _cabled_node(document: Document) -> str:
    design = document.design
    types, ends = design.device_types, {link.a_device for link in design.links}
    return next(
        d.id
        for _r, d in design.iter_devices()
        if (item := types.get(d.device_type)) is not None and is_gpu_server(item) and d.id in ends
    )


def _remove_a_cabled_node(document: Document) -> None:
    document.select(_cabled_node(document))
    assert document.delete_selected()


def _kept_structures(document: Document) -> list[PlaneStructure]:
    index = document.design.index
    cached = index.fabric_cache.get("plane_structures")
    assert cached is not None and cached[0] == index.fabric_version
    return list(cached[1].values())


def _assert_as_fresh(document: Document) -> None:
    """Every warmed table equals a fresh build of the design as it is now."""
    design = document.design
    index = design.index
    assert sorted(document.figures.findings(), key=repr) == sorted(check_design(design), key=repr)
    assert index.link_positions(design.links, design.links) == list(range(len(design.links)))
    devices = [d for _r, d in design.iter_devices()]
    assert index.device_names == Counter(d.name for d in devices)
    hosts: Counter[str] = Counter()
    for device in devices:
        if (host := _host(device.name)) is not None:
            hosts[host] += 1
    assert +index.host_names == hosts
    assert index.links == {link.id: link for link in design.links}
    for structure in _kept_structures(document):
        kept = plane_edits.kept_of(structure)
        fresh = drain(plane_edits._kept_steps(structure, None))
        for name, ids in fresh.ids.items():
            assert np.array_equal(kept.ids[name], ids), name
        assert kept.first == fresh.first and kept.leaves == fresh.leaves
        assert np.array_equal(kept.host_row, fresh.host_row)


def test_the_warm_up_runs_after_the_findings_are_out(qtbot, monkeypatch):
    """The check's findings and estimate come first; the warm-up follows in slices of
    its own (it made them ~0.9 s late at 100,000 GPUs when it ran before the rules)."""
    document = _document(monkeypatch)
    figures = document.figures
    at_findings: list[tuple[bool, bool]] = []
    figures.findingsReady.connect(
        lambda: at_findings.append((figures.settled, document.design.index._link_at is None))
    )
    figures.check_soon()
    qtbot.waitUntil(lambda: figures.checked, timeout=20_000)
    assert at_findings == [(False, True)]  # announced before any warm-up step ran
    assert not figures.settled
    qtbot.waitUntil(lambda: figures.settled, timeout=20_000)
    assert document.design.index._link_at is not None
    _assert_as_fresh(document)


def test_the_first_removal_after_the_check_builds_nothing_again(qtbot, monkeypatch):
    document = _document(monkeypatch)
    figures = document.figures
    figures.check_soon()
    qtbot.waitUntil(lambda: figures.settled, timeout=20_000)
    index = document.design.index
    assert index.links_indexed and index._link_at is not None
    assert all("_kept" in s.__dict__ for s in _kept_structures(document))
    names, hosts = index._names, index._hosts
    assert names is not None and hosts is not None
    assert index._next["device"] == highest_number(index.devices, ID_SHAPES["device"][0]) + 1
    builds: list[str] = []
    for owner, name in (
        (DesignIndex, "_read_link_positions"),
        (DesignIndex, "_index_links"),
        (plane_edits, "_kept_steps"),
    ):
        build = getattr(owner, name)
        monkeypatch.setattr(
            owner, name, lambda *a, _b=build, _n=name, **k: builds.append(_n) or _b(*a, **k)
        )
    _remove_a_cabled_node(document)
    figures.findings()
    plane_structures(document.design)
    assert builds == []
    assert index._names is names and index._hosts is hosts  # counted on, not again
    document.undo()
    assert builds == []
    _assert_as_fresh(document)


#: Each builder of the warm-up, by where the window's figures find it.
BUILDERS = {
    "link_tables_in_steps": DesignIndex,
    "link_positions_in_steps": DesignIndex,
    "names_in_steps": DesignIndex,
    "first_number_in_steps": DesignIndex,
    "kept_in_steps": plane_edits,  # the window imports it from there when it warms up
}


@pytest.mark.parametrize("builder", sorted(BUILDERS))
def test_an_edit_during_the_warm_up_leaves_every_table_as_a_fresh_build(
    qtbot, monkeypatch, builder
):
    """A removal lands in the middle of each builder's steps (its undo after the end)."""
    document = _document(monkeypatch)
    figures = document.figures
    owner = BUILDERS[builder]
    build = getattr(owner, builder)
    landed: list[int] = []

    def with_an_edit(*args):
        for k, step in enumerate(build(*args)):
            if k == 2:
                _remove_a_cabled_node(document)
                landed.append(k)
            yield step

    monkeypatch.setattr(owner, builder, with_an_edit)
    figures.check_soon()
    while not figures.settled:
        QApplication.processEvents()
    assert landed  # the edit landed inside that builder's steps
    _assert_as_fresh(document)
    document.undo()
    _assert_as_fresh(document)


def test_a_builder_keeps_nothing_read_while_the_design_moved():
    """What the steps read before a cabling edit (or any edit, for the name counts) is
    dropped, not kept: the next reader builds it from the design as it is then."""
    design = sample_design(load_catalog(include_user=False, strict=True))
    design.reindex()  # a fresh index, as an opened file has
    index = design.index
    structures = list(plane_structures(design).values())
    moved = [False]
    steps = [
        index.link_positions_in_steps(3),
        index.names_in_steps(3, lambda: not moved[0]),
        plane_edits.kept_in_steps(design, 3),
        index.first_number_in_steps("device", 3, lambda: not moved[0]),
    ]
    for builder in steps:
        next(builder)
        next(builder)
    index.touch_fabric()
    moved[0] = True
    for builder in steps:
        for _step in builder:
            pass
    assert index._link_at is None and index._names is None and index._hosts is None
    assert not any("_kept" in s.__dict__ for s in structures)
    assert "device" not in index._next
