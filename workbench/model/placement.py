"""Where devices sit in a rack: occupied units, clashes, free ranges and drop verdicts.

The geometry rules of a rack live here once: the drawing, the inspector, the budget
figures, the rules engine and drag-and-drop all ask these functions (architecture:
placement rules live on the model).  A full-depth device blocks its units on both faces;
a half-depth one only on its own face, so a half-depth switch at the rear may share
units with a half-depth patch panel at the front.

Half-unit heights are legal in NetBox device types (a 0.5U patch panel, a 1.5U server).
Positions are whole units, so a device covers every unit it reaches into: 0.5U at U20
covers U20, 1.5U at U30 covers U30 and U31 (the drawing shows its true height).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from workbench.catalog.item import RACKABLE_KINDS, CatalogItem
from workbench.catalog.limits import MAX_U_HEIGHT
from workbench.catalog.vocabulary import FACES
from workbench.model.design import Design, Device, Rack


def covered_units(position: int | None, u_height: float) -> range:
    """The rack units a device of ``u_height`` at ``position`` covers: every unit it
    reaches into, so half-U heights round up (empty for 0U or unplaced devices)."""
    if position is None or not u_height > 0:
        return range(0)
    return range(position, position + max(1, math.ceil(u_height)))


def units_of(device: Device, u_height: float) -> range:
    """The rack units ``device`` covers (see :func:`covered_units`)."""
    return covered_units(device.position, u_height)


def units_label(position: int | None, u_height: float) -> str:
    """How a position reads to a person: "U20 (0.5U)", "U30–U31 (1.5U)", "0U"."""
    units = covered_units(position, u_height)
    if not units:
        return "0U"
    span = f"U{units.start}" if len(units) == 1 else f"U{units.start}–U{units[-1]}"
    return f"{span} ({u_height:g}U)"


def _faces(device: Device, full_depth: bool) -> tuple[str, ...]:
    return ("front", "rear") if full_depth else (device.face,)


def occupancy(
    design: Design, rack: Rack, ignore: frozenset[str] = frozenset()
) -> dict[tuple[int, str], Device]:
    """Map (unit, face) → the device holding it; later clashing devices are left out,
    and so are the devices in ``ignore`` (those being dragged)."""
    taken: dict[tuple[int, str], Device] = {}
    for device, cells in _cells(design, rack):
        if device.id in ignore:
            continue
        for cell in cells:
            taken.setdefault(cell, device)
    return taken


def _cells(design: Design, rack: Rack) -> Iterator[tuple[Device, list[tuple[int, str]]]]:
    for device in rack.devices:
        item = design.device_types.get(device.device_type)
        if item is None:
            continue
        faces = _faces(device, item.is_full_depth)
        yield device, [(u, f) for u in units_of(device, item.u_height) for f in faces]


#: Height assumed for a rack whose catalog type is unknown or gives none (the common
#: 19-inch cabinet).
DEFAULT_RACK_U = 42


def rack_height(design: Design, rack: Rack) -> int:
    """The rack's height in U from its catalog type: the one rule the drawing, the budget
    figures and the placement checks all use, so they never disagree."""
    item = design.device_types.get(rack.rack_type)
    try:
        height = int(item.u_height) if item is not None else 0
    except (TypeError, ValueError):
        height = 0
    return height if height > 0 else DEFAULT_RACK_U


def clashes(design: Design, rack: Rack) -> list[tuple[Device, Device]]:
    """Pairs of devices that claim the same unit on the same face (a full-depth device
    claims both faces)."""
    if not _may_clash(design, rack):
        return []
    taken: dict[tuple[int, str], Device] = {}
    found: list[tuple[Device, Device]] = []
    seen: set[tuple[str, str]] = set()
    for device, cells in _cells(design, rack):
        for cell in cells:
            other = taken.get(cell)
            if other is None:
                taken[cell] = device
            elif (other.id, device.id) not in seen:
                seen.add((other.id, device.id))
                found.append((other, device))
    return found


def _may_clash(design: Design, rack: Rack) -> bool:
    """Quick test with one bit per unit and face: does any unit hold two devices?

    Checking 3,500 racks cell by cell took ~60 ms at 100,000 GPUs; the bit masks answer
    the common case (no clash) in a few machine operations per device.
    """
    front = rear = 0
    types = design.device_types
    for device in rack.devices:
        item = types.get(device.device_type)
        if item is None:
            continue
        units = units_of(device, item.u_height)
        if not units:
            continue
        if units.start < 0:
            return True  # negative shifts are not masks; let the slow path answer
        mask = ((1 << len(units)) - 1) << units.start
        on_front = item.is_full_depth or device.face != "rear"
        on_rear = item.is_full_depth or device.face == "rear"
        if (on_front and front & mask) or (on_rear and rear & mask):
            return True
        if on_front:
            front |= mask
        if on_rear:
            rear |= mask
    return False


def out_of_rack(design: Design, rack: Rack) -> list[Device]:
    """Devices whose units fall below U1 or above the rack's top unit."""
    top = rack_height(design, rack)
    bad = []
    for device in rack.devices:
        item = design.device_types.get(device.device_type)
        units = units_of(device, item.u_height if item else 0)
        if units and (units.start < 1 or units.stop - 1 > top):
            bad.append(device)
    return bad


