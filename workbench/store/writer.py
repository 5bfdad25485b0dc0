"""Saving a design: rows out of dataclasses, into a new file, renamed over the old one.

Atomicity comes from the file system, not from SQLite: the whole database is written
to a temporary file in the target's folder, flushed to disk with fsync, and only then
``os.replace``-d onto the target (an atomic rename on POSIX and Windows).  A crash or an
error at any point before the rename leaves the previous file exactly as it was, and
the temporary file is removed.  Because the temporary file is private until the rename,
it is written with SQLite's journal and syncs switched off, which is what makes saving
a 100,000-GPU design fast; the single fsync before the rename restores durability.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, groupby
from operator import eq, itemgetter, ne
from pathlib import Path
from typing import Any

import workbench
from workbench.model.design import Design
from workbench.store import binding, schema
from workbench.store.acceptance_table import acceptance_rows
from workbench.store.atomic import replace_atomically
from workbench.store.capture_table import capture_rows
from workbench.store.errors import ProjectFileError, os_reason
from workbench.store.snapshot import checked_mappings
from workbench.store.temps import TempSweep, sweep_temps
from workbench.store.value_table import check_stored_texts
from workbench.store.version_tables import version_rows
from workbench.text_rules import field_problem

# Rows per executemany call: large enough that the per-call overhead vanishes, small
# enough that a 100,000-GPU design never builds one huge list of tuples twice.
_BATCH = 5000


def save_design(design: Design, path: str | os.PathLike[str]) -> TempSweep:
    """Write ``design`` to ``path`` atomically; raise ProjectFileError on any failure.

    The existing file (if any) keeps its permission bits.  Nothing but the finished
    file is left in the folder, whether the save succeeds or not; and once it has
    succeeded, what earlier interrupted saves left in the folder is tidied
    (:func:`~workbench.store.temps.sweep_temps`, whose report is returned, for a
    status line).
    """
    target = Path(path)
    if target.is_symlink():
        # Save through the link: replacing the link itself with a regular file would
        # leave the real project (say on a shared drive) silently stale.
        target = target.resolve()
    try:
        replace_atomically(target, lambda tmp: write_database(design, tmp))
    except ProjectFileError as exc:  # a value no file may hold, named by row and field
        raise ProjectFileError(target, f"cannot save: {exc.problem}") from None
    except OSError as exc:
        raise ProjectFileError(target, f"cannot save: {os_reason(exc)}") from exc
    except (sqlite3.Error, TypeError, ValueError, OverflowError) as exc:
        raise ProjectFileError(target, f"cannot save: {exc}") from exc
    try:
        return sweep_temps(target)
    except Exception:  # tidying is a courtesy: it must never turn a good save into an error
        return TempSweep()


def write_database(design: Design, file: Path) -> None:
    """Write ``design`` as a fresh database into ``file`` (which must be empty or new).

    Public for the benchmark and for tests; everyone else wants :func:`save_design`.
    """
    conn = sqlite3.connect(str(file), isolation_level=None)
    try:
        # The file is private until renamed, so no journal and no syncs: a failure
        # simply discards it.  (journal_mode=OFF also means no -journal file appears.)
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID:d}")
        import sqlite_utils  # deferred: a command that writes nothing never loads it

        db = sqlite_utils.Database(conn, execute_plugins=False)
        conn.execute("BEGIN")
        schema.migrate(db, 0)
        with binding.collector_paused():
            for table, rows in design_rows(design):
                _insert(conn, file, table, rows)
        conn.execute("COMMIT")
    finally:
        conn.close()


def design_rows(design: Design) -> Iterable[tuple[str, Iterable[Sequence[Any]]]]:
    """Each table's rows as tuples in :func:`binding.row_columns` order.

    Every value is taken from the field named like its column (see
    :mod:`workbench.store.binding`): one ``attrgetter`` per table, built here from
    :data:`schema.COLUMNS`, gives a row's fields as a tuple in C.  Plain tuples, built
    in one pass, because per-row dicts cost more than the SQLite inserts themselves at
    12,500 devices.
    """
    meta = {
        "name": design.name,
        "properties": design.properties,
        "app_version": workbench.__version__,
        "saved_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "schema_version": schema.SCHEMA_VERSION,
    }
    problem = field_problem("meta.name", design.name)
    if problem is not None:
        raise ValueError(f"meta, name: the design's name {problem}")
    yield "meta", [(key, _json(value)) for key, value in meta.items()]

    site_of, row_of, rack_of, device_of = (
        _fields_of(binding.BINDINGS[t]) for t in ("sites", "rows", "racks", "devices")
    )
    sites: list[tuple[Any, ...]] = []
    rows: list[tuple[Any, ...]] = []
    racks: list[tuple[Any, ...]] = []
    devices: list[tuple[Any, ...]] = []
    for site in design.sites:
        site_seq = len(sites) + 1
        sites.append((site_seq,) + site_of(site))
        for row in site.rows:
            row_seq = len(rows) + 1
            rows.append((row_seq, site_seq) + row_of(row))
            for rack in row.racks:
                rack_seq = len(racks) + 1
                racks.append((rack_seq, row_seq) + rack_of(rack))
                start = len(devices) + 1
                devices.extend(
                    (seq, rack_seq) + device_of(d) for seq, d in enumerate(rack.devices, start)
                )
    yield "sites", sites
    yield "rows", rows
    yield "racks", racks
    yield "devices", devices
    for b in binding.LISTS:
        fields_of = _fields_of(b)
        yield (
            b.table,
            [(seq,) + fields_of(obj) for seq, obj in enumerate(getattr(design, b.table), 1)],
        )
    yield from version_rows(design)
    yield from acceptance_rows(design)
    yield from capture_rows(design)
    yield (
        "catalog_snapshot",
        [
            (seq, slug, kind, _json(mapping))
            for seq, (slug, kind, mapping) in enumerate(checked_mappings(design.device_types), 1)
        ],
    )


def _fields_of(b: binding.Binding) -> Callable[[Any], tuple[Any, ...]]:
    """An object's column values, in ``b.fields`` order, with JSON fields encoded."""
    get = binding.getter(b)
    encoded = [(i, name in b.json_nullable) for i, name in enumerate(b.fields) if name in b.json]
    if not encoded:
        return get

    def fields_of(obj: Any) -> tuple[Any, ...]:
        values = list(get(obj))
        for i, nullable in encoded:
            if values[i] is not None or not nullable:
                values[i] = _json(values[i])
        return tuple(values)

    return fields_of


