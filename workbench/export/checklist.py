"""The acceptance checklist workbook: every node's items to run, measure and sign.

Each item (see :mod:`workbench.export.acceptance_items`) has the command, the value
the design expects, the measured value, a PASS/FAIL/SKIP verdict (a drop-down, shown
green or red), who signed and when.  Measured values and verdicts already imported
from ``health_check.sh`` results (``design.acceptance`` or the ``results`` argument;
the newest per node and item wins) are filled in, with the file and line they came
from, so the signer checks what the machines said rather than retyping it.

Layout: a ``Summary`` sheet (first) counts PASS, FAIL, SKIP and open rows per node with
``COUNTIF`` formulas over the node's rows, so it stays right as people fill the sheets
in.  Up to :data:`PER_NODE_SHEET_LIMIT` nodes each node gets its own sheet (what a
signer prints and takes to the rack); above that one ``Checks`` sheet holds every row
with a node column and filters.  Measured (500 nodes): one sheet each takes 2.0 s and
1.5 MB against 0.9 s and 0.3 MB for one sheet, so 12,500 nodes would be ~30 s and a
~35 MB file of 12,500 tabs, which Excel and LibreOffice barely open; the single sheet
of 237,500 rows is written in ~25 s and filters fine (with the preflight, firmware and
container layers a node has ~49 items: 612,500 rows in ~21 s, tests/benchmarks/
bench_export_acceptance.py).
``per_node_sheets=True`` forces sheets (refused above the
limit), ``False`` forces the single sheet.

After ``workbench acceptance import`` the failing items come first (on each node's
sheet, and the nodes with a failure first); the sheets print on A4 landscape one page
wide with the long texts wrapped, and the verdict list refuses anything but PASS,
FAIL and SKIP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import PatternFill
from openpyxl.worksheet.datavalidation import DataValidation

from workbench.export import xlsx_common as xc
from workbench.export.acceptance_items import (
    ITEM_IDS,
    LAYERS,
    PASS_MARK_SOURCES,
    CheckItem,
    node_checklists,
)
from workbench.export.output import ExportError, Progress, no_progress
from workbench.model.acceptance import VERDICTS, AcceptanceResult, latest_results
from workbench.model.design import Design, Device

#: Most nodes that get a sheet each (see the module docstring).
PER_NODE_SHEET_LIMIT = 500
#: Most data rows on one checks sheet: Excel stops at 1,048,576 rows, so a
#: 1,000,000-GPU design (125,000 nodes × ~49 items) goes on several, "Checks",
#: "Checks 2", ..., each node's rows whole on one of them.
MAX_SHEET_ROWS = 1_000_000

_LAYER_TITLES = dict(LAYERS)
_GREEN = PatternFill("solid", fgColor="C6EFCE")
_RED = PatternFill("solid", fgColor="FFC7CE")
_GREY = PatternFill("solid", fgColor="EDEDED")

#: Fixed widths (143 characters) that A4 landscape prints at about 80 % (≈ 9 pt text):
#: long texts wrap inside them and each row takes the height they need.
_ITEM_COLUMNS = [
    xc.Column("Item id", width=15, wrap=True),
    xc.Column("Layer", width=11, wrap=True),
    xc.Column("Check", width=24, wrap=True),
    xc.Column("Command", width=29, wrap=True),
    xc.Column("Expected", width=14, wrap=True),
    xc.Column("Measured", width=12, wrap=True),
    xc.Column("Verdict", width=7, wrap=True),
    xc.Column("Signed by", width=10, wrap=True),
    xc.Column("Date", "yyyy-mm-dd", width=10, wrap=True),
    xc.Column("Result from", width=11, wrap=True),
]
_SUMMARY_COLUMNS = [
    xc.Column("Node", min_width=12),
    xc.Column("Items", "0"),
    xc.Column("PASS", "0"),
    xc.Column("FAIL", "0"),
    xc.Column("SKIP", "0"),
    xc.Column("Open", "0"),
    xc.Column("Accepted", width=10),
]


def _validate(sheet: xc.SheetWriter, column: int, first: int, last: int) -> None:
    """Drop-down of the verdicts and green/red/grey fills on one column's rows."""
    if last < first:
        return
    letter = chr(ord("A") + column)
    ref = f"{letter}{first}:{letter}{last}"
    dv = DataValidation(type="list", formula1='"' + ",".join(VERDICTS) + '"', allow_blank=True)
    # Without the error flag Excel and LibreOffice accept any text ("OK" would count
    # as an open row): refuse it.
    dv.showErrorMessage = True
    dv.errorStyle = "stop"
    dv.error = "Choose PASS, FAIL or SKIP"
    dv.errorTitle = "Verdict"
    dv.add(ref)
    sheet.ws.data_validations.append(dv)
    for verdict, fill in (("PASS", _GREEN), ("FAIL", _RED), ("SKIP", _GREY)):
        rule = CellIsRule(operator="equal", formula=[f'"{verdict}"'], fill=fill)
        sheet.ws.conditional_formatting.add(ref, rule)


