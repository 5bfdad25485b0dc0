"""Which port of which switch each generated link joins: the wiring patterns of
:mod:`workbench.planning.fabric.generator`, as plain functions of device ids and slot
lists (:mod:`.fabric_ports`), so they are exact and fast at 300,000 links.

A link end is a ``(device id, port)`` pair; a link here is the tuple ``(a device,
a port, b device, b port, speed)``, turned into a :class:`~workbench.model.design.Link`
with its id and network at the end.  The patterns:

* **rail-optimized**: port ``i`` of node ``q`` of scalable unit ``s`` goes to rail leaf
  ``i`` of that unit (leaf ``s·r + i``), on the leaf's ``q``-th slot;
* **leaf-spine**: the host ports fill the leaves in blocks of ``d`` hosts, port ``i``
  of each host of a block on one leaf and port ``i + 1`` on the next, so a node's
  ports land on different leaves;
* **2 tiers**: uplink ``m`` of leaf ``ℓ`` goes to spine ``m mod S``, on that spine's slot
  ``ℓ·(u/S) + m div S``: ``u/S`` links from every leaf to every spine;
* **3 tiers**: uplink ``j`` of a leaf goes to spine ``j`` of its pod, on the spine's
  slot for that leaf; uplink ``m`` of spine ``j`` of pod ``p`` goes to core
  ``m mod C`` of group ``j``, on the core's slot ``p·(PL/C) + m div C``: every spine
  reaches every core of its group ``ups / C`` times.  A spine's first ``PL`` slots face
  down, the next ones up.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from workbench.catalog.item import CatalogItem
from workbench.model.design import Device, Link, Rack
from workbench.planning.fabric.ports import SwitchSlots
from workbench.planning.fabric.sizing import FabricShape, ceil_div

#: (a device, a port, b device, b port, speed Gb/s) of each link to make.
Ends = list[tuple[str, str, str, str, float]]


@dataclass(slots=True)
class Host:
    """A device to connect, and the ports of it to cable (slotted: a 1,000,000-GPU
    template makes 560,000 of them over its four planes, each made faster and smaller)."""

    device: Device
    rack: Rack
    item: CatalogItem
    #: (rail index, port name, speed) of each port to cable.
    ports: list[tuple[int, str, float]]


def rail_links(
    ends: Ends,
    hosts: Sequence[Host],
    leaves: Sequence[str],
    down: Sequence[str],
    su_nodes: int,
    rails: int,
) -> None:
    """Port ``i`` of every node of an SU to rail leaf ``i`` of that SU."""
    add = ends.append
    for n, host in enumerate(hosts):
        su, q = divmod(n, su_nodes)
        base, slot, device = su * rails, down[q], host.device.id
        for rail, port, speed in host.ports:
            add((device, port, leaves[base + rail], slot, speed))


def striped(hosts: Sequence[Host], d: int) -> Iterator[tuple[Host, str, float]]:
    """Host ports in leaf order: blocks of ``d`` hosts, port ``i`` of each on one leaf,
    port ``i + 1`` on the next (so a node's ports land on different leaves)."""
    for start in range(0, len(hosts), d):
        block = hosts[start : start + d]
        rails = max(len(h.ports) for h in block)
        for i in range(rails):
            for host in block:
                if i < len(host.ports):
                    _rail, port, speed = host.ports[i]
                    yield host, port, speed


def leaf_spine_links(
    ends: Ends, hosts: Sequence[Host], leaves: Sequence[str], down: Sequence[str], d: int
) -> None:
    """The host ports of a leaf-spine fabric, ``d`` per leaf (see :func:`striped`)."""
    add = ends.append
    for i, (host, port, speed) in enumerate(striped(hosts, d)):
        add((host.device.id, port, leaves[i // d], down[i % d], speed))


def uplink_slots(leaf: SwitchSlots, shape: FabricShape) -> tuple[str, ...]:
    """A leaf's uplink slots: its dedicated uplinks, or the slots after its hosts'."""
    u = shape.leaf_up
    if leaf.up is not None:
        return leaf.up[:u]
    return leaf.down[shape.leaf_down : shape.leaf_down + u]


def spine_down_slots(shape: FabricShape, pool: Sequence[str], leaves: int) -> Sequence[str]:
    """The slots of a spine its leaves use."""
    if shape.tiers == 2:
        return pool[: leaves * (shape.leaf_up // shape.spines)]
    return pool[: shape.pod_leaves]


def upper_links(
    ends: Ends,
    leaves: Sequence[str],
    up: Sequence[str],
    spines: Sequence[str],
    cores: Sequence[str],
    pool: Sequence[str],
    shape: FabricShape,
    speed: float,
) -> None:
    """Leaves to spines, and spines to cores in 3 tiers (see the module docstring);
    ``pool`` is the spine's and core's slots at ``speed``."""
    add = ends.append
    u = shape.leaf_up
    if shape.tiers == 2:
        s = len(spines)
        per = u // s
        for li, leaf in enumerate(leaves):
            for m in range(u):
                add((leaf, up[m], spines[m % s], pool[li * per + m // s], speed))
        return
    pl, c = shape.pod_leaves, shape.cores_per_group
    for li, leaf in enumerate(leaves):
        pod, local = divmod(li, pl)
        for j in range(u):
            add((leaf, up[j], spines[pod * u + j], pool[local], speed))
    per_core = pl // c
    for pod in range(shape.pods):
        in_pod = min(pl, len(leaves) - pod * pl)
        ups = ceil_div(in_pod, c) * c
        for j in range(u):
            spine = spines[pod * u + j]
            for m in range(ups):
                core = cores[j * c + m % c]
                add((spine, pool[pl + m], core, pool[pod * per_core + m // c], speed))


def made_links(ids: Sequence[str], ends: Ends, network: str | None) -> list[Link]:
    """The links of ``ends`` with ``ids``, on ``network``, cable and length unset: what
    ``Link(id, a, a_port, b, b_port, network, None, None, speed)`` makes of each.

    The fields are set here, not by the dataclass's ``__init__``, which Python calls
    from C, a frame apart, per object: a 1,000,000-GPU template makes 4.4 million links
    (~0.45 -> ~0.35 s per million).  tests/test_fabric_wiring.py holds the two equal,
    every field."""
    new = object.__new__
    made: list[Link] = []
    add = made.append
    for link_id, (a, a_port, b, b_port, speed) in zip(ids, ends, strict=True):
        link = new(Link)
        link.id, link.a_device, link.a_port = link_id, a, a_port
        link.b_device, link.b_port, link.network = b, b_port, network
        link.cable_type = link.length_m = None
        link.speed_gbps = speed
        add(link)
    return made


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause the cyclic garbage collector while hundreds of thousands of links are made.

    Links hold no reference cycles, but every 700 new objects Python walks its young
    objects and now and then the whole heap (a 100,000-GPU design): that walking, not
    the allocation, is two thirds of the time.  It runs again as usual afterwards.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
