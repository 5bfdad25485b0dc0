"""Ports: what a catalog item's interfaces are, which plane each serves, and whether two
of them can be cabled together.

A device's ports are its catalog item's NetBox interface templates.  Their NetBox type
names (``400gbase-x-osfp``, ``infiniband-ndr``, ``10gbase-t`` ...) say the speed, the
family (Ethernet or InfiniBand) and the cage, and that is all a cabling decision needs:

* **Same speed**: any two cages cable together (an OSFP to a QSFP112 is a cable with
  two different ends), but twisted pair (RJ45) only to twisted pair.
* **A slower link on a faster port**: a pluggable port runs at its speed or at a half
  or a quarter of it (a 400G QSFP112 with a 200G QSFP56 cable); BASE-T ports
  auto-negotiate down to 1G.
* **Breakout**: a switch port of 100G or more splits into 2 or 4 slower ports
  (``p1/1`` .. ``p1/4``), so one 800G port serves four 200G hosts.  A catalog item may
  say otherwise with ``props.breakout`` (a list of ways, empty for none).
* **Family**: an InfiniBand switch port cables to a host adapter (ConnectX adapters run
  either protocol per port) but never to an Ethernet switch port.

A host's port serves the plane its name says (``compute0`` the compute plane,
``storage1`` the storage plane, ``mgmt0`` in-band management, a management-only port
such as ``bmc`` the out-of-band plane); a switch's data ports serve whichever fabric they
are cabled into.  This module is the one home of those decisions: the fabric generator,
the hand-drawn links on the canvas and the rules all ask it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from workbench.catalog.item import CatalogItem, Interface
from workbench.catalog.netbox import interface_speed_gbps

if TYPE_CHECKING:
    from workbench.model.design import Design

#: The cage an InfiniBand generation is usually built with.
_IB_CAGES: dict[str, str] = {"edr": "qsfp28", "hdr": "qsfp56", "ndr": "osfp", "xdr": "osfp"}
#: ``<rate><unit>base-<medium>[-<cage>[-...]]``: the medium and cage of an Ethernet type
#: (its speed comes from :func:`workbench.catalog.netbox.interface_speed_gbps`, the one
#: reading of a type's line rate).
_ETHERNET = re.compile(r"^\d+(?:\.\d+)?[gmt]?base-([a-z0-9.]+)(?:-([a-z0-9+]+))?(?:-.*)?$")
#: Ways a fast switch port may break out when the catalog does not say.
DEFAULT_BREAKOUT: tuple[int, ...] = (2, 4)
#: Speeds a pluggable port also runs at, as divisors of its own speed.
DOWNSHIFT: tuple[int, ...] = (1, 2, 4)
#: Cable media a link may be given by hand (None on a link: chosen by its length, see
#: :mod:`workbench.calc.cabling`), with what installers call them.
MEDIA: dict[str, str] = {
    "dac": "Copper DAC",
    "aoc": "Active optical cable",
    "mmf": "Multimode fibre and optics",
    "smf": "Single-mode fibre and optics",
    "utp": "Twisted-pair patch cord",
}
#: Kinds of catalog item whose ports are host adapters (they speak either family).
HOST_KINDS: frozenset[str] = frozenset({"server", "storage"})


@dataclass(frozen=True)
class PortKind:
    """What a NetBox interface type says about a port."""

    type: str
    speed_gbps: float
    family: str  # "ethernet" | "infiniband"
    cage: str  # "osfp", "qsfp112", "qsfp56", "qsfp28", "sfp28", "sfp+", "rj45", ...
    twisted_pair: bool = False

    @property
    def label(self) -> str:
        """``400G OSFP``, ``10G RJ45``: how installers name a port."""
        speed = f"{self.speed_gbps:g}G" if self.speed_gbps >= 1 else f"{self.speed_gbps * 1000:g}M"
        return f"{speed} {self.cage.upper()}" if self.cage else speed


@lru_cache(maxsize=512)
def port_kind(netbox_type: str) -> PortKind | None:
    """The port behind a NetBox interface type; None for types that carry no data we
    plan (virtual, LAG, wireless, unknown names)."""
    text = netbox_type.strip().lower()
    speed = interface_speed_gbps(text)  # the one home of a type's line rate
    if speed is None:
        return None
    if text.startswith("infiniband-"):
        generation = text.removeprefix("infiniband-").removesuffix("-4x")
        return PortKind(netbox_type, speed, "infiniband", _IB_CAGES.get(generation, "qsfp"))
    match = _ETHERNET.match(text)
    if match is None:
        return None
    medium, cage = match.groups()
    if medium in ("t", "tx"):
        return PortKind(netbox_type, speed, "ethernet", "rj45", twisted_pair=True)
    cage = cage if medium == "x" else ""  # 100gbase-sr4: a fixed optic, no cage
    return PortKind(netbox_type, speed, "ethernet", (cage or "").replace("sfpp", "sfp+"))


def host_plane(name: str, mgmt_only: bool) -> str | None:
    """The plane a host's port serves, from its name (see the module docstring)."""
    if mgmt_only:
        return "oob"
    lowered = name.lower()
    for prefix, plane in (
        ("compute", "compute"),
        ("gpu", "compute"),
        ("ib", "compute"),
        ("storage", "storage"),
        ("stor", "storage"),
        ("mgmt", "management"),
        ("bmc", "oob"),
        ("ipmi", "oob"),
        ("oob", "oob"),
    ):
        if lowered.startswith(prefix):
            return plane
    return None


