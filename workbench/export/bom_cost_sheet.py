"""The BOM workbook's **Cost** sheet: capex, opex, cost per GPU-hour and per training
run as live formulas over the BOM's own totals and an inputs block.

The inputs (tariff, PUE, percentages, space, staffing, years, utilisation) are typed
once at the top of the sheet; the hardware line is the Summary sheet's grand total
(itself the sum of every unit price × quantity, spares included), so changing a unit
price, the tariff or the PUE in a spreadsheet program moves capex, opex and the cost
per GPU-hour.  The formulas are those of :mod:`workbench.calc.costs` (its docstring is
the one description), written as spreadsheet formulas; the design's own figures (GPUs,
rack positions, typical IT kW, each job's days and GPUs) are numbers.  Job names are
text cells (quote-prefixed when a spreadsheet would take them for a formula).
"""

from __future__ import annotations

from workbench.calc.costs import CostSummary
from workbench.calc.power import HOURS_PER_YEAR
from workbench.export.xlsx_common import Book, Column, Formula

MONEY = "#,##0.00"
#: Input rows: (label, CostInputs field or design figure, unit); row 2 onwards.
COLUMNS = [
    Column("Item", min_width=34),
    Column("Value", "#,##0.00##", min_width=18),
    Column("Unit", min_width=28),
    Column("GPUs", "#,##0"),
    Column("Cost", MONEY, min_width=16),
    Column("Energy cost", MONEY, min_width=16),
]
#: The sheet's row of each named figure (fixed, so the formulas below can name them).
ROWS: dict[str, int] = {
    name: i + 2
    for i, name in enumerate(
        (
            "currency",
            "tariff",
            "pue",
            "maintenance_pct",
            "installation_pct",
            "space",
            "staffing",
            "years",
            "utilisation",
            "gpus",
            "racks",
            "typical_kw",
            "hardware",
            "installation",
            "capex",
            "energy",
            "maintenance",
            "space_year",
            "staffing_year",
            "opex",
            "cph",
            "cph_ex_energy",
        )
    )
}


def _b(name: str) -> str:
    return f"$B${ROWS[name]}"


def write_cost_sheet(book: Book, costs: CostSummary, grand_total_ref: str) -> None:
    """Add the Cost sheet; ``grand_total_ref`` is the Summary's grand total cell."""
    sheet = book.sheet("Cost", COLUMNS)
    i, cur = costs.inputs, costs.currency
    hours = f"{HOURS_PER_YEAR:g}"
    rows: list[tuple[str, object, str]] = [
        ("Currency", cur, "of every price and figure"),
        ("Electricity tariff", i.tariff_per_kwh, f"{cur} per kWh"),
        ("PUE", costs.pue, "facility power / IT power"),
        ("Maintenance and support", i.maintenance_pct, "% of capex per year"),
        ("Installation", i.installation_pct, "% of hardware"),
        ("Space", i.space_per_rack_year, f"{cur} per rack position per year"),
        ("Staffing", i.staffing_per_year, f"{cur} per year"),
        ("Amortisation", i.amortisation_years, "years"),
        ("Utilisation", i.utilisation, "share of GPU-hours used"),
        ("GPUs", costs.gpus, "in the design"),
        ("Rack positions", costs.racks, "racks in the design"),
        ("Typical IT power", costs.typical_kw, "kW (catalog typical draw)"),
        ("Hardware (BOM grand total, spares included)", Formula(f"={grand_total_ref}"), cur),
        ("Installation", Formula(f"={_b('hardware')}*{_b('installation_pct')}/100"), cur),
        ("Capex", Formula(f"={_b('hardware')}+{_b('installation')}"), cur),
        (
            "Energy per year",
            Formula(f"={_b('typical_kw')}*{_b('pue')}*{hours}*{_b('tariff')}"),
            f"{cur} per year",
        ),
        (
            "Maintenance and support per year",
            Formula(f"={_b('capex')}*{_b('maintenance_pct')}/100"),
            f"{cur} per year",
        ),
        ("Space per year", Formula(f"={_b('racks')}*{_b('space')}"), f"{cur} per year"),
        ("Staffing per year", Formula(f"={_b('staffing')}"), f"{cur} per year"),
        (
            "Opex per year",
            Formula(f"=SUM({_b('energy')}:{_b('staffing_year')})"),
            f"{cur} per year",
        ),
        (
            "Cost per GPU-hour",
            Formula(
                f"=IF({_b('gpus')}*{_b('utilisation')}>0,({_b('capex')}/{_b('years')}"
                f'+{_b("opex")})/({_b("gpus")}*{hours}*{_b("utilisation")}),"")'
            ),
            f"{cur} per GPU-hour, energy included",
        ),
        (
            "Cost per GPU-hour without energy",
            Formula(
                f"=IF({_b('gpus')}*{_b('utilisation')}>0,({_b('capex')}/{_b('years')}"
                f'+{_b("opex")}-{_b("energy")})/({_b("gpus")}*{hours}*{_b("utilisation")}),"")'
            ),
            f"{cur} per GPU-hour (runs add their own energy)",
        ),
    ]
    money = [c.number_format for c in COLUMNS]
    money[1] = MONEY
    for label, value, unit in rows:
        # A figure in the currency reads as money (two decimals); tariffs, PUE, shares
        # and years keep the column's finer format.
        sheet.append(
            [label, value, unit],
            money if unit.startswith(cur) and unit != f"{cur} per kWh" else None,
        )
    if costs.unpriced_lines:
        sheet.append(
            [
                f"{costs.unpriced_lines} BOM line(s) without a price are not in the hardware "
                "total: type their prices on the category sheets",
                None,
                None,
            ]
        )
    sheet.append([None])
    sheet.append(["Training run", "Days", "", "GPUs", "Cost", "Energy cost"])
    for run in costs.runs:
        row = sheet.last_row + 1
        if run.days is None or not run.gpus:
            sheet.append([run.name, None, "days unknown: see the Estimates view"])
            continue
        energy = f"={_b('typical_kw')}*D{row}/{_b('gpus')}*{_b('pue')}*B{row}*24*{_b('tariff')}"
        cost = f"=B{row}*24*D{row}*{_b('cph_ex_energy')}+F{row}"
        sheet.append([run.name, run.days, "days", run.gpus, Formula(cost), Formula(energy)])
