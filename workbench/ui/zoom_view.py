"""What the rack elevations, the floor plan and the fabric drawing share as graphics
views: zoom within limits (Ctrl+wheel around the pointer, the − and + buttons and the
View menu around the view's centre), hand panning with the middle button (or the
left one on the background, where a view says so), and the floating zoom toolbar.

The toolbar sits in a band the view keeps clear above its drawing
(:meth:`ZoomPanView.reserve_top`), so it never covers a rack's name or a row title,
however the drawing is scrolled.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QFrame, QGraphicsView, QHBoxLayout, QToolButton, QWidget

#: How the floating boxes (toolbar, legends, hints) look in every view.
OVERLAY_STYLE = (
    "#{name} {{ background: rgba(255,255,255,235); border: 1px solid #cfd8dc;"
    " border-radius: 4px; }} QLabel {{ background: transparent; color: #37474f; }}"
    " QToolButton {{ border: none; padding: 3px 8px; }}"
    " QToolButton:hover {{ background: #e3e8eb; border-radius: 3px; }}"
    " QToolButton:checked {{ background: #cfd8dc; border-radius: 3px; }}"
)

#: One click of − or + (and View ▸ Zoom In/Out) changes the zoom by this factor.
ZOOM_STEP = 1.25


class ZoomPanView(QGraphicsView):
    """A graphics view with clamped zoom and hand panning; subclasses set the limits."""

    zoomChanged = Signal(float)
    #: The zoom range (view pixels per scene unit).
    MIN_ZOOM = 0.01
    MAX_ZOOM = 8.0

    def __init__(self, parent=None):
        super().__init__(parent)
        self._pan_from: QPoint | None = None
        self._top_band = 0

    def zoom(self) -> float:
        """Current scale factor (view pixels per scene unit)."""
        return self.transform().m11()

    def zoom_by(self, factor: float, around_centre: bool = False) -> None:
        """Multiply the zoom, clamped to the view's limits: around the pointer (the
        view's anchor; the wheel), or around the view's centre (a button or menu: the
        pointer is on the button, not on what the user is looking at)."""
        target = min(max(self.zoom() * factor, self.MIN_ZOOM), self.MAX_ZOOM)
        factor = target / self.zoom()
        if abs(factor - 1.0) <= 1e-6:
            return
        anchor = self.transformationAnchor()
        if around_centre:
            self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        try:
            self.scale(factor, factor)
        finally:
            self.setTransformationAnchor(anchor)
        self.zoomChanged.emit(self.zoom())

    def fit(self) -> None:
        """Show the whole drawing (each view says what that is)."""
        raise NotImplementedError

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt's name
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_by(1.0015 ** event.angleDelta().y())
            event.accept()
            return
        super().wheelEvent(event)

    # -- the band above the drawing --------------------------------------------------------
    def reserve_top(self, height: int) -> None:
        """Keep ``height`` pixels above the drawing for the toolbar."""
        if height != self._top_band:
            self._top_band = height
            self.setViewportMargins(0, height, 0, 0)

    # -- panning -------------------------------------------------------------------------------
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

    # The three views hand their mouse events here first: True means "the pan took it".
    def pan_press(self, event: QMouseEvent) -> bool:
        """A middle-button press starts a pan."""
        if event.button() != Qt.MouseButton.MiddleButton:
            return False
        self.start_pan(event.position().toPoint())
        event.accept()
        return True

    def pan_move(self, event: QMouseEvent) -> bool:
        """While a pan is under way, the pointer scrolls the drawing."""
        if not self.panning:
            return False
        self.pan_to(event.position().toPoint())
        event.accept()
        return True

    def pan_release(self, event: QMouseEvent) -> bool:
        """The button that pans (middle, or left on a background) ends it."""
        if not self.panning or event.button() not in (
            Qt.MouseButton.MiddleButton,
            Qt.MouseButton.LeftButton,
        ):
            return False
        self.end_pan()
        event.accept()
        return True


class ZoomToolbar(QFrame):
    """The floating box at a view's top right: the view's own buttons (Front/Rear,
    Generate fabric…), then −, + and Fit.  :meth:`place` keeps it in the band the view
    reserves above its drawing."""

    def __init__(self, view: ZoomPanView, name: str, fit_tip: str):
        super().__init__(view)
        self.view = view
        self.setObjectName(name)
        self.setStyleSheet(OVERLAY_STYLE.format(name=name))
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(4, 2, 4, 2)
        self._layout.setSpacing(2)
        self._zoom_at = 0
        for text, tip, factor in (
            ("−", "Zoom out around the centre (Ctrl+wheel: around the pointer)", 1 / ZOOM_STEP),
            ("+", "Zoom in around the centre (Ctrl+wheel: around the pointer)", ZOOM_STEP),
        ):
            button = self._button(text, tip)
            button.setObjectName("zoomOut" if factor < 1 else "zoomIn")
            button.clicked.connect(lambda _=False, f=factor: view.zoom_by(f, around_centre=True))
        fit = self._button("Fit", fit_tip)
        fit.setObjectName("zoomFit")
        fit.clicked.connect(lambda _=False: view.fit())

    def _button(self, text: str, tip: str, at: int | None = None) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        if at is None:
            self._layout.addWidget(button)
        else:
            self._layout.insertWidget(at, button)
        return button

    def add_button(
        self, text: str, tip: str, slot: Callable[[], object] | None = None
    ) -> QToolButton:
        """A button of the view's own, before the zoom buttons."""
        button = self._button(text, tip, self._zoom_at)
        self._zoom_at += 1
        if slot is not None:
            button.clicked.connect(lambda _=False: slot())
        return button

    def add_widget(self, widget: QWidget) -> None:
        """Another widget of the view's own (a separator), before the zoom buttons."""
        widget.setParent(self)
        self._layout.insertWidget(self._zoom_at, widget)
        self._zoom_at += 1

    def add_separator(self) -> None:
        sep = QFrame(self)
        sep.setFrameShape(QFrame.Shape.VLine)
        sep.setStyleSheet("color: #cfd8dc;")
        self.add_widget(sep)

    def place(self, reserve: bool = True) -> None:
        """Top right of the view, in the band kept clear above the drawing (``reserve``
        False: floating over the drawing's top, for a view that leaves room itself)."""
        self.adjustSize()
        if reserve:
            self.view.reserve_top(self.height() + 8)
        vp = self.view.viewport().geometry()
        top = vp.top() - self.height() - 4 if reserve else vp.top() + 10
        self.move(vp.right() - self.width() - 10, top)
        self.raise_()


__all__ = ["OVERLAY_STYLE", "ZOOM_STEP", "ZoomPanView", "ZoomToolbar"]
