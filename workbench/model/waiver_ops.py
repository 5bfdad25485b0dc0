"""Edits of the design's waivers: a finding accepted with a note, or no longer.

Gathered by :mod:`workbench.model.ops` (which re-exports the classes) through :data:`EDITS`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from workbench.model import keep
from workbench.model.applied import Applied, Edit, insert_at
from workbench.model.change import Change
from workbench.model.design import Design, Waiver
from workbench.model.errors import EditError
from workbench.model.names import clean_field
from workbench.text_rules import STORED_TEXT


@dataclass(frozen=True)
class AddWaiver:
    waiver: Waiver
    index: int | None = None


@dataclass(frozen=True)
class RemoveWaiver:
    rule: str
    object_id: str


def _waiver_change(design: Design, waiver: Waiver) -> Change:
    """A waiver changes how its object's rack is marked, nothing else."""
    rack = design.index.rack_of(waiver.object_id)
    return Change(waivers=True, racks=frozenset({rack.id}) if rack is not None else frozenset())


def _waiver_position(design: Design, rule: str, object_id: str) -> int | None:
    for i, waiver in enumerate(design.waivers):
        if waiver.rule == rule and waiver.object_id == object_id:
            return i
    return None


def _add_waiver(design: Design, op: AddWaiver) -> Applied:
    waiver = op.waiver
    if _waiver_position(design, waiver.rule, waiver.object_id) is not None:
        raise EditError(f"{waiver.rule} on {waiver.object_id!r} is already waived.")
    if not isinstance(waiver.note, str) or not waiver.note.strip():
        raise EditError("A waiver needs a note saying why the finding is accepted.")
    note = clean_field("waivers.note", waiver.note)
    for key, value in (("waivers.rule", waiver.rule), ("waivers.object_id", waiver.object_id),
                       ("waivers.created_at", waiver.created_at)):  # fmt: skip
        problem = STORED_TEXT[key].problem(value)  # made by the app, judged as stored
        if problem is not None:
            raise EditError(f"A waiver's {STORED_TEXT[key].what} {problem}.")
    waiver = replace(waiver, note=note) if note != waiver.note else waiver
    insert_at(design.waivers, waiver, op.index, "waivers")
    return Applied(RemoveWaiver(waiver.rule, waiver.object_id), _waiver_change(design, waiver))


def _remove_waiver(design: Design, op: RemoveWaiver) -> Applied:
    i = _waiver_position(design, op.rule, op.object_id)
    if i is None:
        raise EditError(f"{op.rule} on {op.object_id!r} is not waived.")
    waiver = design.waivers.pop(i)
    return Applied(AddWaiver(waiver, i), _waiver_change(design, waiver))


#: This module's edits: how each is carried out and what it can change.
EDITS: dict[type, Edit] = {
    AddWaiver: Edit(_add_waiver, keep.waivers),
    RemoveWaiver: Edit(_remove_waiver, keep.waivers),
}
