"""The storage clients and the racks' IT draw are kept per rack between edits
(:meth:`workbench.model.index.DesignIndex.per_rack`), with their totals (the clients'
GPUs, Gb/s, cabled and starved nodes; the draw and racks per cooling type): after
every kind of edit, and after undoing them, they must equal a computation from
scratch, and a GPU node dropped into one rack must read that rack only."""

from __future__ import annotations

import copy
import dataclasses
from fractions import Fraction

import pytest
from storage_designs import DGX, PFS, storage_design

from workbench.calc import storage_clients, storage_tiers
from workbench.calc.storage_clients import ClientFigures, is_starved
from workbench.calc.storage_tiers import storage_figures
from workbench.calc.summary import cooling_pue, walked_pue
from workbench.catalog import load_catalog
from workbench.model import Design, Device, Link, StorageTier
from workbench.model.index import DesignIndex, exact
from workbench.model.ops import (
    AddDevice,
    AddLink,
    MoveDevice,
    RemoveDevice,
    RenameDevice,
    ReplaceDeviceType,
    SetRackFields,
    apply,
)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False)


def _fresh(design: Design) -> Design:
    """The same design with nothing kept: a copy with its index dropped."""
    other = copy.deepcopy(design)
    other.reindex()
    return other


def _assert_current(design: Design) -> None:
    fresh = _fresh(design)
    kept_figures, fresh_figures = storage_figures(design), storage_figures(fresh)
    assert kept_figures == fresh_figures
    kept = kept_figures.clients
    assert kept.sums is not None  # the totals were kept, not summed here
    walked = ClientFigures(kept.nodes)  # the same nodes summed one by one
    for clients in (fresh_figures.clients, walked):
        assert kept.count == len(clients.nodes)
        assert kept.gbps == clients.gbps
        assert kept.gpus == clients.gpus
        assert kept.cabled == clients.cabled
        assert kept.starved == clients.starved
    assert kept.starved == tuple(n for n in kept.nodes if is_starved(n))
    assert cooling_pue(design) == cooling_pue(fresh) == walked_pue(design)


def test_kept_figures_equal_fresh_ones_through_edits_and_undo(catalog) -> None:
    # The tier names one id no device has yet: a device given that id joins it.
    tier = StorageTier("tier-hot", "Hot", "hot", "Lustre", ["st-0", "st-1", "st-ghost"])
    design = storage_design(
        catalog, nodes=5, appliances=2, appliance_links=1, node_links=1, tiers=[tier]
    )
    _assert_current(design)  # the caches start here
    before = (storage_figures(design), cooling_pue(design))
    bigger = dataclasses.replace(catalog[DGX], gpu_count=4, max_power_w=9000)
    edits = [
        AddDevice("rg1", Device("gpu-new", "gpu-new", DGX, 25)),  # a drop, uncabled
        RemoveDevice("gpu-0"),  # a cabled node: its link goes too
        MoveDevice("gpu-1", "rg1", 33, "front"),  # to another rack
        MoveDevice("gpu-3", "rg1", 1, "front", index=1),  # reordered within its rack
        ReplaceDeviceType(bigger),  # the node's type: GPUs and watts
        AddLink(Link("l-new", "gpu-2", "storage1", "sw-1", "swp60", "net-storage")),
        # A slow link on the dropped node: it is starved (25 Gb/s for 8 GPUs).
        AddLink(
            Link("l-slow", "gpu-new", "storage0", "sw-1", "swp61", "net-storage", speed_gbps=25.5)
        ),
        RenameDevice("gpu-2", "renamed-node"),
        SetRackFields("rg0", {"cooling": "liquid"}),
        MoveDevice("st-0", "rn", 1, "front"),  # an appliance to another rack
        RemoveDevice("st-1"),  # a cabled appliance: its link and tier place go too
    ]
    inverses = []
    starved = False
    for op in edits:
        inverses.append(apply(design, op).inverse)
        _assert_current(design)
        starved = starved or bool(storage_figures(design).clients.starved)
    assert starved  # the starved nodes were counted at some point, not only none
    assert cooling_pue(design) != before[1]  # a liquid rack weighs in
    assert storage_figures(design) != before[0]  # the edits moved the figures
    for inverse in reversed(inverses):
        apply(design, inverse)
        _assert_current(design)
    assert storage_figures(design) == before[0]
    assert cooling_pue(design) == before[1]
    # A device given the id the tier names but nothing had: it joins the tier, with no
    # cabling or tier edit, and leaves it again (the id still named) when undone.
    undo = apply(design, AddDevice("rs", Device("st-ghost", "st-ghost", PFS, 30))).inverse
    _assert_current(design)
    assert storage_figures(design).tiers[0].devices == before[0].tiers[0].devices + 1
    apply(design, undo)
    _assert_current(design)
    assert storage_figures(design) == before[0]
    assert "st-ghost" in design.storage_tiers[0].device_ids


