"""The rack view: every row of the design as rack elevations on one zoomable canvas.

Scalability decides the shape: a 100,000-GPU campus has ~3,000 racks and ~12,500
devices, so each rack is ONE graphics item that paints its frame, U numbers and device
blocks through the shared painter (:func:`workbench.render.rack_painter.paint_rack`), with
no per-device items.  Zoomed out, text and U numbers are skipped (level of detail) and
each rack is cached as a device-resolution pixmap, so scrolling the hall stays smooth.

The view keeps the maps the architecture asks for: rack id → item, device id → rack id,
and item → rack id.  Clicks go through :func:`workbench.render.rack_geometry.hit_test`,
the same geometry that will snap drops to a U when drag-and-drop arrives
(:meth:`RackView.rack_and_u_at`).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QWheelEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QStyleOptionGraphicsItem,
    QToolButton,
    QWidget,
)

from workbench.calc.summary import RackLoad
from workbench.model import Design, Rack
from workbench.render import colors
from workbench.render import rack_geometry as geo
from workbench.render.rack_painter import paint_rack
from workbench.ui.document import Change, Document

#: Scene units per rack unit at zoom 1.
SCENE_SCALE = 10.0
RACK_GAP = 8.0
ROW_GAP = 36.0
ROW_LABEL_H = 34.0
SITE_LABEL_H = 46.0
MIN_ZOOM, MAX_ZOOM = 0.01, 8.0
#: The zoom a design opens at when the whole hall would be too small to read.
COMFORTABLE_ZOOM = 0.7


class RackItem(QGraphicsItem):
    """One rack, drawn by the shared painter; holds the rack id, never model truth."""

    def __init__(self, view: RackView, rack: Rack):
        super().__init__()
        self.view = view
        self.rack_id = rack.id
        self._u_total = geo.rack_units(rack, view.design)
        w, h = geo.rack_size(self._u_total, SCENE_SCALE)
        self._bounds = QRectF(0, 0, w, h)
        self._blocks: list[geo.Block] = []
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(False)
        self.refresh()

    @property
    def rack(self) -> Rack | None:
        # Through the document's structure index: a scan per rack made opening a
        # 3,500-rack design quadratic.
        return self.view.document.figures.find_rack(self.rack_id)

    def refresh(self) -> None:
        """Re-read the rack from the model (after a command touched it) and repaint."""
        rack = self.rack
        if rack is None:
            return
        u_total = geo.rack_units(rack, self.view.design)
        if u_total != self._u_total:
            self.prepareGeometryChange()
            self._u_total = u_total
            w, h = geo.rack_size(u_total, SCENE_SCALE)
            self._bounds = QRectF(0, 0, w, h)
        self._blocks = geo.device_blocks(rack, self.view.design, SCENE_SCALE, self.view.face)
        self.setToolTip(f"{rack.name} — {len(rack.devices)} devices")
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        rack = self.rack
        if rack is None:
            return
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        detail = lod * SCENE_SCALE >= geo.MIN_TEXT_PX_PER_U
        paint_rack(
            painter,
            rack,
            self.view.design,
            (0.0, 0.0),
            SCENE_SCALE,
            selected_id=self.view.document.selection,
            detail=detail,
            face=self.view.face,
            load=self.view.load_of(self.rack_id),
            blocks=self._blocks,
        )

    def object_at(self, local: QPointF) -> str:
        """The device id under a rack-local point, or this rack's id."""
        return geo.hit_test(self._blocks, local.x(), local.y()) or self.rack_id

    def block_rect(self, device_id: str) -> QRectF | None:
        """A device block's rectangle in item coordinates."""
        for block in self._blocks:
            if block.device_id == device_id:
                r = block.rect
                return QRectF(r.x, r.y, r.w, r.h)
        return None

    def u_at(self, local: QPointF) -> int | None:
        return geo.u_at(local.y(), self._u_total, SCENE_SCALE)


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


