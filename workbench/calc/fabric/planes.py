"""The shape of each network plane, read from the design's links.

Nothing in the model says "this switch is a spine": a hand-drawn fabric and a
generated one are both just links.  The tiers are read off the cabling instead, the way
an engineer reads a diagram: the **hosts** of a plane are its end points (servers and
storage appliances, and on the out-of-band plane every device's management port); a
switch cabled to a host is a **leaf** (tier 1), a switch cabled to a leaf but to no
host a **spine** (tier 2), one above that a **core** (tier 3), and so on.  A switch no
host reaches (a spare cabled to nothing, an island) has tier 0.

A link's plane is its network's plane.  A link without a network takes the plane its
host port's name says (``compute3`` → compute), else it belongs to no plane and the
rules say so.  Everything here is one linear pass over the links, so the Fabric view,
the analytics, the rules and ``report --json`` can all ask on a 100,000-GPU design.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from workbench.calc.steps import chunks, drain
from workbench.catalog.item import CatalogItem
from workbench.model.design import PLANES, Design, Link
from workbench.model.parts import Device, Rack
from workbench.model.ports import HOST_KINDS, port_named

if TYPE_CHECKING:
    from workbench.model.index import DesignIndex

#: What each tier is called, by its number.
TIER_NAMES: dict[int, str] = {0: "unreached", 1: "leaf", 2: "spine", 3: "core"}


def tier_name(tier: int) -> str:
    """``leaf``, ``spine``, ``core``, then ``tier 4`` ... (a 4-tier fabric)."""
    return TIER_NAMES.get(tier, f"tier {tier}")


def network_planes(design: Design) -> dict[str, str]:
    """Network id → its plane."""
    return {network.id: network.plane for network in design.networks}


def _item(design: Design, device_id: str) -> CatalogItem | None:
    found = design.index.devices.get(device_id)
    if found is None:
        return None
    return design.device_types.get(found[1].device_type)


def is_host_end(item: CatalogItem | None, port: str) -> bool:
    """Whether a link end is a plane's end point: a server or storage appliance, or any
    device's management-only port (a switch's own BMC-like port on the OOB plane)."""
    if item is None:
        return False
    if item.kind in HOST_KINDS:
        return True
    found = port_named(item, port)
    return found is not None and found.mgmt_only


def link_plane(design: Design, link: Link, planes: dict[str, str] | None = None) -> str | None:
    """The plane ``link`` belongs to (see the module docstring); None when unknown."""
    planes = network_planes(design) if planes is None else planes
    if link.network is not None and link.network in planes:
        return planes[link.network]
    for device_id, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
        item = _item(design, device_id)
        if item is None:
            continue
        found = port_named(item, port)
        if found is not None and found.plane is not None and is_host_end(item, port):
            return found.plane
    return None


@dataclass
class PlaneStructure:
    """One plane's links, end points and switch tiers."""

    plane: str
    links: list[Link] = field(default_factory=list)
    #: Device ids of the plane's end points.
    hosts: set[str] = field(default_factory=set)
    #: Switch device id → tier (1 leaf, 2 spine, 3 core ...; 0 when no host reaches it).
    tiers: dict[str, int] = field(default_factory=dict)
    #: Links with a host at one end, and links between two switches.
    host_links: list[Link] = field(default_factory=list)
    switch_links: list[Link] = field(default_factory=list)

    @property
    def depth(self) -> int:
        """How many switch tiers the plane has (2 for leaf-spine; 0 with no switches)."""
        return max(self.tiers.values(), default=0)

    def switches_in(self, tier: int) -> list[str]:
        """Switch ids of one tier, in link order (stable for drawing)."""
        return [s for s, t in self.tiers.items() if t == tier]


def host_port_names(item: CatalogItem | None) -> frozenset[str] | None:
    """Which ports of ``item`` are a plane's end points: None for every port (a server
    or storage appliance), else its management-only ports' names (none for a plain
    switch or an unknown item).  The full pass and its replay
    (:mod:`workbench.calc.fabric.plane_edits`) both decide link ends by this."""
    if item is None:
        return frozenset()
    if item.kind in HOST_KINDS:
        return None
    return frozenset(i.name for i in item.interfaces if i.mgmt_only)


def _host_ends(
    design: Design, chunk: int | None
) -> Generator[None, None, tuple[set[str], dict[str, frozenset[str]]]]:
    """Devices that are hosts whatever port (servers, storage), and for the others the
    names of their management-only ports (hosts on the OOB plane); ``chunk`` devices
    per step (None: all in one), the answer the generator's return value (30,000
    devices at 100,000 GPUs: one ~25 ms step of the window's first check otherwise)."""
    hosts: set[str] = set()
    mgmt: dict[str, frozenset[str]] = {}
    by_slug: dict[str, frozenset[str] | None] = {}
    types = design.device_types
    placed = design.index.devices.items()
    runs: Iterable[Iterable[tuple[str, tuple[Rack, Device]]]]
    runs = chunks(list(placed), chunk) if chunk else (placed,)
    for n, run in enumerate(runs):
        if n:
            yield
        for device_id, (_rack, device) in run:
            slug = device.device_type
            names = by_slug.get(slug, frozenset())
            if slug not in by_slug:
                names = by_slug[slug] = host_port_names(types.get(slug))
            if names is None:
                hosts.add(device_id)
            elif names:
                mgmt[device_id] = names
    return hosts, mgmt


