"""Storage clients: every GPU node as a client of the storage plane, and what it reads.

A node's storage-plane bandwidth is its storage links (Σ link speed, Gb/s) or, while it
has none, its storage ports (``storage0``..).  "A node with a 25G storage NIC starves 8
GPUs" (domain brief §4): the clients are shared by every tier, and
:mod:`workbench.calc.storage_tiers` caps each tier's effective read by their sum.

The clients are kept per rack between edits (:func:`kept_clients`, over
:meth:`~workbench.model.index.DesignIndex.per_rack`) with exact running totals, so a
GPU node dropped into a rack of a 100,000-GPU design reads that rack, not every device.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from itertools import count
from typing import NamedTuple, cast

from workbench.calc.fabric.planes import is_host_end, network_planes, plane_structure
from workbench.calc.steps import chunks
from workbench.catalog.item import CatalogItem, is_gpu_server
from workbench.model.design import Design, Link
from workbench.model.index import FabricChange, SignedTotals, exact
from workbench.model.parts import Rack
from workbench.model.ports import HOST_KINDS, link_speed, ports_of

#: Bits per byte: link speeds are Gb/s, storage bandwidth GB/s.
BITS_PER_BYTE = 8.0


class NodeStorage(NamedTuple):
    """One GPU node as a storage client (a tuple: 12,500 of them are made per check)."""

    device_id: str
    name: str
    gpus: int
    #: Storage-plane bandwidth, Gb/s: its storage links, or its storage ports if uncabled.
    gbps: float
    cabled: bool


#: Storage-plane bandwidth a GPU needs, Gb/s: the low end of 100–200 Gb/s per 8-GPU node
#: (brief §3), so a 25G NIC on an 8-GPU node (3.1 Gb/s per GPU) starves it (brief §4).
#: 100 Gb/s is 12.5 GB/s, above the 4 / 8 GB/s "good" / "better" single-node read of
#: NVIDIA's DGX SuperPOD reference (RA-11333-001 V11, Table 6; "best" is 40).
#: STORAGE-CLIENT (:mod:`workbench.rules.storage`) judges by it; it lives here so the
#: kept per-rack client figures can count the starved nodes.
MIN_NODE_STORAGE_GBPS_PER_GPU = 100.0 / 8


def node_need_gbps(gpus: int) -> float:
    """Storage-plane Gb/s a node with ``gpus`` GPUs needs (100 Gb/s for 8)."""
    return gpus * MIN_NODE_STORAGE_GBPS_PER_GPU


def is_starved(node: NodeStorage) -> bool:
    """Whether the node's storage bandwidth is below what its GPUs need."""
    return node.gbps < node_need_gbps(node.gpus) - 1e-9


class ClientSums(NamedTuple):
    """The client totals when they were kept per rack (:func:`kept_clients`): the same
    numbers :class:`ClientFigures` would sum over its nodes."""

    nodes: int
    gpus: int
    #: None when a node's Gb/s is not a finite number (then summed over the nodes).
    gbps: float | None
    cabled: int
    starved: int


@dataclass(frozen=True, eq=False)
class ClientFigures:
    """The GPU nodes as storage clients (shared by every tier).

    The sums are taken once (``cached_property``): every tier and every storage rule
    reads them, and each read summed 12,500 nodes at 100,000 GPUs.  ``sums``, when
    given, holds them already (kept per rack between edits); a fresh sum equals it
    exactly (Gb/s summed exactly, once rounded: :func:`math.fsum`, which the kept side
    matches with integers and fractions).  ``listed`` is the nodes, or what lists them
    when first asked (:attr:`nodes`): after an edit at 100,000 GPUs the rules need the
    sums, not a list of 12,500 nodes rebuilt from the racks.  Two figures are equal
    when their nodes are."""

    listed: tuple[NodeStorage, ...] | Callable[[], tuple[NodeStorage, ...]]
    sums: ClientSums | None = field(default=None, repr=False)

    @cached_property
    def nodes(self) -> tuple[NodeStorage, ...]:
        """Every GPU node as a storage client, in the design's device order."""
        listed = self.listed
        return listed if isinstance(listed, tuple) else listed()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClientFigures):
            return NotImplemented
        return self.nodes == other.nodes

    def __hash__(self) -> int:
        return hash(self.nodes)

    @property
    def count(self) -> int:
        """How many GPU nodes (``len(nodes)`` without listing them when kept)."""
        return self.sums.nodes if self.sums is not None else len(self.nodes)

    @cached_property
    def gpus(self) -> int:
        if self.sums is not None:
            return self.sums.gpus
        return sum(n.gpus for n in self.nodes)

    @cached_property
    def gbps(self) -> float:
        """Σ of the nodes' storage-plane bandwidth, Gb/s (exact, rounded once)."""
        if self.sums is not None and self.sums.gbps is not None:
            return self.sums.gbps
        return math.fsum(n.gbps for n in self.nodes)

    @cached_property
    def starved(self) -> tuple[NodeStorage, ...]:
        """The nodes whose storage bandwidth is below what their GPUs need
        (:func:`is_starved`), in the design's order."""
        if self.sums is not None and not self.sums.starved:
            return ()
        return tuple(n for n in self.nodes if is_starved(n))

    @property
    def gbs(self) -> float:
        """The same in GB/s (bytes)."""
        return self.gbps / BITS_PER_BYTE

    @cached_property
    def cabled(self) -> int:
        """How many nodes have storage-plane links (the others count their ports)."""
        if self.sums is not None:
            return self.sums.cabled
        return sum(1 for n in self.nodes if n.cabled)


