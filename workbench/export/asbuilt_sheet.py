"""The as-built sheet: every designed link with what the captures found, for installers.

One row per design link (then one per captured link the design lacks), sorted so the
work comes first: discrepancies (wrong port, swapped, wrong speed, missing,
unexpected), then unchecked links, then the correct ones.  Each row gives the place
(row, rack), the plane, the expected ends and speed, what was found and where it was
read (capture file:line), and three columns the installer fills in on the floor: a
*Fixed* drop-down (yes/no), who signed and when.  A second sheet holds the totals per
plane, row and rack.  Verdicts come from the captures the design holds
(``workbench asbuilt``); a design without captures gets every link as unchecked, which
makes the sheet a blank cabling checklist.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import PatternFill
from openpyxl.worksheet.datavalidation import DataValidation

from workbench.asbuilt.matcher import VERDICTS, Verdict, check
from workbench.asbuilt.report import UNPLANNED, Place, places, planes_of, totals
from workbench.export import xlsx_common as xc
from workbench.export.output import Progress, no_progress
from workbench.model.design import Design, Link

COLUMNS = [
    xc.Column("Verdict", min_width=10),
    xc.Column("Link", min_width=8),
    xc.Column("Plane"),
    xc.Column("Row"),
    xc.Column("Rack"),
    xc.Column("A device", max_width=40),
    xc.Column("A port"),
    xc.Column("B device", max_width=40),
    xc.Column("B port"),
    xc.Column("Speed (G)", "0.###"),
    xc.Column("Found", max_width=60),
    xc.Column("Found speed (G)", "0.###"),
    xc.Column("Detail", max_width=60),
    xc.Column("Capture", max_width=40),
    xc.Column("Fixed", width=8),
    xc.Column("Signed by", min_width=14),
    xc.Column("Date", min_width=12),
]
TOTAL_COLUMNS = [xc.Column("Scope"), xc.Column("Name", max_width=40),
                 *(xc.Column(v.capitalize(), "0") for v in VERDICTS)]  # fmt: skip
#: Order of the rows: the work first.
_ORDER = {v: i for i, v in enumerate(("wrong-port", "swapped", "wrong-speed", "missing",
                                      "unexpected", "unchecked", "correct"))}  # fmt: skip
_FILLS = {
    "correct": PatternFill("solid", fgColor="C6EFCE"),
    "unchecked": PatternFill("solid", fgColor="EDEDED"),
}
_BAD = PatternFill("solid", fgColor="FFC7CE")
_FIXED_COLUMN = COLUMNS.index(next(c for c in COLUMNS if c.title == "Fixed"))


def write_asbuilt(design: Design, target: Path, *, progress: Progress = no_progress) -> Path:
    """Write the as-built workbook to ``target`` (see the module docstring)."""
    progress(0.0, "Checking links against the captures")
    verdicts = check(design)
    counted = totals(design, verdicts)
    where = places(design)
    plane = planes_of(design)
    links = design.index.links
    names = {d.id: d.name for _, d in design.iter_devices()}
    ordered = sorted(verdicts, key=lambda v: _ORDER.get(v.verdict, 99))
    tick = xc.every(2000, len(ordered), progress, "Writing the as-built sheet", 0.1, 0.8)

    def fill(book: xc.Book) -> None:
        sheet = book.sheet("As built", COLUMNS)
        for done, v in enumerate(ordered, 1):
            sheet.append(_row(v, links, names, where, plane))
            tick(done)
        _decorate(sheet)
        summary = book.sheet("Totals", TOTAL_COLUMNS)
        summary.append(["all", "", *(counted.overall[v] for v in VERDICTS)])
        for scope, table in (("plane", counted.planes), ("row", counted.rows),
                             ("rack", counted.racks)):  # fmt: skip
            for name, c in sorted(table.items()):
                summary.append([scope, name, *(c[v] for v in VERDICTS)])

    return xc.write_workbook(target, fill, progress)


def _row(
    v: Verdict,
    links: Mapping[str, Link],
    names: dict[str, str],
    where: dict[str, Place],
    plane: dict[str, str],
) -> list[object]:
    link = links.get(v.link_id) if v.link_id else None
    spots = [where[d] for d in v.devices if d in where]
    row = " / ".join(dict.fromkeys(p.row for p in spots))
    rack = " / ".join(dict.fromkeys(p.rack for p in spots))
    ends: list[object] = [None, None, None, None]
    if link is not None:
        ends = [names.get(link.a_device, link.a_device), link.a_port,
                names.get(link.b_device, link.b_device), link.b_port]  # fmt: skip
    return [
        v.verdict,
        v.link_id,
        plane.get(v.link_id, UNPLANNED) if v.link_id else UNPLANNED,
        row or None,
        rack or None,
        *ends,
        v.expected_gbps,
        v.found or None,
        v.found_gbps,
        v.detail or None,
        v.where or None,
        None,
        None,
        None,
    ]


def _decorate(sheet: xc.SheetWriter) -> None:
    """Verdict colours, and the Fixed column's yes/no drop-down."""
    last = sheet.last_row
    if last < 2:
        return
    ref = f"A2:A{last}"
    for verdict in VERDICTS:
        fill = _FILLS.get(verdict, _BAD)
        rule = CellIsRule(operator="equal", formula=[f'"{verdict}"'], fill=fill)
        sheet.ws.conditional_formatting.add(ref, rule)
    letter = chr(ord("A") + _FIXED_COLUMN)
    dv = DataValidation(type="list", formula1='"yes,no"', allow_blank=True)
    dv.error = "Choose yes or no"
    dv.errorTitle = "Fixed"
    dv.add(f"{letter}2:{letter}{last}")
    sheet.ws.data_validations.append(dv)
