"""Cable new hosts into a plane's existing leaves: the storage appliances of a new tier,
a switch's management port on the out-of-band plane.

Each host port takes the next free port (or breakout lane) of a leaf that carries its
speed: the leaf's slots (:func:`~workbench.planning.fabric.ports.slots`, in
:func:`~workbench.model.ports.free_port` order) whose physical port no link uses yet,
read from the design's links, so a hand-drawn fabric is served as well as a generated
one.  Leaves are tried nearest
first: the host's own rack, then its row, then the rest in the order the plane lists
them; a host's second port starts one leaf further on, so its ports land on different
leaves where the fabric has several.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from workbench.calc.fabric.planes import plane_structure
from workbench.catalog.item import CatalogItem
from workbench.model import ops
from workbench.model.design import PLANES, Design, Link
from workbench.model.ports import device_port_names, lanes_in_use, split_lane
from workbench.planning.fabric.ports import LinkCheck, host_ports, host_speed, slots
from workbench.planning.fabric.sizing import FabricError


def attach_hosts(
    design: Design, plane: str, host_ids: Sequence[str], speed_gbps: float | None = None
) -> ops.Batch:
    """The edit cabling every free port of ``host_ids`` on ``plane`` to the plane's
    leaves; FabricError saying how many ports are missing when they do not all fit."""
    links, missing = attach_links(design, plane, host_ids, speed_gbps, strict=True)
    if missing:
        total = len(links) + missing
        raise FabricError(
            f"{total:,} {plane} ports of {len(host_ids):,} hosts need free leaf ports; the "
            f"{plane} plane's leaves have {len(links):,}: {missing:,} missing. Add leaves "
            "or regenerate the plane."
        )
    return ops.Batch((ops.AddLinks(tuple(links)),))


def attach_links(
    design: Design,
    plane: str,
    host_ids: Sequence[str],
    speed_gbps: float | None,
    *,
    strict: bool = False,
) -> tuple[list[Link], int]:
    """The links :func:`attach_hosts` makes, and how many host ports found no leaf
    port.  ``strict``: unknown hosts and hosts without a port on the plane are errors
    (otherwise skipped)."""
    if plane not in PLANES:
        raise FabricError(f"plane: one of {', '.join(PLANES)}, not {plane!r}.")
    network = next((n for n in design.networks if n.plane == plane), None)
    structure = plane_structure(design, plane)
    newcomers = set(host_ids)
    leaves = [s for s, tier in structure.tiers.items() if tier == 1 and s not in newcomers]
    if network is None or not leaves:
        if strict:
            raise FabricError(f"The {plane} plane has no leaf switches yet: generate it first.")
        return [], sum(1 for _ in host_ids)
    speed = float(speed_gbps or network.speed_gbps)
    index = design.index
    state = _Leaves(design, leaves)
    check = LinkCheck()
    ends: list[tuple[str, str, str, str, float]] = []
    missing = 0
    for host_id in host_ids:
        found = index.devices.get(host_id)
        if found is None:
            if strict:
                raise FabricError(f"No device with id {host_id!r}.")
            continue
        rack, device = found
        item = design.device_types.get(device.device_type)
        ports = host_ports(item, plane) if item is not None else []
        if item is None or not ports:
            if strict:
                raise FabricError(f"{device.name} has no port on the {plane} plane.")
            continue
        taken = lanes_in_use(device_port_names(design, host_id))
        mine: set[str] = set()
        for port in (p for p in ports if p.name not in taken):
            port_speed = host_speed(item, port.name, speed)
            chosen = None
            if port_speed is not None:
                chosen = state.take(rack.id, port_speed, mine, item, port.name, check)
            if chosen is None:
                missing += 1
                continue
            mine.add(chosen[0])
            ends.append((host_id, port.name, chosen[0], chosen[1], port_speed or speed))
    ids = index.new_ids("link", len(ends))
    links = [
        Link(link_id, a, ap, b, bp, network.id, None, None, s)
        for link_id, (a, ap, b, bp, s) in zip(ids, ends, strict=True)
    ]
    return links, missing


class _Leaves:
    """The plane's leaves with their free ports at each speed, nearest first."""

    def __init__(self, design: Design, leaves: list[str]):
        self.design = design
        self.leaves = leaves
        index = design.index
        self.by_rack: dict[str, list[str]] = {}
        self.by_row: dict[str, list[str]] = {}
        for leaf in leaves:
            rack = index.devices[leaf][0]
            row = index.row_of_rack(rack.id)
            self.by_rack.setdefault(rack.id, []).append(leaf)
            self.by_row.setdefault(row.id if row else "", []).append(leaf)
        #: leaf → speed → its free ports at that speed.
        self._free: dict[str, dict[float, list[str]]] = {}
        #: speed → leaves before this position have no free port at that speed.
        self._first: dict[float, int] = {}

    def free(self, leaf: str, speed: float) -> list[str]:
        """Free ports of ``leaf`` at ``speed``, in the order a new link takes them: the
        slots of ports nobody uses yet (a port already split is left alone)."""
        speeds = self._free.setdefault(leaf, {})
        known = speeds.get(speed)
        if known is None:
            device = self.design.index.devices[leaf][1]
            item = self.design.device_types[device.device_type]
            used = lanes_in_use(device_port_names(self.design, leaf))
            known = speeds[speed] = [s for s in slots(item, speed) if split_lane(s)[0] not in used]
        return known

    def take(
        self,
        rack_id: str,
        speed: float,
        avoid: set[str],
        host: CatalogItem,
        port: str,
        check: LinkCheck,
    ) -> tuple[str, str] | None:
        """The nearest leaf port for ``port`` of ``host`` (leaves in ``avoid`` last)."""
        index = self.design.index
        row = index.row_of_rack(rack_id)
        near = self.by_rack.get(rack_id, []) + self.by_row.get(row.id if row else "", [])
        for second in (False, True):
            for leaf in self._candidates(near, speed):
                if (leaf in avoid) != second:
                    continue
                free = self.free(leaf, speed)
                if not free:
                    continue
                item = self.design.device_types[index.devices[leaf][1].device_type]
                if check.problem(host, port, item, free[0], speed) is not None:
                    continue
                name = free.pop(0)
                # The port is taken at this speed: no other speed may split it now.
                physical = split_lane(name)[0]
                for other, names in self._free[leaf].items():
                    if other != speed:
                        names[:] = [s for s in names if split_lane(s)[0] != physical]
                return leaf, name
        return None

    def _candidates(self, near: list[str], speed: float) -> Iterator[str]:
        yield from near
        first = self._first.get(speed, 0)
        while first < len(self.leaves) and not self.free(self.leaves[first], speed):
            first += 1
        self._first[speed] = first
        yield from self.leaves[first:]
