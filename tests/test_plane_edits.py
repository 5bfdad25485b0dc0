"""The planes' structures and the compute plane kept across cabling edits equal a full
recomputation after any run of edits (issue 21: a cabling edit at 100,000 GPUs re-read
all 443,000 links; now the kept ones are brought up to date from the links it touched,
and a drift from the full answer must fail here)."""

from __future__ import annotations

import contextlib
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from workbench.calc.design_hardware import (
    ComputePlane,
    _fabric_figures,
    compute_plane,
    compute_plane_in_steps,
    tier_figures,
)
from workbench.calc.fabric import planes as planes_module
from workbench.calc.fabric.graph import _graph, plane_graph
from workbench.calc.fabric.plane_edits import kept_of, replay_of
from workbench.calc.fabric.planes import (
    PLANES,
    _plane_structures,
    host_port_names,
    plane_structure,
    plane_structures,
)
from workbench.calc.fabric.tables import (
    DeviceTable,
    _steps,
    link_arrays,
    renumbered_column,
    spliced,
    spliced_in_room,
    with_rows,
    without_rows,
)
from workbench.calc.steps import drain
from workbench.calc.storage_clients import (
    PlaneBandwidth,
    PortSpeeds,
    clients_of,
    kept_bandwidth,
    kept_clients,
)
from workbench.calc.storage_tiers import storage_figures
from workbench.calc.summary import cooling_pue, walked_pue
from workbench.catalog import load_catalog
from workbench.catalog.item import is_gpu_server
from workbench.model import ops
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.templates import build_template


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def same_structures(design: Design) -> None:
    """The kept structures equal a full pass: same lists in the same order, same hosts,
    same tiers in the same order."""
    kept = plane_structures(design)
    full = _plane_structures(design, list(PLANES))
    for plane in PLANES:
        a, b = kept[plane], full[plane]
        assert [link.id for link in a.links] == [link.id for link in b.links], plane
        assert [link.id for link in a.host_links] == [link.id for link in b.host_links], plane
        assert [link.id for link in a.switch_links] == [link.id for link in b.switch_links]
        assert a.hosts == b.hosts, plane
        assert list(a.tiers.items()) == list(b.tiers.items()), plane
        if "_kept" in a.__dict__:  # the leaves a replay orders its moved ones among
            assert kept_of(a).leaves == [s for s, t in b.tiers.items() if t == 1], plane
            # Which rows are host links (where a replay finds a link in host_links).
            hosts = {link.id for link in b.host_links}
            marks = [link.id in hosts for link in b.links]
            assert kept_of(a).host_row.tolist() == marks, plane
            assert kept_of(a).ids["links"].tolist() == [id(link) for link in a.links], plane
    assert compute_plane(design) == full_compute_plane(design, full["compute"])
    same_graph_rows(design, full["compute"])
    # The storage clients and the racks' draw, kept per rack across cabling edits.
    bandwidth = PlaneBandwidth(design, full["storage"].host_links)
    assert kept_bandwidth(design).gbps == bandwidth.gbps
    kept_nodes = kept_clients(design, kept_bandwidth(design))
    fresh = clients_of(design, bandwidth, PortSpeeds())
    assert kept_nodes.nodes == fresh.nodes
    assert (kept_nodes.count, kept_nodes.gpus, kept_nodes.gbps) == (
        len(fresh.nodes),
        sum(n.gpus for n in fresh.nodes),
        fresh.gbps,
    )
    assert cooling_pue(design) == walked_pue(design)
    assert storage_figures(design) == storage_figures(design, full["storage"])


def full_compute_plane(design: Design, structure) -> ComputePlane:
    """The compute plane's figures from a full pass, nothing kept used."""
    if not design.links:
        return ComputePlane()
    graph = plane_graph(design, "compute", structure, DeviceTable(design))
    tiers = tuple(tier_figures(graph))
    return ComputePlane(tiers, _fabric_figures(graph, tiers))


