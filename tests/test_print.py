"""Printed rack elevations: page planning, the PDF and SVG files, and the budget bars.

PDFs are read back with poppler (``pdfinfo``, ``pdftotext``) where it is installed; the
tests that need it skip cleanly without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QSizeF
from PySide6.QtGui import QColor, QImage, QPainter

from workbench.calc.summary import rack_load
from workbench.model import Rack, Row
from workbench.render import colors
from workbench.render import rack_geometry as geo
from workbench.render.print_export import (
    NothingToPrint,
    PrintCancelled,
    count_pages,
    write_pdf,
    write_svgs,
)
from workbench.render.print_layout import PrintOptions, matching_racks, plan_pages
from workbench.render.rack_painter import paint_rack
from workbench.rules.budgets import BudgetState, rack_budgets

needs_poppler = pytest.mark.skipif(
    shutil.which("pdfinfo") is None or shutil.which("pdftotext") is None,
    reason="poppler-utils (pdfinfo, pdftotext) not installed",
)


def pdfinfo(path: Path) -> dict[str, str]:
    out = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in out.splitlines())}


def pdftext(path: Path, page: int | None = None) -> str:
    pages = ["-f", str(page), "-l", str(page)] if page else []
    return subprocess.run(
        ["pdftotext", "-layout", *pages, str(path), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.fixture
def tagged(tiny_design):
    """The tiny design with an asset tag, a serial and a revision."""
    rack = tiny_design.sites[0].rows[0].racks[0]
    rack.devices[0].asset_tag = "AT-0042"
    rack.devices[0].serial = "SN-77881"
    rack.devices[2].asset_tag = "AT-0043"
    tiny_design.properties["revision"] = "C"
    return tiny_design


# -- planning ----------------------------------------------------------------------------


def test_one_page_per_rack_or_per_row(tagged):
    assert [p.label for p in plan_pages(tagged, PrintOptions())] == ["A01", "B01"]
    rows = plan_pages(tagged, PrintOptions(per_page="row"))
    assert [(p.kind, p.row.name) for p in rows] == [("row", "Row A"), ("row", "Row B")]


def test_pattern_and_selection_filter_racks(tagged):
    assert [p.label for p in plan_pages(tagged, PrintOptions(pattern="A*"))] == ["A01"]
    assert plan_pages(tagged, PrintOptions(pattern="Z*")) == []
    only_b = PrintOptions(rack_ids=frozenset({"r2"}))
    assert [p.label for p in plan_pages(tagged, only_b)] == ["B01"]


def test_selection_means_racks_of_devices_and_rows(tagged):
    assert matching_racks(tagged, ["d1"]) == {"r1"}
    assert matching_racks(tagged, ["row-b", "r1"]) == {"r1", "r2"}
    assert matching_racks(tagged, ["nothing"]) == frozenset()


def test_a_long_row_continues_on_the_next_page(tagged):
    template = tagged.sites[0].rows[1].racks[0]
    racks = [Rack(id=f"x{i}", name=f"C{i:02d}", rack_type=template.rack_type) for i in range(1, 21)]
    tagged.sites[0].rows.append(Row(id="row-c", name="Row C", racks=racks))
    tagged.reindex()
    pages = [p for p in plan_pages(tagged, PrintOptions(per_page="row")) if p.row.id == "row-c"]
    assert len(pages) > 1
    assert [r.name for p in pages for r in p.racks] == [r.name for r in racks]
    assert {p.part[1] for p in pages} == {len(pages)}
    # Wider paper holds more racks per page.
    wide = plan_pages(tagged, PrintOptions(paper="A3", landscape=True, per_page="row"))
    assert len([p for p in wide if p.row.id == "row-c"]) < len(pages)


# -- the PDF -----------------------------------------------------------------------------


@needs_poppler
def test_pdf_pages_paper_and_text(qapp, tagged, tmp_path):
    path = tmp_path / "racks.pdf"
    assert write_pdf(path, tagged, PrintOptions(date="2025-03-04")) == 2
    info = pdfinfo(path)
    assert info["Pages"] == "2"
    assert info["Page size"].startswith("595 x 842 pts")  # A4 portrait
    first = pdftext(path, 1)
    for text in ("A01", "dgx-001", "DGX H100", "AT-0042", "SN-77881", "AT-0043", "FRONT", "REAR"):
        assert text in first, text
    # The title block: project, site, row, rack, revision, date, page n of m.
    for text in ("Tiny design", "Hall 1", "Row A", "2025-03-04", "1 of 2"):
        assert text in first, text
    captions = re.search(r"PROJECT\s+SITE\s+ROW\s+RACK\s+REVISION\s+DATE\s+PAGE", first)
    assert captions, first
    values = " ".join(first[captions.end() :].split())
    assert values == "Tiny design Hall 1 Row A A01 C 2025-03-04 1 of 2"
    # U numbers on both sides of both faces: every unit four times on the page.
    for u in ("1", "17", "42"):
        assert len(re.findall(rf"(?<![\w/.-]){u}(?![\w/.%])", first)) >= 4, u
    # Legend and budgets.
    for text in ("GPU server", "Management switch", "Budgets", "Power", "Failover"):
        assert text in first, text
    assert "B01" in pdftext(path, 2) and "2 of 2" in pdftext(path, 2)


@needs_poppler
@pytest.mark.parametrize(
    ("paper", "landscape", "size"),
    [("A3", True, "1191 x 842 pts"), ("Letter", False, "612 x 792 pts"), ("A4", True, "842 x 595")],
)
def test_paper_sizes_and_orientation(qapp, tagged, tmp_path, paper, landscape, size):
    path = tmp_path / "racks.pdf"
    write_pdf(path, tagged, PrintOptions(paper=paper, landscape=landscape))
    assert pdfinfo(path)["Page size"].startswith(size)


@needs_poppler
def test_row_pages_of_the_sample(qapp, tmp_path):
    from workbench.templates import sample_design

    design = sample_design()
    rows = [row for site in design.sites for row in site.rows]
    path = tmp_path / "rows.pdf"
    options = PrintOptions(paper="A3", landscape=True, per_page="row")
    assert write_pdf(path, design, options) == len(rows) == count_pages(design, options)
    assert pdfinfo(path)["Pages"] == str(len(rows))
    first = pdftext(path, 1)
    for rack in rows[0].racks:
        assert rack.name in first
    assert "A01–A08 (8 racks)" in first


@needs_poppler
def test_racks_pattern_filters_the_pdf(qapp, tmp_path):
    from workbench.templates import sample_design

    design = sample_design()
    path = tmp_path / "a.pdf"
    assert write_pdf(path, design, PrintOptions(pattern="B0[1-3]")) == 3
    text = pdftext(path)
    assert "B01" in text and "B03" in text and "B04" not in text and "A01" not in text


@needs_poppler
def test_over_budget_is_written_on_the_page(qapp, tagged, tmp_path):
    tagged.sites[0].rows[0].racks[0].power_limit_kw = 10.0
    path = tmp_path / "over.pdf"
    write_pdf(path, tagged, PrintOptions())
    assert "OVER" in pdftext(path, 1)


def test_nothing_to_print_writes_nothing(qapp, tagged, tmp_path):
    with pytest.raises(NothingToPrint, match="Z\\*"):
        write_pdf(tmp_path / "x.pdf", tagged, PrintOptions(pattern="Z*"))
    assert list(tmp_path.iterdir()) == []


def test_cancelling_half_way_leaves_no_file(qapp, tmp_path):
    from workbench.templates import sample_design

    design = sample_design()
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> bool:
        seen.append((done, total))
        return done < total // 2

    with pytest.raises(PrintCancelled):
        write_pdf(tmp_path / "racks.pdf", design, PrintOptions(), progress)
    assert list(tmp_path.iterdir()) == []
    assert seen[-1][0] == seen[-1][1] // 2 and seen[-1][1] == 37
    # An earlier file of the same name survives a cancelled job untouched.
    old = tmp_path / "racks.pdf"
    old.write_bytes(b"%PDF-1.4 earlier")
    with pytest.raises(PrintCancelled):
        write_pdf(old, design, PrintOptions(), progress)
    assert old.read_bytes() == b"%PDF-1.4 earlier"
    assert [p.name for p in tmp_path.iterdir()] == ["racks.pdf"]


# -- SVG ---------------------------------------------------------------------------------


def test_svg_one_file_per_page_that_parses(qapp, tagged, tmp_path):
    folder = tmp_path / "svg"
    files = write_svgs(folder, tagged, PrintOptions())
    assert [f.name for f in files] == ["001-A01.svg", "002-B01.svg"]
    assert sorted(p.name for p in folder.iterdir()) == ["001-A01.svg", "002-B01.svg"]
    for f in files:
        root = ET.parse(f).getroot()
        assert root.tag.endswith("svg")
    text = files[0].read_text(encoding="utf-8")
    assert "AT-0042" in text and "dgx-001" in text
    root = ET.parse(files[0]).getroot()
    assert float(root.attrib["width"].removesuffix("mm")) == pytest.approx(210, abs=0.5)
    assert float(root.attrib["height"].removesuffix("mm")) == pytest.approx(297, abs=0.5)


def test_svg_cancel_leaves_no_pages(qapp, tagged, tmp_path):
    folder = tmp_path / "svg"
    with pytest.raises(PrintCancelled):
        write_svgs(folder, tagged, PrintOptions(), lambda done, total: done < 1)
    assert list(folder.iterdir()) == []


# -- the painter: budget bars and paper style ------------------------------------------


def _budgets(design, rack):
    return rack_budgets(design, rack, rack_load(design, rack))


def test_paper_style_numbers_both_sides_and_fits_its_size():
    screen_w, screen_h = geo.rack_size(42, 10.0)
    paper_w, paper_h = geo.rack_size(42, 10.0, geo.PAPER_STYLE)
    assert paper_w == pytest.approx(screen_w + geo.RIGHT_GUTTER_U * 10.0)
    assert paper_h == screen_h
    frame = geo.frame_rect(42, 10.0)
    right = geo.u_label_rect_right(7, 42, 10.0)
    assert right.x >= frame.x + frame.w and right.x + right.w <= paper_w
    assert right.y == geo.u_label_rect(7, 42, 10.0).y
    budget = geo.budget_rect(42, 10.0)
    footer = geo.footer_rect(42, 10.0)
    assert frame.y + frame.h < budget.y and budget.y + budget.h <= footer.y
    row_h = geo.rack_size(42, 10.0, geo.PAPER_ROW_STYLE)[1]
    assert row_h > paper_h  # the budget lines need room


def test_device_lines_put_tags_before_the_model_on_one_line(tagged):
    rack = tagged.sites[0].rows[0].racks[0]
    blocks = {b.device_id: b for b in geo.device_blocks(rack, tagged, 10.0)}
    assert geo.device_lines(blocks["d1"]) == [
        "dgx-001",
        "DGX H100",
        "Asset AT-0042",
        "S/N SN-77881",
    ]
    assert geo.device_lines(blocks["s1"], one_line=True) == ["mgmt-a01", "Asset AT-0043", "SN2201"]
    assert geo.device_lines(blocks["d2"]) == ["dgx-002", "DGX H100"]


def _paint(design, rack, budgets, scale=10.0) -> QImage:
    w, h = geo.rack_size(geo.rack_units(rack, design), scale)
    image = QImage(int(w) + 1, int(h) + 1, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    paint_rack(painter, rack, design, (0, 0), scale, budgets=budgets)
    painter.end()
    return image


def test_an_over_budget_rack_gets_a_red_bar(qapp, tagged):
    rack = tagged.sites[0].rows[0].racks[0]
    fine = _budgets(tagged, rack)
    assert fine.power.state is not BudgetState.OVER
    rack.power_limit_kw = 10.0
    over = _budgets(tagged, rack)
    assert over.power.state is BudgetState.OVER
    keys = [key for key, _label in geo.BUDGET_BARS]
    cell = geo.budget_bar_rects(42, 10.0)[keys.index("power")]
    x, y = int(cell.x + cell.w * 0.9), int(cell.y + cell.h / 2)
    assert _paint(tagged, rack, over).pixelColor(x, y).name() == colors.LOAD_OVER
    assert _paint(tagged, rack, fine).pixelColor(x, y).name() != colors.LOAD_OVER
    # Without budgets the strip stays empty (the screen before the figures are known).
    assert _paint(tagged, rack, None).pixelColor(x, y).name() == "#ffffff"


def test_every_budget_bar_has_a_cell_and_a_label():
    rects = geo.budget_bar_rects(42, 10.0)
    assert len(rects) == len(geo.BUDGET_BARS) == 5
    assert [label for _, label in geo.BUDGET_BARS] == ["U", "kW", "Cool", "kg", "Feed"]
    strip = geo.budget_rect(42, 10.0)
    assert rects[0].x == strip.x
    assert rects[-1].x + rects[-1].w == pytest.approx(strip.x + strip.w)


def test_budget_figures_text(tagged):
    b = _budgets(tagged, tagged.sites[0].rows[0].racks[0])
    assert geo.budget_figures(b.space) == "17 / 42 U · 40%"
    assert geo.budget_figures(b.power).startswith("20.5 / 50 kW")
    assert "no limit" in geo.budget_figures(b.failover)  # the tiny rack has no feeds


def test_plan_uses_the_printable_area_given(tagged):
    small = plan_pages(tagged, PrintOptions(per_page="row"), QSizeF(60, 200))
    assert [p.row.name for p in small] == ["Row A", "Row B"]
