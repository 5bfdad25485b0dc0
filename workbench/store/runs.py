"""Writing a big table's rows in runs: the values a long run of rows shares go into the
``INSERT`` as SQL literals, so only the others are bound row by row.

Binding a value costs the sqlite3 module about as much as SQLite's whole insert; the
4.2 million links of a 1,000,000-GPU design share their network, speed, cable type and
length with their neighbours (a plane's links), so they bind 5 values each instead of
10.  The rows stored are the same, value for value and type for type (:func:`literals`
makes only literals that read back exactly).  Used by the writer
(:mod:`workbench.store.writer`) for rows it has made and by
:mod:`workbench.store.object_rows` for a table it writes straight from the objects.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from itertools import chain, groupby
from operator import eq, itemgetter, ne
from typing import Any

#: Rows per executemany call: large enough that the per-call overhead vanishes, small
#: enough that a 100,000-GPU design never builds one huge list of tuples twice.
BATCH = 5000
#: Tables with fewer rows are written row by row with every value a parameter.
RUNS_FROM = 20_000
#: Rows of a run written by one statement, and the parameters one statement may take
#: (SQLite's limit before 3.32).
PER_STATEMENT = 50
MAX_PARAMETERS = 999
#: Rows looked at to find the columns whose values come in long runs.
SAMPLE = 2048
#: A run shorter than this is written with every value a parameter.
MIN_RUN = 256
#: Short runs (or runs of values with no exact literal) after which a table is written
#: the plain way: its columns do not run after all.
MAX_SHORT = 256


def insert_sql(
    table: str, columns: Sequence[str], values: Sequence[str] = (), rows: int = 1
) -> str:
    """``INSERT`` of ``rows`` rows of ``columns``: a parameter each, but for the last
    ``len(values)`` columns, whose SQL literals are ``values``."""
    marks = ["?"] * (len(columns) - len(values)) + list(values)
    row = f"({', '.join(marks)})"
    return f'INSERT INTO "{table}" ({", ".join(columns)}) VALUES {", ".join([row] * rows)}'


def per_statement(width: int) -> int:
    """Rows per multi-row statement of ``width`` parameters each, within the 999
    parameters any SQLite takes."""
    return max(1, min(PER_STATEMENT, MAX_PARAMETERS // width))


def sampled(items: Sequence[Any]) -> Sequence[Any]:
    """About :data:`SAMPLE` of ``items`` at an even stride (what :func:`shared_columns`
    looks at)."""
    return items[:: max(1, len(items) // SAMPLE)]


def shared_columns(sample: Sequence[Sequence[Any]], width: int) -> list[int]:
    """Columns (but the first, the row number) whose values come in long runs: nearly
    every row of ``sample`` (the table's rows at an even stride, :func:`sampled`) holds
    the value of the one before it (every link of a plane has its network and speed,
    and no cable type or length until the hall is measured)."""
    shared = []
    for i in range(1, width):
        values = list(map(itemgetter(i), sample))
        if sum(map(ne, values, values[1:])) * 32 <= len(values):
            shared.append(i)
    # At least two columns stay parameters (a row's own values are a tuple).
    return shared if len(shared) < width - 1 else shared[:-1]


def insert_runs(
    conn: sqlite3.Connection,
    table: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    shared: Sequence[int],
) -> None:
    """Write ``rows`` run by run: each long run of rows holding the same values in the
    ``shared`` columns with those values as SQL literals, so only the others are bound
    row by row; rows whose values have none go the plain way, in order."""
    own = [i for i in range(len(columns)) if i not in shared]
    if len(own) > 2 and numbered(rows):
        # Rows numbered 1, 2, 3 … in order into a new table: SQLite gives a row with no
        # number one more than the largest so far, the same number (one value less to
        # bind per row).
        own = own[1:]
    plain_sql = insert_sql(table, columns)
    names = [columns[i] for i in (*own, *shared)]
    mine = itemgetter(*own)
    per = per_statement(len(own))
    key = itemgetter(*shared)
    pending: list[Sequence[Any]] = []
    taken = short = 0  # rows read so far; runs written the plain way
    for values, group in groupby(rows, key):
        run = list(group)
        taken += len(run)
        found = literals(values if len(shared) > 1 else (values,))
        if found is None or len(run) < MIN_RUN:
            pending += run
            if len(pending) >= BATCH:
                conn.executemany(plain_sql, pending)
                pending = []
            short += 1
            if short > MAX_SHORT:
                break  # the columns do not run after all: the rest the plain way
            continue
        if pending:
            conn.executemany(plain_sql, pending)
            pending = []
        # Many rows per statement, their values in one flat tuple: the sqlite3
        # module's own cost per executed statement is then shared by them all.
        whole = len(run) - len(run) % per
        if whole:
            sql = insert_sql(table, names, found, per)
            for at in range(0, whole, per * 100):
                flat = iter(chain.from_iterable(map(mine, run[at : min(at + per * 100, whole)])))
                conn.executemany(sql, zip(*[flat] * (per * len(own)), strict=False))
        if whole < len(run):
            conn.executemany(insert_sql(table, names, found), map(mine, run[whole:]))
    if pending:
        conn.executemany(plain_sql, pending)
    for at in range(taken, len(rows), BATCH):
        conn.executemany(plain_sql, rows[at : at + BATCH])


def numbered(rows: Sequence[Sequence[Any]]) -> bool:
    """Whether the rows' first values (their ``seq``) are the whole numbers 1, 2, 3 …"""
    seqs = list(map(itemgetter(0), rows))
    return set(map(type, seqs)) == {int} and all(map(eq, seqs, range(1, len(seqs) + 1)))


def literals(values: Sequence[Any]) -> list[str] | None:
    """SQL literals that SQLite reads back as exactly ``values``, or None when one has
    none: NULL, whole numbers, floats that are whole and exact in a double (the speeds),
    and printable ASCII text, quoted."""
    out = []
    for value in values:
        kind = type(value)
        if value is None:
            out.append("NULL")
        elif kind is int and -(2**63) <= value < 2**63:
            out.append(str(value))
        elif kind is float and value.is_integer() and 0 < abs(value) < 2**53:
            out.append(repr(value))
        elif kind is str and value.isascii() and value.isprintable():
            out.append("'" + value.replace("'", "''") + "'")
        else:
            return None
    return out
