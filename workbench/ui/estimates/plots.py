"""The pyqtgraph plots of the Estimates view: days against GPUs, the step time, memory
per GPU and power per rack.

Each plot owns a fixed set of items created once and only fed new arrays on update
(``setData`` / ``setOpts``), so a live edit costs a few numpy operations, not item churn.
The rack-power plot draws every rack with one BarGraphItem and every limit with one
stepped PlotDataItem: 3,000 racks are three items, not 6,000.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PySide6.QtCore import Qt, Signal  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402
from PySide6.QtWidgets import QGraphicsItem, QLabel, QWidget  # noqa: E402

from workbench.rules.budgets import over_budget  # noqa: E402
from workbench.ui.widgets import legend_label, plot_with_legend

#: Colours of the stacked memory segments (colour-blind friendly Okabe-Ito order).
MEMORY_PARTS: tuple[tuple[str, str, str], ...] = (
    ("weights", "Weights", "#0072B2"),
    ("gradients", "Gradients", "#E69F00"),
    ("optimizer", "Optimizer state", "#009E73"),
    ("activations", "Activations", "#CC79A7"),
    ("kv_cache", "KV cache", "#56B4E9"),
)
_MFU_PENS = {0.3: "#d55e00", 0.4: "#0072B2", 0.5: "#009E73"}
#: The predicted curve: the design's own answer, drawn over the MFU band.
PREDICTED_PEN = "#222222"
#: Colours of the step-time terms (estimate.STEP_TERMS order; Okabe-Ito, the bubble in
#: grey because it is idle time).
STEP_COLOURS: dict[str, str] = {
    "compute": "#0072B2",
    "tp_comm": "#E69F00",
    "cp_comm": "#F0E442",
    "pipeline_bubble": "#9E9E9E",
    "p2p": "#CC79A7",
    "dp_exposed": "#D55E00",
}


def _style(plot: pg.PlotWidget, title: str, left: str, bottom: str) -> None:
    plot.setBackground("w")
    item = plot.getPlotItem()
    item.setTitle(title, color="#222", size="11pt")
    item.setLabel("left", left, color="#333")
    item.setLabel("bottom", bottom, color="#333")
    item.showGrid(x=True, y=True, alpha=0.25)
    for axis in ("left", "bottom"):
        item.getAxis(axis).setTextPen("#333")
        item.getAxis(axis).setPen("#777")
        # Axes (with the grid they draw) are kept as pixmaps: replaying their ticks and
        # labels on every repaint cost ~5 ms each, so a typed MFU took ~30 ms to show
        # instead of ~8.  The cache is redrawn whenever the axis changes.
        item.getAxis(axis).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    plot.setMinimumSize(180, 150)


def _legend(plot: pg.PlotWidget) -> pg.LegendItem:
    """A legend on a translucent white card, so lines behind it do not cross its text."""
    # Bottom left: days fall with more GPUs, so that corner of the plot stays empty,
    # while the top right would cover the design's point and its label.
    return plot.addLegend(
        offset=(10, -10),
        labelTextColor="#222",
        brush=pg.mkBrush(255, 255, 255, 215),
        pen=pg.mkPen("#ccc"),
    )


def with_legend(plot: pg.PlotWidget) -> QWidget:
    """The plot with its ``legend_label`` underneath, as one splitter pane."""
    return plot_with_legend(plot, plot.legend_label)


def _centre(plot: pg.PlotWidget, text: pg.TextItem) -> None:
    """Put a message in the middle of what the plot currently shows."""
    (x0, x1), (y0, y1) = plot.viewRange()
    text.setPos((x0 + x1) / 2, (y0 + y1) / 2)


def _message(plot: pg.PlotWidget) -> pg.TextItem:
    text = pg.TextItem("", color="#888", anchor=(0.5, 0.5))
    text.setZValue(10)
    plot.addItem(text, ignoreBounds=True)
    return text


class DaysPlot(pg.PlotWidget):
    """Training days against GPU count (log-log): the step-time model's prediction for
    the job's layout, the band of MFU 30/40/50 %, and the design's point."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        _style(self, "Training time vs GPU count", "Training time (days)", "GPUs")
        self.setLogMode(x=True, y=True)
        self.legend = _legend(self)
        # Gaps (NaN) where a GPU count cannot hold the layout are left undrawn.
        self.predicted = self.plot(
            [],
            [],
            pen=pg.mkPen(PREDICTED_PEN, width=2.5),
            name="Predicted (this layout)",
            connect="finite",
        )
        self.predicted.setZValue(3)
        self.curves: dict[float, pg.PlotDataItem] = {}
        for mfu, colour in _MFU_PENS.items():
            width = 1.8 if mfu == 0.4 else 1.2
            style = Qt.PenStyle.SolidLine if mfu == 0.4 else Qt.PenStyle.DashLine
            curve = self.plot(
                [], [], pen=pg.mkPen(colour, width=width, style=style), name=f"MFU {mfu:.0%}"
            )
            self.curves[mfu] = curve
        band_colour = QColor("#0072B2")
        band_colour.setAlpha(35)
        self.band = pg.FillBetweenItem(self.curves[0.3], self.curves[0.5], brush=band_colour)
        self.addItem(self.band)
        # A PlotDataItem (not a bare ScatterPlotItem) so the plot's log mode applies to it.
        self.point = pg.PlotDataItem(
            [],
            [],
            pen=None,
            symbol="o",
            symbolSize=13,
            symbolBrush=pg.mkBrush("#c62828"),
            symbolPen=pg.mkPen("w", width=1.5),
        )
        self.point.setZValue(5)
        self.addItem(self.point)
        self.legend.addItem(self.point, "This design")
        self.point_label = pg.TextItem("", color="#c62828", anchor=(0, 1))
        self.addItem(self.point_label, ignoreBounds=True)
        self.message = _message(self)

    def set_curves(
        self,
        gpus: np.ndarray | None,
        days: dict[float, np.ndarray],
        point: tuple[float, float] | None,
        note: str = "",
        predicted: np.ndarray | None = None,
    ) -> None:
        """Feed the curves (GPU counts, days per MFU, the predicted days) and the
        design's own point."""
        if gpus is None or not days:
            for curve in self.curves.values():
                curve.setData([], [])
            self.predicted.setData([], [])
            self.band.setVisible(False)
            self.point.setData([], [])
            self.point_label.setText("")
            self.message.setText(note or "No curve for these inputs")
            _centre(self, self.message)
            return
        self.message.setText("")
        if predicted is None:
            self.predicted.setData([], [])
        else:
            self.predicted.setData(
                np.asarray(gpus, dtype=float), np.asarray(predicted, dtype=float)
            )
        self.band.setVisible(0.3 in days and 0.5 in days)
        for mfu, curve in self.curves.items():
            values = days.get(mfu)
            if values is None:
                curve.setData([], [])
            else:
                curve.setData(np.asarray(gpus, dtype=float), np.asarray(values, dtype=float))
        if point is not None and point[0] > 0 and point[1] > 0:
            self.point.setData([point[0]], [point[1]])
            self.point_label.setText(f"  {point[0]:,.0f} GPUs: {point[1]:,.1f} days")
            self.point_label.setPos(np.log10(point[0]), np.log10(point[1]))
        else:
            self.point.setData([], [])
            self.point_label.setText("")
        self.enableAutoRange()


