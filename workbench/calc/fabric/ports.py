"""Ports used and free on a plane's switches, and the devices the plane should reach but
no link does.

A port is *used* when it or any of its breakout lanes is cabled, on any plane (a port
is a port, whichever fabric took it).  A split port's *free lanes* are the lanes of its
split not cabled yet; the split is read from its lanes' speed (port speed / lane speed)
where that is a split the port allows, else taken as its largest breakout.  A port
cabled whole has no free lanes.  All of it is numpy over the link ends of the plane
(and the other planes' links on its switches), so a 300,000-link plane of split 800G
ports costs tens of milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from workbench.calc.fabric.graph import PlaneGraph
from workbench.calc.fabric.planes import PlaneStructure, tier_name
from workbench.calc.fabric.tables import DeviceTable, coded, distinct, link_arrays
from workbench.catalog.item import CatalogItem
from workbench.model.design import Design, Link
from workbench.model.ports import HOST_KINDS, ports_of


@dataclass(frozen=True)
class SwitchPorts:
    """One switch's data ports: how many, used, free whole ports, free lanes."""

    switch: str
    name: str
    tier: int
    ports: int
    used: int
    free: int
    free_lanes: int

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.switch,
            "name": self.name,
            "tier": tier_name(self.tier),
            "ports": self.ports,
            "used": self.used,
            "free": self.free,
            "free_lanes": self.free_lanes,
        }


def _data_ports(item: CatalogItem) -> int:
    return sum(1 for p in ports_of(item) if not p.mgmt_only)


def other_links(
    design: Design, structure: PlaneStructure, candidates: Iterable[Link] | None = None
) -> list[Link]:
    """Links of other planes with an end on one of this plane's switches (a converged
    switch, or a switch whose management port is cabled out of band).  ``candidates``,
    when the caller knows them (the other planes' links), saves telling this plane's
    links from the rest."""
    switches = structure.tiers
    if candidates is None:
        if len(structure.links) == len(design.links):
            return []  # every link is this plane's
        mine = {id(link) for link in structure.links}
        candidates = (link for link in design.links if id(link) not in mine)
    return [link for link in candidates if link.a_device in switches or link.b_device in switches]


def switch_ports(
    design: Design, graph: PlaneGraph, others: Iterable[Link] | None = None
) -> list[SwitchPorts]:
    """Ports used and free on every switch of the plane (see the module docstring;
    ``others``: the other planes' links, when the caller has them)."""
    devices, plane = graph.devices, graph.arrays
    extra = link_arrays(devices, other_links(design, graph.structure, others))
    ends = devices.ends
    at = np.concatenate([plane.a, plane.b, extra.a, extra.b])
    code = np.concatenate([plane.a_code, plane.b_code, extra.a_code, extra.b_code])
    speed = np.concatenate([plane.speed, plane.speed, extra.speed, extra.speed])
    data, host, lane = ends.column("data"), ends.column("host"), ends.column("lane")
    on = (graph.tier[at] >= 0) & data[code] & ~host[code]
    at, code, speed = at[on], code[on], speed[on]
    n = len(devices)
    # Each physical port in use, numbered: keys (device, physical port) in order.
    width = ends.physical_ports
    # Coded in two steps, the switches first, so that each step counts over a short
    # range (one sort of ~600,000 keys at 100,000 GPUs was ~40 ms); same keys, same order.
    switch_at, switch_no, _n = coded(at)
    keys, port_of, _n = coded(switch_no * width + ends.column("physical")[code])
    ports = switch_at[keys // width] * width + keys % width
    count = len(ports)
    split = lane[code]
    whole = np.bincount(port_of[~split], minlength=count) > 0
    lane_no = ends.column("lane_no")[code]
    lanes = distinct(port_of[split] * 65536 + lane_no[split])
    lanes_used = np.bincount(lanes // 65536, minlength=count)
    # The split of each port: port speed / lane speed where that is a split it allows,
    # else its largest split (or its highest lane cabled).
    with np.errstate(invalid="ignore", divide="ignore"):
        ways = np.rint(ends.column("port_speed")[code] / speed)
    ways = np.where(np.isfinite(ways) & (ways > 0) & (ways < 63), ways, 0).astype(np.int64)
    allowed = split & ((ends.column("ways_mask")[code] >> ways) & 1 == 1) & (ways > 1)
    read = np.zeros(count, dtype=np.int64)
    np.maximum.at(read, port_of[allowed], ways[allowed])
    fallback = np.zeros(count, dtype=np.int64)
    guess = np.maximum(ends.column("max_ways")[code], lane_no)
    np.maximum.at(fallback, port_of[split], guess[split])
    free = np.where(whole, 0, np.maximum(np.where(read > 0, read, fallback) - lanes_used, 0))
    used_of = np.bincount(ports // width, minlength=n)
    free_of = np.bincount(ports // width, weights=free, minlength=n)
    index = design.index
    sizes: dict[str, int] = {}
    out = []
    for switch, tier in graph.structure.tiers.items():
        number = devices.pos.get(switch)
        item = devices.items[number] if number is not None else None
        found = index.devices.get(switch)
        name = found[1].name if found else switch
        if item is None or number is None:
            out.append(SwitchPorts(switch, name, tier, 0, 0, 0, 0))
            continue
        size = sizes.get(item.slug)
        if size is None:
            size = sizes[item.slug] = _data_ports(item)
        used = int(used_of[number])
        out.append(SwitchPorts(switch, name, tier, size, used, size - used, int(free_of[number])))
    return out


def serves(item: CatalogItem, plane: str) -> bool:
    """Whether a device of ``item`` is an end point ``plane`` should reach: a server or
    storage appliance with a port named for the plane, or (out of band) any device with
    a management-only port."""
    if item.kind in HOST_KINDS:
        return any(p.plane == plane for p in ports_of(item))
    return plane == "oob" and any(p.mgmt_only for p in ports_of(item))


def uncabled_hosts(design: Design, structure: PlaneStructure, devices: DeviceTable) -> list[str]:
    """Devices with a port for the plane and no link on it, in hall order."""
    known: dict[str, bool] = {}
    out = []
    hosts = structure.hosts
    for _rack, device in design.iter_devices():
        if device.id in hosts:
            continue
        item = devices.item(device.id)
        if item is None:
            continue
        answer = known.get(item.slug)
        if answer is None:
            answer = known[item.slug] = serves(item, structure.plane)
        if answer:
            out.append(device.id)
    return out
