"""The numbered ids the design index hands out: their shapes, the highest number in
use, and whether a whole batch of them is free.

Kept apart from :mod:`workbench.model.index` because they read only id tables, not the
index's other state: the index asks them when a new object needs an id (a million at
once when a 1,000,000-GPU template is built).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: Prefix and digits of the ids the allocator makes for each kind (the templates use the
#: same shapes: ``d000001``, ``r00001``, ``row001``).
ID_SHAPES: dict[str, tuple[str, int]] = {
    "site": ("site", 1),
    "row": ("row", 3),
    "rack": ("r", 5),
    "device": ("d", 6),
    "link": ("l", 6),
    "workload": ("wl-", 1),
}


def highest_number(table: Iterable[str], prefix: str) -> int:
    """The highest number after ``prefix`` among ``table``'s ids made of the prefix and
    ASCII digits (0 when none): new ids continue after it, so they sort after the
    template's and are never reused within a session."""
    start = len(prefix)
    best = 0
    for object_id in table:
        if object_id.startswith(prefix):
            tail = object_id[start:]
            if tail.isdigit() and tail.isascii():
                best = max(best, int(tail))
    return best


def batch_free(
    tables: Iterable[Mapping[str, object]], prefix: str, digits: int, first: int, batch: list[str]
) -> bool:
    """Whether no table has an id in ``batch`` (the ids numbered from ``first`` on, as
    :meth:`workbench.model.index.DesignIndex.new_ids` makes them).

    A table much smaller than the batch is read id by id: only an id with the prefix,
    digits after it, a number in the batch's range and the batch's exact spelling of
    that number can be one of them. That spares hashing the whole batch into a set
    (3 million link ids at 1,000,000 GPUs: ~0.5 s) when the other tables hold a few
    hundred thousand ids; a larger table is checked against the set.
    """
    last = first + len(batch)
    spell = f"{prefix}%0{digits}d".__mod__
    start = len(prefix)
    wanted: set[str] | None = None
    for table in tables:
        if not table:
            continue
        if 2 * len(table) < len(batch):
            for object_id in table:
                if isinstance(object_id, str) and object_id.startswith(prefix):
                    tail = object_id[start:]
                    if (
                        tail.isascii()
                        and tail.isdigit()
                        and first <= int(tail) < last
                        and spell(int(tail)) == object_id
                    ):
                        return False
            continue
        if wanted is None:
            wanted = set(batch)
        if not table.keys().isdisjoint(wanted):
            return False
    return True
