"""Acceptance results in the project file: one append-only table (schema version 7).

``acceptance_results`` holds one row per imported result, in import order (``seq``),
like the version matrix's ``observations`` (:mod:`workbench.store.version_tables`):
columns addressed by name, and every value read is checked with the model's own rule
(:func:`workbench.model.acceptance.check_result`) before a design is built from it,
with one line naming table, row and field.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # sqlite_utils costs 0.1 s to import: loaded by what writes
    import sqlite_utils

from workbench.model.acceptance import AcceptanceResult, check_result
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.store.errors import ProjectFileError

TABLE = "acceptance_results"
#: Column name -> SQLite type (schema version 7).
TABLES: dict[str, dict[str, type]] = {
    TABLE: {
        "seq": int,
        "node": str,
        "item": str,
        "measured": str,
        "verdict": str,
        "source": str,
        "line": int,
        "measured_at": str,
        "imported_at": str,
        "imported_by": str,
        "import_id": str,
    }
}
COLUMNS: dict[str, tuple[str, ...]] = {t: tuple(c) for t, c in TABLES.items()}
_NULLABLE = {"line"}


def create_tables(db: sqlite_utils.Database) -> None:
    """6 -> 7: acceptance results.  A version-6 design had none: the table starts empty."""
    columns = TABLES[TABLE]
    db.create_table(TABLE, columns, pk="seq", not_null=set(columns) - _NULLABLE)
    db.table(TABLE).create_index(["node", "item"])


def acceptance_rows(design: Design) -> Iterator[tuple[str, list[Sequence[Any]]]]:
    """The table's rows, in :data:`COLUMNS` order."""
    results: list[AcceptanceResult] = getattr(design, "acceptance", [])
    yield (
        TABLE,
        [
            (
                i,
                r.node,
                r.item,
                r.measured,
                r.verdict,
                r.source,
                r.line,
                r.measured_at,
                r.imported_at,
                r.imported_by,
                r.import_id,
            )
            for i, r in enumerate(results, 1)
        ],  # fmt: skip
    )


def read_acceptance(file: Path, conn: Any) -> list[AcceptanceResult]:
    """The stored results; ProjectFileError naming table, row and field for anything
    the import would refuse."""
    columns = ", ".join(f'"{c}"' for c in COLUMNS[TABLE])
    rows = conn.execute(f'SELECT {columns} FROM "{TABLE}" ORDER BY seq').fetchall()
    results: list[AcceptanceResult] = []
    for row in rows:
        seq, node, item, measured, verdict, source, line, measured_at, at, who, import_id = row
        texts = dict(zip(COLUMNS[TABLE][1:], row[1:], strict=True))
        for name, value in texts.items():
            if name != "line" and not isinstance(value, str):
                raise ProjectFileError(file, f"{TABLE} row {seq}, {name}: must be text, "
                                             f"got {value!r}")  # fmt: skip
        result = AcceptanceResult(node, item, measured, verdict, source, line, at, who,
                                  measured_at, import_id)  # fmt: skip
        try:
            check_result(result)
        except EditError as exc:
            field = str(exc).split(":")[0].removeprefix("Acceptance result ").split()[0]
            raise ProjectFileError(file, f"{TABLE} row {seq}, {field}: "
                                         f"{str(exc).rstrip('.')}") from None  # fmt: skip
        results.append(result)
    return results
