"""Acceptance checklist workbook: sheets, verdict drop-down, colours, formulas, values."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest

from workbench.export.checklist import write_checklist
from workbench.export.output import ExportError
from workbench.model import ops
from workbench.model.acceptance import AcceptanceResult
from workbench.model.version_ops import AddAssignment, AddBaseline
from workbench.model.versions import Assignment, Baseline, BaselineRevision
from workbench.templates import build_template

DRIVER = "550.54.15"


@pytest.fixture(scope="module")
def design():
    design = build_template("hgx-h100-air")
    revision = BaselineRevision(1, {"driver": DRIVER}, created="2026-11-01T00:00:00Z")
    ops.apply(design, AddBaseline(Baseline("bl-1", "H100 training", [revision])))
    ops.apply(design, AddAssignment(Assignment("as-1", "bl-1", "gpu*")))
    return design


def _items(sheet) -> dict[str, tuple]:
    return {row[0]: row for row in sheet.iter_rows(min_row=2, values_only=True)}


def test_sheets_and_expected_values(design, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(write_checklist(design, tmp_path / "c.xlsx"))
    nodes = [d.name for _r, d in design.iter_devices() if d.name.startswith("gpu")]
    assert book.sheetnames == ["Summary", *nodes, "Pass marks"]
    items = _items(book["gpu00001"])
    gpus = design.device_types["generic-hgx-h100-8gpu"].gpu_count
    assert items["gpu.count"][4] == f"= {gpus}"
    assert items["gpu.driver"][4].startswith(DRIVER)
    fp16 = design.device_types["nvidia-h100-sxm5-80gb"].tflops["fp16"]
    assert items["gpu.fp16_matmul"][4] == f"≥ {fp16 * 0.6:.1f} TFLOPS"
    assert items["sched.srun_world"][4] == f"= {2 * gpus}"
    assert items["nic.rate"][2] == "Compute ports active at ≥ 400 Gb/s"
    assert "nvidia-smi" in items["gpu.count"][3]


def test_verdict_dropdown_and_colours(design, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(write_checklist(design, tmp_path / "c.xlsx"))
    sheet = book["gpu00001"]
    last = sheet.max_row
    (dv,) = sheet.data_validations.dataValidation
    assert dv.type == "list" and dv.formula1 == '"PASS,FAIL,SKIP"'
    assert str(dv.sqref) == f"G2:G{last}"
    rules = [
        (str(rng.sqref), r.formula[0]) for rng in sheet.conditional_formatting for r in rng.rules
    ]
    assert (f"G2:G{last}", '"PASS"') in rules and (f"G2:G{last}", '"FAIL"') in rules
    assert sheet.freeze_panes == "A2"


def test_summary_formulas_count_each_node(design, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(write_checklist(design, tmp_path / "c.xlsx"))
    summary = book["Summary"]
    row = [c.value for c in summary[2]]
    last = book["gpu00001"].max_row
    assert row[0] == "gpu00001" and row[1] == last - 1
    assert row[2] == f"=COUNTIF('gpu00001'!$G$2:$G${last},\"PASS\")"
    assert row[3] == f"=COUNTIF('gpu00001'!$G$2:$G${last},\"FAIL\")"
    assert summary.cell(summary.max_row, 3).value == f"=SUM(C2:C{summary.max_row - 1})"


def test_stored_results_fill_measured_and_verdict(design, tmp_path: Path) -> None:
    old = AcceptanceResult(
        "gpu00002",
        "gpu.count",
        "7",
        "FAIL",
        "results-gpu00002.csv",
        2,
        "2026-11-03T00:00:00Z",
        "ana",
        "2026-11-02T09:00:00Z",
        "ai-1",
    )
    new = AcceptanceResult(
        "gpu00002",
        "gpu.count",
        "8",
        "PASS",
        "results-gpu00002.csv",
        2,
        "2026-11-04T00:00:00Z",
        "ana",
        "2026-11-03T09:00:00Z",
        "ai-2",
    )
    path = write_checklist(design, tmp_path / "c.xlsx", results=[new, old])
    items = _items(openpyxl.load_workbook(path)["gpu00002"])
    assert items["gpu.count"][5:7] == ("8", "PASS")
    assert items["gpu.count"][9] == "results-gpu00002.csv:2"
    assert items["gpu.driver"][5] is None


def test_single_sheet_mode_and_limit(design, tmp_path: Path, monkeypatch) -> None:
    path = write_checklist(design, tmp_path / "c.xlsx", per_node_sheets=False)
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Summary", "Checks", "Pass marks"]
    checks = book["Checks"]
    assert str(checks.data_validations.dataValidation[0].sqref) == f"H2:H{checks.max_row}"
    assert book["Summary"]["C2"].value.startswith("=COUNTIFS('Checks'!$A$2:")
    monkeypatch.setattr("workbench.export.checklist.PER_NODE_SHEET_LIMIT", 4)
    with pytest.raises(ExportError, match="too many for one sheet each"):
        write_checklist(design, tmp_path / "d.xlsx", per_node_sheets=True)
    assert not (tmp_path / "d.xlsx").exists()
    auto = openpyxl.load_workbook(write_checklist(design, tmp_path / "e.xlsx"))
    assert auto.sheetnames == ["Summary", "Checks", "Pass marks"]


def test_node_names_are_never_formulas(tmp_path: Path) -> None:
    design = build_template("hgx-h100-air")
    node = next(d for _r, d in design.iter_devices() if d.name == "gpu00001")
    node.name = '=HYPERLINK("x")'
    book = openpyxl.load_workbook(write_checklist(design, tmp_path / "c.xlsx"))
    cell = book["Summary"]["A2"]
    assert cell.value == node.name and cell.data_type == "s"


def test_verdict_list_refuses_other_values(design, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(write_checklist(design, tmp_path / "c.xlsx"))
    (dv,) = book["gpu00001"].data_validations.dataValidation
    assert dv.showErrorMessage and dv.errorStyle == "stop"  # "OK" is refused, not kept


def test_node_sheets_print_on_a4_landscape_one_page_wide(design, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(write_checklist(design, tmp_path / "c.xlsx"))
    sheet = book["gpu00001"]
    setup = sheet.page_setup
    assert (setup.paperSize, setup.orientation) == (9, "landscape")  # 9: A4
    assert (setup.fitToWidth, setup.fitToHeight) == (1, 0)
    assert sheet.sheet_properties.pageSetUpPr.fitToPage
    assert sheet.print_title_rows == "$1:$1"
    widths = [sheet.column_dimensions[c].width for c in "ABCDEFGHIJ"]
    assert sum(widths) <= 145  # ~80 % on A4 landscape: 9 pt text, not 46 % and 4 pt
    rows = {row[0].value: row[0].row for row in sheet.iter_rows(min_row=2)}
    matmul = rows["gpu.fp16_matmul"]
    command = sheet.cell(matmul, 4)
    assert command.alignment.wrap_text and command.alignment.vertical == "top"
    lines = command.value.count("\n") + 1
    assert sheet.row_dimensions[matmul].height >= 15 * lines  # tall enough to hold it


def test_every_workbook_sets_its_paper_size(design, tmp_path: Path) -> None:
    from workbench.export.inventory import write_inventory

    book = openpyxl.load_workbook(write_inventory(design, tmp_path / "i.xlsx"))
    assert book["Inventory"].page_setup.paperSize == 9


def test_failing_items_come_first_after_an_import(design, tmp_path: Path) -> None:
    def result(node: str, item: str, verdict: str) -> AcceptanceResult:
        return AcceptanceResult(node, item, "x", verdict, "results.csv", 2,
                                "2026-11-04T00:00:00Z", "ana", "2026-11-03T09:00:00Z", "ai-3")  # fmt: skip

    results = [result("gpu00002", "gpu.count", "PASS"), result("gpu00003", "gpu.driver", "FAIL"),
               result("gpu00003", "nic.mtu", "FAIL"), result("gpu00003", "gpu.count", "PASS")]  # fmt: skip
    book = openpyxl.load_workbook(write_checklist(design, tmp_path / "c.xlsx", results=results))
    assert book.sheetnames[:2] == ["Summary", "gpu00003"]
    ids = [row[0] for row in book["gpu00003"].iter_rows(min_row=2, values_only=True)]
    assert ids[:2] == ["gpu.driver", "nic.mtu"]
    assert ids.index("bios.aspm") < ids.index("gpu.count")  # the rest in checklist order
    assert book["Summary"]["A2"].value == "gpu00003"


@pytest.mark.skipif(shutil.which("libreoffice") is None, reason="needs LibreOffice")
def test_libreoffice_prints_the_command_cells_whole(design, tmp_path: Path) -> None:
    """The multi-line GEMM command prints in full on A4 landscape (LibreOffice drew it
    over the row above when the row had no height)."""
    path = write_checklist(design, tmp_path / "c.xlsx")
    subprocess.run(["libreoffice", "--headless", "--convert-to", "pdf", "--outdir",
                    str(tmp_path), str(path)], capture_output=True, timeout=240, check=True,
                   env={**os.environ, "HOME": str(tmp_path)})  # fmt: skip
    pdf = tmp_path / "c.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    assert re.search(r"Page size:\s+841\.\d+ x 595\.\d+ pts \(A4\)", info.stdout)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    for line in ("print(round(min(r),1))", "torch.cuda.synchronize(i)", "t=time.time()"):
        assert line in text
    # Printed size: 11 pt Carlito draws a ~13.4 pt box at 100 %; at 46 % it was ~6 pt.
    boxes = subprocess.run(["pdftotext", "-bbox", "-f", "2", "-l", "2", str(pdf), "-"],
                           capture_output=True, text=True, check=True).stdout  # fmt: skip
    heights = [float(b) - float(a) for a, b in
               re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">(?:bios|os|gpu)\.', boxes)]  # fmt: skip
    assert heights and min(heights) >= 10.0


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_a_node_name_with_an_exclamation_mark_is_counted(tmp_path: Path) -> None:
    """Issue 18: the Summary cut the sheet reference at the first '!' of the node's
    name (=COUNTIF('gpu!1'!$G$2:1',"PASS"): Err:508 in LibreOffice)."""
    from test_export_workbooks import _soffice_csv

    from workbench.export.acceptance_items import acceptance_nodes
    from workbench.model import edit

    design = build_template("hgx-h100-air")
    node = acceptance_nodes(design)[0]
    edit.rename_device(design, node.id, "gpu!1")
    book = write_checklist(design, tmp_path / "checklist.xlsx", per_node_sheets=True)
    summary = {row[0]: row for row in _soffice_csv(book, tmp_path)["Summary"]}
    row = summary["gpu!1"]
    assert not any(cell.startswith("Err") for cell in row), row
    assert int(float(row[1])) > 0 and int(float(row[5])) == int(float(row[1]))  # all open


def test_pass_marks_sheet_names_each_source(tmp_path: Path) -> None:
    from workbench.templates.builder import sample_design

    book = openpyxl.load_workbook(write_checklist(sample_design(), tmp_path / "c.xlsx"))
    rows = {r[0]: r for r in book["Pass marks"].iter_rows(min_row=2, values_only=True)}
    assert rows["net.allreduce_2node"][2] == "≥ 368 GB/s"
    assert "NVIDIA/nccl-tests#290" in rows["net.allreduce_2node"][3]
    assert rows["gpu.driver"][2] == "550.127.08 (or a patch release of it)"
    assert rows["bmc.address"][2].startswith("differs per node")


def test_checks_split_over_sheets_below_excels_row_limit(
    design, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr("workbench.export.checklist.MAX_SHEET_ROWS", 100)
    book = openpyxl.load_workbook(
        write_checklist(design, tmp_path / "c.xlsx", per_node_sheets=False)
    )
    checks = [name for name in book.sheetnames if name.startswith("Checks")]
    assert len(checks) > 1 and checks[:2] == ["Checks", "Checks 2"]
    summary = {row[0]: row for row in book["Summary"].iter_rows(min_row=2, values_only=True)}
    for name in checks:
        sheet = book[name]
        assert sheet.max_row - 1 <= 100
        node = sheet["A2"].value
        assert f"'{name}'!" in summary[node][2]  # its counts read its own sheet
        assert str(sheet.data_validations.dataValidation[0].sqref) == f"H2:H{sheet.max_row}"
