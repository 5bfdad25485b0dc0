"""Building a hall: rows, racks, duplicates, reordering, moving devices, pasting.

Each function answers "what edit does this request make?" with one
:class:`~workbench.model.ops.Batch` (so one undo step), or an
:class:`~workbench.model.errors.EditError` saying why not.  They are Qt-free: the window's
menus and drags, the command line and tests ask the same questions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter, itemgetter

from workbench.catalog.item import CatalogItem
from workbench.model import ops, site_ops
from workbench.model.design import DEFAULT_FEED, Design, Device, Rack, Row, Site
from workbench.model.errors import EditError
from workbench.model.names import MAX_DEVICE_NAME_CHARS, clean_name
from workbench.model.placement import Placement, can_place, rack_height
from workbench.model.rack_fields import built_cooling, built_limit_kw
from workbench.model.requests import (
    ItemSource,
    TakenNames,
    device_name,
    follows_pattern,
    lookup_item,
    name_after_move,
    snapshot_ops,
    taken_names,
)

#: The name of the site an empty design's first row brings with it.
DEFAULT_SITE_NAME = "Hall 1"

#: A rack's name, and the rack of an index entry (row, rack).
_NAME = attrgetter("name")
_SECOND = itemgetter(1)


def _row_letters(name: str) -> str:
    """The letters a row's racks are named with: "Row B" → "B", "Hall 2 C" → "C"."""
    words = name.split()
    return words[-1] if words else "R"


class HallNames:
    """The rack names and "Row <letters>" numbers a design's rows and racks hold, for a
    caller that adds many rows or racks one edit after another and applies each (the
    fabric generator's network racks: hundreds of rows in a hall of 35,000 racks at
    1,000,000 GPUs, where reading every name again per row was a tenth of the build).
    Made once; :func:`add_row` and :func:`add_racks` add what they hand out.  Valid
    while nothing else adds, renames or removes rows or racks."""

    def __init__(self, design: Design):
        self.racks = _rack_names_held(design)
        self.rows = _row_numbers(row.name for site in design.sites for row in site.rows)

    def add_row(self, name: str) -> None:
        self.rows |= _row_numbers((name,))


def _rack_names_held(design: Design) -> set[str]:
    """Every rack's name, gathered in C."""
    return set(map(_NAME, map(_SECOND, design.index.racks.values())))


def _row_numbers(names: Iterable[str]) -> set[int]:
    """The numbers of the row names "Row <capitals>" (others: 0, no candidate's)."""
    return {_letters_number(name[4:]) for name in names if name.startswith("Row ")}


def next_row_name(design: Design, names: HallNames | None = None) -> str:
    """ "Row X" with the first letter sequence (A … Z, AA …) no row uses yet."""
    # Only names "Row <capitals>" can be taken by a candidate: their number each, then
    # the first number free (a template adds hundreds of rows, each asking here).
    if names is not None:
        used = names.rows
    else:
        used = _row_numbers({row.name for site in design.sites for row in site.rows})
    n = 1
    while n in used:
        n += 1
    letters = ""
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return f"Row {letters}"


def _letters_number(letters: str) -> int:
    """A, B … Z, AA … as 1, 2 … 26, 27 …; 0 for anything else (no candidate's)."""
    n = 0
    for letter in letters:
        if not "A" <= letter <= "Z":
            return 0
        n = n * 26 + ord(letter) - ord("A") + 1
    return n


def add_row(
    design: Design,
    site_id: str | None = None,
    name: str | None = None,
    *,
    catalog: ItemSource | None = None,
    rack_type: str | None = None,
    count: int = 0,
    names: HallNames | None = None,
) -> ops.Batch:
    """A new row at the end of the site (the first site by default), empty or holding
    ``count`` new racks of ``rack_type``.  A design with no site yet gets one, "Hall 1",
    in the same edit: the first row of an empty design needs somewhere to stand.
    ``names``: the names taken, kept by a caller that applies every add (see
    :class:`HallNames`)."""
    steps: list[ops.Op] = []
    if not design.sites and not site_id:
        site = Site(design.index.new_id("site"), DEFAULT_SITE_NAME)
        steps.append(site_ops.AddSite(site))
    else:
        found = design.index.sites.get(site_id) if site_id else design.sites[0]
        if found is None:
            raise EditError(f"No site with id {site_id!r}.")
        site = found
    row_name = clean_name(name or next_row_name(design, names), "row")
    row = Row(design.index.new_id("row"), row_name)
    if rack_type is not None and count:
        item = _rack_item(design, catalog, rack_type)
        steps += snapshot_ops(design, catalog, rack_type)
        ids = _new_ids(design, "rack", count, avoid=[row.id])
        taken = _rack_names(design, row, count, names)
        row.racks = [new_rack(design, i, n, item) for i, n in zip(ids, taken, strict=True)]
    if names is not None:
        names.add_row(row_name)
    return ops.Batch((*steps, ops.AddRow(site.id, row)))


