"""Edits of the design's catalog snapshot: one device type replaced by another version.

A design keeps a snapshot of every catalog item it uses (``design.device_types``), so
it opens the same on a laptop without the catalog.  Entering a power figure for a type
whose power was unknown, or importing a NetBox file over a type the design holds,
changes that snapshot: the item under the slug is replaced, the devices of it stay.

Kept apart from :mod:`workbench.model.ops` (which gathers :data:`EDITS` and re-exports
the classes) like the floor and network edits.  Adding and removing a type are
:class:`AddDeviceType` and :class:`RemoveDeviceType`; a replacement is its own edit rather
than a remove-then-add so that the slug keeps its place in the snapshot (the project
file writes types in that order) and the inverse is exact: the very same old item
object back under the same key.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.catalog.item import CatalogItem, fitted_gpus
from workbench.model import keep
from workbench.model.applied import Applied, Edit
from workbench.model.change import Change
from workbench.model.design import Design
from workbench.model.errors import EditError


def type_change(design: Design, slug: str) -> Change:
    """The racks and devices whose figures come from ``slug`` (usually none yet: the item
    is added before the first device of it): the devices of it, and the nodes fitted
    with it when it is a GPU's item (no device is of that type, but every figure and
    verdict of such a node reads it: its memory, its power)."""
    users = {slug} | {
        other for other, item in design.device_types.items() if slug in fitted_gpus(item)
    }
    racks: set[str] = set()
    devices: set[str] = set()
    for rack in design.iter_racks():
        if rack.rack_type == slug:
            racks.add(rack.id)
        for device in rack.devices:
            if device.device_type in users:
                devices.add(device.id)
                racks.add(rack.id)
    return Change(racks=frozenset(racks), devices=frozenset(devices), types=frozenset({slug}))


@dataclass(frozen=True)
class ReplaceDeviceType:
    """Put ``item`` under its slug in ``design.device_types`` in place of the item there.

    Its inverse is the same edit with the old item.  The change names the slug and every
    rack and device of it, so their loads, budgets, drawing and rules are refreshed.
    """

    item: CatalogItem


def _replace_device_type(design: Design, op: ReplaceDeviceType) -> Applied:
    item = op.item
    if not isinstance(item, CatalogItem):
        raise EditError(f"A device type is a catalog item, not {type(item).__name__}.")
    old = design.device_types.get(item.slug)
    if old is None:
        raise EditError(f"The design holds no catalog item {item.slug!r} to replace.")
    design.device_types[item.slug] = item  # same key: its place in the dict stays
    design.index.touch_types()  # ports and speeds come from the item
    return Applied(ReplaceDeviceType(old), type_change(design, item.slug))


@dataclass(frozen=True)
class AddDeviceType:
    """Put a catalog item into the design's snapshot (before the first device of it)."""

    item: CatalogItem


@dataclass(frozen=True)
class RemoveDeviceType:
    slug: str


def _add_device_type(design: Design, op: AddDeviceType) -> Applied:
    if op.item.slug in design.device_types:
        raise EditError(f"The design already holds catalog item {op.item.slug!r}.")
    design.device_types[op.item.slug] = op.item
    design.index.touch_types()
    return Applied(RemoveDeviceType(op.item.slug), type_change(design, op.item.slug))


def _remove_device_type(design: Design, op: RemoveDeviceType) -> Applied:
    item = design.device_types.pop(op.slug, None)
    if item is None:
        raise EditError(f"The design holds no catalog item {op.slug!r}.")
    design.index.touch_types()
    return Applied(AddDeviceType(item), type_change(design, op.slug))


#: This module's edits: how each is carried out and what it can change, gathered by
#: :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {
    ReplaceDeviceType: Edit(_replace_device_type, keep.device_types),
    AddDeviceType: Edit(_add_device_type, keep.device_types),
    RemoveDeviceType: Edit(_remove_device_type, keep.device_types),
}