def test_a_drop_reads_the_rack_it_lands_in_only(catalog, monkeypatch) -> None:
    design = storage_design(catalog, nodes=9, appliances=2, appliance_links=1, node_links=1)
    storage_figures(design)
    read: list[str] = []
    original = storage_clients._rack_clients

    def spy(design, rack, *args):
        read.append(rack.id)
        return original(design, rack, *args)

    monkeypatch.setattr(storage_clients, "_rack_clients", spy)
    summed: list[str] = []
    appliances = storage_tiers._appliances

    def counted(design, tier, *args):
        summed.append(tier.id)
        return appliances(design, tier, *args)

    monkeypatch.setattr(storage_tiers, "_appliances", counted)
    apply(design, AddDevice("rg1", Device("gpu-new", "gpu-new", DGX, 25)))
    figures = storage_figures(design)
    assert read == ["rg1"]
    assert summed == []  # the tier's appliances are as they were
    assert "gpu-new" in {n.device_id for n in figures.clients.nodes}
    read.clear()
    apply(design, AddLink(Link("l-new", "gpu-new", "storage1", "sw-1", "swp60", "net-storage")))
    storage_figures(design)
    # A link edit re-reads the racks of its two ends only (their hosts' Gb/s may move).
    ends = {design.index.devices[d][0].id for d in ("gpu-new", "sw-1")}
    assert sorted(read) == sorted(ends)
    _assert_current(design)


@pytest.mark.parametrize("missed", ["device", "rack field"])
def test_a_missed_mark_shows(catalog, monkeypatch, missed) -> None:
    """The comparison above can fail: with the index told nothing of a drop (or of a
    rack's cooling), the kept totals go stale and differ from fresh ones."""
    design = storage_design(catalog, nodes=5, appliances=2, appliance_links=1, node_links=1)
    _assert_current(design)
    if missed == "device":
        monkeypatch.setattr(DesignIndex, "_mark", lambda self, rack_id: None)
        apply(design, AddDevice("rg1", Device("gpu-new", "gpu-new", DGX, 25)))
    else:
        monkeypatch.setattr(DesignIndex, "rack_changed", lambda self, rack_id: None)
        apply(design, SetRackFields("rg0", {"cooling": "liquid"}))
    with pytest.raises(AssertionError):
        _assert_current(design)


def test_kept_nodes_listed_after_a_later_edit_are_those_of_their_figures(catalog) -> None:
    """The node list is read when first asked, off a snapshot: figures kept across an
    edit (a panel's, a check's memo) still list the nodes they counted."""
    design = storage_design(catalog, nodes=5, appliances=2, appliance_links=1, node_links=1)
    storage_figures(design)
    before = storage_figures(design).clients  # kept: nodes not listed yet
    apply(design, AddDevice("rg1", Device("gpu-new", "gpu-new", DGX, 25)))
    apply(design, RemoveDevice("gpu-0"))
    after = storage_figures(design).clients
    ids = [n.device_id for n in before.nodes]
    assert "gpu-0" in ids and "gpu-new" not in ids
    assert len(before.nodes) == before.count == 5
    assert "gpu-new" in {n.device_id for n in after.nodes} and after.count == 5
    assert before != after


@pytest.mark.parametrize(
    ("value", "kept"),
    [(400, 400), (400.0, 400), (25.5, Fraction(51, 2)), (float("nan"), None)],
)
def test_exact_takes_ints_floats_and_refuses_what_is_not_finite(value, kept) -> None:
    """A speed or count read from a file may be an int (SQLite hands back 400, not
    400.0); int has no is_integer before Python 3.12, which crashed the Storage panel
    on an odd design."""
    assert exact(value) == kept
