"""The bill of materials workbook: what to buy, by category, with live totals.

Sheets: **Summary** (per-category totals and the grand total), then one sheet per
category (compute, network, optics and cables, storage, racks and power),
**Spares** and **Cost** (capex, opex, cost per GPU-hour and per training run as live
formulas over the grand total and the design's cost inputs:
:mod:`workbench.export.bom_cost_sheet`).  Every category sheet has the columns item, manufacturer, part number,
quantity, unit price, extended price, lead time, notes, and a total row.

Extended prices, totals and spare quantities are **Excel formulas**, so procurement can
type a quoted price (or change a spares percentage) and see every total move; an
extended price is empty (not 0) while its unit price is, so an unpriced line never
passes for a free one, and the Summary counts the unpriced lines per category.

Where the quantities come from:

- servers, switches, storage and PDUs: the devices in the racks, one line per catalog
  item; racks: one line per rack type;
- cables and optics: :func:`workbench.calc.cabling.cable_counts` over every link (the
  same parts ``workbench fabric`` and the estimates count): per measured run the
  shortest stocked catalog cable that covers it, never a shorter one (a run longer than
  every stocked length gets a line of its own length, to be quoted); optics per module
  as the cages take them (a QM9700's twin-port cage: one 2x400G module for two ports);
  fibre patch cords for optics runs are not catalog items, so they get one unpriced
  line per media and stocked length;
- part numbers: the catalog item's ``part_number``, its ``sources.part_number`` in the
  "Part number source" column; a line without one says "to be quoted" in its notes;
- prices: the catalog item's ``unit_price`` (the design's snapshot; a non-USD currency
  is said in the notes); lead time: the item's ``lead_time_weeks`` property where the
  catalog has one (the shipped catalog has none yet).

Spares (:data:`DEFAULT_SPARES_PCT`, planning assumptions): 2 % of compute and storage
(a node or enclosure out for RMA while the vendor ships its replacement), 5 % of
network and of optics and cables (optics and cables fail and get damaged most during
installation), 2 % of PDUs (racks themselves get no spares).  A spare quantity is
``ROUNDUP(quantity × % / 100)``; the percentage is typed once per category on the
Summary sheet and every spare line refers to it.
"""

from __future__ import annotations

from pathlib import Path

from workbench.calc.bom_lines import (  # noqa: F401 - re-exported for the BOM's callers
    CATEGORIES,
    DEFAULT_SPARES_PCT,
    Line,
    bom_lines,
    expected_total,
    spare_quantity,
)
from workbench.calc.costs import CostSummary, design_costs
from workbench.export.bom_cost_sheet import write_cost_sheet
from workbench.export.output import ExportError, Progress, no_progress
from workbench.export.xlsx_common import Book, Column, Formula, SheetWriter, write_workbook
from workbench.model import Design

MONEY = "#,##0.00"
COLUMNS = [
    Column("Item", max_width=50),
    Column("Manufacturer"),
    Column("Part number"),
    Column("Quantity", "#,##0"),
    Column("Unit price", MONEY, min_width=12),
    Column("Extended price", MONEY, min_width=16),
    Column("Lead time"),
    Column("Notes", width=48, wrap=True),
    Column("Part number source", width=48, wrap=True),
]
QTY, PRICE, EXTENDED = 3, 4, 5  # column indexes used by formulas


def _check_spares(target: Path, spares_pct: dict[str, float] | None) -> dict[str, float]:
    chosen = dict(DEFAULT_SPARES_PCT)
    for key, value in (spares_pct or {}).items():
        if key not in CATEGORIES:
            known = ", ".join(CATEGORIES)
            raise ExportError(target, f"spares_pct: unknown category {key!r} (known: {known})")
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
            raise ExportError(
                target, f"spares_pct[{key!r}]: must be a percentage 0..100, got {value!r}"
            )
        chosen[key] = float(value)
    return chosen


def _column_letter(index: int) -> str:
    """The spreadsheet letter of 0-based column ``index`` (0 → A; fewer than 26)."""
    return chr(ord("A") + index)


def _extended(row: int) -> Formula:
    return Formula(f'=IF(ISNUMBER(E{row}),D{row}*E{row},"")')


def _unpriced(sheet: str, last: int) -> str:
    """Lines of ``sheet`` (rows 2..last) with a quantity and no numeric unit price.

    Not ``COUNTIFS(E:E,"")``: LibreOffice does not count a truly empty cell as equal to
    "" there (Excel does), so the same file read 0 unpriced lines in one program and 3 in
    the other.  ``ISNUMBER`` is false for an empty cell and for the "" a spare line's
    price formula gives, in every spreadsheet program.
    """
    price, qty = f"'{sheet}'!E2:E{last}", f"'{sheet}'!D2:D{last}"
    return f"=SUMPRODUCT((1-ISNUMBER({price}))*({qty}>0))"