#: How a catalog item's link ends count on the plane: every port of a server or an
#: appliance is a host end; a switch's ports are not, unless it has a management-only port
#: (its own BMC port on the out-of-band plane), which :func:`is_host_end` decides per port.
_HOST, _SWITCH, _ASK = 1, 0, 2


#: Numbers the :class:`PlaneBandwidth` objects (see :attr:`PlaneBandwidth.serial`).
_bandwidths = count(1)


class PlaneBandwidth:
    """Storage-plane Gb/s per host device (a server or appliance end of a plane link)."""

    def __init__(self, design: Design, links: Iterable[Link]):
        self.gbps: dict[str, float] = {}
        #: This object's number, and when :func:`kept_bandwidth` replayed it from an
        #: earlier one, that one's number and the devices whose figure may differ: a
        #: reader keeping figures of other devices (a tier's appliances) keeps them.
        self.serial = next(_bandwidths)
        self.replayed: tuple[int, frozenset[str]] | None = None
        self._design = design
        # Per-device and per-port-pair caches, kept between :meth:`add` calls: 25,000
        # storage links pass through here after every edit of a 100,000-GPU design.
        self._slugs: dict[str, str] = {}
        self._kinds: dict[str, int] = {}
        self._speeds: dict[tuple[str, str, str, str], float] = {}
        self._asked: dict[tuple[str, str], bool] = {}
        self.add(links)

    def add(self, links: Iterable[Link]) -> None:
        """Sum ``links`` in too: reading the plane's links in runs, in their order,
        gives the figures of one pass over them (:func:`kept_bandwidth_in_steps`)."""
        devices = self._design.index.devices
        types = self._design.device_types
        slugs, kinds, speeds, asked = self._slugs, self._kinds, self._speeds, self._asked
        gbps = self.gbps

        def slug_of(device_id: str) -> str:
            found = devices.get(device_id)
            slug = slugs[device_id] = found[1].device_type if found is not None else ""
            if slug not in kinds:
                item = types.get(slug)
                if item is None:
                    kinds[slug] = _SWITCH
                elif item.kind in HOST_KINDS:
                    kinds[slug] = _HOST
                else:
                    kinds[slug] = _ASK if any(i.mgmt_only for i in item.interfaces) else _SWITCH
            return slug

        def ask(slug: str, port: str) -> bool:
            key = (slug, port)
            known = asked.get(key)
            if known is None:
                known = asked[key] = is_host_end(types[slug], port)
            return known

        def speed(key: tuple[str, str, str, str]) -> float:
            a, a_port, b, b_port = key
            a_item, b_item = types.get(a), types.get(b)
            known = 0.0
            if a_item is not None and b_item is not None:
                known = link_speed(a_item, a_port, b_item, b_port) or 0.0
            speeds[key] = known
            return known

        for link in links:
            a_id, b_id = link.a_device, link.b_device
            a = slugs[a_id] if a_id in slugs else slug_of(a_id)
            b = slugs[b_id] if b_id in slugs else slug_of(b_id)
            a_kind, b_kind = kinds[a], kinds[b]
            a_host = a_kind == _HOST or (a_kind == _ASK and ask(a, link.a_port))
            b_host = b_kind == _HOST or (b_kind == _ASK and ask(b, link.b_port))
            if not (a_host or b_host):
                continue
            gb = link.speed_gbps
            if gb is None:
                key = (a, link.a_port, b, link.b_port)
                gb = speeds[key] if key in speeds else speed(key)
            if a_host:
                gbps[a_id] = gbps.get(a_id, 0.0) + gb
            if b_host:
                gbps[b_id] = gbps.get(b_id, 0.0) + gb


