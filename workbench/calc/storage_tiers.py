"""Storage tiers: capacity, bandwidth and the storage-to-compute ratio of each tier.

What a tier delivers to the GPUs is the smallest of three things (domain brief §4):

1. **The appliances**: Σ of their ``props.read_gbs`` / ``props.write_gbs`` (the design's
   catalog snapshot).
2. **Their storage-plane links**: an appliance cabled into the storage plane cannot move
   more than its links carry (Σ link speed / 8, GB/s).  Each appliance is limited by its
   own links, so one under-cabled node costs its share and no more.  An appliance with
   no storage-plane link serves **nothing**: a tier of four appliances none of which is
   cabled reads 0 GB/s, not its 200 GB/s on paper ("0 of 4 cabled",
   :attr:`TierFigures.cabled_text`); the figures say what the uncabled ones would read
   and what their ports could carry.
3. **The clients**: Σ over GPU nodes of their storage-plane bandwidth, a node's
   storage links or, while it has none, its storage ports (``storage0``..).  "A node with
   a 25G storage NIC starves 8 GPUs": the clients are shared by every tier.

So ``effective_read_gbs = min(Σ min(read_i, links_i / 8), clients)``; ``served_read_gbs``
is the same without the clients (what the appliances and their cabling can serve).

**Usable capacity** is raw capacity (``props.capacity_tb``) × a usable fraction: the
item's ``props.usable_fraction`` when the catalog gives one, else the protection a tier
of that kind usually runs (:data:`USABLE_FRACTIONS`, planning assumptions, named in
``usable_source``).  File-system metadata and reserve are not taken off.

**Storage-to-compute ratio**: usable TB per GPU and effective read GB/s per GPU, over
every GPU of the design.  Per GPU rather than per node because the GPUs are what the
tier feeds, and it compares designs with 4- and 8-GPU nodes.

Everything is one pass over the links (:func:`storage_links`) and one over the devices,
so the rules can ask after every edit of a 100,000-GPU design.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from workbench.calc.fabric.planes import (
    PlaneStructure,
    link_plane,
    network_planes,
)
from workbench.calc.storage_clients import (
    BITS_PER_BYTE,
    ClientFigures,
    PlaneBandwidth,
    PortSpeeds,
    clients_of,
    kept_bandwidth,
    kept_clients,
)
from workbench.catalog.item import CatalogItem, is_gpu_server
from workbench.model.change import Change, edited_types
from workbench.model.design import Design, Link, StorageTier


@dataclass(frozen=True)
class UsableFraction:
    """The share of raw capacity left after data protection, and where it comes from."""

    fraction: float
    source: str


#: The protection each kind of tier usually runs, when the catalog says nothing.
USABLE_FRACTIONS: dict[str, UsableFraction] = {
    "hot": UsableFraction(
        0.8,
        "planning assumption: erasure coding or RAID 6 at 8 data + 2 parity (8/10)",
    ),
    "warm": UsableFraction(
        0.75,
        "planning assumption: object-store erasure coding at 12 data + 4 parity (12/16)",
    ),
    "cold": UsableFraction(
        0.8,
        "planning assumption: HDD RAID 6 or erasure coding at 8 data + 2 parity (8/10)",
    ),
}
#: A tier kind the table does not know (the model only allows the three above).
_FALLBACK = UsableFraction(0.8, "planning assumption: 8 data + 2 parity (8/10)")


def usable_fraction(item: CatalogItem | None, kind: str) -> UsableFraction:
    """The item's ``props.usable_fraction`` (above 0, at most 1) or the tier kind's default."""
    if item is not None:
        value = item.props.get("usable_fraction")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1:
            source = item.sources.get("usable_fraction", f"catalog: {item.label}")
            return UsableFraction(float(value), source)
    return USABLE_FRACTIONS.get(kind, _FALLBACK)


def _figure(item: CatalogItem | None, name: str) -> float:
    value = item.props.get(name) if item is not None else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return max(float(value), 0.0)
    return 0.0


@dataclass(frozen=True)
class TierFigures:
    """What one storage tier holds and delivers (see the module docstring)."""

    tier_id: str
    name: str
    kind: str
    filesystem: str
    #: Appliances of the tier present in the design (ids that name nothing are left out).
    devices: int
    raw_tb: float
    usable_fraction: float
    usable_source: str
    usable_tb: float
    #: Σ of the appliances' own figures, GB/s.
    read_gbs: float
    write_gbs: float
    #: Appliances with at least one storage-plane link.
    cabled_devices: int
    #: Σ of the appliances' storage-plane link speeds / 8, GB/s (uncabled ones give 0).
    link_gbs: float
    #: Σ of the appliances' storage-port speeds / 8, GB/s: what full cabling could carry.
    port_gbs: float
    #: Appliances limited by their own links (uncabled ones by nothing), GB/s.
    served_read_gbs: float
    served_write_gbs: float
    #: The GPU nodes' storage bandwidth, GB/s, and how many nodes that is.
    client_gbs: float
    client_nodes: int
    effective_read_gbs: float
    effective_write_gbs: float
    #: What binds the effective figure: "appliances", "storage links" or "clients".
    read_limit: str
    write_limit: str
    #: GPUs of the design, and the storage-to-compute ratio (None without GPUs).
    gpus: int
    usable_tb_per_gpu: float | None
    read_gbs_per_gpu: float | None
    device_ids: tuple[str, ...] = field(default=(), repr=False)
    notes: tuple[str, ...] = ()
    #: The own read of the appliances not cabled yet (they serve none of it), GB/s.
    uncabled_read_gbs: float = 0.0
    #: Appliances with storage-plane ports and no link yet (they serve nothing).
    uncabled_devices: int = 0

    @property
    def cabled_text(self) -> str:
        """``0 of 4 cabled``: how much of the tier the effective figures count (an
        appliance without storage-plane ports, a JBOD behind a server, has nothing to
        cable and is left out)."""
        return f"{self.cabled_devices:,} of {self.cabled_devices + self.uncabled_devices:,} cabled"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types, units in the keys (``report --json``); figures to 6 places."""
        return {
            "tier_id": self.tier_id,
            "name": self.name,
            "kind": self.kind,
            "filesystem": self.filesystem,
            "devices": self.devices,
            "raw_tb": _round(self.raw_tb),
            "usable_fraction": _round(self.usable_fraction),
            "usable_source": self.usable_source,
            "usable_tb": _round(self.usable_tb),
            "read_gbs": _round(self.read_gbs),
            "write_gbs": _round(self.write_gbs),
            "cabled_devices": self.cabled_devices,
            "uncabled_devices": self.uncabled_devices,
            "uncabled_read_gbs": _round(self.uncabled_read_gbs),
            "link_gbs": _round(self.link_gbs),
            "port_gbs": _round(self.port_gbs),
            "served_read_gbs": _round(self.served_read_gbs),
            "served_write_gbs": _round(self.served_write_gbs),
            "client_gbs": _round(self.client_gbs),
            "client_nodes": self.client_nodes,
            "effective_read_gbs": _round(self.effective_read_gbs),
            "effective_write_gbs": _round(self.effective_write_gbs),
            "read_limit": self.read_limit,
            "write_limit": self.write_limit,
            "gpus": self.gpus,
            "usable_tb_per_gpu": _round(self.usable_tb_per_gpu),
            "read_gbs_per_gpu": _round(self.read_gbs_per_gpu),
            "notes": list(self.notes),
        }


