"""The BOM, inventory and cable-schedule workbooks, reopened with openpyxl (and, where
LibreOffice is installed, recalculated by it): sheets, headers, formulas, sheet
hygiene, formula injection, cancel and unwritable targets."""

from __future__ import annotations

import csv
import math
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import openpyxl
import pytest

from workbench.calc.cabling import STOCK_LENGTHS_M, cable_counts
from workbench.export.bom import (
    CATEGORIES,
    DEFAULT_SPARES_PCT,
    bom_lines,
    expected_total,
    write_bom,
)
from workbench.export.cables import write_cables
from workbench.export.inventory import COLUMNS as INVENTORY_COLUMNS
from workbench.export.inventory import write_inventory
from workbench.export.output import ExportCancelled, ExportError
from workbench.model.design import Link
from workbench.model.versions import Assignment, Baseline, BaselineRevision
from workbench.templates import build_template

INJECTIONS = ['=HYPERLINK("http://x","y")', "+1", "-2", "@SUM(A1)", "\tTAB", "=1+1"]


@pytest.fixture(scope="module")
def design():
    made = build_template("hgx-h100-air")
    devices = [d for _r, d in made.iter_devices() if d.name.startswith("gpu")]
    for device, text in zip(devices, INJECTIONS, strict=False):
        device.name = text
    devices[0].serial = "=cmd|' /C calc'!A0"
    made.versions.baselines.append(
        Baseline("b1", "prod", [BaselineRevision(3, {"driver": "550.54"})])
    )
    made.versions.assignments.append(Assignment("a1", "b1", "gpu*"))
    made.reindex()
    return made


@pytest.fixture(scope="module")
def books(design, tmp_path_factory):
    folder = tmp_path_factory.mktemp("books")
    return {
        "bom": write_bom(design, folder / "bom.xlsx"),
        "inventory": write_inventory(design, folder / "inventory.xlsx"),
        "cables": write_cables(design, folder / "cables.xlsx"),
    }


def _hygiene(ws, header: list[str], rows: int) -> None:
    """Header, frozen pane, filter over every row, print titles, landscape, widths."""
    assert [c.value for c in ws[1]] == header
    assert all(c.font.bold for c in ws[1])
    assert ws.freeze_panes == "A2"
    last = openpyxl.utils.get_column_letter(len(header))
    assert ws.auto_filter.ref == f"A1:{last}{rows + 1}"
    assert ws.print_title_rows == "$1:$1"
    assert ws.page_setup.orientation == "landscape"
    assert ws.page_setup.fitToWidth == 1 and ws.sheet_properties.pageSetUpPr.fitToPage
    assert ws.max_row == rows + 1
    widths = {k: v.width for k, v in ws.column_dimensions.items()}
    assert len(widths) == len(header)
    for letter, width in widths.items():
        longest = max(
            len(str(c.value)) for c in ws[letter] if c.value is not None and c.data_type == "s"
        )
        assert width >= min(longest, 40), (ws.title, letter)


def test_bom_sheets_formulas_and_quantities(design, books):
    wb = openpyxl.load_workbook(books["bom"])
    assert wb.sheetnames == ["Summary", *CATEGORIES.values(), "Spares", "Cost"]
    lines = bom_lines(design)
    header = [
        "Item",
        "Manufacturer",
        "Part number",
        "Quantity",
        "Unit price",
        "Extended price",
        "Lead time",
        "Notes",
        "Part number source",
    ]
    for key, title in CATEGORIES.items():
        ws = wb[title]
        _hygiene(ws, header, len(lines[key]) + 1)
        for r in range(2, len(lines[key]) + 2):
            assert ws[f"F{r}"].value == f'=IF(ISNUMBER(E{r}),D{r}*E{r},"")'
            assert ws[f"E{r}"].number_format == "#,##0.00"
        total = len(lines[key]) + 2
        assert ws[f"A{total}"].value == "Total"
        assert ws[f"F{total}"].value == f"=SUM(F2:F{total - 1})"
    servers = sum(
        1 for _r, d in design.iter_devices() if design.device_types[d.device_type].kind == "server"
    )
    assert sum(wb["Compute"][f"D{r}"].value for r in range(2, len(lines["compute"]) + 2)) == servers
    parts = cable_counts(design).parts
    optics = wb["Optics and cables"]
    assert sum(optics[f"D{r}"].value for r in range(2, optics.max_row)) == sum(parts.values())
    summary = wb["Summary"]
    assert summary["D2"].value == "='Compute'!F" + str(len(lines["compute"]) + 2)
    assert summary["D8"].value == "=SUM(D2:D7)"
    spares = wb["Spares"]
    assert spares["D2"].value.startswith("=ROUNDUP('Compute'!$D$2*K2/100")
    assert spares["K2"].value == "='Summary'!$E$2"


