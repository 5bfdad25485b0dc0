"""Paint one rack elevation with a QPainter: the one drawing path for screen and paper.

The on-screen rack item, PDF printing and SVG export all call :func:`paint_rack`, so what
the installer gets on paper is what the planner saw.  Geometry comes from
:mod:`workbench.render.rack_geometry` (pure), colours from :mod:`workbench.render.colors`.
Only QtGui is used here, never widgets, so it runs headless.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Collection, Mapping
from typing import Protocol

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen

from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.design import Design, Rack
from workbench.render import colors
from workbench.render import rack_geometry as geo
from workbench.rules.budgets import Budget, BudgetState, RackBudgets, budget_state
from workbench.rules.registry import Severity

log = logging.getLogger(__name__)


def _paint_badge(
    painter: QPainter, text_rect: QRectF, right_gap: float, scale: float, mark: Severity
) -> float:
    """A round "!" in the severity's colour left of the cooling tag; returns its width."""
    size = scale * 1.25
    x = text_rect.right() - right_gap - scale * 0.4 - size
    circle = QRectF(x, text_rect.center().y() - size / 2, size, size)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(qcolor(colors.SEVERITY_COLORS[mark]))
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.drawEllipse(circle)
    painter.restore()
    painter.setPen(QColor("#ffffff"))
    painter.setFont(_font(size * 0.8, bold=True))
    painter.drawText(circle, _CENTER, "!")
    return size + scale * 0.4


class LoadLike(Protocol):
    """What the painter reads from a rack's load (``calc.summary.RackLoad`` fits)."""

    kw_max: float
    u_used: float
    limit_kw: float
    #: Devices left out of ``kw_max`` for want of a power figure.
    unknown_power_devices: int


@functools.lru_cache(maxsize=512)
def qcolor(hex_color: str) -> QColor:
    """A QColor from '#rrggbb', shared (callers pass it on, never change it): a rack's
    paint parsed ~40 colour names."""
    return QColor(hex_color)


@functools.lru_cache(maxsize=512)
def text_color_for(fill: str) -> QColor:
    """Dark text on light fills, white text on dark fills (by perceived luminance);
    shared, as :func:`qcolor`."""
    c = QColor(fill)
    luminance = 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue()
    return QColor("#1b1b1b") if luminance > 150 else QColor("#ffffff")


#: Text flags, combined once: combining Qt's enums in Python costs ~10 us a time, and a
#: rack's paint combined them for every line of text.
_CENTER = int(Qt.AlignmentFlag.AlignCenter)
_LEFT_BOTTOM = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
_LEFT_TOP = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
_LEFT_TOP_WRAP = int(
    Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
)
_LEFT_MIDDLE = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
_RIGHT_MIDDLE = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def _font(px: float, bold: bool = False) -> QFont:
    """The font of ``px`` pixels (rounded), shared: callers set it, never change it."""
    return _font_of(max(1, round(px)), bold)


def _metrics(font: QFont) -> QFontMetricsF:
    """The metrics of a font from :func:`_font` (its size and weight are all it is),
    shared as the font is: a rack's paint measured with ~15 metrics built anew."""
    return _metrics_of(font.pixelSize(), font.bold())


@functools.lru_cache(maxsize=256)
def _metrics_of(px: int, bold: bool) -> QFontMetricsF:
    return QFontMetricsF(_font_of(px, bold))


@functools.lru_cache(maxsize=256)
def _font_of(px: int, bold: bool) -> QFont:
    """Why kept: a rack's paint asked for ~18 fonts, each built and resolved anew
    (a few percent of every rack repainted after an edit)."""
    font = QFont()
    font.setPixelSize(px)
    font.setBold(bold)
    return font


#: The translucent black of a device's outline (its alpha, of 255).
OUTLINE_ALPHA = 90


