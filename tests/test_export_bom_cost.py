"""The BOM workbook's Cost sheet: live formulas that LibreOffice recalculates to the same
figures as ``design_costs``, and that move when a unit price, the tariff or the PUE is
changed in the workbook."""

from __future__ import annotations

import math
import shutil
from copy import deepcopy
from pathlib import Path

import openpyxl
import pytest
from test_export_workbooks import _soffice_csv

from workbench.calc.costs import design_costs
from workbench.export.bom import write_bom
from workbench.templates import sample_design

pytestmark = pytest.mark.skipif(shutil.which("soffice") is None, reason="needs LibreOffice")

#: A job name a spreadsheet would run as a formula if it were written as one.
HOSTILE = '=HYPERLINK("http://example.invalid","x")'


@pytest.fixture(scope="module")
def design():
    d = deepcopy(sample_design())
    d.workloads[0].name = HOSTILE
    return d


def _cost(sheets: dict) -> dict[str, list[str]]:
    return {row[0]: row for row in sheets["Cost"]}


def test_libreoffice_computes_the_cost_figures_and_they_move(design, tmp_path: Path):
    book = tmp_path / "bom.xlsx"
    write_bom(design, book)
    costs = design_costs(design)
    cost = _cost(_soffice_csv(book, tmp_path / "first"))
    assert float(cost["Capex"][1]) == pytest.approx(costs.capex_total)
    assert float(cost["Opex per year"][1]) == pytest.approx(costs.opex_per_year)
    assert float(cost["Cost per GPU-hour"][1]) == pytest.approx(costs.cost_per_gpu_hour)
    run = cost[HOSTILE]  # the name came back as text, not as a formula's result
    assert float(run[4]) == pytest.approx(costs.runs[0].cost)
    assert float(run[5]) == pytest.approx(costs.runs[0].energy_cost)

    # Change the DGX H100's unit price, the tariff and the PUE in the workbook.
    wb = openpyxl.load_workbook(book)
    compute = wb["Compute"]
    (row,) = [r for r in compute.iter_rows(min_row=2) if r[0].value == "DGX H100"]
    qty, old_price = row[3].value, row[4].value
    row[4].value = old_price + 100_000
    sheet = wb["Cost"]
    labels = {sheet.cell(r, 1).value: r for r in range(2, sheet.max_row + 1)}
    sheet.cell(labels["Electricity tariff"], 2).value = 0.2
    sheet.cell(labels["PUE"], 2).value = 1.1
    wb.save(book)
    moved = _cost(_soffice_csv(book, tmp_path / "second"))

    spares = math.ceil(qty * 2 / 100 - 1e-9)  # compute spares at 2 %
    capex = costs.capex_total + 100_000 * (qty + spares) * 1.03  # installation 3 %
    assert float(moved["Capex"][1]) == pytest.approx(capex)
    energy = costs.typical_kw * 1.1 * 8760 * 0.2
    assert float(moved["Energy per year"][1]) == pytest.approx(energy)
    opex = energy + capex * 0.08 + costs.racks * 6000.0
    assert float(moved["Opex per year"][1]) == pytest.approx(opex)
    cph = (capex / 4 + opex) / (costs.gpus * 8760 * 0.8)
    assert float(moved["Cost per GPU-hour"][1]) == pytest.approx(cph)
