"""What the rack elevations and the floor plan share as graphics views: zoom within
limits (Ctrl+wheel), and panning by dragging with the middle button."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QGraphicsView


class ZoomPanView(QGraphicsView):
    """A graphics view with clamped zoom and hand panning; subclasses set the limits."""

    zoomChanged = Signal(float)
    #: The zoom range (view pixels per scene unit).
    MIN_ZOOM = 0.01
    MAX_ZOOM = 8.0

    def __init__(self, parent=None):
        super().__init__(parent)
        self._pan_from: QPoint | None = None

    def zoom(self) -> float:
        """Current scale factor (view pixels per scene unit)."""
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        """Multiply the zoom, clamped to the view's limits."""
        target = min(max(self.zoom() * factor, self.MIN_ZOOM), self.MAX_ZOOM)
        factor = target / self.zoom()
        if abs(factor - 1.0) > 1e-6:
            self.scale(factor, factor)
            self.zoomChanged.emit(self.zoom())

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt's name
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_by(1.0015 ** event.angleDelta().y())
            event.accept()
            return
        super().wheelEvent(event)

    # -- panning (callers route their mouse events here) ------------------------------------
    @property
    def panning(self) -> bool:
        return self._pan_from is not None

    def start_pan(self, pos: QPoint) -> None:
        self._pan_from = pos
        self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)

    def pan_to(self, pos: QPoint) -> None:
        """Scroll by how far the pointer moved since the last call."""
        if self._pan_from is None:
            return
        delta = pos - self._pan_from
        self._pan_from = pos
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())

    def end_pan(self) -> None:
        self._pan_from = None
        self.viewport().unsetCursor()
