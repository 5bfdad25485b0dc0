"""Putting a catalog item into a rack without a unit under a pointer: a drop on the
floor plan, and the keyboard way (select a rack, and a unit by clicking it; pick a
catalog item; Enter or Place Here).

Where it goes: the unit chosen, else where a fill would put one more
(:func:`workbench.planning.filling.first_free_unit`: servers low, switches high); the
verdict is the drop's (:func:`workbench.rules.drops.judge_drop`), so green, amber and red
mean what they mean in the rack view.
"""

from __future__ import annotations

from workbench.catalog.item import CatalogItem
from workbench.model import Design, Rack
from workbench.model.hall_edits import Slot
from workbench.model.requests import lookup_item
from workbench.planning.filling import first_free_unit
from workbench.rules.drops import DropState, DropVerdict, judge_drop
from workbench.ui.shell.document import Document


def catalog_item(document: Document, slug: str) -> CatalogItem | None:
    """The item ``slug`` from the design's snapshot, else the catalog."""
    return document.design.device_types.get(slug) or lookup_item(document.catalog, slug)


def judge_in_rack(
    design: Design, rack: Rack, item: CatalogItem, u: int | None = None, face: str = "front"
) -> tuple[list[Slot], DropVerdict]:
    """The slot ``item`` takes in ``rack`` (at ``u``, else where a fill would put it)
    and the drop's verdict there."""
    if item.u_height > 0 and u is None:
        u = first_free_unit(design, rack, item, face)
        if u is None:
            reason = f"{rack.name} has no free units that hold {item.label}."
            return [], DropVerdict(DropState.REFUSED, reason)
    slots = [Slot(item, u if item.u_height > 0 else None, face)]
    return slots, judge_drop(design, rack, slots)


def place(
    document: Document, rack_id: str, slug: str, u: int | None = None, face: str = "front"
) -> tuple[str | None, str]:
    """Place one ``slug`` in the rack (one undo step); (new device id or None, what to
    tell the user)."""
    rack = document.design.find_rack(rack_id)
    item = catalog_item(document, slug)
    if rack is None or item is None:
        return None, f"Nothing placed: no rack {rack_id!r} or no catalog item {slug!r}."
    slots, verdict = judge_in_rack(document.design, rack, item, u, face)
    if not verdict.allowed:
        return None, f"Not placed: {verdict.reason}"
    slot = slots[0]
    placed = document.place_new_device(rack_id, slug, slot.u, slot.face)
    if placed is None:
        return None, "Not placed."
    found = document.design.find_device(placed)
    name = found[1].name if found is not None else placed
    if verdict.state is DropState.OVER_BUDGET:
        return placed, f"Placed {name}, but over budget: {verdict.reason}"
    return placed, f"Placed {name}."


__all__ = ["catalog_item", "judge_in_rack", "place"]
