"""From a capture's names to the design's: which device, which catalog port.

**Devices** are matched by name, the way hosts and switches name themselves (host
name, LLDP system name, IB node description): exactly, else ignoring case, else by the
short name (``leaf01.example.com`` is ``leaf01``).  A name the design does not hold is
kept as it is and can only be part of an "unexpected" link.

**Ports** are the capture's interface names turned into the catalog item's interface
names (the design's link ends), in this order:

1. a name the item has (``swp1``, ``compute0``, ``swp1/2`` for a breakout lane) is taken
   as it is; so are hosts whose NICs were renamed after the plan;
2. ``N`` (an InfiniBand switch port number, from ibnetdiscover), ``swpN`` (Cumulus)
   and ``etpN`` (SONiC's alias) are the item's N-th data port, in catalog order, so an
   item whose ports are called ``p1``.. or ``eth1``.. maps the same; a breakout lane
   ``swpNsL`` (Cumulus, 0-based) or ``etpNa``.. is lane ``L+1`` (``a`` = 1) of it;
3. SONiC's ``EthernetK`` counts SerDes lanes: the port is ``K // lanes + 1`` where an
   OSFP or QSFP-DD cage has 8 lanes, QSFP 4 and SFP or RJ45 1, and a ``K`` that is not
   the first lane of its cage is a breakout lane (which one depends on the split: the
   lane the design uses is chosen when it fits);
4. on a host, ``mlx5_N`` (the adapter ibnetdiscover and rdma tools name) is the N-th of
   its adapter ports: the compute ports in catalog order, then the storage ports;
5. ``eth0``/``mgmt0``/``Ma1`` on a switch is its management-only port;
6. anything else on a host (a Linux name such as ``enp27s0f0np0``, a MAC address) is
   *unknown*: the link is checked by its devices and the switch port, not the host port.
   On a switch it stays as written and matches nothing.

Mapping is cached per (catalog item, name): 100,000 captured ports of a few dozen
identical items cost a few dozen mappings.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from workbench.catalog.item import CatalogItem
from workbench.model.design import Design
from workbench.model.ports import HOST_KINDS, breakout_ways, ports_of

#: SerDes lanes per cage, for SONiC's lane-numbered ``EthernetK`` names.
CAGE_LANES: dict[str, int] = {"osfp": 8, "qsfp-dd": 8, "qsfpdd": 8, "qsfp112": 4, "qsfp56": 4,
                              "qsfp28": 4, "qsfp+": 4, "qsfp": 4}  # fmt: skip
_NUMBER = re.compile(r"^(\d+)$")
_CUMULUS = re.compile(r"^swp(\d+)(?:s(\d+))?$")
_ALIAS = re.compile(r"^etp(\d+)([a-h])?$")
_SONIC = re.compile(r"^Ethernet(\d+)$")
_MLX = re.compile(r"^mlx5_(\d+)(?:/1)?$")
_MGMT = frozenset({"eth0", "mgmt0", "ma1", "management1", "mgmt"})

#: A port that the capture names but the matcher cannot place on the catalog item.
UNKNOWN: str = ""


class DeviceNames:
    """Device id by the names a capture may use for it."""

    def __init__(self, design: Design):
        self.exact: dict[str, str] = {}
        self.folded: dict[str, str] = {}
        self.short: dict[str, str] = {}
        self.item: dict[str, CatalogItem | None] = {}
        types = design.device_types
        for _rack, device in design.iter_devices():
            self.exact.setdefault(device.name, device.id)
            self.folded.setdefault(device.name.casefold(), device.id)
            self.short.setdefault(device.name.split(".", 1)[0].casefold(), device.id)
            self.item[device.id] = types.get(device.device_type)

    def device(self, name: str) -> str | None:
        """The id of the device a capture calls ``name``, or None."""
        found = self.exact.get(name)
        if found is None:
            found = self.folded.get(name.casefold())
        if found is None:
            found = self.short.get(name.split(".", 1)[0].casefold())
        return found


class PortMap:
    """Capture port names → catalog interface names, cached per item."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], Candidates] = {}

    def candidates(self, item: CatalogItem | None, name: str) -> Candidates:
        """The catalog names ``name`` may mean on ``item``, most likely first, each with
        the breakout it implies (None: none or any); ``((UNKNOWN, None),)`` for a host
        port that cannot be placed."""
        if item is None:
            return ((name, None),)
        key = (item.slug, name)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = _candidates(item, name)
        return found


Candidates = tuple[tuple[str, int | None], ...]


def pick(
    candidates: Candidates, designed: Callable[[str], bool], lanes_used: Callable[[str], int]
) -> str:
    """The candidate the design uses, on a port split as the design splits it (no fewer
    ways than the highest lane it uses there), else the first."""
    if len(candidates) > 1:
        for name, ways in candidates:
            if designed(name) and (ways is None or ways >= lanes_used(name.rpartition("/")[0])):
                return name
    return candidates[0][0]


def _candidates(item: CatalogItem, name: str) -> Candidates:
    return tuple((n, None) if isinstance(n, str) else n for n in _names(item, name))


def _names(item: CatalogItem, name: str) -> tuple[str | tuple[str, int], ...]:
    ports = ports_of(item)
    names = {p.name for p in ports}
    data = [p for p in ports if not p.mgmt_only]
    host = item.kind in HOST_KINDS
    head, _, lane = name.rpartition("/")
    if name in names or (head in names and lane.isdigit()):
        return (name,)

    def nth(n: int, lane: int | None = None) -> tuple[str, ...] | None:
        if not 1 <= n <= len(data):
            return None
        base = data[n - 1].name
        return (base,) if lane is None else (f"{base}/{lane}",)

    if host:
        mlx = _MLX.match(name)
        if mlx:
            order = [p for p in data if p.plane == "compute"] + [
                p for p in data if p.plane == "storage"
            ]
            n = int(mlx.group(1))
            return (order[n].name,) if n < len(order) else (name,)
        return (UNKNOWN,)
    found: tuple[str | tuple[str, int], ...] | None = None
    if (m := _NUMBER.match(name)) is not None:
        found = nth(int(m.group(1)))
    elif (m := _CUMULUS.match(name)) is not None:
        found = nth(int(m.group(1)), None if m.group(2) is None else int(m.group(2)) + 1)
    elif (m := _ALIAS.match(name)) is not None:
        found = nth(int(m.group(1)), None if m.group(2) is None else ord(m.group(2)) - 96)
    elif (m := _SONIC.match(name)) is not None and data:
        found = _sonic(item, data, int(m.group(1)))
    elif name.casefold() in _MGMT:
        mgmt = [p.name for p in ports if p.mgmt_only]
        found = (mgmt[0],) if mgmt else None
    return found or (name,)


def _sonic(item: CatalogItem, data: list, k: int) -> tuple[str | tuple[str, int], ...] | None:
    """``EthernetK`` → the port (or breakout lanes) whose SerDes lanes hold ``k``."""
    lanes = CAGE_LANES.get(data[0].kind.cage, 1)
    index, offset = divmod(k, lanes)
    if index >= len(data):
        return None
    port = data[index]
    if offset == 0:
        return (port.name, f"{port.name}/1")
    out: list[str | tuple[str, int]] = []
    for ways in breakout_ways(item, port):
        step = lanes // ways if lanes >= ways else 0
        if step and offset % step == 0:
            out.append((f"{port.name}/{offset // step + 1}", ways))
    return tuple(out) or None
