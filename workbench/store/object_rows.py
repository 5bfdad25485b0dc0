"""Writing a big table straight from its objects, a chunk at a time, no row tuples made.

The writer's rows for a design's flat lists (``(seq,) + fields``, :mod:`workbench.store.
binding`) cost, for the 4.2 million links of a 1,000,000-GPU design, two tuples a link
(~1.9 s and 160,000 page faults on the slow machine), then a third per link to bind the
values a run does not share, a list of every ``seq`` to see that they number
themselves, and the text check's columns of 4.2 million values each.  Here a long table
whose values run (:mod:`workbench.store.runs`) goes from the objects to SQLite a chunk
of a few thousand at a time: one tuple per object holds the values bound, in the order
bound; the ``seq`` is left to SQLite (the objects are numbered 1, 2, 3 … by their place,
which is the number a new rowid table gives); the texts are checked on the chunk's
values as they are bound.  Memory freed by one chunk is reused by the next, so a save
allocates about as much for 4 million links as for 5,000.  The devices go the same way,
every rack's in one list, each one's rack seq put beside its values by list slices.

The file holds the same rows as if the writer had made them (and the text check is the
same: a chunk is passed only when certain to be fine, else the whole table is checked
the writer's way, which names the bad value it always named).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, groupby, islice
from operator import attrgetter
from pathlib import Path
from typing import Any

from workbench.store import runs
from workbench.store.binding import Binding, getter
from workbench.store.value_table import _plain_texts, check_stored_texts
from workbench.text_rules import STORED_TEXT, TextRule


@dataclass(frozen=True)
class ObjectRows:
    """A table's rows, not made yet: row ``i`` is ``(i + 1,)``, for a child table its
    parent's seq ``parents[i]``, and the fields of ``objects[i]`` in ``binding.fields``
    order (a flat list of the design, or the devices of every rack).  Written from the
    objects only when no field is JSON."""

    binding: Binding
    objects: Sequence[Any]
    parents: Sequence[int] | None = None

    def rows(
        self, fields_of: Callable[[Any], tuple[Any, ...]] | None = None
    ) -> list[tuple[Any, ...]]:
        """The rows, made (for a small table, and for whoever wants to see them), an
        object's fields given by ``fields_of`` (default: as they are)."""
        get = getter(self.binding) if fields_of is None else fields_of
        if self.parents is None:
            return [(seq,) + get(obj) for seq, obj in enumerate(self.objects, 1)]
        pairs = zip(self.parents, self.objects, strict=True)
        return [(seq, parent) + get(obj) for seq, (parent, obj) in enumerate(pairs, 1)]


def insert_objects(conn: sqlite3.Connection, file: Path, found: ObjectRows) -> bool:
    """Write ``found``'s rows in runs straight from the objects; False (having written
    nothing) when its values do not run (or its parents do), for the writer to make the
    rows and write them its own way."""
    columns = found.binding.columns
    row_of = getter(found.binding)
    parents = found.parents
    sample = [
        (0,) + ((parents[i],) if parents is not None else ()) + row_of(found.objects[i])
        for i in runs.sampled(range(len(found.objects)))
    ]
    shared = runs.shared_columns(sample, len(columns))
    own = [columns[i] for i in range(1, len(columns)) if i not in shared]
    keys = len(found.binding.keys)
    if not shared or len(own) < keys + 1 or min(shared) < keys:
        return False
    _Runs(conn, _TextCheck(file, found), found, own, [columns[i] for i in shared]).write()
    return True


class _TextCheck:
    """:func:`~workbench.store.value_table.check_stored_texts` of a table written from
    its objects, a batch of values at a time: a batch passes when every value is certain
    to be fine (``_plain_texts``, in C); otherwise the whole table is checked the
    writer's way, which refuses the value it always refused (or, the values being fine
    after all, lets the rest pass unchecked)."""

    def __init__(self, file: Path, found: ObjectRows):
        self.file = file
        self.found = found
        table = found.binding.table
        self.rules: dict[str, TextRule] = {
            c: STORED_TEXT[f"{table}.{c}"]
            for c in found.binding.fields
            if f"{table}.{c}" in STORED_TEXT
        }
        #: Columns whose values a batch repeats (a set of them is walked instead).
        self.repeating = set(self.rules)

    def values(self, column: str, values: list[Any]) -> None:
        """``values`` of ``column``, about to be written."""
        rule = self.rules.get(column)
        if rule is None:
            return
        walk: Collection[Any] = values
        if column in self.repeating:
            distinct = set(values)  # ports: a few names; their hashes known
            if 2 * len(distinct) < len(values):
                walk = distinct
            elif len(values) >= runs.MIN_RUN:
                self.repeating.discard(column)  # ids: no set of them again
        if not _plain_texts(walk, walk, rule.limit, rule.blank_ok):
            self.whole()

    def objects(self, objects: Sequence[Any]) -> None:
        """Every checked column of ``objects``, about to be written."""
        for column in list(self.rules):
            self.values(column, list(map(attrgetter(column), objects)))

    def whole(self) -> None:
        """Check the whole table as the writer checks made rows; nothing more to do."""
        rules, self.rules = self.rules, {}
        if rules:
            b = self.found.binding
            check_stored_texts(self.file, b.table, b.columns, self.found.rows())


