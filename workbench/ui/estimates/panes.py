"""The Estimates view's panes: a splitter that stacks its sides when the window is
narrow, and a scroll area that keeps a pane's natural width.

Why apart from the view: they are plain layout behaviour, the same for every pane,
and keeping them here leaves :mod:`workbench.ui.estimates.view` about the workloads.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QSplitter, QVBoxLayout, QWidget


class AdaptiveSplitter(QSplitter):
    """Side by side when there is room, stacked when the window is narrow, so neither
    plot (nor the form and the results) is squeezed to a sliver in a laptop-sized main
    window.  ``shares`` split the width side by side (the height splits evenly)."""

    def __init__(
        self,
        min_side_by_side: int | None,
        parent: QWidget | None = None,
        shares: tuple[int, int] = (2, 3),
    ):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.min_side_by_side = min_side_by_side
        self.shares = shares
        self.setChildrenCollapsible(False)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """The stacked minimum: side by side is only chosen where there is room, so a
        narrow window may always stack the panes (a horizontal minimum would keep the
        view too wide to ever stack them)."""
        widgets = [self.widget(i) for i in range(self.count())]
        hints = [w.minimumSizeHint() for w in widgets if w is not None]
        if not hints:
            return super().minimumSizeHint()
        handles = self.handleWidth() * (len(hints) - 1)
        return QSize(max(h.width() for h in hints), sum(h.height() for h in hints) + handles)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.min_side_by_side is None:  # its owner decides (EstimatesView.resizeEvent)
            super().resizeEvent(event)
            return
        wanted = (
            Qt.Orientation.Horizontal
            if event.size().width() >= self.min_side_by_side
            else Qt.Orientation.Vertical
        )
        if wanted != self.orientation():
            self.setOrientation(wanted)
            extent = (
                event.size().width()
                if wanted == Qt.Orientation.Horizontal
                else event.size().height()
            )
            first, second = self.shares
            self.setSizes(
                [extent * first // (first + second), extent * second // (first + second)]
                if wanted == Qt.Orientation.Horizontal
                else [extent // 2, extent // 2]
            )
        super().resizeEvent(event)


def scrolled(*widgets: QWidget, minimum_width: int) -> QScrollArea:
    """``widgets`` stacked top-down in a frameless vertical scroll area."""
    column = QWidget()
    column_layout = QVBoxLayout(column)
    column_layout.setContentsMargins(6, 6, 6, 6)
    for widget in widgets:
        column_layout.addWidget(widget)
    column_layout.addStretch(1)
    scroll = QScrollArea()
    scroll.setWidget(column)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    scroll.setMinimumWidth(minimum_width)
    return scroll
