"""Where a generated fabric's switches go: network racks, then new rows of them; access
switches in the racks they serve.

**Network racks** are the racks a fabric's switches may fill: racks that hold switches
and no host (no server, no storage appliance), empty racks standing in a row that holds
no host at all (a row a planner set aside for the network), and empty racks the design
lists in its ``network_racks`` property (a template's).  They
are filled in row order, one after the other, so the leaves of a scalable unit end up
side by side, with :func:`workbench.planning.filling.fill_rack`, which respects the
rack's units and its power, cooling, weight and feed budgets.  One unit of every
network rack is kept free for its out-of-band access switch.  When they are full, rows
of new racks like them (the same type, feeds and 0U PDUs) are added: along the hall's
last row while it ends in a network rack and is shorter than the design's longest row,
then in new rows at the end of the hall, laid out on the hall plan if the design
already has one.

An access switch (top of rack) goes into the rack whose hosts it serves, at the highest
free unit (:func:`~workbench.planning.filling.from_top`); in a full rack, into the
nearest rack of the same row with room; failing that, into the network racks.

Everything is worked out by applying the edits to the design one by one (each
placement must see the previous ones) inside a :class:`Session`, which takes them all
back afterwards unless told to keep them; the edits come back as one
:class:`~workbench.model.ops.Batch`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter

from workbench.catalog.item import CatalogItem, power_figure_w
from workbench.model import ops
from workbench.model.change import Change
from workbench.model.design import Design, Device, Rack
from workbench.model.floor import is_placed, lay_out
from workbench.model.hall_edits import HallNames, add_racks, add_row
from workbench.model.link_ops import add_links_unrecorded
from workbench.model.placement import free_unit_counts
from workbench.model.ports import HOST_KINDS
from workbench.model.rack_fields import built_limit_kw
from workbench.model.requests import ItemSource, lookup_item, taken_names
from workbench.planning.fabric.sizing import FabricError
from workbench.planning.filling import fill_rack
from workbench.planning.rack_pdus import fit_pdus

#: The design property listing (comma-separated ids) empty racks set aside for the
#: network: the templates mark theirs.
NETWORK_RACKS_PROPERTY = "network_racks"
#: Units every network rack keeps free for its out-of-band access switch.
OOB_RESERVE_U = 1
#: Racks per new row when the design's rows give no better figure.
DEFAULT_ROW_RACKS = 10
#: The rack type for new network racks when the design has neither network racks nor any
#: other rack to copy: a plain 48U cabinet.
FALLBACK_RACK_TYPE = "generic-rack-48u-air"


#: The change of an edit applied unrecorded: refresh everything.
_UNKNOWN_EXTENT = Change(everything=True)


class Session:
    """Edits applied to a design one after the other, kept or taken back together.

    ``ops`` are the edits made, in order (what a :class:`~workbench.model.ops.Batch`
    replays on the untouched design); :meth:`rollback` applies their inverses in
    reverse, leaving the design exactly as it was.

    ``recorded`` False: a design no one will undo (a template being built); an
    :class:`~workbench.model.ops.AddLinks` is then applied without its change of every
    link id (see :func:`~workbench.model.link_ops.add_links_unrecorded`), its change
    saying only that the extent is unknown.
    """

    def __init__(self, design: Design, recorded: bool = True):
        self.design = design
        self.recorded = recorded
        self.ops: list[ops.Op] = []
        self._done: list[ops.Applied] = []

    def apply(self, op: ops.Op) -> ops.Applied:
        if not self.recorded and type(op) is ops.AddLinks:
            applied = ops.Applied(add_links_unrecorded(self.design, op), _UNKNOWN_EXTENT)
        else:
            applied = ops.apply(self.design, op)
        self.ops.append(op)
        self._done.append(applied)
        return applied

    def rollback(self) -> None:
        while self._done:
            ops.apply(self.design, self._done.pop().inverse)
        self.ops.clear()

    def applied(self) -> ops.Applied:
        """What keeping the edits did: the inverse of them all, and their change."""
        inverse = ops.Batch(tuple(a.inverse for a in reversed(self._done)))
        return ops.Applied(inverse, Change.combine(a.change for a in self._done))


@dataclass(frozen=True)
class SwitchGroup:
    """Switches of one model to place: their names (one each) and role."""

    slug: str
    names: tuple[str, ...]
    role: str


@dataclass(frozen=True)
class SwitchPlacement:
    """What :func:`place_switches` would do: the edit, the devices per group, and how
    many racks and rows it adds."""

    batch: ops.Batch
    devices: tuple[tuple[Device, ...], ...]
    racks_added: int
    rows_added: int


#: A device's catalog slug.
_DEVICE_TYPE = attrgetter("device_type")


def _signature(rack: Rack) -> tuple[object, ...]:
    """Everything about a rack that placing a device in it reads."""
    return (
        rack.rack_type,
        rack.cooling,
        rack.power_limit_kw,
        rack.cooling_limit_kw,
        rack.max_weight_kg,
        rack.feed_a_voltage,
        rack.feed_a_phases,
        rack.feed_a_breaker_a,
        rack.feed_b_voltage,
        rack.feed_b_phases,
        rack.feed_b_breaker_a,
        tuple((d.device_type, d.position, d.face) for d in rack.devices),
    )


def network_racks(design: Design) -> list[Rack]:
    """Racks a fabric's switches may go in (see the module docstring), in row order."""
    marked = set(filter(None, design.properties.get(NETWORK_RACKS_PROPERTY, "").split(",")))
    # The slugs of hosts and of switches, so that each rack's device types are matched
    # against them in C (asked once per fabric try: 35,000 racks at 1,000,000 GPUs).
    types = design.device_types
    hosts = {slug for slug, item in types.items() if item is not None and item.kind in HOST_KINDS}
    switches = {slug for slug, item in types.items() if item is not None and item.kind == "switch"}
    found: list[Rack] = []
    for site in design.sites:
        for row in site.rows:
            kinds = [set(map(_DEVICE_TYPE, rack.devices)) for rack in row.racks]
            row_has_hosts = any(not hosts.isdisjoint(k) for k in kinds)
            for rack, held in zip(row.racks, kinds, strict=True):
                if not hosts.isdisjoint(held):
                    continue
                if rack.id in marked or not row_has_hosts or not switches.isdisjoint(held):
                    found.append(rack)
    return found


