"""Printed rack elevations: which racks go on which page, and how a page is laid out.

A page is either one rack (front and rear side by side) or one row (the fronts of its
racks, each with its budget figures underneath).  Every page has the same frame: the
drawing, the role legend, the budget figures, and a title block with project, site,
row, rack, revision, date and "page n of m", the way installers file drawings.

The racks themselves are drawn by :func:`workbench.render.rack_painter.paint_rack`, the
routine that draws them on screen, with :data:`~workbench.render.rack_geometry.PAPER_STYLE`
adding what paper has room for (U numbers on both sides, asset tags and serials).  Page
geometry is worked out in millimetres and painted in device pixels, so the same page
comes out on a PDF writer, a printer and an SVG generator.  QtGui only, no widgets.
"""

from __future__ import annotations

import datetime
import fnmatch
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from PySide6.QtCore import QMarginsF, QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPageLayout,
    QPageSize,
    QPainter,
    QPen,
)

from workbench.calc.summary import RackLoad
from workbench.model.design import Design, Rack, Row, Site
from workbench.render import colors
from workbench.render import rack_geometry as geo
from workbench.render.floor_painter import paint_floor
from workbench.render.rack_geometry import as_text
from workbench.render.rack_painter import paint_budget_table, paint_hatch, paint_rack
from workbench.render.safe_figures import safe_rack_budgets
from workbench.rules.budgets import BudgetState

#: Paper sizes offered (the names the command line and the options dialog use).
PAPER_SIZES: dict[str, QPageSize.PageSizeId] = {
    "A4": QPageSize.PageSizeId.A4,
    "A3": QPageSize.PageSizeId.A3,
    "Letter": QPageSize.PageSizeId.Letter,
}
PER_PAGE: tuple[str, ...] = ("rack", "row")
#: Margins of every page, mm (inside what office printers can reach).
MARGIN_MM = 10.0
#: The title block's height, mm.
TITLE_H_MM = 15.0
#: Space above the racks for "FRONT" / "REAR", mm.
CAPTION_H_MM = 6.0
#: The gap between the front and rear faces and between racks of a row, in U.
FACE_GAP_U = 3.0
RACK_GAP_U = 1.5
#: Millimetres per U beyond which a rack would only get bigger, not clearer.
MAX_MM_PER_U = 7.0
#: Below this a row page continues on the next page (device names would be under ~4 pt).
MIN_ROW_MM_PER_U = 1.8


@dataclass(frozen=True)
class PrintOptions:
    """What to print and on what paper."""

    paper: str = "A4"
    landscape: bool = False
    per_page: str = "rack"
    #: A shell glob on rack names ("A*"); None: every rack.
    pattern: str | None = None
    #: Only these racks (ids), e.g. the window's selection; None: no restriction.
    rack_ids: frozenset[str] | None = None
    #: The date in the title block (ISO); None: today.
    date: str | None = None
    #: A floor-plan page of the whole hall first (``--floor-plan``).
    floor_plan: bool = False

    def page_layout(self) -> QPageLayout:
        """The QPageLayout of this paper and orientation, with the standard margins."""
        if self.paper not in PAPER_SIZES:
            raise ValueError(f"unknown paper {self.paper!r}; choose {', '.join(PAPER_SIZES)}")
        orientation = (
            QPageLayout.Orientation.Landscape
            if self.landscape
            else QPageLayout.Orientation.Portrait
        )
        return QPageLayout(
            QPageSize(PAPER_SIZES[self.paper]),
            orientation,
            QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM),
            QPageLayout.Unit.Millimeter,
        )

    def title_date(self) -> str:
        return self.date or datetime.date.today().isoformat()


@dataclass(frozen=True)
class Page:
    """One printed page: one rack, or (part of) one row."""

    site: Site
    row: Row
    racks: tuple[Rack, ...]
    kind: str = "rack"
    #: (part, parts) when a long row continues over several pages.
    part: tuple[int, int] = (1, 1)

    @property
    def label(self) -> str:
        """What the page shows, for file names and progress: "A01", "Row A"."""
        if self.kind == "floor":
            return "Floor plan"
        if self.kind == "rack":
            return as_text(self.racks[0].name)
        row = as_text(self.row.name)
        return row if self.part[1] == 1 else f"{row} {self.part[0]}"


