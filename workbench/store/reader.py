"""Opening a project file without ever touching it.

:mod:`workbench.store.header` loads the bytes into an in-memory database (SQLite never
opens the user's path, so no lock, journal, ``-wal`` or ``-shm`` file can appear beside
it, and migrations of an older file run on that copy only) and checks magic, length,
application id, schema version and integrity.  Then the rows are read into the model's
dataclasses, and every value is checked (:mod:`workbench.store.values`) before the
design is handed out, so every bad file ends as one :class:`ProjectFileError` line
rather than a traceback or, worse, a design the window cannot draw.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sqlite3
from array import array
from collections.abc import Callable, Generator, Sequence
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from workbench.calc.steps import drain
from workbench.catalog.item import CatalogItem
from workbench.model.design import Design
from workbench.progress import Progress
from workbench.store import binding, header, schema
from workbench.store.acceptance_table import read_acceptance
from workbench.store.capture_table import read_captures
from workbench.store.errors import ProjectFileError
from workbench.store.header import _deserialize  # noqa: F401 - tests reach it here
from workbench.store.value_table import Rows, shown
from workbench.store.values import Order, check_values, proven_ids
from workbench.store.version_tables import read_versions

#: ``seq INTEGER PRIMARY KEY`` as sqlite-utils writes it (``DESC`` would not alias the rowid).
_ROWID_SEQ = re.compile(r"[\[\"`]?\bseq\b[\]\"`]?\s+INTEGER\s+PRIMARY\s+KEY\b(?!\s+DESC)", re.I)


class SlugLookup(Protocol):
    """What open_design needs of a catalog: ``get(slug)`` giving an item or None."""

    def get(self, slug: str) -> CatalogItem | None: ...


def open_design(
    path: str | os.PathLike[str],
    catalog: SlugLookup | None = None,
    progress: Progress | None = None,
) -> Design:
    """Read the design saved at ``path``, exactly as it was saved.

    A device or rack whose catalog slug is missing from the file's snapshot is
    resolved through ``catalog`` when one is given (the item joins the snapshot).  A
    slug neither knows is not an error: the design opens without that item, and the
    rule CATALOG-MISSING reports the racks and devices that use it.

    ``progress(fraction, part)`` is told as the reading goes (a command's progress: a
    1,000,000-GPU file opens in ~13 s, three quarters of it its 4 million links).
    """
    file = Path(path)
    conn, integrity = header.load_checking(file, proven_ids)
    return design_from(file, conn, catalog, integrity, progress)


def design_from(
    file: Path,
    conn: sqlite3.Connection,
    catalog: SlugLookup | None = None,
    integrity: header.Integrity | None = None,
    progress: Progress | None = None,
) -> Design:
    """The design an in-memory copy of ``file`` (from :func:`header.load`) holds, read
    and checked as :func:`open_design` does; ``conn`` is closed.  The repair of a file
    the reader refuses (:mod:`workbench.store.repair`) reads its mended copy here.

    With ``integrity`` (:func:`header.load_checking`) the file's quick_check runs
    while its rows are read, and is confirmed before anything else is done with them:
    a damaged file is refused with the check's message, whatever the rows said."""
    try:
        header.check(file, conn, integrity)
        try:
            with binding.collector_paused():
                design, order = _read(file, conn, progress)
        except Exception:  # an interrupt is not turned into a refusal
            if integrity is not None:
                integrity.confirm()  # damage, when there is any, is why the rows failed
            raise
        if integrity is not None:
            integrity.confirm()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise _refusal(file, exc) from exc
    finally:
        conn.close()
        if integrity is not None:
            integrity.cancel()  # refused before the check was asked: stop it
    _resolve_slugs(design, catalog)
    proven = {} if integrity is None else integrity.proven
    if progress is not None:
        progress(_SHARES["rows"] + _SHARES["links"], "checking every value")
    with binding.collector_paused():  # the checks' sets and lists are garbage-free too
        check_values(file, design, order, proven)
    return design


def _refusal(file: Path, exc: sqlite3.DatabaseError | UnicodeDecodeError) -> ProjectFileError:
    """The refusal of a file whose bytes SQLite (or its text decoding) could not read."""
    if isinstance(exc, UnicodeDecodeError):  # sqlite3 decodes the schema's text itself
        return ProjectFileError(
            file, f"truncated or damaged: text that is not UTF-8 ({exc.reason})"
        )
    return ProjectFileError(file, f"truncated or damaged: {exc}")


