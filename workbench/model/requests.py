"""What a user asks for, turned into edits: place an item from the catalog, delete a
selection.

The window (a drop on a rack, the Delete key), the command line and tests ask the same
questions and get the same :class:`~workbench.model.ops.Batch` back, or an
:class:`~workbench.model.errors.EditError` saying why not.  Placing checks the rack's
room with :func:`~workbench.model.placement.can_place` and puts every catalog item the
new device needs (the item, and a server's GPU) into the design's snapshot in the same
batch, so one undo takes all of it back.  New devices are named from the design's
name pattern (:func:`device_name`), the same way whichever request placed them.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable
from typing import Protocol

from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import item_role
from workbench.model import ops
from workbench.model.design import Design, Device, Rack
from workbench.model.errors import EditError
from workbench.model.placement import can_place


class ItemSource(Protocol):
    """What placing needs of a catalog: items by slug (KeyError when unknown)."""

    def __getitem__(self, slug: str, /) -> CatalogItem: ...


def lookup_item(catalog: ItemSource | None, slug: str) -> CatalogItem | None:
    """``catalog[slug]``, or None when there is no catalog or no such item."""
    if catalog is None:
        return None
    try:
        return catalog[slug]
    except KeyError:
        return None


def snapshot_ops(design: Design, catalog: ItemSource | None, slug: str) -> list[ops.Op]:
    """The edits that put ``slug`` (and the GPU it names) into the design's snapshot."""
    needed: list[ops.Op] = []
    pending = [slug]
    seen: set[str] = set()
    while pending:
        current = pending.pop()
        if current in seen or current in design.device_types:
            continue
        seen.add(current)
        item = lookup_item(catalog, current)
        if item is None:
            if current == slug:
                raise EditError(f"The catalog has no item {slug!r}.")
            continue  # a GPU the catalog lacks: the server still places, its figures are 0
        needed.append(ops.AddDeviceType(item))
        if item.gpu:
            pending.append(item.gpu)
    return needed


#: The design property that names new devices, and the pattern used when it is unset or
#: unusable: ``gpu-server-R01-u2`` (what it is, where it sits).
NAME_PATTERN_PROPERTY = "device_name_pattern"
DEFAULT_NAME_PATTERN = "{role}-{rack}-u{u}"

#: The fields a name pattern may use: the item's role (``gpu-server``), the rack's name,
#: the lowest unit (0 for 0U), the model (``dgx-h100``), the catalog slug, and ``n``, the
#: first number from 1 that makes the name unique.
NAME_FIELDS: tuple[str, ...] = ("role", "rack", "u", "model", "slug", "n")

_SAMPLE: dict[str, object] = {
    "role": "gpu-server",
    "rack": "R01",
    "u": 1,
    "model": "dgx-h100",
    "slug": "nvidia-dgx-h100",
    "n": 1,
}


def _word(text: str) -> str:
    """Text as one word of a name: whitespace runs become hyphens."""
    return "-".join(text.split())


def name_pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot name devices (unknown field, stray brace, bad format, empty
    result), or None when it can.  Fields are plain names: no attributes, no indexes."""
    try:
        fields = [
            f for _text, f, _spec, _conv in string.Formatter().parse(pattern) if f is not None
        ]
    except ValueError as exc:
        return f"The name pattern {pattern!r} is malformed: {exc}."
    for name in fields:
        if name not in NAME_FIELDS:
            known = ", ".join("{" + f + "}" for f in NAME_FIELDS)
            return f"The name pattern {pattern!r} uses {{{name}}}; it may use {known}."
    try:
        sample = pattern.format_map(_SAMPLE)
    except (ValueError, TypeError) as exc:
        return f"The name pattern {pattern!r} cannot be filled in: {exc}."
    if not sample.strip():
        return f"The name pattern {pattern!r} gives an empty name."
    return None


def name_pattern(design: Design) -> str:
    """The design's ``device_name_pattern`` when usable, else :data:`DEFAULT_NAME_PATTERN`."""
    pattern = design.properties.get(NAME_PATTERN_PROPERTY) or DEFAULT_NAME_PATTERN
    return pattern if name_pattern_problem(pattern) is None else DEFAULT_NAME_PATTERN


class TakenNames:
    """The design's device names plus those a request has handed out so far: ``in``,
    ``add`` and ``len`` like a set, without copying the design's 33,000 names."""

    def __init__(self, design: Design):
        self._design_names = design.index.device_names
        self._added: set[str] = set()
        self._freed: Counter[str] = Counter()

    def __contains__(self, name: object) -> bool:
        if name in self._added:
            return True
        held = self._design_names.get(name, 0)  # type: ignore[call-overload]
        return bool(held - self._freed.get(name, 0) > 0)  # type: ignore[call-overload]

    def add(self, name: str) -> None:
        self._added.add(name)

    def free(self, name: str) -> None:
        """A device that holds ``name`` is being renamed by the same request: its old
        name no longer stands in the way of the others."""
        self._freed[name] += 1

    def __len__(self) -> int:
        return len(self._design_names) + len(self._added)