def plane_structures(design: Design, planes: Iterable[str] = PLANES) -> dict[str, PlaneStructure]:
    """Every requested plane's structure, from one pass over ``design.links``.

    Planes are returned in the order asked, each present even when it has no links.
    Links on other planes (or none) are left out.  The result for all four planes is
    kept until the cabling changes (:attr:`DesignIndex.fabric_version`), because the
    Fabric view, the inspector, the rules and the storage panel all ask after the same
    edit; treat it as read-only.  (The pass itself takes ~0.2 s over the 440,000 links
    of a 100,000-GPU design; after a cabling edit the kept result is brought up to date
    from the links the edit touched instead, :mod:`workbench.calc.fabric.plane_edits`.)
    """
    wanted = list(planes)
    if set(wanted) <= set(PLANES):
        every = _kept(design, wanted)
        if every is None:
            every = _plane_structures(design, list(PLANES))
            _keep(design.index, design.index.fabric_version, every)
        return {p: every[p] for p in wanted}
    return _plane_structures(design, wanted)


#: Cabling edits a plane nobody asked about may lag behind before it is brought up to
#: date with the one asked about (the index logs 256 edits; one further back cannot be
#: replayed, and every plane would be read again).
MOST_BEHIND = 64


def _kept(design: Design, wanted: Iterable[str] = PLANES) -> dict[str, PlaneStructure] | None:
    """The kept structures, those of ``wanted`` planes as of the current cabling (kept,
    or replayed from an earlier version); None when there are none to replay.

    The cache holds ``(version, structures)`` and ``behind`` (see :func:`_keep`): each
    plane's structure is of ``version``, but those in ``behind``, which an edit
    since did not bring up to date because nobody asked for them.  Why: after a cabled
    node is removed or put back the window's rules read the compute plane alone, and
    replaying the other three planes (their lists and kept columns, ~0.7 ms at 100,000
    GPUs) was work for panels that are not shown; they catch up when read, or once they
    are :data:`MOST_BEHIND` edits behind (the log must still reach back to them)."""
    from workbench.calc.fabric.plane_edits import replayed  # it builds on this module

    index = design.index
    version = index.fabric_version
    cached = index.fabric_cache.get("plane_structures")
    if cached is None:
        return None
    at, kept = cast(tuple[int, dict[str, PlaneStructure]], cached)
    stamp, behind = cast(
        tuple[int | None, dict[str, int]], index.fabric_cache.get("planes_behind", (None, {}))
    )
    if stamp != at:  # (kept by a writer other than _keep: every plane is of ``at``)
        behind = {}
    asked = set(wanted)
    due = {
        plane: behind.get(plane, at)
        for plane in kept
        if behind.get(plane, at) != version
        and (plane in asked or behind.get(plane, at) < version - MOST_BEHIND)
    }
    if not due:
        return kept
    every, later = dict(kept), dict(behind)
    for since in sorted(set(due.values())):
        changes = index.fabric_changes(since)
        found = None
        if changes is not None:
            planes = {p: kept[p] for p, v in due.items() if v == since}
            found = replayed(design, planes, changes)
        if found is None:  # the kept ones may be half brought up to date: never replay them
            del index.fabric_cache["plane_structures"]
            index.fabric_cache.pop("planes_behind", None)
            return None
        every.update(found)
    if at != version:  # the planes not brought up to date stay of their version
        later.update((p, at) for p in kept if p not in due and p not in later)
    for plane in due:
        later.pop(plane, None)
    _keep(index, version, every, later)
    return every


def _keep(
    index: DesignIndex,
    version: int,
    structures: dict[str, PlaneStructure],
    behind: dict[str, int] | None = None,
) -> None:
    """Keep every plane's structure, as of cabling ``version`` but those in ``behind``
    (plane → the older version it is of: see :func:`_kept`)."""
    index.fabric_cache["plane_structures"] = (version, structures)
    index.fabric_cache["planes_behind"] = (version, behind or {})


def _plane_structures(design: Design, wanted: list[str]) -> dict[str, PlaneStructure]:
    return drain(_plane_structures_in_steps(design, wanted, None))


#: Links read per step by :func:`plane_structures_in_steps` (~30 ms at 100,000 GPUs).
STEP_LINKS = 40_000


def plane_structures_in_steps(
    design: Design, chunk: int
) -> Generator[None, None, dict[str, PlaneStructure]]:
    """:func:`plane_structures` of every plane, yielding after every ``chunk`` links,
    the answer its return value; kept (as :func:`plane_structures` keeps it) when the
    cabling did not move meanwhile.

    Why: the pass takes ~0.5 s at 100,000 GPUs, and the window's first check (the
    compute plane the training estimate reads) runs it between events."""
    index = design.index
    version = index.fabric_version
    kept = _kept(design)
    if kept is not None:
        return kept
    found = yield from _plane_structures_in_steps(design, list(PLANES), chunk)
    if design.index is index and index.fabric_version == version:
        _keep(index, version, found)
    return found


