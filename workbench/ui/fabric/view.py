"""The Fabric view: every plane's cabling as a layered drawing, beside Racks and Floor plan.

Core, spine, leaf and nodes from top to bottom (:mod:`workbench.render.fabric_layout`),
parallel links as one bundle with a count, large fabrics in groups.  What a person does
with it:

* pick the plane to look at (compute, storage, management, out-of-band, or all);
* click a switch, a group or a bundle: it becomes the document's shared selection (the
  inspector shows it, the Racks view highlights the devices) and its links and
  neighbours light up; a selection made elsewhere lights up here when it is drawn;
* drag from one box to another to cable them on the next free compatible port of each
  (one undoable step, refused with the reason in the status bar);
* Delete removes the selected links or bundle in one undoable step;
* drop a switch from the catalog: it goes into a network rack with room, or without a
  rack unit when none has any (the status bar says so), and waits in "Not cabled";
* right-click a switch: what its failure would cost (the analytics' answer);
* Ctrl+wheel zooms, dragging the background or the middle button pans.

The drawing is laid out when the view is shown and again, once per event-loop turn,
after the cabling changes; a hidden view only notes that it must (see
:mod:`workbench.ui.fabric.scene`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QContextMenuEvent, QKeyEvent, QMouseEvent, QPainter, QTransform
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsView,
    QMenu,
    QToolTip,
    QWidget,
)

from workbench.model import Change, Design, ops
from workbench.model.design import PLANES
from workbench.model.errors import EditError
from workbench.render.fabric_layout import UNCABLED, Box, Bundle, planes_with_links
from workbench.ui.commands import EditCommand
from workbench.ui.fabric.interaction import (
    LinkDrag,
    end_of,
    plan_link,
    plan_switch_drop,
    slug_of,
)
from workbench.ui.fabric.overlays import LABEL_PX, PLANE_CHOICES, TITLE_PX, Overlays
from workbench.ui.fabric.scene import PICK_PX, FabricScene
from workbench.ui.shell.document import Document
from workbench.ui.zoom_view import ZoomPanView
from workbench.units import format_count

__all__ = ["PLANE_CHOICES", "FabricView"]


class FabricView(ZoomPanView):
    """The fabric drawing of the document's design (see the module docstring).

    ``statusMessage(text, ms)`` goes to the status bar; ``showObject(id)`` asks the
    window to show a device in the Racks view; ``generateRequested()`` opens the
    generator dialog.
    """

    statusMessage = Signal(str, int)
    showObject = Signal(str)
    generateRequested = Signal()
    MIN_ZOOM, MAX_ZOOM = 0.02, 4.0

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.fabric = FabricScene(document, self)
        self.fabric.pinned_labels = True
        self.setScene(self.fabric)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setBackgroundBrush(Qt.GlobalColor.transparent)
        self.setStyleSheet("QGraphicsView { background: #e9eef1; }")
        self.setAcceptDrops(True)
        # Panned by dragging and zoomed by Ctrl+wheel: the bars only take room.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.plane = "all"
        self._chosen = False  # the user picked a plane (else it follows what has links)
        self._drag: LinkDrag | None = None
        self._clicking = False
        self._layout_due = False
        self._fit_due = True
        self.overlays = Overlays(self, self)
        self._buttons = self.overlays.buttons
        document.changed.connect(self._on_document_changed)
        document.designReplaced.connect(self._on_design_replaced)
        document.selectionChanged.connect(self._on_selection_changed)

    # -- state -------------------------------------------------------------------------
    @property
    def design(self) -> Design:
        return self.document.design

    def say(self, text: str, timeout_ms: int = 4000) -> None:
        self.statusMessage.emit(text, timeout_ms)

    def set_plane(self, plane: str) -> None:
        """Show one plane ("compute" ...) or ``"all"`` of them."""
        if plane not in PLANE_CHOICES:
            raise ValueError(f"unknown plane {plane!r}")
        self._chosen = True
        self._show_plane(plane)

    def _show_plane(self, plane: str) -> None:
        self.plane = plane
        button = self._buttons.get(plane)
        if button is not None and not button.isChecked():
            button.setChecked(True)
        self.fabric.set_planes(PLANES if plane == "all" else (plane,))
        self.overlays.place()
        self.fit()

    def _default_plane(self) -> str:
        """Compute when it is cabled, else the first cabled plane, else all."""
        cabled = planes_with_links(self.fabric.cache.structures())
        return cabled[0] if cabled else "all"

    def ensure_built(self) -> None:
        """Lay the drawing out now if the model moved on (or it was never drawn)."""
        if not self._chosen and self.fabric.stale:
            plane = self._default_plane()
            if plane != self.plane:
                self.plane = plane
                self._buttons[plane].setChecked(True)
                self.fabric.planes = PLANES if plane == "all" else (plane,)
        if self.fabric.ensure_current() and self._fit_due:
            self._fit_due = False
            QTimer.singleShot(0, self.fit)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.ensure_built()
        self.overlays.place()

    # -- document signals --------------------------------------------------------------
    def _on_design_replaced(self) -> None:
        self._cancel_drag()
        self._chosen = False
        self._fit_due = True
        self.fabric.mark_stale()
        if self.isVisible():
            self.ensure_built()

    def _on_document_changed(self, change: Change) -> None:
        if change.everything:
            self._on_design_replaced()
            return
        if self.fabric.apply(change) == "layout":
            self._cancel_drag()
            if self.isVisible() and not self._layout_due:
                self._layout_due = True
                QTimer.singleShot(0, self._lay_out_again)

    def _lay_out_again(self) -> None:
        self._layout_due = False
        if self.isVisible():
            self.ensure_built()

    def _on_selection_changed(self, object_id: object) -> None:
        del object_id
        if self.fabric.stale and not self.isVisible():
            return
        self.fabric.set_selection(self.document.selected)
        if not self._clicking and self.isVisible():
            self._reveal_selection()

    def _reveal_selection(self) -> None:
        """Scroll a selection made elsewhere into view when it is drawn here."""
        keys = sorted(self.fabric.highlight.boxes)
        if not keys:
            return
        rect = self.fabric.box_rect(keys[0])
        if rect is not None:
            self.ensureVisible(rect, 80, 80)

    def drawForeground(self, painter: QPainter, rect) -> None:  # noqa: N802 - Qt's name
        del rect
        self.overlays.paint_pinned(painter)

    # -- zoom ----------------------------------------------------------------------------
    def fit(self) -> None:
        """Show the whole drawing, with room for the pinned labels at its left and the
        title above, clear of the controls above and the hint below."""
        self.ensure_built()
        left, top, right, bottom = self.fabric.layout.bounds
        if right <= left:
            return
        view = self.viewport().rect()
        top_room = self.overlays.filter.height() + 16 + TITLE_PX
        bottom_room = self.overlays.hint.height() + 16
        width, height = right - left + 40, bottom - top + 40
        room_w = max(50.0, view.width() - LABEL_PX - 16)
        room_h = max(50.0, view.height() - top_room - bottom_room)
        zoom = min(room_w / width, room_h / height)
        zoom = min(max(zoom, self.MIN_ZOOM), self.MAX_ZOOM)
        self.setTransform(QTransform.fromScale(zoom, zoom))
        spare_w = max(0.0, room_w - width * zoom)
        spare_h = max(0.0, room_h - height * zoom)
        x = left - 20 + (view.width() / 2 - LABEL_PX - spare_w / 2) / zoom
        y = top - 20 + (view.height() / 2 - top_room - spare_h / 2) / zoom
        self.centerOn(QPointF(x, y))
        self.zoomChanged.emit(self.zoom())

    # -- mouse -----------------------------------------------------------------------------
    def box_at(self, view_pos: QPoint) -> Box | None:
        return self.fabric.box_at(self.mapToScene(view_pos))

    def bundle_at(self, view_pos: QPoint) -> Bundle | None:
        zoom = self.zoom() or 1.0
        return self.fabric.bundle_at(self.mapToScene(view_pos), PICK_PX / zoom)

    def view_point_of_box(self, key: str) -> QPoint | None:
        """The viewport position of a box's centre (scrolled into view first)."""
        rect = self.fabric.box_rect(key)
        if rect is None:
            return None
        self.centerOn(rect.center())
        return self.mapFromScene(rect.center())

    def view_point_of_bundle(self, key: tuple[str, str]) -> QPoint | None:
        """A viewport point on a bundle's line, away from its ends."""
        bundle = self.fabric.layout.bundles.get(key)
        if bundle is None:
            return None
        (ax, ay), (bx, by) = bundle.a_point, bundle.b_point
        point = QPointF(ax + (bx - ax) * 0.55, ay + (by - ay) * 0.55)
        self.centerOn(point)
        return self.mapFromScene(point)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        if self.pan_press(event):
            return
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        self.ensure_built()
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        box = self.box_at(pos)
        self._clicking = True
        try:
            if box is not None:
                members = list(box.members)
                if ctrl:
                    for member in members:
                        self.document.toggle_selected(member)
                elif set(members) != set(self.document.selected):
                    # The clicked member last: it is the primary one the inspector shows.
                    self.document.select_many(members)
                self._drag = LinkDrag(self, box, pos)
            else:
                bundle = self.bundle_at(pos)
                if bundle is not None:
                    self.document.select_many(bundle.link_ids)
                    self.say(self._bundle_text(bundle), 6000)
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
        if self._drag is not None and event.buttons() & Qt.MouseButton.LeftButton:
            self._drag.move(pos)
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self.pan_release(event):
            return
        drag, self._drag = self._drag, None
        if drag is None or event.button() != Qt.MouseButton.LeftButton:
            super().mouseReleaseEvent(event)
            return
        drag.move(event.position().toPoint())
        target = drag.finish()
        if target is not None:
            self.cable(drag.source, target)
        elif drag.started:
            self.say("Not cabled: release the drag over another switch or group.", 5000)
        event.accept()

    def _cancel_drag(self) -> None:
        drag, self._drag = self._drag, None
        if drag is not None:
            drag.cancel()

    def cable(self, source: Box, target: Box) -> str | None:
        """Cable ``source`` to ``target`` on the next free compatible ports (one undoable
        step); returns the new link's id, or None after saying why not."""
        try:
            plan = plan_link(self.design, end_of(source), end_of(target))
        except EditError as exc:
            self.document.refuse(str(exc))
            return None
        self.document.push(EditCommand(self.document, plan.batch, plan.text.rstrip(".")))
        if plan.link.id in self.design.index.links:
            self.say(plan.text, 6000)
            self.document.select(plan.link.id)
            return plan.link.id
        return None

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() == Qt.Key.Key_Escape and self._drag is not None:
            self._cancel_drag()
            event.accept()
            return
        deleting = event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)
        if deleting and self.delete_selected_links():
            event.accept()
            return
        super().keyPressEvent(event)

    def delete_selected_links(self) -> int:
        """Remove the selected links (a bundle: all of its links) as one undoable step;
        returns how many went (0: no link selected)."""
        links = self.design.index.links
        ids = tuple(i for i in self.document.selected if i in links)
        if not ids:
            return 0
        text = f"Delete {format_count(len(ids), 'link')}"
        self.document.push(EditCommand(self.document, ops.RemoveLinks(ids), text))
        self.say(f"{text}: undo brings them back.", 5000)
        return len(ids)

    # -- drops from the catalog -------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt's name
        slug = slug_of(event.mimeData())
        if slug is None:
            event.ignore()
            return
        event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt's name
        slug = slug_of(event.mimeData())
        if slug is None:
            event.ignore()
            return
        event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt's name
        slug = slug_of(event.mimeData())
        if slug is None:
            event.ignore()
            return
        placed = self.drop_switch(slug)
        if placed is None:
            event.ignore()
            return
        event.acceptProposedAction()

    def drop_switch(self, slug: str) -> str | None:
        """Place a new switch of ``slug`` (see :func:`plan_switch_drop`) as one undoable
        step and select it; returns its id, or None after saying why not."""
        try:
            drop = plan_switch_drop(self.design, self.document.catalog, slug)
        except EditError as exc:
            self.document.refuse(str(exc))
            return None
        found = drop.batch.ops[-1]
        name = found.device.name if isinstance(found, ops.AddDevice) else slug
        self.document.push(EditCommand(self.document, drop.batch, f"Place {name}"))
        if drop.device_id not in self.design.index.devices:
            return None
        self.document.select(drop.device_id)
        self.say(drop.text + " Drag from it to a device to cable it.", 10000)
        return drop.device_id

    # -- context menu: what a failure costs -------------------------------------------------
    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt's name
        box = self.box_at(event.pos())
        bundle = self.bundle_at(event.pos()) if box is None else None
        menu = QMenu(self)
        if box is not None and box.kind in ("switch", "switches") and box.plane != UNCABLED:
            what = "this switch" if box.kind == "switch" else f"these {len(box.members)} switches"
            action = menu.addAction(f"What if {what} fails?")
            action.triggered.connect(lambda _=False, b=box: self.show_failure(b))
        if box is not None:
            show = menu.addAction("Show in Racks view")
            show.triggered.connect(lambda _=False, b=box: self.showObject.emit(b.members[0]))
        if bundle is not None:
            count = format_count(bundle.count, "link")
            delete = menu.addAction(f"Delete {count}")
            delete.triggered.connect(lambda _=False, b=bundle: self._delete_bundle(b))
        if not menu.isEmpty():
            menu.exec(event.globalPos())

    def _delete_bundle(self, bundle: Bundle) -> None:
        self.document.select_many(bundle.link_ids)
        self.delete_selected_links()

    def failure_text(self, box: Box) -> str:
        """What losing the box's switches costs, in the analytics' figures
        (:func:`workbench.calc.fabric.failure.failure_impact`)."""
        from workbench.calc.fabric.failure import failure_impact  # networkx: on first use

        try:
            impact = failure_impact(self.design, box.plane, list(box.members))
        except ValueError as exc:
            return f"No failure analysis for {box.title}: {exc}"
        lost = impact.bandwidth_lost_pct
        cut = len(impact.hosts_cut_off)
        hosts = "no node cut off" if not cut else f"{format_count(cut, 'node')} cut off"
        return (
            f"If {box.title} fails: {lost:.1f} % of the {box.plane} plane's bandwidth "
            f"lost, {hosts}."
        )

    def show_failure(self, box: Box) -> str:
        text = self.failure_text(box)
        self.say(text, 15000)
        QToolTip.showText(self.mapToGlobal(self.mapFromScene(QPointF(box.x, box.y))), text, self)
        return text

    # -- tooltips ---------------------------------------------------------------------------
    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.ToolTip:
            pos = event.pos()  # type: ignore[attr-defined]
            text = self._tooltip(pos)
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())  # type: ignore[attr-defined]
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def _tooltip(self, pos: QPoint) -> str:
        box = self.box_at(pos)
        if box is not None:
            links = sum(
                self.fabric.layout.bundles[k].count
                for k in self.fabric.layout.bundles_at.get(box.key, ())
            )
            lines = [f"<b>{box.title}</b>"]
            if box.detail:
                lines.append(box.detail.replace("\n", "<br>"))
            lines.append(f"{format_count(links, 'link')} drawn · drag to another box to cable")
            return "<br>".join(lines)
        bundle = self.bundle_at(pos)
        return self._bundle_text(bundle) if bundle is not None else ""

    def _bundle_text(self, bundle: Bundle) -> str:
        a, b = self.fabric.layout.ends(bundle)
        return f"{format_count(bundle.count, 'link')} between {a.title} and {b.title}"

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.overlays.place()
