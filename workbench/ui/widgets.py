"""Small widget helpers shared by the side panels, so they fit a laptop's narrow docks."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QVBoxLayout, QWidget


def narrow_combo(object_name: str, min_chars: int = 8) -> QComboBox:
    """A combo box that may shrink to ``min_chars`` characters instead of growing to its
    longest entry (which pushed the inspector wider than its dock)."""
    box = QComboBox()
    box.setObjectName(object_name)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(min_chars)
    return box


_SWATCH = {"area": "■", "line": "━", "dashed": "┅", "point": "●"}


def legend_html(entries: list[tuple[str, str, str]]) -> str:
    """The rich text of a legend: ``(colour, text, kind)`` entries as coloured swatches
    (■ areas, ━ lines, ┅ dashed, ● points) with their text, escaped (a scenario's name
    is a file name, so it may hold ``<`` or ``&``)."""
    parts = [
        f'<span style="color:{colour}; font-size:large">{_SWATCH.get(kind, "■")}'
        f"</span>&nbsp;{html.escape(text).replace(' ', '&nbsp;')}"
        for colour, text, kind in entries
    ]
    return " &nbsp;&nbsp; ".join(parts)


def legend_label(entries: list[tuple[str, str, str]]) -> QLabel:
    """A Qt legend under a plot that wraps onto more lines when the plot is narrow, so,
    unlike a legend drawn inside the plot, it never covers data."""
    label = QLabel(legend_html(entries))
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setStyleSheet("QLabel { background: white; color: #222; padding: 2px 8px 6px 8px; }")
    return label


def plot_with_legend(plot: QWidget, legend: QWidget) -> QWidget:
    """``plot`` with ``legend`` underneath, on one white pane (a splitter or dock pane)."""
    pane = QWidget()
    pane.setStyleSheet("background: white;")
    column = QVBoxLayout(pane)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    column.addWidget(plot, 1)
    column.addWidget(legend)
    return pane
