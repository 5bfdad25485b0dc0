"""What a user asks for, turned into edits: place an item from the catalog, delete a
selection.

The window (a drop on a rack, the Delete key), the command line and tests ask the same
questions and get the same :class:`~workbench.model.ops.Batch` back, or an
:class:`~workbench.model.errors.EditError` saying why not.  Placing checks the rack's
room with :func:`~workbench.model.placement.can_place` and puts every catalog item the
new device needs (the item, and a server's GPU) into the design's snapshot in the same
batch, so one undo takes all of it back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from workbench.catalog.item import CatalogItem
from workbench.model import ops
from workbench.model.design import Design, Device
from workbench.model.errors import EditError
from workbench.model.placement import can_place


class ItemSource(Protocol):
    """What placing needs of a catalog: items by slug (KeyError when unknown)."""

    def __getitem__(self, slug: str, /) -> CatalogItem: ...


def _lookup(catalog: ItemSource | None, slug: str) -> CatalogItem | None:
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
        item = _lookup(catalog, current)
        if item is None:
            if current == slug:
                raise EditError(f"The catalog has no item {slug!r}.")
            continue  # a GPU the catalog lacks: the server still places, its figures are 0
        needed.append(ops.AddDeviceType(item))
        if item.gpu:
            pending.append(item.gpu)
    return needed


def device_name(design: Design, item: CatalogItem) -> str:
    """A name for a new device of ``item`` that no device has: ``dgx-h100-3``."""
    stem = "-".join(item.model.lower().split()) or item.slug
    taken = {device.name for _rack, device in design.iter_devices()}
    n = 1
    while f"{stem}-{n}" in taken:
        n += 1
    return f"{stem}-{n}"


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
    item = design.device_types.get(slug) or _lookup(catalog, slug)
    if item is None:
        raise EditError(f"The catalog has no item {slug!r}.")
    verdict = can_place(design, rack, item, u, face)
    if not verdict.ok:
        raise EditError(verdict.reason)
    position = u if item.u_height > 0 else None
    device = Device(design.index.new_id("device"), device_name(design, item), slug, position, face)
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