def taken_names(design: Design) -> TakenNames:
    """Every device name in the design (what a new name must avoid)."""
    return TakenNames(design)


def _name_values(item: CatalogItem, rack: Rack, u: int | None) -> dict[str, object]:
    """What the pattern's fields stand for, for ``item`` at ``u`` in ``rack``."""
    return {
        "role": item_role(item),
        "rack": _word(rack.name) or rack.id,
        "u": u if u is not None else 0,
        "model": "-".join(item.model.lower().split()) or item.slug,
        "slug": item.slug,
        "n": 1,
    }


def follows_pattern(
    design: Design, name: str, item: CatalogItem, rack: Rack, u: int | None
) -> bool:
    """Is ``name`` what the design's pattern gives ``item`` at ``u`` in ``rack`` (with
    any ``{n}`` and any ``-2`` suffix that made it unique)?  Such a name was made by the
    workbench, not typed, so it follows the device when it moves."""
    values = _name_values(item, rack, u)
    parts = []
    for text, field, spec, conv in string.Formatter().parse(name_pattern(design)):
        parts.append(re.escape(text))
        if field is None:
            continue
        if field == "n":
            parts.append(r"\d+")
            continue
        fmt = "{0" + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
        parts.append(re.escape(fmt.format(values[field])))
    return re.fullmatch("".join(parts).strip() + r"(?:-\d+)?", name) is not None


def name_after_move(
    design: Design,
    device: Device,
    item: CatalogItem,
    to_rack: Rack,
    to_u: int | None,
    taken: TakenNames,
) -> str | None:
    """The name ``device`` takes when it moves to ``to_u`` of ``to_rack``: a new one
    from the pattern when its present name is the pattern's for where it stands now,
    None when it keeps its name (a name the user typed, or one already right there).

    ``taken`` holds the names the request has handed out so far; the caller frees the
    moving devices' old names in it first.
    """
    found = design.find_device(device.id)
    if found is None or not follows_pattern(design, device.name, item, found[0], device.position):
        return None
    if follows_pattern(design, device.name, item, to_rack, to_u):
        return None
    return device_name(design, item, to_rack, to_u, taken)


def device_name(
    design: Design,
    item: CatalogItem,
    rack: Rack,
    u: int | None,
    taken: TakenNames | set[str] | None = None,
) -> str:
    """The name of a new device of ``item`` at ``u`` in ``rack``, from the design's name
    pattern (see :data:`NAME_FIELDS`): ``gpu-server-R01-u2`` by default.

    Unique among ``taken`` (default: every device name in the design): a pattern with
    ``{n}`` takes the first free number, any other gets ``-2``, ``-3`` ... on a clash.
    Everything that places devices (a drop, a fill) names them here, so they agree.
    """
    taken = taken_names(design) if taken is None else taken
    pattern = name_pattern(design)
    values = _name_values(item, rack, u)
    uses_n = any(f == "n" for _t, f, _s, _c in string.Formatter().parse(pattern))
    if uses_n:
        # Some number up to len(taken) + 1 is free unless the pattern ignores {n}'s value.
        for n in range(1, len(taken) + 2):
            name = pattern.format_map({**values, "n": n}).strip()
            if name not in taken:
                return name
    base = pattern.format_map(values).strip()
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def place_new(
    design: Design,
    catalog: ItemSource | None,
    rack_id: str,
    slug: str,
    u: int | None,
    face: str = "front",
) -> ops.Batch:
    """The edit that mounts a new device of catalog item ``slug`` in ``rack_id`` with its
    lowest unit at ``u``; EditError with the placement's reason when it does not fit."""
    rack = design.find_rack(rack_id)
    if rack is None:
        raise EditError(f"No rack with id {rack_id!r}.")
    item = design.device_types.get(slug) or lookup_item(catalog, slug)
    if item is None:
        raise EditError(f"The catalog has no item {slug!r}.")
    verdict = can_place(design, rack, item, u, face)
    if not verdict.ok:
        raise EditError(verdict.reason)
    position = u if item.u_height > 0 else None
    name = device_name(design, item, rack, position)
    device = Device(design.index.new_id("device"), name, slug, position, face)
    return ops.Batch((*snapshot_ops(design, catalog, slug), ops.AddDevice(rack_id, device)))


def delete(design: Design, object_ids: Iterable[str]) -> ops.Batch:
    """The edit that removes the selected devices, racks and rows (a device inside a rack
    that goes too is not removed twice); ids that are no longer there are skipped."""
    index = design.index
    ids = list(dict.fromkeys(object_ids))
    rows = [i for i in ids if i in index.rows]
    racks = [i for i in ids if i in index.racks and index.racks[i][0].id not in rows]
    gone_racks = set(racks) | {r.id for rid in rows for r in index.rows[rid][1].racks}
    devices = [i for i in ids if i in index.devices and index.devices[i][0].id not in gone_racks]
    steps: list[ops.Op] = [ops.RemoveDevice(d) for d in devices]
    steps += [ops.RemoveRack(r) for r in racks]
    steps += [ops.RemoveRow(r) for r in rows]
    return ops.Batch(tuple(steps))