def test_bom_bad_spares_option_writes_nothing(design, tmp_path):
    for bad in ({"gpus": 2.0}, {"compute": -1}, {"compute": "5"}):
        with pytest.raises(ExportError, match="spares_pct") as raised:
            write_bom(design, tmp_path / "bom.xlsx", spares_pct=bad)
        assert "bom.xlsx" in str(raised.value) and "\n" not in str(raised.value)
    assert list(tmp_path.iterdir()) == []


def test_inventory_rows_baseline_and_injection(design, books):
    ws = openpyxl.load_workbook(books["inventory"])["Inventory"]
    devices = [d for _r, d in design.iter_devices()]
    _hygiene(ws, [c.title for c in INVENTORY_COLUMNS], len(devices))
    by_name = {row[0].value: row for row in ws.iter_rows(min_row=2)}
    assert len(by_name) == len(devices)
    for text in INJECTIONS:
        cell = by_name[text][0]
        assert cell.value == text and cell.data_type == "s" and cell.quotePrefix
    assert by_name['=HYPERLINK("http://x","y")'][8].value == "=cmd|' /C calc'!A0"
    assert by_name['=HYPERLINK("http://x","y")'][8].data_type == "s"
    assert all(c.data_type != "f" for row in ws.iter_rows() for c in row)
    gpu = by_name["gpu00007"]
    assert gpu[13].value == "prod r3"
    assert gpu[10].value and gpu[11].value  # BMC and management addresses planned
    pdu = next(row for name, row in by_name.items() if str(name).startswith("pdu"))
    assert pdu[13].value is None and pdu[6].value is None and pdu[7].value == "rear"


def test_cables_one_row_per_cable_and_pull_list(design, books, tmp_path):
    wb = openpyxl.load_workbook(books["cables"])
    ws = wb["Cables"]
    rows = list(ws.iter_rows(min_row=2, values_only=True))
    assert len(rows) == len(design.links)
    labels = [r[0] for r in rows]
    assert len(set(labels)) == len(labels) and labels[0] == "C-000001"
    ends = {frozenset({(r[10], r[11]), (r[17], r[18])}) for r in rows}
    assert len(ends) == len(rows)
    assert all(r[5] in STOCK_LENGTHS_M for r in rows)
    pull = list(wb["Pull list"].iter_rows(min_row=2, values_only=True))
    assert pull[-1][0] == "Total" and sum(r[3] for r in pull[:-1]) == len(rows)
    assert Counter((r[3], r[4], r[5]) for r in rows) == {
        (r[0], r[1], r[2]): r[3] for r in pull[:-1]
    }
    pairs = list(wb["Row pairs"].iter_rows(min_row=2, values_only=True))
    assert sum(r[3] for r in pairs[:-1]) == len(rows)
    # The same cable drawn again the other way round is listed once.
    first = design.links[0]
    design.links.append(
        Link("l999999", first.b_device, first.b_port, first.a_device, first.a_port, first.network)
    )
    try:
        again = openpyxl.load_workbook(write_cables(design, tmp_path / "c.xlsx"))
    finally:
        design.links.pop()
    assert again["Cables"].max_row == len(rows) + 1
    assert any("duplicate" in str(r[0]) for r in again["Pull list"].iter_rows(values_only=True))


@pytest.mark.parametrize("writer", [write_bom, write_inventory, write_cables])
def test_cancel_and_unwritable_leave_nothing(design, tmp_path, writer):
    calls = []

    def cancel(fraction: float, label: str = "") -> None:
        calls.append(label)
        if fraction > 0.1:
            raise ExportCancelled

    with pytest.raises(ExportCancelled):
        writer(design, tmp_path / "out.xlsx", progress=cancel)
    assert calls and list(tmp_path.iterdir()) == []
    with pytest.raises(ExportError, match="folder does not exist"):
        writer(design, tmp_path / "missing" / "out.xlsx")
    (tmp_path / "dir.xlsx").mkdir()
    with pytest.raises(ExportError, match="is a folder"):
        writer(design, tmp_path / "dir.xlsx")


