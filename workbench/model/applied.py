"""What every edit returns, and the pieces all edit modules share.

An edit of :mod:`workbench.model.ops` (or of one of the modules it gathers: floor,
networks, versions, acceptance, captures, device types, sites) is a frozen dataclass;
its handler carries it out and returns an :class:`Applied`: the exact inverse and the
:class:`~workbench.model.change.Change` it made.  This module sits below all of them, so
an edit module never imports :mod:`workbench.model.ops` (which imports them all to
build its one table of handlers), and the model has no import circle through its edits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from workbench.model.change import Change
from workbench.model.errors import EditError

if TYPE_CHECKING:
    from workbench.model.design import Design
    from workbench.model.keep import Snapshot


@dataclass(frozen=True)
class Applied:
    """What an edit did: the edit that undoes it, and what it touched."""

    #: An edit of :data:`workbench.model.ops.Op` (typed loosely here: this module is
    #: below the modules that define the edits).
    inverse: Any
    change: Change


@dataclass(frozen=True)
class Batch:
    """Several edits as one (a drag of several devices, a removal of a selection).

    Applied in order; if one fails, those already applied are undone before the error
    is raised, so a batch happens completely or not at all.
    """

    ops: tuple[Any, ...] = field(default_factory=tuple)


#: A handler: carries out one kind of edit (it takes exactly that class, which a
#: mapping's value type cannot say, hence ``Any`` for the edit).
Handler = Callable[["Design", Any], Applied]
#: A keeper: adds to a snapshot what one kind of edit can change (:mod:`workbench.model.keep`).
Keeper = Callable[["Design", Any, "Snapshot"], None]


class Edit(NamedTuple):
    """One kind of edit, as the model's table knows it: how to carry it out, and what it
    can change (kept before each step so that an unexpected failure is put back).  Every
    edit has exactly one of these, in the ``EDITS`` table of the module that defines it."""

    apply: Handler
    keeps: Keeper


def insert_at(items: list, obj: object, index: int | None, what: str) -> int:
    """Insert ``obj`` at ``index`` (None: at the end) of ``items``, refusing a position
    outside the list, and return where it went."""
    if index is None:
        index = len(items)
    if not 0 <= index <= len(items):
        raise EditError(f"Position {index} is outside the {len(items)} {what}.")
    items.insert(index, obj)
    return index


def apply_all(design: Design, steps: Iterable[Any], handle: Handler) -> Applied:
    """Carry out ``steps`` in order with ``handle``, as one edit: if one fails, those
    already done are undone (newest first) before the error is raised.  The inverse is a
    :class:`Batch` of the inverses, newest first."""
    done: list[Applied] = []
    try:
        for step in steps:
            done.append(handle(design, step))
    except Exception as exc:
        for applied in reversed(done):
            try:
                handle(design, applied.inverse)
            except Exception as undo_exc:  # noqa: BLE001 - keep the first error the cause
                design.reindex()  # the lists are the truth; the index is rebuilt from them
                if hasattr(exc, "add_note"):  # Python 3.11+
                    exc.add_note(f"undoing an earlier step of the batch also failed: {undo_exc}")
        raise
    change = Change.combine(a.change for a in done)
    return Applied(Batch(tuple(a.inverse for a in reversed(done))), change)