@functools.cache
def _outline(fill: str) -> QPen:
    """A cosmetic pen in the opaque colour the outline's translucent black makes over
    ``fill`` (see :attr:`~workbench.render.rack_geometry.RackStyle.opaque_outlines`)."""
    c, keep = QColor(fill), (255 - OUTLINE_ALPHA) / 255
    return QPen(QColor(round(c.red() * keep), round(c.green() * keep), round(c.blue() * keep)), 0)


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
    budgets: RackBudgets | None = None,
    style: geo.RackStyle = geo.SCREEN_STYLE,
) -> None:
    """Draw ``rack`` with its top-left corner at ``origin``, ``scale`` units per U.

    ``selected`` ids highlight device blocks, or the whole rack when the rack's id is
    among them.  ``detail`` False skips text and U numbers (zoomed-out views of thousands
    of racks).  ``load`` supplies the kW figures for the header bar and footer;
    ``blocks`` lets a caller that already computed them (the screen item caches them)
    skip the work.  ``mark`` is the worst rule finding about the rack or its devices:
    the frame is outlined and the header badged in its colour; ``marks`` outlines the
    device blocks that findings name (device id → worst severity).  ``budgets`` (from
    :func:`workbench.rules.budgets.rack_budgets`) draws the budget bars under the frame,
    red where a budget is exceeded.  ``style`` adds what paper has room for (see
    :class:`~workbench.render.rack_geometry.RackStyle`); the screen uses the default.
    """
    ox, oy = (origin.x(), origin.y()) if isinstance(origin, QPointF) else origin
    u_total = geo.rack_units(rack, design)
    painter.save()
    try:
        if blocks is None:
            blocks = geo.device_blocks(rack, design, scale, face)
        painter.translate(ox, oy)
        # Shapes are axis-aligned rectangles: antialiasing them buys nothing visible and
        # cost ~50 µs a rectangle (a rack took 3.2 ms to paint instead of 0.23 ms, and a
        # zoom step repainted dozens).  Text keeps its own antialiasing; the round badge
        # turns it on for itself.
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        _paint_frame(painter, u_total, scale, detail, style)
        _paint_blocks(painter, blocks, scale, selected, detail, marks or {}, style)
        _paint_header(painter, rack, u_total, scale, load, detail, mark)
        if budgets is not None:
            if style.budget_figures:
                _paint_budget_lines(painter, budgets, u_total, scale, style)
            else:
                _paint_budget_bars(painter, budgets, u_total, scale, detail)
        if detail:
            _paint_footer(painter, blocks, u_total, scale, load, style)
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
    except Exception:  # noqa: BLE001 - a paint that raises repeats on every repaint
        # The last line of defence (odd values are made drawable before they get here):
        # an exception out of paint code is reported by Qt on every frame and leaves a
        # half-drawn rack; say what failed once per paint in the log and draw the frame
        # crossed out instead.
        log.exception("Could not draw rack %r", getattr(rack, "id", rack))
        _paint_failed(painter, u_total, scale)
    finally:
        painter.restore()


def _paint_failed(painter: QPainter, u_total: int, scale: float) -> None:
    """A crossed-out frame where a rack could not be drawn."""
    frame = _qrect(geo.frame_rect(u_total, scale))
    painter.setPen(QPen(qcolor(colors.LOAD_OVER), max(scale * 0.2, 1.0)))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(frame)
    painter.drawLine(frame.topLeft(), frame.bottomRight())
    painter.drawLine(frame.topRight(), frame.bottomLeft())


def _paint_frame(
    painter: QPainter, u_total: int, scale: float, detail: bool, style: geo.RackStyle
) -> None:
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
    right_aligned = _RIGHT_MIDDLE
    left_aligned = _LEFT_MIDDLE
    for u in range(1, u_total + 1):
        if u % step and u != 1:
            continue
        painter.drawText(_qrect(geo.u_label_rect(u, u_total, scale)), right_aligned, str(u))
        if style.u_numbers_right:
            r = _qrect(geo.u_label_rect_right(u, u_total, scale))
            painter.drawText(r, left_aligned, str(u))


