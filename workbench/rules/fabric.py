"""Fabric rules: ports that exist and carry one cable, links both ends can run, one MTU
per plane, every GPU server on the compute plane, and a non-blocking compute fabric.

The decisions are made elsewhere and only turned into findings here: port compatibility
in :mod:`workbench.model.ports`, a plane's tiers in :mod:`workbench.calc.fabric.planes`, the
MTU and oversubscription figures in :mod:`workbench.calc.fabric.analysis`.

They must stay fast on a 100,000-GPU design (300,000 links), because the Checks view
re-runs them after edits:

* FABRIC-PORT is a device rule: an edit of a link re-checks the two devices at its
  ends, not the fabric.  A problem between two ports is reported once, under the
  link's ``a`` end, quoting the ``b`` end's name and reading its item: a rename or a
  new catalog snapshot of the ``b`` end re-checks the devices whose findings name it
  (``quotes_others``), not every device cabled to it; a new snapshot of an item also
  asks the ``a`` ends of its devices' links about those links alone (one that had no
  finding may have one now).  A device with no finding that only lost links keeps none, and
  one that only gained links is asked about those (``relinked``), so removing a node
  and its undo do not re-read its switches' 289 links each.  A full check asks it only
  about the devices :mod:`workbench.rules.port_suspects` finds suspect in one pass
  over all the links.
* FABRIC-UNCABLED is a device rule: it reads each GPU server's own links, stopping at
  the first compute one, so a server dropped, removed or re-cabled re-checks that
  server (and the devices at its links' far ends), not the plane.  Only whether the
  design has a compute fabric at all is design-wide: re-checked everywhere when a
  network or catalog type changes, or while the design has no compute network.
* FABRIC-OVERSUB reads the whole compute plane (a few hundred milliseconds at 100,000
  GPUs) and so re-runs on cabling, network and catalog-item edits only, not on every
  device edit or move (a replaced item can make a server no host, or change the
  plane's tiers, with no link touched); its tier figures are
  kept by cabling with the step-time model's (:func:`~workbench.calc.design_hardware.
  compute_plane`), so a cabling edit builds the plane's graph once, not twice.
* FABRIC-MTU reads the design's few networks.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from operator import itemgetter
from typing import cast

from workbench.calc.design_hardware import compute_plane
from workbench.calc.fabric.analysis import MTU_SOURCE, mtu_problems
from workbench.calc.fabric.planes import link_plane, network_planes, plane_structure, tier_name
from workbench.calc.steps import chunks, drain
from workbench.catalog.item import CatalogItem, is_gpu_server
from workbench.model import Change, Design, Device, Link
from workbench.model.design import PLANES
from workbench.model.ports import link_problem, ports_of, split_lane
from workbench.rules import port_suspects as suspect_pass
from workbench.rules.context import RuleContext
from workbench.rules.port_suspects import port_suspects, port_suspects_in_steps
from workbench.rules.registry import KINDS, Finding, Rule, Severity, rule

#: A network edit should re-run the plane rules; the engine offers the kind once it
#: knows it (``Change.networks``), until then a full check does.
_NETWORKS = frozenset({"network"}) & KINDS


def _name(design: Design, device_id: str) -> str:
    found = design.index.devices.get(device_id)
    return found[1].name if found is not None else device_id


@rule(
    "FABRIC-PORT",
    title="A link on a port that is missing, taken or incompatible",
    severity=Severity.ERROR,
    scope="device",
    looks_at={"device", "link"},
    source=(
        "a port or breakout lane takes one cable; the ports' NetBox interface types set "
        "the speeds, cages and breakouts a link may use (workbench.model.ports)"
    ),
    suspects=lambda ctx: port_suspects(ctx.design),
    suspects_in_steps=lambda ctx: port_suspects_in_steps(ctx.design, suspect_pass.STEP_LINKS),
    relinked=lambda ctx, me, device, links: _port_findings(ctx, me, device, links),
    quotes_others=True,
)
def fabric_port(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    return _port_findings(ctx, me, device)


def _port_findings(
    ctx: RuleContext, me: Rule, device: Device, only: AbstractSet[str] | None = None
) -> Iterator[Finding]:
    """The device's port findings; with ``only``, those of a device that had none once
    the links ``only`` came to it (:attr:`~workbench.rules.registry.Rule.relinked`): the
    links themselves, and the ports they share (every link on such a port is counted),
    in the order the whole check gives them."""
    design = ctx.design
    index = design.index
    link_ids = index.device_links.get(device.id)
    if not link_ids:
        return
    item = design.device_types.get(device.device_type)
    if item is None:
        return  # CATALOG-MISSING says so
    names = _port_names(ctx, item)
    tables = _tables(ctx)
    devices, types = index.devices, design.device_types
    # Whether two ends can be cabled depends on the items, the port types, the lanes and
    # the speed, not on the port names: asked once per combination while the items stand.
    fits = tables.fits
    taken: dict[str, list[tuple[int | None, str]]] = {}
    me_id = device.id
    shared = None if only is None else _own_physical_ports(names, index.links, me_id, only)
    # One pass over the device's links reading only its own ends (a tuple of them, no
    # list of (port, peer, peer port) per link), the table read once, its links looked
    # up in one call: a removal at 100,000 GPUs re-checks eight leaf switches of 289
    # links each.
    pairs: Iterable[tuple[str, Link]]
    if shared is None:
        ordered = sorted(link_ids)
        pairs = zip(ordered, index.links_named(ordered), strict=True)
    else:  # picked first, then put in order: a few of a leaf's 289 links are sorted
        listed = list(link_ids)
        looked_up = zip(listed, index.links_named(listed), strict=True)
        pairs = sorted(_on_ports(looked_up, names, me_id, only, shared), key=itemgetter(0))
    for link_id, link in pairs:
        mine = link.a_device == me_id
        if mine:  # its own end, or both: a loop back to itself
            own = (link.a_port, link.b_port) if link.b_device == me_id else (link.a_port,)
        else:
            own = (link.b_port,)
        read = only is None or link_id in only
        for port in own:
            physical, lane, kind = names[port]
            if kind is None:
                if read:
                    yield _no_port(me, design, device, item, link, port)
            elif shared is not None and physical not in shared:
                continue
            elif (uses := taken.get(physical)) is None:
                taken[physical] = [(lane, link_id)]
            else:
                uses.append((lane, link_id))
        if not mine or not read:
            continue
        placed = devices.get(link.b_device)
        peer = types.get(placed[1].device_type) if placed is not None else None
        if peer is None:
            continue
        peer_names = tables.get(peer.slug)
        if peer_names is None or peer_names.item is not peer:
            peer_names = _port_names(ctx, peer)
        _a, a_lane, a_kind = names[link.a_port]
        _b, b_lane, b_kind = peer_names[link.b_port]
        if a_kind is None or b_kind is None:
            continue  # a missing port is its own finding, on its own device
        key = (item.slug, a_kind, a_lane, peer.slug, b_kind, b_lane, link.speed_gbps)
        fine = fits.get(key)
        if fine is None:
            problem = link_problem(item, link.a_port, peer, link.b_port, link.speed_gbps)
            fine = fits[key] = problem is None
        if fine:
            continue
        problem = link_problem(item, link.a_port, peer, link.b_port, link.speed_gbps)
        speed = f" at {link.speed_gbps:g}G" if link.speed_gbps is not None else ""
        yield me.finding(
            f"{device.name} {link.a_port} – {_name(design, link.b_device)} {link.b_port}"
            f"{speed} (link {link.id}): {problem}.",
            device.id,
            link.b_device,
            link.id,
        )
    for physical, uses in taken.items():
        if len(uses) < 2:
            continue
        # A switch's split ports carry one cable per lane: ~1,000 such ports are read
        # after a node at 100,000 GPUs is removed, so the clean case is told here, not
        # by building the message's pieces (what _doubled finds None for).
        lanes = {lane for lane, _link in uses}
        if None in lanes or len(lanes) < len(uses):
            found = _doubled(device, physical, uses)
            if found is not None:
                yield me.finding(found, device.id, *(link_id for _lane, link_id in uses))


def _on_ports(
    pairs: Iterable[tuple[str, Link]],
    names: _PortNames,
    device_id: str,
    only: AbstractSet[str] | None,
    shared: AbstractSet[str],
) -> list[tuple[str, Link]]:
    """The (id, link) of ``pairs`` that :func:`_port_findings` reads for a device asked
    about the links ``only`` alone: those, and the links with an end of the device on
    one of the ``shared`` physical ports; the others give nothing there.  Picked in one
    comprehension rather than the loop's branches per link: a leaf switch that gets one
    link back has 288 others (~1 us each less at 100,000 GPUs)."""
    keep = only or frozenset()
    return [
        (link_id, link)
        for link_id, link in pairs
        if link_id in keep
        or (link.a_device == device_id and names[link.a_port][0] in shared)
        or (link.b_device == device_id and names[link.b_port][0] in shared)
    ]


def _own_physical_ports(
    names: _PortNames, links: Mapping[str, Link], device_id: str, link_ids: AbstractSet[str]
) -> set[str]:
    """The physical ports of the device that the links ``link_ids`` end on."""
    ports = set()
    for link_id in link_ids:
        link = links[link_id]
        if link.a_device == device_id:
            ports.add(names[link.a_port][0])
        if link.b_device == device_id:
            ports.add(names[link.b_port][0])
    return ports


def _no_port(
    me: Rule, design: Design, device: Device, item: CatalogItem, link: Link, port: str
) -> Finding:
    """The finding for ``link``'s end on ``device`` at ``port``, a port its item lacks
    (the a end when it is the device's and named ``port``; for a loop back to the
    device on one port both ends read the same)."""
    a_end = link.a_device == device.id and port == link.a_port
    other, other_port = (link.b_device, link.b_port) if a_end else (link.a_device, link.a_port)
    return me.finding(
        f"{device.name} ({item.model}) has no port {port!r}: link {link.id} to "
        f"{_name(design, other)} {other_port}.",
        device.id,
        other,
        link.id,
    )


class _PortNames(dict[str, tuple[str, "int | None", "str | None"]]):
    """Port name → (physical port, lane, the port's NetBox type; None when the item has
    no such port), for one item, filled on first look-up: a 300,000-link check asks it
    600,000 times."""

    def __init__(self, item: CatalogItem):
        super().__init__()
        self.item = item
        self.types = {p.name: p.kind.type for p in ports_of(item)}

    def __missing__(self, name: str) -> tuple[str, int | None, str | None]:
        physical, lane = split_lane(name)
        found = self[name] = (physical, lane, self.types.get(physical))
        return found


class _Tables(dict[str, _PortNames]):
    """Item slug → its :class:`_PortNames`, and whether two ends fit (keyed by slugs,
    port types, lanes and speed), kept per catalog snapshot (:meth:`RuleContext.
    by_types`): a removal or its undo at 100,000 GPUs re-read ~380 port names after
    every edit.  Both hold only while each slug's item is the one its table was made
    of: :func:`_port_names` starts them afresh when it meets another."""

    def __init__(self) -> None:
        super().__init__()
        self.fits: dict[tuple[object, ...], bool] = {}


def _tables(ctx: RuleContext) -> _Tables:
    return cast(_Tables, ctx.by_types("fabric-port-names", _Tables))


def _port_names(ctx: RuleContext, item: CatalogItem) -> _PortNames:
    tables = _tables(ctx)
    table = tables.get(item.slug)
    if table is None or table.item is not item:
        if table is not None:  # another item under a known slug: nothing read holds
            tables.clear()
            tables.fits.clear()
        table = tables[item.slug] = _PortNames(item)
    return table


def _doubled(device: Device, physical: str, uses: list[tuple[int | None, str]]) -> str | None:
    """What is wrong with the several links on one physical port, or None (the lanes of
    one split, each once)."""
    lanes = [lane for lane, _link in uses]
    whole = lanes.count(None)
    doubled = sorted({lane for lane in lanes if lane is not None and lanes.count(lane) > 1})
    if whole > 1:
        what = f"{physical} is cabled {whole} times"
    elif whole == 1:
        what = f"{physical} is cabled whole and also split into lanes"
    elif doubled:
        what = ", ".join(f"{physical}/{lane}" for lane in doubled) + " cabled twice"
    else:
        return None
    link_list = ", ".join(link_id for _lane, link_id in uses)
    return f"{device.name}: {what} (links {link_list})."


@rule(
    "FABRIC-MTU",
    title="A plane's networks disagree on the MTU",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"design"} | _NETWORKS,
    source=MTU_SOURCE,
)
def fabric_mtu(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    for plane in PLANES:
        for problem in mtu_problems(design, plane):
            yield me.finding(problem.message, problem.network_id)


def _planes(ctx: RuleContext) -> dict[str, str]:
    """Network id → plane, once per check."""
    return cast(dict[str, str], ctx.memo("network-planes", "", lambda: network_planes(ctx.design)))


def _on_compute_plane(ctx: RuleContext, device_id: str) -> bool:
    """Whether one of the device's own links is on the compute plane (a link's plane as
    :func:`~workbench.calc.fabric.planes.plane_structures` files it)."""
    design = ctx.design
    index, planes = design.index, _planes(ctx)
    for link_id in index.device_links.get(device_id, ()):
        link = index.links.get(link_id)
        if link is not None and link_plane(design, link, planes) == "compute":
            return True
    return False


def _has_compute_fabric(ctx: RuleContext) -> bool:
    """A compute network, or a GPU server cabled onto the compute plane: until then
    there is no fabric to be missing from."""

    def compute() -> bool:
        if "compute" in _planes(ctx).values():
            return True
        types = ctx.design.device_types
        return any(
            is_gpu_server(types.get(device.device_type)) and _on_compute_plane(ctx, device.id)
            for _rack, device in ctx.design.iter_devices()
        )

    return bool(ctx.memo("has-compute-fabric", "", compute))


def compute_fabric_may_appear(design: Design, change: Change) -> bool:
    """Whether ``change`` can decide if the design has a compute fabric at all
    (:func:`_has_compute_fabric`), which every GPU server's FABRIC-UNCABLED verdict
    reads: networks or catalog types changed, or the design has no compute network,
    so a cabling or device edit may be the one that cables the first server."""
    if change.everything or change.networks or change.types or change.design:
        return True
    if not (change.links or change.devices or change.racks):
        return False
    return all(network.plane != "compute" for network in design.networks)


#: Links read per step by :func:`_uncabled_suspects_in_steps` (~3 ms at 100,000 GPUs;
#: a quarter as many devices, which cost four times as much each).
STEP_ITEMS = 10_000


def _uncabled_suspects_in_steps(
    ctx: RuleContext, chunk: int | None
) -> Generator[None, None, frozenset[str]]:
    """For a full check: the GPU servers at no end of a compute-plane link, off the
    plane's structure the full check reads anyway (kept by cabling); ``chunk`` links,
    then devices, per step (None: all in one), so the window's first check does not
    block input for the whole walk (~30 ms at 100,000 GPUs)."""
    design = ctx.design
    links = plane_structure(design, "compute").links
    ends: set[str] = set()
    for n, run in enumerate(chunks(links, chunk)):
        if n:
            yield
        ends.update([link.a_device for link in run])
        ends.update([link.b_device for link in run])
    types = design.device_types
    found: set[str] = set()
    for placed in chunks(list(design.index.devices.items()), chunk and max(1, chunk // 4)):
        if chunk:
            yield
        found.update(
            device_id
            for device_id, (_rack, device) in placed
            if device_id not in ends and is_gpu_server(types.get(device.device_type))
        )
    if found and chunk:
        # The rule reads each suspect's links: the index's link tables, built in steps.
        yield from design.index.link_tables_in_steps(chunk)
    return frozenset(found)


@rule(
    "FABRIC-UNCABLED",
    title="A GPU server is not on the compute fabric",
    severity=Severity.WARNING,
    scope="device",
    looks_at={"device", "link", "design"} | _NETWORKS,
    everywhere=compute_fabric_may_appear,
    suspects=lambda ctx: drain(_uncabled_suspects_in_steps(ctx, None)),
    suspects_in_steps=lambda ctx: _uncabled_suspects_in_steps(ctx, STEP_ITEMS),
    source=(
        "domain brief §3: the compute (parameter) plane carries gradient sync at "
        "≥ 200 Gb/s per GPU rail, GPU i of every node on rail leaf i"
    ),
)
def fabric_uncabled(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    if not is_gpu_server(ctx.design.device_types.get(device.device_type)):
        return
    if _on_compute_plane(ctx, device.id) or not _has_compute_fabric(ctx):
        return
    yield me.finding(
        f"{device.name} has no link on the compute plane: its GPUs cannot take part "
        "in collectives with the rest of the cluster.",
        device.id,
    )


@rule(
    "FABRIC-OVERSUB",
    title="The compute fabric is oversubscribed",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"link", "device", "design"} | _NETWORKS,
    depends=lambda _design, change: bool(
        change.links or change.networks or change.types or change.design
    ),
    source=(
        "domain brief §3: oversubscription = downlink / uplink bandwidth, 1:1 is "
        "non-blocking; ring all-reduce moves 2(n−1)/n × the gradient bytes per GPU "
        "every step, across every tier"
    ),
)
def fabric_oversub(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    if plane_structure(design, "compute").depth < 2:
        return
    for tier in compute_plane(design).tiers:
        if tier.ratio is None or tier.ratio <= 1 + 1e-9:
            continue
        worst = ""
        if tier.worst_switch is not None and tier.worst_ratio is not None:
            worst = f"; worst {_name(design, tier.worst_switch)} at {tier.worst_ratio:.2f}:1"
        yield me.finding(
            f"Compute plane {tier_name(tier.tier)} tier is oversubscribed {tier.ratio:.2f}:1 "
            f"({tier.down_gbps / 1000:,.1f} Tb/s down, {tier.up_gbps / 1000:,.1f} Tb/s up"
            f"{worst}). Data-parallel all-reduce sends every GPU's gradients through every "
            f"tier each step, so a cluster-wide collective gets at most "
            f"{100 / tier.ratio:.0f} % of the hosts' bandwidth through this tier.",
            tier.worst_switch or "compute",
        )
