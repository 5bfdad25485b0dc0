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
allocates about as much for 4 million links as for 5,000.

The file holds the same rows as if the writer had made them (and the text check is the
same: a chunk is passed only when certain to be fine, else the whole table is checked
the writer's way, which names the first bad value as it always did).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator, Sequence
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
    """A table's rows, not made yet: row ``i`` is ``(i + 1,)`` and the fields of
    ``objects[i]`` in ``binding.fields`` order (a flat list of the design, no JSON)."""

    binding: Binding
    objects: Sequence[Any]

    def rows(self) -> list[tuple[Any, ...]]:
        """The rows, made (for a small table, and for whoever wants to see them)."""
        get = getter(self.binding)
        return [(seq,) + get(obj) for seq, obj in enumerate(self.objects, 1)]


def insert_objects(conn: sqlite3.Connection, file: Path, found: ObjectRows) -> bool:
    """Write ``found``'s rows in runs straight from the objects; False (having written
    nothing) when its values do not run, for the writer to make the rows and write them
    its own way."""
    b, objects = found.binding, found.objects
    columns = b.columns
    row_of = getter(b)
    shared = runs.shared_columns(
        [(0,) + row_of(obj) for obj in runs.sampled(objects)], len(columns)
    )
    own = [columns[i] for i in range(1, len(columns)) if i not in shared]
    if not shared or len(own) < 2:
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
        self.table = found.binding.table
        self.fields = found.binding.fields
        self.own = own
        self.shared = shared
        #: Rows per statement, and objects per chunk (whole statements).
        self.per = runs.per_statement(len(own))
        self.chunk = self.per * (runs.BATCH // self.per)
        #: Objects held to be written the plain way, in order.
        self.pending: list[Any] = []

    def write(self) -> None:
        """Long runs with their shared values as literals, the rest the plain way."""
        taken = short = 0  # objects read so far; runs written the plain way
        for values, group in groupby(self.objects, attrgetter(*self.shared)):
            count, plain = self.group(values if len(self.shared) > 1 else (values,), group)
            taken += count
            short += plain
            if short > runs.MAX_SHORT:
                break  # the columns do not run after all: the rest the plain way
        self.flush()
        for at in range(taken, len(self.objects), runs.BATCH):
            self.plain(self.objects[at : at + runs.BATCH])

    def group(self, values: Sequence[Any], group: Iterator[Any]) -> tuple[int, bool]:
        """Write (or hold, for the plain way) one group of objects sharing ``values``;
        how many it held, and whether it goes the plain way."""
        first = list(islice(group, self.chunk))
        found = runs.literals(values)
        if found is None or len(first) < runs.MIN_RUN:
            first.extend(group)
            self.pending += first
            if len(self.pending) >= runs.BATCH:
                self.flush()
            return len(first), True
        self.flush()
        for name, value in zip(self.shared, values, strict=True):
            self.check.values(name, [value])
        return self.run(found, first, group), False

    def flush(self) -> None:
        """Write the objects held for the plain way."""
        if self.pending:
            self.plain(self.pending)
            self.pending = []

    def run(self, found: Sequence[str], chunk: list[Any], rest: Iterator[Any]) -> int:
        """Write a run (``chunk`` and what ``rest`` holds), ``self.per`` rows per
        statement, their own values in one flat tuple; how many objects it held."""
        width = len(self.own)
        own_of = attrgetter(*self.own)
        many = runs.insert_sql(self.table, [*self.own, *self.shared], found, self.per)
        one = runs.insert_sql(self.table, [*self.own, *self.shared], found)
        count = 0
        while chunk:
            count += len(chunk)
            flat = list(chain.from_iterable(map(own_of, chunk)))
            for at, name in enumerate(self.own):
                self.check.values(name, flat[at::width])
            whole = (len(chunk) - len(chunk) % self.per) * width
            self.conn.executemany(
                many, zip(*[iter(flat[:whole])] * (self.per * width), strict=False)
            )
            if whole < len(flat):
                self.conn.executemany(one, zip(*[iter(flat[whole:])] * width, strict=False))
            chunk = list(islice(rest, self.chunk))
        return count

    def plain(self, objects: Sequence[Any]) -> None:
        """``objects`` with every field a parameter (their ``seq`` left to SQLite)."""
        self.check.objects(objects)
        row_of = attrgetter(*self.fields)
        self.conn.executemany(runs.insert_sql(self.table, self.fields), map(row_of, objects))