def same_graph_rows(design: Design, structure) -> None:
    """The compute plane's kept link arrays and graph rows (brought up to date by a
    replay, not read again) equal those a full pass reads, row for row."""
    kept = design.index.fabric_cache.get("compute_tables")
    if not design.links or kept is None or kept[0] != design.index.fabric_version:
        return
    _serial, devices, arrays, rows = kept[1]
    fresh = DeviceTable(design)
    graph = plane_graph(design, "compute", structure, fresh, link_arrays(fresh, structure.links))
    assert devices.ids == fresh.ids
    assert dict(devices.pos) == fresh.pos  # numbered from the index's log, not afresh
    # A device gone (removed nodes: ids the template numbered) has no number.
    probes = [f"d{k:06d}" for k in range(2 * len(fresh.ids))]
    assert [devices.pos.get(i) for i in probes] == [fresh.pos.get(i) for i in probes]
    for name in ("a", "b"):
        assert np.array_equal(getattr(arrays, name), getattr(graph.arrays, name)), name
    # Kept across edits: False only where no row names the missing number.
    if arrays.names_missing is False:
        assert not (arrays.a == devices.missing).any()
        assert not (arrays.b == devices.missing).any()
    for name in ("a_code", "b_code"):  # codes number ends as met: their ends agree

        def ends(table, codes):
            facts = [table.ends.facts[c] for c in codes.tolist()]
            return [(f.item.slug if f.item else None, f.name, f.host, f.speed) for f in facts]

        kept_ends = ends(devices, getattr(arrays, name))
        assert kept_ends == ends(fresh, getattr(graph.arrays, name)), name
    assert np.array_equal(arrays.speed, graph.arrays.speed, equal_nan=True)
    for name in ("down", "up"):
        assert np.array_equal(getattr(rows, name), getattr(graph, name)), name
    # The rows themselves are not kept: a replayed graph reads them from the kept arrays
    # and tiers when asked, and a replay reads the removed rows' so.
    sums = (rows.down, rows.up, rows.layer_gbps, rows.layer_links)
    replayed = _graph(structure, devices, arrays, rows.tier, None, sums)
    assert not {"layer", "lower", "upper", "gbps"} & replayed.__dict__.keys()
    for name in ("layer", "lower", "upper", "gbps"):
        assert np.array_equal(getattr(replayed, name), getattr(graph, name)), name
    assert rows.layer_gbps == graph.layer_gbps
    assert list(rows.layer_links.items()) == list(graph.layer_links.items())
    assert rows.tiers == structure.tiers
    # Carried over by a replay (tiers per device, the switches' numbers), not read again.
    assert rows.tier is not None and np.array_equal(rows.tier, graph.tier)
    assert rows.switch_numbers is not None
    assert np.array_equal(rows.switch_numbers, graph.switch_numbers)
    assert rows.unknown_speed == graph.unknown_speed
    assert rows.whole  # the template's speeds: the sums were replayed, not re-taken


def gpu_nodes(design: Design) -> list[str]:
    types = design.device_types
    return [d.id for _r, d in design.iter_devices() if is_gpu_server(types.get(d.device_type))]


EDIT = st.tuples(
    st.sampled_from(["remove", "unlink", "undo", "undo", "relink"]), st.integers(0, 10**6)
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(EDIT, min_size=1, max_size=8),
    read_every=st.booleans(),
    dangling=st.booleans(),
)
# Two nodes removed, then put back in the order they went (not last-first): their links
# come back at other places than they left, so a leaf's first host link is the same link
# at another place, and the leaves' order must be read again.
@example(
    edits=[("remove", 0), ("remove", 491), ("relink", 0), ("relink", 0)],
    read_every=False,
    dangling=False,
)
# A file's link to a device it lacks, on the compute network: its row names the table's
# missing number, which a node put back moves (the rows must be renumbered).
@example(edits=[("remove", 0), ("undo", 0)], read_every=True, dangling=True)
def test_kept_structures_follow_random_edits(catalog, edits, read_every, dangling):
    """Cabled GPU nodes removed, links taken out one by one or in a batch, and undone in
    any order, with the structures read after every edit or only at the end."""
    design = build_template("dgx-h100-superpod", gpus=128, catalog=catalog)
    if dangling:  # as a file holds it (the model's edits refuse such a link)
        first = plane_structures(design)["compute"].host_links[0]
        ghost = dataclasses.replace(first, id="ghost-link", a_device="ghost-node")
        design = dataclasses.replace(design, links=[*design.links, ghost])
    design.index.keep_tables = True
    same_structures(design)
    undo: list[ops.Op] = []
    for kind, n in edits:
        apply_edit(design, kind, n, undo)
        if read_every:
            same_structures(design)
    same_structures(design)