@dataclass(frozen=True)
class Port:
    """One physical port of a catalog item."""

    name: str
    kind: PortKind
    mgmt_only: bool = False
    #: The plane a host port serves; None for a switch's data ports (any fabric).
    plane: str | None = None


#: (kind, interfaces) by the interfaces' identity → the ports: ``ports_of`` is asked per
#: link end (a million times in a 100,000-GPU check), and hashing a tuple of 70
#: interfaces for the ``lru_cache`` each time cost more than the lookups it saved.  The
#: entry holds the tuple itself, so its id cannot be reused while the entry lives.
_BY_IDENTITY: dict[int, tuple[str, tuple[Interface, ...], tuple[Port, ...]]] = {}
_BY_IDENTITY_MAX = 256


def ports_of(item: CatalogItem) -> tuple[Port, ...]:
    """The item's data ports, in catalog order (power ports and unknown types left out)."""
    interfaces = item.interfaces
    hit = _BY_IDENTITY.get(id(interfaces))
    if hit is not None and hit[1] is interfaces and hit[0] == item.kind:
        return hit[2]
    ports = _ports(item.kind, interfaces)
    if len(_BY_IDENTITY) >= _BY_IDENTITY_MAX:
        _BY_IDENTITY.clear()  # a few catalogs' worth; starting over is cheap
    _BY_IDENTITY[id(interfaces)] = (item.kind, interfaces, ports)
    return ports


@lru_cache(maxsize=256)
def _ports(kind: str, interfaces: tuple[Interface, ...]) -> tuple[Port, ...]:
    ports = []
    host = kind in HOST_KINDS
    for interface in interfaces:
        port = port_kind(interface.type)
        if port is None:
            continue
        if host:
            plane = host_plane(interface.name, interface.mgmt_only)
        else:
            plane = "oob" if interface.mgmt_only else None
        ports.append(Port(interface.name, port, interface.mgmt_only, plane))
    return tuple(ports)


def port_named(item: CatalogItem, name: str) -> Port | None:
    """The physical port ``name`` (a breakout lane ``p1/2`` names port ``p1``)."""
    physical, _lane = split_lane(name)
    for port in ports_of(item):
        if port.name == physical:
            return port
    return None


def split_lane(name: str) -> tuple[str, int | None]:
    """``"p1/2"`` → ``("p1", 2)``; ``"p1"`` → ``("p1", None)``."""
    head, slash, tail = name.rpartition("/")
    if slash and tail.isdigit() and head:
        return head, int(tail)
    return name, None


def breakout_ways(item: CatalogItem, port: Port) -> tuple[int, ...]:
    """How many ways ``port`` may split: the catalog's ``props.breakout`` or, for a
    switch port of 100G and more, :data:`DEFAULT_BREAKOUT`; hosts never break out."""
    if item.kind in HOST_KINDS or port.kind.twisted_pair:
        return ()
    declared = item.props.get("breakout")
    if isinstance(declared, list):
        return tuple(sorted({int(w) for w in declared if isinstance(w, int) and w > 1}))
    return DEFAULT_BREAKOUT if port.kind.speed_gbps >= 100 else ()


