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
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path
from typing import Any, Protocol

from workbench.catalog.item import CatalogItem
from workbench.model.design import Design
from workbench.store import binding, header, schema
from workbench.store.acceptance_table import read_acceptance
from workbench.store.capture_table import read_captures
from workbench.store.errors import ProjectFileError
from workbench.store.header import _deserialize  # noqa: F401 - tests reach it here
from workbench.store.value_table import Rows, shown
from workbench.store.values import Order, check_values
from workbench.store.version_tables import read_versions

#: ``seq INTEGER PRIMARY KEY`` as sqlite-utils writes it (``DESC`` would not alias the rowid).
_ROWID_SEQ = re.compile(r"[\[\"`]?\bseq\b[\]\"`]?\s+INTEGER\s+PRIMARY\s+KEY\b(?!\s+DESC)", re.I)


class SlugLookup(Protocol):
    """What open_design needs of a catalog: ``get(slug)`` giving an item or None."""

    def get(self, slug: str) -> CatalogItem | None: ...


def open_design(path: str | os.PathLike[str], catalog: SlugLookup | None = None) -> Design:
    """Read the design saved at ``path``, exactly as it was saved.

    A device or rack whose catalog slug is missing from the file's snapshot is
    resolved through ``catalog`` when one is given (the item joins the snapshot).  A
    slug neither knows is not an error: the design opens without that item, and the
    rule CATALOG-MISSING reports the racks and devices that use it.
    """
    file = Path(path)
    conn = header.load(file)
    return design_from(file, conn, catalog)


def design_from(file: Path, conn: sqlite3.Connection, catalog: SlugLookup | None = None) -> Design:
    """The design an in-memory copy of ``file`` (from :func:`header.load`) holds, read
    and checked as :func:`open_design` does; ``conn`` is closed.  The repair of a file
    the reader refuses (:mod:`workbench.store.repair`) reads its mended copy here."""
    try:
        header.check(file, conn)
        with binding.collector_paused():
            design, order = _read(file, conn)
    except sqlite3.DatabaseError as exc:
        raise ProjectFileError(file, f"truncated or damaged: {exc}") from exc
    except UnicodeDecodeError as exc:  # sqlite3 decodes the schema's text itself
        raise ProjectFileError(
            file, f"truncated or damaged: text that is not UTF-8 ({exc.reason})"
        ) from exc
    finally:
        conn.close()
    _resolve_slugs(design, catalog)
    with binding.collector_paused():  # the checks' sets and lists are garbage-free too
        check_values(file, design, order)
    return design


def _select(
    conn: sqlite3.Connection, table: str, columns: tuple[str, ...]
) -> list[tuple[Any, ...]]:
    """``columns`` of every row of ``table``, named (never ``*``), in ``seq`` order.

    The names go unquoted: SQLite reads a double-quoted name it cannot find as a string
    literal, which would turn a column missing from a damaged file into rows of its
    name instead of the error it must be.  (They are the schema's own identifiers.)
    """
    names = ", ".join(columns)
    return conn.execute(f'SELECT {names} FROM "{table}" ORDER BY seq').fetchall()


