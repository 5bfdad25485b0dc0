"""The baseline a node is given reaches the handoff files.

The sample's GPU servers name the software stack "baseline-2026Q4" (driver
550.127.08) and no version-matrix assignment; the inventory's "Assigned baseline"
column, the checklist's driver row and the health check's ``expected.csv`` must all
read that stack, not "record (the design sets no value)".
"""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pytest

from workbench.export.checklist import write_checklist
from workbench.export.health_check import write_health_check
from workbench.export.inventory import write_inventory
from workbench.templates import build_template


@pytest.fixture(scope="module")
def design():
    return build_template("hgx-h100-air")


def test_inventory_names_the_stack(design, tmp_path: Path) -> None:
    sheet = openpyxl.load_workbook(write_inventory(design, tmp_path / "i.xlsx"))["Inventory"]
    rows = {r[0]: r for r in sheet.iter_rows(min_row=2, values_only=True)}
    assert rows["gpu00001"][13] == "baseline-2026Q4 r1"
    others = [r for name, r in rows.items() if not name.startswith("gpu")]
    assert others and all(not r[13] for r in others)  # switches, storage: no baseline


def test_checklist_and_expected_csv_pin_the_driver(design, tmp_path: Path) -> None:
    book = openpyxl.load_workbook(write_checklist(design, tmp_path / "c.xlsx"))
    items = {r[0]: r for r in book["gpu00001"].iter_rows(min_row=2, values_only=True)}
    assert items["gpu.driver"][4] == "550.127.08 (or a patch release of it)"
    write_health_check(design, tmp_path / "hc")
    with (tmp_path / "hc" / "expected.csv").open() as f:
        rows = {(r["node"], r["item"]): r for r in csv.DictReader(f)}
    assert rows[("gpu00001", "gpu.driver")]["op"] == "version"
    assert rows[("gpu00001", "gpu.driver")]["expected"] == "550.127.08"