def _soffice_csv(book: Path, out: Path) -> dict[str, list[list[str]]]:
    """Every sheet of ``book`` recalculated and saved as CSV by LibreOffice."""
    profile = out / "profile"
    subprocess.run(
        ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to",
         "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1",
         "--outdir", str(out), str(book)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    sheets = {}
    for path in out.glob(f"{book.stem}-*.csv"):
        with path.open(newline="", encoding="utf-8") as f:
            sheets[path.stem[len(book.stem) + 1 :]] = list(csv.reader(f))
    return sheets


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_computes_the_totals_and_keeps_text(design, books, tmp_path):
    sheets = _soffice_csv(books["bom"], tmp_path)
    summary = {row[0]: row for row in sheets["Summary"]}
    assert float(summary["Grand total"][3]) == pytest.approx(expected_total(bom_lines(design)))
    assert float(summary["Compute"][4]) == DEFAULT_SPARES_PCT["compute"]
    inventory = _soffice_csv(books["inventory"], tmp_path)["Inventory"]
    names = {row[0] for row in inventory}
    assert set(INJECTIONS) <= names


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_counts_unpriced_lines_like_excel(tmp_path):
    """Before: COUNTIFS(…,"") read 0 in LibreOffice with unpriced lines on the sheet
    (it does not count truly empty cells); every category's count must be the lines
    without a unit price, as Python counts them."""
    design = build_template("dgx-h100-superpod")  # the sample: fibre cords unpriced
    sheets = _soffice_csv(write_bom(design, tmp_path / "bom.xlsx"), tmp_path)
    summary = {row[0]: row for row in sheets["Summary"]}
    lines = bom_lines(design)
    expected = {
        title: sum(1 for line in lines[key] if line.unit_price is None and line.quantity > 0)
        for key, title in CATEGORIES.items()
    }
    assert expected["Optics and cables"] > 0, "the sample needs unpriced lines to check"
    assert {title: int(float(summary[title][2])) for title in CATEGORIES.values()} == expected
    spares = sum(
        1
        for key in CATEGORIES
        for line in lines[key]
        if line.spares
        and line.unit_price is None
        and DEFAULT_SPARES_PCT[key] > 0
        and math.ceil(line.quantity * DEFAULT_SPARES_PCT[key] / 100) > 0
    )
    assert int(float(summary["Spares"][2])) == spares


def test_every_bom_line_has_a_part_number_or_says_to_be_quoted():
    """Before: the part-number column was empty on every line, with no mark."""
    design = build_template("dgx-h100-superpod")
    lines = bom_lines(design)
    for group in lines.values():
        for line in group:
            assert line.part_number or "to be quoted" in line.notes, line
            if line.part_number:
                assert line.part_source, line  # where the number comes from is kept
    numbered = {line.part_number for g in lines.values() for line in g if line.part_number}
    assert {"MMA4Z00-NS", "MMA4Z00-NS400"} <= numbered
    cables = [line.item for line in lines["optics_cables"] if " AOC " in line.item]
    assert len(cables) > 1, "AOCs ordered per stocked length, not all at 10 m"


def test_q3400_and_every_numbered_item_keep_their_part_number_source():
    """Before: the Q3400-RA said "to be quoted" although NetBox's device type carries its
    part number. Every catalog item with a part number names where it comes from."""
    from workbench.catalog import load_catalog

    catalog = load_catalog(include_user=False, strict=True)
    numbered = [item for item in catalog if item.part_number]
    assert numbered, "the shipped catalog has part numbers"
    for item in numbered:
        assert item.sources.get("part_number"), item.slug
    q3400 = catalog.get("nvidia-q3400-ra")
    assert q3400 is not None and q3400.part_number
    assert "Q3400-RA.yaml" in str(q3400.sources["part_number"])
    assert q3400.part_number in str(q3400.sources["part_number"])


def test_cables_a_duplicate_is_both_ends_not_one(design, tmp_path):
    # Only a link with both of a listed cable's ports (either way round) is left out: one
    # sharing an end and the other device but not its port is another cable.
    first = design.links[0]
    again = Link(
        "l999998", first.b_device, first.b_port, first.a_device, first.a_port, first.network
    )
    beside = Link(
        "l999999",
        first.a_device,
        first.a_port + "-other",
        first.b_device,
        first.b_port,
        first.network,
    )
    design.links.extend([again, beside])
    try:
        book = openpyxl.load_workbook(write_cables(design, tmp_path / "c.xlsx"))
    finally:
        del design.links[-2:]
    labels = [r[0] for r in book["Cables"].iter_rows(min_row=2, values_only=True)]
    assert len(labels) == len(design.links) + 1
    assert "C-999999" in labels and "C-999998" not in labels