def _insert(
    conn: sqlite3.Connection, file: Path, table: str, rows: Iterable[Sequence[Any]]
) -> None:
    """executemany in batches: sqlite-utils' insert_all costs ~7x more per row (measured
    in tests/benchmarks/bench_store.py) for no benefit on a table we just created.
    A big table's runs of rows that share some columns' values are written with those
    values in the statement (:func:`_insert_runs`)."""
    columns = binding.row_columns(table)
    rows = rows if isinstance(rows, list) else list(rows)
    check_stored_texts(file, table, columns, rows)
    sql = _insert_sql(table, columns)
    shared = _shared_columns(rows, len(columns)) if len(rows) >= _RUNS_FROM else []
    if shared:
        _insert_runs(conn, table, columns, rows, shared)
        return
    for start in range(0, len(rows), _BATCH):
        conn.executemany(sql, rows[start : start + _BATCH])


def _insert_sql(
    table: str, columns: Sequence[str], values: Sequence[str] = (), rows: int = 1
) -> str:
    """``INSERT`` of ``rows`` rows of ``columns``: a parameter each, but for the last
    ``len(values)`` columns, whose SQL literals are ``values``."""
    marks = ["?"] * (len(columns) - len(values)) + list(values)
    row = f"({', '.join(marks)})"
    return f'INSERT INTO "{table}" ({", ".join(columns)}) VALUES {", ".join([row] * rows)}'


#: Tables with fewer rows are written row by row with every value a parameter.
_RUNS_FROM = 20_000
#: Rows of a run written by one statement, and the parameters one statement may take
#: (SQLite's limit before 3.32).
_PER_STATEMENT = 50
_MAX_PARAMETERS = 999
#: Rows looked at to find the columns whose values come in long runs.
_SAMPLE = 2048
#: A run shorter than this is written with every value a parameter.
_MIN_RUN = 256
#: Short runs (or runs of values with no exact literal) after which a table is written
#: the plain way: its columns do not run after all.
_MAX_SHORT = 256


