"""The hall plan as a planner reads it, drawn with a QPainter: the one drawing path for
the floor plan's readable parts, on screen (the scale bar and the tile grid's labels
the view pins to its edges) and on paper (the floor-plan page of ``workbench print
--floor-plan`` and File ▸ Print).

What a page shows: the floor tiles with their grid labels (columns A, B, C … along the
top, rows 1, 2, 3 … down the side, as tiles are named on a raised floor), the hot and
cold aisles with their widths, every rack coloured by its worst budget with its name,
each row's name and length, and a scale bar in metres.  Figures come from the model
(:mod:`workbench.model.floor`) and the rules (:mod:`workbench.rules.budgets`); nothing is
decided here.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

from workbench.calc.summary import LoadCache, rack_load
from workbench.model import Design
from workbench.model import floor as fl
from workbench.render import colors
from workbench.render.rack_geometry import as_text
from workbench.render.safe_figures import safe_rack_budgets
from workbench.rules.budgets import BudgetState

#: Colours of the plan (the window's floor items read them here too).
FLOOR = "#fbfcfc"
GRID = "#d5dde2"
GRID_TEXT = "#607d8b"
COLD_FILL = "#dcecfb"
COLD_TEXT = "#1e5f99"
HOT_FILL = "#fbe3de"
HOT_TEXT = "#a33a2a"
FRONT = "#263238"
OUTLINE = "#546e7a"
DIMENSION = "#37474f"


def column_label(index: int) -> str:
    """Tile column ``index`` (0-based) as a raised floor names it: A … Z, AA, AB …"""
    label = ""
    index += 1
    while index > 0:
        index, rest = divmod(index - 1, 26)
        label = chr(ord("A") + rest) + label
    return label


def metres(mm: float) -> str:
    """A length in metres as a plan labels it: "1.2 m", "14.4 m"."""
    value = mm / 1000.0
    text = f"{value:.1f}" if value < 100 else f"{value:.0f}"
    return f"{text.rstrip('0').rstrip('.') if '.' in text else text} m"


def scale_bar_mm(px_per_mm: float, target_px: float = 120.0) -> float:
    """A round length (1, 2 or 5 × 10ⁿ mm) close to ``target_px`` on screen or paper."""
    wanted = target_px / max(px_per_mm, 1e-9)
    power = 10 ** math.floor(math.log10(wanted))
    for step in (1, 2, 5, 10):
        if step * power >= wanted * 0.7:
            return step * power
    return 10 * power


def paint_scale_bar(
    painter: QPainter, left: float, bottom: float, px_per_mm: float, target_px: float = 120.0
) -> float:
    """A scale bar in metres with its bottom-left corner at (``left``, ``bottom``), in
    the painter's (device) coordinates, about ``target_px`` long; returns its width."""
    length_mm = scale_bar_mm(px_per_mm, target_px)
    width = length_mm * px_per_mm
    height = max(painter.fontMetrics().height(), 8)
    painter.save()
    painter.setPen(QPen(QColor(DIMENSION), 1.5))
    y = bottom - 3
    painter.drawLine(QPointF(left, y), QPointF(left + width, y))
    for x in (left, left + width / 2, left + width):
        painter.drawLine(QPointF(x, y), QPointF(x, y - (6 if x != left + width / 2 else 4)))
    painter.drawText(
        QRectF(left, bottom - height - 8, width, height),
        Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
        metres(length_mm),
    )
    painter.restore()
    return width