def select_racks(design: Design, options: PrintOptions) -> list[tuple[Site, Row, Rack]]:
    """The racks to print, in site/row/rack order."""
    chosen = []
    for site in design.sites:
        for row in site.rows:
            for rack in row.racks:
                if options.rack_ids is not None and rack.id not in options.rack_ids:
                    continue
                if options.pattern and not fnmatch.fnmatchcase(as_text(rack.name), options.pattern):
                    continue
                chosen.append((site, row, rack))
    return chosen


def plan_pages(design: Design, options: PrintOptions, paint_mm: QSizeF | None = None) -> list[Page]:
    """The pages of a print job.  ``paint_mm`` is the printable area (default: the
    options' paper less margins); row pages split where racks would get too small."""
    chosen = select_racks(design, options)
    first: list[Page] = []
    if options.floor_plan and design.sites:
        site = design.sites[0]
        first = [Page(site, site.rows[0] if site.rows else Row("", ""), (), "floor")]
    if options.per_page == "rack":
        return first + [Page(site, row, (rack,)) for site, row, rack in chosen]
    if paint_mm is None:
        paint_mm = options.page_layout().paintRect(QPageLayout.Unit.Millimeter).size()
    groups: dict[tuple[str, str], tuple[Site, Row, list[Rack]]] = {}
    for site, row, rack in chosen:
        groups.setdefault((site.id, row.id), (site, row, []))[2].append(rack)
    pages: list[Page] = []
    for site, row, racks in groups.values():
        chunks = _row_chunks(design, racks, paint_mm)
        for i, chunk in enumerate(chunks, 1):
            pages.append(Page(site, row, tuple(chunk), "row", (i, len(chunks))))
    return first + pages


def _row_chunks(design: Design, racks: list[Rack], paint_mm: QSizeF) -> list[list[Rack]]:
    """Split a row so each page keeps its racks at least :data:`MIN_ROW_MM_PER_U`."""
    chunks: list[list[Rack]] = []
    current: list[Rack] = []
    for rack in racks:
        if current and _row_scale_mm(design, [*current, rack], paint_mm) < MIN_ROW_MM_PER_U:
            chunks.append(current)
            current = []
        current.append(rack)
    if current:
        chunks.append(current)
    return chunks


# -- page geometry (millimetres) -----------------------------------------------------


@dataclass(frozen=True)
class RackPageFrame:
    """Where the parts of a one-rack page go, mm from the printable area's corner."""

    drawing: QRectF
    budgets: QRectF
    legend: QRectF
    legend_columns: int
    title: QRectF
    scale_mm: float


def _faces_size_u(design: Design, rack: Rack) -> tuple[float, float]:
    w, h = geo.rack_size(geo.rack_units(rack, design), 1.0, geo.PAPER_STYLE)
    return 2 * w + FACE_GAP_U, h


def rack_page_frame(design: Design, rack: Rack, size: QSizeF) -> RackPageFrame:
    """The bigger-rack arrangement of the two: figures and legend under the drawing
    (portrait paper) or beside it (landscape)."""
    w, h = size.width(), size.height()
    title = QRectF(0, h - TITLE_H_MM, w, TITLE_H_MM)
    faces_w, faces_h = _faces_size_u(design, rack)
    avail_h = h - TITLE_H_MM - 3.0
    # Below: budgets left, legend right, in a band above the title block.
    band = 46.0
    below_draw = QRectF(0, 0, w, avail_h - band - 3.0)
    below_scale = min(below_draw.width() / faces_w, (below_draw.height() - CAPTION_H_MM) / faces_h)
    # Beside: a column at the right with budgets on top, legend under them.
    column = min(80.0, w * 0.36)
    side_draw = QRectF(0, 0, w - column - 5.0, avail_h)
    side_scale = min(side_draw.width() / faces_w, (side_draw.height() - CAPTION_H_MM) / faces_h)
    if below_scale >= side_scale:
        top = below_draw.bottom() + 3.0
        split = w * 0.6
        return RackPageFrame(
            below_draw,
            QRectF(0, top, split - 6.0, band),
            QRectF(split, top, w - split, band),
            2,
            title,
            min(below_scale, MAX_MM_PER_U),
        )
    x = side_draw.right() + 5.0
    return RackPageFrame(
        side_draw,
        QRectF(x, CAPTION_H_MM, column, 46.0),
        QRectF(x, CAPTION_H_MM + 54.0, column, avail_h - CAPTION_H_MM - 54.0),
        2,
        title,
        min(side_scale, MAX_MM_PER_U),
    )