def _round(value: float | None) -> float | None:
    """A figure for JSON: six decimals (2211.84, not 2211.8399999999997)."""
    return None if value is None else round(value, 6)


@dataclass(frozen=True)
class StorageFigures:
    """Every tier's figures and the clients they share, from one pass."""

    tiers: tuple[TierFigures, ...]
    clients: ClientFigures

    def tier(self, tier_id: str) -> TierFigures | None:
        return next((t for t in self.tiers if t.tier_id == tier_id), None)


# -- the storage plane, per host --------------------------------------------------------------


def storage_links(design: Design) -> list[Link]:
    """The links of the storage plane, by :func:`~workbench.calc.fabric.planes.link_plane`'s
    rule (a link's network's plane, else its host port's), in one tight pass.

    :func:`~workbench.calc.fabric.planes.plane_structure` gives the same links, and the tiers
    and adjacency of the plane's switches besides; the storage rules need only the links
    and run after every device edit, where that extra work would double their cost on a
    100,000-GPU design (~45 ms against ~10 ms for 226,000 links).
    """
    planes = network_planes(design)
    found = []
    for link in design.links:
        network = link.network
        plane = planes.get(network) if network is not None else None
        if plane is None:
            plane = link_plane(design, link, planes)
        if plane == "storage":
            found.append(link)
    return found


def _share(fractions: frozenset[float], usable: float, raw: float, default: float) -> float:
    """The tier's usable fraction: the one its appliances share, else usable / raw."""
    if len(fractions) == 1:
        return next(iter(fractions))
    return usable / raw if raw else default