class MemoryPlot(pg.PlotWidget):
    """Per-GPU memory as one stacked bar (weights, gradients, optimizer, activations, KV)
    against the GPU's HBM (and the usable HBM after headroom)."""

    X_RANGE = (-0.55, 0.75)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        _style(self, "Memory per GPU", "GB (1e9 bytes)", "")
        self.getPlotItem().getAxis("bottom").setTicks([[(0, "per GPU")]])
        self.setMouseEnabled(x=False, y=False)
        self.legend_label = legend_label(
            [(colour, label, "area") for _key, label, colour in MEMORY_PARTS]
            + [("#c62828", "HBM", "line"), ("#c62828", "usable after headroom", "dashed")]
        )
        self.bars: dict[str, pg.BarGraphItem] = {}
        for key, _label, colour in MEMORY_PARTS:
            bar = pg.BarGraphItem(
                x=[0], height=[0], y0=[0], width=0.6, brush=colour, pen=pg.mkPen("w", width=1)
            )
            self.addItem(bar)
            self.bars[key] = bar
        self.hbm_line = pg.InfiniteLine(
            angle=0,
            movable=False,
            pen=pg.mkPen("#c62828", width=2),
            label="HBM {value:.1f} GB",
            labelOpts={"position": 0.02, "color": "#c62828", "anchors": [(0, 1), (0, 1)]},
        )
        self.usable_line = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen("#c62828", width=1, style=Qt.PenStyle.DashLine)
        )
        self.addItem(self.hbm_line)
        self.addItem(self.usable_line)
        self.usable_label = pg.TextItem("usable", color="#c62828", anchor=(1, 0))
        self.addItem(self.usable_label, ignoreBounds=True)
        self.message = _message(self)
        self.setXRange(*self.X_RANGE, padding=0)

    def set_breakdown(
        self,
        parts_gb: dict[str, float | None],
        hbm_gb: float | None,
        usable_gb: float | None = None,
        note: str = "",
    ) -> None:
        """Stack the known parts (None/0 parts are drawn empty) and place the HBM lines."""
        base = 0.0
        for key, _label, _colour in MEMORY_PARTS:
            value = parts_gb.get(key) or 0.0
            self.bars[key].setOpts(x=[0], height=[value], y0=[base], width=0.6)
            base += value
        for line, level in ((self.hbm_line, hbm_gb), (self.usable_line, usable_gb)):
            line.setVisible(level is not None)
            if level is not None:
                line.setValue(level)
        self.usable_label.setVisible(usable_gb is not None)
        if usable_gb is not None:
            self.usable_label.setPos(self.X_RANGE[1] - 0.02, usable_gb)
        self.message.setText(note if base == 0 else "")
        top = max(base, hbm_gb or 0.0) * 1.25 or 1.0
        self.setYRange(0, top, padding=0)
        self.setXRange(*self.X_RANGE, padding=0)
        self.message.setPos(0.1, top / 2)

    def stacked_total(self) -> float:
        """The bar's top in GB (sum of the segments), for tests."""
        return float(sum(float(bar.opts["height"][0]) for bar in self.bars.values()))


