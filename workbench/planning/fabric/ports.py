"""Which ports of a switch or host model a generated fabric uses, worked out once per
model and speed with :mod:`workbench.model.ports` (the one home of port rules).

A generated fabric of 100,000 GPUs holds 300,000 links; asking
:func:`~workbench.model.ports.free_port` for each would scan a 144-port switch 300,000
times.  Instead the generator asks once per (model, speed) for the switch's **slots**:
the port names, breakout lanes included, that :func:`free_port` hands out one after the
other on an empty switch (``p1/1``, ``p1/2``, ``p2/1`` … for 400G links on 800G
ports).  A new switch's ``n``-th link takes its ``n``-th slot.  Links are then checked
the same way, per kind of end rather than per link (:class:`LinkCheck`), with
:func:`~workbench.model.ports.link_problem`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbench.catalog.item import CatalogItem
from workbench.model.ports import (
    DOWNSHIFT,
    Port,
    candidate_ports,
    end_problem,
    free_port,
    link_problem,
    port_named,
    ports_of,
    split_lane,
)
from workbench.planning.fabric.sizing import FabricError, Radix

_SLOTS: dict[tuple[str, int, str, float, frozenset[str]], tuple[str, ...]] = {}


def slots(item: CatalogItem, speed: float, exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """Every port or breakout lane of switch ``item`` that carries ``speed``, in the order
    :func:`free_port` gives them out on an empty switch (physical ports in
    ``exclude`` left out: a leaf's dedicated uplinks)."""
    skip = frozenset(exclude)
    # A design's snapshot and the catalog may hold different items under one slug.
    key = (item.slug, hash(item.interfaces), repr(item.props.get("breakout")), speed, skip)
    known = _SLOTS.get(key)
    if known is not None:
        return known
    used: dict[str, set[int | None]] = {name: {None} for name in skip}
    found: list[str] = []
    while True:
        name = free_port(item, used, speed=speed, as_host=False, breakout=True)
        if name is None:
            break
        physical, lane = split_lane(name)
        taken = used.setdefault(physical, set())
        taken.add(lane)
        port = port_named(item, physical) if lane is not None else None
        if port is not None and lane == port.kind.speed_gbps / speed:
            # Its last lane at this speed (lanes go 1, 2 … in turn): marked whole, the
            # same to free_port, which then skips it at once instead of weighing its
            # breakouts again on every later call (288 calls: 68 → ~15 ms).
            used[physical] = {None}
        found.append(name)
    _SLOTS[key] = result = tuple(found)
    return result


@dataclass(frozen=True)
class SwitchSlots:
    """A switch model's ports for one fabric: ``down`` slots at the host speed and, when
    it has dedicated faster uplinks, ``up`` slots at ``up_speed`` (else None: the
    uplinks are the down slots after the hosts')."""

    item: CatalogItem
    speed: float
    down: tuple[str, ...]
    up: tuple[str, ...] | None
    up_speed: float

    def radix(self) -> Radix:
        return Radix(
            ports=len(self.down),
            speed_gbps=self.speed,
            uplinks=None if self.up is None else len(self.up),
            uplink_gbps=None if self.up is None else self.up_speed,
            name=self.item.slug,
        )


def _physical_speeds(item: CatalogItem) -> list[float]:
    return sorted({p.kind.speed_gbps for p in ports_of(item) if not p.mgmt_only})


def leaf_ports(item: CatalogItem, speed: float) -> SwitchSlots:
    """A leaf's ports: when its fastest ports are faster than ``speed`` and it has
    slower ones too (48 × 10GBASE-T + 4 × 100G), the fastest are its uplinks, at their
    own speed; otherwise every port is in one pool at ``speed``."""
    speeds = _physical_speeds(item)
    fastest = speeds[-1] if speeds else 0.0
    if len(speeds) > 1 and fastest > speed:
        uplinks = [
            p.name for p in ports_of(item) if not p.mgmt_only and p.kind.speed_gbps == fastest
        ]
        down = slots(item, speed, exclude=uplinks)
        up = tuple(n for n in slots(item, fastest) if split_lane(n)[0] in set(uplinks))
        if down and up:
            return SwitchSlots(item, speed, down, up, fastest)
    return SwitchSlots(item, speed, slots(item, speed), None, speed)


def spine_ports(item: CatalogItem, speed: float) -> SwitchSlots:
    """A spine's or core's ports: one pool at ``speed``."""
    return SwitchSlots(item, speed, slots(item, speed), None, speed)


def no_port_message(item: CatalogItem, speed: float, what: str) -> str:
    """Why ``item`` cannot serve as ``what`` at ``speed``, naming the ports it has."""
    kinds = sorted({p.kind.label for p in ports_of(item) if not p.mgmt_only})
    have = ", ".join(kinds) if kinds else "no data ports"
    return f"{item.slug} has no port that runs at {speed:g}G for a {what} (it has {have})."


def host_speed(item: CatalogItem, port: str, speed: float) -> float | None:
    """The speed a host port runs at on a plane of ``speed``: that speed when it can,
    else the fastest it can below (a 100G appliance on a 200G storage plane); None when
    it cannot run at or below ``speed`` at all."""
    if end_problem(item, port, speed) is None:
        return speed
    found = port_named(item, port)
    if found is None:
        return None
    for divisor in DOWNSHIFT:
        slower = found.kind.speed_gbps / divisor
        if slower <= speed + 1e-6 and end_problem(item, port, slower) is None:
            return slower
    return None


def host_ports(item: CatalogItem, plane: str) -> list[Port]:
    """The ports of host ``item`` on ``plane`` in catalog order (rail ``i`` is the
    ``i``-th): its management-only port on the OOB plane (a switch's too)."""
    return candidate_ports(item, plane, as_host=True)


class LinkCheck:
    """:func:`link_problem` per kind of link end rather than per link.

    Whether two ports cable together at a speed depends on the two models, each port's
    type, whether it is a breakout lane (and whether that lane exists), and the speed.
    Each end is checked once (:func:`end_problem`), each pair of port types once with a
    representative pair of ports; a wiring of 300,000 links asks a few hundred times.
    """

    def __init__(self) -> None:
        self._ends: dict[tuple[str, str, float], str | None] = {}
        self._pairs: dict[tuple[str, str, bool, str, str, bool, float], str | None] = {}
        self._types: dict[tuple[str, str], str] = {}

    def _type(self, item: CatalogItem, port: str) -> str:
        physical, _lane = split_lane(port)
        key = (item.slug, physical)
        known = self._types.get(key)
        if known is None:
            found = port_named(item, physical)
            known = self._types[key] = found.kind.type if found is not None else "?"
        return known

    def end(self, item: CatalogItem, port: str, speed: float) -> str | None:
        key = (item.slug, port, speed)
        if key not in self._ends:
            self._ends[key] = end_problem(item, port, speed)
        return self._ends[key]

    def problem(
        self, a: CatalogItem, a_port: str, b: CatalogItem, b_port: str, speed: float
    ) -> str | None:
        """The reason these ends cannot be cabled at ``speed``, or None."""
        for item, port in ((a, a_port), (b, b_port)):
            reason = self.end(item, port, speed)
            if reason is not None:
                return reason
        key = (
            a.slug,
            self._type(a, a_port),
            "/" in a_port,
            b.slug,
            self._type(b, b_port),
            "/" in b_port,
            speed,
        )
        if key not in self._pairs:
            self._pairs[key] = link_problem(a, a_port, b, b_port, speed)
        return self._pairs[key]

    def require(
        self,
        a: CatalogItem,
        a_ports: Iterable[str],
        b: CatalogItem,
        b_ports: Iterable[str],
        speed: float,
        what: str,
    ) -> None:
        """FabricError when any of ``a_ports`` cannot cable to any of ``b_ports``."""
        left, right = list(dict.fromkeys(a_ports)), list(dict.fromkeys(b_ports))
        if not left or not right:
            return
        firsts_b = {self._type(b, p) + str("/" in p): p for p in right}
        firsts_a = {self._type(a, p) + str("/" in p): p for p in left}
        for port in left:
            reason = self.end(a, port, speed)
            if reason is not None:
                raise FabricError(f"{what}: {reason}.")
        for port in right:
            reason = self.end(b, port, speed)
            if reason is not None:
                raise FabricError(f"{what}: {reason}.")
        for pa in firsts_a.values():
            for pb in firsts_b.values():
                reason = self.problem(a, pa, b, pb, speed)
                if reason is not None:
                    raise FabricError(f"{what}: {reason}.")