def _row_scale_mm(design: Design, racks: list[Rack], size: QSizeF) -> float:
    widths, heights = [], []
    for rack in racks:
        w, h = geo.rack_size(geo.rack_units(rack, design), 1.0, geo.PAPER_ROW_STYLE)
        widths.append(w)
        heights.append(h)
    total_w = sum(widths) + RACK_GAP_U * (len(racks) - 1)
    avail_h = size.height() - TITLE_H_MM - 3.0 - 9.0 - CAPTION_H_MM
    return min(size.width() / total_w, avail_h / max(heights), MAX_MM_PER_U)


# -- painting --------------------------------------------------------------------------


@dataclass
class PageContext:
    """What every page of one job shares: the design, its loads, the date, the count."""

    design: Design
    loads: Mapping[str, RackLoad]
    date: str
    total: int
    revision: str = field(default="—")


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def paint_page(
    painter: QPainter,
    page: Page,
    number: int,
    ctx: PageContext,
    size_mm: QSizeF,
    px_per_mm: float,
) -> None:
    """Draw one page into the printable area that starts at the painter's origin:
    ``size_mm`` big, ``px_per_mm`` device pixels per millimetre."""
    k = px_per_mm

    def px(r: QRectF) -> QRectF:
        return QRectF(r.x() * k, r.y() * k, r.width() * k, r.height() * k)

    painter.save()
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if page.kind == "floor":
            area = QRectF(0, 0, size_mm.width(), size_mm.height() - TITLE_H_MM - 3.0)
            paint_floor(painter, ctx.design, px(area), k)
        elif page.kind == "rack":
            _paint_rack_page(painter, page, ctx, size_mm, k, px)
        else:
            _paint_row_page(painter, page, ctx, size_mm, k, px)
        title = QRectF(0, size_mm.height() - TITLE_H_MM, size_mm.width(), TITLE_H_MM)
        _paint_title_block(painter, px(title), k, page, number, ctx)
    finally:
        painter.restore()


def _caption(painter: QPainter, rect: QRectF, text: str, k: float) -> None:
    painter.setFont(_font(3.2 * k, bold=True))
    painter.setPen(QColor(colors.TEXT))
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop), text)


def _paint_rack_page(painter, page: Page, ctx: PageContext, size: QSizeF, k: float, px) -> None:
    rack = page.racks[0]
    design = ctx.design
    frame = rack_page_frame(design, rack, size)
    scale = frame.scale_mm * k
    u_total = geo.rack_units(rack, design)
    w, _ = geo.rack_size(u_total, scale, geo.PAPER_STYLE)
    faces_w = 2 * w + FACE_GAP_U * scale
    draw = px(frame.drawing)
    x = draw.left() + (draw.width() - faces_w) / 2
    y = draw.top() + CAPTION_H_MM * k
    load = ctx.loads.get(rack.id)
    budgets = safe_rack_budgets(design, rack, load) if load is not None else None
    for face in ("front", "rear"):
        _caption(painter, QRectF(x, draw.top(), w, CAPTION_H_MM * k), face.upper(), k)
        paint_rack(
            painter,
            rack,
            design,
            (x, y),
            scale,
            detail=True,
            face=face,
            load=load,
            budgets=budgets,
            style=geo.PAPER_STYLE,
        )
        x += w + FACE_GAP_U * scale
    budgets_rect = px(frame.budgets)
    _section_heading(painter, budgets_rect, "Budgets", k)
    if budgets is not None:
        body = budgets_rect.adjusted(0, 5.0 * k, 0, 0)
        paint_budget_table(painter, budgets, QRectF(body.left(), body.top(), body.width(), 40 * k))
    legend = px(frame.legend)
    _section_heading(painter, legend, "Legend", k)
    _paint_legend(painter, legend.adjusted(0, 5.0 * k, 0, 0), k, frame.legend_columns)


