"""The one-page scenario comparison for a budget meeting, painted with QPainter.

Like the rack elevations (:mod:`workbench.render.print_layout`), the page is painted
onto whatever device the caller holds: a PDF writer here, an SVG generator or a widget
the same way.  It takes plain figures (:class:`ComparePage`) rather than the planning
layer's table, since render and planning sit on the same layer: the caller builds the
page with :func:`workbench.planning.scenarios.text.compare_page_fields`.

Layout on A4 landscape: a title line, the table on the left (one column per scenario,
the best cell green and the worst red, as in the window), on the right capex by
category as stacked bars per scenario and, under it, each training job's cost per run
against its days (one colour per scenario, one marker per job, as the window's plot
colours them), each with its legend, and the notes (unpriced lines) at the foot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QLineF, QMarginsF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
    QPolygonF,
)

from workbench.calc.costs import COST_LABELS
from workbench.render import colors
from workbench.store.atomic import replace_atomically

PDF_DPI = 300
BEST = "#d7f0d2"
WORST = "#f6d5d2"
GRID = "#cfd8dc"
#: One colour per capex category (in order of first appearance) and per scenario: the
#: window's plots take theirs from here.
PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3")
#: The scatter's title and axis titles, on the page and in the window's plot.
SCATTER_TITLE = "Cost per run against days"
SCATTER_X = "Training days"
SCATTER_Y = "Cost per run"
#: The marker of each training job on the scatter, in order of first appearance.
MARKERS = ("circle", "square", "triangle", "diamond")


@dataclass(frozen=True)
class CompareRowText:
    """One row as printed: label (with unit), cell texts, the best and worst columns
    (every column of a tie; none where no value is better)."""

    label: str
    cells: tuple[str, ...]
    best: tuple[int, ...] = ()
    worst: tuple[int, ...] = ()
    differs: bool = False


@dataclass(frozen=True)
class CompareRun:
    """One training run on the scatter: its scenario (column), job, days and cost."""

    scenario: int
    job: str
    days: float
    cost: float


@dataclass(frozen=True)
class ComparePage:
    """Everything the page shows."""

    title: str
    names: tuple[str, ...]
    rows: tuple[CompareRowText, ...]
    #: Per scenario, capex by category (empty: no costs to draw).
    bars: tuple[dict[str, float], ...] = ()
    #: The training runs with days and a cost (empty: no scatter to draw).
    runs: tuple[CompareRun, ...] = ()
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
    notes = [
        "Green: best, red: worst where a lower or higher value is better; bold: the "
        "scenarios differ.",
        *page.notes,
    ]
    bottom = rect.bottom() - len(notes) * 4.2 * k - 3 * k
    table_w = rect.width() * 0.58
    _paint_table(painter, QRectF(x0, y, table_w, bottom - y), page, k)
    right = QRectF(x0 + table_w + 8 * k, y, rect.width() - table_w - 8 * k, bottom - y)
    gap = 6 * k
    bars_h = (right.height() - gap) * 0.5
    _paint_bars(painter, QRectF(right.left(), right.top(), right.width(), bars_h), page, k)
    below = right.top() + bars_h + gap
    _paint_scatter(
        painter, QRectF(right.left(), below, right.width(), right.bottom() - below), page, k
    )
    painter.setFont(_font(2.6 * k))
    painter.setPen(QColor(colors.TEXT_MUTED))
    ny = bottom + 3 * k
    for note in notes:
        painter.drawText(QRectF(x0, ny, rect.width(), 4 * k), Qt.AlignmentFlag.AlignLeft, note)
        ny += 4.2 * k


def _paint_table(painter: QPainter, rect: QRectF, page: ComparePage, k: float) -> float:
    """The table; returns its bottom edge."""
    n = len(page.names)
    label_w = rect.width() * 0.44
    col_w = (rect.width() - label_w) / max(n, 1)
    pad = 1.5 * k
    painter.setFont(_font(3.0 * k, bold=True))
    # A name wider than its column wraps onto a second header line rather than being cut
    # (scenario labels are file names: "dgx-b200-rear-door-two-tier" has no spaces).
    widest = max((painter.fontMetrics().horizontalAdvance(name) for name in page.names), default=0)
    lines = min(4, math.ceil(widest / max(col_w - pad, 1.0)))
    head_h = max(8.0 * k, lines * 4.0 * k + 2.0 * k)
    row_h = min(8.0 * k, (rect.height() - head_h) / max(len(page.rows), 1))
    y = rect.top()
    for i, name in enumerate(page.names):
        cell = QRectF(rect.left() + label_w + i * col_w, y, col_w - pad, head_h)
        painter.drawText(
            cell,
            Qt.AlignmentFlag.AlignRight
            | Qt.AlignmentFlag.AlignVCenter
            | Qt.TextFlag.TextWrapAnywhere,
            name,
        )
    y += head_h
    painter.setPen(QColor(colors.FRAME))
    painter.drawLine(QLineF(rect.left(), y, rect.right(), y))
    for row in page.rows:
        painter.setPen(QColor(GRID))
        painter.drawLine(QLineF(rect.left(), y + row_h, rect.right(), y + row_h))
        for i, text in enumerate(row.cells):
            cell = QRectF(rect.left() + label_w + i * col_w, y, col_w, row_h)
            shade = BEST if i in row.best else WORST if i in row.worst else None
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


def _paint_title(painter: QPainter, rect: QRectF, title: str, k: float) -> None:
    """A chart's title along the top of its ``rect``."""
    painter.setPen(QColor(colors.TEXT))
    painter.setFont(_font(3.2 * k, bold=True))
    painter.drawText(
        QRectF(rect.left(), rect.top(), rect.width(), 6 * k), Qt.AlignmentFlag.AlignLeft, title
    )


