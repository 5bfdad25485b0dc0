"""The one-page scenario comparison for a budget meeting, painted with QPainter.

Like the rack elevations (:mod:`workbench.render.print_layout`), the page is painted
onto whatever device the caller holds: a PDF writer here, an SVG generator or a widget
the same way.  It takes plain figures (:class:`ComparePage`) rather than the planning
layer's table, since render and planning sit on the same layer: the caller builds the
page with :func:`workbench.planning.scenarios.text.compare_page_fields`.

Layout on A4 landscape: a title line, the table (one column per scenario, the best cell
green and the worst red, as in the window), then capex by category as stacked bars per
scenario with a legend, and the notes (unpriced lines) at the foot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QLineF, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPageLayout, QPageSize, QPainter, QPdfWriter

from workbench.calc.costs import COST_LABELS
from workbench.render import colors
from workbench.store.atomic import replace_atomically

PDF_DPI = 300
BEST = "#d7f0d2"
WORST = "#f6d5d2"
GRID = "#cfd8dc"
#: One colour per capex category, in order of first appearance (as the window's plot).
PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3")


@dataclass(frozen=True)
class CompareRowText:
    """One row as printed: label (with unit), cell texts, best/worst column or None."""

    label: str
    cells: tuple[str, ...]
    best: int | None = None
    worst: int | None = None
    differs: bool = False


@dataclass(frozen=True)
class ComparePage:
    """Everything the page shows."""

    title: str
    names: tuple[str, ...]
    rows: tuple[CompareRowText, ...]
    #: Per scenario, capex by category (empty: no costs to draw).
    bars: tuple[dict[str, float], ...] = ()
    money: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)


def _font(px: float, bold: bool = False) -> QFont:
    font = QFont("DejaVu Sans")
    font.setPixelSize(max(1, round(px)))
    font.setBold(bold)
    return font


def paint_compare_page(painter: QPainter, rect: QRectF, page: ComparePage) -> None:
    """Paint ``page`` into ``rect`` (device pixels) of an open painter."""
    k = rect.width() / 277.0  # pixels per mm of an A4 landscape paint area
    x0, y = rect.left(), rect.top()
    painter.setPen(QColor(colors.TEXT))
    painter.setFont(_font(5.0 * k, bold=True))
    painter.drawText(QRectF(x0, y, rect.width(), 9 * k), Qt.AlignmentFlag.AlignLeft, page.title)
    y += 11 * k
    table_w = rect.width() * 0.58
    table_bottom = _paint_table(
        painter, QRectF(x0, y, table_w, rect.bottom() - y - 16 * k), page, k
    )
    chart = QRectF(x0 + table_w + 8 * k, y, rect.width() - table_w - 8 * k, table_bottom - y)
    _paint_bars(painter, chart, page, k)
    painter.setFont(_font(2.6 * k))
    painter.setPen(QColor(colors.TEXT_MUTED))
    notes = [
        "Green: best, red: worst where a lower or higher value is better; bold: the "
        "scenarios differ.",
        *page.notes,
    ]
    ny = max(table_bottom, chart.bottom()) + 5 * k
    for note in notes:
        painter.drawText(QRectF(x0, ny, rect.width(), 4 * k), Qt.AlignmentFlag.AlignLeft, note)
        ny += 4.2 * k


def _paint_table(painter: QPainter, rect: QRectF, page: ComparePage, k: float) -> float:
    """The table; returns its bottom edge."""
    n = len(page.names)
    row_h = min(8.0 * k, rect.height() / max(len(page.rows) + 1, 1))
    label_w = rect.width() * 0.44
    col_w = (rect.width() - label_w) / max(n, 1)
    pad = 1.5 * k
    y = rect.top()
    painter.setFont(_font(3.0 * k, bold=True))
    for i, name in enumerate(page.names):
        cell = QRectF(rect.left() + label_w + i * col_w, y, col_w - pad, row_h)
        painter.drawText(cell, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, name)
    y += row_h
    painter.setPen(QColor(colors.FRAME))
    painter.drawLine(QLineF(rect.left(), y, rect.right(), y))
    for row in page.rows:
        painter.setPen(QColor(GRID))
        painter.drawLine(QLineF(rect.left(), y + row_h, rect.right(), y + row_h))
        for i, text in enumerate(row.cells):
            cell = QRectF(rect.left() + label_w + i * col_w, y, col_w, row_h)
            shade = BEST if i == row.best else WORST if i == row.worst else None
            if shade:
                painter.fillRect(cell.adjusted(pad / 2, 0.5, 0, -0.5), QColor(shade))
            painter.setPen(QColor(colors.TEXT))
            painter.setFont(_font(3.3 * k, bold=row.differs))
            painter.drawText(
                cell.adjusted(0, 0, -pad, 0),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                text,
            )
        painter.setFont(_font(3.3 * k))
        painter.setPen(QColor(colors.TEXT))
        painter.drawText(
            QRectF(rect.left(), y, label_w - pad, row_h),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            painter.fontMetrics().elidedText(
                row.label, Qt.TextElideMode.ElideMiddle, int(label_w - pad)
            ),
        )
        y += row_h
    return y


def _paint_bars(painter: QPainter, rect: QRectF, page: ComparePage, k: float) -> None:
    """Capex by category, one stacked bar per scenario, with a legend under it."""
    painter.setPen(QColor(colors.TEXT))
    painter.setFont(_font(3.2 * k, bold=True))
    title = f"Capex by category ({page.money})" if page.money else "Capex by category"
    painter.drawText(
        QRectF(rect.left(), rect.top(), rect.width(), 6 * k), Qt.AlignmentFlag.AlignLeft, title
    )
    categories: list[str] = []
    for bars in page.bars:
        categories.extend(c for c in bars if c not in categories)
    if not categories:
        painter.setFont(_font(3.0 * k))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "costs not available")
        return
    legend_h = (len(categories) + 1) // 2 * 4.5 * k
    plot = QRectF(
        rect.left() + 14 * k,
        rect.top() + 9 * k,
        rect.width() - 16 * k,
        rect.height() - 9 * k - legend_h - 10 * k,
    )
    top = max(sum(b.values()) for b in page.bars) or 1.0
    painter.setFont(_font(2.5 * k))
    for step in range(5):
        value = top * step / 4
        yy = plot.bottom() - plot.height() * step / 4
        painter.setPen(QColor(GRID))
        painter.drawLine(QLineF(plot.left(), yy, plot.right(), yy))
        painter.setPen(QColor(colors.TEXT_MUTED))
        painter.drawText(
            QRectF(rect.left(), yy - 2 * k, 13 * k, 4 * k),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            _short(value),
        )
    slot = plot.width() / max(len(page.bars), 1)
    for i, bars in enumerate(page.bars):
        x = plot.left() + slot * (i + 0.2)
        base = plot.bottom()
        for n, category in enumerate(categories):
            h = plot.height() * bars.get(category, 0.0) / top
            painter.fillRect(QRectF(x, base - h, slot * 0.6, h), QColor(PALETTE[n % len(PALETTE)]))
            base -= h
        painter.setPen(QColor(colors.TEXT))
        painter.drawText(
            QRectF(plot.left() + slot * i, plot.bottom() + 1 * k, slot, 4 * k),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            page.names[i],
        )
    ly = plot.bottom() + 7 * k
    for n, category in enumerate(categories):
        lx = plot.left() + (n % 2) * plot.width() / 2
        yy = ly + (n // 2) * 4.5 * k
        painter.fillRect(QRectF(lx, yy + 0.6 * k, 3 * k, 3 * k), QColor(PALETTE[n % len(PALETTE)]))
        painter.setPen(QColor(colors.TEXT))
        painter.drawText(
            QRectF(lx + 4 * k, yy, plot.width() / 2 - 5 * k, 4.2 * k),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            COST_LABELS.get(category, category),
        )


def _short(value: float) -> str:
    """1.2M, 350k: axis labels that fit."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def write_compare_pdf(path: Path | str, page: ComparePage) -> None:
    """Write ``page`` as a one-page A4 landscape PDF, atomically (an existing file at
    ``path`` is replaced only when the page is done); OSError when it cannot."""
    target = Path(path)

    def write(tmp: Path) -> None:
        writer = QPdfWriter(str(tmp))
        try:
            writer.setResolution(PDF_DPI)
            writer.setTitle(page.title)
            writer.setCreator("Workbench")
            writer.setPageLayout(
                QPageLayout(
                    QPageSize(QPageSize.PageSizeId.A4),
                    QPageLayout.Orientation.Landscape,
                    QMarginsF(10, 10, 10, 10),
                    QPageLayout.Unit.Millimeter,
                )
            )
            painter = QPainter()
            if not painter.begin(writer):
                raise OSError("the PDF file could not be opened for drawing")
            try:
                paint = writer.pageLayout().paintRectPixels(writer.resolution())
                paint_compare_page(painter, QRectF(0, 0, paint.width(), paint.height()), page)
            finally:
                painter.end()
        finally:
            del writer
        if not tmp.read_bytes()[:5] == b"%PDF-":
            raise OSError("the PDF writer produced no output")

    replace_atomically(target, write)
