"""The numbered ids the design index hands out: their shapes, the highest number in
use, whether a whole batch of them is free, and the runs of them a list of links holds.

Kept apart from :mod:`workbench.model.index` because they read only id tables, not the
index's other state: the index asks them when a new object needs an id (a million at
once when a 1,000,000-GPU template is built).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import methodcaller

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


def spelled_batch(prefix: str, digits: int, first: int, count: int) -> list[str]:
    """The ids numbered ``first`` to ``first + count - 1``, spelt ``f"{prefix}%0{digits}d"``.

    Spelt a hundred at a time: each hundred's head (``l0123``) is put before the hundred
    two-digit tails of one text, and the text of many hundreds is split into the ids, so
    the strings are made in C, not one call each: ~2 times faster than joining each head
    to each tail, which was ~3 times faster than formatting each number (4.4 million
    link ids at 1,000,000 GPUs); the same text, held equal to the plain spelling by
    tests/test_link_id_runs.py.  A number past the shape's digits is spelt whole either
    way (``l1000000``: its head is then wider, ``l10000``).  A shape of under three
    digits, or a prefix holding white space (which the split would cut), is formatted
    one by one."""
    last = first + count
    if digits < 3 or first < 0 or count <= 0 or _splits(prefix):
        return list(map(f"{prefix}%0{digits}d".__mod__, range(first, last)))
    head = f"{prefix}%0{digits - 2}d".__mod__
    hundred = _HUNDRED.replace
    batch: list[str] = []
    low, high = first // 100, (last - 1) // 100
    for start in range(low, high + 1, _HUNDREDS_PER_TEXT):
        heads = map(head, range(start, min(start + _HUNDREDS_PER_TEXT, high + 1)))
        ids = " ".join([hundred("#", h) for h in heads]).split()
        batch += ids[first - low * 100 :] if start == low else ids
    del batch[count:]
    return batch


def _splits(prefix: str) -> bool:
    """Whether ``prefix`` would be cut by :meth:`str.split` (it holds white space)."""
    return len(prefix.split()) != 1 or prefix.split()[0] != prefix


#: The hundred two-digit tails of :func:`spelled_batch`, each after a head (``#``).
_HUNDRED = " ".join(f"#{n:02d}" for n in range(100))
#: Hundreds spelt in one text: small enough that the text is a few tens of kilobytes.
_HUNDREDS_PER_TEXT = 50


def spelled_number(object_id: object, prefix: str, digits: int) -> int | None:
    """The number of an id spelt exactly as the allocator spells ids of this shape
    (``f"{prefix}%0{digits}d"``); None for any other id (fewer or more digits, another
    prefix, not text), which no id of that shape can equal."""
    if not isinstance(object_id, str) or not object_id.startswith(prefix):
        return None
    tail = object_id[len(prefix) :]
    if not (tail.isascii() and tail.isdigit()):
        return None
    number = int(tail)
    return number if f"{prefix}%0{digits}d" % number == object_id else None


def batch_free(
    tables: Iterable[Mapping[str, object]], prefix: str, digits: int, first: int, batch: list[str]
) -> bool:
    """Whether no table has an id in ``batch`` (the ids numbered from ``first`` on, as
    :meth:`workbench.model.index.DesignIndex.new_ids` makes them).

    A table smaller than the batch is read id by id, its ids sifted by the prefix in C
    first: only an id with the prefix, digits after it, a number in the batch's range
    and the batch's exact spelling of that number can be one of them. That spares
    hashing the whole batch into a set (3 million link ids at 1,000,000 GPUs: ~0.5 s)
    when the other tables hold a million device ids or fewer; a larger table is checked
    against the set.
    """
    last = first + len(batch)
    wanted: set[str] | None = None
    for table in tables:
        if not table:
            continue
        if len(table) < len(batch):
            for object_id in _with_prefix(table, prefix):
                number = spelled_number(object_id, prefix, digits)
                if number is not None and first <= number < last:
                    return False
            continue
        if wanted is None:
            wanted = set(batch)
        if not table.keys().isdisjoint(wanted):
            return False
    return True


def _with_prefix(table: Iterable[object], prefix: str) -> Iterable[object]:
    """``table``'s ids that may start with ``prefix``: sifted in C (a million device ids
    in ~0.1 s) when every id is text; all of them when one is not (a damaged file's),
    for the caller's exact test to judge."""
    try:
        return list(filter(methodcaller("startswith", prefix), table))
    except (AttributeError, TypeError):
        return table


class NumberedRuns:
    """Exactly the ids of a list of objects, while each of them came from one of the
    allocator's batches: the batches' number ranges, of one id shape.

    Whether an id is one of them, or a new batch meets them, is then arithmetic instead
    of a table of millions of ids: a 1,000,000-GPU template adds 4.4 million links, and
    their id table, built only to check each new id against it, was a tenth of the
    build.  ``count`` is how many ids the runs hold, for the holder to tell that its
    list still has exactly those (a list changed behind its back holds another count).
    """

    def __init__(self, prefix: str, digits: int):
        self.prefix, self.digits = prefix, digits
        #: Half-open number ranges, in the order added (adjacent ones joined).
        self.spans: list[tuple[int, int]] = []
        self.count = 0

    def holds(self, object_id: object) -> bool:
        """Whether ``object_id`` is one of the ids."""
        number = spelled_number(object_id, self.prefix, self.digits)
        return number is not None and self.meets(number, number + 1)

    def meets(self, first: int, last: int) -> bool:
        """Whether a number in ``[first, last)`` is one of the ids'."""
        return any(a < last and first < b for a, b in self.spans)

    def meets_batch(self, prefix: str, digits: int, first: int, batch: list[str]) -> bool:
        """Whether an id of ``batch`` (numbered from ``first`` on, spelt ``prefix`` and
        ``digits``) is one of the ids: by the numbers when the shape is the runs', else
        id by id (another shape's id can still spell one of these, ``l0`` + 5 digits)."""
        if (prefix, digits) == (self.prefix, self.digits):
            return self.meets(first, first + len(batch))
        return any(map(self.holds, batch))

    def add(self, first: int, last: int) -> bool:
        """Take in the ids numbered ``[first, last)``; False, changing nothing, when one
        of them is held already (the runs would no longer be one id per object)."""
        if self.meets(first, last):
            return False
        if self.spans and self.spans[-1][1] == first:
            self.spans[-1] = (self.spans[-1][0], last)
        else:
            self.spans.append((first, last))
        self.count += last - first
        return True

    def highest(self) -> int:
        """The highest number held (0 when none), as :func:`highest_number` reads it
        off the ids."""
        return max((last for _first, last in self.spans), default=1) - 1