def _paint_row_page(painter, page: Page, ctx: PageContext, size: QSizeF, k: float, px) -> None:
    design = ctx.design
    racks = list(page.racks)
    scale = _row_scale_mm(design, racks, size) * k
    sizes = [geo.rack_size(geo.rack_units(r, design), scale, geo.PAPER_ROW_STYLE) for r in racks]
    total_w = sum(w for w, _ in sizes) + RACK_GAP_U * scale * (len(racks) - 1)
    x = (size.width() * k - total_w) / 2
    room = (size.height() - TITLE_H_MM - 9.0) * k
    drawing_h = CAPTION_H_MM * k + max(h for _, h in sizes)
    top = max((room - drawing_h) / 2, 0.0)
    caption = f"{page.row.name} · front"
    if page.part[1] > 1:
        caption += f" · part {page.part[0]} of {page.part[1]}"
    _caption(painter, QRectF(0, top, size.width() * k, CAPTION_H_MM * k), caption, k)
    y = top + CAPTION_H_MM * k
    tallest = max(h for _, h in sizes)
    for rack, (w, h) in zip(racks, sizes, strict=True):
        load = ctx.loads.get(rack.id)
        paint_rack(
            painter,
            rack,
            design,
            (x, y + tallest - h),  # racks stand on one floor line
            scale,
            detail=True,
            face="front",
            load=load,
            budgets=safe_rack_budgets(design, rack, load) if load is not None else None,
            style=geo.PAPER_ROW_STYLE,
        )
        x += w + RACK_GAP_U * scale
    legend = QRectF(0, size.height() - TITLE_H_MM - 9.0, size.width(), 7.0)
    _paint_legend(painter, px(legend), k, columns=0)


def _section_heading(painter: QPainter, rect: QRectF, text: str, k: float) -> None:
    painter.setFont(_font(2.8 * k, bold=True))
    painter.setPen(QColor(colors.TEXT))
    painter.drawText(
        QRectF(rect.left(), rect.top(), rect.width(), 4.0 * k),
        int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
        text,
    )
    painter.setPen(QPen(QColor(colors.RAIL), 0.25 * k))
    y = rect.top() + 4.4 * k
    painter.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))


def legend_entries() -> list[tuple[str, str, bool]]:
    """(label, fill, hatched) of the legend: every role, the other face, budget states."""
    entries = [(label, fill, False) for label, fill in colors.ROLE_COLORS.values()]
    entries.append(("Mounted on the other face", "#ffffff", True))
    for state, text in (
        (BudgetState.OK, "Budget ok"),
        (BudgetState.NEAR, "Budget above 80 %"),
        (BudgetState.OVER, "Budget exceeded"),
    ):
        entries.append((text, colors.budget_color(state), False))
    return entries