class _Runs:
    """One table's objects written run by run (see :func:`insert_objects`)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        check: _TextCheck,
        found: ObjectRows,
        own: Sequence[str],
        shared: Sequence[str],
    ):
        self.conn = conn
        self.check = check
        self.objects = found.objects
        self.parents = found.parents
        self.table = found.binding.table
        #: The columns bound for a row written the plain way (all but ``seq``).
        self.plain_columns = found.binding.columns[1:]
        self.fields = found.binding.fields
        self.own = own
        self.shared = shared
        #: The own values that are fields (all but the parent's seq, which leads).
        self.own_of = attrgetter(*own[len(found.binding.keys) - 1 :])
        #: Rows per statement, and objects per chunk (whole statements).
        self.per = runs.per_statement(len(own))
        self.chunk = self.per * (runs.BATCH // self.per)
        #: Objects read so far; the first of those held to be written the plain way.
        self.at = self.held = 0

    def write(self) -> None:
        """Long runs with their shared values as literals, the rest the plain way."""
        short = 0  # runs held for the plain way
        for values, group in groupby(self.objects, attrgetter(*self.shared)):
            short += self.group(values if len(self.shared) > 1 else (values,), group)
            if short > runs.MAX_SHORT:
                break  # the columns do not run after all: the rest the plain way
        self.at = len(self.objects)
        self.flush()

    def group(self, values: Sequence[Any], group: Iterator[Any]) -> bool:
        """Write (or hold, for the plain way) one group of objects sharing ``values``;
        whether it is held."""
        first = list(islice(group, self.chunk))
        found = runs.literals(values)
        if found is None or len(first) < runs.MIN_RUN:
            first.extend(group)
            self.at += len(first)
            if self.at - self.held >= runs.BATCH:
                self.flush()
            return True
        self.flush()
        for name, value in zip(self.shared, values, strict=True):
            self.check.values(name, [value])
        self.run(found, first, group)
        self.held = self.at
        return False

    def flush(self) -> None:
        """Write the objects held for the plain way, every value a parameter (their
        ``seq`` left to SQLite)."""
        sql = runs.insert_sql(self.table, self.plain_columns)
        for start in range(self.held, self.at, runs.BATCH):
            objects = self.objects[start : min(start + runs.BATCH, self.at)]
            self.check.objects(objects)
            self.conn.executemany(sql, self.plain_rows(start, objects))
        self.held = self.at

    def plain_rows(self, start: int, objects: Sequence[Any]) -> Iterable[tuple[Any, ...]]:
        """The rows of ``objects`` (the objects from ``start`` on) but their ``seq``."""
        fields_of = attrgetter(*self.fields)
        if self.parents is None:
            return map(fields_of, objects)
        parents = self.parents[start : start + len(objects)]
        return [(p,) + fields for p, fields in zip(parents, map(fields_of, objects), strict=True)]

    def run(self, found: Sequence[str], chunk: list[Any], rest: Iterator[Any]) -> None:
        """Write a run (``chunk`` and what ``rest`` holds), ``self.per`` rows per
        statement, their own values in one flat tuple."""
        width = len(self.own)
        many = runs.insert_sql(self.table, [*self.own, *self.shared], found, self.per)
        one = runs.insert_sql(self.table, [*self.own, *self.shared], found)
        while chunk:
            flat = self.flat(chunk)
            for at, name in enumerate(self.own):
                self.check.values(name, flat[at::width])
            whole = (len(chunk) - len(chunk) % self.per) * width
            self.conn.executemany(
                many, zip(*[iter(flat[:whole])] * (self.per * width), strict=False)
            )
            if whole < len(flat):
                self.conn.executemany(one, zip(*[iter(flat[whole:])] * width, strict=False))
            chunk = list(islice(rest, self.chunk))

    def flat(self, chunk: list[Any]) -> list[Any]:
        """The own values of ``chunk`` (the next objects), row after row; the parent's
        seq put in place by slices (in C), not a tuple per object."""
        values = list(chain.from_iterable(map(self.own_of, chunk)))
        start, self.at = self.at, self.at + len(chunk)
        if self.parents is None:
            return values
        width = len(self.own)
        flat: list[Any] = [None] * (len(chunk) * width)
        flat[0::width] = self.parents[start : self.at]
        for at in range(1, width):
            flat[at::width] = values[at - 1 :: width - 1]
        return flat
