"""The floor plan: the hall seen from above, next to the rack elevations.

Each rack is its footprint, coloured by its worst budget (the rules' verdict, so a rack
is red here exactly when its bars are red in the elevation), its front marked by a dark
band; hot and cold aisles are shaded and labelled, rows named, the floor tiles drawn.
What a person does with it:

* click a rack: it becomes the document's selection and the window shows its elevation
  (:attr:`FloorPlanView.showObject`); Ctrl+click adds to the selection and stays here;
* drag a rack, or a row by its label, to move it on the floor by whole tiles: ONE
  undoable command on release, refused (nothing changes, the reason in the status bar)
  where it would stand on another rack; Esc cancels a drag;
* right-click a rack to turn it to face another way;
* Ctrl+wheel zooms, dragging the floor or the middle button pans, Fit shows the hall.

Positions for racks that have none are laid out here, by
:func:`workbench.model.floor.lay_out`: for the whole design when it is loaded (a file
older than the plan), and for racks added in the window.  That happens without an undo
step: it only fills what was empty and moves nothing, so opening a file does not make
the document dirty and undo never has to take a layout back; the file holds the
positions from the next save on.  (A rack taken off the plan on purpose is left off:
the plan offers to place such racks, as one undoable step.)  The drawing itself is built
the first time the plan is shown, so opening a big design costs the elevations' time
only.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QContextMenuEvent, QKeyEvent, QMouseEvent, QPainter
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QToolTip,
    QWidget,
)

from workbench.model import Change, Design, ops
from workbench.model import floor as fl
from workbench.model.design import FACINGS
from workbench.render import colors
from workbench.render.floor_painter import (
    COLD_FILL,
    FRONT,
    HOT_FILL,
    paint_grid_labels,
    paint_scale_bar,
)
from workbench.rules.budgets import BudgetState, unknown_note
from workbench.ui.commands import EditCommand
from workbench.ui.floor.drop import FloorDrop
from workbench.ui.floor.items import GhostItem, Spot
from workbench.ui.floor.scene import FloorScene
from workbench.ui.shell.document import Document
from workbench.ui.zoom_view import OVERLAY_STYLE, ZoomPanView, ZoomToolbar

log = logging.getLogger(__name__)

__all__ = ["FloorPlanView"]

#: Zoom at which a selection made elsewhere is shown (rack names readable).
READABLE_ZOOM = 0.06


class _Legend(QFrame):
    """What the colours and marks mean, floating over the bottom-left corner."""

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("floorLegend")
        self.setStyleSheet(OVERLAY_STYLE.format(name="floorLegend"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(10)
        entries = [
            (colors.budget_color(BudgetState.OK), "Within budget"),
            (colors.budget_color(BudgetState.NEAR), "Near a limit"),
            (colors.budget_color(BudgetState.OVER), "Over a limit"),
            (colors.budget_color(BudgetState.UNKNOWN), "No limit set, or power unknown"),
            (COLD_FILL, "Cold aisle"),
            (HOT_FILL, "Hot aisle"),
        ]
        for fill, text in entries:
            layout.addLayout(self._pair(f"background: {fill};", text))
        front = f"background: #ffffff; border-bottom: 4px solid {FRONT};"
        layout.addLayout(self._pair(front, "Front"))
        self.adjustSize()

    @staticmethod
    def _pair(style: str, text: str) -> QHBoxLayout:
        swatch = QLabel()
        swatch.setFixedSize(14, 12)
        swatch.setStyleSheet(f"{style} border: 1px solid rgba(0,0,0,70); border-radius: 2px;")
        pair = QHBoxLayout()
        pair.setSpacing(4)
        pair.addWidget(swatch)
        pair.addWidget(QLabel(text))
        return pair


class _Drag:
    """A drag in progress: what moves, from where, and by how many tiles so far."""

    def __init__(self, rack_ids: list[str], row_id: str | None, press: QPointF, view_press: QPoint):
        self.rack_ids = rack_ids
        self.row_id = row_id
        self.press = press
        self.view_press = view_press
        self.started = False
        self.dx = 0.0
        self.dy = 0.0
        self.ghost: GhostItem | None = None
        self.clashes: dict[str, list[str]] = {}


class FloorPlanView(ZoomPanView):
    """The hall plan of the document's design (see the module docstring).

    ``showObject(id)`` asks the window to show that rack's elevation (a plain click).
    """

    showObject = Signal(str)
    #: Something to say in the status bar: (text, timeout in ms; 0 until replaced).
    statusMessage = Signal(str, int)
    #: Pixels per mm: from a whole campus on a laptop screen to one rack filling it.
    MIN_ZOOM, MAX_ZOOM = 0.0015, 1.5

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self._scene = FloorScene(document, self)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlags(
            QGraphicsView.OptimizationFlag.DontSavePainterState
            | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing
        )
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(False)
        self.setAcceptDrops(True)
        self.dropper = FloorDrop(self)
        self._built = False
        self._drag: _Drag | None = None
        self._clicking = False
        self._legend = _Legend(self)
        self._controls, self._unplaced_button = self._make_controls()
        document.changed.connect(self._on_document_changed)
        document.designReplaced.connect(self._on_design_replaced)
        document.selectionChanged.connect(self._on_selection_changed)
        self._fill_positions()

    def say(self, text: str, timeout_ms: int = 0) -> None:
        """Tell the user something in the window's status bar (``statusMessage``)."""
        self.statusMessage.emit(text, timeout_ms)

    # -- drops from the catalog (workbench.ui.floor.drop) ---------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.dropper.enter(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.dropper.move(event)

    def dragLeaveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.dropper.leave()
        event.accept()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.dropper.drop(event)

    # -- model access ------------------------------------------------------------------
    @property
    def design(self) -> Design:
        return self.document.design

    @property
    def plan(self) -> FloorScene:
        return self._scene

    def spot(self, rack_id: str) -> Spot | None:
        """What the plan draws of a rack (None while it is not on the plan)."""
        self.ensure_built()
        return self._scene.spots.get(rack_id)

    def rack_at(self, view_pos: QPoint) -> str | None:
        """The rack under a viewport position, or None."""
        return self._scene.rack_at(self.mapToScene(view_pos))

    def view_point_of(self, rack_id: str) -> QPoint | None:
        """The viewport position of a rack's centre (scrolled into view first)."""
        rect = self._scene.rack_rect(rack_id)
        if rect is None:
            return None
        self.centerOn(rect.center())
        return self.mapFromScene(rect.center())

    # -- building ----------------------------------------------------------------------
    def _fill_positions(self, only: frozenset[str] | None = None) -> list[str]:
        """Lay out racks without a floor position, without an undo step (see the module
        docstring): every one (a design just loaded), or those of ``only`` (racks just
        added); a rack taken off the plan on purpose waits for "Place"."""
        design = self.design
        try:
            if only is None:
                return fl.lay_out(design)
            wanting = [r for r in only if (rack := design.find_rack(r)) and not fl.is_placed(rack)]
            return fl.lay_out(design, wanting) if wanting else []
        except (TypeError, ValueError, OverflowError) as exc:
            # A rack at a place the layout cannot read (NaN, infinity, text: a script's
            # design): the others are left where they are, unplaced ones wait for Place.
            log.warning("Could not lay out the floor plan: %s", exc)
            return []

    def ensure_built(self) -> None:
        """Build the drawing now if it was put off (the plan was not shown yet)."""
        if not self._built:
            self._built = True
            self._scene.rebuild()
            self._scene.set_selected(self._selected_racks())
            self._update_unplaced()

    def rebuild(self) -> None:
        """Read the whole design again and show all of it."""
        self._built = False
        self.ensure_built()
        self.fit()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._built:
            self.ensure_built()
            QTimer.singleShot(0, self.fit)

    def _on_design_replaced(self) -> None:
        self._cancel_drag()
        self._fill_positions()
        self._built = False
        if self.isVisible():
            self.rebuild()

    def _on_document_changed(self, change: Change) -> None:
        if change.everything:
            self._on_design_replaced()
            return
        filled = self._fill_positions(change.added) if change.added else []
        if filled:
            # Other views (the inspector's floor fields) hear of the new places after
            # this change has reached them all.
            fill = Change(racks=frozenset(filled), floor=True)
            design = self.design
            QTimer.singleShot(0, lambda: self._announce(design, fill))
            change = change | fill
        if self._drag is not None and self._drag.started:
            self._cancel_drag()  # the model moved under the drag (undo, say): start again
        if self._built:
            self._scene.apply(change)
            self._update_unplaced()

    def _announce(self, design: Design, change: Change) -> None:
        if self.document.design is design:
            self.document.notify(change)

    def _selected_racks(self) -> frozenset[str]:
        index = self.design.index
        return frozenset(r.id for i in self.document.selected if (r := index.rack_of(i)))

    def _on_selection_changed(self, object_id: object) -> None:
        if not self._built:
            return
        self._scene.set_selected(self._selected_racks())
        if isinstance(object_id, str) and not self._clicking and self.isVisible():
            rack = self.design.index.rack_of(object_id)
            rect = self._scene.rack_rect(rack.id) if rack is not None else None
            if rect is not None:
                if self.zoom() < READABLE_ZOOM / 4:
                    self.zoom_by(READABLE_ZOOM / 4 / self.zoom())
                self.ensureVisible(rect, 60, 60)

    def _update_unplaced(self) -> None:
        count = len(self._scene.unplaced)
        self._unplaced_button.setVisible(count > 0)
        self._unplaced_button.setText(
            f"Place {count} rack{'s' if count != 1 else ''} not on the plan"
        )
        self._place_overlays()

    def place_unplaced(self) -> None:
        """Lay out the racks that have no floor position, as one undoable step."""
        try:
            steps = fl.layout_ops(self.design)
        except (TypeError, ValueError, OverflowError) as exc:  # see _fill_positions
            self.document.refuse(f"The racks cannot be placed: a floor position is odd ({exc}).")
            return
        if steps:
            text = f"Place {len(steps)} rack{'s' if len(steps) != 1 else ''} on the floor"
            self.document.push(EditCommand(self.document, ops.Batch(tuple(steps)), text))

    # -- zoom and pan ------------------------------------------------------------------
    def fit(self) -> None:
        """Show the whole hall, clear of the legend below and the buttons above."""
        self.ensure_built()
        hall = self._scene.hall
        if hall.isEmpty():
            return
        rect = hall.adjusted(-300, -300, 300, 300)
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        zoom = self.zoom()
        if zoom > 0:  # clear of the legend floating over the bottom
            bottom = (self._legend.height() + 14) / zoom
            self.fitInView(rect.adjusted(0, 0, 0, bottom), Qt.AspectRatioMode.KeepAspectRatio)
        if not self.MIN_ZOOM <= self.zoom() <= self.MAX_ZOOM:
            self.zoom_by(1.0)
        self.zoomChanged.emit(self.zoom())

    # -- mouse -------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        if self.pan_press(event):
            return
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        self.ensure_built()
        scene_pos = self.mapToScene(pos)
        rack_id = self._scene.rack_at(scene_pos)
        row_id = None if rack_id else self._scene.row_label_at(scene_pos)
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        self._clicking = True
        try:
            if rack_id is not None:
                if ctrl:
                    self.document.toggle_selected(rack_id)
                elif rack_id not in self.document.selected:
                    self.document.select(rack_id)
                if not ctrl:
                    self._drag = _Drag([rack_id], None, scene_pos, pos)
            elif row_id is not None:
                placed = self.design.index.rows.get(row_id)
                racks = (
                    [r.id for r in placed[1].racks if r.id in self._scene.spots] if placed else []
                )
                if racks:
                    self.document.select_many(racks)
                    self._drag = _Drag(racks, row_id, scene_pos, pos)
            else:
                if not ctrl:
                    self.document.select(None)
                self.start_pan(pos)
        finally:
            self._clicking = False
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        if self.pan_move(event):
            return
        drag = self._drag
        if drag is None:
            super().mouseMoveEvent(event)
            return
        if not drag.started:
            if (pos - drag.view_press).manhattanLength() < QApplication.startDragDistance():
                return
            self._start_drag(drag)
        tile = self._scene.settings.tile_mm
        scene_pos = self.mapToScene(pos)
        dx = fl.snap(scene_pos.x() - drag.press.x(), tile)
        dy = fl.snap(scene_pos.y() - drag.press.y(), tile)
        if (dx, dy) != (drag.dx, drag.dy):
            drag.dx, drag.dy = dx, dy
            assert drag.ghost is not None
            drag.ghost.setPos(dx, dy)
            drag.clashes = self._clashes(drag) if (dx, dy) != (0.0, 0.0) else {}
            drag.ghost.set_blocked(bool(drag.clashes))
        event.accept()

    def _start_drag(self, drag: _Drag) -> None:
        drag.started = True
        spots = [self._scene.spots[r] for r in drag.rack_ids if r in self._scene.spots]
        drag.ghost = GhostItem(spots)
        self._scene.addItem(drag.ghost)
        self._scene.set_dragging(frozenset(drag.rack_ids))
        self.viewport().setCursor(Qt.CursorShape.SizeAllCursor)

    def _clashes(self, drag: _Drag) -> dict[str, list[str]]:
        moves = {}
        for rack_id in drag.rack_ids:
            r = self._scene.spots[rack_id].rect
            moves[rack_id] = fl.Rect(r.left(), r.top(), r.right(), r.bottom()).moved(
                drag.dx, drag.dy
            )
        return fl.overlaps(self.design, moves, self._scene.index)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self.pan_release(event):
            return
        drag = self._drag
        if drag is None or event.button() != Qt.MouseButton.LeftButton:
            super().mouseReleaseEvent(event)
            return
        self._drag = None
        if not drag.started:
            if drag.row_id is None:
                self.showObject.emit(drag.rack_ids[0])  # a click: show its elevation
            event.accept()
            return
        self._end_drag(drag)
        if (drag.dx, drag.dy) != (0.0, 0.0):
            self._drop(drag)
        event.accept()

    def _drop(self, drag: _Drag) -> None:
        design = self.design
        if drag.clashes:
            moved, others = next(iter(drag.clashes.items()))
            names = ", ".join(r.name for o in others[:3] if (r := design.find_rack(o)))
            what = design.find_rack(moved)
            self.document.refuse(
                f"{what.name if what else moved} would stand on {names}: not moved."
            )
            return
        if drag.row_id is not None:
            placed = design.index.rows.get(drag.row_id)
            name = placed[1].name if placed else drag.row_id
            op: ops.Op = ops.MoveRowOnFloor(drag.row_id, drag.dx, drag.dy)
        else:
            rack = design.find_rack(drag.rack_ids[0])
            if rack is None or rack.floor_x_mm is None or rack.floor_y_mm is None:
                return
            name = rack.name
            op = ops.MoveRackOnFloor(
                rack.id, rack.floor_x_mm + drag.dx, rack.floor_y_mm + drag.dy, rack.facing
            )
        self.document.push(EditCommand(self.document, op, f"Move {name} on the floor"))

    def _end_drag(self, drag: _Drag) -> None:
        if drag.ghost is not None:
            self._scene.removeItem(drag.ghost)
            drag.ghost = None
        self._scene.set_dragging(frozenset())
        self.viewport().unsetCursor()

    def _cancel_drag(self) -> None:
        drag, self._drag = self._drag, None
        if drag is not None:
            self._end_drag(drag)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() == Qt.Key.Key_Escape and self._drag is not None:
            self._cancel_drag()
            event.accept()
            return
        super().keyPressEvent(event)

    # -- turning, tooltips -------------------------------------------------------------
    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt's name
        rack_id = self.rack_at(event.pos())
        rack = self.design.find_rack(rack_id) if rack_id else None
        if rack is None:
            return
        menu = QMenu(self)
        for facing in FACINGS:
            action = menu.addAction(f"Face {facing}")
            action.setCheckable(True)
            action.setChecked(rack.facing == facing)
            action.triggered.connect(lambda _=False, f=facing, r=rack.id: self.turn(r, f))
        menu.exec(event.globalPos())

    def turn(self, rack_id: str, facing: str) -> bool:
        """Turn a rack to face ``facing`` about its centre (one undoable step); False
        when it would then stand on another rack (the reason goes to the status bar)."""
        rack = self.design.find_rack(rack_id)
        if rack is None or rack.facing == facing:
            return False
        x, y = fl.turned(self.design, rack, facing, self._scene.settings.tile_mm)
        width, depth = fl.rack_size(self.design, rack)
        rect = fl.footprint_at(x, y, width, depth, facing)
        clashes = fl.overlaps(self.design, {rack_id: rect}, self._scene.index)
        if clashes:
            self.document.refuse(f"{rack.name} cannot turn there: it would stand on another rack.")
            return False
        op = ops.MoveRackOnFloor(rack_id, x, y, facing)
        self.document.push(EditCommand(self.document, op, f"Turn {rack.name} to face {facing}"))
        return True

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.ToolTip and self._built:
            pos = event.pos()  # type: ignore[attr-defined]
            text = self._tooltip(self.mapToScene(pos))
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())  # type: ignore[attr-defined]
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def _tooltip(self, scene_pos: QPointF) -> str:
        rack_id = self._scene.rack_at(scene_pos)
        if rack_id is not None:
            rack = self.design.find_rack(rack_id)
            spot = self._scene.spots.get(rack_id)
            load = self.document.figures.rack_load(rack_id)
            if rack is None or spot is None:
                return ""
            state = {
                BudgetState.OK: "within its budgets",
                BudgetState.NEAR: "near a limit",
                BudgetState.OVER: "over a limit",
                BudgetState.UNKNOWN: "power unknown"
                if load is not None and load.unknown_power_devices
                else "no limits set",
            }[spot.state]
            power = (
                f", {load.kw_max:.1f} kW{unknown_note(load.unknown_power_devices)} "
                f"of {load.limit_kw:.0f} kW"
                if load
                else ""
            )
            return f"{rack.name}: faces {rack.facing}, {state}{power}"
        row_id = self._scene.row_label_at(scene_pos)
        if row_id is not None:
            placed = self.design.index.rows.get(row_id)
            if placed is not None:
                return f"{placed[1].name}: drag to move the whole row"
        return ""

    # -- what is pinned to the view's edges ---------------------------------------------
    def drawForeground(self, painter: QPainter, rect) -> None:  # noqa: N802 - Qt's name
        """The tile grid's column letters and row numbers along the top and left edges,
        and a scale bar in metres above the legend: readable at any zoom
        (:mod:`workbench.render.floor_painter`, the printed plan's own)."""
        super().drawForeground(painter, rect)
        if not self._built:
            return
        vp = QRectF(self.viewport().rect())
        top_left = self.mapToScene(vp.topLeft().toPoint())
        bottom_right = self.mapToScene(vp.bottomRight().toPoint())
        painter.save()
        try:
            painter.resetTransform()
            font = painter.font()
            font.setPixelSize(11)
            painter.setFont(font)
            band = QColor(255, 255, 255, 200)
            painter.fillRect(QRectF(vp.left(), vp.top(), vp.width(), 16), band)
            painter.fillRect(QRectF(vp.left(), vp.top() + 16, 26, vp.height()), band)
            hall = self._scene.hall
            paint_grid_labels(
                painter,
                self._scene.settings.tile_mm,
                lambda x, y: QPointF(self.mapFromScene(QPointF(x, y))),
                (hall.left(), hall.top(), hall.right(), hall.bottom()),
                (top_left.x(), top_left.y(), bottom_right.x(), bottom_right.y()),
                vp,
            )
            legend = self._legend.geometry().top() - self.viewport().geometry().top()
            paint_scale_bar(painter, vp.left() + 36, legend - 8, self.zoom())
        finally:
            painter.restore()

    # -- overlays ----------------------------------------------------------------------
    def _make_controls(self) -> tuple[ZoomToolbar, QToolButton]:
        bar = ZoomToolbar(self, "floorControls", "Show the whole hall")
        unplaced = bar.add_button(
            "", "Lay out the racks that have no floor position (undoable)", self.place_unplaced
        )
        unplaced.setVisible(False)
        return bar, unplaced

    def _place_overlays(self) -> None:
        vp = self.viewport().geometry()
        self._legend.adjustSize()
        self._legend.move(vp.left() + 10, vp.bottom() - self._legend.height() - 10)
        self._controls.place()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._place_overlays()
