"""The IP plan: one subnet per network, one address per device interface on it.

Who gets an address (the rules a planner can check by eye):

- every end of a link on a network whose device is *not a switch* gets one address for
  that port (a GPU node's eight compute rails get eight compute addresses); a switch's
  fabric ports are not host addresses, so switch-to-switch links add none;
- on the management and OOB planes a switch's end is addressed too when its port is a
  management-only interface of its catalog item (the switch's own mgmt port);
- on the OOB plane every device whose catalog item has a management-only (BMC)
  interface gets an address on it even before it is cabled, so the BMC plan exists
  from the first rack layout (on the plane's first network when there are several).

Where each subnet comes from, first match wins:

1. ``cidrs[network_id]``: the caller names the subnet of one network;
2. the network's own ``subnet`` field (what the inspector sets);
3. the plane's pool, ``cidrs[plane]`` or :data:`DEFAULT_POOLS`, split into equal
   aligned parts, one per network of the plane without a subnet of its own (in
   design order).  Splitting the pool rather than sizing each subnet to its hosts
   keeps addresses stable when nodes are added later.  When a design outgrows the
   default pools (they hold 32,768 eight-GPU nodes), every default pool is sized to
   its plane instead (:func:`sized_pools`: the smallest aligned block, never smaller
   than the default, whose parts hold each network's hosts and gateway), laid out one
   after another in 10.0.0.0/8: a 1,000,000-GPU design gets a /12 for compute.

The first usable address of each subnet is its gateway; hosts follow in design order
(site, row, rack, device; ports in catalog order), so the same design always gets the
same plan.  A subnet too small for its hosts is an :class:`ExportError` naming the
subnet, the addresses needed and those it holds; overlapping subnets are refused too.
VLANs: the network's ``vlan`` when set, else :data:`DEFAULT_VLANS` of its plane plus its
index there (InfiniBand has partitions, not VLANs: none).

Addresses are kept as integers and formatted once, so a 12,500-node design (about
220,000 addresses) plans in well under a second.
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from workbench.export.output import ExportError, Progress, no_progress
from workbench.model.design import PLANES, Design, Network

#: The pool each plane's networks are carved from when they have no subnet of their
#: own: room for 32,768 nodes with eight compute rails, two storage ports each.
DEFAULT_POOLS: dict[str, str] = {
    "compute": "10.0.0.0/14",
    "storage": "10.4.0.0/15",
    "management": "10.6.0.0/16",
    "oob": "10.7.0.0/16",
}

#: The first VLAN id of each plane's Ethernet networks when the design sets none.
DEFAULT_VLANS: dict[str, int] = {"compute": 100, "storage": 200, "management": 10, "oob": 20}

#: Planes where a switch's own management port is a host too.
_SWITCH_HOST_PLANES = frozenset({"management", "oob"})

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Subnet:
    """One network's subnet: where it came from, its gateway and how full it is."""

    network_id: str
    network_name: str
    plane: str
    technology: str
    vlan: int | None
    cidr: str
    gateway: str
    #: Host addresses given out (the gateway not counted).
    used: int
    #: Host addresses the subnet holds besides its gateway.
    capacity: int
    #: ``cidrs option``, ``network subnet`` or ``plane pool``.
    origin: str


@dataclass(frozen=True)
class Address:
    """One interface's address."""

    device_id: str
    device_name: str
    rack_name: str
    network_id: str
    plane: str
    port: str
    address: str
    prefix_len: int


@dataclass
class IpPlan:
    """Subnets and addresses; look-ups by device for the inventory and the checklist."""

    subnets: list[Subnet] = field(default_factory=list)
    addresses: list[Address] = field(default_factory=list)
    _by_device: dict[tuple[str, str], list[Address]] = field(default_factory=dict, repr=False)

    def _add(self, address: Address) -> None:
        self.addresses.append(address)
        self._by_device.setdefault((address.device_id, address.plane), []).append(address)

    def address_of(self, device_id: str, plane: str) -> str | None:
        """The device's first address on ``plane`` (its BMC's on ``oob``), or None.

        "First" is the lowest port in catalog order, which on management and OOB planes
        is the only one; use :meth:`addresses_of` for every rail of a compute node.
        """
        found = self._by_device.get((device_id, plane))
        return found[0].address if found else None

    def addresses_of(self, device_id: str, plane: str) -> list[Address]:
        """Every address of the device on ``plane``, in port order (empty: none)."""
        return list(self._by_device.get((device_id, plane), ()))


