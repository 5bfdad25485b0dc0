"""The rack view: every row of the design as rack elevations on one zoomable canvas.

The scene (:class:`~workbench.ui.racks.scene.HallScene`) holds one item per rack and
mirrors the model edit by edit; this view adds what a person does with it: click and
Ctrl+click to select, zoom, pan, front or rear.  Clicks go through
:func:`workbench.render.rack_geometry.hit_test`, the same geometry that snaps drops to a
U (:meth:`RackView.rack_and_u_at`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QWidget,
)

from workbench.calc.summary import RackLoad
from workbench.model import Design
from workbench.render import colors
from workbench.render import rack_geometry as geo
from workbench.ui.one_pass import lay_out_now
from workbench.ui.racks.interaction import DropController, MoveController, RubberBandSelect
from workbench.ui.racks.scene import SCENE_SCALE, HallScene, RackItem
from workbench.ui.shell.document import Change, Document
from workbench.ui.zoom_view import ZoomPanView, ZoomToolbar

__all__ = ["SCENE_SCALE", "RackItem", "RackView"]

#: The zoom a design opens at when the whole hall would be too small to read.
COMFORTABLE_ZOOM = 0.7


class _Legend(QFrame):
    """Role colours, floating over the view's bottom-left corner."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("rackLegend")
        self.setStyleSheet(
            "#rackLegend { background: rgba(255,255,255,230);"
            " border: 1px solid #cfd8dc; border-radius: 4px; }"
            " QLabel { background: transparent; }"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(10)
        for role, (label, fill) in colors.ROLE_COLORS.items():
            if role == "other":
                continue
            swatch = QLabel()
            swatch.setFixedSize(12, 12)
            swatch.setStyleSheet(
                f"background: {fill}; border: 1px solid rgba(0,0,0,80); border-radius: 2px;"
            )
            text = QLabel(label)
            text.setStyleSheet("color: #37474f;")
            pair = QHBoxLayout()
            pair.setSpacing(4)
            pair.addWidget(swatch)
            pair.addWidget(text)
            layout.addLayout(pair)
        self.adjustSize()


class RackView(ZoomPanView):
    """Rows of racks, left to right per row, rows stacked top to bottom.

    Click selects a device (or the rack, clicking its frame) in the document, Ctrl+click
    adds to the selection or takes out; a selection made elsewhere is highlighted and
    scrolled into view.  Ctrl+wheel zooms, the middle button pans, :meth:`fit` shows
    everything.
    """

    #: Something to say in the status bar: (text, timeout in ms; 0 until replaced).
    statusMessage = Signal(str, int)

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self._last_pos: QPoint | None = None
        self._select_on_release: str | None = None
        #: (rack id, U) of the last click on a rack's empty units: where Place Here puts
        #: a catalog item while that rack is selected.
        self.chosen_unit: tuple[str, int | None] | None = None
        #: Builds the context menu for a viewport point (the window's hall actions).
        self.context_menu_for: Callable[[QPoint], QMenu] | None = None
        self._scene = HallScene(document, self)
        self._items = self._scene.items_by_rack
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlags(
            QGraphicsView.OptimizationFlag.DontSavePainterState
            | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing
        )
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        # A hall smaller than the view starts at its top: the legend floats at the bottom.
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.setMouseTracking(True)
        self.dropper = DropController(self)
        self.mover = MoveController(self)
        self.rubber = RubberBandSelect(self)
        self._legend = _Legend(self)
        self._controls = self._make_controls()
        document.changed.connect(self._on_document_changed)
        document.designReplaced.connect(self.rebuild)
        document.selectionChanged.connect(self._on_selection_changed)
        document.figures.findingsReady.connect(self._on_findings_ready)
        self._selected: tuple[str, ...] = ()
        #: True while a click in this view makes the selection: what was clicked is in
        #: view already, and scrolling under the pointer would move it away from the mouse.
        self._clicking = False
        self.rebuild()

    # -- model access ----------------------------------------------------------------
    @property
    def design(self) -> Design:
        return self.document.design

    def load_of(self, rack_id: str) -> RackLoad | None:
        """The rack's load, from the document's shared live figures."""
        return self.document.figures.rack_load(rack_id)

    def rack_item(self, rack_id: str) -> RackItem | None:
        """The graphics item of a rack."""
        return self._items.get(rack_id)

    @property
    def face(self) -> str:
        """Which face of every rack is shown: "front" or "rear"."""
        return self._scene.face

    def rack_of(self, object_id: str) -> str | None:
        """The rack id holding ``object_id`` (a device id or a rack id itself)."""
        rack = self.design.index.rack_of(object_id)
        return rack.id if rack is not None else None

    def scene_rect_of(self, object_id: str) -> QRectF | None:
        """Where a device block or a rack is drawn, in scene coordinates."""
        rack_id = self.rack_of(object_id)
        item = self._items.get(rack_id) if rack_id else None
        if item is None:
            return None
        if object_id == rack_id:
            return item.sceneBoundingRect()
        local = item.block_rect(object_id)
        return item.mapRectToScene(local) if local is not None else None

    def object_at(self, view_pos: QPoint) -> str | None:
        """The device or rack id drawn at a viewport position, or None (background)."""
        scene_pos = self.mapToScene(view_pos)
        for item in self._scene.items(scene_pos):
            if isinstance(item, RackItem):
                return item.object_at(item.mapFromScene(scene_pos))
        return None

    def rack_and_u_at(self, view_pos: QPoint) -> tuple[str, int | None] | None:
        """(rack id, U under the point) for drop targeting; None off any rack."""
        scene_pos = self.mapToScene(view_pos)
        for item in self._scene.items(scene_pos):
            if isinstance(item, RackItem):
                return item.rack_id, item.u_at(item.mapFromScene(scene_pos))
        return None

    # -- building --------------------------------------------------------------------
    def rebuild(self) -> None:
        """Lay out every site, row and rack again (a new design)."""
        self._scene.rebuild()
        self._selected = self.document.selected

    def set_face(self, face: str) -> None:
        """Show the front or the rear of every rack."""
        self._scene.set_face(face)

    def show_object(self, object_id: str) -> None:
        """Scroll ``object_id`` (a device or a rack) into view, zooming in to where its
        text is readable if the hall is zoomed out too far to pick it out."""
        rect = self.scene_rect_of(object_id)
        if rect is None:
            return
        readable = geo.MIN_TEXT_PX_PER_U / SCENE_SCALE * 1.5
        if self.zoom() < readable:
            self.zoom_by(readable / self.zoom())
        self.centerOn(rect.center())

    # -- document signals ----------------------------------------------------------
    def _on_document_changed(self, change: Change) -> None:
        self._scene.apply(change)

    def _on_findings_ready(self) -> None:
        """The first check of a new design ran: mark the racks it found problems in."""
        for rack_id in self.document.figures.rack_marks():
            item = self._items.get(rack_id)
            if item is not None:
                item.update()

    def _on_selection_changed(self, object_id: object) -> None:
        now = self.document.selected
        for rack_id in {self.rack_of(i) for i in (*self._selected, *now)}:
            item = self._items.get(rack_id) if rack_id else None
            if item is not None:
                item.update()
        self._selected = now
        if isinstance(object_id, str) and not self._clicking:
            rect = self.scene_rect_of(object_id)
            if rect is not None:
                self.ensureVisible(rect, 40, 40)

    # -- zoom and pan ----------------------------------------------------------------
    def fit(self) -> None:
        """Show the whole design."""
        rect = self._scene.itemsBoundingRect().adjusted(-20, -20, 20, 20)
        if rect.isEmpty():
            return
        # Into the viewport less the legend's band at the bottom, so the last row's
        # budget bars are not under the legend.
        band = self._legend.height() + 14
        room = self.viewport().rect()
        zoom = min(room.width() / rect.width(), max(room.height() - band, 1) / rect.height())
        zoom = min(max(zoom, self.MIN_ZOOM), self.MAX_ZOOM)
        self.resetTransform()
        self.scale(zoom, zoom)
        self.centerOn(rect.center() + QPointF(0, band / 2 / zoom))
        self.zoomChanged.emit(self.zoom())

    def fit_readable(self) -> None:
        """Fit everything if text stays readable, else fit the widest row's width.

        Used when a design opens: a planner wants to see rows of racks with their names,
        not a hall of coloured specks.
        """
        self.fit()
        if self.zoom() * SCENE_SCALE >= geo.MIN_TEXT_PX_PER_U or not self._items:
            return
        rect = self._scene.itemsBoundingRect().adjusted(-20, -20, 20, 20)
        # The rows will be taller than the view, so a vertical scroll bar takes its width:
        # fit the widest row into what is left, or a horizontal scroll bar appears too.
        width = self.viewport().width()
        if (
            self.verticalScrollBarPolicy() != Qt.ScrollBarPolicy.ScrollBarAlwaysOff
            and not self.verticalScrollBar().isVisible()
        ):
            width -= self.style().pixelMetric(self.style().PixelMetric.PM_ScrollBarExtent)
        width_zoom = width / max(self.sceneRect().width(), rect.width(), 1.0)
        readable = max(geo.MIN_TEXT_PX_PER_U / SCENE_SCALE, COMFORTABLE_ZOOM)
        target = min(max(width_zoom, readable), 1.0)
        self.resetTransform()
        self.scale(target, target)
        self.centerOn(
            QPointF(
                rect.left() + self.viewport().width() / target / 2,
                rect.top() + self.viewport().height() / target / 2,
            )
        )
        self.zoomChanged.emit(self.zoom())

    # -- mouse -----------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        if self.pan_press(event):
            return
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        modifiers = event.modifiers()
        hit = self.object_at(pos)
        self._clicking = True
        self._select_on_release = None
        try:
            if modifiers & Qt.KeyboardModifier.ShiftModifier or hit is None:
                self.rubber.start(pos)  # a rectangle selects every device it touches
            elif modifiers & Qt.KeyboardModifier.ControlModifier:
                self.document.toggle_selected(hit)
            elif hit in self.design.index.devices:
                if hit in self.document.selected and len(self.document.selected) > 1:
                    self._select_on_release = hit  # keep the group: it may be dragged
                else:
                    self.document.select(hit)
                self.mover.press(pos, hit)
            else:
                self.document.select(hit)
                target = self.rack_and_u_at(pos)
                self.chosen_unit = target if target is not None and target[0] == hit else None
        finally:
            self._clicking = False
        event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        self._last_pos = pos
        if self.pan_move(event):
            return
        if self.rubber.active:
            self.rubber.drag(pos)
            event.accept()
            return
        if event.buttons() & Qt.MouseButton.LeftButton and self.mover.drag(pos):
            self._select_on_release = None
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        if event.button() == Qt.MouseButton.MiddleButton and self.pan_release(event):
            return
        if event.button() == Qt.MouseButton.LeftButton:
            if self.rubber.active:
                add = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
                self.rubber.release(pos, add)
            elif not self.mover.release() and self._select_on_release is not None:
                self._clicking = True
                try:
                    self.document.select(self._select_on_release)
                finally:
                    self._clicking = False
            self._select_on_release = None
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self.context_menu_for is None:
            super().contextMenuEvent(event)
            return
        self.context_menu_for(event.pos()).exec(event.globalPos())

    # -- drops from the catalog ------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.dropper.enter(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self._last_pos = event.position().toPoint()
        self.dropper.move(event)

    def dragLeaveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.dropper.leave()
        event.accept()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.dropper.drop(event)
        lay_out_now()  # the inspector's new page and the counts, before the first paint

    # -- what the pointer is over ----------------------------------------------------
    def say(self, text: str, timeout_ms: int = 0) -> None:
        """Tell the user something in the window's status bar (``statusMessage``)."""
        self.statusMessage.emit(text, timeout_ms)

    def pointer_target(self) -> tuple[str, int | None] | None:
        """(rack id, U) under the last pointer position (where Paste goes), or None."""
        if self._last_pos is None or not self.viewport().rect().contains(self._last_pos):
            return None
        return self.rack_and_u_at(self._last_pos)

    # -- overlays --------------------------------------------------------------------
    def _make_controls(self) -> ZoomToolbar:
        bar = ZoomToolbar(self, "rackControls", "Show every rack (Ctrl+0)")
        group = QButtonGroup(bar)
        for face in ("front", "rear"):
            button = bar.add_button(face.capitalize(), f"Show the {face} of every rack")
            button.setCheckable(True)
            button.setChecked(face == self.face)
            button.clicked.connect(lambda _=False, f=face: self.set_face(f))
            group.addButton(button)
        bar.add_separator()
        return bar

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        vp = self.viewport().geometry()
        self._legend.adjustSize()
        self._legend.move(vp.left() + 10, vp.bottom() - self._legend.height() - 10)
        self._controls.place()