def _limit(own: float, served: float, clients: float, uncabled: bool = False) -> str:
    if clients < served - 1e-9:
        return "clients"
    if uncabled and served < own - 1e-9:
        return "cabling"
    if served < own - 1e-9:
        return "storage links"
    return "appliances"


def storage_figures(design: Design, structure: PlaneStructure | None = None) -> StorageFigures:
    """Every tier's figures (see the module docstring); ``structure`` is the storage
    plane when the caller has it already, else the cached one (computed once per
    cabling edit, :func:`~workbench.calc.fabric.planes.plane_structures`)."""
    if structure is not None:
        links = structure.host_links
        bandwidth = PlaneBandwidth(design, links)
    else:
        # The storage plane's Gb/s per host is read off the links alone: kept per
        # cabling version (a GPU server dropped into a rack of a 16,384-GPU design then
        # re-reads no storage link), and a link edit re-reads its ends' links only.
        bandwidth = kept_bandwidth(design)
    port_speeds = PortSpeeds()
    if structure is not None:
        clients = clients_of(design, bandwidth, port_speeds)
    else:
        clients = kept_clients(design, bandwidth)
    tiers = tuple(
        _tier_figures(design, tier, bandwidth, port_speeds, clients, structure is None)
        for tier in design.storage_tiers
    )
    return StorageFigures(tiers, clients)


class _Appliances(NamedTuple):
    """A tier's appliances summed (everything of :class:`TierFigures` but the clients)."""

    present: tuple[str, ...]
    raw: float
    usable: float
    read: float
    write: float
    link: float
    port: float
    served_read: float
    served_write: float
    uncabled_ports: float
    uncabled_read: float
    cabled: int
    uncabled: int
    sources: frozenset[str]
    fractions: frozenset[float]


def _appliances(
    design: Design, tier: StorageTier, bandwidth: PlaneBandwidth, port_speeds: PortSpeeds
) -> _Appliances:
    raw = usable = read = write = link = port = served_read = served_write = 0.0
    uncabled_ports = uncabled_read = 0.0
    present: list[str] = []
    cabled = uncabled = 0
    sources: set[str] = set()
    fractions: set[float] = set()
    index = design.index
    for device_id in tier.device_ids:
        found = index.devices.get(device_id)
        if found is None:
            continue
        present.append(device_id)
        item = design.device_types.get(found[1].device_type)
        share = usable_fraction(item, tier.tier)
        sources.add(share.source)
        fractions.add(share.fraction)
        capacity = _figure(item, "capacity_tb")
        raw += capacity
        usable += capacity * share.fraction
        r, w = _figure(item, "read_gbs"), _figure(item, "write_gbs")
        read += r
        write += w
        ports = port_speeds.of(item) / BITS_PER_BYTE if item is not None else 0.0
        port += ports
        cabled_gbps = bandwidth.gbps.get(device_id)
        if cabled_gbps is None and not ports:
            # No storage-plane port at all (a JBOD behind a server's SAS): nothing to
            # cable, nothing to limit it by.
            served_read += r
            served_write += w
        elif cabled_gbps is None:  # not cabled yet: it serves nothing
            uncabled += 1
            uncabled_ports += ports
            uncabled_read += r
        else:
            cabled += 1
            link += cabled_gbps / BITS_PER_BYTE
            served_read += min(r, cabled_gbps / BITS_PER_BYTE)
            served_write += min(w, cabled_gbps / BITS_PER_BYTE)
    return _Appliances(
        tuple(present),
        raw,
        usable,
        read,
        write,
        link,
        port,
        served_read,
        served_write,
        uncabled_ports,
        uncabled_read,
        cabled,
        uncabled,
        frozenset(sources),
        frozenset(fractions),
    )


def _kept_appliances(
    design: Design, tier: StorageTier, bandwidth: PlaneBandwidth, port_speeds: PortSpeeds
) -> _Appliances:
    """:func:`_appliances`, kept while the catalog snapshot, the tier's kind and members
    and the devices those ids name stay the same and the storage Gb/s of its members
    does: a GPU node dropped at 100,000 GPUs then re-reads no appliance, and neither
    does a cabled GPU node removed (its bandwidth replayed, :func:`kept_bandwidth`,
    moves only the node's and its switches' figures)."""
    kept = cast(
        dict[str, tuple[tuple[object, ...], int, _Appliances]],
        design.index.fabric_cache.setdefault("storage-appliances", (0, {}))[1],
    )
    devices = design.index.devices
    ids = tuple(tier.device_ids)
    key = (
        id(design.device_types),
        tier.tier,
        ids,
        tuple(found[1] if (found := devices.get(d)) is not None else None for d in ids),
    )
    entry = kept.get(tier.id)
    if entry is not None and entry[0] == key:
        serial = entry[1]
        replayed = bandwidth.replayed
        if serial == bandwidth.serial or (
            replayed is not None and replayed[0] == serial and replayed[1].isdisjoint(ids)
        ):
            kept[tier.id] = (key, bandwidth.serial, entry[2])
            return entry[2]
    summed = _appliances(design, tier, bandwidth, port_speeds)
    kept[tier.id] = (key, bandwidth.serial, summed)
    return summed


