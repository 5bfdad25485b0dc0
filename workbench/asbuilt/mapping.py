"""From a capture's names to the design's: which device, which catalog port.

**Devices** are matched by name, the way hosts and switches name themselves (host
name, LLDP system name, IB node description): exactly, else ignoring case, else by the
short name (``leaf01.example.com`` is ``leaf01``).  A name the design does not hold is
kept as it is and can only be part of an "unexpected" link.

**Ports** are the capture's interface names turned into the catalog item's interface
names (the design's link ends), in this order:

1. a name the item has (``swp1``, ``compute0``, ``swp1/2`` for a breakout lane) is taken
   as it is; so are hosts whose NICs were renamed after the plan;
2. ``swpN`` (Cumulus) and ``etpN`` (SONiC's alias) are the item's N-th data port, in
   catalog order, so an item whose ports are called ``p1``.. or ``eth1``.. maps the
   same; a breakout lane ``swpNsL`` (Cumulus, 0-based) or ``etpNa``.. is lane ``L+1``
   (``a`` = 1) of it.  ``N`` (an InfiniBand switch port number, from ibnetdiscover) is
   the N-th data port too, unless the switch numbers its split ports (see
   :func:`ib_split_ways` for how, and what the sources say);
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
        self._cache: dict[tuple[str, str, int], Candidates] = {}

    def candidates(self, item: CatalogItem | None, name: str, split: int = 1) -> Candidates:
        """The catalog names ``name`` may mean on ``item``, most likely first, each with
        the breakout it implies (None: none or any); ``((UNKNOWN, None),)`` for a host
        port that cannot be placed.  ``split`` is how many numbers an InfiniBand switch
        gives each of its ports (:func:`ib_split_ways`; 1: one each, as in the catalog)."""
        if item is None:
            return ((name, None),)
        key = (item.slug, name, split)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = _candidates(item, name, split)
        return found


def ib_port_number(port: str) -> int:
    """An ibnetdiscover switch port's number (``17`` → 17); 0 for any other name."""
    return int(port) if port.isdigit() and len(port) < 6 else 0


def ib_split_ways(
    item: CatalogItem | None, highest: int, designed: Callable[[], int] = lambda: 0
) -> int:
    """How many port numbers an InfiniBand switch gives each catalog port, told from
    the highest port number a capture shows on it: the fewest ways its ports break out
    into that cover it when it is beyond the item's data ports (0: none do); else
    ``designed()``, the ways the design splits every port it uses on the switch (0: it
    uses a whole port, or none; asked only here, as it costs a pass over the design),
    where the ports break out so; else 1.

    How NVIDIA switches number ports, from what is public:

    * Quantum-2 (QM9700/QM9790): 32 OSFP cages of two logical NDR ports each; port
      ``N`` is cage ``ceil(N/2)``, port ``(N-1) % 2 + 1`` within it (the switch's own
      ``IB1/<cage>/<port>`` labels; the QM97X0 user manual, "Interfaces": "Each OSFP
      port consists of 2 logical InfiniBand ports"), which is the catalog's ``p1``..
      ``p64`` order, so the plain N-th port holds.  ibnetdiscover then reports
      ``Switch 65`` (the ports and port 0).
    * The same switch with its ports split (``system profile ib split-ready``, each
      NDR port into two NDR200 ports) reports ``Switch 129``: 128 numbers, each port's
      lanes numbered one after the other (a published ibnetdiscover of a split
      MQM9700 shows four NDR200 hosts at ``2xNDR`` on ports 1..4, one 2xNDR to
      4xNDR200 cable on cage 1).  So port ``N`` is lane ``(N-1) % 2 + 1`` of catalog
      port ``ceil(N/2)``.  Which number a port left whole on a split-ready switch
      keeps is not documented: its first (lane 1's) is taken.
    * Quantum-X800 (Q3400-RA, 144 ports over 72 twin-port OSFP cages, catalog
      ``p1``..``p144`` = NVOS ``sw1p1``, ``sw1p2``, ``sw2p1`` ..): public tooling shows
      each of its four ASICs as a node of its own (``NAME:Q3400_RA/U1`` .. ``/U4``)
      with every front port at one lane (``1xXDR``) per ASIC, port ``N`` being
      ``sw<ceil(N/2)>p<(N-1)%2+1>``.  How a split port is numbered there is not
      documented anywhere public: the Quantum-2 rule above is applied (note that a
      real node cannot report more than 254 ports, so a capture naming 288 comes from
      a generator, not a switch).

    The capture does not carry the node's reported port count to the matcher, so the
    split is told from the highest number seen, and where that fits the whole ports
    (a switch with only its low ports cabled) from the design: a switch the design
    uses only split is taken to be numbered split.  Where the design mixes whole and
    split ports on such a switch, :func:`_ib_numbered` still offers the lane when the
    whole port a number would name is not designed.
    """
    if item is None:
        return 1
    data = _ib_data(item)
    if not data:
        return 1
    ways_allowed = breakout_ways(item, data[0])
    if highest > len(data):
        for ways in ways_allowed:
            if highest <= ways * len(data):
                return ways
        return 0
    if not ways_allowed:
        return 1
    ways = designed()
    return ways if ways in ways_allowed else 1


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


def _candidates(item: CatalogItem, name: str, split: int = 1) -> Candidates:
    return tuple((n, None) if isinstance(n, str) else n for n in _names(item, name, split))


def ib_port_names(item: CatalogItem) -> frozenset[str]:
    """The names of a switch's InfiniBand data ports (none for anything else)."""
    return frozenset(p.name for p in _ib_data(item))


def _ib_data(item: CatalogItem) -> list:
    """A switch's InfiniBand data ports in catalog order; none for anything else."""
    if item.kind in HOST_KINDS:
        return []
    return [p for p in ports_of(item) if not p.mgmt_only and p.kind.family == "infiniband"]


def _ib_numbered(item: CatalogItem, n: int, split: int) -> tuple[str | tuple[str, int], ...]:
    """Switch port number ``n`` as catalog names (:func:`ib_split_ways` says why).

    ``split`` 1: the n-th port first, then, for a design that splits its ports, the
    lane the split numbering gives (chosen only where the design uses that lane and
    not the whole port); ``split`` above 1: that lane of port ``ceil(n/split)``, or
    the whole port for its first number."""
    data = _ib_data(item)
    out: list[str | tuple[str, int]] = []
    if split == 1 and 1 <= n <= len(data):
        out.append(data[n - 1].name)
    for ways in (split,) if split > 1 else breakout_ways(item, data[0]) if data else ():
        index, lane = divmod(n - 1, ways)
        if 0 <= index < len(data):
            out.append((f"{data[index].name}/{lane + 1}", ways))
            if split > 1 and lane == 0:
                out.append(data[index].name)
    return tuple(out)


def _names(item: CatalogItem, name: str, split: int = 1) -> tuple[str | tuple[str, int], ...]:
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
        ib = _ib_numbered(item, int(m.group(1)), split) if split >= 1 else ()
        found = ib or nth(int(m.group(1)))
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
