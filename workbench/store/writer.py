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
from itertools import repeat
from pathlib import Path
from typing import Any

import workbench
from workbench.model.design import Design
from workbench.progress import Progress
from workbench.store import binding, runs, schema
from workbench.store.acceptance_table import acceptance_rows
from workbench.store.atomic import replace_atomically
from workbench.store.capture_table import capture_rows
from workbench.store.errors import ProjectFileError, os_reason
from workbench.store.object_rows import ObjectRows, insert_objects
from workbench.store.snapshot import checked_mappings
from workbench.store.temps import TempSweep, sweep_temps
from workbench.store.value_table import check_stored_texts
from workbench.store.version_tables import version_rows
from workbench.text_rules import field_problem


def save_design(
    design: Design,
    path: str | os.PathLike[str],
    progress: Progress | None = None,
) -> TempSweep:
    """Write ``design`` to ``path`` atomically; raise ProjectFileError on any failure.

    The existing file (if any) keeps its permission bits.  Nothing but the finished
    file is left in the folder, whether the save succeeds or not; and once it has
    succeeded, what earlier interrupted saves left in the folder is tidied
    (:func:`~workbench.store.temps.sweep_temps`, whose report is returned, for a
    status line).

    ``progress(fraction, table)`` is told before each table is written, the fraction
    the share of the rows written so far (a 1,000,000-GPU design with a whole-fabric
    capture writes 9 million rows in ~40 s).
    """
    target = Path(path)
    if target.is_symlink():
        # Save through the link: replacing the link itself with a regular file would
        # leave the real project (say on a shared drive) silently stale.
        target = target.resolve()
    try:
        replace_atomically(target, lambda tmp: write_database(design, tmp, progress))
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


def write_database(design: Design, file: Path, progress: Progress | None = None) -> None:
    """Write ``design`` as a fresh database into ``file`` (which must be empty or new);
    ``progress`` as :func:`save_design` tells it.

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
            # About how many rows there are: the big tables' (the rest are few).
            devices = sum(len(rack.devices) for rack in design.iter_racks())
            whole = max(1, devices + len(design.links) + len(design.captures))
            written = 0
            for table, rows in _tables(design):
                count = len(rows.objects) if isinstance(rows, ObjectRows) else len(rows)
                if progress is not None:
                    progress(min(written / whole, 0.99), f"{table}: {count:,} rows")
                _insert(conn, file, table, rows)
                written += count
        conn.execute("COMMIT")
    finally:
        conn.close()


def design_rows(design: Design) -> Iterable[tuple[str, Sequence[Sequence[Any]]]]:
    """Each table's rows as tuples in :func:`binding.row_columns` order."""
    for table, rows in _tables(design):
        yield table, rows.rows() if isinstance(rows, ObjectRows) else rows


def _tables(design: Design) -> Iterable[tuple[str, Sequence[Sequence[Any]] | ObjectRows]]:
    """Each table's rows as tuples in :func:`binding.row_columns` order, or for the
    devices and the design's flat lists (no JSON fields), the objects they are made from
    (:class:`~workbench.store.object_rows.ObjectRows`).

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

    site_of, row_of, rack_of = (_fields_of(binding.BINDINGS[t]) for t in ("sites", "rows", "racks"))
    sites: list[tuple[Any, ...]] = []
    rows: list[tuple[Any, ...]] = []
    racks: list[tuple[Any, ...]] = []
    devices: list[Any] = []
    rack_seqs: list[int] = []
    for site in design.sites:
        site_seq = len(sites) + 1
        sites.append((site_seq,) + site_of(site))
        for row in site.rows:
            row_seq = len(rows) + 1
            rows.append((row_seq, site_seq) + row_of(row))
            for rack in row.racks:
                rack_seq = len(racks) + 1
                racks.append((rack_seq, row_seq) + rack_of(rack))
                devices += rack.devices
                rack_seqs += repeat(rack_seq, len(rack.devices))
    yield "sites", sites
    yield "rows", rows
    yield "racks", racks
    yield "devices", _object_rows(binding.BINDINGS["devices"], devices, rack_seqs)
    for b in binding.LISTS:
        yield b.table, _object_rows(b, getattr(design, b.table))
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


def _object_rows(
    b: binding.Binding, objects: Sequence[Any], parents: Sequence[int] | None = None
) -> Sequence[Sequence[Any]] | ObjectRows:
    """The rows of ``objects`` (whose parents' seqs are ``parents``, for a child table):
    left to be written from the objects, or made, with JSON fields encoded."""
    found = ObjectRows(b, objects, parents)
    return found.rows(_fields_of(b)) if b.json else found


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
    conn: sqlite3.Connection,
    file: Path,
    table: str,
    found: Sequence[Sequence[Any]] | ObjectRows,
) -> None:
    """executemany in batches: sqlite-utils' insert_all costs ~7x more per row (measured
    in tests/benchmarks/bench_store.py) for no benefit on a table we just created.
    A big table's runs of rows that share some columns' values are written with those
    values in the statement (:mod:`workbench.store.runs`), a big flat list of the
    design's straight from its objects (:mod:`workbench.store.object_rows`)."""
    if not isinstance(found, ObjectRows):
        rows = found
    elif len(found.objects) >= runs.RUNS_FROM and insert_objects(conn, file, found):
        return
    else:
        rows = found.rows()
    columns = binding.row_columns(table)
    check_stored_texts(file, table, columns, rows)
    shared = (
        runs.shared_columns(runs.sampled(rows), len(columns)) if len(rows) >= runs.RUNS_FROM else []
    )
    if shared:
        runs.insert_runs(conn, table, columns, rows, shared)
        return
    sql = runs.insert_sql(table, columns)
    for start in range(0, len(rows), runs.BATCH):
        conn.executemany(sql, rows[start : start + runs.BATCH])


def _json_default(value: Any) -> Any:
    """YAML hands dates to catalog mappings; store them as ISO text, refuse the rest."""
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    raise TypeError(f"cannot store a value of type {type(value).__name__} in a project file")


def _json(value: Any) -> str:
    # NaN/Infinity are allowed (Python's json reads them back): refusing them would
    # make a design unsaveable, which costs the user more than a strict JSON dialect.
    return json.dumps(value, ensure_ascii=False, default=_json_default)
