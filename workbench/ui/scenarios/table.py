"""The comparison table as a Qt table: best cells green, worst red, differing rows bold.

The marks come from :class:`~workbench.planning.scenarios.CompareTable` (which column is
best or worst per row); the text of each cell from :mod:`workbench.planning.scenarios.text`
so the window, ``workbench compare`` and the PDF print the same figures.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from workbench.planning.scenarios import CompareTable
from workbench.planning.scenarios.text import cell

BEST = QColor("#d7f0d2")
WORST = QColor("#f6d5d2")
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class CompareTableWidget(QTableWidget):
    """Rows are figures, columns are scenarios."""

    def __init__(self) -> None:
        super().__init__(0, 0)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setAlternatingRowColors(False)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)

    def show_table(self, table: CompareTable | None) -> None:
        """Fill the widget from ``table`` (None empties it)."""
        self.clear()
        if table is None:
            self.setRowCount(0)
            self.setColumnCount(0)
            return
        self.setColumnCount(len(table.names))
        self.setRowCount(len(table.rows))
        self.setHorizontalHeaderLabels(list(table.names))
        self.setVerticalHeaderLabels(
            [f"{r.label} ({r.unit})" if r.unit else r.label for r in table.rows]
        )
        bold = QFont(self.font())
        bold.setBold(True)
        for y, row in enumerate(table.rows):
            for x in range(len(table.names)):
                item = QTableWidgetItem(cell(row, x))
                item.setTextAlignment(RIGHT)
                if x in row.best:
                    item.setBackground(QBrush(BEST))
                    item.setToolTip("best")
                elif x in row.worst:
                    item.setBackground(QBrush(WORST))
                    item.setToolTip("worst")
                if row.differs:
                    item.setFont(bold)
                self.setItem(y, x, item)
