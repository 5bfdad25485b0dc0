"""Paint the fabric drawing with a QPainter: one drawing path for the screen and paper.

The Fabric view's scene items and any export (PDF, SVG, a test's image) call these
functions with a :class:`~workbench.render.fabric_layout.FabricLayout`, so what is
printed is what was on screen.  Only QtGui is used, never widgets.

Scale decides the shape, as in the floor plan: bundles are drawn in a few
``drawLines`` calls (one per line width, C++ loops over the kept lines) rather than one
call per bundle, text only where it is big enough to read, and the highlight of a
selection on top of everything else, so a spine's links stand out from a fabric of
thousands.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen

from workbench.render import colors
from workbench.render.fabric_layout import UNCABLED, Box, Bundle, FabricLayout, Layer, Panel
from workbench.render.rack_painter import text_color_for

#: Bundle lines: their colour, a lighter one while something else is selected, and the
#: width of a single link (pixels; a bundle of n links is wider by log2 n).
BUNDLE = "#8fa3ad"
BUNDLE_DIM = "#d5dde1"
PANEL_FILL = "#ffffff"
PANEL_EDGE = "#cfd8dc"
BAND_FILL = "#f3f6f7"
TRAY_FILL = "#fffaf0"
TIER_FILL = colors.role_color("storage")
#: Font sizes in scene units (pixels at zoom 1).
TITLE_PX = 12.0
DETAIL_PX = 10.5
LAYER_PX = 16.0
FIGURE_PX = 12.0
PANEL_TITLE_PX = 22.0
COUNT_PX = 10.0
#: Text smaller than this on screen is not drawn.
MIN_TEXT_PX = 5.0
#: A box too small for its own text gets its title at this many screen pixels, when it
#: is at least this wide and high on screen.
SMALL_TITLE_PX = 10.0
SMALL_TITLE_MIN_PX = (26.0, 9.0)


@dataclass(frozen=True)
class Highlight:
    """What a selection lights up: the boxes holding it, their neighbours across the
    lit bundles, and the bundles themselves."""

    boxes: frozenset[str] = frozenset()
    neighbours: frozenset[str] = frozenset()
    bundles: frozenset[tuple[str, str]] = frozenset()

    @property
    def active(self) -> bool:
        return bool(self.boxes or self.bundles)


@dataclass
class Figures:
    """Text the layout does not know: per (plane, level) a figure line (the tier's
    oversubscription), and per plane a subtitle (its network)."""

    layers: Mapping[tuple[str, int], str] = field(default_factory=dict)
    planes: Mapping[str, str] = field(default_factory=dict)


_FONTS: dict[tuple[float, bool], QFont] = {}


def font(px: float, bold: bool = False) -> QFont:
    """A font ``px`` scene units high (kept: every frame asks for the same few)."""
    key = (round(px, 1), bold)
    found = _FONTS.get(key)
    if found is None:
        found = _FONTS[key] = QFont()
        found.setPixelSize(max(1, round(px)))
        found.setBold(bold)
    return found


def lod_of(painter: QPainter) -> float:
    """Screen pixels per scene unit."""
    t = painter.worldTransform()
    return math.hypot(t.m11(), t.m12()) or 1.0


def readable(px: float, lod: float) -> bool:
    return px * lod >= MIN_TEXT_PX


def bundle_width(count: int) -> float:
    """The line width of a bundle of ``count`` links, in pixels."""
    return 1.0 + min(5.0, math.log2(max(count, 1)) * 0.8)


def bundle_line(bundle: Bundle) -> QLineF:
    return QLineF(QPointF(*bundle.a_point), QPointF(*bundle.b_point))


def box_rect(box: Box) -> QRectF:
    x, y, w, h = box.rect
    return QRectF(x, y, w, h)


# -- bundles --------------------------------------------------------------------------------


def batch_bundles(bundles: Iterable[Bundle]) -> dict[float, list[QLineF]]:
    """The bundles' lines grouped by width (what :func:`paint_bundles` draws), to keep
    between frames."""
    batches: dict[float, list[QLineF]] = {}
    for bundle in bundles:
        width = round(bundle_width(bundle.count) * 2) / 2
        batches.setdefault(width, []).append(bundle_line(bundle))
    return batches


def paint_bundles(
    painter: QPainter,
    layout: FabricLayout,
    bundles: Iterable[Bundle],
    highlight: Highlight = Highlight(),
    *,
    batches: Mapping[float, list[QLineF]] | None = None,
    counts: bool = True,
) -> None:
    """Every bundle as a line (wider for more links), the lit ones on top in the
    selection colour with their counts; ``counts`` writes every bundle's count where
    it is readable (a small fabric)."""
    bundles = list(bundles)
    if batches is None:
        batches = batch_bundles(bundles)
    lod = lod_of(painter)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    color = QColor(BUNDLE_DIM if highlight.active else BUNDLE)
    for width, lines in sorted(batches.items()):
        pen = QPen(color, width)
        pen.setCosmetic(True)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        painter.setPen(pen)
        painter.drawLines(lines)
    lit = [b for b in bundles if b.key in highlight.bundles]
    if lit:
        for bundle in lit:
            pen = QPen(QColor(colors.SELECTION), bundle_width(bundle.count) + 1.5)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.drawLine(bundle_line(bundle))
    if not readable(COUNT_PX, lod):
        return
    shown = lit if not counts else [b for b in bundles if b.count > 1 or b.key in highlight.bundles]
    for bundle in shown:
        _paint_count(painter, bundle, bundle.key in highlight.bundles, lod)


def _paint_count(painter: QPainter, bundle: Bundle, lit: bool, lod: float) -> None:
    """ "×16" in a small pill a third of the way down from the upper end."""
    (ax, ay), (bx, by) = bundle.a_point, bundle.b_point
    x, y = bx + (ax - bx) * 0.3, by + (ay - by) * 0.3
    text = f"×{bundle.count:,}"
    f = font(COUNT_PX, bold=lit)
    width = QFontMetricsF(f).horizontalAdvance(text) + 8
    rect = QRectF(x - width / 2, y - COUNT_PX * 0.8, width, COUNT_PX * 1.6)
    painter.setPen(QPen(QColor(colors.SELECTION if lit else PANEL_EDGE), 0))
    painter.setBrush(QColor("#ffffff"))
    painter.drawRoundedRect(rect, 4, 4)
    painter.setFont(f)
    painter.setPen(QColor(colors.SELECTION if lit else colors.TEXT_MUTED))
    painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)


# -- boxes ----------------------------------------------------------------------------------


def paint_boxes(
    painter: QPainter, boxes: Iterable[Box], highlight: Highlight = Highlight()
) -> None:
    """Switches, groups and tiers: filled by role, groups as a small stack, the
    selected boxes ringed in the selection colour and their neighbours outlined."""
    lod = lod_of(painter)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    dim = highlight.active
    small: list[tuple[QRectF, QColor, str]] = []
    for box in boxes:
        rect = box_rect(box)
        fill = QColor(TIER_FILL if box.kind == "tier" else colors.role_color(box.role))
        lit = box.key in highlight.boxes or box.key in highlight.neighbours
        if dim and not lit:
            fill = fill.lighter(135)
        edge = QPen(fill.darker(140), 0)
        if box.kind in ("switches", "hosts"):
            painter.setPen(edge)
            painter.setBrush(fill.lighter(120))
            for step in (6.0, 3.0):
                painter.drawRoundedRect(rect.translated(step, -step), 5, 5)
        painter.setPen(edge)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(rect, 5, 5)
        if box.key in highlight.boxes:
            ring = QPen(QColor(colors.SELECTION), 3.0)
            ring.setCosmetic(True)
            painter.setPen(ring)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(-3, -3, 3, 3), 7, 7)
        elif box.key in highlight.neighbours:
            ring = QPen(QColor(colors.SELECTION), 1.5)
            ring.setCosmetic(True)
            painter.setPen(ring)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(-2, -2, 2, 2), 6, 6)
        if readable(DETAIL_PX, lod):
            _paint_box_text(painter, box, rect, fill)
        else:
            small.append((rect, fill, box.title))
    if small:
        _paint_small_titles(painter, small)


def _paint_small_titles(painter: QPainter, boxes: list[tuple[QRectF, QColor, str]]) -> None:
    """Titles of boxes too small on screen for their scene-sized text, at a fixed small
    size in screen pixels and cut from the left ("…spine-003": what tells neighbours
    apart), wherever a box is still a few characters wide."""
    transform = painter.worldTransform()
    painter.save()
    painter.resetTransform()
    for rect, fill, title in boxes:
        shown = transform.mapRect(rect)
        if shown.width() < SMALL_TITLE_MIN_PX[0] or shown.height() < SMALL_TITLE_MIN_PX[1]:
            continue
        px = min(SMALL_TITLE_PX, shown.height() * 0.72)
        f = font(px, bold=True)
        inner = shown.adjusted(2, 0, -2, 0)
        text = QFontMetricsF(f).elidedText(title, Qt.TextElideMode.ElideLeft, inner.width())
        if text in ("…", ""):
            continue
        painter.setFont(f)
        painter.setPen(text_color_for(fill.name()))
        painter.drawText(inner, int(Qt.AlignmentFlag.AlignCenter), text)
    painter.restore()


def _paint_box_text(painter: QPainter, box: Box, rect: QRectF, fill: QColor) -> None:
    painter.setPen(text_color_for(fill.name()))
    inner = rect.adjusted(6, 3, -6, -3)
    title_px = TITLE_PX + (2 if box.kind == "tier" else 0)
    title_font = font(title_px, bold=True)
    metrics = QFontMetricsF(title_font)
    # A switch's name differs from its neighbours' at the end ("…spine-003").
    mode = Qt.TextElideMode.ElideLeft if box.kind == "switch" else Qt.TextElideMode.ElideMiddle
    title = metrics.elidedText(box.title, mode, inner.width())
    painter.setFont(title_font)
    if not box.detail:
        painter.drawText(inner, int(Qt.AlignmentFlag.AlignCenter), title)
        return
    lines = box.detail.split("\n")
    line_h = DETAIL_PX * 1.25
    total = title_px * 1.25 + line_h * len(lines)
    top = inner.center().y() - total / 2
    painter.drawText(
        QRectF(inner.left(), top, inner.width(), title_px * 1.25),
        int(Qt.AlignmentFlag.AlignCenter),
        title,
    )
    detail_font = font(DETAIL_PX)
    detail_metrics = QFontMetricsF(detail_font)
    painter.setFont(detail_font)
    y = top + title_px * 1.25
    for line in lines:
        text = detail_metrics.elidedText(line, Qt.TextElideMode.ElideRight, inner.width())
        painter.drawText(
            QRectF(inner.left(), y, inner.width(), line_h), int(Qt.AlignmentFlag.AlignCenter), text
        )
        y += line_h


# -- panels ---------------------------------------------------------------------------------


def panel_rect(panel: Panel) -> QRectF:
    return QRectF(panel.left, panel.top, panel.right - panel.left, panel.bottom - panel.top)


def panel_title(panel: Panel) -> str:
    if not panel.links:
        return panel.title
    return f"{panel.title}  ·  {panel.links:,} link{'s' if panel.links != 1 else ''}"


def layer_lines(panel: Panel, layer: Layer, figures: Figures) -> list[str]:
    """What a layer's label says under its name: how many devices, then the figures."""
    if layer.level == 0:
        what = "node" if layer.devices == 1 else "nodes"
    else:
        what = "switch" if layer.devices == 1 else "switches"
    lines = [f"{layer.devices:,} {what}"]
    if layer.note:
        lines.append(layer.note)
    figure = figures.layers.get((panel.plane, layer.level), "")
    if figure:
        lines.extend(figure.split("\n"))
    return lines