def _row(item: CheckItem, found: AcceptanceResult | None) -> list[object]:
    measured = found.measured if found is not None else None
    verdict = found.verdict if found is not None else None
    source = found.where if found is not None else None
    return [item.id, _LAYER_TITLES[item.layer], item.title, item.command, item.expected_text,
            measured, verdict, None, None, source]  # fmt: skip


def write_checklist(
    design: Design,
    target: Path,
    *,
    progress: Progress = no_progress,
    results: Iterable[AcceptanceResult] | None = None,
    per_node_sheets: bool | None = None,
) -> Path:
    """Write the checklist workbook to ``target`` (see the module docstring)."""
    nodes = node_checklists(design)
    if per_node_sheets is None:
        per_node_sheets = len(nodes) <= PER_NODE_SHEET_LIMIT
    elif per_node_sheets and len(nodes) > PER_NODE_SHEET_LIMIT:
        raise ExportError(target, f"{len(nodes)} nodes are too many for one sheet each "
                                  f"(at most {PER_NODE_SHEET_LIMIT}); use one checks sheet")  # fmt: skip
    stored = results if results is not None else getattr(design, "acceptance", [])
    latest = latest_results(stored)
    nodes = _failing_first(nodes, latest)
    total = max(1, len(nodes))

    def fill(book: xc.Book) -> None:
        counts: list[tuple[str, int, str, str]] = []  # node, items, verdict range, node ref
        if per_node_sheets:
            for k, (device, items) in enumerate(nodes, 1):
                sheet = book.sheet(device.name, _ITEM_COLUMNS)
                for item in items:
                    sheet.append(_row(item, latest.get((device.name, item.id))))
                _validate(sheet, 6, 2, sheet.last_row)
                verdicts = sheet.range_ref(6, 2, max(2, sheet.last_row))
                counts.append((device.name, len(items), verdicts, ""))
                if k % 50 == 0:
                    progress(0.9 * k / total, "Node sheets")
        else:
            checks: xc.SheetWriter | None = None
            pending: list[tuple[str, int]] = []  # the nodes on the current checks sheet

            def finish(sheet: xc.SheetWriter) -> None:
                _validate(sheet, 7, 2, sheet.last_row)
                nodes_col = sheet.range_ref(0, 2, sheet.last_row)
                verdicts = sheet.range_ref(7, 2, sheet.last_row)
                counts.extend((name, n, verdicts, nodes_col) for name, n in pending)
                pending.clear()

            for k, (device, items) in enumerate(nodes, 1):
                if checks is None or checks.rows + len(items) > MAX_SHEET_ROWS:
                    if checks is not None:
                        finish(checks)
                    title = "Checks" if checks is None else f"Checks {len(book.sheets) + 1}"
                    checks = book.sheet(title, [xc.Column("Node", min_width=12), *_ITEM_COLUMNS])
                for item in items:
                    checks.append([device.name, *_row(item, latest.get((device.name, item.id)))])
                pending.append((device.name, len(items)))
                if k % 500 == 0:
                    progress(0.9 * k / total, "Checks")
            if checks is not None:
                finish(checks)
        _summary(book, counts)
        _pass_marks(book, nodes)

    return xc.write_workbook(target, fill, progress)