def _rack_item(design: Design, catalog: ItemSource | None, rack_type: str) -> CatalogItem:
    item = design.device_types.get(rack_type) or lookup_item(catalog, rack_type)
    if item is None or item.kind != "rack":
        raise EditError(f"{rack_type!r} is not a rack model in the catalog.")
    return item


def _rack_names(design: Design, row: Row, count: int, names: HallNames | None = None) -> list[str]:
    """``count`` rack names after the row's letters that no rack holds ("C01" …),
    added to ``names`` when given."""
    prefix = _row_letters(row.name)
    taken = names.racks if names is not None else _rack_names_held(design)
    found: list[str] = []
    n = 1
    while len(found) < count:
        candidate = f"{prefix}{n:02d}"
        if candidate not in taken:
            found.append(candidate)
            taken.add(candidate)
        n += 1
    return found


def new_rack(design: Design, rack_id: str, name: str, item: CatalogItem) -> Rack:
    """A rack of type ``item``: cooled as the type is built for, with that cooling's power
    budget, and the default feeds (the planner sets the real ones)."""
    rack = Rack(
        rack_id,
        name,
        item.slug,
        cooling=built_cooling(item),
        power_limit_kw=built_limit_kw(item),
    )
    rack.set_feed("a", DEFAULT_FEED)
    rack.set_feed("b", DEFAULT_FEED)
    return rack


def add_racks(
    design: Design,
    catalog: ItemSource | None,
    row_id: str,
    rack_type: str,
    count: int = 1,
    index: int | None = None,
    names: HallNames | None = None,
) -> ops.Batch:
    """``count`` new racks of ``rack_type`` in the row (at ``index``, else the end),
    named after the row ("C01", "C02" …); the rack type joins the snapshot if new.
    ``names``: as :func:`add_row`'s."""
    placed = design.index.rows.get(row_id)
    if placed is None:
        raise EditError(f"No row with id {row_id!r}.")
    row = placed[1]
    if not 1 <= count <= 500:
        raise EditError(f"Add between 1 and 500 racks at a time, not {count}.")
    item = _rack_item(design, catalog, rack_type)
    steps: list[ops.Op] = list(snapshot_ops(design, catalog, rack_type))
    at = len(row.racks) if index is None else index
    ids = _new_ids(design, "rack", count)
    taken = _rack_names(design, row, count, names)
    for k, (rack_id, name) in enumerate(zip(ids, taken, strict=True)):
        steps.append(ops.AddRack(row.id, new_rack(design, rack_id, name, item), at + k))
    return ops.Batch(tuple(steps))


def _new_ids(design: Design, kind: str, count: int, avoid: Iterable[str] = ()) -> list[str]:
    """``count`` ids of ``kind`` that are free now (the allocator never repeats one)."""
    ids: list[str] = []
    avoided = set(avoid)
    while len(ids) < count:
        candidate = design.index.new_id(kind)
        if candidate not in avoided:
            ids.append(candidate)
    return ids


def duplicate_rack(design: Design, rack_id: str) -> ops.Batch:
    """A copy of the rack with its devices, right after it: new ids, the rack named like
    its row's next rack, devices renamed after the new rack; serials and asset tags are
    not copied (they belong to one box)."""
    placed = design.index.racks.get(rack_id)
    if placed is None:
        raise EditError(f"No rack with id {rack_id!r}.")
    row, rack = placed
    new_id = design.index.new_id("rack")
    name = _rack_names(design, row, 1)[0]
    device_ids = _new_ids(design, "device", len(rack.devices), avoid=[new_id])
    devices = [
        replace(
            device,
            id=device_id,
            name=_renamed(device.name, rack.name, name),
            serial="",
            asset_tag="",
        )
        for device, device_id in zip(rack.devices, device_ids, strict=True)
    ]
    copy_rack = replace(
        rack, id=new_id, name=name, devices=devices, floor_x_mm=None, floor_y_mm=None
    )
    index = next(i for i, r in enumerate(row.racks) if r is rack) + 1
    return ops.Batch((ops.AddRack(row.id, copy_rack, index),))


def _renamed(device_name_: str, old_rack: str, new_rack: str) -> str:
    """A device name that mentions its rack mentions the new one ("mgmt-a01" → "mgmt-a02");
    other names get the new rack as a suffix so they stay unique."""
    pattern = re.compile(re.escape(old_rack), re.IGNORECASE)
    if pattern.search(device_name_):
        return pattern.sub(
            lambda m: new_rack.lower() if m.group(0).islower() else new_rack, device_name_
        )
    return f"{device_name_}-{new_rack.lower()}"


