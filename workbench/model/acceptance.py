"""Acceptance results: what ``health_check.sh`` (or a person) measured on a node.

Like the version matrix's observations, results are appended one import at a time and
never edited: the newest per node and item is the node's current state, the older ones
are its history (a FAIL fixed and re-run stays on record).  Nodes are named by device
*name*, as the results files know their host names.

The design keeps them in ``Design.acceptance`` (a list, in import order); the edits
here are the import and its exact inverse, registered like :mod:`version_ops`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.model import keep
from workbench.model.applied import Applied, Edit
from workbench.model.change import Change
from workbench.model.errors import EditError
from workbench.model.records import AcceptanceResult
from workbench.text_rules import STORED_TEXT, field_problem

if TYPE_CHECKING:  # design.py imports this module for its ``acceptance`` field
    from workbench.model.design import Design

#: The verdicts a result may hold (the checklist's drop-down offers the same).
VERDICTS: tuple[str, ...] = ("PASS", "FAIL", "SKIP")
#: Longest measured value kept (a command's output is cut to this by the script).
MAX_MEASURED_CHARS = STORED_TEXT["acceptance_results.measured"].limit


#: The result's text fields; what each may hold is in ``STORED_TEXT``.
_TEXTS = ("node", "item", "measured", "source", "imported_at", "imported_by", "measured_at",
          "import_id")  # fmt: skip


def check_result(result: AcceptanceResult) -> None:
    """EditError (one line) for a result the design must not hold."""
    for name in _TEXTS:
        problem = field_problem(f"acceptance_results.{name}", getattr(result, name))
        if problem is not None:
            raise EditError(f"Acceptance result {name}: {problem}.")
    if result.verdict not in VERDICTS:
        raise EditError(f"Acceptance result verdict {result.verdict!r} is not one of "
                        f"{', '.join(VERDICTS)}.")  # fmt: skip
    line = result.line
    if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 1):
        raise EditError(f"Acceptance result line must be a line number from 1, got {line!r}.")


def latest_results(results: Iterable[AcceptanceResult]) -> dict[tuple[str, str], AcceptanceResult]:
    """(node, item) → its newest result: the latest ``measured_at``, a later row on a tie
    (so a re-import of the same file is the current one)."""
    latest: dict[tuple[str, str], AcceptanceResult] = {}
    for r in results:
        key = (r.node, r.item)
        seen = latest.get(key)
        if seen is None or r.measured_at >= seen.measured_at:
            latest[key] = r
    return latest


@dataclass(frozen=True)
class AddAcceptanceResults:
    """One import: results appended at the end, all with one ``import_id``."""

    results: tuple[AcceptanceResult, ...]


@dataclass(frozen=True)
class RemoveLastAcceptanceImport:
    """Undo of :class:`AddAcceptanceResults`: the trailing results of ``import_id``."""

    import_id: str


_CHANGE = Change(design=True)


def _list(design: Design) -> list[AcceptanceResult]:
    return design.acceptance


def _add(design: Design, op: AddAcceptanceResults) -> Any:
    imports = {r.import_id for r in op.results}
    if len(imports) != 1:
        raise EditError("One import adds acceptance results of one import id.")
    (import_id,) = imports
    stored = _list(design)
    if any(r.import_id == import_id for r in stored):
        raise EditError(f"Acceptance import {import_id!r} is already in the design.")
    for result in op.results:
        check_result(result)
    stored.extend(op.results)
    return _applied(RemoveLastAcceptanceImport(import_id))


def _remove_last(design: Design, op: RemoveLastAcceptanceImport) -> Any:
    stored = _list(design)
    start = n = len(stored)
    while start > 0 and stored[start - 1].import_id == op.import_id:
        start -= 1
    if start == n or any(r.import_id == op.import_id for r in stored[:start]):
        raise EditError(f"Acceptance import {op.import_id!r} is not the newest one.")
    taken = tuple(stored[start:])
    del stored[start:]
    return _applied(AddAcceptanceResults(taken))


def _applied(inverse: object) -> Any:
    return Applied(inverse, _CHANGE)


#: This module's edits: how each is carried out and what it can change, gathered by :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {
    AddAcceptanceResults: Edit(_add, keep.acceptance),
    RemoveLastAcceptanceImport: Edit(_remove_last, keep.acceptance),
}
