"""Bring ``health_check.sh`` results back into the design, all or nothing.

:func:`read_results` reads every ``results-*.csv`` of a folder (or one file) and checks
every row before anything changes: the header, the node (a node of the design: a GPU
server by name), the item id (one the checklist knows), the verdict, the timestamp and
the measured text.  The first problem is a :class:`ResultsError` naming ``file:line``;
otherwise it returns an :class:`AcceptanceImport` whose :meth:`~AcceptanceImport.op`
is one undoable edit (``ops.apply(design, plan.op())``).
"""

from __future__ import annotations

import csv
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from workbench.export.acceptance_items import ITEM_IDS, acceptance_nodes
from workbench.model.acceptance import (
    MAX_MEASURED_CHARS,
    VERDICTS,
    AcceptanceResult,
    AddAcceptanceResults,
)
from workbench.model.design import Design
from workbench.model.names import text_problem

RESULTS_HEADER = ["node", "item", "measured", "verdict", "timestamp"]
_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$")
#: Larger results files are refused rather than read (a node writes ~20 rows).
MAX_FILE_BYTES = 16 << 20


class ResultsError(ValueError):
    """A results file that cannot be imported; ``str()`` is ``file:line: problem``."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")


@dataclass(frozen=True)
class AcceptanceImport:
    """What :func:`read_results` found: the results, their files and the import id."""

    results: tuple[AcceptanceResult, ...]
    files: tuple[str, ...]
    import_id: str

    def op(self) -> AddAcceptanceResults:
        """The edit that adds these results (its inverse removes exactly them)."""
        return AddAcceptanceResults(self.results)


def _files(results_dir: Path) -> list[Path]:
    if results_dir.is_file():
        return [results_dir]
    if not results_dir.is_dir():
        raise ResultsError(str(results_dir), "no such file or folder")
    found = sorted(results_dir.glob("results-*.csv"))
    if not found:
        raise ResultsError(str(results_dir), "holds no results-*.csv file")
    return found


def read_results(
    design: Design, results_dir: str | Path, *, who: str = "", now: str | None = None
) -> AcceptanceImport:
    """Every result in ``results_dir`` checked against ``design`` (see the module
    docstring); ResultsError at the first problem, and the design is never touched."""
    nodes = {d.name for d in acceptance_nodes(design)}
    items = set(ITEM_IDS)
    imported_at = now or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    import_id = "ai-" + secrets.token_hex(6)
    results: list[AcceptanceResult] = []
    files = _files(Path(results_dir))
    for path in files:
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise ResultsError(str(path), f"larger than {MAX_FILE_BYTES >> 20} MiB")
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ResultsError(str(path), "is not UTF-8 text") from None
        except OSError as exc:
            raise ResultsError(str(path), exc.strerror or str(exc)) from None
        rows = csv.reader(text.splitlines())
        header = next(rows, None)
        if header != RESULTS_HEADER:
            raise ResultsError(f"{path}:1", f"header must be {','.join(RESULTS_HEADER)}")
        for line, row in enumerate(rows, start=2):
            where = f"{path}:{line}"
            if not row:
                continue
            if len(row) != len(RESULTS_HEADER):
                raise ResultsError(where, f"has {len(row)} fields, expected {len(RESULTS_HEADER)}")
            node, item, measured, verdict, stamp = row
            if node not in nodes:
                raise ResultsError(where, f"node {node!r} is not a GPU node of the design")
            if item not in items:
                raise ResultsError(where, f"item {item!r} is not an acceptance item")
            if verdict not in VERDICTS:
                raise ResultsError(where, f"verdict {verdict!r} is not one of "
                                          f"{', '.join(VERDICTS)}")  # fmt: skip
            if not _STAMP.match(stamp):
                raise ResultsError(where, f"timestamp {stamp!r} is not ISO 8601 "
                                          "(2026-11-02T10:00:00Z)")  # fmt: skip
            problem = text_problem(measured, limit=MAX_MEASURED_CHARS, blank_ok=True)
            if problem is not None:
                raise ResultsError(where, f"measured value: {problem}")
            results.append(AcceptanceResult(node, item, measured, verdict, path.name, line,
                                            imported_at, who, stamp, import_id))  # fmt: skip
    if not results:
        raise ResultsError(str(results_dir), "holds no result rows")
    return AcceptanceImport(tuple(results), tuple(p.name for p in files), import_id)
