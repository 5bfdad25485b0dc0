"""As-built captures in the project file: one table (schema version 8).

``captures`` holds one row per :class:`~workbench.model.captures.CapturedLink`, in the
order the import read them (``seq``), like the acceptance results
(:mod:`workbench.store.acceptance_table`): columns addressed by name, and every value
read back is checked with the model's own rule
(:func:`workbench.model.captures.check_capture`) before a design is built from it, with
one line naming table, row and field.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # sqlite_utils costs 0.1 s to import: loaded by what writes
    import sqlite_utils

from workbench.model.captures import CapturedLink, check_capture
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.store.errors import ProjectFileError

TABLE = "captures"
#: Column name -> SQLite type (schema version 8).  Frozen once files are written.
TABLES: dict[str, dict[str, type]] = {
    TABLE: {
        "seq": int,
        "source": str,
        "line": int,
        "format": str,
        "local_device": str,
        "local_port": str,
        "remote_device": str,
        "remote_port": str,
        "speed_gbps": float,
        "width": int,
        "captured_at": str,
        "imported_at": str,
        "imported_by": str,
        "import_id": str,
    }
}
COLUMNS: dict[str, tuple[str, ...]] = {t: tuple(c) for t, c in TABLES.items()}
_NULLABLE = {"speed_gbps", "width"}
_TEXT = {"source", "format", "local_device", "local_port", "remote_device", "remote_port",
         "captured_at", "imported_at", "imported_by", "import_id"}  # fmt: skip


def create_tables(db: sqlite_utils.Database) -> None:
    """7 -> 8: as-built captures.  A version-7 design had none: the table starts empty."""
    columns = TABLES[TABLE]
    db.create_table(TABLE, columns, pk="seq", not_null=set(columns) - _NULLABLE - {"seq"})


def capture_rows(design: Design) -> Iterator[tuple[str, list[Sequence[Any]]]]:
    """The table's rows, in :data:`COLUMNS` order."""
    captures: list[CapturedLink] = getattr(design, "captures", [])
    yield (
        TABLE,
        [
            (
                i,
                c.source,
                c.line,
                c.format,
                c.local_device,
                c.local_port,
                c.remote_device,
                c.remote_port,
                c.speed_gbps,
                c.width,
                c.captured_at,
                c.imported_at,
                c.imported_by,
                c.import_id,
            )
            for i, c in enumerate(captures, 1)
        ],  # fmt: skip
    )


def read_captures(file: Path, conn: Any) -> list[CapturedLink]:
    """The stored records; ProjectFileError naming table, row and field for anything an
    import would refuse (a hand-edited or damaged file)."""
    names = COLUMNS[TABLE]
    columns = ", ".join(names)
    rows = conn.execute(f'SELECT {columns} FROM "{TABLE}" ORDER BY seq').fetchall()
    captures: list[CapturedLink] = []
    for row in rows:
        seq = row[0]
        values = dict(zip(names[1:], row[1:], strict=True))
        for name in _TEXT:
            if not isinstance(values[name], str):
                raise ProjectFileError(file, f"{TABLE} row {seq}, {name}: must be text, "
                                             f"got {values[name]!r}")  # fmt: skip
        capture = CapturedLink(**values)
        try:
            check_capture(capture)
        except EditError as exc:
            raise ProjectFileError(file, f"{TABLE} row {seq}, {str(exc).rstrip('.')}") from None
        captures.append(capture)
    return captures