def move_rack_along_row(design: Design, rack_id: str, delta: int) -> ops.Batch:
    """The rack ``delta`` places left (negative) or right in its row."""
    placed = design.index.racks.get(rack_id)
    if placed is None:
        raise EditError(f"No rack with id {rack_id!r}.")
    row, rack = placed
    index = next(i for i, r in enumerate(row.racks) if r is rack)
    target = index + delta
    if not 0 <= target < len(row.racks):
        side = "left" if delta < 0 else "right"
        raise EditError(
            f"{rack.name} is already the {'first' if delta < 0 else 'last'} rack "
            f"of {row.name}; it cannot move further {side}."
        )
    return ops.Batch((ops.MoveRack(rack.id, row.id, target),))


# -- moving and pasting devices ----------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """Where one device (existing, or new of a catalog item) would go."""

    item: CatalogItem
    u: int | None
    face: str
    #: The device being moved, or None for a new one.
    device: Device | None = None


def judge_slots(design: Design, rack: Rack, slots: Sequence[Slot]) -> Placement:
    """Whether every slot fits in ``rack`` together (the moved devices' old places are
    free to them, and they must not clash with each other): the first refusal, or ok."""
    moving = {slot.device.id for slot in slots if slot.device is not None}
    trial = _trial_rack(rack, moving, [])
    if len(slots) == 1:
        return can_place(design, trial, slots[0].item, slots[0].u, slots[0].face)
    units: list[int] = []
    for k, slot in enumerate(slots):
        verdict = can_place(design, trial, slot.item, slot.u, slot.face)
        if not verdict.ok:
            return verdict
        units.extend(verdict.units)
        placed = Device(
            f"__slot{k}",
            slot.device.name if slot.device else slot.item.model,
            slot.item.slug,
            slot.u if slot.item.u_height > 0 else None,
            slot.face,
        )
        trial.devices.append(placed)
    return Placement(
        True,
        f"{len(slots)} device{'s' if len(slots) != 1 else ''} fit in {rack.name}.",
        range(min(units), max(units) + 1) if units else range(0),
    )


def trial_rack(rack: Rack, slots: Sequence[Slot]) -> Rack:
    """A copy of ``rack`` as it would be with the slots filled (for budgets): moved
    devices at their new places, new ones added."""
    moving = {slot.device.id for slot in slots if slot.device is not None}
    extra = [
        Device(
            f"__slot{k}", "", slot.item.slug, slot.u if slot.item.u_height > 0 else None, slot.face
        )
        for k, slot in enumerate(slots)
    ]
    return _trial_rack(rack, moving, extra)


def _trial_rack(rack: Rack, leave_out: set[str], extra: list[Device]) -> Rack:
    kept = [d for d in rack.devices if d.id not in leave_out]
    return replace(rack, devices=kept + extra)


def move_devices(
    design: Design, rack_id: str, moves: Sequence[tuple[str, int | None, str]]
) -> ops.Batch:
    """Move devices (id, new lowest U, face) into ``rack_id`` together, refused with the
    reason when they do not all fit."""
    rack = design.find_rack(rack_id)
    if rack is None:
        raise EditError(f"No rack with id {rack_id!r}.")
    slots = []
    for device_id, u, face in moves:
        found = design.find_device(device_id)
        if found is None:
            raise EditError(f"No device with id {device_id!r}.")
        item = design.device_types.get(found[1].device_type)
        if item is None:
            raise EditError(f"{found[1].name} has no catalog type in this design.")
        slots.append(Slot(item, u, face, found[1]))
    verdict = judge_slots(design, rack, slots)
    if not verdict.ok:
        raise EditError(verdict.reason)
    # A name the pattern made ("gpu-server-A01-u2") follows the device; the moving
    # devices' old names are free for each other (a group moved up by its own height).
    taken = taken_names(design)
    for slot in slots:
        assert slot.device is not None
        taken.free(slot.device.name)
    wanted: dict[str, str | None] = {}
    for slot in slots:
        assert slot.device is not None
        name = name_after_move(design, slot.device, slot.item, rack, slot.u, taken)
        taken.add(name if name is not None else slot.device.name)
        wanted[slot.device.id] = name
    steps = [
        ops.MoveDevice(slot.device.id, rack_id, slot.u, slot.face, name=wanted[slot.device.id])
        for slot in slots
        if slot.device is not None
    ]
    return ops.Batch(tuple(_free_names_first(design, steps)))


