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

import json
import os
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import sqlite_utils

from workbench.catalog.item import CatalogItem
from workbench.model.design import (
    Design,
    Device,
    Link,
    Network,
    Rack,
    Row,
    Site,
    SoftwareStack,
    StorageTier,
    Workload,
)
from workbench.store import schema
from workbench.store.errors import ProjectFileError, os_reason

_SQLITE_MAGIC = b"SQLite format 3\x00"


class SlugLookup(Protocol):
    """What open_design needs of a catalog: ``get(slug)`` giving an item or None."""

    def get(self, slug: str) -> CatalogItem | None: ...


def open_design(path: str | os.PathLike[str], catalog: SlugLookup | None = None) -> Design:
    """Read the design saved at ``path``, exactly as it was saved.

    A device or rack whose catalog slug is missing from the file's snapshot is
    resolved through ``catalog`` when one is given (the item joins the snapshot);
    otherwise the file is refused with a message naming the slug and its user.
    """
    file = Path(path)
    conn = _load(file)
    try:
        _check(file, conn)
        design = _read(file, conn)
    except sqlite3.DatabaseError as exc:
        raise ProjectFileError(file, f"truncated or damaged: {exc}") from exc
    finally:
        conn.close()
    _resolve_slugs(file, design, catalog)
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


def _select(conn: sqlite3.Connection, table: str) -> list[tuple[Any, ...]]:
    columns = ", ".join(schema.COLUMNS[table])
    return conn.execute(f'SELECT {columns} FROM "{table}" ORDER BY seq').fetchall()


def _read(file: Path, conn: sqlite3.Connection) -> Design:
    """Rows back into dataclasses: tuples unpacked straight into constructors."""
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

    sites: dict[int, Site] = {}
    for seq, id_, name in _select(conn, "sites"):
        sites[seq] = site = Site(id_, name)
        design.sites.append(site)
    rows = _attach(file, conn, "rows", sites, lambda r: Row(*r), "row", "site")
    racks = _attach(file, conn, "racks", rows, lambda r: Rack(*r), "rack", "row")
    _attach(file, conn, "devices", racks, lambda r: Device(*r), "device", "rack")

    design.networks = [Network(*r[1:]) for r in _select(conn, "networks")]
    design.links = [Link(*r[1:]) for r in _select(conn, "links")]
    design.storage_tiers = [
        StorageTier(id_, name, tier, fs, loads(ids, "storage_tiers", id_))
        for _, id_, name, tier, fs, ids in _select(conn, "storage_tiers")
    ]
    design.workloads = []
    for r in _select(conn, "workloads"):
        config = None if r[6] is None else loads(r[6], "workloads", r[1])
        design.workloads.append(Workload(*r[1:6], config, *r[7:]))
    design.software_stacks = [
        SoftwareStack(id_, name, loads(comps, "software_stacks", id_), revision)
        for _, id_, name, comps, revision in _select(conn, "software_stacks")
    ]
    design.device_types = _snapshot(
        file,
        [
            (slug, loads(raw, "catalog_snapshot", slug))
            for _, slug, _kind, raw in _select(conn, "catalog_snapshot")
        ],
    )
    return design


def _attach(
    file: Path,
    conn: sqlite3.Connection,
    table: str,
    parents: dict[int, Any],
    make: Callable[[tuple[Any, ...]], Any],
    what: str,
    parent_what: str,
) -> dict[int, Any]:
    """Build ``table``'s objects and append each to its parent's list named ``table``.

    Children arrive in ``seq`` order, which is their order within each parent too.
    """
    made: dict[int, Any] = {}
    for row in _select(conn, table):
        parent = parents.get(row[1])
        if parent is None:
            raise ProjectFileError(
                file, f"truncated or damaged: {what} {row[2]!r} belongs to a missing {parent_what}"
            )
        made[row[0]] = obj = make(row[2:])
        getattr(parent, table).append(obj)
    return made


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


def _resolve_slugs(file: Path, design: Design, catalog: SlugLookup | None) -> None:
    """Every slug a rack or device uses must be in the snapshot, or found in ``catalog``."""
    for rack in design.iter_racks():
        users = [("rack", rack.name, rack.rack_type)]
        users += [("device", d.name, d.device_type) for d in rack.devices]
        for what, name, slug in users:
            if not slug or slug in design.device_types:
                continue
            item = _lookup(catalog, slug)
            if item is None:
                raise ProjectFileError(
                    file, f"unknown catalog slug {slug!r} used by {what} {name!r}"
                )
            design.device_types[slug] = item
    # A server's GPU item is referenced by slug too; fill it in when the catalog can,
    # but its absence does not make the file unreadable (nothing is placed by it).
    for item in list(design.device_types.values()):
        if item.gpu and item.gpu not in design.device_types:
            gpu = _lookup(catalog, item.gpu)
            if gpu is not None:
                design.device_types[item.gpu] = gpu


def _lookup(catalog: SlugLookup | None, slug: str) -> CatalogItem | None:
    """``catalog.get`` that also accepts lookups raising KeyError for a missing slug."""
    if catalog is None:
        return None
    try:
        return catalog.get(slug)
    except KeyError:
        return None