def place_switches(
    design: Design,
    catalog: ItemSource | None,
    groups: Sequence[SwitchGroup],
    *,
    reserve_u: int = OOB_RESERVE_U,
) -> SwitchPlacement:
    """The edit that puts every group's switches into network racks (adding rows of
    racks when they are full); the design is left as it was."""
    session = Session(design)
    try:
        placer = SwitchPlacer(session, catalog)
        devices = tuple(tuple(placer.place(group, reserve_u)) for group in groups)
        placer.finish()
        return SwitchPlacement(
            ops.Batch(tuple(session.ops)), devices, placer.racks_added, placer.rows_added
        )
    finally:
        session.rollback()


class SwitchPlacer:
    """Places switches through a :class:`Session` (see the module docstring)."""

    def __init__(self, session: Session, catalog: ItemSource | None):
        self.session = session
        self.design = session.design
        self.catalog = catalog
        #: The network racks in order (see :attr:`racks`), read when first asked.
        self._racks: list[str] | None = None
        #: (rack id, slug) pairs that refused a switch: they refuse every further one.
        self._full: set[tuple[str, str]] = set()
        self.racks_added = 0
        self.rows_added = 0
        self._new_racks: list[str] = []
        #: Racks this placer added that hold nothing yet (one refusing is an error).
        self._empty: set[str] = set()
        #: (rack signature, slug, count) → the places fill_rack gave, and its reason.
        self._verdicts: dict[tuple[object, str, int], tuple[list[tuple[int | None, str]], str]] = {}
        #: The hall's rack and row names, once this placer adds racks (see HallNames).
        self._hall_names: HallNames | None = None

    # -- network racks ---------------------------------------------------------------
    @property
    def racks(self) -> list[str]:
        """The ids of the racks switches may go in, in order: the design's network racks
        as they were when first asked, then the racks this placer added.

        Read on first use, not when the placer is made: an access fabric's tries that
        share a switch among too few racks fail before placing any (five of the ten
        fabrics a 1,000,000-GPU template tries), and each read walks every rack.  A
        caller that changes the design before it places into network racks (removing an
        old fabric, placing access switches in host racks) calls :meth:`read_racks`
        first, so the racks are those of the design as it was."""
        if self._racks is None:
            self._racks = [r.id for r in network_racks(self.design)]
        return self._racks

    def read_racks(self) -> None:
        """Read the network racks now, as the design stands (see :attr:`racks`)."""
        _ = self.racks

    def place(self, group: SwitchGroup, reserve_u: int = OOB_RESERVE_U) -> list[Device]:
        """Put ``group`` into the network racks in order, adding rows when they are full."""
        item = self._item(group.slug)
        height = max(1, math.ceil(item.u_height))
        placed: list[Device] = []
        names = list(group.names)
        position = 0
        while len(placed) < len(names):
            if position >= len(self.racks):
                self._add_rows(item, len(names) - len(placed), reserve_u)
            rack_id = self.racks[position]
            position += 1
            if (rack_id, group.slug) in self._full:
                continue
            rack = self.design.find_rack(rack_id)
            assert rack is not None
            room = self._room(rack, height, reserve_u)
            if room <= 0:
                if rack_id in self._empty:
                    raise FabricError(
                        f"A new {rack.rack_type} rack has no room for a {height}U {item.label} "
                        f"with {reserve_u}U kept free."
                    )
                self._full.add((rack_id, group.slug))
                continue
            want = min(room, len(names) - len(placed))
            got, reason = self._fill(rack, group, names[len(placed) : len(placed) + want])
            if not got and rack_id in self._empty:
                raise FabricError(f"A new {rack.rack_type} rack takes no {item.label}: {reason}")
            self._empty.discard(rack_id)
            placed += got
            if len(got) < want or len(got) == room:
                self._full.add((rack_id, group.slug))
        return placed

    def _room(self, rack: Rack, height: int, reserve_u: int) -> int:
        """How many devices of ``height`` may go in, keeping ``reserve_u`` units free."""
        free, free_rear = free_unit_counts(self.design, rack)
        return max(0, (min(free, free_rear) - reserve_u) // height)

    def _fill(
        self, rack: Rack, group: SwitchGroup, names: Sequence[str]
    ) -> tuple[list[Device], str]:
        """Up to ``len(names)`` switches of the group into ``rack``: the devices placed,
        and why the rest did not fit.

        :func:`fill_rack`'s verdict depends only on the rack (its type, budgets, feeds
        and devices) and the item, so racks alike get the same places: the verdict is
        asked once per kind of rack (3,000 identical compute racks take their access
        switches at the same units) and reused for the others.
        """
        key = (_signature(rack), group.slug, len(names))
        known = self._verdicts.get(key)
        if known is None:
            plan = fill_rack(self.design, self.catalog, rack.id, group.slug, len(names))
            reason = "; ".join(s.message for s in plan.report.stops)
            steps = [op for op in plan.batch.ops if not isinstance(op, ops.AddDevice)]
            for step in steps:
                self.session.apply(step)  # the catalog snapshot, the first time only
            places = [
                (op.device.position, op.device.face)
                for op in plan.batch.ops
                if isinstance(op, ops.AddDevice)
            ]
            known = self._verdicts[key] = (places, reason)
        places, reason = known
        new_id = self.design.index.new_id
        devices = [
            Device(new_id("device"), name, group.slug, position, face, role=group.role)
            for name, (position, face) in zip(names, places, strict=False)
        ]
        if devices:
            # One edit for the rack's switches (see ops.AddDevices).
            self.session.apply(ops.AddDevices(rack.id, tuple(devices)))
        return devices, reason

    def _item(self, slug: str) -> CatalogItem:
        item = self.design.device_types.get(slug) or lookup_item(self.catalog, slug)
        if item is None:
            raise FabricError(f"The catalog has no item {slug!r}.")
        return item

    def _model_rack(self) -> Rack | None:
        for rack_id in self.racks:
            rack = self.design.find_rack(rack_id)
            if rack is not None:
                return rack
        return None

    def _add_rows(self, item: CatalogItem, count: int, reserve_u: int) -> None:
        """Rows of new network racks for ``count`` more switches of ``item``."""
        model = self._model_rack()
        rack_type = model.rack_type if model is not None else self._fallback_type()
        rack_item = self.design.device_types.get(rack_type) or lookup_item(self.catalog, rack_type)
        if rack_item is None:
            raise FabricError(f"No rack type {rack_type!r} to add network racks of.")
        height = max(1, math.ceil(item.u_height))
        units = max(1, int(rack_item.u_height or 42) - reserve_u - 1)
        per_rack_u = max(1, units // height)
        limit = built_limit_kw(rack_item)
        # A switch of unknown power has no figure to budget with: its racks are sized
        # by U alone, and their loads count it as unknown (RACK-POWER-UNKNOWN), never
        # as 0 kW that looks like room.
        watts = power_figure_w(item)
        kw = watts / 1000.0 if watts is not None else None
        per_rack_kw = max(1, int(limit // kw)) if kw else per_rack_u
        need = math.ceil(count / max(1, min(per_rack_u, per_rack_kw)))
        longest = max((len(row.racks) for s in self.design.sites for row in s.rows), default=0)
        per_row = longest if longest >= 4 else DEFAULT_ROW_RACKS
        rows = self.design.sites[0].rows if self.design.sites else []
        last = rows[-1] if rows else None
        if last is not None and last.racks and last.racks[-1].id in set(self.racks):
            room = per_row - len(last.racks)
        else:
            last, room = None, 0
        if self._hall_names is None:  # made once: every add below is applied at once
            self._hall_names = HallNames(self.design)
        if last is not None and room > 0:
            # The hall's last row ends in network racks and has room: it grows along.
            batch = add_racks(
                self.design,
                self.catalog,
                last.id,
                rack_type,
                count=min(need, room),
                names=self._hall_names,
            )
        else:
            batch = add_row(
                self.design,
                catalog=self.catalog,
                rack_type=rack_type,
                count=min(need, per_row),
                names=self._hall_names,
            )
        racks = [op.rack for op in batch.ops if isinstance(op, ops.AddRack)]
        racks += [r for op in batch.ops if isinstance(op, ops.AddRow) for r in op.row.racks]
        for rack in racks:
            self._fit_out(rack, model)
        self.session.apply(batch)
        if model is None:
            # No network rack to copy PDUs from: A/B PDUs sized to the new racks' budget.
            power = fit_pdus(self.design, self.catalog, racks)
            if power.ops:
                self.session.apply(power)
        ids = [r.id for r in racks]
        self.racks.extend(ids)
        self._new_racks += ids
        self._empty.update(ids)
        self.racks_added += len(ids)
        self.rows_added += sum(1 for op in batch.ops if isinstance(op, ops.AddRow))

    def _fallback_type(self) -> str:
        counts: dict[str, int] = {}
        for rack in self.design.iter_racks():
            counts[rack.rack_type] = counts.get(rack.rack_type, 0) + 1
        return max(counts, key=lambda k: counts[k]) if counts else FALLBACK_RACK_TYPE

    def _fit_out(self, rack: Rack, model: Rack | None) -> None:
        """Give a new rack the model network rack's budgets, feeds and 0U PDUs."""
        if model is None:
            return
        for name in (
            "cooling",
            "power_limit_kw",
            "cooling_limit_kw",
            "max_weight_kg",
            *(f"feed_{s}_{f}" for s in "ab" for f in ("voltage", "phases", "breaker_a")),
        ):
            setattr(rack, name, getattr(model, name))
        self.design.index.rack_changed(rack.id)  # figures kept per rack read its cooling
        pdus = [
            d
            for d in model.devices
            if d.position is None
            and (item := self.design.device_types.get(d.device_type)) is not None
            and item.kind == "pdu"
        ]
        ids = self.design.index.new_ids("device", len(pdus))
        taken = self.design.index.device_names
        for device_id, pdu in zip(ids, pdus, strict=True):
            suffix = pdu.name.rsplit("-", 1)[-1] if "-" in pdu.name else "a"
            name = f"pdu-{rack.name.lower()}-{suffix}"
            while name in taken:
                name += "x"
            rack.devices.append(
                Device(device_id, name, pdu.device_type, None, pdu.face, role=pdu.role)
            )

    def finish(self) -> None:
        """Lay the new racks out on the hall plan when the design has one."""
        if not self._new_racks or not any(is_placed(r) for r in self.design.iter_racks()):
            return
        placed = lay_out(self.design, only=self._new_racks)
        moves = []
        for rack_id in placed:
            rack = self.design.find_rack(rack_id)
            if rack is None:
                continue
            moves.append(
                ops.MoveRackOnFloor(rack_id, rack.floor_x_mm, rack.floor_y_mm, rack.facing)
            )
            rack.floor_x_mm = rack.floor_y_mm = None
        if moves:
            self.session.apply(ops.Batch(tuple(moves)))

    # -- access switches -------------------------------------------------------------
    def place_in_rack(self, rack_id: str, group: SwitchGroup) -> list[Device]:
        """Access switches for one rack: in it, else the nearest rack of its row with
        room (a switch each), else the network racks."""
        placed: list[Device] = []
        names = list(group.names)
        for candidate in self.near(rack_id):
            if len(placed) == len(names):
                break
            rack = self.design.find_rack(candidate)
            if rack is None or (candidate, group.slug) in self._full:
                continue
            got, _reason = self._fill(rack, group, names[len(placed) :])
            if len(got) < len(names) - len(placed) and candidate != rack_id:
                self._full.add((candidate, group.slug))
            placed += got
        if len(placed) < len(names):
            rest = SwitchGroup(group.slug, tuple(names[len(placed) :]), group.role)
            placed += self.place(rest, reserve_u=0)
        return placed

    def near(self, rack_id: str) -> Iterator[str]:
        """``rack_id``, then the other racks of its row, nearest first."""
        row = self.design.index.row_of_rack(rack_id)
        if row is None:
            yield rack_id
            return
        ids = [r.id for r in row.racks]
        at = ids.index(rack_id)
        yield rack_id
        for step in range(1, len(ids)):
            for i in (at - step, at + step):
                if 0 <= i < len(ids):
                    yield ids[i]


class SwitchNames:
    """Unique device names: the design's and those handed out so far."""

    def __init__(self, design: Design):
        self.taken = taken_names(design)

    def take(self, base: str) -> str:
        name, n = base, 2
        while name in self.taken:
            name, n = f"{base}-{n}", n + 1
        self.taken.add(name)
        return name
