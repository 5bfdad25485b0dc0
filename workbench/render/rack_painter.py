"""Paint one rack elevation with a QPainter: the one drawing path for screen and paper.

The on-screen rack item, PDF printing and SVG export all call :func:`paint_rack`, so what
the installer gets on paper is what the planner saw.  Geometry comes from
:mod:`workbench.render.rack_geometry` (pure), colours from :mod:`workbench.render.colors`.
Only QtGui is used here, never widgets, so it runs headless.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Protocol

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen

from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.design import Design, Rack
from workbench.render import colors
from workbench.render import rack_geometry as geo
from workbench.rules.budgets import BudgetState, budget_state
from workbench.rules.engine import Severity


def _paint_badge(
    painter: QPainter, text_rect: QRectF, right_gap: float, scale: float, mark: Severity
) -> float:
    """A round "!" in the severity's colour left of the cooling tag; returns its width."""
    size = scale * 1.25
    x = text_rect.right() - right_gap - scale * 0.4 - size
    circle = QRectF(x, text_rect.center().y() - size / 2, size, size)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(qcolor(colors.SEVERITY_COLORS[mark]))
    painter.drawEllipse(circle)
    painter.setPen(QColor("#ffffff"))
    painter.setFont(_font(size * 0.8, bold=True))
    painter.drawText(circle, int(Qt.AlignmentFlag.AlignCenter), "!")
    return size + scale * 0.4


class LoadLike(Protocol):
    """What the painter reads from a rack's load (``calc.summary.RackLoad`` fits)."""

    kw_max: float
    u_used: float
    limit_kw: float


def qcolor(hex_color: str) -> QColor:
    """A QColor from '#rrggbb'."""
    return QColor(hex_color)


def text_color_for(fill: str) -> QColor:
    """Dark text on light fills, white text on dark fills (by perceived luminance)."""
    c = QColor(fill)
    luminance = 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue()
    return QColor("#1b1b1b") if luminance > 150 else QColor("#ffffff")


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def _qrect(r: geo.Rect) -> QRectF:
    return QRectF(r.x, r.y, r.w, r.h)


def paint_rack(
    painter: QPainter,
    rack: Rack,
    design: Design,
    origin: tuple[float, float] | QPointF,
    scale: float,
    selected: Collection[str] = (),
    detail: bool = True,
    *,
    face: str = "front",
    load: LoadLike | None = None,
    blocks: list[geo.Block] | None = None,
    mark: Severity | None = None,
    marks: Mapping[str, Severity] | None = None,
) -> None:
    """Draw ``rack`` with its top-left corner at ``origin``, ``scale`` units per U.

    ``selected`` ids highlight device blocks, or the whole rack when the rack's id is
    among them.  ``detail`` False skips text and U numbers (zoomed-out views of thousands
    of racks).  ``load`` supplies the kW figures for the header bar and footer;
    ``blocks`` lets a caller that already computed them (the screen item caches them)
    skip the work.  ``mark`` is the worst rule finding about the rack or its devices:
    the frame is outlined and the header badged in its colour; ``marks`` outlines the
    device blocks that findings name (device id → worst severity).
    """
    ox, oy = (origin.x(), origin.y()) if isinstance(origin, QPointF) else origin
    u_total = geo.rack_units(rack, design)
    if blocks is None:
        blocks = geo.device_blocks(rack, design, scale, face)
    painter.save()
    try:
        painter.translate(ox, oy)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, detail)
        _paint_frame(painter, u_total, scale, detail)
        _paint_blocks(painter, blocks, scale, selected, detail, marks or {})
        _paint_header(painter, rack, u_total, scale, load, detail, mark)
        if detail:
            _paint_footer(painter, blocks, u_total, scale, load)
        if mark is not None:
            painter.setPen(QPen(qcolor(colors.SEVERITY_COLORS[mark]), max(scale * 0.22, 1.2)))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(_qrect(geo.frame_rect(u_total, scale)))
        if rack.id in selected:
            pen = QPen(qcolor(colors.SELECTION), max(scale * 0.3, 1.5))
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            frame = geo.frame_rect(u_total, scale)
            painter.drawRect(
                _qrect(frame).adjusted(-scale * 0.15, -scale * 0.15, scale * 0.15, scale * 0.15)
            )
    finally:
        painter.restore()


def _paint_frame(painter: QPainter, u_total: int, scale: float, detail: bool) -> None:
    frame = _qrect(geo.frame_rect(u_total, scale))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(qcolor(colors.FRAME))
    painter.drawRect(frame)
    slots = _qrect(geo.slots_rect(u_total, scale))
    painter.setBrush(qcolor(colors.SLOT))
    painter.drawRect(slots)
    painter.setBrush(qcolor(colors.RAIL))
    painter.drawRect(_qrect(geo.zero_u_rect(u_total, scale)))
    if not detail:
        return
    painter.setPen(QPen(qcolor(colors.SLOT_LINE), 0))
    for u in range(1, u_total):
        y = slots.top() + u * scale
        painter.drawLine(QPointF(slots.left(), y), QPointF(slots.right(), y))
    step = 1 if scale >= 14 else 5
    painter.setFont(_font(scale * 0.72))
    painter.setPen(qcolor(colors.TEXT_MUTED))
    for u in range(1, u_total + 1):
        if u % step and u != 1:
            continue
        r = _qrect(geo.u_label_rect(u, u_total, scale))
        painter.drawText(
            r, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), str(u)
        )