def apply_edit(design: Design, kind: str, n: int, undo: list[ops.Op]) -> None:
    """One edit of :data:`EDIT` (``undo``: the inverses of those applied, last last)."""
    if kind == "remove":
        nodes = gpu_nodes(design)
        op: ops.Op | None = ops.RemoveDevice(nodes[n % len(nodes)]) if nodes else None
    elif kind == "unlink":
        links = design.links
        if not links:
            return
        start = n % len(links)
        chosen = links[start : start + 1 + n % 3]
        op = (
            ops.RemoveLink(chosen[0].id)
            if len(chosen) == 1
            else ops.RemoveLinks(tuple(link.id for link in chosen))
        )
    elif kind == "relink":
        op = undo.pop(n % len(undo)) if undo else None
        if op is not None:
            with contextlib.suppress(EditError):
                undo.append(ops.apply(design, op).inverse)
            op = None
    else:
        op = undo.pop() if undo else None
        if op is not None:
            ops.apply(design, op)
            op = None
    if op is not None:
        undo.append(ops.apply(design, op).inverse)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=st.lists(EDIT, min_size=1, max_size=8), most_behind=st.sampled_from([1, 3, 64]))
def test_planes_nobody_asks_about_catch_up_when_read(catalog, monkeypatch, edits, most_behind):
    """The compute plane read after every edit (as the window's rules read it), the
    other planes left behind: read at the end, or once too far behind, every plane and
    figure equals a full pass."""
    monkeypatch.setattr(planes_module, "MOST_BEHIND", most_behind)
    design = build_template("dgx-h100-superpod", gpus=128, catalog=catalog)
    design.index.keep_tables = True
    same_structures(design)
    undo: list[ops.Op] = []
    for kind, n in edits:
        apply_edit(design, kind, n, undo)
        plane_structure(design, "compute")
        index = design.index
        cached = index.fabric_cache.get("plane_structures")
        if cached is not None:  # (None: an edit no replay follows; read afresh next)
            assert cached[0] == index.fabric_version
            stamp, behind = index.fabric_cache["planes_behind"]
            assert stamp == cached[0] and "compute" not in behind
            assert all(v >= index.fabric_version - most_behind for v in behind.values())
        assert compute_plane(design) == full_compute_plane(
            design, _plane_structures(design, ["compute"])["compute"]
        )
    same_structures(design)
    assert not design.index.fabric_cache["planes_behind"][1]


def test_a_node_removal_is_replayed_not_recomputed(catalog):
    """Removing a cabled node and undoing it bring the kept structures up to date from
    the links it touched (a replay), and the figures equal a full pass."""
    design = build_template("dgx-h100-superpod", gpus=256, catalog=catalog)
    design.index.keep_tables = True
    before = [link.id for link in plane_structures(design)["compute"].links]
    node = gpu_nodes(design)[5]
    gone = ops.apply(design, ops.RemoveDevice(node))
    after = plane_structures(design)
    found = replay_of(after["compute"])
    assert found is not None
    assert len(found.removed) == len(before) - len(after["compute"].links) > 0
    same_structures(design)
    kept = design.index.fabric_cache["compute_tables"]
    assert kept[0] == design.index.fabric_version  # read off the replayed arrays
    ops.apply(design, gone.inverse)
    assert replay_of(plane_structures(design)["compute"]) is not None
    same_structures(design)
    assert [link.id for link in plane_structures(design)["compute"].links] == before


