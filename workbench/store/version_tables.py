"""The version matrix in the project file: four tables, written and read, checked.

- ``baselines`` (seq, id, name) and ``baseline_revisions`` (one row per revision,
  pointing at its baseline's ``seq``; the versions as a JSON object): revisions are
  kept, never replaced, so the file holds the whole history of each stack;
- ``version_assignments`` (seq, id, baseline_id, pattern), in order: the last match wins;
- ``observations`` (one row per reported value: node, layer, value, source file and
  line, time, importer, import id), append-only like the model's list.

These are not dataclass-per-table lists like the generic :mod:`binding` ones (a
baseline nests its revisions, and the matrix is one object of the design), so they are
written and read here, with the same discipline: columns addressed by name, ``seq``
keeps the order, and every value read is checked against the model's own rules
(:func:`workbench.model.version_ops.check_versions`, :mod:`workbench.text_rules`)
before a design is built from it, with one line naming table, row and field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # sqlite_utils costs 0.1 s to import: loaded by what writes
    import sqlite_utils

from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.model.version_ops import check_observation, check_versions
from workbench.model.versions import (
    Assignment,
    Baseline,
    BaselineRevision,
    Observation,
    VersionMatrix,
)
from workbench.store.errors import ProjectFileError
from workbench.text_rules import STORED_TEXT

#: Column name -> SQLite type, per table (schema version 6).
TABLES: dict[str, dict[str, type]] = {
    "baselines": {"seq": int, "id": str, "name": str},
    "baseline_revisions": {
        "seq": int,
        "baseline_seq": int,
        "revision": int,
        "versions": str,
        "note": str,
        "author": str,
        "created": str,
    },
    "version_assignments": {"seq": int, "id": str, "baseline_id": str, "pattern": str},
    "observations": {
        "seq": int,
        "id": str,
        "node": str,
        "layer": str,
        "value": str,
        "source": str,
        "line": int,
        "observed_at": str,
        "imported_by": str,
        "import_id": str,
    },
}
COLUMNS: dict[str, tuple[str, ...]] = {t: tuple(c) for t, c in TABLES.items()}
_NULLABLE = {"observations": {"line"}}


def create_tables(db: sqlite_utils.Database) -> None:
    """5 -> 6: the version matrix.  A version-5 design had none, so the tables start empty."""
    for table, columns in TABLES.items():
        not_null = set(columns) - _NULLABLE.get(table, set())
        db.create_table(table, columns, pk="seq", not_null=not_null)
    db.table("observations").create_index(["node", "layer"])


def version_rows(design: Design) -> Iterator[tuple[str, list[Sequence[Any]]]]:
    """The four tables' rows, in :data:`COLUMNS` order."""
    matrix = design.versions
    yield "baselines", [(i, b.id, b.name) for i, b in enumerate(matrix.baselines, 1)]
    revisions: list[Sequence[Any]] = []
    for baseline_seq, b in enumerate(matrix.baselines, 1):
        for r in b.revisions:
            revisions.append(
                (len(revisions) + 1, baseline_seq, r.revision,
                 json.dumps(r.versions, ensure_ascii=False), r.note, r.author, r.created)
            )  # fmt: skip
    yield "baseline_revisions", revisions
    yield (
        "version_assignments",
        [(i, a.id, a.baseline_id, a.pattern) for i, a in enumerate(matrix.assignments, 1)],
    )
    yield (
        "observations",
        [
            (
                i,
                o.id,
                o.node,
                o.layer,
                o.value,
                o.source,
                o.line,
                o.observed_at,
                o.imported_by,
                o.import_id,
            )
            for i, o in enumerate(matrix.observations, 1)
        ],  # fmt: skip
    )


class _Rows:
    """Reads one table in ``seq`` order and names its rows in messages."""

    def __init__(self, file: Path, conn: Any, table: str):
        self.file, self.table = file, table
        columns = ", ".join(f'"{c}"' for c in COLUMNS[table])
        self.rows = conn.execute(f'SELECT {columns} FROM "{table}" ORDER BY seq').fetchall()

    def fail(self, row: Sequence[Any], field: str, problem: str) -> ProjectFileError:
        return ProjectFileError(self.file, f"{self.table} row {row[0]}, {field}: {problem}")

    def text(self, row: Sequence[Any], i: int, field: str) -> str:
        """Column ``i`` (``field``) of ``row``, judged by its rule in ``STORED_TEXT``."""
        value = row[i]
        rule = STORED_TEXT[f"{self.table}.{field}"]
        problem = rule.problem(value)
        if problem is not None:
            raise self.fail(row, field, problem)
        return str(value)


