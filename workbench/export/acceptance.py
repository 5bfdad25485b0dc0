"""Bring ``health_check.sh`` results back into the design, all or nothing.

:func:`read_results` reads every ``results-*.csv`` of a folder (or one file) and checks
every row before anything changes: the header, the node (a node of the design: a GPU
server by its design name or by the host name slurm.conf gives it), the item id (one
the checklist knows), the verdict, the timestamp and the measured text.  The first problem is a :class:`ResultsError` naming ``file:line``;
otherwise it returns an :class:`AcceptanceImport` whose :meth:`~AcceptanceImport.op`
is one undoable edit (``ops.apply(design, plan.op())``).
"""

from __future__ import annotations

import csv
import io
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from workbench.bounded_read import (
    ReadRefused,
    decode_utf8,
    read_bounded,
    shown_name,
    utf8_error_line,
)
from workbench.export.acceptance_items import ITEM_IDS, acceptance_nodes, node_host
from workbench.model.acceptance import (
    VERDICTS,
    AcceptanceResult,
    AddAcceptanceResults,
)
from workbench.model.design import Design
from workbench.text_rules import field_problem

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


def _node_names(design: Design) -> dict[str, str | None]:
    """Each name a results file may give a node, to the node's design name: the design
    name itself and the host name the health check and slurm.conf use (the script
    writes ``hostname -s``, e.g. ``gpu-server-a01-u2`` for ``gpu-server-A01-u2``).
    A host name two nodes map to is kept as None: such a row cannot be attributed.
    A design name always wins over another node's host name."""
    devices = acceptance_nodes(design)
    names: dict[str, str | None] = {}
    for device in devices:
        host = node_host(device)
        if host in names and names[host] != device.name:
            names[host] = None
        else:
            names[host] = device.name
    names.update({d.name: d.name for d in devices})
    return names


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
    nodes = _node_names(design)
    items = set(ITEM_IDS)
    imported_at = now or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    import_id = "ai-" + secrets.token_hex(6)
    results: list[AcceptanceResult] = []
    files = _files(Path(results_dir))
    for path in files:
        try:
            data = read_bounded(path, MAX_FILE_BYTES)  # regular files only, never blocks
            text = decode_utf8(data)
        except ReadRefused as exc:
            raise ResultsError(str(path), str(exc)) from None
        except UnicodeDecodeError as exc:
            raise ResultsError(
                f"{path}:{utf8_error_line(data, exc)}", "is not UTF-8 text"
            ) from None
        except OSError as exc:
            raise ResultsError(str(path), exc.strerror or str(exc)) from None
        # The csv module reads line ends itself, so a quoted value keeps its line break
        # (and is then judged by the measured value's rule) instead of losing it.
        rows = csv.reader(io.StringIO(text, newline=""))
        try:
            header = next(rows, None)
        except csv.Error as exc:
            raise ResultsError(f"{path}:1", f"not CSV ({exc})") from None
        if header != RESULTS_HEADER:
            raise ResultsError(f"{path}:1", f"header must be {','.join(RESULTS_HEADER)}")
        for line, row in _numbered(path, rows):
            where = f"{path}:{line}"
            if not row:
                continue
            if len(row) != len(RESULTS_HEADER):
                raise ResultsError(where, f"has {len(row)} fields, expected {len(RESULTS_HEADER)}")
            node, item, measured, verdict, stamp = row
            if node not in nodes:
                raise ResultsError(where, f"node {node!r} is not a GPU node of the design")
            design_name = nodes[node]
            if design_name is None:
                raise ResultsError(where, f"host name {node!r} is shared by several GPU nodes "
                                          "of the design: rename one of them")  # fmt: skip
            node = design_name  # results are kept under the design's name
            if item not in items:
                raise ResultsError(where, f"item {item!r} is not an acceptance item")
            if verdict not in VERDICTS:
                raise ResultsError(where, f"verdict {verdict!r} is not one of "
                                          f"{', '.join(VERDICTS)}")  # fmt: skip
            if not _STAMP.match(stamp):
                raise ResultsError(where, f"timestamp {stamp!r} is not ISO 8601 "
                                          "(2026-11-02T10:00:00Z)")  # fmt: skip
            problem = field_problem("acceptance_results.measured", measured)
            if problem is not None:
                raise ResultsError(where, f"measured value: {problem}")
            results.append(AcceptanceResult(node, item, measured, verdict, shown_name(path.name), line,
                                            imported_at, who, stamp, import_id))  # fmt: skip
    if not results:
        raise ResultsError(str(results_dir), "holds no result rows")
    return AcceptanceImport(tuple(results), tuple(shown_name(p.name) for p in files), import_id)


def _numbered(path: Path, rows: Any) -> Iterator[tuple[int, list[str]]]:
    """Each row with the line it starts on (a quoted value may span lines); a row the
    csv module cannot read is a ResultsError naming that line."""
    start = rows.line_num + 1
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ResultsError(f"{path}:{start}", f"not CSV ({exc})") from None
        yield start, row
        start = rows.line_num + 1