def _paint_blocks(
    painter: QPainter,
    blocks: list[geo.Block],
    scale: float,
    selected: Collection[str],
    detail: bool,
    marks: Mapping[str, Severity],
    style: geo.RackStyle = geo.SCREEN_STYLE,
) -> None:
    inset = max(scale * 0.06, 0.5) if detail else 0.0
    border = QPen(QColor(0, 0, 0, OUTLINE_ALPHA), 0)
    font = _font(scale * 0.72)
    metrics = _metrics(font)
    selected_rects: list[QRectF] = []
    # Pattern brushes hatch in device pixels: a 600 dpi page would get a grey wash, so
    # paper draws the hatch as lines spaced like the screen's.
    drawn_hatch = style.device_details and scale > 14
    hatch = QBrush(qcolor(colors.REAR_HATCH), Qt.BrushStyle.BDiagPattern)
    for block in visible_blocks(blocks, scale):
        rect = _qrect(block.rect).adjusted(inset, inset, -inset, -inset)
        fill = colors.role_color(block.role)
        if block.other_face:
            painter.setPen(QPen(qcolor(colors.REAR_HATCH), 0) if detail else Qt.PenStyle.NoPen)
            painter.setBrush(Qt.BrushStyle.NoBrush if drawn_hatch else hatch)
        elif not detail:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(qcolor(fill))
        else:
            painter.setPen(_outline(fill) if style.opaque_outlines else border)
            painter.setBrush(qcolor(fill))
        painter.drawRect(rect)
        if block.other_face and drawn_hatch:
            paint_hatch(painter, rect, scale * 0.55)
        if not detail:
            continue
        primary, secondary = geo.block_text(block, scale)
        if style.device_details and (block.other_face or block.zero_u):
            _paint_side_label(painter, block, rect, scale)
            continue
        if not primary or block.other_face:
            continue
        painter.setPen(text_color_for(fill))
        pad = scale * 0.4
        text_rect = rect.adjusted(pad, 0, -pad, 0)
        if style.device_details:
            _paint_device_lines(painter, block, text_rect, scale)
        elif secondary:
            # Tall blocks get larger text: an 8U server is read from across the room.
            name_px = min(scale * 1.3, max(scale * 0.9, block.rect.h * 0.28))
            bold, model_font = _font(name_px, bold=True), _font(name_px * 0.8)
            bold_metrics = _metrics(bold)
            half = text_rect.height() / 2
            top = QRectF(text_rect.left(), text_rect.top(), text_rect.width(), half)
            bottom = QRectF(text_rect.left(), text_rect.top() + half, text_rect.width(), half)
            painter.setFont(bold)
            painter.drawText(
                top,
                _LEFT_BOTTOM,
                bold_metrics.elidedText(primary, Qt.TextElideMode.ElideRight, top.width()),
            )
            painter.setFont(model_font)
            painter.drawText(
                bottom,
                _LEFT_TOP,
                _metrics(model_font).elidedText(
                    secondary, Qt.TextElideMode.ElideRight, bottom.width()
                ),
            )
        else:
            painter.setFont(font)
            painter.drawText(
                text_rect,
                _LEFT_MIDDLE,
                metrics.elidedText(primary, Qt.TextElideMode.ElideRight, text_rect.width()),
            )
    sliver = MIN_STRIP_PIECE_U * scale
    if selected:
        # Every selected device, hidden under another block or not, outlines its place
        # (once per place).
        places = {_place(b, sliver): b.rect for b in blocks if b.device_id in selected}
        selected_rects = [_qrect(r).adjusted(inset, inset, -inset, -inset) for r in places.values()]
    if marks:
        outlined: set[tuple] = set()
        for block in blocks:
            severity = marks.get(block.device_id)
            if severity is None or block.other_face:
                continue
            place = (_place(block, sliver), severity)
            if place in outlined:
                continue
            outlined.add(place)
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