class RackPowerPlot(pg.PlotWidget):
    """Power per rack (typical and maximum) against each rack's limit."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        _style(self, "Power per rack", "kW", "Rack")
        self.legend_label = legend_label(
            [
                ("#b0bec5", "Maximum draw", "area"),
                ("#0072B2", "Typical draw", "area"),
                ("#c62828", "Over the rack limit", "area"),
                ("#c62828", "Rack limit", "line"),
            ]
        )
        self.max_bars = pg.BarGraphItem(
            x=[], height=[], width=0.8, brush=pg.mkBrush(120, 144, 156, 110), pen=None
        )
        self.typical_bars = pg.BarGraphItem(
            x=[], height=[], width=0.8, brush=pg.mkBrush("#0072B2"), pen=None
        )
        self.over_bars = pg.BarGraphItem(
            x=[], height=[], width=0.8, brush=pg.mkBrush("#c62828"), pen=None
        )
        self.limit = pg.PlotDataItem([], [], pen=pg.mkPen("#c62828", width=2), stepMode="center")
        self.addItem(self.max_bars)
        self.addItem(self.typical_bars)
        self.addItem(self.over_bars)
        self.addItem(self.limit)
        self.message = _message(self)
        self.rack_names: list[str] = []

    def set_loads(
        self, names: list[str], typical_kw: np.ndarray, max_kw: np.ndarray, limit_kw: np.ndarray
    ) -> None:
        """One bar per rack (maximum behind typical); racks whose maximum exceeds their
        limit are drawn red."""
        n = len(names)
        self.rack_names = list(names)
        x = np.arange(n, dtype=float)
        # Single-colour items take pyqtgraph's one-call drawRects path: racks over their
        # limit go to a second (red) item instead of per-bar brushes.
        over = over_budget(max_kw, limit_kw)  # the rules' verdict, for every rack at once
        self.max_bars.setOpts(x=x, height=max_kw, width=0.8)
        self.typical_bars.setOpts(x=x[~over], height=typical_kw[~over], width=0.8)
        self.over_bars.setOpts(x=x[over], height=typical_kw[over], width=0.8)
        if n:
            self.limit.setData(np.arange(n + 1, dtype=float) - 0.5, limit_kw, stepMode="center")
        else:
            self.limit.setData([], [])
        axis = self.getPlotItem().getAxis("bottom")
        if 0 < n <= 24:
            axis.setTicks([[(i, name) for i, name in enumerate(names)]])
        else:
            axis.setTicks(None)
        self.message.setText("" if n else "No racks in the design")
        self.enableAutoRange()
        _centre(self, self.message)


class StepPlot(pg.PlotWidget):
    """One training step as a horizontal stacked bar of the step-time model's terms.

    The legend underneath names each term with its seconds; a term's name is a link
    that asks for its explanation (``termClicked``), so the bar needs no hit-testing.
    """

    termClicked = Signal(str)

    def __init__(self, terms: tuple[tuple[str, str], ...], parent: QWidget | None = None):
        super().__init__(parent)
        _style(self, "Step time", "", "seconds")
        self.terms = terms
        item = self.getPlotItem()
        item.hideAxis("left")
        item.showGrid(x=True, y=False, alpha=0.25)
        item.setTitle("Step time", color="#222", size="10pt")
        self.setMouseEnabled(x=False, y=False)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.setMinimumSize(180, 70)
        self.bars: dict[str, pg.BarGraphItem] = {}
        for key, _label in terms:
            bar = pg.BarGraphItem(
                x0=[0.0],
                width=[0.0],
                y=[0.0],
                height=0.7,
                brush=STEP_COLOURS.get(key, "#607d8b"),
                pen=pg.mkPen("w", width=1),
            )
            self.addItem(bar)
            self.bars[key] = bar
        self.message = _message(self)
        self.seconds: dict[str, float] = {}
        self.legend_label = QLabel()
        self.legend_label.setObjectName("stepLegend")
        self.legend_label.setWordWrap(True)
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        self.legend_label.setStyleSheet(
            "QLabel { background: white; color: #222; padding: 0 8px 4px 8px; }"
        )
        self.legend_label.linkActivated.connect(self.termClicked)
        self.legend_label.setToolTip("Click a term for its formula, numbers and source")
        self.set_step({}, "", "Add a training job to see its step")

    def set_step(self, seconds: dict[str, float], title: str, note: str = "") -> None:
        """Stack ``seconds`` per term left to right (missing terms are empty)."""
        self.seconds = {key: float(seconds.get(key, 0.0)) for key, _label in self.terms}
        base = 0.0
        for key, _label in self.terms:
            width = self.seconds[key]
            self.bars[key].setOpts(x0=[base], width=[width], y=[0.0], height=0.7)
            base += width
        total = base
        self.getPlotItem().setTitle(title or "Step time", color="#222", size="10pt")
        self.message.setText("" if total > 0 else note)
        self.setXRange(0, total * 1.02 if total > 0 else 1.0, padding=0)
        self.setYRange(-0.6, 0.6, padding=0)
        self.message.setPos((total * 1.02 if total > 0 else 1.0) / 2, 0)
        self.legend_label.setText(self._legend_html() if total > 0 else "")
        self.legend_label.setVisible(total > 0)

    def _legend_html(self) -> str:
        parts = []
        for key, label in self.terms:
            colour = STEP_COLOURS.get(key, "#607d8b")
            seconds = self.seconds.get(key, 0.0)
            parts.append(
                f'<span style="color:{colour}; font-size:large">■</span>&nbsp;'
                f'<a href="{key}" style="color:#1565c0; text-decoration:none">'
                f"{label.replace(' ', '&nbsp;')}</a>&nbsp;{_seconds(seconds)}"
            )
        return " &nbsp;&nbsp; ".join(parts)

    def total(self) -> float:
        """The bar's right end in seconds (the sum of the segments), for tests."""
        return float(sum(float(bar.opts["width"][0]) for bar in self.bars.values()))


def _seconds(value: float) -> str:
    """3.15 s, 0.0134 s, 850 ms: three significant figures, never '0.00 s'."""
    if value >= 1:
        return f"{value:,.3g}&nbsp;s" if value < 1000 else f"{value:,.0f}&nbsp;s"
    if value >= 1e-3:
        return f"{value * 1e3:.3g}&nbsp;ms"
    if value > 0:
        return f"{value * 1e6:.3g}&nbsp;µs"
    return "0&nbsp;s"