def kept_bandwidth_in_steps(design: Design, chunk: int) -> Iterator[None]:
    """The full pass :func:`kept_bandwidth` would make (nothing when it has a current
    or replayable figure), ``chunk`` links per step, kept for its next call unless the
    cabling moved meanwhile.  Why: in one go it was a step of ~20-30 ms in the window's
    first check of a 100,000-GPU design."""
    index = design.index
    version = index.fabric_version
    cached = index.fabric_cache.get("storage_bandwidth")
    if cached is not None:
        return  # current, or replayed from it by the next call
    links = plane_structure(design, "storage").host_links
    found = PlaneBandwidth(design, ())
    for run in chunks(links, max(1, chunk)):
        yield
        if index.fabric_version != version:
            return  # the cabling moved: the next call makes its own pass
        found.add(run)
    index.fabric_cache["storage_bandwidth"] = (version, found)


def kept_bandwidth(design: Design) -> PlaneBandwidth:
    """The storage plane's :class:`PlaneBandwidth`, kept per cabling version and, after
    link edits the index can replay, brought up to date for the touched links' ends
    only: each of them summed again over its storage host links in the design's order,
    so its figure equals a full pass (~25,000 links read after every cabling edit of a
    100,000-GPU design otherwise)."""
    index = design.index
    version = index.fabric_version
    cached = index.fabric_cache.get("storage_bandwidth")
    if cached is not None and cached[0] == version:
        return cast(PlaneBandwidth, cached[1])
    found: PlaneBandwidth | None = None
    if cached is not None:
        changes = index.fabric_changes(cached[0])
        if changes is not None and all(kind in ("add", "drop") for kind, _what in changes):
            found = _replayed_bandwidth(design, cast(PlaneBandwidth, cached[1]), changes)
    if found is None:
        found = PlaneBandwidth(design, plane_structure(design, "storage").host_links)
    index.fabric_cache["storage_bandwidth"] = (version, found)
    return found


def _replayed_bandwidth(
    design: Design, old: PlaneBandwidth, changes: Sequence[FabricChange]
) -> PlaneBandwidth | None:
    index = design.index
    # The fabric's replay (numpy) is loaded when an edit is replayed, not with the
    # storage figures: the window's panels import this module before their first frame.
    from workbench.calc.fabric.plane_edits import HostEnds, plane_of

    ends = HostEnds(design)
    present = index.devices
    # A device's figure sums its links at its host ends only: a changed link at a
    # switch's data port (a removed node's eight compute leaves, 289 links each at
    # 100,000 GPUs, read again for ~1.8 ms) leaves its figure as it was.  A device the
    # design lacks is touched: its figure goes.
    touched: set[str] = set()
    for kind, what in changes:
        for link in cast("tuple[Link, ...]", what if kind == "add" else (what,)):
            for device, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
                names = ends.names(device)
                if names is None or port in names or device not in present:
                    touched.add(device)
    # Every storage host link of a touched device, as the full pass would meet them.
    # Only links where the device's own end is a host end add to its figure: a switch's
    # data ports none (its management-only ports may): their links are not read.
    by_network = network_planes(design)
    links: dict[int, Link] = {}
    table = index.links
    for device in touched:
        names = ends.names(device)
        if names is not None and not names:
            continue
        for link_id in index.device_links.get(device, ()):
            link = table[link_id]
            if names is not None and not (
                (link.a_device == device and link.a_port in names)
                or (link.b_device == device and link.b_port in names)
            ):
                continue
            if plane_of(design, link, by_network) == "storage" and (
                ends.host(link.a_device, link.a_port) or ends.host(link.b_device, link.b_port)
            ):
                links[id(link)] = link
    listed = list(links.values())
    places = index.link_positions(design.links, listed) if listed else []
    if places is None:
        return None
    ordered = [link for _place, link in sorted(zip(places, listed, strict=True))]
    fresh = PlaneBandwidth(design, ordered)  # whole sums for the touched devices only
    found = PlaneBandwidth(design, ())
    found.replayed = (old.serial, frozenset(touched))
    # dict.copy, not dict(): a removed node's figure leaves a hole in the dict, and
    # dict() then re-inserts each of its ~13,000 hosts at 100,000 GPUs (~1 ms of the
    # undo) where copy() clones the table as long as few entries are holes.
    found.gbps = old.gbps.copy()
    for device in touched:
        found.gbps.pop(device, None)
        if device in fresh.gbps:
            found.gbps[device] = fresh.gbps[device]
    return found