def _plane_structures_in_steps(
    design: Design, wanted: list[str], chunk: int | None
) -> Generator[None, None, dict[str, PlaneStructure]]:
    """:func:`_plane_structures`, yielding after every ``chunk`` links (None: never).

    One pass over ``design.links`` (~440,000 links at 100,000 GPUs, after every cabling
    edit): each link's plane is looked up once per network, and whether each end is a
    host is decided in the same pass, so the links are read once and the per-plane
    lists keep the design's link order."""
    step = chunk or 0
    result = {plane: PlaneStructure(plane) for plane in wanted}
    by_network = network_planes(design)
    host_devices, mgmt = yield from _host_ends(design, chunk and max(1, chunk // 4))
    if step:
        yield
    mgmt_names = frozenset().union(*mgmt.values()) if mgmt else frozenset()
    # Per plane: its lists' appends, its hosts' and leaves' adds, its switch adjacency.
    leaves: dict[str, set[str]] = {plane: set() for plane in wanted}
    adjacency: dict[str, defaultdict[str, set[str]]] = {p: defaultdict(set) for p in wanted}
    slots = {
        plane: (
            s.links.append,
            s.host_links.append,
            s.switch_links.append,
            s.hosts.add,
            leaves[plane].add,
            adjacency[plane],
        )
        for plane, s in result.items()
    }
    # A network's links are on its plane (a plane not asked for: left out); a link on no
    # known network is placed by its host port (:func:`link_plane`).
    of_network = {
        network: slots.get(plane) if plane is not None else None
        for network, plane in by_network.items()
        if network is not None
    }
    links = design.links
    for n, run in enumerate(chunks(links, step)):
        if n:
            yield
        for link in run:
            network = link.network
            if network in of_network:
                slot = of_network[network]
            else:
                plane = link_plane(design, link, by_network)
                slot = slots.get(plane) if plane is not None else None
            if slot is None:
                continue
            add_link, add_host_link, add_switch_link, add_host, add_leaf, adjacent = slot
            add_link(link)
            # Switch-to-switch links only in the adjacency.  On the OOB plane an access
            # switch is a host too (its management port is cabled to a neighbour), so a
            # host reaches its leaves through its host links alone, never switch links.
            a, b = link.a_device, link.b_device
            a_host = a in host_devices or (
                link.a_port in mgmt_names and link.a_port in mgmt.get(a, ())
            )
            b_host = b in host_devices or (
                link.b_port in mgmt_names and link.b_port in mgmt.get(b, ())
            )
            if a_host or b_host:
                add_host_link(link)
                if a_host:
                    add_host(a)
                    if not b_host:
                        add_leaf(b)
                if b_host:
                    add_host(b)
                    if not a_host:
                        add_leaf(a)
            else:
                add_switch_link(link)
                adjacent[a].add(b)
                adjacent[b].add(a)
    for plane, structure in result.items():
        if step:
            yield
        tiers, plane_leaves = structure.tiers, leaves[plane]
        # Switch order: leaves as their host links name them, then the switch links'
        # ends (what "first" means when two switches tie).  Both ends are named one by
        # one: a tuple per link is 400,000 allocations, and the collector's passes over
        # the whole design that they set off.
        host_links = structure.host_links
        for n, run in enumerate(chunks(host_links, step)):
            if n:
                yield
            for link in run:
                a = link.a_device
                if a in plane_leaves:
                    tiers.setdefault(a, 0)
                b = link.b_device
                if b in plane_leaves:
                    tiers.setdefault(b, 0)
        for run in chunks(structure.switch_links, step):
            if step:
                yield
            for link in run:
                tiers.setdefault(link.a_device, 0)
                tiers.setdefault(link.b_device, 0)
        if step:
            yield
        yield from _assign_tiers(structure, plane_leaves, adjacency[plane], step)
    return result


def plane_structure(design: Design, plane: str) -> PlaneStructure:
    """One plane's structure (see :func:`plane_structures`)."""
    return plane_structures(design, [plane])[plane]


def _assign_tiers(
    structure: PlaneStructure, leaves: set[str], adjacency: dict[str, set[str]], chunk: int
) -> Iterator[None]:
    """Breadth-first from the leaves (the switches on host links): a switch's tier is
    its distance from the nearest host, counted in links.  Yields after about every
    ``chunk`` adjacencies read (0: never): the compute plane's switch links of a
    100,000-GPU design were one ~10 ms step of the window's first check."""
    tiers = structure.tiers
    seen = set(leaves)
    queue: deque[tuple[str, int]] = deque()
    for leaf in leaves:
        tiers[leaf] = 1
        queue.append((leaf, 1))
    read = 0
    while queue:
        switch, tier = queue.popleft()
        others = adjacency.get(switch, ())
        read += len(others)
        if chunk and read >= chunk:
            read = 0
            yield
        for other in others:
            if other in seen or other not in tiers:
                continue
            seen.add(other)
            tiers[other] = tier + 1
            queue.append((other, tier + 1))