def free_ranges(
    design: Design, rack: Rack, face: str = "front", *, full_depth: bool = False
) -> list[range]:
    """Runs of free units on ``face`` from bottom to top (what a drop can use); with
    ``full_depth``, units free on both faces (what a full-depth item needs).  The one
    reading of a rack's free space: drops, fills and the fabric's placement ask it."""
    faces = ("front", "rear") if full_depth else (face,)
    top = rack_height(design, rack)
    taken = _taken_masks(design, rack, top)
    free = (1 << (top + 1)) - 2  # U1 to the top, a bit each
    for f in faces:
        free &= ~taken.get(f, 0)
    runs: list[range] = []
    while free:
        start = (free & -free).bit_length() - 1  # the lowest free unit
        rest = free >> start
        length = (rest ^ (rest + 1)).bit_length() - 1  # the free units from it on
        runs.append(range(start, start + length))
        free &= ~(((1 << length) - 1) << start)
    return runs


def free_unit_counts(design: Design, rack: Rack) -> tuple[int, int]:
    """How many units are free on the rack's front and on its rear: the lengths of
    :func:`free_ranges`' runs on each face, summed, from one reading of the rack."""
    top = rack_height(design, rack)
    taken = _taken_masks(design, rack, top)
    units = (1 << (top + 1)) - 2
    return (units & ~taken.get("front", 0)).bit_count(), (units & ~taken.get("rear", 0)).bit_count()


def _taken_masks(design: Design, rack: Rack, top: int) -> dict[str, int]:
    """Face -> the units from U1 to ``top`` that a device holds there (the cells
    :func:`occupancy` maps), one bit per unit: bit ``u`` for U``u``.

    A mask per face instead of a dict of the rack's (unit, face) cells read unit by
    unit: the fabric's placement asks the free space of 17,000 racks at 1,000,000 GPUs."""
    types = design.device_types
    taken: dict[str, int] = {}
    for device in rack.devices:
        item = types.get(device.device_type)
        if item is None:
            continue
        units = units_of(device, item.u_height)
        low, high = max(units.start, 1), min(units.stop, top + 1)  # empty for 0U
        if low >= high:
            continue
        mask = ((1 << (high - low)) - 1) << low
        for face in _faces(device, item.is_full_depth):
            taken[face] = taken.get(face, 0) | mask
    return taken


@dataclass(frozen=True)
class Placement:
    """Whether an item may go at a unit and face of a rack, and if not, why.

    ``units`` are the units it would cover (empty for 0U items, which go in the 0U
    strip); ``blocking`` names the devices in the way.
    """

    ok: bool
    reason: str
    units: range = range(0)
    blocking: tuple[str, ...] = ()


def can_place(
    design: Design,
    rack: Rack,
    item: CatalogItem,
    u: int | None,
    face: str = "front",
    ignore: frozenset[str] = frozenset(),
) -> Placement:
    """May ``item`` be mounted in ``rack`` with its lowest unit at ``u`` on ``face``?

    ``ignore`` holds the ids of devices being moved (their own units are free for them).
    The verdict is about room only; budgets (power, cooling, weight) are the rules'
    business and are reported, not refused, so a planner can see what would be over.
    """
    if item.kind not in RACKABLE_KINDS:
        return Placement(False, f"{item.label} is a {item.kind}, not something mounted in a rack.")
    if not item.u_height > 0:
        return Placement(True, f"{item.label} is 0U: it goes in the rack's side strip.")
    if u is None:
        return Placement(False, "Point at a rack unit to place it.")
    units = covered_units(u, item.u_height)
    top = rack_height(design, rack)
    label = units_label(u, item.u_height)
    if units.start < 1 or units[-1] > top:
        return Placement(
            False, f"{item.label} needs {label}, but {rack.name} has U1–U{top}.", units
        )
    taken = occupancy(design, rack, ignore)
    faces = ("front", "rear") if item.is_full_depth else (face,)
    blocking: dict[str, Device] = {}
    for unit in units:
        for f in faces:
            other = taken.get((unit, f))
            if other is not None:
                blocking.setdefault(other.id, other)
    if blocking:
        names = ", ".join(
            f"{d.name} ({units_label(d.position, _height(design, d))})" for d in blocking.values()
        )
        return Placement(
            False, f"{label} of {rack.name} is taken by {names}.", units, tuple(blocking)
        )
    return Placement(True, f"{label} of {rack.name} is free.", units)


def _height(design: Design, device: Device) -> float:
    item = design.device_types.get(device.device_type)
    return float(item.u_height) if item is not None else 0.0


#: The highest unit a device may start at: the tallest rack a catalog may describe.
MAX_RACK_UNIT = int(MAX_U_HEIGHT)


def rack_unit_problem(value: object) -> str | None:
    """Why ``value`` cannot be a device's lowest rack unit, or None.

    The one bound, applied by the device edits (:mod:`workbench.model.ops`) and by the
    file reader: a whole number from 1 to :data:`MAX_RACK_UNIT` (None, no unit, is the
    caller's to allow).  A unit above *this* rack's height is representable, and the
    rule RACK-OUTSIDE reports it instead.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be a whole rack unit, got {value!r:.40}"
    if 1 <= value <= MAX_RACK_UNIT:
        return None
    shown = value if abs(value) < 10**30 else "a number of more than 30 digits"
    return f"must be a rack unit from 1 to {MAX_RACK_UNIT}, got {shown}"


def placement_problem(position: object, face: object) -> str | None:
    """Why a device cannot be put at ``position`` on ``face`` (None: unracked is fine)."""
    if face not in FACES:
        return f"a device sits on the {' or '.join(FACES)} face, not {face!r:.40}"
    return None if position is None else rack_unit_problem(position)