def storage_port_gbps(item: CatalogItem) -> float:
    """Σ of an item's storage-plane port speeds, Gb/s (``storage0``.. of a host)."""
    return sum(p.kind.speed_gbps for p in ports_of(item) if p.plane == "storage")


class PortSpeeds(dict[str, float]):
    """:func:`storage_port_gbps` per slug, for one pass (12,500 nodes share a few types)."""

    def of(self, item: CatalogItem) -> float:
        known = self.get(item.slug)
        if known is None:
            known = self[item.slug] = storage_port_gbps(item)
        return known


def clients_of(design: Design, bandwidth: PlaneBandwidth, ports: PortSpeeds) -> ClientFigures:
    """Every GPU node of ``design`` as a storage client, in the design's device order."""
    servers: dict[str, CatalogItem | None] = {}  # slug → its item when a GPU server
    nodes: list[NodeStorage] = []
    for rack in design.iter_racks():
        nodes.extend(_rack_clients(design, rack, bandwidth, ports, servers))
    return ClientFigures(tuple(nodes))


def _rack_clients(
    design: Design,
    rack: Rack,
    bandwidth: PlaneBandwidth,
    ports: PortSpeeds,
    servers: dict[str, CatalogItem | None],
) -> tuple[NodeStorage, ...]:
    """The GPU nodes of one rack as storage clients (reads its devices' ids, names and
    types only: :meth:`~workbench.model.index.DesignIndex.per_rack` keeps them)."""
    nodes = []
    types = design.device_types
    for device in rack.devices:
        slug = device.device_type
        if slug in servers:
            item = servers[slug]
        else:
            item = types.get(slug)
            item = servers[slug] = item if item is not None and is_gpu_server(item) else None
        if item is None:
            continue
        cabled = bandwidth.gbps.get(device.id)
        gbps = cabled if cabled is not None else ports.of(item)
        nodes.append(
            NodeStorage(device.id, device.name, int(item.gpu_count), gbps, cabled is not None)
        )
    return tuple(nodes)


class _RackClients(NamedTuple):
    """One rack's GPU nodes as storage clients, with their sums (exact: Gb/s as an
    integer or a fraction, so racks add and subtract without rounding)."""

    nodes: tuple[NodeStorage, ...]
    gpus: int
    gbps: int | Fraction
    #: Nodes whose Gb/s is not a finite number (summed over the nodes instead).
    odd: int
    cabled: int
    starved: int


def _rack_sums(nodes: tuple[NodeStorage, ...]) -> _RackClients:
    gbps: int | Fraction = 0
    gpus = odd = cabled = starved = 0
    for node in nodes:
        gpus += node.gpus
        g = exact(node.gbps)
        if g is None:
            odd += 1
        else:
            gbps += g
        cabled += node.cabled
        starved += is_starved(node)
    return _RackClients(nodes, gpus, gbps, odd, cabled, starved)


class _ClientTotals(SignedTotals):
    """:class:`~workbench.model.index.RackTotals` over :class:`_RackClients`."""

    def __init__(self) -> None:
        self.gbps: int | Fraction = 0
        self.count = self.gpus = self.odd = self.cabled = self.starved = 0

    def step(self, value: object, sign: int) -> None:
        part = value if isinstance(value, _RackClients) else _rack_sums(())
        self.count += sign * len(part.nodes)
        self.gbps += sign * part.gbps
        self.gpus += sign * part.gpus
        self.odd += sign * part.odd
        self.cabled += sign * part.cabled
        self.starved += sign * part.starved

    def sums(self) -> ClientSums:
        gbps = None if self.odd else float(self.gbps)
        return ClientSums(self.count, self.gpus, gbps, self.cabled, self.starved)