def _select(
    conn: sqlite3.Connection, table: str, columns: tuple[str, ...]
) -> list[tuple[Any, ...]]:
    """``columns`` of every row of ``table``, named (never ``*``), in ``seq`` order.

    The names go unquoted: SQLite reads a double-quoted name it cannot find as a string
    literal, which would turn a column missing from a damaged file into rows of its
    name instead of the error it must be.  (They are the schema's own identifiers.)
    """
    return conn.execute(_select_sql(table, columns)).fetchall()


def _select_sql(table: str, columns: tuple[str, ...]) -> str:
    """The statement :func:`_select` runs (see there why the names go unquoted)."""
    return f'SELECT {", ".join(columns)} FROM "{table}" ORDER BY seq'


def _read(
    file: Path, conn: sqlite3.Connection, progress: Progress | None = None
) -> tuple[Design, Order]:
    """Every table's rows back into dataclasses (see :func:`_read_leaving`)."""
    design, order, _rest = _read_leaving(file, conn, (), progress)
    return design, order


#: The parts of an open and their shares of it, measured at 1,000,000 GPUs: every
#: table but the links; the links; then the checks of every value (the rest).
_SHARES = {"rows": 0.12, "links": 0.8}  # 2.0 s, 12.7 s and 1.2 s of 15.9 s


def _links_told(conn: sqlite3.Connection, progress: Progress) -> Callable[[int], None]:
    """What :func:`drain` gives each count of links read so far: ``progress`` told how
    many of about how many (the highest rowid: SQLite finds it at once, where a count
    reads every page; a file this program wrote numbers its rows from 1)."""
    try:
        highest = int(conn.execute('SELECT max(rowid) FROM "links"').fetchone()[0] or 0)
    except (sqlite3.Error, TypeError, ValueError):  # an odd table: no figure, same rows
        highest = 0
    start, share = _SHARES["rows"], _SHARES["links"]
    progress(start, "links")

    def read(count: int) -> None:
        if highest:
            progress(start + share * min(1.0, count / highest), f"links: {count:,} of {highest:,}")

    return read