def paint_grid_labels(
    painter: QPainter,
    tile_mm: float,
    to_px,
    floor: tuple[float, float, float, float],
    shown: tuple[float, float, float, float],
    edge: QRectF,
) -> None:
    """Column letters along ``edge``'s top and row numbers down its left, for the
    tiles of ``floor`` (x0, y0, x1, y1 mm: its first tile is A1) that lie in ``shown``
    (the part on screen or paper); ``to_px(x, y)`` maps mm to the painter's
    coordinates.  Labels closer than their own size are skipped."""
    fx0, fy0, fx1, fy1 = floor
    x0, y0 = max(shown[0], fx0), max(shown[1], fy0)
    x1, y1 = min(shown[2], fx1), min(shown[3], fy1)
    painter.save()
    painter.setPen(QColor(GRID_TEXT))
    metrics = painter.fontMetrics()
    first_col = max(math.floor((x0 - fx0) / tile_mm), 0)
    last_col = math.ceil((x1 - fx0) / tile_mm)
    last_x = -1e9
    for col in range(first_col, last_col):
        centre = to_px(fx0 + (col + 0.5) * tile_mm, 0).x()
        text = column_label(col)
        if (
            centre - last_x < metrics.horizontalAdvance(text) + 6
            or not edge.left() < centre < edge.right()
        ):
            continue
        painter.drawText(
            QPointF(
                centre - metrics.horizontalAdvance(text) / 2, edge.top() + metrics.ascent() + 2
            ),
            text,
        )
        last_x = centre
    first_row = max(math.floor((y0 - fy0) / tile_mm), 0)
    last_row = math.ceil((y1 - fy0) / tile_mm)
    last_y = -1e9
    for row in range(first_row, last_row):
        centre = to_px(0, fy0 + (row + 0.5) * tile_mm).y()
        if (
            centre - last_y < metrics.height() + 2
            or not edge.top() + metrics.height() < centre < edge.bottom()
        ):
            continue
        painter.drawText(QPointF(edge.left() + 3, centre + metrics.ascent() / 2 - 1), str(row + 1))
        last_y = centre
    painter.restore()


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont("DejaVu Sans")
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def paint_floor(painter: QPainter, design: Design, area: QRectF, k: float) -> None:
    """The whole hall plan fitted into ``area`` (device coordinates; ``k`` device
    pixels per paper millimetre, for text sizes).  Racks without a floor position are
    left out (the window lays them out when the plan is first shown)."""
    settings = fl.FloorSettings.of(design)
    extents = {
        row.id: e for site in design.sites for row in site.rows if (e := fl.row_extent(design, row))
    }
    aisles = fl.aisles(design, settings, extents)
    rects = [e[0] for e in extents.values()] + [a.rect for a in aisles]
    hall = fl.bounds(rects)
    painter.save()
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if hall is None:
            painter.setFont(_font(4 * k))
            painter.drawText(
                area, Qt.AlignmentFlag.AlignCenter, "No rack stands on the floor plan yet."
            )
            return
        tile = settings.tile_mm
        x0 = math.floor(hall.x0 / tile - 1) * tile
        y0 = math.floor(hall.y0 / tile - 1) * tile
        x1 = math.ceil(hall.x1 / tile + 1) * tile
        y1 = math.ceil(hall.y1 / tile + 1) * tile
        label_px = 5 * k  # room for the grid labels
        room = area.adjusted(label_px, label_px, 0, -12 * k)  # and the scale bar below
        scale = min(room.width() / (x1 - x0), room.height() / (y1 - y0))

        def to_px(x: float, y: float) -> QPointF:
            return QPointF(room.left() + (x - x0) * scale, room.top() + (y - y0) * scale)

        def rect_px(r: fl.Rect) -> QRectF:
            return QRectF(to_px(r.x0, r.y0), to_px(r.x1, r.y1))

        floor = QRectF(to_px(x0, y0), to_px(x1, y1))
        painter.fillRect(floor, QColor(FLOOR))
        painter.setPen(QPen(QColor(GRID), 0))
        n = round((x1 - x0) / tile)
        for i in range(n + 1):
            x = to_px(x0 + i * tile, 0).x()
            painter.drawLine(QPointF(x, floor.top()), QPointF(x, floor.bottom()))
        m = round((y1 - y0) / tile)
        for j in range(m + 1):
            y = to_px(0, y0 + j * tile).y()
            painter.drawLine(QPointF(floor.left(), y), QPointF(floor.right(), y))
        painter.setFont(_font(2.6 * k))
        paint_grid_labels(
            painter,
            tile,
            to_px,
            (x0, y0, x1, y1),
            (x0, y0, x1, y1),
            QRectF(
                area.left(), area.top(), floor.right() - area.left(), floor.bottom() - area.top()
            ),
        )

        # Aisles with their kind and width.
        painter.setFont(_font(2.6 * k))
        for aisle in aisles:
            r = rect_px(aisle.rect)
            cold = aisle.kind == "cold"
            painter.fillRect(r, QColor(COLD_FILL if cold else HOT_FILL))
            painter.setPen(QColor(COLD_TEXT if cold else HOT_TEXT))
            width = aisle.rect.height if aisle.horizontal else aisle.rect.width
            text = f"{'Cold' if cold else 'Hot'} aisle {metres(width)}"
            if not aisle.horizontal:
                painter.save()
                painter.translate(r.center())
                painter.rotate(-90)
                painter.drawText(
                    QRectF(-r.height() / 2, -r.width() / 2, r.height(), r.width()),
                    Qt.AlignmentFlag.AlignCenter,
                    text,
                )
                painter.restore()
            else:
                painter.drawText(r, Qt.AlignmentFlag.AlignCenter, text)

        # Racks, coloured by their worst budget, named.
        cache = LoadCache()
        name_font = _font(2.2 * k, bold=True)
        for site in design.sites:
            for row in site.rows:
                for rack in row.racks:
                    footprint = fl.footprint(design, rack)
                    if footprint is None:
                        continue
                    r = rect_px(footprint)
                    budgets = safe_rack_budgets(design, rack, rack_load(design, rack, cache))
                    state = budgets.worst() if budgets is not None else BudgetState.UNKNOWN
                    painter.fillRect(r, QColor(colors.budget_color(state)))
                    painter.setPen(QPen(QColor(OUTLINE), 0))
                    painter.drawRect(r)
                    a, b = fl.front_edge(footprint, rack.facing)
                    painter.setPen(QPen(QColor(FRONT), max(0.6 * k, 1.0)))
                    painter.drawLine(to_px(*a), to_px(*b))
                    painter.setPen(QColor("#102027"))
                    painter.setFont(name_font)
                    name = as_text(rack.name)
                    if (
                        painter.fontMetrics().horizontalAdvance(name)
                        > max(r.width(), r.height()) * 1.4
                    ):
                        continue  # too small to name on this page: the row label says which
                    if r.height() > r.width():
                        painter.save()
                        painter.translate(r.center())
                        painter.rotate(-90)
                        painter.drawText(
                            QRectF(-r.height() / 2, -r.width() / 2, r.height(), r.width()),
                            Qt.AlignmentFlag.AlignCenter,
                            name,
                        )
                        painter.restore()
                    else:
                        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, name)

        # Each row's name and length, beside its racks.
        painter.setFont(_font(2.8 * k, bold=True))
        painter.setPen(QColor(DIMENSION))
        for site in design.sites:
            for row in site.rows:
                extent = extents.get(row.id)
                if extent is None:
                    continue
                rect, _facing = extent
                r = rect_px(rect)
                length = max(rect.width, rect.height)
                text = f"{as_text(row.name)} · {metres(length)}"
                metrics = painter.fontMetrics()
                if rect.width >= rect.height:
                    spot = QRectF(
                        r.left() - metrics.horizontalAdvance(text) - 3 * k,
                        r.center().y() - metrics.height() / 2,
                        metrics.horizontalAdvance(text) + 2 * k,
                        metrics.height(),
                    )
                    if spot.left() < floor.left():
                        spot.moveLeft(r.left())
                        spot.moveBottom(r.top() - 0.5 * k)
                    painter.drawText(
                        spot, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text
                    )
                else:
                    painter.drawText(
                        QRectF(
                            r.left() - 40 * k,
                            r.top() - metrics.height() - 1 * k,
                            r.width() + 80 * k,
                            metrics.height(),
                        ),
                        Qt.AlignmentFlag.AlignCenter,
                        text,
                    )

        painter.setFont(_font(2.6 * k))
        paint_scale_bar(painter, floor.left(), area.bottom(), scale, 40 * k)
        painter.setPen(QColor(GRID_TEXT))
        note = f"Tiles {metres(tile)} · north up · racks coloured by their worst budget"
        painter.drawText(
            QRectF(floor.left(), area.bottom() - 6 * k, floor.width(), 6 * k),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom,
            note,
        )
    finally:
        painter.restore()


__all__ = [
    "column_label",
    "metres",
    "paint_floor",
    "paint_grid_labels",
    "paint_scale_bar",
    "scale_bar_mm",
]