def read_versions(file: Path, conn: Any) -> VersionMatrix:
    """The matrix stored in ``conn``; ProjectFileError naming table, row and field for
    anything the model's edits would refuse (see the module docstring)."""
    matrix = VersionMatrix()
    baselines = _Rows(file, conn, "baselines")
    by_seq: dict[int, Baseline] = {}
    for row in baselines.rows:
        baseline_id = baselines.text(row, 1, "id")
        if matrix.baseline(baseline_id) is not None:
            raise baselines.fail(row, "id", f"{baseline_id!r} is given twice")
        baseline = Baseline(baseline_id, baselines.text(row, 2, "name"))
        matrix.baselines.append(baseline)
        by_seq[row[0]] = baseline
    _read_revisions(file, conn, by_seq)
    assignments = _Rows(file, conn, "version_assignments")
    seen: set[str] = set()
    for row in assignments.rows:
        assignment_id = assignments.text(row, 1, "id")
        target = assignments.text(row, 2, "baseline_id")
        if assignment_id in seen:
            raise assignments.fail(row, "id", f"{assignment_id!r} is given twice")
        if matrix.baseline(target) is None:
            raise assignments.fail(
                row, "baseline_id", f"names baseline {target!r}, which the file does not hold"
            )
        seen.add(assignment_id)
        matrix.assignments.append(
            Assignment(assignment_id, target, assignments.text(row, 3, "pattern"))
        )
    matrix.observations = list(_read_observations(file, conn))
    return matrix


def _read_revisions(file: Path, conn: Any, by_seq: dict[int, Baseline]) -> None:
    rows = _Rows(file, conn, "baseline_revisions")
    for row in rows.rows:
        baseline = by_seq.get(row[1])
        if baseline is None:
            raise rows.fail(
                row, "baseline_seq", f"names baseline row {row[1]!r}, which the file does not hold"
            )
        number = row[2]
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise rows.fail(row, "revision", f"must be a whole number from 1, got {number!r}")
        last = baseline.current
        if last is not None and number <= last.revision:
            raise rows.fail(
                row,
                "revision",
                f"{number} does not follow revision {last.revision} of {baseline.name!r}",
            )
        try:
            versions: Any = json.loads(row[3]) if isinstance(row[3], str) else None
            clean = check_versions(versions, f"Revision {number} of {baseline.name!r}")
        except EditError as exc:  # before ValueError, which it extends
            raise rows.fail(row, "versions", str(exc).rstrip(".")) from None
        except (ValueError, RecursionError):
            raise rows.fail(row, "versions", "is not a JSON object of layer: version") from None
        if clean != versions:
            raise rows.fail(row, "versions", "holds versions with surrounding spaces or numbers")
        baseline.revisions.append(
            BaselineRevision(number, clean, rows.text(row, 4, "note"),
                             rows.text(row, 5, "author"),
                             rows.text(row, 6, "created"))
        )  # fmt: skip


def _read_observations(file: Path, conn: Any) -> Iterable[Observation]:
    rows = _Rows(file, conn, "observations")
    ids: set[str] = set()
    for row in rows.rows:
        seq, obs_id, node, layer, value, source, line, observed_at, who, import_id = row
        for i, name in ((1, "id"), (7, "observed_at"), (9, "import_id")):
            rows.text(row, i, name)
        rows.text(row, 8, "imported_by")
        if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 1):
            raise rows.fail(row, "line", f"must be a line number from 1, got {line!r}")
        if obs_id in ids:
            raise rows.fail(row, "id", f"{obs_id!r} is given twice")
        ids.add(obs_id)
        obs = Observation(obs_id, node, layer, value, source, line, observed_at, who, import_id)
        try:
            check_observation(obs)
        except EditError as exc:
            raise rows.fail(row, "value", str(exc).rstrip(".")) from None
        yield obs