def end_speed(item: CatalogItem, port_name: str) -> float | None:
    """The fastest a port (or breakout lane) can carry, Gb/s; None if it does not exist."""
    port = port_named(item, port_name)
    if port is None:
        return None
    _physical, lane = split_lane(port_name)
    return port.kind.speed_gbps if lane is None else None  # a lane's speed depends on the ways


def _speeds(item: CatalogItem, port: Port) -> str:
    options = [f"{port.kind.speed_gbps / d:g}G" for d in DOWNSHIFT]
    ways = breakout_ways(item, port)
    text = f"runs at {', '.join(options[:-1])} or {options[-1]}"
    if port.kind.twisted_pair:
        text = f"auto-negotiates from {port.kind.speed_gbps:g}G down to 1G"
    if ways:
        splits = " or ".join(f"{w} × {port.kind.speed_gbps / w:g}G" for w in ways)
        text += f", or breaks out into {splits}"
    return text


def end_problem(item: CatalogItem, port_name: str, speed: float) -> str | None:
    """Why ``port_name`` of ``item`` cannot carry a ``speed`` Gb/s link; None if it can.

    A breakout lane ``pN/i`` carries the port's speed divided by the ways it is split
    into, which the lane number alone does not say; it is accepted when some allowed
    split gives exactly ``speed`` and has at least ``i`` lanes.
    """
    port = port_named(item, port_name)
    if port is None:
        return f"{item.label} has no port {port_name!r}"
    _physical, lane = split_lane(port_name)
    full = port.kind.speed_gbps
    if lane is not None:
        ways = breakout_ways(item, port)
        if not any(abs(full / w - speed) < 1e-6 and 1 <= lane <= w for w in ways):
            return f"{port_name} is not a {speed:g}G breakout lane: {port.kind.label} {_speeds(item, port)}"
        return None
    if speed > full + 1e-6:
        return f"{port_name} is a {port.kind.label} port, slower than {speed:g}G"
    if port.kind.twisted_pair:
        return None if speed >= 1 - 1e-6 else f"{port_name} cannot run below 1G"
    if any(abs(full / d - speed) < 1e-6 for d in DOWNSHIFT):
        return None
    return f"{port_name} ({port.kind.label}) {_speeds(item, port)}, not {speed:g}G"


def link_speed(a_item: CatalogItem, a_port: str, b_item: CatalogItem, b_port: str) -> float | None:
    """The speed a link between two ports runs at when nobody says: the slower port's
    (a breakout lane's speed must be given).  None when a port does not exist."""
    speeds = [end_speed(a_item, a_port), end_speed(b_item, b_port)]
    known = [s for s in speeds if s is not None]
    if not known:
        return None
    return min(known)


def link_problem(
    a_item: CatalogItem,
    a_port: str,
    b_item: CatalogItem,
    b_port: str,
    speed: float | None = None,
) -> str | None:
    """Why these two ports cannot be cabled at ``speed`` (default: :func:`link_speed`),
    in words for the user; None when they can."""
    a, b = port_named(a_item, a_port), port_named(b_item, b_port)
    for item, name, port in ((a_item, a_port, a), (b_item, b_port, b)):
        if port is None:
            return f"{item.label} has no port {name!r}"
    assert a is not None and b is not None
    if speed is None:
        speed = link_speed(a_item, a_port, b_item, b_port)
        if speed is None:
            return "give the speed of a link on a breakout lane"
    if a.kind.twisted_pair != b.kind.twisted_pair:
        rj45, other = (a, b) if a.kind.twisted_pair else (b, a)
        return (
            f"{rj45.name} is twisted pair ({rj45.kind.label}) and {other.name} is a "
            f"{other.kind.label} cage: no cable joins them"
        )
    if a.kind.family != b.kind.family and not (
        a_item.kind in HOST_KINDS or b_item.kind in HOST_KINDS
    ):
        return (
            f"{a.kind.label} {a.kind.family} and {b.kind.label} {b.kind.family} switch ports "
            "cannot be joined: the fabrics speak different protocols"
        )
    for item, name in ((a_item, a_port), (b_item, b_port)):
        problem = end_problem(item, name, speed)
        if problem is not None:
            return problem
    return None


