"""What the step-time model reads from the design: the node, its links and the fabric.

Why a module of its own: the Estimates view, the command line and the report must
derive the same NVLink, NIC and oversubscription figures from a design, and each of
them must say where a figure came from or that a documented default stood in for it
(issue: "where the design lacks an input the model needs, the estimate says which").

* The **node** is the GPU server type of the design that carries the job's GPU (the
  most common one when several do); its ``gpu_count`` is the NVLink domain.
* **NVLink** is the GPU item's ``nvlink_gbs`` (bidirectional, as datasheets quote it).
* The **compute NIC per GPU** is the summed line rate of the node's interfaces named
  ``compute*`` (the catalog's convention for the GPU-rail ports: DGX H100 has eight
  400G OSFP ``compute0..7``) divided by its GPUs; a job's ``nic_gbps`` overrides it.
* The **oversubscription** is the compute plane's worst tier ratio (Σ down / Σ up,
  :func:`workbench.calc.fabric.analysis.oversubscription`), never below 1.0 (spare
  uplinks do not make a ring faster than its NICs); ``gpus_per_leaf`` the host ports
  per leaf switch, which bounds the data-parallel groups that stay below one leaf.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from workbench.calc.fabric.analysis import TierFigures, oversubscription, tier_figures
from workbench.calc.fabric.graph import (
    GraphRows,
    PlaneGraph,
    plane_graph,
    plane_graph_in_steps,
    replayed_graph,
)
from workbench.calc.fabric.plane_edits import Replay, held, replay_of, serial_of
from workbench.calc.fabric.planes import (
    STEP_LINKS,
    PlaneStructure,
    plane_structure,
    plane_structures_in_steps,
)
from workbench.calc.fabric.tables import (
    DeviceTable,
    LinkArrays,
    link_arrays,
    spliced_in_room,
)
from workbench.catalog.item import CatalogItem, is_gpu_server
from workbench.catalog.netbox import interface_speed_gbps
from workbench.model.design import Design
from workbench.model.index import DesignIndex

#: GPUs per node assumed when the job's GPU is in no server of the design.
DEFAULT_GPUS_PER_NODE = 8


@dataclass(frozen=True)
class FabricFigures:
    """The compute plane as the step-time model sees it (None: the design has none)."""

    oversubscription: float | None = None
    gpus_per_leaf: int | None = None
    source: str = ""


@dataclass(frozen=True)
class ComputePlane:
    """The compute plane's tier figures and what the step-time model reads of them,
    from one build of its graph."""

    tiers: tuple[TierFigures, ...] = ()
    fabric: FabricFigures = field(default_factory=FabricFigures)


def compute_plane(design: Design) -> ComputePlane:
    """:class:`ComputePlane` of ``design``, kept until the cabling changes
    (:meth:`~workbench.model.index.DesignIndex.by_cabling`).

    Why kept: FABRIC-OVERSUB, the training estimates (STORAGE-CHECKPOINT through them)
    and the status strip all read the compute plane after a cabling edit, and each
    built its graph (~130 ms at 100,000 GPUs); the figures are a few numbers, so
    keeping them costs nothing where keeping the graph cost 260 MB at 1,000,000."""
    return design.index.by_cabling("compute_plane", lambda: _compute_plane(design))


def _compute_plane(design: Design) -> ComputePlane:
    if not design.links:
        return ComputePlane()
    structure = plane_structure(design, "compute")
    found = _kept_graph(design, structure)
    if found is None:
        devices = DeviceTable(design)
        arrays = link_arrays(devices, structure.links)
        graph = plane_graph(design, "compute", structure, devices, arrays)
        _keep_tables(design, structure, graph)
    else:
        graph, rows = found
        _keep_tables(design, structure, graph, rows)
    tiers = tuple(tier_figures(graph))
    return ComputePlane(tiers, _fabric_figures(graph, tiers))


def _kept_graph(
    design: Design, structure: PlaneStructure
) -> tuple[PlaneGraph, GraphRows | None] | None:
    """The compute plane's graph from the kept device table, link arrays and graph
    rows (where the index keeps tables, :attr:`DesignIndex.keep_tables`) brought up to
    date when ``structure`` was replayed from the one they were read for; None when
    there is nothing to bring up to date (the caller reads every link).

    Why: reading 300,000 links into arrays takes ~80 ms at 100,000 GPUs and the graph's
    passes over them ~11 ms, and a cabling edit in the window (a cabled node removed)
    changes a dozen rows of them."""
    index = design.index
    kept = index.fabric_cache.get("compute_tables")
    replay = replay_of(structure)
    if kept is None or replay is None or not index.keep_tables:
        return None
    serial, old_devices, old_arrays, old_rows = cast(
        tuple[int, DeviceTable, LinkArrays, GraphRows], kept[1]
    )
    if serial != replay.base:
        return None
    devices, renumber = DeviceTable.renumbered(design, old_devices)
    removed = np.array(replay.removed, dtype=np.int64)
    # The removed rows, read before the splice writes over the kept columns; and the
    # kept tables let go of first, so an edit that fails half way leaves none to replay.
    gone = LinkArrays([], *(getattr(old_arrays, f)[removed] for f in _ARRAY_FIELDS))
    del index.fabric_cache["compute_tables"]
    # Whether a kept row names the old table's missing number, read before the splice
    # (the old arrays' own flag, else their columns once).
    names_missing = old_arrays.may_name_missing(old_devices.missing)
    arrays, new = _replayed_arrays(
        structure, replay, devices, renumber, removed, old_arrays, names_missing
    )
    # Links of unknown speed: the old count less the rows taken out, plus the new rows'.
    unknown = (
        old_rows.unknown_speed - int(np.isnan(gone.speed).sum()) + int(np.isnan(new.speed).sum())
    )
    found = replayed_graph(
        structure, devices, arrays, old_rows, gone, renumber, replay.inserted, unknown
    )
    if found is None:  # the tiers moved: every row is read again
        return plane_graph(design, "compute", structure, devices, arrays), None
    return found


def _keep_tables(
    design: Design, structure: PlaneStructure, graph: PlaneGraph, rows: GraphRows | None = None
) -> None:
    """Keep the compute plane's tables and graph rows for the next cabling edit
    (window only)."""
    index = design.index
    if index.keep_tables:
        rows = rows if rows is not None else GraphRows.of(graph)
        index.fabric_cache["compute_tables"] = (
            index.fabric_version,
            (serial_of(structure), graph.devices, graph.arrays, rows),
        )


def _replayed_arrays(
    structure: PlaneStructure,
    replay: Replay,
    devices: DeviceTable,
    renumber: np.ndarray,
    removed: np.ndarray,
    old: LinkArrays,
    names_missing: bool = True,
) -> tuple[LinkArrays, LinkArrays]:
    """``old`` with the rows :class:`Replay` took out deleted and its new links' rows
    put in, renumbered to ``devices`` (devices may have come and gone): the arrays a
    full read of ``structure.links`` gives; and the new links' rows alone.

    ``names_missing``: whether a row of ``old`` may name its table's missing number.
    The answer's flag is then exact where that was False: its rows naming the new
    missing number are the new links' that do.  No kept row can come to name it: a
    device that goes while a link names it is logged as such (``("device", id)``,
    :meth:`~workbench.model.index.DesignIndex.fabric_changes`), which no replay
    follows, so every row is read again."""
    links = structure.links
    new = link_arrays(devices, [links[i] for i in replay.inserted], end_codes=True)
    at = [p - k for k, p in enumerate(replay.inserted)]
    columns = {}
    for f in _ARRAY_FIELDS:
        moved = renumber if f in ("a", "b") else None
        columns[f] = spliced_in_room(
            getattr(old, f), removed, at, getattr(new, f), moved, names_missing
        )
    arrays = LinkArrays(structure.links, *(columns[f] for f in _ARRAY_FIELDS))
    arrays.names_missing = names_missing or new.may_name_missing(devices.missing)
    return arrays, new


def compute_plane_in_steps(
    design: Design, chunk: int = STEP_LINKS
) -> Generator[None, None, ComputePlane]:
    """:func:`compute_plane`, yielding after every ``chunk`` links read, the answer its
    return value, kept as :func:`compute_plane` keeps it when the cabling did not move
    meanwhile (otherwise it is not kept, and the next reader builds it anew).

    Why: the build takes ~0.5 s at 100,000 GPUs (each plane's links sorted out, then
    the compute plane's link arrays), and the window builds it right after the first
    frame (the status strip's training estimate, the workload rules): in steps, input
    waits for one step, not the whole build.  The steps compute what
    :func:`_compute_plane` does, chunk by chunk (link arrays are per link)."""
    index = design.index
    version = index.fabric_version
    cached = index.fabric_cache.get("compute_plane")
    if cached is not None and cached[0] == version:
        return cast(ComputePlane, cached[1])
    if not design.links:
        return compute_plane(design)
    structures = yield from plane_structures_in_steps(design, chunk)
    # Held: an edit between the steps leaves the lists read here as they are.
    with held(structures["compute"]) as structure:
        return (yield from _compute_plane_steps(design, chunk, index, version, structure))


def _compute_plane_steps(
    design: Design, chunk: int, index: DesignIndex, version: int, structure: PlaneStructure
) -> Generator[None, None, ComputePlane]:
    yield
    devices = yield from DeviceTable.in_steps(design, chunk // 4)
    parts: list[LinkArrays] = []
    for start in range(0, len(structure.links), chunk):
        yield
        parts.append(link_arrays(devices, structure.links[start : start + chunk]))
    columns = []
    for name in _ARRAY_FIELDS if parts else ():
        yield  # a column per step: the five together were a ~10 ms step at 100,000 GPUs
        columns.append(np.concatenate([getattr(p, name) for p in parts]))
    yield
    arrays = (
        LinkArrays(structure.links, *columns) if parts else link_arrays(devices, structure.links)
    )
    yield
    graph = yield from plane_graph_in_steps(design, "compute", structure, devices, arrays)
    yield
    tiers = tuple(tier_figures(graph))
    yield
    found = ComputePlane(tiers, _fabric_figures(graph, tiers))
    if design.index is index and index.fabric_version == version:
        index.fabric_cache["compute_plane"] = (version, found)
        _keep_tables(design, structure, graph)
    return found


#: The array columns of :class:`LinkArrays`, in order (after its ``links``).
_ARRAY_FIELDS = ("a", "b", "a_code", "b_code", "speed")


def compute_plane_ready(design: Design) -> bool:
    """Whether :func:`compute_plane` would answer from what it keeps (no build)."""
    cached = design.index.fabric_cache.get("compute_plane")
    return cached is not None and cached[0] == design.index.fabric_version


def fabric_figures(design: Design) -> FabricFigures:
    """Oversubscription and the full-bandwidth group of the compute plane.

    The group is where a data-parallel ring runs at its NICs' rate: the GPUs under one
    leaf when the leaves are oversubscribed, or under one pod (the hosts, leaves and
    spines joined below the lowest oversubscribed tier: 3,072 GPUs between 1:7 pods in
    the Llama 3 clusters) when a higher tier is; the ring crosses the oversubscribed
    uplinks only between groups.  A 100,000-GPU plane takes about half a second, so
    the result is kept until the links change (:func:`compute_plane`)."""
    return compute_plane(design).fabric


def _fabric_figures(graph: PlaneGraph, tiers: Sequence[TierFigures]) -> FabricFigures:
    """:func:`fabric_figures` from the plane's graph and its :func:`tier_figures`."""
    structure = graph.structure
    if not structure.host_links or not structure.tiers:
        return FabricFigures()
    ratios = oversubscription(tiers)
    worst = max(ratios.values(), default=1.0)
    leaves = sum(1 for tier in structure.tiers.values() if tier == 1)
    per_leaf = max(1, round(len(structure.host_links) / leaves)) if leaves else None
    shown = ", ".join(f"{tier} {ratio:.2f}:1" for tier, ratio in ratios.items()) or "one tier"
    group, where = per_leaf, f"{per_leaf} host ports per leaf"
    lowest = next((t for t in tiers if t.ratio is not None and t.ratio > 1.0 + 1e-6), None)
    if lowest is not None and lowest.tier > 1:
        pod = full_bandwidth_group(graph, lowest.tier)
        if pod:
            group, where = pod, f"{pod:,} host ports per group below tier {lowest.tier}"
    return FabricFigures(
        oversubscription=max(1.0, worst),
        gpus_per_leaf=group,
        source=f"the design's compute plane ({shown}; {where})",
    )


def full_bandwidth_group(graph: PlaneGraph, tier: int) -> int | None:
    """Host ports in the smallest connected group of hosts and switches of tiers 1 to
    ``tier`` (links of layers 1 to ``tier``): a pod when ``tier`` is the spines.  Labels
    are propagated along the links until they settle (a Clos has few hops)."""
    chosen = (graph.layer >= 1) & (graph.layer <= tier)
    low, high = graph.lower[chosen], graph.upper[chosen]
    n = len(graph.down)
    labels = np.arange(n, dtype=np.int64)
    for _ in range(4 * tier + 8):
        before = labels.copy()
        smallest = np.minimum(labels[low], labels[high])
        np.minimum.at(labels, low, smallest)
        np.minimum.at(labels, high, smallest)
        labels = labels[labels]  # pointer jumping: a chain settles in log steps
        if np.array_equal(labels, before):
            break
    hosts = graph.layer == 1
    if not hosts.any():
        return None
    per_group = np.bincount(labels[graph.upper[hosts]], minlength=n)
    counted = per_group[per_group > 0]
    return int(counted.min()) if len(counted) else None


@dataclass(frozen=True)
class NodeFigures:
    """The node a job runs on, and what the design could not say about it."""

    gpus_per_node: int
    nvlink_gbs: float | None
    nic_gbps_per_gpu: float | None
    node_slug: str | None = None
    nvlink_source: str = ""
    nic_source: str = ""
    missing: list[str] = field(default_factory=list)


def node_of(
    design: Design,
    gpu: CatalogItem,
    wanted: str | None = None,
    servers: Mapping[str, int] | None = None,
) -> CatalogItem | None:
    """The server type carrying ``gpu``: ``wanted`` when it is a server slug, else the
    design's most common server with that GPU.  ``servers`` (GPU-server slug → count,
    the design summary's ``gpu_servers``) saves walking every device."""
    if wanted:
        item = design.device_types.get(wanted)
        if is_gpu_server(item):
            return item
    counts: Counter[str] = Counter()
    if servers is None:
        servers = Counter(device.device_type for _rack, device in design.iter_devices())
    for slug, count in servers.items():
        item = design.device_types.get(slug)
        if item is not None and is_gpu_server(item) and item.gpu == gpu.slug:
            counts[item.slug] += count
    if not counts:
        return None
    return design.device_types.get(counts.most_common(1)[0][0])


def compute_nic_gbps(node: CatalogItem) -> float | None:
    """Compute-rail line rate per GPU in Gb/s: Σ speed of ``compute*`` ports / GPUs."""
    total = 0.0
    for interface in node.interfaces:
        if interface.name.lower().startswith("compute") and not interface.mgmt_only:
            total += interface_speed_gbps(interface.type) or 0.0
    if total <= 0 or node.gpu_count <= 0:
        return None
    return total / node.gpu_count


def node_figures(
    design: Design,
    gpu: CatalogItem,
    wanted: str | None = None,
    nic_override: float | None = None,
    servers: Mapping[str, int] | None = None,
) -> NodeFigures:
    """GPUs per node, NVLink and compute NIC per GPU for a job on ``gpu`` in ``design``."""
    return figures_of(gpu, node_of(design, gpu, wanted, servers), nic_override)


def figures_of(
    gpu: CatalogItem, node: CatalogItem | None, nic_override: float | None = None
) -> NodeFigures:
    """GPUs per node, NVLink and compute NIC per GPU of ``gpu`` in server type ``node``
    (None: no server known, the default node size applies and the figures say so)."""
    missing: list[str] = []
    if node is None:
        per_node = DEFAULT_GPUS_PER_NODE
        missing.append(
            f"no GPU server carrying {gpu.slug} is known: {per_node} GPUs per node assumed"
        )
    else:
        per_node = node.gpu_count
    nvlink = gpu.nvlink_gbs
    nvlink_source = gpu.sources.get("nvlink_gbs", f"{gpu.slug} catalog entry")
    if not nvlink:
        nvlink = None
        nvlink_source = ""
        missing.append(f"{gpu.slug} has no NVLink figure: tensor parallelism runs over the NIC")
    if nic_override is not None:
        nic: float | None = nic_override
        nic_source = "the job's NIC figure"
    else:
        nic = compute_nic_gbps(node) if node is not None else None
        nic_source = (
            f"{node.slug}: compute* ports / {node.gpu_count} GPUs"
            if nic is not None and node is not None
            else ""
        )
        if nic is None and node is not None:  # no node at all: the step model says it
            missing.append(
                "the node names no compute* NIC ports: the step-time model's default NIC applies"
            )
    return NodeFigures(
        gpus_per_node=per_node,
        nvlink_gbs=nvlink,
        nic_gbps_per_gpu=nic,
        node_slug=node.slug if node is not None else None,
        nvlink_source=nvlink_source,
        nic_source=nic_source,
        missing=missing,
    )