def _paint_blocks(
    painter: QPainter,
    blocks: list[geo.Block],
    scale: float,
    selected: Collection[str],
    detail: bool,
    marks: Mapping[str, Severity],
) -> None:
    inset = max(scale * 0.06, 0.5) if detail else 0.0
    border = QPen(QColor(0, 0, 0, 90), 0)
    font = _font(scale * 0.72)
    metrics = QFontMetricsF(font)
    selected_rects: list[QRectF] = []
    for block in blocks:
        rect = _qrect(block.rect).adjusted(inset, inset, -inset, -inset)
        fill = colors.role_color(block.role)
        if block.other_face:
            painter.setPen(QPen(qcolor(colors.REAR_HATCH), 0) if detail else Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(qcolor(colors.REAR_HATCH), Qt.BrushStyle.BDiagPattern))
        else:
            painter.setPen(border if detail else Qt.PenStyle.NoPen)
            painter.setBrush(qcolor(fill))
        painter.drawRect(rect)
        if block.device_id in selected:
            selected_rects.append(rect)
        if not detail:
            continue
        primary, secondary = geo.block_text(block, scale)
        if not primary or block.other_face:
            continue
        painter.setPen(text_color_for(fill))
        pad = scale * 0.4
        text_rect = rect.adjusted(pad, 0, -pad, 0)
        if secondary:
            # Tall blocks get larger text: an 8U server is read from across the room.
            name_px = min(scale * 1.3, max(scale * 0.9, block.rect.h * 0.28))
            bold, model_font = _font(name_px, bold=True), _font(name_px * 0.8)
            bold_metrics = QFontMetricsF(bold)
            half = text_rect.height() / 2
            top = QRectF(text_rect.left(), text_rect.top(), text_rect.width(), half)
            bottom = QRectF(text_rect.left(), text_rect.top() + half, text_rect.width(), half)
            painter.setFont(bold)
            painter.drawText(
                top,
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom),
                bold_metrics.elidedText(primary, Qt.TextElideMode.ElideRight, top.width()),
            )
            painter.setFont(model_font)
            painter.drawText(
                bottom,
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop),
                QFontMetricsF(model_font).elidedText(
                    secondary, Qt.TextElideMode.ElideRight, bottom.width()
                ),
            )
        else:
            painter.setFont(font)
            painter.drawText(
                text_rect,
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                metrics.elidedText(primary, Qt.TextElideMode.ElideRight, text_rect.width()),
            )
    if marks:
        for block in blocks:
            severity = marks.get(block.device_id)
            if severity is None or block.other_face:
                continue
            pen = QPen(qcolor(colors.SEVERITY_COLORS[severity]), max(scale * 0.22, 1.2))
            pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(_qrect(block.rect).adjusted(inset, inset, -inset, -inset))
    if selected_rects:
        painter.setPen(QPen(qcolor(colors.SELECTION), max(scale * 0.28, 1.5)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for rect in selected_rects:
            painter.drawRect(rect)


def _paint_header(
    painter: QPainter,
    rack: Rack,
    u_total: int,
    scale: float,
    load: LoadLike | None,
    detail: bool,
    mark: Severity | None = None,
    marks: Mapping[str, Severity] | None = None,
) -> None:
    header = _qrect(geo.header_rect(u_total, scale))
    left = geo.GUTTER_U * scale
    bar = QRectF(left, header.bottom() - scale * 0.9, header.width() - left, scale * 0.55)
    if load is not None:
        fraction = geo.load_fraction(load.kw_max, load.limit_kw)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(qcolor(colors.RAIL))
        painter.drawRect(bar)
        state = budget_state(load.kw_max, load.limit_kw)
        painter.setBrush(qcolor(colors.budget_color(state)))
        painter.drawRect(
            QRectF(bar.left(), bar.top(), bar.width() * min(fraction, 1.0), bar.height())
        )
    if not detail:
        return
    text_rect = QRectF(left, header.top(), header.width() - left, bar.top() - header.top())
    cooling = COOLING_TYPES.get(rack.cooling)
    tag = cooling.tag if cooling is not None else str(rack.cooling).upper()
    small = _font(scale * 0.75)
    painter.setFont(small)
    painter.setPen(qcolor(colors.TEXT_MUTED))
    tag_width = QFontMetricsF(small).horizontalAdvance(tag)
    painter.drawText(
        text_rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), tag
    )
    if mark is not None:
        tag_width += _paint_badge(painter, text_rect, tag_width, scale, mark)
    name_font = _font(scale * 1.4, bold=True)
    painter.setFont(name_font)
    painter.setPen(qcolor(colors.TEXT))
    width = text_rect.width() - tag_width - scale * 0.5
    painter.drawText(
        text_rect,
        int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
        QFontMetricsF(name_font).elidedText(rack.name, Qt.TextElideMode.ElideRight, width),
    )


def _paint_footer(
    painter: QPainter, blocks: list[geo.Block], u_total: int, scale: float, load: LoadLike | None
) -> None:
    footer = _qrect(geo.footer_rect(u_total, scale))
    left = geo.GUTTER_U * scale
    text_rect = QRectF(left, footer.top(), footer.width() - left, footer.height())
    if load is not None:
        u_used = load.u_used
        text = geo.footer_text(u_used, u_total, load.kw_max, load.limit_kw)
        over = budget_state(load.kw_max, load.limit_kw) is BudgetState.OVER
    else:
        u_used = sum(b.u_height for b in blocks if not b.zero_u and not b.other_face)
        text, over = geo.footer_text(u_used, u_total, None, None), False
    font = _font(scale * 1.0)
    painter.setFont(font)
    painter.setPen(qcolor(colors.LOAD_OVER if over else colors.TEXT_MUTED))
    painter.drawText(
        text_rect,
        int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
        QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight, text_rect.width()),
    )