def _tier_figures(
    design: Design,
    tier: StorageTier,
    bandwidth: PlaneBandwidth,
    port_speeds: PortSpeeds,
    clients: ClientFigures,
    kept: bool = False,
) -> TierFigures:
    summed = (_kept_appliances if kept else _appliances)(design, tier, bandwidth, port_speeds)
    present, raw, usable, read, write = summed[:5]
    link, port, served_read, served_write, uncabled_ports, uncabled_read = summed[5:11]
    cabled, uncabled, sources, fractions = summed[11:]
    notes = []
    if len(present) < len(tier.device_ids):
        gone = len(tier.device_ids) - len(present)
        notes.append(f"{gone:,} device id(s) of the tier name nothing in the design")
    if uncabled:
        notes.append(
            f"{cabled:,} of {cabled + uncabled:,} appliances cabled into the storage plane: "
            f"the others serve nothing until they are ({uncabled_read:,.1f} GB/s of read; "
            f"their storage ports would carry {uncabled_ports:,.1f} GB/s)"
        )
    if not clients.count:
        notes.append("the design has no GPU nodes to serve")
    elif clients.cabled < clients.count:
        notes.append(
            f"{clients.count - clients.cabled:,} of {clients.count:,} GPU nodes "
            "have no storage-plane link: their storage ports are counted"
        )
    client_gbs = clients.gbs
    gpus = clients.gpus
    default = usable_fraction(None, tier.tier)
    effective_read = min(served_read, client_gbs)
    return TierFigures(
        tier_id=tier.id,
        name=tier.name,
        kind=tier.tier,
        filesystem=tier.filesystem,
        devices=len(present),
        raw_tb=raw,
        usable_fraction=_share(fractions, usable, raw, default.fraction),
        usable_source="; ".join(sorted(sources)) or default.source,
        usable_tb=usable,
        read_gbs=read,
        write_gbs=write,
        cabled_devices=cabled,
        link_gbs=link,
        port_gbs=port,
        served_read_gbs=served_read,
        served_write_gbs=served_write,
        client_gbs=client_gbs,
        client_nodes=clients.count,
        effective_read_gbs=effective_read,
        effective_write_gbs=min(served_write, client_gbs),
        read_limit=_limit(read, served_read, client_gbs, uncabled > 0),
        write_limit=_limit(write, served_write, client_gbs, uncabled > 0),
        gpus=gpus,
        usable_tb_per_gpu=usable / gpus if gpus else None,
        read_gbs_per_gpu=effective_read / gpus if gpus else None,
        device_ids=tuple(present),
        notes=tuple(notes),
        uncabled_read_gbs=uncabled_read,
        uncabled_devices=uncabled,
    )


def tier_figures(design: Design) -> list[TierFigures]:
    """One :class:`TierFigures` per ``design.storage_tiers``, in their order."""
    return list(storage_figures(design).tiers)


def storage_report(design: Design) -> list[dict[str, Any]]:
    """``report --json``'s ``storage``: one object per tier (:meth:`TierFigures.to_json`)."""
    return [figures.to_json() for figures in tier_figures(design)]


def touches_storage(design: Design, change: Change) -> bool:
    """Whether ``change`` can move the storage figures: tiers, links, networks or the
    catalog snapshot changed, or a storage appliance or GPU node came, went or was
    edited (moving one to another unit, or renaming it, does not count).

    The storage panel and the storage rules both ask this, so a switch dropped into or
    taken out of a rack on a 100,000-GPU design re-reads no storage plane."""
    if change.everything or change.tiers or change.links or change.types or change.networks:
        return True
    kinds = edited_types(design, change)
    if kinds is None:
        return True
    types = design.device_types
    for slug in kinds:
        item = types.get(slug)
        if item is None or item.kind == "storage" or is_gpu_server(item):
            return True
    return False