def _paint_legend(painter: QPainter, rect: QRectF, k: float, columns: int) -> None:
    """Swatches and labels; ``columns`` 0 flows them along one line (row pages)."""
    entries = legend_entries()
    font = _font(2.5 * k)
    metrics = QFontMetricsF(font)
    painter.setFont(font)
    swatch = 3.0 * k
    line_h = 4.4 * k
    if columns:
        per_col = -(-len(entries) // columns)
        col_w = rect.width() / columns
        positions = [
            (rect.left() + (i // per_col) * col_w, rect.top() + (i % per_col) * line_h)
            for i in range(len(entries))
        ]
    else:
        positions = []
        x, y = rect.left(), rect.top()
        for label, _fill, _hatched in entries:
            width = swatch + 1.5 * k + metrics.horizontalAdvance(label) + 4.0 * k
            if x + width > rect.right() and x > rect.left():
                x, y = rect.left(), y + line_h
            positions.append((x, y))
            x += width
    for (label, fill, hatched), (x, y) in zip(entries, positions, strict=True):
        box = QRectF(x, y + (line_h - swatch) / 2, swatch, swatch)
        painter.setPen(QPen(QColor(0, 0, 0, 90), 0))
        painter.setBrush(QColor(fill))
        painter.drawRect(box)
        if hatched:
            paint_hatch(painter, box, swatch / 4)
        painter.setFont(font)
        painter.setPen(QColor(colors.TEXT))
        painter.drawText(
            QRectF(box.right() + 1.5 * k, y, rect.right() - box.right(), line_h),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            label,
        )


def title_fields(page: Page, number: int, ctx: PageContext) -> list[tuple[str, str]]:
    """The title block's (caption, value) cells, left to right."""
    if page.kind == "floor":
        racks = sum(1 for _ in ctx.design.iter_racks())
        return [
            ("Project", as_text(ctx.design.name)),
            ("Site", as_text(page.site.name)),
            ("Plan", "Floor plan"),
            ("Racks", f"{racks:,}"),
            ("Revision", ctx.revision),
            ("Date", ctx.date),
            ("Page", f"{number} of {ctx.total}"),
        ]
    first, last = as_text(page.racks[0].name), as_text(page.racks[-1].name)
    if page.kind == "rack" or len(page.racks) == 1:
        rack_text = first
    else:
        rack_text = f"{first}–{last} ({len(page.racks)} racks)"
    return [  # names a script set to bytes or numbers are printed as they are
        ("Project", as_text(ctx.design.name)),
        ("Site", as_text(page.site.name)),
        ("Row", as_text(page.row.name)),
        ("Rack", rack_text),
        ("Revision", ctx.revision),
        ("Date", ctx.date),
        ("Page", f"{number} of {ctx.total}"),
    ]


def title_cell_widths(
    fields: list[tuple[str, str]],
    total: float,
    caption_m: QFontMetricsF,
    value_m: QFontMetricsF,
    pad: float,
) -> list[float]:
    """Every cell as wide as its caption or value needs, the project (first) taking
    what is left; when that is under a quarter, every cell shrinks in proportion."""
    natural = [
        max(caption_m.horizontalAdvance(c.upper()), value_m.horizontalAdvance(v)) + 2 * pad
        for c, v in fields[1:]
    ]
    rest = sum(natural)
    if total - rest < total * 0.25:
        natural = [w * total * 0.75 / rest for w in natural]
        rest = total * 0.75
    return [total - rest, *natural]


def _paint_title_block(
    painter: QPainter, rect: QRectF, k: float, page: Page, number: int, ctx: PageContext
) -> None:
    fields = title_fields(page, number, ctx)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(QColor(colors.FRAME), 0.35 * k))
    painter.drawRect(rect)
    caption_font, value_font = _font(2.0 * k), _font(3.2 * k, bold=True)
    caption_metrics, value_metrics = QFontMetricsF(caption_font), QFontMetricsF(value_font)
    pad = 1.8 * k
    widths = title_cell_widths(fields, rect.width(), caption_metrics, value_metrics, pad)
    top_left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    x = rect.left()
    for i, ((caption, value), width) in enumerate(zip(fields, widths, strict=True)):
        cell = QRectF(x, rect.top(), width, rect.height())
        if i:
            painter.setPen(QPen(QColor(colors.FRAME), 0.2 * k))
            painter.drawLine(cell.topLeft(), cell.bottomLeft())
        inner = cell.adjusted(pad, pad * 0.8, -pad, -pad * 0.7)
        painter.setFont(caption_font)
        painter.setPen(QColor(colors.TEXT_MUTED))
        painter.drawText(inner, top_left, caption.upper())
        painter.setPen(QColor(colors.TEXT))
        value_area = QRectF(
            inner.left(), inner.top() + 3.4 * k, inner.width(), inner.height() - 3.4 * k
        )
        if i == 0 and value_metrics.horizontalAdvance(value) > inner.width():
            # A long project name gets two lines in a smaller size rather than an ellipsis.
            font = _font(2.8 * k, bold=True)
            metrics = QFontMetricsF(font)
            text = metrics.elidedText(value, Qt.TextElideMode.ElideRight, inner.width() * 1.85)
            painter.setFont(font)
            painter.drawText(value_area, top_left | int(Qt.TextFlag.TextWordWrap), text)
        else:
            painter.setFont(value_font)
            painter.drawText(
                value_area,
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                value_metrics.elidedText(value, Qt.TextElideMode.ElideRight, inner.width()),
            )
        x = cell.right()


def page_context(
    design: Design, total: int, options: PrintOptions, loads: Mapping[str, RackLoad]
) -> PageContext:
    revision = str(design.properties.get("revision", "") or "—")
    return PageContext(design, loads, options.title_date(), total, revision)


def matching_racks(design: Design, ids: Collection[str]) -> frozenset[str]:
    """The racks meant by a selection: selected racks, the racks of selected devices and
    every rack of a selected row or site."""
    index = design.index
    chosen: set[str] = set()
    for object_id in ids:
        kind = index.kind_of(object_id)
        if kind == "rack":
            chosen.add(object_id)
        elif kind == "device":
            rack = index.rack_of(object_id)
            if rack is not None:
                chosen.add(rack.id)
        elif kind == "row":
            chosen.update(r.id for r in index.rows[object_id][1].racks)
        elif kind == "site":
            chosen.update(r.id for row in index.sites[object_id].rows for r in row.racks)
    return frozenset(chosen)