def test_an_appliance_unlinked_moves_its_tier(catalog):
    """A storage link of a tier's appliance taken out and put back: the tier's figures
    (kept across replays of the storage Gb/s) follow, as a fresh computation says."""
    design = build_template("dgx-h100-superpod", gpus=256, catalog=catalog)
    design.index.keep_tables = True
    members = {d for tier in design.storage_tiers for d in tier.device_ids}
    storage = {n.id for n in design.networks if n.plane == "storage"}
    link = next(
        link
        for link in design.links
        if link.network in storage and {link.a_device, link.b_device} & members
    )
    before = storage_figures(design)
    gone = ops.apply(design, ops.RemoveLink(link.id))
    same_structures(design)
    assert storage_figures(design) != before  # the appliance lost a port's Gb/s
    ops.apply(design, gone.inverse)
    same_structures(design)
    assert storage_figures(design) == before


def test_a_switch_mgmt_port_on_the_storage_plane_has_its_figure_replayed(catalog):
    """A switch's management-only port is a host end: cabled on the storage network its
    link adds to the switch's storage Gb/s, and taking it out takes that away, while
    links at the switch's data ports (a node's removal) leave its figure as it was."""
    design = build_template("dgx-h100-superpod", gpus=256, catalog=catalog)
    design.index.keep_tables = True
    storage = next(n.id for n in design.networks if n.plane == "storage")
    devices = design.index.devices
    link = next(  # a switch's own management port (the switch: not a host item)
        link
        for link in design.links
        if host_port_names(design.device_types.get(devices[link.a_device][1].device_type))
        and link.a_port == "mgmt0"
    )
    same_structures(design)
    gone = ops.apply(design, ops.RemoveLink(link.id))
    same_structures(design)
    moved = dataclasses.replace(link, network=storage)
    ops.apply(design, ops.AddLink(moved))
    same_structures(design)
    assert kept_bandwidth(design).gbps.get(link.a_device)  # the switch has a figure now
    for node in gpu_nodes(design)[:2]:  # links at switches' data ports only
        ops.apply(design, ops.apply(design, ops.RemoveDevice(node)).inverse)
        same_structures(design)
    ops.apply(design, ops.RemoveLink(moved.id))
    same_structures(design)
    ops.apply(design, gone.inverse)
    same_structures(design)


