"""Opening a project file without ever touching it.

The file is read into memory in one go and handed to SQLite with
``Connection.deserialize``: SQLite never opens the user's path, so no lock, journal,
``-wal`` or ``-shm`` file can appear beside it, however damaged or foreign the file is,
and migrations of an older file run on that in-memory copy only.  Before any table is
read the header is checked (magic, application id, schema version) and
``PRAGMA quick_check`` runs, so every bad file ends as one :class:`ProjectFileError`
line rather than a traceback or, worse, a half-read design.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path
from typing import Any, Protocol

import sqlite_utils

from workbench.catalog.item import CatalogItem
from workbench.model.design import Design
from workbench.store import binding, schema
from workbench.store.errors import ProjectFileError, os_reason

_SQLITE_MAGIC = b"SQLite format 3\x00"


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
    conn = _load(file)
    try:
        _check(file, conn)
        with binding.collector_paused():
            design = _read(file, conn)
    except sqlite3.DatabaseError as exc:
        raise ProjectFileError(file, f"truncated or damaged: {exc}") from exc
    finally:
        conn.close()
    _resolve_slugs(design, catalog)
    return design


def _load(file: Path) -> sqlite3.Connection:
    """The file's bytes as an in-memory database; raises for files SQLite can't be."""
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise ProjectFileError(file, "no such file") from None
    except IsADirectoryError:
        raise ProjectFileError(file, "is a folder, not a project file") from None
    except OSError as exc:
        raise ProjectFileError(file, f"cannot read: {os_reason(exc)}") from exc
    if not data:
        raise ProjectFileError(file, "file is empty")
    if not data.startswith(_SQLITE_MAGIC):
        raise ProjectFileError(file, "not an SQLite database (corrupt or a different kind of file)")
    if len(data) < 512:
        raise ProjectFileError(file, "truncated or damaged: shorter than one database page")
    _check_length(file, data)
    if data[18:20] == b"\x02\x02":
        # A WAL-mode file (never written by us) can only be deserialized as a
        # rollback-journal one; the bytes are our copy, the file stays as it is.
        data = data[:18] + b"\x01\x01" + data[20:]
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        _deserialize(conn, data)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise ProjectFileError(file, f"truncated or damaged: {exc}") from exc
    return conn


def _deserialize(conn: sqlite3.Connection, data: bytes) -> None:
    """Load ``data`` into the in-memory ``conn``.

    Python 3.11+ does it directly.  On 3.10 the bytes go to a private temporary
    folder (still never the user's folder) and are copied in with the backup API.
    """
    if hasattr(conn, "deserialize"):
        conn.deserialize(data)
        return
    with tempfile.TemporaryDirectory(prefix="workbench-open-") as folder:
        copy = Path(folder) / "copy.dcwb"
        copy.write_bytes(data)
        source = sqlite3.connect(copy)
        try:
            source.backup(conn)
        finally:
            source.close()


def _check_length(file: Path, data: bytes) -> None:
    """A file cut short is refused even when the lost tail held no rows yet.

    The header records the page size and, when bytes 92-95 match the change counter
    (bytes 24-27), a trustworthy page count; fewer bytes than that means truncation.
    """
    page_size = int.from_bytes(data[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if data[92:96] != data[24:28]:
        return
    expected = int.from_bytes(data[28:32], "big") * page_size
    if len(data) < expected:
        raise ProjectFileError(
            file, f"truncated or damaged: {len(data)} bytes where the header promises {expected}"
        )


def _check(file: Path, conn: sqlite3.Connection) -> None:
    """Identity, version and integrity, cheapest first; migrate an older file's copy."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id != schema.APPLICATION_ID:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        why = "no design table" if "meta" not in tables else f"application id {app_id}"
        raise ProjectFileError(file, f"not a workbench project ({why})")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > schema.SCHEMA_VERSION:
        raise ProjectFileError(
            file,
            f"saved by a newer workbench (schema {version}, "
            f"this version reads up to {schema.SCHEMA_VERSION})",
        )
    problems = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
    if problems != ["ok"]:
        raise ProjectFileError(file, f"truncated or damaged: {'; '.join(problems)}")
    if version < schema.SCHEMA_VERSION:
        try:
            schema.migrate(sqlite_utils.Database(conn, execute_plugins=False), version)
        except Exception as exc:  # a migration bug, not damage: say which step failed
            raise ProjectFileError(
                file, f"cannot upgrade from schema {version} to {schema.SCHEMA_VERSION}: {exc}"
            ) from exc


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


def _read(file: Path, conn: sqlite3.Connection) -> Design:
    """Rows back into dataclasses, each value passed as the keyword its column names.

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
    for b in binding.TREE:
        made[b.table] = _attach(file, conn, b, loads, design, made)
    for b in binding.LISTS:
        make = _maker(b, loads)
        setattr(design, b.table, [make(row) for row in _select(conn, b.table, b.columns)])
    design.device_types = _snapshot(
        file,
        [
            (slug, loads(raw, "catalog_snapshot", slug))
            for slug, raw in _select(conn, "catalog_snapshot", ("slug", "raw"))
        ],
    )
    return design


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
) -> dict[int, Any]:
    """Build ``b.table``'s objects, each appended to its parent's list (or the design's).

    ``made`` holds the objects of the tables above, by ``seq``.  Children arrive in
    ``seq`` order, which is their order within each parent too.  Returns the objects
    by ``seq``, for the next level down.
    """
    make = _maker(b, loads)
    objects: dict[int, Any] = {}
    rows = _select(conn, b.table, b.columns)
    if b.parent is None:
        own = getattr(design, b.table)
        for row in rows:
            objects[row[0]] = obj = make(row)
            own.append(obj)
        return objects
    parents, parent_b = made[b.parent], binding.BINDINGS[b.parent]
    children = parent_b.children or b.table
    for row in rows:
        objects[row[0]] = obj = make(row)
        parent = parents.get(row[1])
        if parent is None:
            raise ProjectFileError(
                file,
                f"truncated or damaged: {b.cls.__name__.lower()} {obj.id!r} belongs to a "
                f"missing {parent_b.cls.__name__.lower()}",
            )
        getattr(parent, children).append(obj)
    return objects


class _JsonReader:
    """json.loads that turns bad text into a ProjectFileError naming table and row."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def __call__(self, text: Any, table: str, key: Any) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError) as exc:
            raise ProjectFileError(
                self.file, f"unreadable JSON in {table} ({key!r}): {exc}"
            ) from None


def _snapshot(file: Path, entries: list[tuple[str, Any]]) -> dict[str, CatalogItem]:
    """Re-create catalog items from their stored mappings, as the catalog would."""
    from workbench.catalog import parse_item  # the catalog's own parser, one source of truth

    items: dict[str, CatalogItem] = {}
    for slug, raw in entries:
        if not isinstance(raw, dict):
            raise ProjectFileError(file, f"catalog snapshot item {slug!r} is not a mapping")
        try:
            items[slug] = parse_item(raw, source_file="design snapshot")
        except Exception as exc:  # whatever the parser raises, the file is at fault
            raise ProjectFileError(
                file, f"catalog snapshot item {slug!r} is invalid: {exc}"
            ) from exc
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
            if not slug or slug in types or slug in tried:
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