def _read(file: Path, conn: sqlite3.Connection) -> tuple[Design, Order]:
    """Rows back into dataclasses, each value passed as the keyword its column names.

    Returns the design and, per table, its objects with the ``seq`` of their rows (in
    file order), which :func:`~workbench.store.values.check_values` names in messages.
    Nothing here asks for ``design.index``: it is built on first use, after every list
    is complete.
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

    made: dict[str, dict[int, Any]] = {}  # table -> seq -> object, parents first
    order: Order = {}
    for b in binding.TREE:
        rows, objects = _attach(file, conn, b, loads, design, made)
        order[b.table] = _keyed(file, conn, b, rows, objects)
        made[b.table] = dict(zip(map(itemgetter(0), rows), objects, strict=True))
    for b in binding.LISTS:
        make = _maker(b, loads)
        rows = _select(conn, b.table, b.columns)
        objects = list(map(make, rows))
        setattr(design, b.table, objects)
        order[b.table] = _keyed(file, conn, b, rows, objects)
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
    return design, order


def _keyed(
    file: Path,
    conn: sqlite3.Connection,
    b: binding.Binding,
    rows: list[tuple[Any, ...]],
    objects: list[Any],
) -> Rows:
    """The table's rows for the value checks, once every ``seq`` is a distinct whole
    number: children name their parent by it and messages name rows by it.

    A table as the workbench creates it has ``seq INTEGER PRIMARY KEY`` (SQLite's rowid),
    which guarantees that; only a table rebuilt by hand has its seqs checked one by one.
    """
    if not _seq_is_rowid(conn, b.table):
        seen: set[Any] = set()
        for seq in map(itemgetter(0), rows):
            if type(seq) is not int:
                raise ProjectFileError(
                    file, f"damaged: {b.table} has a row whose seq is {shown(seq)}"
                )
            if seq in seen:
                raise ProjectFileError(file, f"damaged: {b.table} has two rows with seq {seq}")
            seen.add(seq)
    return Rows(b.columns, rows, objects, b.json)


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


def _maker(b: binding.Binding, loads: _JsonReader) -> Callable[[tuple[Any, ...]], Any]:
    """A function making ``b.cls`` from one row selected as ``b.columns``.

    Each field is taken from the column of the same name; the key columns (``seq``, a
    parent's seq) are not fields and are skipped.  When the stored fields are the
    class's leading fields (the usual case: children lists such as ``Rack.devices``
    come last) the column positions are put in field order once, here, and every row
    is one C-level ``itemgetter`` call and a positional constructor call; otherwise the
    fields go by keyword.  Building a dict per row instead would add about 0.1 s to
    opening a 100,000-GPU design (130,000 rows).
    """
    key = b.columns.index("id") if "id" in b.columns else 0
    position = {name: i for i, name in enumerate(b.columns)}
    cls = b.cls

    def decode(text: Any, name: str, row: tuple[Any, ...]) -> Any:
        if text is None and name in b.json_nullable:
            return None
        return loads(text, b.table, row[key])

    order = [f.name for f in dataclasses.fields(cls) if f.init]
    leading = order[: len(b.fields)]
    if set(leading) != set(b.fields) or len(leading) < 2:

        def by_keyword(row: tuple[Any, ...]) -> Any:
            values = {name: row[position[name]] for name in b.fields}
            for name in b.json:
                values[name] = decode(values[name], name, row)
            return cls(**values)

        return by_keyword
    pick = itemgetter(*(position[name] for name in leading))
    decoded = [(k, name) for k, name in enumerate(leading) if name in b.json]
    if not decoded:
        return lambda row: cls(*pick(row))

    def by_position(row: tuple[Any, ...]) -> Any:
        values = list(pick(row))
        for k, name in decoded:
            values[k] = decode(values[k], name, row)
        return cls(*values)

    return by_position


def _attach(
    file: Path,
    conn: sqlite3.Connection,
    b: binding.Binding,
    loads: _JsonReader,
    design: Design,
    made: dict[str, dict[int, Any]],
) -> tuple[list[tuple[Any, ...]], list[Any]]:
    """Build ``b.table``'s objects, each appended to its parent's list (or the design's).

    ``made`` holds the objects of the tables above, by ``seq``.  Children arrive in
    ``seq`` order, which is their order within each parent too.  Returns the rows and
    the objects made from them, in that order, for the value checks and the next level.
    """
    make = _maker(b, loads)
    rows = _select(conn, b.table, b.columns)
    objects = list(map(make, rows))
    if b.parent is None:
        getattr(design, b.table).extend(objects)
        return rows, objects
    parents, parent_b = made[b.parent], binding.BINDINGS[b.parent]
    children = parent_b.children or b.table
    for row, obj in zip(rows, objects, strict=True):
        try:
            parent = parents.get(row[1])
        except TypeError:  # an unhashable parent key cannot come from SQLite; be sure
            parent = None
        if parent is None:
            raise ProjectFileError(
                file,
                f"truncated or damaged: {b.cls.__name__.lower()} {obj.id!r} belongs to a "
                f"missing {parent_b.cls.__name__.lower()}",
            )
        getattr(parent, children).append(obj)
    return rows, objects


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