def _write_category(sheet: SheetWriter, lines: list[Line]) -> int:
    """The lines and a total row; returns the total row's number."""
    for line in lines:
        row = sheet.last_row + 1
        sheet.append(
            [
                line.item,
                line.manufacturer,
                line.part_number,
                line.quantity,
                line.unit_price,
                _extended(row),
                line.lead_time,
                line.notes,
                line.part_source,
            ]
        )
    total = sheet.last_row + 1
    last = max(2, total - 1)
    sheet.append(["Total", None, None, None, None, Formula(f"=SUM(F2:F{last})"), None, None, None])
    return total


def _fill(
    book: Book,
    lines: dict[str, list[Line]],
    pct: dict[str, float],
    currency: str,
    progress: Progress,
    costs: CostSummary | None = None,
) -> None:
    summary = book.sheet(
        "Summary",
        [Column("Category"), Column("Lines", "#,##0"), Column("Unpriced lines", "#,##0"),
         Column(f"Total ({currency})", MONEY, min_width=18), Column("Spares %", "0.0")],
    )  # fmt: skip
    titles = [*CATEGORIES.values(), "Spares"]
    spare_rows = [
        (key, line) for key in CATEGORIES for line in lines[key] if line.spares and pct[key] > 0
    ]
    sizes = [len(lines[key]) for key in CATEGORIES] + [len(spare_rows)]
    for i, (title, n) in enumerate(zip(titles, sizes, strict=True)):
        quoted = title.replace("'", "''")
        last = max(2, n + 1)
        key = list(CATEGORIES)[i] if i < len(CATEGORIES) else None
        summary.append(
            [
                title,
                n,
                Formula(_unpriced(quoted, last)),
                Formula(f"='{quoted}'!F{n + 2}"),
                pct[key] if key is not None else None,
            ]
        )
    summary.append(["Grand total", None, None, Formula(f"=SUM(D2:D{len(titles) + 1})"), None])
    grand_total = summary.cell_ref(3, summary.last_row)
    sheets: dict[str, SheetWriter] = {}
    for step, (key, title) in enumerate(CATEGORIES.items()):
        progress(0.5 + 0.4 * step / len(CATEGORIES), f"Writing {title}")
        sheets[key] = book.sheet(title, COLUMNS)
        _write_category(sheets[key], lines[key])
    spares = book.sheet("Spares", [*COLUMNS, Column("Category"), Column("Spares %", "0.0")])
    source_rows = {
        key: {id(line): r for r, line in enumerate(lines[key], start=2)} for key in CATEGORIES
    }
    pct_col = _column_letter(len(COLUMNS) + 1)  # after the category column
    for key, line in spare_rows:
        row = spares.last_row + 1
        src = sheets[key]
        at = source_rows[key][id(line)]
        qty, price = src.cell_ref(QTY, at), src.cell_ref(PRICE, at)
        spares.append(
            [
                line.item,
                line.manufacturer,
                line.part_number,
                Formula(f"=ROUNDUP({qty}*{pct_col}{row}/100,0)"),
                Formula(f'=IF(ISNUMBER({price}),{price},"")'),
                _extended(row),
                line.lead_time,
                line.notes,
                line.part_source,
                CATEGORIES[key],
                Formula(f"='Summary'!$E${list(CATEGORIES).index(key) + 2}"),
            ]
        )
    total = spares.last_row + 1
    spares.append(
        ["Total", None, None, None, None, Formula(f"=SUM(F2:F{max(2, total - 1)})")]
        + [None] * (len(COLUMNS) - 4)
    )
    if costs is not None:
        progress(0.95, "Writing Cost")
        write_cost_sheet(book, costs, grand_total)


def write_bom(
    design: Design,
    target: Path,
    *,
    progress: Progress = no_progress,
    spares_pct: dict[str, float] | None = None,
) -> Path:
    """Write the BOM workbook to ``target`` (atomically); ExportError for a bad
    ``spares_pct`` (category key → percent, e.g. ``{"compute": 3}``) before writing."""
    target = Path(target)
    costs = design_costs(design)
    if spares_pct is None and costs.inputs.spares_pct is not None:
        # The design's Costs form sets one spares percentage for every category.
        spares_pct = dict.fromkeys(CATEGORIES, costs.inputs.spares_pct)
    pct = _check_spares(target, spares_pct)
    progress(0.0, "Counting parts")
    lines = bom_lines(design)
    currencies = {i.currency for i in design.device_types.values() if i.unit_price is not None}
    currency = currencies.pop() if len(currencies) == 1 else "mixed currencies"
    return write_workbook(
        target, lambda book: _fill(book, lines, pct, currency, progress, costs), progress
    )