def _formatter(net: IpNetwork):
    """Integer → address text; IPv4 by hand (five times faster than ``str(IPv4Address)``)."""
    if net.version == 4:
        return lambda a: f"{a >> 24}.{(a >> 16) & 255}.{(a >> 8) & 255}.{a & 255}"
    return lambda a: str(ipaddress.IPv6Address(a))


def _fail(where: str | os.PathLike[str], reason: str) -> ExportError:
    return ExportError(where, reason)


def _parse(text: str, what: str, where: str | os.PathLike[str]) -> IpNetwork:
    try:
        return ipaddress.ip_network(text.strip(), strict=True)
    except ValueError as exc:
        raise _fail(where, f"{what}: {text!r} is not a subnet in CIDR form ({exc})") from None


def _hosts_per_network(design: Design, networks: list[Network]) -> dict[str, list[tuple[str, str]]]:
    """network id → [(device_id, port)] in design order (see the module docstring)."""
    plane_of = {n.id: n.plane for n in networks}
    # Per catalog slug, once: (is a switch, its management-only ports, BMC port, rank).
    kinds: dict[str, tuple[bool, frozenset[str], str | None, dict[str, int]]] = {}
    for slug, item in design.device_types.items():
        mgmt = frozenset(i.name for i in item.interfaces if i.mgmt_only)
        bmc = next((i.name for i in item.interfaces if i.mgmt_only), None)
        if item.kind in ("switch", "pdu"):
            bmc = None
        rank = {i.name: k for k, i in enumerate(item.interfaces)}
        kinds[slug] = (item.kind == "switch", mgmt, bmc, rank)
    slug_of = {d.id: d.device_type for _r, d in design.iter_devices()}
    wanted: dict[str, dict[str, set[str]]] = {n.id: {} for n in networks}
    switch_planes = {nid for nid, plane in plane_of.items() if plane in _SWITCH_HOST_PLANES}

    for link in design.links:
        network_id = link.network
        if network_id not in wanted:
            continue
        for device_id, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
            end_slug = slug_of.get(device_id)
            if end_slug is None:
                continue  # a link to a device that is gone: the rules report it
            info = kinds.get(end_slug)
            if info is not None and info[0] and (network_id not in switch_planes
                                                 or port not in info[1]):  # fmt: skip
                continue  # a switch's fabric port is not a host address
            wanted[network_id].setdefault(device_id, set()).add(port)
    oob_ids = [n.id for n in networks if n.plane == "oob"]
    if oob_ids:
        for device_id, slug in slug_of.items():
            bmc = kinds[slug][2] if slug in kinds else None
            if bmc is not None and not any(bmc in wanted[o].get(device_id, ()) for o in oob_ids):
                wanted[oob_ids[0]].setdefault(device_id, set()).add(bmc)
    result: dict[str, list[tuple[str, str]]] = {n.id: [] for n in networks}
    no_rank: dict[str, int] = {}
    for device_id, slug in slug_of.items():
        rank = kinds[slug][3] if slug in kinds else no_rank
        for network_id, by_device in wanted.items():
            found = by_device.get(device_id)
            if found:
                ports = sorted(found, key=lambda p: (rank.get(p.split("/")[0], 1 << 20), p))
                for port in ports:
                    result[network_id].append((device_id, port))
    return result


def _vlans(networks: list[Network]) -> dict[str, int | None]:
    taken = {n.vlan for n in networks if n.vlan is not None}
    result: dict[str, int | None] = {}
    next_free = dict(DEFAULT_VLANS)
    for n in networks:
        if n.vlan is not None:
            result[n.id] = n.vlan
        elif n.technology == "infiniband" or n.plane not in next_free:
            result[n.id] = None
        else:
            while next_free[n.plane] in taken:
                next_free[n.plane] += 1
            result[n.id] = next_free[n.plane]
            taken.add(next_free[n.plane])
    return result


#: Where the default pools are laid out when a design outgrows them.
SIZED_POOLS_IN = "10.0.0.0/8"


def _split_bits(members: int) -> int:
    """Prefix bits that split a pool into ``members`` equal parts."""
    return math.ceil(math.log2(members)) if members > 1 else 0


