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
from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.catalog.item import CatalogItem
from workbench.model.design import PLANES, Design, Link
from workbench.model.ports import HOST_KINDS, port_named

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


def plane_structures(design: Design, planes: Iterable[str] = PLANES) -> dict[str, PlaneStructure]:
    """Every requested plane's structure, from one pass over ``design.links``.

    Planes are returned in the order asked, each present even when it has no links.
    Links on other planes (or none) are left out.
    """
    wanted = list(planes)
    result = {plane: PlaneStructure(plane) for plane in wanted}
    by_network = network_planes(design)
    host_cache: dict[tuple[str, str], bool] = {}
    item_of: dict[str, CatalogItem | None] = {}

    def host(device_id: str, port: str) -> bool:
        item = item_of.get(device_id)
        if device_id not in item_of:
            item = item_of[device_id] = _item(design, device_id)
        if item is None:
            return False
        if item.kind in HOST_KINDS:
            return True
        key = (item.slug, port)
        known = host_cache.get(key)
        if known is None:
            known = host_cache[key] = is_host_end(item, port)
        return known

    adjacency: dict[str, defaultdict[str, set[str]]] = {p: defaultdict(set) for p in wanted}
    for link in design.links:
        plane = by_network.get(link.network) if link.network is not None else None
        if plane is None:
            plane = link_plane(design, link, by_network)
        structure = result.get(plane) if plane is not None else None
        if structure is None:
            continue
        structure.links.append(link)
        adjacent = adjacency[structure.plane]
        a_host = host(link.a_device, link.a_port)
        b_host = host(link.b_device, link.b_port)
        if a_host or b_host:
            structure.host_links.append(link)
            if a_host:
                structure.hosts.add(link.a_device)
            if b_host:
                structure.hosts.add(link.b_device)
            # Two hosts cabled back to back have no switch between them.
            if a_host and not b_host:
                structure.tiers.setdefault(link.b_device, 0)
                adjacent[link.a_device].add(link.b_device)
            elif b_host and not a_host:
                structure.tiers.setdefault(link.a_device, 0)
                adjacent[link.b_device].add(link.a_device)
        else:
            structure.switch_links.append(link)
            structure.tiers.setdefault(link.a_device, 0)
            structure.tiers.setdefault(link.b_device, 0)
            adjacent[link.a_device].add(link.b_device)
            adjacent[link.b_device].add(link.a_device)
    for plane, structure in result.items():
        _assign_tiers(structure, adjacency[plane])
    return result


def plane_structure(design: Design, plane: str) -> PlaneStructure:
    """One plane's structure (see :func:`plane_structures`)."""
    return plane_structures(design, [plane])[plane]


def _assign_tiers(structure: PlaneStructure, adjacency: dict[str, set[str]]) -> None:
    """Breadth-first from the hosts: a switch's tier is its distance from the nearest
    host, counted in links."""
    tiers = structure.tiers
    seen: set[str] = set()
    queue: deque[tuple[str, int]] = deque()
    for host in structure.hosts:
        for switch in adjacency.get(host, ()):
            if switch not in seen and switch in tiers:
                seen.add(switch)
                tiers[switch] = 1
                queue.append((switch, 1))
    while queue:
        switch, tier = queue.popleft()
        for other in adjacency.get(switch, ()):
            if other in seen or other not in tiers or other in structure.hosts:
                continue
            seen.add(other)
            tiers[other] = tier + 1
            queue.append((other, tier + 1))
