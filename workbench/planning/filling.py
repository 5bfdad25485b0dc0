"""Placement helpers: fill a rack with N devices of a model, or spread K over racks.

Both turn into one :class:`~workbench.model.ops.Batch` (the catalog snapshot and every
new device), so the window pushes one undo step, plus a :class:`FillReport` that says
what went where and, for whatever did not fit, why not, with the numbers.

How a device is put in, one at a time (the installers' habits, domain brief §5):

* heavy equipment low, switches high: servers and storage take the lowest free units
  that hold them (bottom-up), switches, PDUs and anything else the highest (top-down),
  which also keeps the hot optics of fabric switches out of the servers' section;
* room is the placement rule's verdict (:func:`~workbench.model.placement.can_place`),
  so nothing overlaps a device already there or one placed earlier in the same fill;
* budgets are the rules' verdict: the rack's load with the new device
  (:func:`~workbench.calc.summary.rack_load`) is judged by
  :func:`~workbench.rules.budgets.rack_budgets`, and a device that would take any budget
  (power, cooling, weight, a feed, the failover feed) OVER, or one already over further
  up, is not placed.  The rack stops there and its remaining units stay empty (blanking
  panels) rather than overfilled.  No threshold is copied here.

Spreading K devices over racks gives the next device to the least loaded rack still
open (the highest share of its power or cooling limit in use, then the fewest devices
of this request, then the order given): identical empty racks take turns, a rack that
already carries load gets fewer.  A rack that refuses one device refuses every further
one of the same model (room and load only grow), so it is closed with its reason.

Nothing here changes the design: the plan is worked out on shadow copies of the racks,
and the batch is what the caller applies (or the window pushes).  This module sits on
the model, but asks the figures (calc) and the rules for their verdicts, as placing by
hand asks them for the bars in the drawing.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from workbench.calc.summary import LoadCache, rack_load
from workbench.catalog.item import RACKABLE_KINDS, CatalogItem
from workbench.catalog.vocabulary import item_role
from workbench.model import ops
from workbench.model.design import Design, Device, Rack
from workbench.model.errors import EditError
from workbench.model.placement import can_place, free_ranges, occupancy, rack_height
from workbench.model.requests import (
    ItemSource,
    device_name,
    lookup_item,
    snapshot_ops,
    taken_names,
)
from workbench.rules.budgets import Budget, BudgetState, RackBudgets, rack_budgets

#: Roles that go in from the bottom: the heavy servers.  Every other role (switches,
#: storage, PDUs, other) goes in from the top, as the planning documents lay racks out:
#: "heavy equipment low, switches and storage high".
BOTTOM_UP_ROLES: frozenset[str] = frozenset({"gpu-server", "cpu-server"})

#: How a report names each budget of :meth:`RackBudgets.named`.
BUDGET_LABELS: dict[str, str] = {
    "space": "space",
    "power": "power budget",
    "cooling": "cooling limit",
    "weight": "weight rating",
    "feed_a": "feed A",
    "feed_b": "feed B",
    "failover": "failover feed",
}

#: What the figures of a budget stand for, where that is not plain.
_BUDGET_NOTES: dict[str, str] = {
    "feed_a": "half the rack",
    "feed_b": "half the rack",
    "failover": "one feed carrying the whole rack",
}

#: The most devices one request may ask for (a typo of 100000 should not hang the window).
MAX_COUNT = 10_000

#: 0U devices (vertical PDUs) a rack's side channels take: two per side is the usual
#: fit-out of a 42U-48U cabinet.  A fill does not add beyond it (units never limit them).
ZERO_U_PER_RACK = 4


def from_top(item: CatalogItem) -> bool:
    """True when ``item`` is mounted from the top down (switches, PDUs, other)."""
    return item_role(item) not in BOTTOM_UP_ROLES


def first_free_unit(
    design: Design,
    rack: Rack,
    item: CatalogItem,
    face: str = "front",
    downwards: bool | None = None,
) -> int | None:
    """The unit one more ``item`` goes to in ``rack`` as a fill puts it: the lowest
    free units that hold it for servers and storage, the highest for switches and the
    rest (``downwards`` None: by :func:`from_top`); None when no run of units holds it.
    A drop on a rack without a unit under the pointer (the floor plan, Place Here with
    no unit chosen) asks here too, so it lands where a fill would put it."""
    if downwards is None:
        downwards = from_top(item)
    top = rack_height(design, rack)
    height = max(1, math.ceil(item.u_height))
    lowest = range(1, top - height + 2)
    # The occupancy map skips taken starts quickly; can_place gives the verdict.
    taken = occupancy(design, rack)
    faces = ("front", "rear") if item.is_full_depth else (face,)
    for u in reversed(lowest) if downwards else lowest:
        if any((v, f) in taken for v in range(u, u + height) for f in faces):
            continue
        if can_place(design, rack, item, u, face).ok:
            return u
    return None


@dataclass(frozen=True)
class PlacedDevice:
    """One device a plan puts in."""

    device_id: str
    name: str
    rack_id: str
    rack_name: str
    #: Its lowest unit; None for a 0U item (the rack's side strip).
    position: int | None


@dataclass(frozen=True)
class RackStop:
    """Why a rack took no more devices of the request."""

    rack_id: str
    rack_name: str
    #: A sentence with the numbers: "another NVIDIA DGX H100 would take R01 over its
    #: power budget (51.0 kW of 50.0 kW) …".
    reason: str
    #: The budgets that stopped it (names of :meth:`RackBudgets.named`); empty when it
    #: was room (no free units that hold the item).
    budgets: tuple[str, ...] = ()
    #: Free units on the front left empty: fit blanking panels there.
    left_empty: tuple[range, ...] = ()

    @property
    def room(self) -> bool:
        """True when the rack ran out of units rather than of a budget."""
        return not self.budgets

    @property
    def message(self) -> str:
        """The reason, and for a budget stop the units left empty for blanking panels."""
        if self.budgets and self.left_empty:
            empty = _join([_units(r) for r in self.left_empty])
            return f"{self.reason} {empty} stay empty: fit blanking panels."
        return self.reason


@dataclass(frozen=True)
class FillReport:
    """What a plan placed, and for the rest why not."""

    slug: str
    label: str
    requested: int
    placed: tuple[PlacedDevice, ...]
    #: One entry per rack that refused a device (in the order they refused).
    stops: tuple[RackStop, ...]

    @property
    def missing(self) -> int:
        """How many of those asked for were not placed."""
        return self.requested - len(self.placed)

    def placed_in(self, rack_id: str) -> list[PlacedDevice]:
        return [p for p in self.placed if p.rack_id == rack_id]

    def summary(self) -> str:
        """One line for the status bar."""
        racks = list(dict.fromkeys(p.rack_name for p in self.placed))
        where = f" in {_join(racks)}" if racks else ""
        text = f"Placed {len(self.placed)} of {self.requested} × {self.label}{where}."
        if self.missing:
            reasons = "; ".join(f"{s.rack_name}: {s.reason.rstrip('.')}" for s in self.stops)
            text += f" {self.missing} did not fit" + (f": {reasons}." if reasons else ".")
        return text

    def details(self, planned: bool = False) -> str:
        """Several lines for a message box: per rack what went in, then why the rest not
        (``planned``: worded as what would happen, for a preview)."""
        verb, fail = ("Would place", "would not fit") if planned else ("Placed", "did not fit")
        lines = [f"{verb} {len(self.placed)} of {self.requested} × {self.label}."]
        racks: dict[str, list[PlacedDevice]] = {}
        for p in self.placed:
            racks.setdefault(p.rack_name, []).append(p)
        for rack_name, placed in racks.items():
            units = ", ".join(f"U{p.position}" if p.position else "0U" for p in placed)
            lines.append(f"  {rack_name}: {len(placed)} ({units})")
        if self.missing:
            lines.append(f"{self.missing} {fail}:")
            lines += [f"  {s.rack_name}: {s.message}" for s in self.stops]
        return "\n".join(lines)


@dataclass(frozen=True)
class FillPlan:
    """The edit (apply it, or push it as one undo step) and its report."""

    batch: ops.Batch
    report: FillReport


def fill_rack(
    design: Design,
    catalog: ItemSource | None,
    rack_id: str,
    slug: str,
    count: int,
    face: str = "front",
    *,
    top_down: bool | None = None,
    new_id: Callable[[], str] | None = None,
) -> FillPlan:
    """Put up to ``count`` devices of ``slug`` into one rack (see the module docstring).

    ``top_down`` overrides the direction the item's role gives.  ``new_id`` makes device
    ids (default: the design's index); a preview passes its own so that asking costs no
    ids.  EditError for an unknown rack or item, an item that is not mounted in racks,
    or a negative count.
    """
    return place_across(
        design, catalog, [rack_id], slug, count, face, top_down=top_down, new_id=new_id
    )


def place_across(
    design: Design,
    catalog: ItemSource | None,
    rack_ids: Iterable[str],
    slug: str,
    count: int,
    face: str = "front",
    *,
    top_down: bool | None = None,
    new_id: Callable[[], str] | None = None,
) -> FillPlan:
    """Distribute ``count`` devices of ``slug`` over ``rack_ids``, least loaded first,
    within every budget (see the module docstring); racks named twice count once."""
    item = design.device_types.get(slug) or lookup_item(catalog, slug)
    if item is None:
        raise EditError(f"The catalog has no item {slug!r}.")
    if item.kind not in RACKABLE_KINDS:
        raise EditError(f"{item.label} is a {item.kind}, not something mounted in a rack.")
    if count < 0 or count > MAX_COUNT:
        raise EditError(f"Ask for 0 to {MAX_COUNT} devices, not {count}.")
    racks: list[Rack] = []
    for rack_id in dict.fromkeys(rack_ids):
        rack = design.find_rack(rack_id)
        if rack is None:
            raise EditError(f"No rack with id {rack_id!r}.")
        racks.append(rack)
    if not racks:
        raise EditError("Choose at least one rack.")
    downwards = from_top(item) if top_down is None else top_down
    make_id = new_id if new_id is not None else (lambda: design.index.new_id("device"))

    # The figures see the item even before the batch snapshots it.
    view = Design(device_types={**design.device_types, slug: item})
    cache = LoadCache()
    shadows = [_Shadow(view, rack, cache, order) for order, rack in enumerate(racks)]
    taken = taken_names(design)
    placed: list[PlacedDevice] = []
    steps: list[ops.Op] = []
    stops: list[RackStop] = []
    open_racks = list(shadows)
    while len(placed) < count and open_racks:
        shadow = min(open_racks, key=_Shadow.key)
        outcome = shadow.add(item, face, downwards)
        if isinstance(outcome, RackStop):
            stops.append(outcome)
            open_racks.remove(shadow)
            continue
        name = device_name(design, item, shadow.rack, outcome, taken)
        taken.add(name)
        device = Device(make_id(), name, slug, outcome, face)
        shadow.commit(device)
        steps.append(ops.AddDevice(shadow.rack.id, device))
        placed.append(PlacedDevice(device.id, name, shadow.rack.id, shadow.rack.name, outcome))
    if steps:
        steps[:0] = snapshot_ops(design, catalog, slug)
    report = FillReport(slug, item.label, count, tuple(placed), tuple(stops))
    return FillPlan(ops.Batch(tuple(steps)), report)


def racks_in(design: Design, object_ids: Iterable[str]) -> list[str]:
    """The racks a selection names: racks themselves, and every rack of a selected row
    or site, in selection order without repeats (devices do not name their rack)."""
    index = design.index
    found: list[str] = []
    for object_id in object_ids:
        if object_id in index.racks:
            found.append(object_id)
        elif object_id in index.rows:
            found += [r.id for r in index.rows[object_id][1].racks]
        elif object_id in index.sites:
            found += [r.id for row in index.sites[object_id].rows for r in row.racks]
    return list(dict.fromkeys(found))


# -- the work -----------------------------------------------------------------------------


class _Shadow:
    """A rack as the plan sees it: its devices plus those planned, never the design's."""

    def __init__(self, view: Design, rack: Rack, cache: LoadCache, order: int):
        self.view = view
        self.rack = rack
        self.cache = cache
        self.order = order
        self.copy = dataclasses.replace(rack, devices=list(rack.devices))
        self.budgets = self._budgets()
        self.added = 0
        #: Set by :meth:`add`: the budgets with the device just proposed.
        self._pending: RackBudgets | None = None
        self._update_key()

    def _budgets(self) -> RackBudgets:
        return rack_budgets(self.view, self.copy, rack_load(self.view, self.copy, self.cache))

    def key(self) -> tuple[float, int, int]:
        """Least loaded first: share of the power or cooling limit in use, then the
        devices this request gave it, then the order the racks were given in."""
        return self._key

    def _update_key(self) -> None:
        share = max(self.budgets.power.fraction, self.budgets.cooling.fraction)
        self._key = (share, self.added, self.order)

    def add(self, item: CatalogItem, face: str, downwards: bool) -> int | None | RackStop:
        """Where one more ``item`` goes (its lowest unit, None for 0U), or why not."""
        position = self._position(item, face, downwards)
        if isinstance(position, RackStop):
            return position
        probe = Device("(planned)", "(planned)", item.slug, position, face)
        self.copy.devices.append(probe)
        after = self._budgets()
        self.copy.devices.pop()
        worse = [
            name
            for name, budget in after.named().items()
            if budget.state is BudgetState.OVER and budget.used > self.budgets.named()[name].used
        ]
        if worse:
            return self._stop(_over_reason(item, self.rack, after, self.budgets, worse), worse)
        self._pending = after
        return position

    def commit(self, device: Device) -> None:
        """Keep the device :meth:`add` just proposed."""
        assert self._pending is not None
        self.copy.devices.append(device)
        self.budgets, self._pending = self._pending, None
        self.added += 1
        self._update_key()

    def _position(self, item: CatalogItem, face: str, downwards: bool) -> int | None | RackStop:
        if not item.u_height > 0:  # 0U: the side strip, no units to find
            types = self.view.device_types
            zero = [d for d in self.copy.devices if d.device_type in types]
            zero = [d for d in zero if not types[d.device_type].u_height > 0]
            if len(zero) >= ZERO_U_PER_RACK:
                return self._stop(
                    f"its 0U strip already holds {len(zero)} devices, as many as a fill "
                    f"puts in ({ZERO_U_PER_RACK}).",
                    [],
                )
            return None
        u = first_free_unit(self.view, self.copy, item, face, downwards)
        if u is not None:
            return u
        height = max(1, math.ceil(item.u_height))
        runs = free_ranges(self.view, self.copy, face, full_depth=item.is_full_depth)
        largest = max(runs, key=len, default=range(0))
        sides = "front and rear" if item.is_full_depth else face
        if largest:
            have = f"the largest free run is {len(largest)}U ({_units(largest)})"
        else:
            have = "it has no free unit"
        need = f"{height} free units in a row" if height > 1 else "free unit"
        return self._stop(f"no {need} ({sides}) for another {item.label}: {have}.", [])

    def _stop(self, reason: str, budgets: Sequence[str]) -> RackStop:
        empty = tuple(free_ranges(self.view, self.copy, "front"))
        return RackStop(self.rack.id, self.rack.name, reason, tuple(budgets), empty)


def _over_reason(
    item: CatalogItem, rack: Rack, after: RackBudgets, before: RackBudgets, names: list[str]
) -> str:
    """Why a device is not placed, with the numbers: another NVIDIA DGX H100 would take
    R01 over its power budget (51.0 kW of 50.0 kW) and its cooling limit (...)."""
    parts = []
    for name in names:
        budget = after.named()[name]
        was = before.named()[name]
        already = ", already over" if was.state is BudgetState.OVER else ""
        note = f"{_BUDGET_NOTES[name]}: " if name in _BUDGET_NOTES else ""
        parts.append(f"its {BUDGET_LABELS.get(name, name)}{already} ({note}{_of(budget)})")
    return f"another {item.label} would take {rack.name} over {_join(parts)}."


def _of(budget: Budget) -> str:
    digits = 0 if budget.unit == "kg" else 1
    return f"{budget.used:.{digits}f} {budget.unit} of {budget.limit or 0:.{digits}f} {budget.unit}"


def _units(run: range) -> str:
    return f"U{run.start}" if len(run) == 1 else f"U{run.start}–U{run[-1]}"


def _join(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