def sized_pools(
    needs: Mapping[str, list[int]], taken: Iterable[IpNetwork] = ()
) -> dict[str, ipaddress.IPv4Network] | None:
    """Plane → a pool big enough for its networks, or None when the default pools
    already are (they are then kept, so existing plans do not move).

    ``needs``: plane → the addresses each of its pooled networks needs (hosts, the
    gateway, network and broadcast).  Each pool is at least its default size, holds
    its networks as equal parts, and starts at the next aligned address of
    :data:`SIZED_POOLS_IN` after the pools before it (in plane order), past any subnet
    in ``taken``; ValueError when 10.0.0.0/8 cannot hold them all."""
    prefixes: dict[str, int] = {}
    outgrown = False
    for plane, counts in needs.items():
        default = ipaddress.IPv4Network(DEFAULT_POOLS[plane])
        part = 32 - math.ceil(math.log2(max(max(counts, default=1), 4)))
        prefix = min(default.prefixlen, part - _split_bits(len(counts)))
        outgrown = outgrown or prefix < default.prefixlen
        prefixes[plane] = prefix
    if not outgrown:
        return None
    space = ipaddress.IPv4Network(SIZED_POOLS_IN)
    end = int(space.broadcast_address)
    blocked = [(int(n.network_address), int(n.broadcast_address)) for n in taken if n.version == 4]
    start = int(space.network_address)
    pools: dict[str, ipaddress.IPv4Network] = {}
    for plane in PLANES:
        if plane not in prefixes:
            continue
        size = 1 << (32 - prefixes[plane])
        while True:
            start = -(-start // size) * size  # aligned
            clash = [hi for lo, hi in blocked if lo <= start + size - 1 and start <= hi]
            if not clash:
                break
            start = max(clash) + 1
        if start + size - 1 > end:
            raise ValueError(
                f"the design's {', '.join(prefixes)} networks need more addresses than "
                f"{SIZED_POOLS_IN} holds; give each plane a pool (cidrs)"
            )
        pools[plane] = ipaddress.IPv4Network((start, prefixes[plane]))
        start += size
    return pools


def _subnets(
    design: Design,
    cidrs: Mapping[str, str],
    where: str | os.PathLike[str],
    hosts: Mapping[str, list[tuple[str, str]]] | None = None,
) -> dict[str, tuple[IpNetwork, str]]:
    """network id → (subnet, origin); ExportError for bad text, unknown keys, overlaps.
    ``hosts`` (network id → its hosts) lets default pools grow with the design."""
    network_ids = {n.id for n in design.networks}
    for key in cidrs:
        if key not in network_ids and key not in PLANES:
            raise _fail(where, f"cidrs option {key!r} names neither a plane nor a network")
    chosen: dict[str, tuple[IpNetwork, str]] = {}
    pooled: dict[str, list[Network]] = {}
    for n in design.networks:
        if n.id in cidrs:
            chosen[n.id] = (_parse(cidrs[n.id], f"cidrs option {n.id!r}", where), "cidrs option")
        elif n.subnet.strip():
            chosen[n.id] = (_parse(n.subnet, f"subnet of network {n.name!r}", where),
                            "network subnet")  # fmt: skip
        else:
            pooled.setdefault(n.plane, []).append(n)
    # Default pools the hosts have outgrown are sized to the design (sized_pools).
    counted = hosts if hosts is not None else {}
    needs = {
        plane: [len(counted.get(m.id, ())) + 3 for m in members]
        for plane, members in pooled.items()
        if plane not in cidrs and plane in DEFAULT_POOLS
    }
    try:
        grown = sized_pools(needs, (net for net, _o in chosen.values())) if hosts else None
    except ValueError as exc:
        raise _fail(where, str(exc)) from None
    for plane, members in pooled.items():
        text = cidrs.get(plane, DEFAULT_POOLS.get(plane, ""))
        if grown is not None and plane in grown:
            text = str(grown[plane])
        if not text:
            raise _fail(where, f"no address pool for plane {plane!r}: give cidrs[{plane!r}]")
        pool = _parse(text, f"pool of plane {plane!r}", where)
        bits = _split_bits(len(members))
        if pool.prefixlen + bits > pool.max_prefixlen - 2:
            raise _fail(where, f"pool {pool} of plane {plane!r} cannot be split "
                               f"into {len(members)} subnets")  # fmt: skip
        for member, part in zip(members, pool.subnets(prefixlen_diff=bits), strict=False):
            chosen[member.id] = (part, "plane pool")  # type: ignore[assignment]
    nets = sorted(((net, nid) for nid, (net, _o) in chosen.items()),
                  key=lambda p: (p[0].version, int(p[0].network_address)))  # fmt: skip
    names = {n.id: n.name for n in design.networks}
    for (a, a_id), (b, b_id) in zip(nets, nets[1:], strict=False):
        if a.version == b.version and a.overlaps(b):
            raise _fail(where, f"subnet {a} of network {names[a_id]!r} overlaps subnet {b} "
                               f"of network {names[b_id]!r}")  # fmt: skip
    return chosen


def plan_addresses(
    design: Design,
    cidrs: Mapping[str, str] | None = None,
    *,
    where: str | os.PathLike[str] = "IP plan",
) -> IpPlan:
    """The design's IP plan (see the module docstring); ExportError naming ``where``
    (the export's target) for a bad or overlapping subnet or one too small."""
    networks = list(design.networks)
    hosts = _hosts_per_network(design, networks)
    subnets = _subnets(design, dict(cidrs or {}), where, hosts)
    vlans = _vlans(networks)
    placed = {d.id: (r.name, d.name) for r, d in design.iter_devices()}
    plan = IpPlan()
    for n in networks:
        net, origin = subnets[n.id]
        wanted = hosts[n.id]
        # Network and broadcast addresses (IPv4) and the gateway are not for hosts.
        reserved = 3 if net.version == 4 else 2
        capacity = max(net.num_addresses - reserved, 0)
        if len(wanted) > capacity:
            raise _fail(where, f"subnet {net} of network {n.name!r} ({n.plane}) needs "
                               f"{len(wanted)} host addresses and a gateway but holds "
                               f"{capacity} hosts besides its gateway")  # fmt: skip
        make = _formatter(net)
        base = int(net.network_address) + 1
        plan.subnets.append(
            Subnet(n.id, n.name, n.plane, n.technology, vlans[n.id], str(net), make(base),
                   len(wanted), capacity, origin)
        )  # fmt: skip
        for k, (device_id, port) in enumerate(wanted, start=1):
            rack_name, device_name = placed[device_id]
            plan._add(Address(device_id, device_name, rack_name, n.id, n.plane, port,
                              make(base + k), net.prefixlen))  # fmt: skip
    return plan


def _subnet_rows(plan: IpPlan) -> Iterable[list[object]]:
    for s in plan.subnets:
        yield [s.plane, s.network_name, s.technology, s.vlan, s.cidr, s.gateway, s.used,
               s.capacity, s.origin]  # fmt: skip


SUBNET_HEADERS = ["Plane", "Network", "Technology", "VLAN", "Subnet", "Gateway",
                  "Addresses used", "Host capacity", "From"]  # fmt: skip
ADDRESS_HEADERS = ["Rack", "Device", "Plane", "Network", "Port", "Address", "Prefix"]


def write_ip_plan(
    design: Design,
    target: Path,
    *,
    progress: Progress = no_progress,
    cidrs: Mapping[str, str] | None = None,
) -> Path:
    """Write the IP plan workbook (sheets ``Subnets`` and ``Addresses``) to ``target``.

    The plan is made first, so an exhausted or overlapping subnet is reported before
    anything is written.
    """
    from workbench.export import xlsx_common as xc  # openpyxl costs 0.2 s: import on use

    plan = plan_addresses(design, cidrs, where=target)
    names = {n.id: n.name for n in design.networks}
    total = max(len(plan.addresses), 1)

    def fill(book: xc.Book) -> None:
        sheet = book.sheet("Subnets", [xc.Column(t) for t in SUBNET_HEADERS])
        for row in _subnet_rows(plan):
            sheet.append(row)
        sheet = book.sheet("Addresses", [xc.Column(t) for t in ADDRESS_HEADERS])
        tick = xc.every(5000, total, progress, "Addresses", span=0.95)
        for k, a in enumerate(plan.addresses, 1):
            sheet.append([a.rack_name, a.device_name, a.plane, names[a.network_id], a.port,
                          a.address, a.prefix_len])  # fmt: skip
            tick(k)

    return xc.write_workbook(target, fill, progress)