# -- ports in use --------------------------------------------------------------------


class PortsInUse(dict[str, set[int | None]]):
    """Physical port → lanes taken (None: the whole port), and for split ports whose
    lanes' speeds are known, how many ways they are split (:attr:`ways`).

    The lane number alone cannot tell a port split 2 × 400G from one split 4 × 200G;
    without :attr:`ways` a free lane of the wrong split could be handed out.
    """

    def __init__(self) -> None:
        super().__init__()
        self.ways: dict[str, int] = {}


def lanes_in_use(
    ends: Iterable[str | tuple[str, float | None]], item: CatalogItem | None = None
) -> PortsInUse:
    """What one device's link ends take: port names, or (port name, link speed) pairs
    from :func:`device_port_ends` with the device's ``item`` so splits are known."""
    used = PortsInUse()
    for end in ends:
        name, speed = (end, None) if isinstance(end, str) else end
        physical, lane = split_lane(name)
        used.setdefault(physical, set()).add(lane)
        if lane is not None and speed and item is not None:
            port = port_named(item, physical)
            if port is not None and speed > 0:
                used.ways[physical] = max(1, round(port.kind.speed_gbps / speed))
    return used


def device_port_ends(design: Design, device_id: str) -> Iterator[tuple[str, float | None]]:
    """(port name, link speed) of every link end on ``device_id``."""
    index = design.index
    for link_id in index.device_links.get(device_id, ()):
        link = index.links[link_id]
        if link.a_device == device_id:
            yield link.a_port, link.speed_gbps
        if link.b_device == device_id:
            yield link.b_port, link.speed_gbps


def device_port_names(design: Design, device_id: str) -> Iterator[str]:
    """The port name of every link end on ``device_id`` (twice for a port cabled twice,
    which the rules report)."""
    for name, _speed in device_port_ends(design, device_id):
        yield name


def candidate_ports(item: CatalogItem, plane: str | None, *, as_host: bool) -> list[Port]:
    """The ports of ``item`` a link on ``plane`` may use.

    ``as_host``: the device is an end point of the plane (a server's ``compute3``, a
    switch's own management port on the out-of-band plane); otherwise it is one of the
    plane's switches and offers its data ports.
    """
    ports = ports_of(item)
    if not as_host:
        return [p for p in ports if not p.mgmt_only]
    if item.kind in HOST_KINDS:
        return [p for p in ports if plane is None or p.plane == plane]
    return [p for p in ports if p.mgmt_only and plane in (None, "oob")]


def free_port(
    item: CatalogItem,
    used: dict[str, set[int | None]] | PortsInUse,
    *,
    speed: float,
    plane: str | None = None,
    as_host: bool = False,
    breakout: bool = True,
) -> str | None:
    """The next port (or breakout lane) of ``item`` that is free and carries ``speed``
    on ``plane``, wasting as little as possible: a whole port of exactly that speed,
    then a free lane of a port already split to that speed, then a fresh split, and
    only then a faster port run slower; None when there is none.

    ``used`` is :func:`lanes_in_use` for the device (with speeds, so a port split one
    way is not offered for another); the caller adds what it takes.
    """
    ports = candidate_ports(item, plane, as_host=as_host)
    for port in ports:
        if port.name not in used and abs(port.kind.speed_gbps - speed) < 1e-6:
            return port.name
    if breakout:
        for fresh in (False, True):
            for port in ports:
                taken = used.get(port.name)
                if (taken is None) != fresh or (taken is not None and None in taken):
                    continue
                split = getattr(used, "ways", {}).get(port.name)
                for ways in breakout_ways(item, port):
                    if abs(port.kind.speed_gbps / ways - speed) > 1e-6:
                        continue
                    if taken is not None and (
                        (split is not None and split != ways)
                        or any(lane is not None and lane > ways for lane in taken)
                    ):
                        continue  # split another way already
                    for lane in range(1, ways + 1):
                        if taken is None or lane not in taken:
                            return f"{port.name}/{lane}"
    for port in ports:
        if port.name not in used and end_problem(item, port.name, speed) is None:
            return port.name
    return None