def _paint_value_axis(
    painter: QPainter, plot: QRectF, left: float, ticks: list[float], k: float
) -> None:
    """Grid lines and labels of a value axis from 0 to ``ticks[-1]`` up the ``plot``'s
    height, the labels right-aligned between ``left`` and the plot."""
    painter.setFont(_font(2.5 * k))
    for value in ticks:
        yy = plot.bottom() - plot.height() * value / ticks[-1]
        painter.setPen(QColor(GRID))
        painter.drawLine(QLineF(plot.left(), yy, plot.right(), yy))
        painter.setPen(QColor(colors.TEXT_MUTED))
        painter.drawText(
            QRectF(left, yy - 2 * k, plot.left() - left - 1 * k, 4 * k),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            _short(value),
        )


def nice_ticks(value: float, most: int = 5) -> list[float]:
    """Ticks from 0 to at or above ``value`` in a round step (1, 2, 2.5 or 5 × 10ⁿ),
    at most ``most`` steps, so every label reads as a round number (not 62.5 or 188)."""
    if not value > 0:
        return [0.0, 1.0]
    power = 10 ** math.floor(math.log10(value / most))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if math.ceil(value / (m * power)) <= most)
    return [step * i for i in range(math.ceil(value / step - 1e-9) + 1)]


def _paint_bars(painter: QPainter, rect: QRectF, page: ComparePage, k: float) -> None:
    """Capex by category, one stacked bar per scenario, with a legend under it."""
    title = f"Capex by category ({page.money})" if page.money else "Capex by category"
    _paint_title(painter, rect, title, k)
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
    ticks = nice_ticks(max(sum(b.values()) for b in page.bars))
    _paint_value_axis(painter, plot, rect.left(), ticks, k)
    top = ticks[-1]
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
            painter.fontMetrics().elidedText(
                page.names[i], Qt.TextElideMode.ElideMiddle, int(slot - 1 * k)
            ),
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


