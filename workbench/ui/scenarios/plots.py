"""The comparison plots: capex by category as stacked bars per scenario, and each
training job's cost per run against its days (one point per scenario and job).

pyqtgraph, like the Estimates plots.  Without cost figures (the cost core not
installed, or a design without prices) each plot says so instead of drawing zeros.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from workbench.calc.costs import COST_LABELS
from workbench.planning.scenarios import CompareTable, run_points
from workbench.render.compare_page import PALETTE, SCATTER_TITLE, SCATTER_X, SCATTER_Y
from workbench.ui.widgets import legend_html, legend_label, plot_with_legend


class ComparePlots(QWidget):
    """The two plots side by side."""

    def __init__(self) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.bars = pg.PlotWidget(background="w")
        self.bars.setTitle("Capex by category", color="k")
        self.scatter = pg.PlotWidget(background="w")
        self.scatter.setTitle(SCATTER_TITLE, color="k")
        self.scatter.setLabel("bottom", SCATTER_X)
        self.scatter.setLabel("left", SCATTER_Y)
        # The legends sit under the plots, not inside them: a legend drawn in the plot
        # covered the second scenario's bar once the dock was narrow.
        self.bars_legend = legend_label([])
        self.bars_legend.setObjectName("capexLegend")
        self.scatter_legend = legend_label([])
        self.scatter_legend.setObjectName("runLegend")
        self.scatter.getViewBox().setDefaultPadding(0.2)
        layout.addWidget(plot_with_legend(self.bars, self.bars_legend))
        layout.addWidget(plot_with_legend(self.scatter, self.scatter_legend))
        #: What each plot shows in words (for tests and the status line).
        self.bars_note = ""
        self.scatter_note = ""

    def show_table(self, table: CompareTable | None) -> None:
        """Draw ``table``'s scenarios (None clears)."""
        self.bars.clear()
        self.scatter.clear()
        self.bars_legend.setText("")
        self.scatter_legend.setText("")
        if table is None:
            return
        self._draw_bars(table)
        self._draw_scatter(table)

    def _draw_bars(self, table: CompareTable) -> None:
        scenarios = table.scenarios
        categories: list[str] = []
        for s in scenarios:
            categories.extend(c for c in s.capex_by_category if c not in categories)
        axis = self.bars.getAxis("bottom")
        axis.setTicks([[(i, name) for i, name in enumerate(table.names)]])
        if not categories:
            self.bars_note = "costs not available"
            self.bars.addItem(_note("costs not available"))
            return
        bottoms = [0.0] * len(scenarios)
        key: list[tuple[str, str, str]] = []
        for n, category in enumerate(categories):
            heights = [float(s.capex_by_category.get(category, 0.0)) for s in scenarios]
            bar = pg.BarGraphItem(
                x=list(range(len(scenarios))),
                height=heights,
                y0=bottoms,
                width=0.6,
                brush=PALETTE[n % len(PALETTE)],
            )
            key.append((PALETTE[n % len(PALETTE)], COST_LABELS.get(category, category), "area"))
            self.bars.addItem(bar)
            bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
        self.bars.setXRange(-0.6, len(scenarios) - 0.4, padding=0)
        self.bars_legend.setText(legend_html(key))
        self.bars.setLabel("left", "capex", units=table.scenarios[0].currency or None)
        self.bars_note = f"{len(categories)} categories"

    def _draw_scatter(self, table: CompareTable) -> None:
        points = run_points(table)
        if not points:
            self.scatter_note = "costs not available"
            self.scatter.addItem(_note("costs not available"))
            return
        key: list[tuple[str, str, str]] = []
        for n, name in enumerate(table.names):
            mine = [p for p in points if p.scenario == n]
            if mine:
                key.append((PALETTE[n % len(PALETTE)], name, "point"))
                self.scatter.addItem(
                    pg.ScatterPlotItem(
                        x=[p.days for p in mine],
                        y=[p.cost for p in mine],
                        brush=PALETTE[n % len(PALETTE)],
                        size=12,
                    )
                )
        money = table.scenarios[0].currency or None
        self.scatter.setLabel("left", SCATTER_Y, units=money)
        self.scatter_legend.setText(legend_html(key))
        self.scatter_note = f"{len(points)} runs"


def _note(text: str) -> pg.TextItem:
    item = pg.TextItem(text, color="#666666", anchor=(0.5, 0.5))
    item.setPos(0, 0.5)
    return item
