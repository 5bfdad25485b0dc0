"""The Checks view's tree: findings, or when none are shown a line saying why.

The line ("the design passes all rules", "no finding matches the filters", "checking")
is painted in the tree's own viewport instead of on a page of a stacked widget: an edit
that brings the first finding (a node dropped uncabled) or takes the last away (its
undo) then costs a repaint of the tree, where swapping pages hid and showed widgets and
laid out the dock and the main window again after every such edit (~3 ms of a drop at
16,384 GPUs).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QTreeView, QWidget

from workbench.render import colors

#: The placeholder's size (the size the empty page's label had).
PLACEHOLDER_PX = 13


class FindingsTree(QTreeView):
    """A tree view that paints :attr:`placeholder` centred when it has no rows."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._placeholder = ""

    @property
    def placeholder(self) -> str:
        """The line shown while the model has no rows (what a person reads then)."""
        return self._placeholder

    def set_placeholder(self, text: str) -> None:
        """Say ``text`` while the tree is empty; repaints only when the text differs."""
        if text != self._placeholder:
            self._placeholder = text
            self.viewport().update()

    def showing_placeholder(self) -> bool:
        """Whether the placeholder is what the tree shows now (no rows, some text)."""
        model = self.model()
        return bool(self._placeholder) and (model is None or model.rowCount() == 0)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if not self.showing_placeholder():
            return
        painter = QPainter(self.viewport())
        font = painter.font()
        font.setPixelSize(PLACEHOLDER_PX)
        painter.setFont(font)
        painter.setPen(QColor(colors.TEXT_MUTED))
        area = self.viewport().rect().adjusted(12, 8, -12, -8)
        flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
        painter.drawText(area, int(flags), self._placeholder)
        painter.end()


__all__ = ["FindingsTree"]