def paint_panel(
    painter: QPainter,
    panel: Panel,
    layout: FabricLayout,
    figures: Figures,
    *,
    labels: bool = True,
) -> None:
    """The panel's card and each layer's band; with ``labels``, the title and the
    layers' names and figures too (the screen pins those to the window instead, so they
    stay readable at any zoom: :func:`paint_layer_label`, :func:`paint_title`)."""
    lod = lod_of(painter)
    rect = panel_rect(panel)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(QColor(PANEL_EDGE), 0))
    painter.setBrush(QColor(TRAY_FILL if panel.plane == UNCABLED else PANEL_FILL))
    painter.drawRoundedRect(rect, 10, 10)
    for layer in panel.layers:
        if not layer.boxes or panel.plane == UNCABLED:
            continue
        band_h = max(layout.boxes[k].h for k in layer.boxes) + 36
        band = QRectF(rect.left() + 8, layer.y - band_h / 2, rect.width() - 16, band_h)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(BAND_FILL))
        painter.drawRoundedRect(band, 6, 6)
        if labels and readable(FIGURE_PX, lod):
            lines = layer_lines(panel, layer, figures)
            paint_layer_label(painter, QPointF(band.left() + 10, layer.y), layer.name, lines)
    if labels and readable(PANEL_TITLE_PX * 0.6, lod):
        subtitle = figures.planes.get(panel.plane, "")
        paint_title(
            painter, QPointF(rect.left() + 18, rect.top() + 12), panel_title(panel), subtitle
        )
    if panel.note and readable(FIGURE_PX, lod):
        painter.setPen(QColor(colors.TEXT_MUTED))
        painter.setFont(font(FIGURE_PX + 1))
        note_top = rect.top() + 74 if not panel.layers else rect.bottom() - 34
        painter.drawText(
            QRectF(rect.left() + 18, note_top, rect.width() - 36, rect.bottom() - note_top - 8),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            | int(Qt.TextFlag.TextWordWrap),
            panel.note,
        )


