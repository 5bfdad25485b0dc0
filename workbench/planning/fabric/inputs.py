"""What a fabric generation starts from, read from the design: the switch models, the
plane's network, its hosts and their free ports, and the old fabric a ``replace``
takes out.  Nothing here changes the design.

* **Hosts**: every device with ports on the plane (:func:`~workbench.planning.
  fabric_ports.host_ports`: servers and storage appliances by their port names, and on
  the out-of-band plane every device's management-only port), or the devices the
  request names.  A port already cabled is left alone; each port runs at the plane's
  speed, or at its own when slower (a 100G appliance on a 200G storage plane).
* **The old fabric**: the plane's links, and the switches whose every data-port link
  is on the plane (a switch's own management port is cabled on the OOB plane, which
  does not make it serve that plane).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from itertools import chain, compress, repeat
from operator import attrgetter
from typing import Any

from workbench.calc.fabric.planes import plane_structure
from workbench.catalog.item import CatalogItem
from workbench.model import net_ops
from workbench.model.design import Design, Device, Network, Rack
from workbench.model.ports import HOST_KINDS, port_named, ports_of
from workbench.model.requests import ItemSource, lookup_item
from workbench.planning.fabric.ports import host_ports, host_speed, slots
from workbench.planning.fabric.request import FabricRequest
from workbench.planning.fabric.sizing import FabricError, SwitchOption
from workbench.planning.fabric.wiring import Host

#: A device's type and a rack's devices.
_DEVICE_TYPE = attrgetter("device_type")
_DEVICES = attrgetter("devices")
#: A link's network id (None: on no network).
_NETWORK = attrgetter("network")
#: A link's port names at each end.
_A_PORT = attrgetter("a_port")
_B_PORT = attrgetter("b_port")


def switch_item(design: Design, catalog: ItemSource | None, slug: str, option: str) -> CatalogItem:
    """The switch model ``slug`` (the design's snapshot first); FabricError naming the
    request field ``option`` when it is unknown or not a switch."""
    item = design.device_types.get(slug) or lookup_item(catalog, slug)
    if item is None:
        raise FabricError(f"{option}: the catalog has no item {slug!r}.")
    if item.kind != "switch":
        raise FabricError(f"{option}: {slug} is a {item.kind}, not a switch.")
    return item


def plane_network(
    design: Design, request: FabricRequest, leaf: CatalogItem
) -> tuple[Network, net_ops.AddNetwork | None]:
    """The network the links go on, and the edit adding it when the plane has none
    (RoCE at MTU 9000 for an Ethernet compute fabric, the plane's defaults else)."""
    if request.network_id is not None:
        found = next((n for n in design.networks if n.id == request.network_id), None)
        if found is None:
            raise FabricError(f"network_id: no network with id {request.network_id!r}.")
        if found.plane != request.plane:
            raise FabricError(
                f"network_id: {found.name!r} is on the {found.plane} plane, not {request.plane}."
            )
        return found, None
    found = next((n for n in design.networks if n.plane == request.plane), None)
    if found is not None:
        return found, None
    fields: dict[str, Any] = {}
    if request.speed_gbps:
        fields["speed_gbps"] = float(request.speed_gbps)
    family = next((p.kind.family for p in ports_of(leaf) if not p.mgmt_only), "ethernet")
    if request.plane == "compute" and family != "infiniband":
        fields.update(technology="roce", mtu=9000)
    add = net_ops.network(design, request.plane, **fields)
    return add.network, add


def has_links(design: Design, plane: str) -> bool:
    """Whether any link may be on ``plane``: one on its networks, or one on no network
    (whose plane its host port's name says).  A quick pass before the full one."""
    wanted: set[str | None] = {n.id for n in design.networks if n.plane == plane}
    wanted.add(None)
    known = design.index.link_values("network")  # kept per batch of a template's links
    if known is not None:
        return not wanted.isdisjoint(known)
    # One C-level walk that stops at the first hit: a plane not cabled yet (the OOB
    # plane while a template builds the others, asked after every try) is read to the
    # end, 4.4 million links at 1,000,000 GPUs, about four times faster than a generator.
    return not wanted.isdisjoint(map(_NETWORK, design.links))


def old_fabric(design: Design, plane: str) -> tuple[set[str], set[str]]:
    """(link ids, switch ids) a ``replace`` removes: the plane's links and the switches
    that served only it, with every link of those switches (their management port's)."""
    if not has_links(design, plane):
        return set(), set()
    structure = plane_structure(design, plane)
    link_ids = {link.id for link in structure.links}
    index = design.index
    gone: set[str] = set()
    for switch_id in structure.tiers:
        found = index.devices.get(switch_id)
        item = design.device_types.get(found[1].device_type) if found else None
        if item is None or item.kind in HOST_KINDS:
            continue
        only_here = True
        for link_id in index.device_links.get(switch_id, ()):
            link = index.links[link_id]
            port = link.a_port if link.a_device == switch_id else link.b_port
            known = port_named(item, port)
            if link_id not in link_ids and not (known is not None and known.mgmt_only):
                only_here = False
                break
        if only_here:
            gone.add(switch_id)
    for switch_id in gone:
        link_ids |= index.device_links.get(switch_id, set())
    return link_ids, gone


def plane_hosts(
    design: Design, request: FabricRequest, speed: float, gone: Collection[str] = ()
) -> list[Host]:
    """The hosts to cable and their free ports on the plane (see the module docstring);
    ``gone``: devices about to be removed."""
    index = design.index
    if request.hosts is not None:
        named: list[tuple[Rack, Device]] = []
        for host_id in request.hosts:
            found = index.devices.get(host_id)
            if found is None:
                raise FabricError(f"hosts: no device with id {host_id!r}.")
            named.append(found)
        racks, devices = [r for r, _d in named], [d for _r, d in named]
    else:
        racks, devices = _every_device(design, gone)
    # Each model and its ports on the plane first, asked once per device type in the
    # order the types first appear (so a model that cannot run at the speed, or a named
    # host with no port there, fails on the first such host in order, as it did when
    # each device was asked in turn); then the devices of the types with ports there
    # are picked out in C: 1.1 million devices at 1,000,000 GPUs, per plane.
    types = list(map(_DEVICE_TYPE, devices))
    kinds = _kinds(design, request, speed, devices, types)
    picked = list(map(kinds.__contains__, types))
    racks, devices = list(compress(racks, picked)), list(compress(devices, picked))
    types = list(compress(types, picked))
    names = {end[1] for _item, every in kinds.values() for end in every}
    used = _used_ports(design, names) if devices else {}
    limit = request.ports_per_host
    hosts: list[Host]
    if not used and limit is None:  # a fresh plane: every host, every port
        items = {slug: item for slug, (item, _every) in kinds.items()}
        ends = {slug: every for slug, (_item, every) in kinds.items()}
        hosts = list(
            map(
                Host,
                devices,
                racks,
                map(items.__getitem__, types),
                map(list, map(ends.__getitem__, types)),
            )
        )
    else:
        hosts = []
        for rack, device, slug in zip(racks, devices, types, strict=True):
            item, every = kinds[slug]
            taken = used.get(device.id)
            wanted = [end for end in every if end[1] not in taken] if taken else list(every)
            if limit is not None:
                wanted = wanted[:limit]
            if wanted:
                hosts.append(Host(device, rack, item, wanted))
    if not hosts:
        where = "every host is already cabled" if not request.replace else "no device has a port"
        raise FabricError(f"Nothing to connect on the {request.plane} plane: {where} there.")
    return hosts


def _every_device(design: Design, gone: Collection[str]) -> tuple[list[Rack], list[Device]]:
    """Every device but those ``gone``, in order, and beside each its rack (lists made
    by C-level walks: no Python step per device)."""
    in_racks = list(map(_DEVICES, design.iter_racks()))
    racks = list(chain.from_iterable(map(repeat, design.iter_racks(), map(len, in_racks))))
    devices = list(chain.from_iterable(in_racks))
    if gone:  # else no device's id is looked up (1.1 million at 1,000,000 GPUs)
        skip = set(gone)
        kept = [device.id not in skip for device in devices]
        racks, devices = list(compress(racks, kept)), list(compress(devices, kept))
    return racks, devices


def _kinds(
    design: Design,
    request: FabricRequest,
    speed: float,
    devices: list[Device],
    types: list[str],
) -> dict[str, tuple[CatalogItem, tuple[tuple[int, str, float], ...]]]:
    """device type -> its item and (rail, port, speed) ends on the plane, for the types
    of ``devices`` (whose types are ``types``) that have ports there; a model's ends read
    once, with the first device of that model."""
    per_slug: dict[str, tuple[tuple[int, str, float], ...]] = {}
    kinds: dict[str, tuple[CatalogItem, tuple[tuple[int, str, float], ...]]] = {}
    for slug in dict.fromkeys(types):
        item = design.device_types.get(slug)
        if item is None:
            continue
        device = devices[types.index(slug)]
        every = per_slug.get(item.slug)
        if every is None:
            every = per_slug[item.slug] = _host_ends(device, item, request.plane, speed)
        if every:
            kinds[slug] = (item, every)
        elif request.hosts is not None:
            raise FabricError(
                f"{device.name} ({item.label}) has no port on the {request.plane} plane."
            )
    return kinds


def _used_ports(design: Design, names: set[str]) -> dict[str, set[str]]:
    """device id → its ports named in ``names`` that a link holds already.

    A host's own ports never break out (model.ports), so a used one appears on its links
    under its own name; a link's end counts for the device it names (an end on a
    device's own other end counts once, as its ``a`` end).  The links are sifted by
    port name in C: at 1,000,000 GPUs the out-of-band plane asks with 4.4 million links
    in the design, nearly none of them on a port it cables, and reading each host's
    links one by one took about a fifth of a template's build.  While the index keeps
    the links by batch, only the batches that name such a port are sifted (a
    template's planes use other port names than those cabled before)."""
    used: defaultdict[str, set[str]] = defaultdict(set)
    links = design.links
    if not names or not links:
        return used
    index = design.index
    a_batches = index.link_batches_with("a_port", names)
    b_batches = index.link_batches_with("b_port", names)
    if a_batches is None or b_batches is None:
        a_batches = b_batches = [links]
    hit = names.__contains__
    for batch in a_batches:
        for link in compress(batch, map(hit, map(_A_PORT, batch))):
            used[link.a_device].add(link.a_port)
    for batch in b_batches:
        for link in compress(batch, map(hit, map(_B_PORT, batch))):
            if link.b_device != link.a_device:
                used[link.b_device].add(link.b_port)
    return used


def _host_ends(
    device: Device, item: CatalogItem, plane: str, speed: float
) -> tuple[tuple[int, str, float], ...]:
    """(rail, port, speed) of every port of a host model on the plane."""
    ends = []
    for rail, port in enumerate(host_ports(item, plane)):
        runs = host_speed(item, port.name, speed)
        if runs is None:
            raise FabricError(
                f"{device.name} {port.name} ({port.kind.label}) cannot run at {speed:g}G or slower."
            )
        ends.append((rail, port.name, runs))
    return tuple(ends)


def catalog_options(catalog: ItemSource | None, speed: float) -> list[SwitchOption]:
    """Catalog switches a message may suggest, with their radix at ``speed``."""
    by_kind = getattr(catalog, "by_kind", None)
    found: list[SwitchOption] = []
    for item in by_kind("switch") if callable(by_kind) else ():
        names = slots(item, speed)
        if not names:
            continue
        physical = {n.split("/")[0] for n in names}
        note = ""
        if len(physical) < len(names):
            fastest = max(p.kind.speed_gbps for p in ports_of(item) if not p.mgmt_only)
            note = f"at {speed:g}G from {len(physical)} × {fastest:g}G broken out"
        found.append(SwitchOption(item.slug, len(names), note))
    return sorted(found, key=lambda o: o.ports)