_MARK_COLUMNS = [
    xc.Column("Item id", width=17, wrap=True),
    xc.Column("Check", width=34, wrap=True),
    xc.Column("Expected", width=22, wrap=True),
    xc.Column("Where the value comes from", width=70, wrap=True),
]


def _pass_marks(book: xc.Book, nodes: Sequence[tuple[Device, list[CheckItem]]]) -> None:
    """The last sheet: each item once, its expected value (or "differs per node") and
    the rule and source behind it (:data:`PASS_MARK_SOURCES`), for the reviewer."""
    seen: dict[str, tuple[CheckItem, set[str]]] = {}
    for _device, items in nodes:
        for item in items:
            found = seen.get(item.id)
            if found is None:
                seen[item.id] = (item, {item.expected_text})
            elif len(found[1]) < 2:
                found[1].add(item.expected_text)
    sheet = book.sheet("Pass marks", _MARK_COLUMNS)
    order = {item_id: k for k, item_id in enumerate(ITEM_IDS)}
    for item_id in sorted(seen, key=lambda i: order.get(i, len(order))):
        item, texts = seen[item_id]
        expected = item.expected_text if len(texts) == 1 else "differs per node (see its sheet)"
        sheet.append([item_id, item.title, expected, PASS_MARK_SOURCES.get(item_id, "")])


def _failing_first(
    nodes: list[tuple[Device, list[CheckItem]]],
    latest: Mapping[tuple[str, str], AcceptanceResult],
) -> list[tuple[Device, list[CheckItem]]]:
    """After an import the signer starts with what failed: a node's FAIL rows first and
    the nodes with a FAIL first, each otherwise in checklist order (a stable sort)."""
    if not latest:
        return nodes

    def failed(device: Device, item: CheckItem) -> bool:
        found = latest.get((device.name, item.id))
        return found is not None and found.verdict == "FAIL"

    ordered = [
        (device, sorted(items, key=lambda item: not failed(device, item)))
        for device, items in nodes
    ]
    return sorted(ordered, key=lambda pair: not (pair[1] and failed(pair[0], pair[1][0])))


def _summary(book: xc.Book, counts: Sequence[tuple[str, int, str, str]]) -> None:
    """The first sheet: one row per node, COUNTIF(S) formulas over its verdicts."""
    sheet = book.sheet("Summary", _SUMMARY_COLUMNS)
    for i, (name, n, verdicts, nodes_col) in enumerate(counts, start=2):

        def count(v: str, i: int = i, verdicts: str = verdicts, nodes_col: str = nodes_col):
            if nodes_col:  # one checks sheet: count this node's rows (A{i} holds its name)
                return xc.Formula(f'=COUNTIFS({nodes_col},$A{i},{verdicts},"{v}")')
            return xc.Formula(f'=COUNTIF({verdicts},"{v}")')

        sheet.append([name, n, count("PASS"), count("FAIL"), count("SKIP"),
                      xc.Formula(f"=B{i}-C{i}-D{i}-E{i}"),
                      xc.Formula(f'=IF(C{i}=B{i},"yes","no")')])  # fmt: skip
    last = sheet.last_row
    if counts:
        sheet.append(["All nodes", *(xc.Formula(f"=SUM({c}2:{c}{last})") for c in "BCDEF"),
                      xc.Formula(f'=COUNTIF(G2:G{last},"yes")&" of {len(counts)}"')])  # fmt: skip
    book.wb.move_sheet(sheet.ws.title, offset=-(len(book.wb._sheets) - 1))
