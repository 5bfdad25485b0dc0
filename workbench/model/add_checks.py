"""What every add checks before it changes anything: fresh ids, and names the file holds.

Ids first: every object needs non-empty text, given once and held by nothing yet; the
tables are asked for the few new ids (never walked: a generated fabric adds 300,000 links
to a design that may hold millions).  Names next, by the stored-text rule of their column
(:data:`workbench.text_rules.STORED_TEXT`), so a name no export can hold never enters.
"""

from __future__ import annotations

from collections.abc import Iterable

from workbench.model.design import Design, Device, Rack, Row
from workbench.model.errors import EditError
from workbench.text_rules import STORED_TEXT


def check_free(design: Design, ids: Iterable[str]) -> None:
    """Every id is non-empty text, given once, and no object has it yet.  Asked of
    every link a generated fabric adds (300,000 at 100,000 GPUs), so the common case,
    all fresh, is a few set operations rather than a lookup per id and table."""
    wanted = ids if isinstance(ids, list) else list(ids)
    index = design.index
    if len(wanted) == 1 and type(wanted[0]) is str and wanted[0]:
        # One new object (each switch a generated fabric places): asked of the tables
        # directly; an id in use goes on to the refusal below.
        if not index.in_use(wanted[0]):
            return
    elif index.fresh_batch(wanted):
        return  # a generated fabric's links, with the ids just handed out for them
    # Plain text throughout is told by the ids' types, in C; anything else (a subclass
    # of str, a number) is judged id by id.
    plain = set(map(type, wanted)) <= {str}
    if not plain and not all(isinstance(object_id, str) and object_id for object_id in wanted):
        raise EditError("Every object needs a non-empty id.")
    unique = set(wanted)
    if "" in unique:
        raise EditError("Every object needs a non-empty id.")
    if len(unique) == len(wanted) and index.none_in_use(unique):
        return
    seen: set[str] = set()
    for object_id in wanted:
        if object_id in seen or index.in_use(object_id):
            raise EditError(f"The id {object_id!r} is already in use.")
        seen.add(object_id)


def check_names(what: str, objects: Iterable[Row | Rack | Device]) -> None:
    """Added objects carry names that the file and every export can hold (the rule
    lives in :data:`workbench.text_rules.STORED_TEXT`); checked like ids, on every add."""
    rule = STORED_TEXT[f"{what}s.name"]
    for obj in objects:
        problem = rule.problem(obj.name)
        if problem is not None:
            raise EditError(f"The {what} {obj.name!r:.60} cannot be added: its name {problem}.")
