"""The fabric generator: a request (plane, hosts, switch model, speed, oversubscription,
topology) in, one :class:`~workbench.model.ops.Batch` of switches and links out.

The dialog, the command line and the templates all call :func:`plan_fabric`; applying
its batch is one undoable edit.  The counts come from :mod:`.fabric_sizing` (closed
forms of the fat tree), the ports from :mod:`workbench.model.ports` through
:mod:`.fabric_ports`, the switches' places from :mod:`.fabric_placement`.  The wiring:

* **rail-optimized**: port ``i`` of every node of a scalable unit goes to rail leaf
  ``i`` of that unit, the ``q``-th node of the unit on the leaf's ``q``-th port;
* **leaf-spine**: host ports fill the leaves in blocks so that a node's ports land on
  different leaves (port ``i`` of ``d`` nodes on one leaf, port ``i+1`` on the next);
* **top of rack**: each rack's hosts go to the access switch placed in (or next to)
  that rack;
* above the leaves: uplink ``m`` of a leaf goes to spine ``m mod S`` (2 tiers) or to
  spine ``m`` of its pod (3 tiers); uplink ``m`` of spine ``j`` to core ``m mod C`` of
  group ``j``.  Every link gets its network and speed; cable type and length stay
  unset (measured from the hall plan later).

With ``replace`` the plane's old links go first, and the switches that served only it.
A new switch's management port joins the out-of-band plane's access switches where
they have free ports (on the OOB plane itself, each of its switches is cabled to
another of them, never to itself).  Planning applies the edits to the design and takes
them back; nothing is left changed, and a failing request raises
:class:`~workbench.planning.fabric.sizing.FabricError` before anything is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from workbench.calc.fabric.layered import PlaneLayers
from workbench.catalog.item import CatalogItem
from workbench.model import ops
from workbench.model.design import Design, Device, Link
from workbench.model.requests import ItemSource
from workbench.planning.fabric.attach import attach_hosts, attach_links
from workbench.planning.fabric.inputs import (
    catalog_options,
    has_links,
    old_fabric,
    plane_hosts,
    plane_network,
    switch_item,
)
from workbench.planning.fabric.placement import (
    OOB_RESERVE_U,
    Session,
    SwitchGroup,
    SwitchNames,
    SwitchPlacer,
    network_racks,
    place_switches,
)
from workbench.planning.fabric.ports import (
    LinkCheck,
    SwitchSlots,
    host_ports,
    host_speed,
    leaf_ports,
    no_port_message,
    spine_ports,
)
from workbench.planning.fabric.request import (
    DEFAULT_OVERSUBSCRIPTION,
    PLANE_PREFIX,
    PLANE_ROLE,
    FabricCounts,
    FabricPlan,
    FabricRequest,
    describe,
    validated,
)
from workbench.planning.fabric.sizing import (
    FabricError,
    FabricShape,
    ceil_div,
    size_leaf_spine,
    size_rail,
    size_tor,
)
from workbench.planning.fabric.wiring import (
    Ends,
    Host,
    bulk_allocation,
    leaf_spine_links,
    made_links,
    rail_links,
    spine_down_slots,
    uplink_slots,
    upper_links,
)

#: The generator's public API in one place (the request, the plan, the error, and the
#: helpers the dialogs call), whichever module each lives in.
__all__ = [
    "FabricCounts",
    "FabricError",
    "FabricPlan",
    "FabricRequest",
    "FabricShape",
    "attach_hosts",
    "build_fabric",
    "generate_fabric",
    "network_racks",
    "place_switches",
    "plan_fabric",
]


def plan_fabric(design: Design, catalog: ItemSource | None, request: FabricRequest) -> FabricPlan:
    """The edit that builds the requested fabric; ``design`` is left unchanged."""
    generator = _Generator(design, catalog, request)
    with bulk_allocation():
        try:
            return generator.run()
        finally:
            generator.session.rollback()


def generate_fabric(
    design: Design,
    catalog: ItemSource | None,
    request: FabricRequest,
    hosts_memo: dict[object, Any] | None = None,
) -> tuple[FabricPlan, ops.Applied]:
    """Plan and apply at once (the templates, the command line): the plan, and what
    applying its batch did (``applied.inverse`` undoes it all).

    ``hosts_memo``: shared by tries that differ only in how switches are shared out
    (the access fabrics try 1, 2, 4 and 8 racks per switch): a failed try leaves the
    design as it was, so the hosts and their free ports, the old fabric and the hosts
    by rack are read once, not per try (a million hosts at 1,000,000 GPUs)."""
    generator = _Generator(design, catalog, request, hosts_memo)
    with bulk_allocation():
        plan = _kept(generator)
        return plan, generator.session.applied()


def build_fabric(
    design: Design,
    catalog: ItemSource | None,
    request: FabricRequest,
    hosts_memo: dict[object, Any] | None = None,
) -> FabricPlan:
    """:func:`generate_fabric` for a design no one will undo (a template being built):
    the same edits, kept, without gathering what undoing them needs (the change of the
    4.4 million links a 1,000,000-GPU template adds, combined edit by edit)."""
    with bulk_allocation():
        return _kept(_Generator(design, catalog, request, hosts_memo, recorded=False))


def _kept(generator: _Generator) -> FabricPlan:
    """Run and keep the edits; a failure takes back what was applied."""
    try:
        return generator.run(keep=True)
    except BaseException:
        generator.session.rollback()
        raise


class _Generator:
    def __init__(
        self,
        design: Design,
        catalog: ItemSource | None,
        request: FabricRequest,
        hosts_memo: dict[object, Any] | None = None,
        recorded: bool = True,
    ):
        self.design, self.catalog, self.req = design, catalog, validated(request)
        self.memo: dict[object, Any] = hosts_memo if hosts_memo is not None else {}
        #: ``recorded`` False: built for a design no one will undo (:func:`build_fabric`).
        self.session = Session(design, recorded)
        self.check = LinkCheck()
        self.links: Ends = []
        self.notes: list[str] = []
        self.devices: dict[str, list[Device]] = {"leaf": [], "spine": [], "core": []}
        #: Top of rack only: host ports taken on each access switch, and (its ports, how
        #: many of its down ports hosts may use).
        self._tor_load: list[int] = []
        self._tor_ports: tuple[SwitchSlots, int] | None = None
        #: How many of ``links`` join a host to a leaf (they come first).
        self.host_ends = 0

    # -- the run ---------------------------------------------------------------------
    def run(self, keep: bool = False) -> FabricPlan:
        req, design, catalog = self.req, self.design, self.catalog
        self.leaf = switch_item(design, catalog, req.switch, "switch")
        self.spine = self.leaf
        if req.spine_switch:
            self.spine = switch_item(design, catalog, req.spine_switch, "spine_switch")
        network, add_network = plane_network(design, req, self.leaf)
        self.speed = float(req.speed_gbps or network.speed_gbps)
        self.over = req.oversubscription or DEFAULT_OVERSUBSCRIPTION[req.plane]
        # The network racks as they are now: a rack the old fabric alone filled stays one.
        self.placer = SwitchPlacer(self.session, catalog)
        old_key = ("old fabric", req.plane, req.replace)
        old = self.memo.get(old_key)
        if old is None:
            old = old_fabric(design, req.plane) if req.replace else (set(), set())
            self.memo[old_key] = old
        link_ids, switch_ids = old
        if link_ids or switch_ids:
            self.placer.read_racks()  # before the old fabric goes (see the comment above)
        if link_ids:
            self.session.apply(ops.RemoveLinks(tuple(sorted(link_ids))))
        for switch_id in sorted(switch_ids):
            self.session.apply(ops.RemoveDevice(switch_id))
        if add_network is not None:
            self.session.apply(add_network)
            self.notes.append(f"Adds the network {network.name!r} ({network.id}).")
        memo_key = (req.plane, req.hosts, req.ports_per_host, self.speed, frozenset(switch_ids))
        self.memo_key = memo_key
        hosts: list[Host] | None = self.memo.get(memo_key)
        if hosts is None:
            hosts = self.memo[memo_key] = plane_hosts(design, req, self.speed, switch_ids)
        self.names = SwitchNames(self.design)
        topology = req.topology
        if topology == "auto":
            topology = "tor" if req.plane in ("management", "oob") else "leaf-spine"
        if topology == "rail":
            shape = self._rail(hosts)
        elif topology == "tor":
            shape = self._tor(hosts)
        else:
            tiers = {"2-tier": 2, "3-tier": 3}.get(topology)
            shape = self._leaf_spine(hosts, tiers)
        self.placer.finish()
        new_switches = [d for tier in self.devices.values() for d in tier]
        if req.plane == "oob":
            self._manage_oob_switches()
        links = self._make_links(self.links, network.id)
        extra = self._attach_to_oob(new_switches)
        batch_ops = [*self.session.ops, ops.AddLinks(tuple(links))]
        if extra:
            batch_ops.append(ops.AddLinks(tuple(extra)))
        layers = None
        if keep:
            self.session.apply(ops.AddLinks(tuple(links)))
            if extra:
                self.session.apply(ops.AddLinks(tuple(extra)))
            elif len(design.links) == len(links):  # the new links and no other
                # Leaves tier 1, spines 2, cores 3: what each was built as.
                built_as = {
                    d.id: t for t, name in enumerate(self.devices, 1) for d in self.devices[name]
                }
                layers = PlaneLayers(req.plane, links, self.host_ends, built_as)
        added = FabricCounts(len(new_switches), len(links) + len(extra), self.placer.racks_added)
        gone = FabricCounts(len(switch_ids), len(link_ids))
        self.notes[:0] = describe(
            shape,
            network.name,
            len(hosts),
            self.speed,
            (self.leaf.slug, self.spine.slug),
            gone,
            added,
            self.placer.rows_added,
        )
        return FabricPlan(
            batch=ops.Batch(tuple(batch_ops)),
            shape=shape,
            removed=gone,
            added=added,
            notes=tuple(self.notes),
            network_id=network.id,
            devices={tier: tuple(d.id for d in ds) for tier, ds in self.devices.items()},
            layers=layers,
        )

    # -- inputs ----------------------------------------------------------------------
    def _ports(self) -> tuple[SwitchSlots, SwitchSlots]:
        leaf = leaf_ports(self.leaf, self.speed)
        if not leaf.down:
            raise FabricError(no_port_message(self.leaf, self.speed, "leaf"))
        spine = spine_ports(self.spine, leaf.up_speed)
        if not spine.down:
            raise FabricError(no_port_message(self.spine, leaf.up_speed, "spine"))
        return leaf, spine

    # -- topologies ------------------------------------------------------------------
    def _rail(self, hosts: list[Host]) -> FabricShape:
        req = self.req
        leaf, spine = self._ports()
        rails = max(h.ports[-1][0] + 1 for h in hosts)
        shape = size_rail(
            len(hosts),
            rails,
            req.su_nodes,
            leaf.radix(),
            len(spine.down),
            self.over,
            spine_name=self.spine.slug,
            options=catalog_options(self.catalog, self.speed),
        )
        prefix = PLANE_PREFIX[req.plane]
        width = max(2, len(str(shape.sus)))
        names = [
            self.names.take(f"{prefix}-leaf-su{su + 1:0{width}d}-r{rail + 1}")
            for su in range(shape.sus)
            for rail in range(rails)
        ]
        leaves = self._place_fabric(names, shape)
        down = leaf.down[: shape.leaf_down]
        self._check_hosts(hosts, down)
        rail_links(self.links, hosts, [d.id for d in leaves], down, req.su_nodes, rails)
        self._wire_up(leaves, leaf, spine, shape)
        return shape

    def _leaf_spine(self, hosts: list[Host], tiers: int | None) -> FabricShape:
        leaf, spine = self._ports()
        ends = [(h, port, speed) for h in hosts for _rail, port, speed in h.ports]
        shape = size_leaf_spine(
            len(ends),
            leaf.radix(),
            len(spine.down),
            self.over,
            tiers,
            spine_name=self.spine.slug,
            options=catalog_options(self.catalog, self.speed),
        )
        prefix = PLANE_PREFIX[self.req.plane]
        names = [self.names.take(f"{prefix}-leaf-{i:03d}") for i in range(1, shape.leaves + 1)]
        leaves = self._place_fabric(names, shape)
        down = leaf.down[: shape.leaf_down]
        self._check_hosts(hosts, down)
        leaf_spine_links(self.links, hosts, [d.id for d in leaves], down, shape.leaf_down)
        self._wire_up(leaves, leaf, spine, shape)
        return shape

    def _tor(self, hosts: list[Host]) -> FabricShape:
        req = self.req
        leaf, spine = self._ports()
        reserve = 1 if req.plane == "oob" else 0
        # Hosts by rack, then racks in groups of ``racks_per_access_switch`` neighbours
        # of one row (1: top of rack); a group's switches go into its first rack.
        by_rack: dict[str, list[tuple[Host, str, float]]] | None = self.memo.get(
            ("by rack", self.memo_key)
        )
        if by_rack is None:
            by_rack = self.memo[("by rack", self.memo_key)] = {}
            for host in hosts:
                entries = by_rack.setdefault(host.rack.id, [])
                entries += [(host, port, speed) for _rail, port, speed in host.ports]
        per_rack: dict[str, list[tuple[Host, str, float]]] = {}
        index = self.design.index
        group_rack, group_row, size = "", None, 0
        for rack_id, entries in by_rack.items():
            row = index.row_of_rack(rack_id)
            if row is not group_row or size >= req.racks_per_access_switch:
                group_rack, group_row, size = rack_id, row, 0
                per_rack[rack_id] = []
            per_rack[group_rack] += entries
            size += 1
        capacity = len(leaf.down)
        plan: list[tuple[str, list[tuple[Host, str, float]]]] = []
        for rack_id, entries in per_rack.items():
            count = ceil_div(len(entries) + reserve, capacity)
            share = ceil_div(len(entries), count)
            plan += [(rack_id, entries[i : i + share]) for i in range(0, len(entries), share)]
        hosts_per_leaf = max(len(entries) for _r, entries in plan) + reserve
        shape = size_tor(
            len(plan),
            min(hosts_per_leaf, capacity),
            leaf.radix(),
            len(spine.down),
            self.over,
            spine_name=self.spine.slug,
        )
        shape = replace(shape, host_ports=sum(len(e) for _r, e in plan))
        # The network racks as they are before any access switch goes in (one in an
        # empty rack of a host row would make it one).
        self.placer.read_racks()
        prefix, role = PLANE_PREFIX[req.plane], PLANE_ROLE[req.plane]
        chunks_of: dict[str, int] = {}
        for rack_id, _entries in plan:
            chunks_of[rack_id] = chunks_of.get(rack_id, 0) + 1
        leaves: list[Device] = []
        for rack_id, count in chunks_of.items():
            rack = self.design.find_rack(rack_id)
            assert rack is not None
            base = f"{prefix}-tor-{'-'.join(rack.name.lower().split()) or rack.id}"
            names = tuple(self.names.take(base) for _ in range(count))
            leaves += self.placer.place_in_rack(rack_id, SwitchGroup(self.leaf.slug, names, role))
        self.devices["leaf"] = leaves
        for switch, (_rack_id, entries) in zip(leaves, plan, strict=True):
            for i, (host, port, speed) in enumerate(entries):
                self.links.append((host.device.id, port, switch.id, leaf.down[i], speed))
            self._tor_load.append(len(entries))
        self._check_hosts(hosts, leaf.down[: shape.leaf_down])
        self._place_upper(shape, reserve_u=0 if req.plane == "oob" else OOB_RESERVE_U)
        self._wire_up(leaves, leaf, spine, shape)
        self._tor_ports = (leaf, shape.leaf_down if leaf.up is None else len(leaf.down))
        return shape

    # -- switches --------------------------------------------------------------------
    def _place_fabric(self, leaf_names: list[str], shape: FabricShape) -> list[Device]:
        role = PLANE_ROLE[self.req.plane]
        group = SwitchGroup(self.leaf.slug, tuple(leaf_names), role)
        self.devices["leaf"] = self.placer.place(group, OOB_RESERVE_U)
        self._place_upper(shape, OOB_RESERVE_U)
        return self.devices["leaf"]

    def _place_upper(self, shape: FabricShape, reserve_u: int) -> None:
        prefix, role = PLANE_PREFIX[self.req.plane], PLANE_ROLE[self.req.plane]
        for tier, count in (("spine", shape.spines), ("core", shape.cores)):
            names = tuple(self.names.take(f"{prefix}-{tier}-{i:03d}") for i in range(1, count + 1))
            if names:
                group = SwitchGroup(self.spine.slug, names, role)
                self.devices[tier] = self.placer.place(group, reserve_u)

    # -- wiring ----------------------------------------------------------------------
    def _check_hosts(self, hosts: list[Host], down: Sequence[str]) -> None:
        # Hosts of a model nearly all cable the same ports: each (model, ports) is
        # read once, in the order first met (so each kind keeps its first host's item).
        distinct: dict[tuple[str, tuple[tuple[int, str, float], ...]], CatalogItem] = {}
        for host in hosts:
            distinct.setdefault((host.item.slug, tuple(host.ports)), host.item)
        kinds: dict[tuple[str, float], tuple[CatalogItem, set[str]]] = {}
        for (slug, ends), host_item in distinct.items():
            for _rail, port, speed in ends:
                entry = kinds.setdefault((slug, speed), (host_item, set()))
                entry[1].add(port)
        for (_slug, speed), (item, ports) in kinds.items():
            self.check.require(
                item, sorted(ports), self.leaf, down, speed, f"{item.slug} to {self.leaf.slug}"
            )

    def _wire_up(
        self, leaves: list[Device], leaf: SwitchSlots, spine: SwitchSlots, shape: FabricShape
    ) -> None:
        self.host_ends = len(self.links)  # every host link is made before the uplinks
        up, pool, speed = uplink_slots(leaf, shape), spine.down, leaf.up_speed
        down = spine_down_slots(shape, pool, len(leaves))
        self.check.require(self.leaf, up, self.spine, down, speed, "leaf to spine")
        if shape.tiers == 3:
            pl = shape.pod_leaves
            self.check.require(
                self.spine,
                pool[pl : 2 * pl],
                self.spine,
                pool[: shape.core_down],
                speed,
                "spine to core",
            )
        ids = [[d.id for d in self.devices[tier]] for tier in ("spine", "core")]
        upper_links(self.links, [d.id for d in leaves], up, ids[0], ids[1], pool, shape, speed)

    def _manage_oob_switches(self) -> None:
        """Cable each new OOB switch's management port to another OOB access switch with
        a free port: its own rack's, else the nearest in its row, else any."""
        leaves = self.devices["leaf"]
        if not leaves:
            return
        if self._tor_ports is None:
            self.notes.append(
                "The OOB switches' own management ports are left uncabled: only a "
                "top-of-rack OOB fabric cables them to each other."
            )
            return
        ports, capacity = self._tor_ports
        down = ports.down
        load = self._tor_load
        index = self.design.index
        by_rack: dict[str, list[int]] = {}
        for i, switch in enumerate(leaves):
            by_rack.setdefault(index.devices[switch.id][0].id, []).append(i)
        spare = 0  # every access switch before this one is full
        missing = 0
        for switch in [d for tier in self.devices.values() for d in tier]:
            item = self.design.device_types[switch.device_type]
            port = next((p for p in host_ports(item, "oob")), None)
            if port is None:
                continue
            rack_id = index.devices[switch.id][0].id
            target = None
            for near in self.placer.near(rack_id):
                target = next(
                    (
                        i
                        for i in by_rack.get(near, ())
                        if leaves[i] is not switch and load[i] < capacity
                    ),
                    None,
                )
                if target is not None:
                    break
            while target is None and spare < len(leaves):
                if load[spare] >= capacity:
                    spare += 1
                elif leaves[spare] is switch:
                    target = next(
                        (i for i in range(spare + 1, len(leaves)) if load[i] < capacity), None
                    )
                    break
                else:
                    target = spare
            if target is None:
                missing += 1
                continue
            speed = host_speed(item, port.name, self.speed) or self.speed
            self.check.require(
                item, [port.name], self.leaf, [down[load[target]]], speed, "OOB switch management"
            )
            self.links.append((switch.id, port.name, leaves[target].id, down[load[target]], speed))
            load[target] += 1
        if missing:
            self.notes.append(
                f"{missing} OOB switches' management ports stay uncabled: no access switch "
                "has a free port for them."
            )

    def _attach_to_oob(self, switches: list[Device]) -> list[Link]:
        """Links from the new switches' management ports to the OOB plane's leaves."""
        if self.req.plane == "oob" or not switches:
            return []
        if not has_links(self.design, "oob"):
            return []
        links, missing = attach_links(self.design, "oob", [s.id for s in switches], None)
        if missing:
            self.notes.append(
                f"{missing} of the new switches' management ports are not on the OOB plane: "
                "its access switches have no free port for them (regenerate the OOB plane)."
            )
        elif links:
            self.notes.append(
                f"Cables the {len(links)} new switches' management ports to the OOB plane."
            )
        return links

    def _make_links(self, ends: Ends, network_id: str) -> list[Link]:
        """The links, with fresh ids, in one pass."""
        return made_links(self.design.index.new_ids("link", len(ends)), ends, network_id)