class RackView(QGraphicsView):
    """Rows of racks, left to right per row, rows stacked top to bottom.

    Click selects a device (or the rack, clicking its frame) in the document; a selection
    made elsewhere is highlighted and scrolled into view.  Ctrl+wheel zooms, the middle
    button pans, :meth:`fit` shows everything.
    """

    zoomChanged = Signal(float)

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.face = "front"
        self._items: dict[str, RackItem] = {}
        self._device_rack: dict[str, str] = {}
        self._pan_from: QPoint | None = None
        self._scene = QGraphicsScene(self)
        self._scene.setBackgroundBrush(QBrush(QColor("#eceff1")))
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlags(
            QGraphicsView.OptimizationFlag.DontSavePainterState
            | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing
        )
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._legend = _Legend(self)
        self._controls = self._make_controls()
        document.changed.connect(self._on_document_changed)
        document.designReplaced.connect(self.rebuild)
        document.selectionChanged.connect(self._on_selection_changed)
        self._selected: str | None = None
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

    def rack_of(self, object_id: str) -> str | None:
        """The rack id holding ``object_id`` (a device id or a rack id itself)."""
        if object_id in self._items:
            return object_id
        return self._device_rack.get(object_id)

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
        """Lay out every site, row and rack again (new design or changed structure)."""
        self._scene.clear()
        self._items.clear()
        self._device_rack.clear()
        y = 0.0
        multi_site = len(self.design.sites) > 1
        for site in self.design.sites:
            if multi_site:
                self._label(site.name, 0.0, y, 26, bold=True)
                y += SITE_LABEL_H
            for row in site.rows:
                count = len(row.racks)
                self._label(row.name, 0.0, y, 18, bold=True)
                self._label(
                    f"{count} rack{'s' if count != 1 else ''}",
                    self._label_width(row.name, 18) + 14,
                    y + 5,
                    12,
                )
                y += ROW_LABEL_H
                x, row_h = 0.0, 0.0
                for rack in row.racks:
                    item = RackItem(self, rack)
                    item.setPos(x, y)
                    self._scene.addItem(item)
                    self._items[rack.id] = item
                    for device in rack.devices:
                        self._device_rack[device.id] = rack.id
                    x += item.boundingRect().width() + RACK_GAP
                    row_h = max(row_h, item.boundingRect().height())
                y += row_h + ROW_GAP
        if not self._items:
            self._label("This design has no racks yet.", 0.0, 0.0, 18)
        # Extra room at the bottom so the floating legend never hides the last footer.
        bounds = self._scene.itemsBoundingRect().adjusted(-40, -30, 40, 70)
        self._scene.setSceneRect(bounds)
        self._selected = self.document.selection

    def _label(self, text: str, x: float, y: float, px: int, bold: bool = False) -> None:
        item = QGraphicsSimpleTextItem(text)
        font = QFont()
        font.setPixelSize(px)
        font.setBold(bold)
        item.setFont(font)
        item.setBrush(QColor(colors.TEXT if bold else colors.TEXT_MUTED))
        item.setPos(x, y)
        self._scene.addItem(item)

    @staticmethod
    def _label_width(text: str, px: int) -> float:
        font = QFont()
        font.setPixelSize(px)
        font.setBold(True)
        from PySide6.QtGui import QFontMetricsF

        return QFontMetricsF(font).horizontalAdvance(text)

    def set_face(self, face: str) -> None:
        """Show the front or the rear of every rack."""
        if face != self.face:
            self.face = face
            for item in self._items.values():
                item.refresh()

    # -- document signals ----------------------------------------------------------
    def _on_document_changed(self, change: Change) -> None:
        if change.needs_rebuild:
            self.rebuild()
            return
        racks = set(change.racks)
        racks.update(r for d in change.devices if (r := self._device_rack.get(d)))
        if not racks:
            return
        for rack_id in racks:
            item = self._items.get(rack_id)
            if item is not None:
                item.refresh()

    def _on_selection_changed(self, object_id: object) -> None:
        for old in {
            self.rack_of(self._selected) if self._selected else None,
            self.rack_of(object_id) if isinstance(object_id, str) else None,
        }:
            item = self._items.get(old) if old else None
            if item is not None:
                item.update()
        self._selected = object_id if isinstance(object_id, str) else None
        if self._selected and not self._clicking:
            rect = self.scene_rect_of(self._selected)
            if rect is not None:
                self.ensureVisible(rect, 40, 40)

    # -- zoom and pan ----------------------------------------------------------------
    def zoom(self) -> float:
        """Current scale factor (view pixels per scene unit)."""
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        """Multiply the zoom, clamped to sensible limits."""
        target = min(max(self.zoom() * factor, MIN_ZOOM), MAX_ZOOM)
        factor = target / self.zoom()
        if abs(factor - 1.0) > 1e-6:
            self.scale(factor, factor)
            self.zoomChanged.emit(self.zoom())

    def fit(self) -> None:
        """Show the whole design."""
        rect = self._scene.itemsBoundingRect().adjusted(-20, -20, 20, 20)
        if rect.isEmpty():
            return
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
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

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt's name
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_by(1.0015 ** event.angleDelta().y())
            event.accept()
            return
        super().wheelEvent(event)

    # -- mouse -----------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton:
            self._clicking = True
            try:
                self.document.select(self.object_at(event.position().toPoint()))
            finally:
                self._clicking = False
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if self._pan_from is not None:
            pos = event.position().toPoint()
            delta = pos - self._pan_from
            self._pan_from = pos
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if event.button() == Qt.MouseButton.MiddleButton and self._pan_from is not None:
            self._pan_from = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # -- overlays --------------------------------------------------------------------
    def _make_controls(self) -> QWidget:
        box = QFrame(self)
        box.setObjectName("rackControls")
        box.setStyleSheet(
            "#rackControls { background: rgba(255,255,255,230);"
            " border: 1px solid #cfd8dc; border-radius: 4px; }"
            " QToolButton { border: none; padding: 3px 8px; }"
            " QToolButton:checked { background: #cfd8dc; border-radius: 3px; }"
            " QToolButton:hover { background: #e3e8eb; border-radius: 3px; }"
        )
        layout = QHBoxLayout(box)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        group = QButtonGroup(box)
        for face in ("front", "rear"):
            button = QToolButton(box)
            button.setText(face.capitalize())
            button.setCheckable(True)
            button.setChecked(face == self.face)
            button.setToolTip(f"Show the {face} of every rack")
            button.clicked.connect(lambda _=False, f=face: self.set_face(f))
            group.addButton(button)
            layout.addWidget(button)
        sep = QFrame(box)
        sep.setFrameShape(QFrame.Shape.VLine)
        sep.setStyleSheet("color: #cfd8dc;")
        layout.addWidget(sep)
        for text, tip, slot in (
            ("−", "Zoom out (Ctrl+wheel)", lambda: self.zoom_by(1 / 1.25)),
            ("+", "Zoom in (Ctrl+wheel)", lambda: self.zoom_by(1.25)),
            ("Fit", "Show every rack (Ctrl+0)", self.fit),
        ):
            button = QToolButton(box)
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            layout.addWidget(button)
        box.adjustSize()
        return box

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        vp = self.viewport().geometry()
        self._legend.adjustSize()
        self._legend.move(vp.left() + 10, vp.bottom() - self._legend.height() - 10)
        self._controls.adjustSize()
        self._controls.move(vp.right() - self._controls.width() - 10, vp.top() + 10)