def paint_title(
    painter: QPainter, at: QPointF, title: str, subtitle: str = "", width: float = 900.0
) -> None:
    """A panel's title with its subtitle below, top-left at ``at``, each cut to
    ``width`` with an ellipsis."""
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    title_font = font(PANEL_TITLE_PX * 0.8, bold=True)
    painter.setPen(QColor(colors.TEXT))
    painter.setFont(title_font)
    shown = QFontMetricsF(title_font).elidedText(title, Qt.TextElideMode.ElideRight, width)
    painter.drawText(QRectF(at.x(), at.y(), width, PANEL_TITLE_PX), flags, shown)
    if subtitle:
        sub_font = font(FIGURE_PX)
        painter.setFont(sub_font)
        painter.setPen(QColor(colors.TEXT_MUTED))
        shown = QFontMetricsF(sub_font).elidedText(subtitle, Qt.TextElideMode.ElideRight, width)
        painter.drawText(
            QRectF(at.x(), at.y() + PANEL_TITLE_PX, width, FIGURE_PX * 1.5), flags, shown
        )


def layer_label_size(name: str, lines: list[str]) -> tuple[float, float]:
    """The width and height of a layer's label card (:func:`paint_layer_label`)."""
    name_font, line_font = font(LAYER_PX * 0.85, bold=True), font(FIGURE_PX)
    width = max(
        [QFontMetricsF(name_font).horizontalAdvance(name)]
        + [QFontMetricsF(line_font).horizontalAdvance(line) for line in lines]
    )
    return width + 16, LAYER_PX * 1.15 + FIGURE_PX * 1.3 * len(lines) + 8