def _free_names_first(design: Design, steps: list[ops.MoveDevice]) -> list[ops.MoveDevice]:
    """The moves ordered so no device takes a name another moving device still holds
    (a group moved up by its own height: the top one is renamed first).  Devices that
    would swap names in a ring keep the names they have: a ring cannot be ordered, and
    their names stay unique as they were."""
    holder = {}
    for step in steps:
        found = design.find_device(step.device_id)
        if found is not None:
            holder[found[1].name] = step.device_id
    pending = list(steps)
    ordered: list[ops.MoveDevice] = []
    while pending:
        waiting = {s.device_id for s in pending}
        ready = [
            s
            for s in pending
            if s.name is None
            or holder.get(s.name) in (None, s.device_id)
            or holder[s.name] not in waiting
        ]
        if not ready:  # a ring: every one waits for another
            ordered += [replace(s, name=None) for s in pending]
            break
        ordered += ready
        pending = [s for s in pending if s not in ready]
    return ordered


@dataclass(frozen=True)
class Copied:
    """A device as the clipboard keeps it: its type, name, role and face, and its
    height above the lowest copied device (so a group pastes in the same shape)."""

    device_type: str
    name: str
    role: str
    face: str
    offset: int | None
    #: The name is the pattern's for where the device stood: a paste names it afresh.
    patterned: bool = False


def copy_devices(design: Design, device_ids: Iterable[str]) -> list[Copied]:
    """The clipboard form of the devices (unknown ids are skipped)."""
    found = [f for i in device_ids if (f := design.find_device(i)) is not None]
    positions = [d.position for _, d in found if d.position is not None]
    base = min(positions) if positions else 0
    return [
        Copied(
            d.device_type,
            d.name,
            d.role,
            d.face,
            None if d.position is None else d.position - base,
            (item := design.device_types.get(d.device_type)) is not None
            and follows_pattern(design, d.name, item, rack, d.position),
        )
        for rack, d in found
    ]


def paste(
    design: Design,
    catalog: ItemSource | None,
    rack_id: str,
    copied: Sequence[Copied],
    u: int | None,
    face: str | None = None,
) -> ops.Batch:
    """New devices like ``copied`` in ``rack_id``, their lowest at ``u`` or, with ``u``
    None, at the lowest free unit where the whole group fits."""
    rack = design.find_rack(rack_id)
    if rack is None:
        raise EditError(f"No rack with id {rack_id!r}.")
    if not copied:
        raise EditError("Nothing to paste: copy or cut devices first.")
    items = []
    steps: list[ops.Op] = []
    for entry in copied:
        item = design.device_types.get(entry.device_type)
        if item is None:
            for op in snapshot_ops(design, catalog, entry.device_type):
                if isinstance(op, ops.AddDeviceType) and op not in steps:
                    steps.append(op)
            item = next(
                (
                    op.item
                    for op in steps
                    if isinstance(op, ops.AddDeviceType) and op.item.slug == entry.device_type
                ),
                None,
            )
        if item is None:
            raise EditError(f"The catalog has no item {entry.device_type!r}.")
        items.append(item)
    candidates = [u] if u is not None else list(range(1, rack_height(design, rack) + 1))
    verdict = Placement(False, f"{rack.name} has no rack units.")
    for base in candidates:
        slots = [
            Slot(item, None if e.offset is None else base + e.offset, face or e.face)
            for item, e in zip(items, copied, strict=True)
        ]
        verdict = judge_slots(design, rack, slots)
        if verdict.ok:
            break
    else:
        if u is not None:
            raise EditError(verdict.reason)
        raise EditError(f"The copied devices fit nowhere in {rack.name}: {verdict.reason}")
    taken = taken_names(design)  # and none repeats within the paste itself
    ids = _new_ids(design, "device", len(slots))
    for slot, entry, device_id in zip(slots, copied, ids, strict=True):
        if entry.patterned:
            name = device_name(design, slot.item, rack, slot.u, taken)
        else:
            name = _unique(entry.name, taken)
        taken.add(name)
        device = Device(device_id, name, entry.device_type, slot.u, slot.face, role=entry.role)
        steps.append(ops.AddDevice(rack.id, device))
    return ops.Batch(tuple(steps))


def _unique(name: str, taken: TakenNames) -> str:
    """``name``, or ``stem-N`` free in ``taken``, cut to fit a device name's limit."""
    if name not in taken:
        return name
    stem = re.sub(r"-\d+$", "", name)
    n = 2
    while (found := f"{stem[: MAX_DEVICE_NAME_CHARS - len(f'-{n}')]}-{n}") in taken:
        n += 1
    return found


__all__ = [
    "Copied",
    "Slot",
    "add_racks",
    "add_row",
    "copy_devices",
    "duplicate_rack",
    "judge_slots",
    "move_devices",
    "move_rack_along_row",
    "new_rack",
    "next_row_name",
    "paste",
    "trial_rack",
]
