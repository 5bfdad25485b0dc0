"""The rack drawing: pure geometry, and one painter for screen and paper."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QMarginsF, Qt
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
)

from workbench.catalog.vocabulary import item_role
from workbench.render import colors
from workbench.render import rack_geometry as geo
from workbench.render.rack_painter import OUTLINE_ALPHA, paint_rack


def test_u1_is_at_the_bottom_and_units_stack_upwards():
    scale = 10.0
    slots = geo.slots_rect(42, scale)
    u1 = geo.u_rect(1, 1, 42, scale)
    u42 = geo.u_rect(42, 1, 42, scale)
    assert u1.y + u1.h == slots.y + slots.h
    assert u42.y == slots.y
    eight = geo.u_rect(2, 8, 42, scale)
    assert eight.h == 80 and eight.y + eight.h == u1.y


def test_u_at_inverts_u_rect():
    for u in (1, 7, 42):
        r = geo.u_rect(u, 1, 42, 12.0)
        assert geo.u_at(r.y + r.h / 2, 42, 12.0) == u
    assert geo.u_at(0.0, 42, 12.0) is None


def test_blocks_and_hit_test(tiny_design):
    rack = tiny_design.sites[0].rows[0].racks[0]
    blocks = geo.device_blocks(rack, tiny_design, 10.0)
    assert {b.device_id for b in blocks} == {"d1", "d2", "s1"}
    d1 = next(b for b in blocks if b.device_id == "d1")
    assert d1.role == "gpu-server" and d1.u_height == 8
    assert geo.hit_test(blocks, *d1.rect.center) == "d1"
    s1 = next(b for b in blocks if b.device_id == "s1")
    assert s1.role == "management-switch"
    assert geo.hit_test(blocks, 1.0, 1.0) is None


def test_block_text_levels_of_detail(tiny_design):
    rack = tiny_design.sites[0].rows[0].racks[0]
    d1 = next(b for b in geo.device_blocks(rack, tiny_design, 10.0) if b.device_id == "d1")
    assert geo.block_text(d1, 10.0) == ("dgx-001", "DGX H100")
    assert geo.block_text(d1, 2.0) == ("", "")


def test_roles_have_distinct_colours():
    fills = [fill for _, fill in colors.ROLE_COLORS.values()]
    assert len(set(fills)) == len(fills)
    assert item_role(None) == "other"


def test_footer_text():
    assert geo.footer_text(16, 42, 20.4, 50) == "16/42 U · 20.4/50 kW"


def _paint_to_image(design, selected=None, detail=True, painter_of=QPainter, style=None):
    rack = design.sites[0].rows[0].racks[0]
    w, h = geo.rack_size(geo.rack_units(rack, design), 12.0)
    image = QImage(int(w) + 4, int(h) + 4, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = painter_of(image)
    paint_rack(
        painter,
        rack,
        design,
        (2, 2),
        12.0,
        selected=(selected,) if selected else (),
        detail=detail,
        style=style or geo.SCREEN_STYLE,
    )
    painter.end()
    return image


def test_paint_to_image_shows_role_colours(qapp, tiny_design):
    image = _paint_to_image(tiny_design)
    rack = tiny_design.sites[0].rows[0].racks[0]
    d1 = next(b for b in geo.device_blocks(rack, tiny_design, 12.0) if b.device_id == "d1")
    x, y = d1.rect.x + 2 + d1.rect.w - 6, d1.rect.y + 2 + d1.rect.h - 6
    assert image.pixelColor(int(x), int(y)).name() == colors.role_color("gpu-server")


def test_selected_block_is_outlined(qapp, tiny_design):
    plain = _paint_to_image(tiny_design)
    selected = _paint_to_image(tiny_design, selected="d1")
    assert plain != selected


class _PenLog:
    """A painter that notes the alpha of every pen set before drawing with it."""

    def __init__(self, image: QImage):
        self.painter, self.alphas = QPainter(image), set()

    def __getattr__(self, name: str):
        return getattr(self.painter, name)

    def setPen(self, pen) -> None:  # noqa: N802 - QPainter's name
        self.painter.setPen(pen)
        if self.painter.pen().style() != Qt.PenStyle.NoPen:
            self.alphas.add(self.painter.pen().color().alpha())


def test_screen_outlines_are_opaque_and_only_they_differ_from_papers(qapp, tiny_design):
    """The screen outlines devices in an opaque shade (a translucent pen is stroked many
    times slower by the raster painter); paper keeps its translucent outline, and the
    two drawings differ only on the outlines."""
    logs: list[_PenLog] = []

    def logged(image: QImage) -> _PenLog:
        logs.append(_PenLog(image))
        return logs[-1]

    screen = _paint_to_image(tiny_design, painter_of=logged)
    assert logs[0].alphas == {255}
    translucent = replace(geo.SCREEN_STYLE, opaque_outlines=False)
    paper_like = _paint_to_image(tiny_design, painter_of=logged, style=translucent)
    assert OUTLINE_ALPHA in logs[1].alphas
    rack = tiny_design.sites[0].rows[0].racks[0]
    edges = [
        (b.rect.x + 2, b.rect.y + 2, b.rect.x + 2 + b.rect.w, b.rect.y + 2 + b.rect.h)
        for b in geo.device_blocks(rack, tiny_design, 12.0)
    ]

    def on_an_outline(x: int, y: int) -> bool:
        return any(
            left - 1 <= x <= right + 1
            and top - 1 <= y <= bottom + 1
            and min(abs(x - left), abs(x - right), abs(y - top), abs(y - bottom)) <= 1.5
            for left, top, right, bottom in edges
        )

    differ = [
        (x, y)
        for y in range(screen.height())
        for x in range(screen.width())
        if screen.pixel(x, y) != paper_like.pixel(x, y)
    ]
    assert differ and all(on_an_outline(x, y) for x, y in differ)


def test_same_painter_writes_a_pdf(qapp, tiny_design, tmp_path):
    """One drawing path: the screen painter also fills a printed page."""
    assert QGuiApplication.instance() is not None
    path = tmp_path / "rack.pdf"
    writer = QPdfWriter(str(path))
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4),
            QPageLayout.Orientation.Portrait,
            QMarginsF(10, 10, 10, 10),
        )
    )
    writer.setResolution(300)
    rack = tiny_design.sites[0].rows[0].racks[0]
    painter = QPainter(writer)
    page = writer.pageLayout().paintRectPixels(writer.resolution())
    w, h = geo.rack_size(42, 1.0)
    scale = min(page.width() / w, page.height() / h)
    paint_rack(painter, rack, tiny_design, (0, 0), scale, detail=True)
    painter.end()
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    assert len(data) > 1000
    assert b"%%EOF" in data[-64:]


def test_pdf_text_reads_back(qapp, tiny_design, tmp_path):
    """Where poppler is installed, the device names can be read back from the page."""
    import shutil
    import subprocess

    import pytest

    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed")
    path = tmp_path / "rack.pdf"
    writer = QPdfWriter(str(path))
    writer.setResolution(300)
    painter = QPainter(writer)
    paint_rack(painter, tiny_design.sites[0].rows[0].racks[0], tiny_design, (0, 0), 40.0)
    painter.end()
    text = subprocess.run(
        ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "dgx-001" in text and "A01" in text


def test_render_needs_no_widgets():
    """The painter is QtGui only, so printing and export run without QtWidgets."""
    import subprocess
    import sys

    code = (
        "import sys, workbench.render.rack_painter, workbench.render.rack_geometry; "
        "print('PySide6.QtWidgets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_model_role_has_a_colour_and_only_those():
    """The model owns the role vocabulary (edits validate against it); the drawing must
    colour exactly those roles, or a role set in the inspector would draw as 'other'."""
    from workbench.model import DEVICE_ROLES

    assert tuple(colors.ROLE_COLORS) == DEVICE_ROLES
