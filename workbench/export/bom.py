"""The bill of materials workbook: what to buy, by category, with live totals.

Sheets: **Summary** (per-category totals and the grand total), then one sheet per
category (compute, network, optics and cables, storage, racks and power) and
**Spares**.  Every category sheet has the columns item, manufacturer, part number,
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

import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from workbench.calc.cabling import cable_counts
from workbench.calc.fabric.media import design_parts
from workbench.catalog.item import CatalogItem
from workbench.export.output import ExportError, Progress, no_progress
from workbench.export.xlsx_common import Book, Column, Formula, SheetWriter, write_workbook
from workbench.model import Design
from workbench.model.ports import MEDIA

#: Category key → sheet title, in sheet order.
CATEGORIES: dict[str, str] = {
    "compute": "Compute",
    "network": "Network",
    "optics_cables": "Optics and cables",
    "storage": "Storage",
    "racks_power": "Racks and power",
}
#: Spares as a percentage of each category's quantities (see the module docstring).
DEFAULT_SPARES_PCT: dict[str, float] = {
    "compute": 2.0,
    "network": 5.0,
    "optics_cables": 5.0,
    "storage": 2.0,
    "racks_power": 2.0,
}
_KIND_CATEGORY = {
    "server": "compute",
    "switch": "network",
    "nic": "network",
    "storage": "storage",
    "pdu": "racks_power",
    "infrastructure": "racks_power",
    "rack": "racks_power",
    "cable": "optics_cables",
    "optic": "optics_cables",
}
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


@dataclass
class Line:
    """One thing to buy: what, how many, at what price (None: not in the catalog)."""

    item: str
    manufacturer: str
    part_number: str
    quantity: int
    unit_price: float | None
    lead_time: str = ""
    notes: str = ""
    #: Whether spares are bought for it (racks: no).
    spares: bool = True
    #: Where the part number comes from (the catalog's ``sources.part_number``).
    part_source: str = ""


def _line(item: CatalogItem, quantity: int, note: str = "") -> Line:
    notes = [note] if note else []
    if item.unit_price is None:
        notes.append("no price in the catalog: to be quoted")
    elif item.currency and item.currency != "USD":
        notes.append(f"price in {item.currency}")
    if not item.part_number:
        notes.append(f"no part number in the catalog (item {item.slug}): to be quoted")
    weeks = item.props.get("lead_time_weeks")
    lead = f"{weeks:g} weeks" if isinstance(weeks, int | float) else ""
    return Line(
        item.model or item.slug,
        item.manufacturer,
        item.part_number,
        quantity,
        item.unit_price,
        lead,
        "; ".join(notes),
        item.kind != "rack",
        str(item.sources.get("part_number") or f"catalog item {item.slug} (no source given)")
        if item.part_number
        else "",
    )


def _natural(text: str) -> list[object]:
    """Sort key putting ``aoc-400g-osfp-3m`` before ``aoc-400g-osfp-10m``."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def bom_lines(design: Design) -> dict[str, list[Line]]:
    """Category key → its lines, in catalog-slug order (see the module docstring)."""
    lines: dict[str, list[Line]] = {key: [] for key in CATEGORIES}
    devices: Counter[str] = Counter(device.device_type for _r, device in design.iter_devices())
    racks: Counter[str] = Counter(rack.rack_type for rack in design.iter_racks())
    for slug, n in sorted((devices + racks).items()):
        item = design.device_types.get(slug)
        if item is None:
            note = "not in the design's catalog snapshot: to be identified and quoted"
            lines["compute"].append(Line(slug, "", "", n, None, notes=note))
            continue
        lines[_KIND_CATEGORY.get(item.kind, "compute")].append(_line(item, n))
    counts = cable_counts(design)
    parts = {item.slug: item for item in design_parts(design)}
    for slug, n in sorted(counts.parts.items(), key=lambda kv: _natural(kv[0])):
        item = parts.get(slug)
        if item is None:
            lines["optics_cables"].append(Line(slug, "", "", n, None, notes="unknown part"))
        else:
            lines["optics_cables"].append(_line(item, n))
    for (media, length), n in sorted(
        counts.by_length.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)
    ):
        if media not in ("mmf", "smf") or length is None:
            continue
        name = f"{MEDIA[media].replace(' and optics', '')} patch cord {length:g} m"
        note = "patch cords are not catalog items: to be quoted"
        lines["optics_cables"].append(Line(name, "", "", n, None, notes=note))
    for (media, length), n in sorted(counts.to_quote.items()):
        name = f"{MEDIA[media]} {length:g} m"
        note = "the catalog stocks no length that covers these runs: to be quoted"
        lines["optics_cables"].append(Line(name, "", "", n, None, notes=note))
    if counts.problems:
        reasons = "; ".join(r for r, _n in counts.reasons.most_common(3))
        note = f"no stocked cable or optic fits these runs: {reasons}"
        lines["optics_cables"].append(
            Line("Runs without a part", "", "", counts.problems, None, notes=note)
        )
    return lines


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
    pct = _check_spares(target, spares_pct)
    progress(0.0, "Counting parts")
    lines = bom_lines(design)
    currencies = {i.currency for i in design.device_types.values() if i.unit_price is not None}
    currency = currencies.pop() if len(currencies) == 1 else "mixed currencies"
    return write_workbook(
        target, lambda book: _fill(book, lines, pct, currency, progress), progress
    )


def expected_total(lines: dict[str, list[Line]], pct: dict[str, float] | None = None) -> float:
    """The grand total the workbook's formulas compute, worked out in Python (for tests
    and for a caller that wants the figure without opening the workbook)."""
    pct = {**DEFAULT_SPARES_PCT, **(pct or {})}
    total = 0.0
    for key, group in lines.items():
        for line in group:
            if line.unit_price is None:
                continue
            total += line.quantity * line.unit_price
            if line.spares and pct[key] > 0:
                total += math.ceil(line.quantity * pct[key] / 100 - 1e-9) * line.unit_price
    return total
