"""A project file's bytes in memory, and its header checked before any table is read.

The file is read in one go and handed to SQLite with ``Connection.deserialize``: SQLite
never opens the user's path, so no lock, journal, ``-wal`` or ``-shm`` file can appear
beside it, however damaged or foreign the file is.  Then, cheapest first: the SQLite
magic and the length the header promises, the application id, the schema version (a
signed 32-bit header field, so -1 and -2147483648 are possible and must not index the
migrations), ``PRAGMA quick_check``, and the version the meta table records.  An older
file's in-memory copy is migrated here.  When a design is opened the quick_check runs
in a thread on a copy of the bytes of its own while the rows are read
(:class:`Integrity`), and is confirmed before the design is handed out.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from workbench.store import schema
from workbench.store.errors import ProjectFileError, os_reason
from workbench.store.value_table import shown

_SQLITE_MAGIC = b"SQLite format 3\x00"


def load(file: Path) -> sqlite3.Connection:
    """The file's bytes as an in-memory database; raises for files SQLite can't be."""
    return connect(file, read(file))


#: What SQLite can prove of a sound copy's rows beside the reading (the reader's
#: :func:`workbench.store.values.proven_ids`): by table, a count the checks compare.
Proof = Callable[[sqlite3.Connection], dict[str, int]]


def load_checking(file: Path, proof: Proof | None = None) -> tuple[sqlite3.Connection, Integrity]:
    """:func:`load`, with ``PRAGMA quick_check`` of the same bytes already running
    beside it (:class:`Integrity`), then ``proof`` of them: pass it to :func:`check`,
    which then leaves the integrity to it, and confirm it before the design is handed
    out."""
    data = read(file)
    conn = connect(file, data)
    return conn, Integrity(file, data, proof)


def read(file: Path) -> bytes:
    """The file's bytes, refused unless they start as an SQLite database of the length
    its header promises (a WAL-mode header is turned into a rollback one)."""
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
    return data


def connect(file: Path, data: bytes) -> sqlite3.Connection:
    """``data`` (from :func:`read`) as an in-memory database of its own."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        _deserialize(conn, data)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise ProjectFileError(file, f"truncated or damaged: {exc}") from exc
    return conn


class Integrity:
    """``PRAGMA quick_check`` of a file's bytes, run in a thread on a copy of its own
    while the reader turns the rows into objects.

    The check walks every page of the file in C with the GIL released (about 80 ms at
    100,000 GPUs, 0.7-1 s at 1,000,000), so on a second core it costs the open nothing;
    it is the same check :func:`check` runs otherwise, on the same bytes, before any
    migration (the reader's copy is the one migrated).  Nothing is handed out before
    :meth:`confirm`: a damaged file is refused with the check's message even when
    its rows happened to read, and when reading them failed too, the check's message
    is the one given (as when it ran first).

    A sound copy is then asked ``proof`` (SQL the value checks would otherwise do in
    Python on the main thread, :func:`workbench.store.values.proven_ids`); what it
    proves is :attr:`proven` once confirmed.  It refuses nothing: what it cannot prove
    the value checks judge, and word, as they always did.
    """

    def __init__(self, file: Path, data: bytes, proof: Proof | None = None) -> None:
        self.file = file
        self._data: bytes | None = data
        self._proof = proof
        self._conn: sqlite3.Connection | None = None
        self._problems: list[str] = []
        self._error: BaseException | None = None
        #: What ``proof`` proved (nothing until confirmed, or when the file is damaged).
        self.proven: dict[str, int] = {}
        self._cancelled = threading.Event()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="quick_check", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        data, self._data = self._data, None  # the one reference: freed once copied in
        try:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            self._conn = conn
            self._started.set()
            try:
                assert data is not None
                _deserialize(conn, data)
                del data
                self._problems = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
                if self._proof is not None and self._problems == ["ok"]:
                    self._prove(conn, self._proof)
            finally:
                conn.close()
        except BaseException as exc:  # kept for confirm(): a thread cannot raise to the open
            self._error = exc
        finally:
            self._started.set()

    def _prove(self, conn: sqlite3.Connection, proof: Proof) -> None:
        """``proof`` of the sound copy, unless the open is being cancelled; an SQL
        error (an interrupt too) proves nothing."""
        if self._cancelled.is_set():
            return
        try:
            proven = proof(conn)
        except sqlite3.Error:
            return
        self.proven = proven

    def confirm(self) -> None:
        """Wait for the check; raise ProjectFileError when it found the file damaged."""
        self._thread.join()
        if self._error is not None:
            if isinstance(self._error, sqlite3.DatabaseError):
                raise ProjectFileError(self.file, f"truncated or damaged: {self._error}")
            raise self._error
        _refuse_damage(self.file, self._problems)

    def cancel(self) -> None:
        """Stop the check (the file was refused for another reason) and wait for it."""
        self._cancelled.set()  # no proof is begun after this
        self._started.wait()
        if self._thread.is_alive() and self._conn is not None:
            # Closed meanwhile (ProgrammingError): the check is over anyway.
            with contextlib.suppress(sqlite3.ProgrammingError):
                self._conn.interrupt()
        self._thread.join()