def test_the_index_logs_only_what_can_be_replayed(catalog):
    """The cabling log gives the links each edit added or dropped since a version, and
    None where a reader must compute afresh: a change no replay follows (a catalog item
    replaced), or a version the log no longer reaches."""
    design = build_template("dgx-h100-superpod", gpus=128, catalog=catalog)
    index = design.index
    start = index.fabric_version
    link = design.links[0]
    gone = ops.apply(design, ops.RemoveLink(link.id))
    assert index.fabric_changes(start) == [("drop", link)]
    ops.apply(design, gone.inverse)
    assert index.fabric_changes(start) == [("drop", link), ("add", (link,))]
    assert index.fabric_changes(index.fabric_version) == []
    index.touch_types()
    assert index.fabric_changes(start) is None
    after = index.fabric_version
    for _ in range(300):  # more than the log keeps
        ops.apply(design, ops.apply(design, ops.RemoveLink(link.id)).inverse)
    assert index.fabric_changes(after) is None
    assert index.fabric_changes(index.fabric_version - 2) is not None


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(0, 40),
    removed=st.lists(st.integers(0, 39), max_size=6),
    inserted=st.lists(st.integers(0, 40), max_size=6),
)
def test_rows_taken_out_and_put_in_as_numpy_does(size, removed, inserted):
    """The replays' one-copy splices of long columns equal np.delete and np.insert."""
    column = np.arange(size, dtype=np.int64) * 3
    places = sorted({p for p in removed if p < size})
    kept = without_rows(column, places)
    assert np.array_equal(kept, np.delete(column, places))
    at = sorted(p % (len(kept) + 1) for p in inserted)
    values = list(range(100, 100 + len(at)))
    assert np.array_equal(with_rows(kept, at, values), np.insert(kept, at, values))
    assert np.array_equal(spliced(column, places, at, values), np.insert(kept, at, values))


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(0, 40),
    edits=st.lists(
        st.tuples(
            st.lists(st.integers(0, 60), max_size=6),
            st.lists(st.integers(0, 60), max_size=6),
            st.booleans(),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_splices_in_room_equal_numpy_edit_after_edit(size, edits):
    """A kept column spliced in its own buffer (:func:`spliced_in_room`: rows moved
    within it, renumbered in place), edit after edit, equals the gather, np.delete and
    np.insert on a fresh copy; the column it was made from is never written over."""
    fresh = np.arange(size, dtype=np.int64) % 7
    column = spliced_in_room(fresh, [], [], [])
    assert np.array_equal(column, fresh) and np.array_equal(fresh, np.arange(size) % 7)
    for removed, inserted, renumbered in edits:
        places = sorted({p % len(fresh) for p in removed}) if len(fresh) else []
        kept = np.delete(fresh, places)
        at = sorted(p % (len(kept) + 1) for p in inserted)
        values = [k % 7 for k in range(len(at))]
        renumber = (np.arange(8) * 5)[::-1].copy() if renumbered else None
        moved = fresh if renumber is None else renumber[fresh]
        expected = np.insert(np.delete(moved, places), at, values)
        column = spliced_in_room(column, places, at, values, renumber)
        assert np.array_equal(column, expected)
        fresh = expected % 7 if renumbered else expected
        if renumbered:  # numbers stay below the table's length for the next renumber
            column = spliced_in_room(column, [], [], [])
            column[:] %= 7


@settings(max_examples=100, deadline=None)
@given(size=st.integers(0, 30), gone=st.sets(st.integers(0, 29), max_size=14))
def test_numbers_close_up_as_a_running_count_gives(size, gone):
    """A device table's numbers after some went (a suffix shifted per gone one when
    few, else a running count of those kept) equal the positions a list without them
    gives, -1 for those gone."""
    places = sorted(p for p in gone if p < size)
    kept = [n for n in range(size) if n not in gone]
    expected = [kept.index(n) if n in kept else -1 for n in range(size)]
    assert _steps(size, places).tolist() == expected


@settings(max_examples=100, deadline=None)
@given(size=st.integers(0, 12), gone=st.sets(st.integers(0, 11)), came=st.integers(0, 3))
def test_a_column_renumbered_as_a_gather_does(size, gone, came):
    """Device numbers carried to a renumbered table: the gather, or the column itself
    where no number in it moves (devices only came, none of its rows names the old
    missing number)."""
    kept = [n for n in range(size) if n not in gone]
    renumber = np.array(
        [kept.index(n) if n in kept else len(kept) + came for n in range(size)]
        + [len(kept) + came],
        dtype=np.int64,
    )
    for column in (np.arange(size + 1), np.array(kept, dtype=np.int64), np.zeros(0, np.int64)):
        column = column.astype(np.int64)
        assert np.array_equal(renumbered_column(column, renumber), renumber[column])


def test_a_stepped_reader_holding_the_plane_reads_it_as_it_started(catalog):
    """The compute plane built in steps (the window's first check) holds its structure
    across events: a cabled node removed between its steps, and the structures replayed
    meanwhile, leave the lists it reads as they were, so it ends with the figures of
    the design it started on; the kept structures still equal a full pass.  Unheld, the
    replay edits the kept structure in place (no copy of its 300,000-link lists)."""
    design = build_template("dgx-h100-superpod", gpus=256, catalog=catalog)
    design.index.keep_tables = True
    kept = plane_structures(design)["compute"]
    expected = full_compute_plane(design, _plane_structures(design, ["compute"])["compute"])
    ids = [link.id for link in kept.links]
    steps = compute_plane_in_steps(design, chunk=64)
    for _ in range(5):  # mid-way: the structure is held, some link arrays are read
        next(steps)
    gone = ops.apply(design, ops.RemoveDevice(gpu_nodes(design)[3]))
    replayed = plane_structures(design)["compute"]  # a reader between the steps
    assert replayed is not kept and replay_of(replayed) is not None
    assert [link.id for link in kept.links] == ids
    assert drain(steps) == expected  # what it started on, not kept
    assert [link.id for link in kept.links] == ids
    same_structures(design)
    # Nobody holds it now: the next replay brings the kept structure up to date in place.
    now = plane_structures(design)["compute"]
    ops.apply(design, gone.inverse)
    assert plane_structures(design)["compute"] is now
    assert [link.id for link in now.links] == ids
    same_structures(design)