def _shared_columns(rows: Sequence[Sequence[Any]], width: int) -> list[int]:
    """Columns (but the first, the row number) whose values come in long runs: nearly
    every row sampled at an even stride holds the value of the one sampled before it
    (every link of a plane has its network and speed, and no cable type or length until
    the hall is measured)."""
    sample = rows[:: max(1, len(rows) // _SAMPLE)]
    shared = []
    for i in range(1, width):
        values = list(map(itemgetter(i), sample))
        if sum(map(ne, values, values[1:])) * 32 <= len(values):
            shared.append(i)
    # At least two columns stay parameters (a row's own values are a tuple).
    return shared if len(shared) < width - 1 else shared[:-1]


def _insert_runs(
    conn: sqlite3.Connection,
    table: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    shared: Sequence[int],
) -> None:
    """Write ``rows`` run by run: each long run of rows holding the same values in the
    ``shared`` columns with those values as SQL literals, so only the others are bound
    row by row.  Binding a value costs the sqlite3 module about as much as SQLite's whole
    insert; the 4.4 million links of a 1,000,000-GPU design bind 5 values each instead
    of 10, ~40 % less time.  The rows stored are the same, value for value and type for
    type (:func:`_literal` makes only literals that read back exactly); rows whose
    values have none go the plain way, in order."""
    own = [i for i in range(len(columns)) if i not in shared]
    if len(own) > 2 and _numbered(rows):
        # Rows numbered 1, 2, 3 … in order into a new table: SQLite gives a row with no
        # number one more than the largest so far, the same number (one value less to
        # bind per row).
        own = own[1:]
    plain_sql = _insert_sql(table, columns)
    names = [columns[i] for i in (*own, *shared)]
    mine = itemgetter(*own)
    # Rows per statement, within the 999 parameters any SQLite takes.
    per = max(1, min(_PER_STATEMENT, _MAX_PARAMETERS // len(own)))
    key = itemgetter(*shared)
    pending: list[Sequence[Any]] = []
    taken = short = 0  # rows read so far; runs written the plain way
    for values, group in groupby(rows, key):
        run = list(group)
        taken += len(run)
        literals = _literals(values if len(shared) > 1 else (values,))
        if literals is None or len(run) < _MIN_RUN:
            pending += run
            if len(pending) >= _BATCH:
                conn.executemany(plain_sql, pending)
                pending = []
            short += 1
            if short > _MAX_SHORT:
                break  # the columns do not run after all: the rest the plain way
            continue
        if pending:
            conn.executemany(plain_sql, pending)
            pending = []
        # Many rows per statement, their values in one flat tuple: the sqlite3
        # module's own cost per executed statement is then shared by them all.
        whole = len(run) - len(run) % per
        if whole:
            sql = _insert_sql(table, names, literals, per)
            for at in range(0, whole, per * 100):
                flat = iter(chain.from_iterable(map(mine, run[at : min(at + per * 100, whole)])))
                conn.executemany(sql, zip(*[flat] * (per * len(own)), strict=False))
        if whole < len(run):
            conn.executemany(_insert_sql(table, names, literals), map(mine, run[whole:]))
    if pending:
        conn.executemany(plain_sql, pending)
    for at in range(taken, len(rows), _BATCH):
        conn.executemany(plain_sql, rows[at : at + _BATCH])


def _numbered(rows: Sequence[Sequence[Any]]) -> bool:
    """Whether the rows' first values (their ``seq``) are the whole numbers 1, 2, 3 …"""
    seqs = list(map(itemgetter(0), rows))
    return set(map(type, seqs)) == {int} and all(map(eq, seqs, range(1, len(seqs) + 1)))


def _literals(values: Sequence[Any]) -> list[str] | None:
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


def _json_default(value: Any) -> Any:
    """YAML hands dates to catalog mappings; store them as ISO text, refuse the rest."""
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    raise TypeError(f"cannot store a value of type {type(value).__name__} in a project file")


def _json(value: Any) -> str:
    # NaN/Infinity are allowed (Python's json reads them back): refusing them would
    # make a design unsaveable, which costs the user more than a strict JSON dialect.
    return json.dumps(value, ensure_ascii=False, default=_json_default)