def paint_layer_label(painter: QPainter, at: QPointF, name: str, lines: list[str]) -> QRectF:
    """A layer's name in bold and its figure lines below, on a light card whose left
    edge is at ``at`` and middle at its height; returns the card."""
    name_font, line_font = font(LAYER_PX * 0.85, bold=True), font(FIGURE_PX)
    width, height = layer_label_size(name, lines)
    name_h, line_h = LAYER_PX * 1.15, FIGURE_PX * 1.3
    card = QRectF(at.x(), at.y() - height / 2, width, height)
    painter.setPen(QPen(QColor(PANEL_EDGE), 0))
    painter.setBrush(QColor(255, 255, 255, 225))
    painter.drawRoundedRect(card, 5, 5)
    flags = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    y = card.top() + 4
    painter.setPen(QColor(colors.TEXT))
    painter.setFont(name_font)
    painter.drawText(QRectF(card.left() + 8, y, width - 12, name_h), flags, name)
    y += name_h
    painter.setFont(line_font)
    painter.setPen(QColor(colors.TEXT_MUTED))
    for line in lines:
        painter.drawText(QRectF(card.left() + 8, y, width - 12, line_h), flags, line)
        y += line_h
    return card


def paint_fabric(
    painter: QPainter,
    layout: FabricLayout,
    highlight: Highlight = Highlight(),
    figures: Figures | None = None,
) -> None:
    """The whole drawing in scene units (the caller sets the transform: a page, an
    image): what the view's items draw, in the same order."""
    figures = figures if figures is not None else Figures()
    for panel in layout.panels:
        paint_panel(painter, panel, layout, figures)
    paint_bundles(
        painter, layout, layout.bundles.values(), highlight, counts=len(layout.bundles) <= 120
    )
    paint_boxes(painter, layout.boxes.values(), highlight)