def visible_blocks(blocks: list[geo.Block], scale: float) -> list[geo.Block]:
    """The blocks worth painting, in painting order: only the topmost (last) of blocks
    drawn on the very same rectangle, and, in a 0U strip shared by so many devices that
    each gets under :data:`MIN_STRIP_PIECE_U`, one block per such sliver of the strip.

    Painting every one of 10,000 devices stacked on U1 took 1.5 s per repaint for the
    same picture; a rack now paints at most about as many blocks as it has places.
    Selection and marks still find every device (they look at all ``blocks``).
    """
    last: dict[tuple, int] = {}
    sliver = MIN_STRIP_PIECE_U * scale
    for i, block in enumerate(blocks):
        last[_place(block, sliver)] = i
    if len(last) == len(blocks):
        return blocks
    keep = sorted(last.values())
    return [blocks[i] for i in keep]


#: A 0U strip shared by many devices is painted in pieces at least this tall (in U).
MIN_STRIP_PIECE_U = 0.25


def _place(block: geo.Block, sliver: float) -> tuple:
    """Where a block is painted: its rectangle and face, or its sliver of a crowded 0U
    strip (see :func:`visible_blocks`)."""
    r = block.rect
    if block.zero_u and sliver > 0 and r.h < sliver:
        return ("strip", int(r.y // sliver))
    return (r.x, r.y, r.w, r.h, block.other_face)


def paint_hatch(painter: QPainter, rect: QRectF, spacing: float) -> None:
    """Diagonal lines across ``rect`` (bottom-left to top-right, like BDiagPattern)."""
    painter.save()
    painter.setClipRect(rect)
    painter.setPen(QPen(qcolor(colors.REAR_HATCH), max(spacing * 0.08, 0.5)))
    h = rect.height()
    offset = -h
    while offset < rect.width():
        x = rect.left() + offset
        painter.drawLine(QPointF(x, rect.bottom()), QPointF(x + h, rect.top()))
        offset += spacing
    painter.restore()


def _paint_side_label(painter: QPainter, block: geo.Block, rect: QRectF, scale: float) -> None:
    """Paper only: name the device behind a hatched block ("gpu00001 · front") and the
    0U devices in their strip (written upwards), so the rear elevation reads too."""
    if block.zero_u:
        font = _font(min(rect.width() * 0.62, scale * 0.72))
        metrics = _metrics(font)
        text = metrics.elidedText(block.name, Qt.TextElideMode.ElideRight, rect.height() - scale)
        if not text:
            return
        painter.save()
        painter.translate(rect.center())
        painter.rotate(-90)
        painter.setFont(font)
        painter.setPen(text_color_for(colors.role_color(block.role)))
        box = QRectF(-rect.height() / 2, -rect.width() / 2, rect.height(), rect.width())
        painter.drawText(box, _CENTER, text)
        painter.restore()
        return
    font = _font(scale * 0.72)
    metrics = _metrics(font)
    pad = scale * 0.3
    mounted = "rear" if block.face_drawn == "front" else "front"
    room = rect.width() - 4 * pad
    text = f"{block.name} · {mounted}-mounted"
    if metrics.horizontalAdvance(text) > room:
        text = metrics.elidedText(block.name, Qt.TextElideMode.ElideRight, room)
    if not text:
        return
    width = metrics.horizontalAdvance(text) + 2 * pad
    height = min(scale * 0.95, rect.height())
    chip = QRectF(rect.left() + pad, rect.center().y() - height / 2, width, height)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(255, 255, 255, 225))
    painter.drawRect(chip)
    painter.setFont(font)
    painter.setPen(qcolor(colors.TEXT_MUTED))
    painter.drawText(chip, _CENTER, text)


def _paint_device_lines(
    painter: QPainter, block: geo.Block, text_rect: QRectF, scale: float
) -> None:
    """Name, model, asset tag and serial (paper): as many lines as the block holds, the
    rest joined onto the last line, so a 1U switch still shows its tag."""
    lines = geo.device_lines(block, one_line=block.u_height < 2)
    small_px = scale * 0.72
    if block.u_height < 2:
        # Name, tag and serial must survive: shrink the type a little before eliding.
        full = " · ".join(lines)
        essential = " · ".join(lines[:-1] if block.model and len(lines) > 1 else lines)
        font = _font(small_px)
        width = _metrics(font).horizontalAdvance(essential)
        if width > text_rect.width():
            fitted = small_px * text_rect.width() / width * 0.95
            font = _font(max(scale * 0.55, math.floor(fitted)))
        metrics = _metrics(font)
        text = metrics.elidedText(full, Qt.TextElideMode.ElideRight, text_rect.width())
        if text != full and not text[:-1].startswith(essential):
            # The model is cut short, never the tag: drop the model before the tag.
            text = metrics.elidedText(essential, Qt.TextElideMode.ElideRight, text_rect.width())
        painter.setFont(font)
        painter.drawText(text_rect, _LEFT_MIDDLE, text)
        return
    name_px = min(scale * 1.3, max(scale * 0.9, block.rect.h * 0.28))
    name_h, small_h = name_px * 1.25, small_px * 1.3
    rest = lines[1:]
    room = int((text_rect.height() - name_h - scale * 0.1) // small_h)
    if room < len(rest):
        keep = max(room, 1)
        rest = [*rest[: keep - 1], " · ".join(rest[keep - 1 :])]
    total = name_h + small_h * len(rest)
    if total > text_rect.height():  # a 2U block: both lines a little smaller, not clipped
        fit = text_rect.height() / total
        name_px, small_px = name_px * fit, small_px * fit
        name_h, small_h, total = name_h * fit, small_h * fit, text_rect.height()
    y = text_rect.top() + max((text_rect.height() - total) / 2, 0.0)
    bold, small = _font(name_px, bold=True), _font(small_px)
    for i, line in enumerate([lines[0], *rest]):
        font, h = (bold, name_h) if i == 0 else (small, small_h)
        painter.setFont(font)
        row = QRectF(text_rect.left(), y, text_rect.width(), h)
        painter.drawText(
            row,
            _LEFT_MIDDLE,
            _metrics(font).elidedText(line, Qt.TextElideMode.ElideRight, row.width()),
        )
        y += h


def _bar_fill(painter: QPainter, rect: QRectF, budget: Budget) -> QColor:
    """A budget's bar: grey track, the used share in the state's colour (all of it, in
    red, when over); returns the colour text on the bar should have."""
    state = budget.state
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(qcolor(colors.RAIL))
    painter.drawRect(rect)
    if state is BudgetState.UNKNOWN:
        return qcolor(colors.TEXT_MUTED)
    fraction = 1.0 if state is BudgetState.OVER else max(0.0, min(budget.fraction, 1.0))
    painter.setBrush(qcolor(colors.budget_color(state)))
    painter.drawRect(QRectF(rect.left(), rect.top(), rect.width() * fraction, rect.height()))
    if state is BudgetState.OVER:
        painter.setPen(QPen(qcolor(colors.OVER_EDGE), max(rect.height() * 0.12, 0.8)))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
        return QColor("#ffffff")
    return qcolor(colors.TEXT)


def _paint_budget_bars(
    painter: QPainter, budgets: RackBudgets, u_total: int, scale: float, detail: bool
) -> None:
    """The screen's budget strip: one labelled bar per budget (U, kW, Cool, kg, Feed)."""
    items = geo.budget_items(budgets, geo.BUDGET_BARS)
    rects = geo.budget_bar_rects(u_total, scale, len(items))
    for (label, budget), r in zip(items, rects, strict=True):
        rect = _qrect(r)
        text_color = _bar_fill(painter, rect, budget)
        if not detail:
            continue
        over = budget.state is BudgetState.OVER
        font = _font(scale * 0.85, bold=over)
        painter.setFont(font)
        painter.setPen(text_color)
        painter.drawText(rect, _CENTER, label)


def _paint_budget_lines(
    painter: QPainter, budgets: RackBudgets, u_total: int, scale: float, style: geo.RackStyle
) -> None:
    """Paper: one bar per budget with its label and figures written on it."""
    items = geo.budget_items(budgets, geo.BUDGET_LINES)
    font = _font(scale * 0.72)
    bold = _font(scale * 0.72, bold=True)
    pad = scale * 0.3
    for (label, budget), r in zip(items, geo.budget_line_rects(u_total, scale, style), strict=True):
        rect = _qrect(r).adjusted(0, scale * 0.1, 0, -scale * 0.1)
        text_color = _bar_fill(painter, rect, budget)
        over = budget.state is BudgetState.OVER
        text_rect = rect.adjusted(pad, 0, -pad, 0)
        painter.setPen(text_color)
        painter.setFont(bold if over else font)
        name = f"{label} OVER" if over else label
        painter.drawText(text_rect, _LEFT_MIDDLE, name)
        metrics = _metrics(bold if over else font)
        room = text_rect.width() - metrics.horizontalAdvance(name) - pad
        figures = geo.budget_figures(budget)
        if metrics.horizontalAdvance(figures) > room:
            figures = figures.split(" · ")[0]  # the bar shows the share
        painter.setFont(font)
        painter.drawText(
            text_rect,
            _RIGHT_MIDDLE,
            _metrics(font).elidedText(figures, Qt.TextElideMode.ElideLeft, room),
        )


def paint_budget_table(painter: QPainter, budgets: RackBudgets, rect: QRectF) -> None:
    """A rack's budgets as a table (paper): label, bar with its share, used / limit and
    verdict per line, and the typical draw and heat below.  The same bars, colours and
    wording as under the racks."""
    items = geo.budget_items(budgets, geo.BUDGET_LINES)
    rows = len(items) + 2  # and a two-line note
    row_h = rect.height() / rows
    font_px = row_h * 0.55
    font, bold = _font(font_px), _font(font_px, bold=True)
    metrics = _metrics(font)
    label_w = metrics.horizontalAdvance("Failover ") + font_px
    word_w = _metrics(bold).horizontalAdvance("OVER") + font_px * 0.5
    bar_w = min(rect.width() * 0.32, rect.width() - label_w - word_w - font_px * 10)
    left = rect.left()
    for i, (label, budget) in enumerate(items):
        top = rect.top() + i * row_h
        row = QRectF(left, top, rect.width(), row_h)
        painter.setPen(qcolor(colors.TEXT))
        painter.setFont(font)
        painter.drawText(
            QRectF(left, top, label_w, row_h),
            _LEFT_MIDDLE,
            label,
        )
        bar = QRectF(left + label_w, top + row_h * 0.18, bar_w, row_h * 0.64)
        text_color = _bar_fill(painter, bar, budget)
        if budget.limit:
            painter.setPen(text_color)
            painter.setFont(_font(font_px * 0.85))
            painter.drawText(bar, _CENTER, f"{budget.fraction:.0%}")
        over = budget.state is BudgetState.OVER
        figures = geo.budget_figures(budget).split(" · ")[0]
        if budget.limit is None or not budget.limit > 0:
            figures = geo.budget_figures(budget)
        text_left = bar.right() + font_px * 0.6
        figures_rect = QRectF(text_left, top, row.right() - word_w - text_left, row_h)
        painter.setPen(qcolor(colors.LOAD_OVER if over else colors.TEXT))
        painter.setFont(font)
        painter.drawText(
            figures_rect,
            _LEFT_MIDDLE,
            metrics.elidedText(figures, Qt.TextElideMode.ElideRight, figures_rect.width()),
        )
        painter.setFont(bold if over else font)
        painter.setPen(qcolor(colors.LOAD_OVER if over else colors.TEXT_MUTED))
        painter.drawText(
            QRectF(row.right() - word_w, top, word_w, row_h),
            _RIGHT_MIDDLE,
            geo.budget_state_word(budget.state),
        )
    top = rect.top() + len(items) * row_h
    painter.setPen(qcolor(colors.TEXT_MUTED))
    small = _font(font_px * 0.9)
    painter.setFont(small)
    note = (
        f"Typical draw {budgets.power_typical_kw:,.1f} kW · heat "
        f"{budgets.heat_btu_h:,.0f} BTU/h · feeds at 80 % of breaker rating"
    )
    painter.drawText(
        QRectF(left, top + row_h * 0.15, rect.width(), row_h * 1.85),
        _LEFT_TOP_WRAP,
        note,
    )


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
    frame = geo.frame_rect(u_total, scale)
    left = frame.x
    bar = QRectF(left, header.bottom() - scale * 0.9, frame.w, scale * 0.55)
    if load is not None:
        fraction = geo.load_fraction(load.kw_max, load.limit_kw)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(qcolor(colors.RAIL))
        painter.drawRect(bar)
        state = budget_state(load.kw_max, load.limit_kw, load.unknown_power_devices)
        painter.setBrush(qcolor(colors.budget_color(state)))
        painter.drawRect(
            QRectF(bar.left(), bar.top(), bar.width() * min(fraction, 1.0), bar.height())
        )
    if not detail:
        return
    text_rect = QRectF(left, header.top(), frame.w, bar.top() - header.top())
    cooling = COOLING_TYPES.get(rack.cooling) if isinstance(rack.cooling, str) else None
    tag = cooling.tag if cooling is not None else geo.as_text(rack.cooling).upper()[:12]
    small = _font(scale * 0.75)
    painter.setFont(small)
    painter.setPen(qcolor(colors.TEXT_MUTED))
    tag_width = _metrics(small).horizontalAdvance(tag)
    painter.drawText(text_rect, _RIGHT_MIDDLE, tag)
    if mark is not None:
        tag_width += _paint_badge(painter, text_rect, tag_width, scale, mark)
    name_font = _font(scale * 1.4, bold=True)
    painter.setFont(name_font)
    painter.setPen(qcolor(colors.TEXT))
    width = text_rect.width() - tag_width - scale * 0.5
    painter.drawText(
        text_rect,
        _LEFT_MIDDLE,
        _metrics(name_font).elidedText(geo.as_text(rack.name), Qt.TextElideMode.ElideRight, width),
    )


def _paint_footer(
    painter: QPainter,
    blocks: list[geo.Block],
    u_total: int,
    scale: float,
    load: LoadLike | None,
    style: geo.RackStyle = geo.SCREEN_STYLE,
) -> None:
    footer = _qrect(geo.footer_rect(u_total, scale, style))
    frame = geo.frame_rect(u_total, scale)
    text_rect = QRectF(frame.x, footer.top(), frame.w, footer.height())
    if load is not None:
        u_used = load.u_used
        unknown = load.unknown_power_devices
        text = geo.footer_text(u_used, u_total, load.kw_max, load.limit_kw, unknown)
        over = budget_state(load.kw_max, load.limit_kw, unknown) is BudgetState.OVER
    else:
        u_used = sum(b.u_height for b in blocks if not b.zero_u and not b.other_face)
        text, over = geo.footer_text(u_used, u_total, None, None), False
    font = _font(scale * 1.0)
    # A footer that says "+ N unknown" is longer than the rack is wide: shrink it to at
    # most three quarters before eliding, so the words that matter stay on the page.
    wide = _metrics(font).horizontalAdvance(text)
    if wide > text_rect.width() > 0:
        font = _font(scale * max(0.75, text_rect.width() / wide))
    painter.setFont(font)
    painter.setPen(qcolor(colors.LOAD_OVER if over else colors.TEXT_MUTED))
    painter.drawText(
        text_rect,
        _LEFT_MIDDLE,
        _metrics(font).elidedText(text, Qt.TextElideMode.ElideRight, text_rect.width()),
    )