def _read_leaving(
    file: Path,
    conn: sqlite3.Connection,
    later: tuple[str, ...],
    progress: Progress | None = None,
) -> tuple[Design, Order, _Later]:
    """Rows back into dataclasses, each value passed as the keyword its column names.

    Returns the design and, per table, its objects with the ``seq`` of their rows (in
    file order), which :func:`~workbench.store.values.check_values` names in messages.
    Nothing here asks for ``design.index``: it is built on first use, after every list
    is complete.  The tables named in ``later`` (of :data:`binding.LISTS`) are left
    empty, with what reading them needs (see :class:`~workbench.store.later.LinksToRead`).
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    missing = [t for t in schema.COLUMNS if t not in tables]
    if missing:
        raise ProjectFileError(file, f"truncated or damaged: missing table {missing[0]!r}")
    loads = _JsonReader(file)

    meta = {k: loads(v, "meta", k) for k, v in conn.execute("SELECT key, value FROM meta")}
    design = Design()
    if "name" in meta:
        design.name = meta["name"]
    properties = meta.get("properties", {})
    if not isinstance(properties, dict):
        raise ProjectFileError(file, "truncated or damaged: design properties are not a mapping")
    design.properties = properties

    if progress is not None:
        progress(0.0, "racks and devices")
    made: dict[str, dict[int, Any]] = {}  # table -> seq -> object, parents first
    parents = {b.parent for b in binding.TREE}
    order: Order = {}
    pools = _Pools()
    device_ids: list[Any] = []
    for b in binding.TREE:
        seqs, objects, ids = _attach(file, conn, b, loads, design, made, pools)
        order[b.table] = _rows(b, objects, seqs, ids, pools)
        if b.table == "devices" and ids is not None:
            device_ids = ids
        if b.table in parents:
            made[b.table] = dict(zip(seqs, objects, strict=True))
    made.clear()
    # The devices' own id strings as listed while read (every device row hangs in a
    # rack, or the open stopped above): no walk of the tree for them.
    pools.share_ids(device_ids)
    for b in binding.LISTS:
        if b.table in later:
            order[b.table] = _rows(b, [], range(0), [], pools)
            continue
        told = _links_told(conn, progress) if progress is not None and b.table == "links" else None
        seqs, objects, ids = drain(streaming(file, conn, b, loads, pools), told)
        setattr(design, b.table, objects)
        order[b.table] = _rows(b, objects, seqs, ids, pools)
    design.versions = read_versions(file, conn)
    design.acceptance = read_acceptance(file, conn)
    design.captures = read_captures(file, conn)
    design.device_types = _snapshot(
        file,
        [
            (seq, slug, loads(raw, "catalog_snapshot", slug))
            for seq, slug, raw in _select(conn, "catalog_snapshot", ("seq", "slug", "raw"))
        ],
    )
    return design, order, _Later(pools, loads)


class _Later(NamedTuple):
    """What reading a table left for later needs of the reading so far: the shared
    values (the device ids its link ends share) and the JSON reader."""

    pools: _Pools
    loads: _JsonReader


def _rows(
    b: binding.Binding,
    objects: list[Any],
    seqs: Sequence[int],
    ids: list[Any] | None,
    pools: _Pools,
) -> Rows:
    """What the value checks are handed of ``b.table``: its objects and seqs, and what
    the reading already knows of its columns (shared values, device ends, ids)."""
    return Rows(
        b.columns,
        (),
        objects,
        b.json,
        seqs,
        pools.distinct(b.table),
        pools.known_ends(b.table),
        {} if ids is None else {"id": ids},
    )


#: Rows fetched and turned into objects at a time: large enough that the per-fetch cost
#: vanishes, small enough that the rows' own tuples and text (~600 bytes a link) never
#: pile up beside the objects made from them (a fetchall of a 1,000,000-GPU design's
#: 4.4 million links held about 2.6 GB at once).  A few hundred rows (about 150 KB of
#: tuples and text) stay in the CPU's cache while they are regrouped, shared and made
#: into objects, and the memory they free is what the next fetch reuses: reading at
#: 256 rows takes about 15% less CPU than at 8,192 at 100,000 GPUs, 23% less at 1M.
_CHUNK = 256

#: What reading a table gives: each object's ``seq``, the objects, their ids (if any).
_Streamed = tuple[Sequence[int], list[Any], list[Any] | None]

#: Columns whose values repeat across rows (a few hundred port names, four networks,
#: a dozen catalog slugs): each distinct value is kept once, and every object holding it
#: refers to that one copy instead of a string or float of its own per row.
_REPEATED: dict[str, tuple[str, ...]] = {
    "racks": ("rack_type", "cooling", "facing"),
    "devices": ("device_type", "face", "software_stack", "role"),
    "links": ("a_port", "b_port", "network", "cable_type", "speed_gbps"),
}

#: Columns whose values mostly differ when given (cable lengths once measured) but are
#: often one value all along (None): their distinct values are known for the value
#: checks while every chunk holds one value, without a pool of millions of lengths
#: (the links' length_m at 1,000,000 GPUs: a walk of 4.4 million objects, ~0.1 s).
_OFTEN_ONE: dict[str, tuple[str, ...]] = {"links": ("length_m",)}

#: Columns naming a device: their text becomes the device's own id string.
_DEVICE_REFS: dict[str, tuple[str, ...]] = {"links": ("a_device", "b_device")}

#: Kinds that nothing of another kind equals (2 == 2.0, so int and float are not).
_ONE_KIND: tuple[type, ...] = (str, type(None))

#: Types whose equal values are interchangeable (2 == 2.0 == True are not, so a column
#: of no fixed affinity is shared only while it holds one of these and None).
_SHAREABLE: tuple[frozenset[type], ...] = (
    frozenset({str, type(None)}),
    frozenset({float, type(None)}),
)


def _affinity(declared: str) -> str:
    """SQLite's affinity for a column's declared type (the rules of its "Datatypes"
    page, in their order)."""
    kind = declared.upper()
    if "INT" in kind:
        return "INTEGER"
    if "CHAR" in kind or "CLOB" in kind or "TEXT" in kind:
        return "TEXT"
    if "BLOB" in kind or not kind:
        return "BLOB"
    if "REAL" in kind or "FLOA" in kind or "DOUB" in kind:
        return "REAL"
    return "NUMERIC"


#: Affinities under which no two values of a column are equal unless of one type:
#: TEXT stores numbers as text, REAL stores whole numbers as floats.
_ONE_KIND_AFFINITIES = frozenset({"TEXT", "REAL"})

Share = Callable[[tuple[Any, ...]], tuple[Any, ...]]

#: The key that marks a pool as missing a chunk's values (:meth:`_Pools.distinct`): an
#: object of its own, which no value SQLite gives equals, so no value is shared with it.
_MIXED = object()


class _Pools:
    """One copy of each repeated value, per column, for the whole design being read.

    At 1,000,000 GPUs the links' port names, network ids, speeds and device ends are
    about 26 million values with a few hundred thousand distinct ones; sharing them
    shrinks the opened design by over a gigabyte (about 300 bytes a link) without
    changing any value: an object gets an equal value of the same type, read from the
    same column.
    """

    def __init__(self) -> None:
        self._ids: dict[Any, Any] = {}
        self._id_count = 0
        #: table -> column -> the pool of that column alone (not the device ids').
        self._own: dict[str, dict[str, dict[Any, Any]]] = {}

    def share_ids(self, ids: list[Any]) -> None:
        """The device ids that device-naming columns (link ends) are to share."""
        self._ids = dict(zip(ids, ids, strict=True))
        self._id_count = len(self._ids)

    def sharers(
        self, conn: sqlite3.Connection, table: str, columns: tuple[str, ...]
    ) -> list[Share | None]:
        """For each of ``columns``, the function sharing a chunk's values of it, or None
        for a column whose values do not repeat."""
        declared = {r[1]: str(r[2]) for r in conn.execute(f'PRAGMA table_info("{table}")')}
        found: list[Share | None] = []
        for column in columns:
            if column in _DEVICE_REFS.get(table, ()):
                pool = self._ids
            elif column in _REPEATED.get(table, ()):
                pool = self._own.setdefault(table, {})[column] = {}
            elif column in _OFTEN_ONE.get(table, ()):
                pool = self._own.setdefault(table, {})[column] = {}
                found.append(partial(_while_one, pool))
                continue
            else:
                found.append(None)
                continue
            one_kind = _affinity(declared.get(column, "")) in _ONE_KIND_AFFINITIES
            found.append(partial(_shared, pool, one_kind))
        return found

    def known_ends(self, table: str) -> frozenset[str]:
        """``table``'s device-naming columns when every value they hold was found among
        the device ids (the pool grew by none, and no chunk was left unshared), so the
        value checks need not look each of 887,000 link ends up again (~35 ms at
        100,000 GPUs); otherwise none, and they do."""
        columns = _DEVICE_REFS.get(table, ())
        if _MIXED in self._ids or len(self._ids) != self._id_count:
            return frozenset()
        return frozenset(columns)

    def distinct(self, table: str) -> dict[str, set[Any]]:
        """The distinct values of each of ``table``'s shared columns, for the value
        checks (:meth:`~workbench.store.value_table.Table.distinct`), which then need
        not walk 443,000 links once per column (about 10-25 ms a column at 100,000
        GPUs).  Exactly the set of the column: every value the objects hold is its
        pool's copy, and the pool holds no other.  A column with a chunk left unshared
        (its pool holds :data:`_MIXED`) is left out: its pool lacks that chunk's values.
        """
        return {
            column: set(pool)
            for column, pool in self._own.get(table, {}).items()
            if _MIXED not in pool
        }


def _shared(pool: dict[Any, Any], one_kind: bool, values: tuple[Any, ...]) -> tuple[Any, ...]:
    """``values`` with each one replaced by ``pool``'s equal copy; as they are when the
    column (not ``one_kind`` by its affinity) mixes kinds whose equal values differ."""
    one = _all_one(pool, one_kind, values)
    if one is not None:  # one value all along (a chunk of one network or speed, or none)
        return one
    if not one_kind:
        kinds = set(map(type, values))
        if not any(kinds <= allowed for allowed in _SHAREABLE):
            pool[_MIXED] = _MIXED  # this column's pool is no longer all its values
            return values
    try:
        # Mostly every value is in the pool already (link ends always are), and a
        # lookup is cheaper than setdefault: the links' 29 million shared values at
        # 1,000,000 GPUs, ~1.24 -> ~1.18 s.  A miss costs the chunk a second pass.
        # One itemgetter of the chunk's values looks them all up and makes the tuple
        # in C, without map's call per value or tuple()'s growing (~30% less).
        if len(values) == 1:  # itemgetter of one value gives it bare
            return (pool[values[0]],)
        return itemgetter(*values)(pool)
    except KeyError:
        return tuple(map(pool.setdefault, values, values))


def _while_one(pool: dict[Any, Any], values: tuple[Any, ...]) -> tuple[Any, ...]:
    """``values`` shared as :func:`_shared` shares a chunk of one value, until a chunk
    holds more than one: from then on the column's pool is marked as missing values
    (:data:`_MIXED`) and no chunk is looked at again."""
    if _MIXED not in pool:
        one = _all_one(pool, False, values)
        if one is not None:
            return one
        pool[_MIXED] = _MIXED
    return values


def _all_one(
    pool: dict[Any, Any], one_kind: bool, values: tuple[Any, ...]
) -> tuple[Any, ...] | None:
    """The pool's copy of the one value ``values`` hold, once per value; None when they
    hold more than one.  No value is hashed but that one.  Only for text or None, which
    nothing of another kind equals, unless the column is ``one_kind`` by its affinity
    (the links' speeds: a chunk of 400.0 is a chunk of floats, ~0.3 s at 1,000,000 GPUs
    not spent hashing them)."""
    first = values[0]
    if not one_kind and type(first) not in _ONE_KIND:
        return None
    if values[-1] == first and values.count(first) == len(values):
        return (pool.setdefault(first, first),) * len(values)
    return None


def streaming(
    file: Path,
    conn: sqlite3.Connection,
    b: binding.Binding,
    loads: _JsonReader,
    pools: _Pools,
    rows_made: Callable[[tuple[Any, ...], list[Any]], None] | None = None,
) -> Generator[int, None, _Streamed]:
    """``b.table``'s objects, made :data:`_CHUNK` rows at a time, the ``seq`` of each
    (in file order, for the value checks' messages), and the ids when the table has
    them (listed from the chunks' columns: cheaper than reading 4 million objects'
    ids again, which the id checks would).

    Each chunk is turned column-wise: repeated values shared (:class:`_Pools`), JSON
    columns decoded, then one object per row.  ``rows_made`` is called with each
    chunk's parent keys (a child table's second key column) and objects (the tree
    attaches children to parents there).  A table whose ``seq`` is not SQLite's rowid
    has its seqs checked to be distinct whole numbers, as children name their parent
    by it and messages name rows by it.  Where it is the rowid, it is not read at all
    (:func:`_seqs_of`).  It yields the count of objects made after each chunk, so a
    window can read a table between its events (:mod:`workbench.store.later`).
    """
    rowid = _seq_is_rowid(conn, b.table)
    selected = b.columns[1:] if rowid else b.columns
    make = _maker(b, selected, loads)
    cursor = conn.execute(_select_sql(b.table, selected))
    seen: set[Any] = set()
    seqs: array[int] = array("q")
    objects: list[Any] = []
    sharers = pools.sharers(conn, b.table, selected)
    at = selected.index("id") if "id" in selected else 0
    parent_at = selected.index(b.keys[1]) if len(b.keys) > 1 else 0
    ids: list[Any] | None = [] if "id" in selected else None
    while rows := cursor.fetchmany(_CHUNK):
        columns = [
            values if share is None else share(values)
            for share, values in zip(sharers, zip(*rows, strict=True), strict=True)
        ]
        if not rowid:
            _check_seqs(file, b.table, columns[0], seen)
            seqs.extend(columns[0])
        if ids is not None:
            ids.extend(columns[at])
        made = make(columns)
        objects.extend(made)
        if rows_made is not None:
            rows_made(columns[parent_at], made)
        yield len(objects)
    return (_seqs_of(conn, b.table, len(objects)) if rowid else seqs), objects, ids


def _seqs_of(conn: sqlite3.Connection, table: str, count: int) -> Sequence[int]:
    """The seqs of the ``count`` rows just read of ``table``, whose ``seq`` is the rowid.

    Mostly they run without a gap from the lowest to the highest (SQLite finds both
    at the ends of the table's B-tree), and are that range: 4.4 million links at
    1,000,000 GPUs fetched, turned into columns and listed as numbers no more (~3% of
    the open).  Otherwise they are read, a column of whole numbers alone."""
    # Each on its own, and on the table's own B-tree: a min and max together are a
    # scan, and an index (damaged, where only the integrity check is to tell) could be.
    low, high = conn.execute(
        f'SELECT (SELECT min(seq) FROM "{table}" NOT INDEXED),'
        f' (SELECT max(seq) FROM "{table}" NOT INDEXED)'
    ).fetchone()
    if count == 0:
        return range(0)
    if high - low + 1 == count:  # count distinct rowids between low and high: all of them
        return range(low, high + 1)
    return array("q", (r[0] for r in conn.execute(f'SELECT seq FROM "{table}" ORDER BY seq')))


def _check_seqs(file: Path, table: str, column: tuple[Any, ...], seen: set[Any]) -> None:
    """Each ``seq`` of a table rebuilt by hand is a whole number no other row has."""
    for seq in column:
        if type(seq) is not int:
            raise ProjectFileError(file, f"damaged: {table} has a row whose seq is {shown(seq)}")
        if seq in seen:
            raise ProjectFileError(file, f"damaged: {table} has two rows with seq {seq}")
        seen.add(seq)


def _seq_is_rowid(conn: sqlite3.Connection, table: str) -> bool:
    """True when ``seq`` is the table's INTEGER PRIMARY KEY, an alias of the rowid."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    sql = str(row[0]) if row is not None else ""
    if "WITHOUT ROWID" in sql.upper() or not _ROWID_SEQ.search(sql):
        return False
    keys = [
        (r[1], str(r[2]).upper()) for r in conn.execute(f'PRAGMA table_info("{table}")') if r[5]
    ]
    return keys == [("seq", "INTEGER")]


def _maker(
    b: binding.Binding, selected: tuple[str, ...], loads: _JsonReader
) -> Callable[[list[tuple[Any, ...]]], list[Any]]:
    """A function making ``b.cls`` objects from the columns of a chunk of rows selected
    as ``selected`` (``b.columns``, or all but ``seq``; one tuple of values per column,
    in that order).

    Each field is taken from the column of the same name; the key columns (``seq``, a
    parent's seq) are not fields and are skipped.  When the stored fields are the
    class's leading fields (the usual case: children lists such as ``Rack.devices``
    come last) the objects are made by one C-level ``map`` of the constructor over the
    columns; otherwise the fields go by keyword.  JSON columns are decoded first, each
    bad text named with its row's id.
    """
    key = selected.index("id") if "id" in selected else 0
    position = {name: i for i, name in enumerate(selected)}
    cls = b.cls

    def decode(name: str, values: tuple[Any, ...], keys: tuple[Any, ...]) -> list[Any]:
        nullable = name in b.json_nullable
        return [
            None if text is None and nullable else loads(text, b.table, k)
            for text, k in zip(values, keys, strict=True)
        ]

    order = [f.name for f in dataclasses.fields(cls) if f.init]
    leading = order[: len(b.fields)]
    by_position = set(leading) == set(b.fields) and len(leading) >= 2
    names = leading if by_position else list(b.fields)

    def make(columns: list[tuple[Any, ...]]) -> list[Any]:
        values: list[Any] = [columns[position[name]] for name in names]
        for k, name in enumerate(names):
            if name in b.json:
                values[k] = decode(name, values[k], columns[key])
        if by_position:
            return list(map(cls, *values))
        return [cls(**dict(zip(names, row, strict=True))) for row in zip(*values, strict=True)]

    return make


def _attach(
    file: Path,
    conn: sqlite3.Connection,
    b: binding.Binding,
    loads: _JsonReader,
    design: Design,
    made: dict[str, dict[int, Any]],
    pools: _Pools,
) -> tuple[Sequence[int], list[Any], list[Any] | None]:
    """Build ``b.table``'s objects, each appended to its parent's list (or the design's).

    ``made`` holds the objects of the tables above, by ``seq``.  Children arrive in
    ``seq`` order, which is their order within each parent too.  Returns the seqs and
    the objects, in that order, for the value checks and the next level.
    """
    if b.parent is None:
        seqs, objects, ids = drain(streaming(file, conn, b, loads, pools))
        getattr(design, b.table).extend(objects)
        return seqs, objects, ids
    parents, parent_b = made[b.parent], binding.BINDINGS[b.parent]
    children = parent_b.children or b.table

    def attach(keys: tuple[Any, ...], objects: list[Any]) -> None:
        for key, obj in zip(keys, objects, strict=True):
            try:
                parent = parents.get(key)
            except TypeError:  # an unhashable parent key cannot come from SQLite; be sure
                parent = None
            if parent is None:
                raise ProjectFileError(
                    file,
                    f"truncated or damaged: {b.cls.__name__.lower()} {obj.id!r} belongs to a "
                    f"missing {parent_b.cls.__name__.lower()}",
                )
            getattr(parent, children).append(obj)

    return drain(streaming(file, conn, b, loads, pools, attach))


class _JsonReader:
    """json.loads that turns bad text into a ProjectFileError naming table and row."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def __call__(self, text: Any, table: str, key: Any) -> Any:
        try:
            return json.loads(text)
        except RecursionError:
            raise ProjectFileError(
                self.file, f"unreadable JSON in {table} ({key!r}): nested too deeply"
            ) from None
        except (TypeError, ValueError) as exc:
            raise ProjectFileError(
                self.file, f"unreadable JSON in {table} ({key!r}): {exc}"
            ) from None


def _snapshot(file: Path, entries: list[tuple[Any, Any, Any]]) -> dict[str, CatalogItem]:
    """Re-create catalog items from their stored mappings, as the catalog would (its
    parser also bounds the figures no view or calculator could work with: heights,
    GPU counts, magnitudes), each under the slug it is stored as."""
    from workbench.catalog import parse_item  # the catalog's own parser, one source of truth

    items: dict[str, CatalogItem] = {}
    for seq, slug, raw in entries:
        if not isinstance(slug, str):
            raise ProjectFileError(
                file, f"catalog_snapshot row {shown(seq)}, slug: must be text, got {shown(slug)}"
            )
        if slug in items:
            raise ProjectFileError(file, f"catalog snapshot item {slug!r} is stored twice")
        if not isinstance(raw, dict):
            raise ProjectFileError(file, f"catalog snapshot item {slug!r} is not a mapping")
        try:
            item = parse_item(raw, source_file="design snapshot")
        except Exception as exc:  # whatever the parser raises, the file is at fault
            raise ProjectFileError(
                file, f"catalog snapshot item {slug!r} is invalid: {exc}"
            ) from exc
        if item.slug != slug:
            raise ProjectFileError(
                file, f"catalog snapshot item {slug!r} holds the item {shown(item.slug)}"
            )
        items[slug] = item
    return items


def _resolve_slugs(design: Design, catalog: SlugLookup | None) -> None:
    """Add from ``catalog`` each slug a rack or device uses that the snapshot lacks.

    A slug found in neither is left out of ``device_types``: the design still opens (its
    racks and devices keep their type), and the rule CATALOG-MISSING names every rack
    and device of that type, in the window and in ``workbench check``.
    """
    types = design.device_types
    tried: set[str] = set()
    for rack in design.iter_racks():
        for slug in (rack.rack_type, *(d.device_type for d in rack.devices)):
            # Not yet checked: anything but a slug waits for check_values to refuse it.
            if not isinstance(slug, str) or not slug or slug in types or slug in tried:
                continue
            tried.add(slug)
            item = _lookup(catalog, slug)
            if item is not None:
                types[slug] = item
    # A server's GPU item is referenced by slug too; fill it in when the catalog can.
    for item in list(types.values()):
        if item.gpu and item.gpu not in types:
            gpu = _lookup(catalog, item.gpu)
            if gpu is not None:
                types[item.gpu] = gpu


def _lookup(catalog: SlugLookup | None, slug: str) -> CatalogItem | None:
    """``catalog.get`` that also accepts lookups raising KeyError for a missing slug."""
    if catalog is None:
        return None
    try:
        return catalog.get(slug)
    except KeyError:
        return None