def _clients_key(design: Design) -> object:
    """The key :func:`kept_clients` keeps its racks under: the one of its last read
    when every cabling change since can be replayed (the racks of the touched links'
    ends are then marked to be read again: only their hosts' Gb/s can have changed),
    else a new one (every rack read again).  Why: a cabled node removed at 100,000 GPUs
    re-read all 10,000 racks' nodes."""
    index = design.index
    kept = index.fabric_cache.get("storage-clients-key")
    key: object = (index.fabric_version, id(design.device_types))
    if kept is not None:
        version, old = cast(tuple[int, object], kept[1])
        changes = index.fabric_changes(version)
        if (
            changes is not None
            and all(kind in ("add", "drop") for kind, _what in changes)
            and isinstance(old, tuple)
            and old[1] == id(design.device_types)
        ):
            for kind, what in changes:
                links = what if kind == "add" else (what,)
                for link in cast("tuple[Link, ...]", links):
                    for end in (link.a_device, link.b_device):
                        placed = index.devices.get(end)
                        if placed is not None:
                            index.rack_changed(placed[0].id)
            key = old
    index.fabric_cache["storage-clients-key"] = (0, (index.fabric_version, key))
    return key


def kept_clients(design: Design, bandwidth: PlaneBandwidth) -> ClientFigures:
    """:func:`clients_of`, with each rack's nodes kept from edit to edit: a GPU node dropped
    into a rack of a 100,000-GPU design reads that rack, not 30,000 devices.  Every rack
    is read again when the cabling (so the per-host bandwidth) or the catalog snapshot
    changed: both bump the cabling version that ``bandwidth`` is kept by."""
    ports = PortSpeeds()
    servers: dict[str, CatalogItem | None] = {}
    index = design.index
    table = index.per_rack(
        "storage-clients",
        _clients_key(design),
        lambda rack: _rack_sums(_rack_clients(design, rack, bandwidth, ports, servers)),
        _ClientTotals,
    )
    return _figures_of(design, bandwidth, table, ports, servers)


def kept_clients_in_steps(design: Design, bandwidth: PlaneBandwidth, chunk: int) -> Iterator[None]:
    """What :func:`kept_clients` reads of every rack, ``chunk`` racks per step, ahead of
    it (the window's first check: one step of ~25 ms at 100,000 GPUs otherwise); it then
    reads only the racks edited meanwhile (:meth:`DesignIndex.per_rack_in_steps`)."""
    ports = PortSpeeds()
    servers: dict[str, CatalogItem | None] = {}
    yield from design.index.per_rack_in_steps(
        "storage-clients",
        _clients_key(design),
        lambda rack: _rack_sums(_rack_clients(design, rack, bandwidth, ports, servers)),
        _ClientTotals,
        chunk,
    )


def _figures_of(
    design: Design,
    bandwidth: PlaneBandwidth,
    table: dict[str, tuple[Rack, _RackClients]],
    ports: PortSpeeds,
    servers: dict[str, CatalogItem | None],
) -> ClientFigures:
    """:func:`kept_clients`' answer from its table of racks."""
    index = design.index
    totals = index.rack_totals("storage-clients")
    rows = [row.racks for site in design.sites for row in site.rows]
    if isinstance(totals, _ClientTotals) and sum(map(len, rows)) == len(table):
        # Every rack sits in the table under its own id, so the totals are the
        # design's; the node list is read off a snapshot only when asked.
        order = [tuple(racks) for racks in rows]
        kept = table.copy()  # a clone of the table, as for PlaneBandwidth.gbps

        def listed() -> tuple[NodeStorage, ...]:
            nodes: list[NodeStorage] = []
            for racks in order:
                for rack in racks:
                    entry = kept.get(rack.id)
                    if entry is not None and entry[0] is rack:
                        nodes.extend(entry[1].nodes)
                    else:  # not kept (cannot happen while the index is in step)
                        nodes.extend(_rack_clients(design, rack, bandwidth, ports, servers))
            return tuple(nodes)

        return ClientFigures(listed, totals.sums())
    # Two racks of a damaged file share an id: read each here, sum over the nodes.
    nodes: list[NodeStorage] = []
    for rack in design.iter_racks():
        entry = table.get(rack.id)
        if entry is not None and entry[0] is rack:
            nodes.extend(entry[1].nodes)
        else:
            nodes.extend(_rack_clients(design, rack, bandwidth, ports, servers))
    return ClientFigures(tuple(nodes))