def _refuse_damage(file: Path, problems: list[str]) -> None:
    """``PRAGMA quick_check``'s rows are anything but ``ok``: the file is damaged."""
    if problems != ["ok"]:
        raise ProjectFileError(file, f"truncated or damaged: {'; '.join(problems)}")


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


def check(file: Path, conn: sqlite3.Connection, integrity: Integrity | None = None) -> None:
    """Identity, version and integrity, cheapest first; migrate an older file's copy.

    With ``integrity`` (from :func:`load_checking`) the integrity is its business: it
    is confirmed here only when a later check refuses the file (damage is the first
    reason to give), and otherwise by the caller once the rows are read."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app_id != schema.APPLICATION_ID:
        why = "no design table" if "meta" not in tables else f"application id {app_id}"
        raise ProjectFileError(file, f"not a workbench project ({why})")
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    _check_version(file, version, tables)
    if integrity is None:
        _refuse_damage(file, [r[0] for r in conn.execute("PRAGMA quick_check(3)")])
        _meta_and_migration(file, conn, version, tables)
        return
    try:
        _meta_and_migration(file, conn, version, tables)
    except Exception:  # not an interrupt: that stops the check (the caller cancels it)
        integrity.confirm()  # a damaged file's meta or migration fails for its damage
        raise


def _meta_and_migration(
    file: Path, conn: sqlite3.Connection, version: int, tables: set[str]
) -> None:
    """The meta table's version agrees with the header's; an older file's copy migrated."""
    if "meta" in tables:
        _check_meta_version(file, conn, version)
    if version < schema.SCHEMA_VERSION:
        try:
            import sqlite_utils  # deferred: only a migration needs it

            schema.migrate(sqlite_utils.Database(conn, execute_plugins=False), version)
        except Exception as exc:  # a migration bug, not damage: say which step failed
            raise ProjectFileError(
                file, f"cannot upgrade from schema {version} to {schema.SCHEMA_VERSION}: {exc}"
            ) from exc


def _check_version(file: Path, version: int, tables: set[str]) -> None:
    """The header's schema version is one a workbench writes, or this file is refused.

    ``PRAGMA user_version`` is a signed 32-bit field: a damaged header can hold -1,
    which would run ``MIGRATIONS[-1]``, the newest step, on a finished file.  Version 0
    is an empty database stamped as ours (see :mod:`workbench.store.schema`): it opens
    as an empty design, but not when it already holds design tables, because then the
    header is what is wrong and the first migration would fail on them.
    """
    if version > schema.SCHEMA_VERSION:
        raise ProjectFileError(
            file,
            f"saved by a newer workbench (schema {version}, "
            f"this version reads up to {schema.SCHEMA_VERSION})",
        )
    if version < 0 or (version == 0 and tables & set(schema.COLUMNS)):
        raise ProjectFileError(
            file,
            f"damaged header: schema version {version} is not one a workbench writes "
            f"(1 to {schema.SCHEMA_VERSION})",
        )


def _check_meta_version(file: Path, conn: sqlite3.Connection, version: int) -> None:
    """The version the meta table records (written with the header's) agrees with it."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        return
    try:
        recorded = json.loads(row[0])
    except (TypeError, ValueError, RecursionError):
        recorded = row[0]
    if isinstance(recorded, bool) or not isinstance(recorded, int):
        raise ProjectFileError(
            file,
            f"damaged: the meta table's schema_version {shown(recorded)} is not a whole number",
        )
    if recorded != version:
        raise ProjectFileError(
            file,
            f"damaged: the header says schema {version} but the meta table says {recorded}",
        )