def _paint_scatter(painter: QPainter, rect: QRectF, page: ComparePage, k: float) -> None:
    """Each training run's cost against its days: one colour per scenario, one marker
    per job, axes from 0 with their units, and a legend of both under the plot."""
    _paint_title(painter, rect, SCATTER_TITLE, k)
    if not page.runs:
        painter.setFont(_font(3.0 * k))
        painter.setPen(QColor(colors.TEXT))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "costs not available")
        return
    jobs = list(dict.fromkeys(run.job for run in page.runs))
    scenarios = sorted({run.scenario for run in page.runs})
    # Scenarios, then jobs from a row of their own, two to a row.
    legend_rows = (len(scenarios) + 1) // 2 + (len(jobs) + 1) // 2
    legend_h = legend_rows * 4.5 * k
    plot = QRectF(
        rect.left() + 14 * k,
        rect.top() + 13 * k,
        rect.width() - 16 * k,
        rect.height() - 13 * k - legend_h - 14 * k,
    )
    _axis_title(
        painter,
        QRectF(rect.left(), rect.top() + 7 * k, rect.width(), 4 * k),
        f"{SCATTER_Y} ({page.money})" if page.money else SCATTER_Y,
        Qt.AlignmentFlag.AlignLeft,
        k,
    )
    y_ticks = nice_ticks(max(run.cost for run in page.runs))
    _paint_value_axis(painter, plot, rect.left(), y_ticks, k)
    top = y_ticks[-1]
    x_ticks = nice_ticks(max(run.days for run in page.runs))
    right = x_ticks[-1]
    painter.setFont(_font(2.5 * k))
    for value in x_ticks:
        xx = plot.left() + plot.width() * value / right
        painter.setPen(QColor(GRID))
        painter.drawLine(QLineF(xx, plot.top(), xx, plot.bottom()))
        painter.setPen(QColor(colors.TEXT_MUTED))
        painter.drawText(
            QRectF(xx - 8 * k, plot.bottom() + 1 * k, 16 * k, 4 * k),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            _short(value),
        )
    _axis_title(
        painter,
        QRectF(plot.left(), plot.bottom() + 5 * k, plot.width(), 4 * k),
        SCATTER_X,
        Qt.AlignmentFlag.AlignHCenter,
        k,
    )
    radius = 1.5 * k
    for run in page.runs:
        centre = QPointF(
            plot.left() + plot.width() * run.days / right,
            plot.bottom() - plot.height() * run.cost / top,
        )
        marker = MARKERS[jobs.index(run.job) % len(MARKERS)]
        _paint_marker(painter, centre, radius, marker, PALETTE[run.scenario % len(PALETTE)], k)
    ly = plot.bottom() + 11 * k
    # Scenarios as colour swatches, jobs as grey markers: colour says which scenario,
    # shape which job.
    legend: list[tuple[str, str, str] | None] = [
        (page.names[n], "swatch", PALETTE[n % len(PALETTE)]) for n in scenarios
    ]
    if len(legend) % 2:
        legend.append(None)
    legend += [(job, MARKERS[i % len(MARKERS)], colors.TEXT_MUTED) for i, job in enumerate(jobs)]
    painter.setFont(_font(2.5 * k))
    for n, entry in enumerate(legend):
        if entry is None:
            continue
        text, marker, colour = entry
        lx = plot.left() + (n % 2) * plot.width() / 2
        yy = ly + (n // 2) * 4.5 * k
        if marker == "swatch":  # as the bars' legend draws a category
            painter.fillRect(QRectF(lx, yy + 0.6 * k, 3 * k, 3 * k), QColor(colour))
        else:
            _paint_marker(painter, QPointF(lx + 1.5 * k, yy + 2.1 * k), radius, marker, colour, k)
        painter.setPen(QColor(colors.TEXT))
        width = plot.width() / 2 - 5 * k
        painter.drawText(
            QRectF(lx + 4 * k, yy, width, 4.2 * k),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            painter.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, int(width)),
        )


def _axis_title(
    painter: QPainter, box: QRectF, text: str, align: Qt.AlignmentFlag, k: float
) -> None:
    """An axis title (with its unit) in ``box``, centred vertically."""
    painter.setFont(_font(2.6 * k))
    painter.setPen(QColor(colors.TEXT))
    painter.drawText(box, align | Qt.AlignmentFlag.AlignVCenter, text)


def _paint_marker(
    painter: QPainter, centre: QPointF, r: float, marker: str, colour: str, k: float
) -> None:
    """A marker of ``marker``'s shape: see-through fill inside a solid edge, so two runs
    that nearly coincide (the same days, costs a few per cent apart) both show."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor(colour).darker(130), 0.35 * k))
    fill = QColor(colour)
    fill.setAlpha(150)
    painter.setBrush(fill)
    x, y = centre.x(), centre.y()
    if marker == "square":
        painter.drawRect(QRectF(x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8))
    elif marker == "triangle":
        painter.drawPolygon(
            QPolygonF(
                [QPointF(x, y - r * 1.1), QPointF(x + r, y + r * 0.8), QPointF(x - r, y + r * 0.8)]
            )
        )
    elif marker == "diamond":
        painter.drawPolygon(
            QPolygonF(
                [
                    QPointF(x, y - r * 1.2),
                    QPointF(x + r * 1.2, y),
                    QPointF(x, y + r * 1.2),
                    QPointF(x - r * 1.2, y),
                ]
            )
        )
    else:
        painter.drawEllipse(centre, r, r)
    painter.restore()


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
