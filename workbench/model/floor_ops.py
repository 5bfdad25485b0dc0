"""Edits of the hall plan: a rack stood at a floor position, a row shifted.

Kept apart from :mod:`workbench.model.ops` (which gathers :data:`EDITS` and re-exports
the two edit classes) because they touch only floor coordinates: their Change says ``floor``,
so only the plan redraws, and the rack drawing, the fabric and the rules stay as they
are.  The coordinate bound is the model's one (:func:`rack_fields.floor_mm_problem`).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.model import keep
from workbench.model.applied import Applied, Edit, apply_all
from workbench.model.change import Change
from workbench.model.design import FACINGS, Design
from workbench.model.errors import EditError
from workbench.model.rack_fields import floor_mm_problem, is_placed


@dataclass(frozen=True)
class MoveRackOnFloor:
    """Stand a rack with its front-left corner at (``x_mm``, ``y_mm``) on the hall plan,
    its front towards ``facing`` (see :mod:`workbench.model.floor`); None coordinates
    take it off the plan (it is laid out again)."""

    rack_id: str
    x_mm: float | None
    y_mm: float | None
    facing: str = "south"


@dataclass(frozen=True)
class MoveRowOnFloor:
    """Shift every placed rack of a row by (``dx_mm``, ``dy_mm``): a row dragged on the
    plan.  Its inverse puts each rack back at its own earlier place."""

    row_id: str
    dx_mm: float
    dy_mm: float


def _floor_mm(value: object, what: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise EditError(f"The floor {what} must be a number of mm, not {value!r}.")
    problem = floor_mm_problem(float(value))
    if problem is not None:
        raise EditError(f"The floor {what} {problem}.")


def _move_rack_on_floor(design: Design, op: MoveRackOnFloor) -> Applied:
    placed = design.index.racks.get(op.rack_id)
    if placed is None:
        raise EditError(f"No rack with id {op.rack_id!r}.")
    rack = placed[1]
    _floor_mm(op.x_mm, "x")
    _floor_mm(op.y_mm, "y")
    if op.facing not in FACINGS and op.facing != rack.facing:  # keeping an odd one is fine
        raise EditError(f"A rack faces one of {', '.join(FACINGS)}, not {op.facing!r}.")
    old = MoveRackOnFloor(rack.id, rack.floor_x_mm, rack.floor_y_mm, rack.facing)
    rack.floor_x_mm, rack.floor_y_mm, rack.facing = op.x_mm, op.y_mm, op.facing
    return Applied(old, Change(racks=frozenset({rack.id}), floor=True))


def _move_row_on_floor(design: Design, op: MoveRowOnFloor) -> Applied:
    placed = design.index.rows.get(op.row_id)
    if placed is None:
        raise EditError(f"No row with id {op.row_id!r}.")
    _floor_mm(op.dx_mm, "shift")
    _floor_mm(op.dy_mm, "shift")
    steps = tuple(
        MoveRackOnFloor(
            r.id, (r.floor_x_mm or 0.0) + op.dx_mm, (r.floor_y_mm or 0.0) + op.dy_mm, r.facing
        )
        for r in placed[1].racks
        if is_placed(r)  # the plan's own test: odd positions a script set are skipped
    )
    applied = apply_all(design, steps, _move_rack_on_floor)
    return Applied(applied.inverse, applied.change | Change(floor=True))


#: This module's edits: how each is carried out and what it can change, gathered by :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {
    MoveRackOnFloor: Edit(_move_rack_on_floor, keep.rack_on_floor),
    MoveRowOnFloor: Edit(_move_row_on_floor, keep.row_on_floor),
}
