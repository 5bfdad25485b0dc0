"""What a person does to racks with the mouse: drop from the catalog, drag devices,
rubber-band select.

Each gesture is a small controller the rack view hands its events to (architecture:
"each mouse mode is its own small interaction class").  While a drop or a move hovers
over a rack, the target units are highlighted with the verdict of
:func:`workbench.rules.drops.judge_drop` (green fits, amber over budget, red refused) and
its reason goes to the status bar; releasing pushes ONE undoable command, however many
devices move.  The model decides everything; these classes only translate the pointer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QPoint, QRect, QRectF, QSize
from PySide6.QtGui import QBrush, QColor, QPen, QPolygonF
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsRectItem,
    QGraphicsScene,
    QRubberBand,
    QWidget,
)

from workbench.calc.summary import LoadCache
from workbench.catalog.item import CatalogItem
from workbench.model.errors import EditError
from workbench.model.hall_edits import Slot, move_devices
from workbench.render import rack_geometry as geo
from workbench.rules.drops import DropState, DropVerdict, judge_drop
from workbench.ui.catalog.palette import SLUG_MIME
from workbench.ui.commands import EditCommand
from workbench.ui.racks.scene import SCENE_SCALE, RackItem

if TYPE_CHECKING:
    from workbench.model import Design
    from workbench.ui.shell.document import Document


class RackView(Protocol):
    """What the gestures read of the rack view (:class:`workbench.ui.racks.view.RackView`
    holds them, so they name the shape instead of importing the view back)."""

    document: Document

    @property
    def design(self) -> Design: ...

    @property
    def face(self) -> str: ...

    def rack_item(self, rack_id: str) -> RackItem | None: ...

    def rack_and_u_at(self, view_pos: QPoint) -> tuple[str, int | None] | None: ...

    def say(self, text: str, timeout_ms: int = 0) -> None: ...

    def scene(self) -> QGraphicsScene: ...

    def viewport(self) -> QWidget: ...

    def mapToScene(self, rect: QRect) -> QPolygonF: ...  # noqa: N802 - Qt's name


#: Highlight colours per verdict (fill with alpha, border).
VERDICT_COLOURS: dict[DropState, str] = {
    DropState.FITS: "#2e7d32",
    DropState.OVER_BUDGET: "#f9a825",
    DropState.REFUSED: "#c62828",
}


class SlotHighlight:
    """Translucent rectangles over the units a drop or move would take."""

    def __init__(self, view: RackView):
        self.view = view
        self._items: list[QGraphicsRectItem] = []

    def show(self, rack_item: RackItem, slots: Sequence[Slot], verdict: DropVerdict) -> None:
        self.clear()
        colour = QColor(VERDICT_COLOURS[verdict.state])
        fill = QColor(colour)
        fill.setAlpha(70)
        u_total = geo.rack_units(rack_item.rack, self.view.design) if rack_item.rack else 42
        for slot in slots:
            height = geo.item_height_u(slot.item.u_height)  # "2U" from a script reads 0U
            if slot.u is None or not height > 0:
                rect = geo.zero_u_rect(u_total, SCENE_SCALE)
            else:
                rect = geo.u_rect(slot.u, height, u_total, SCENE_SCALE)
            item = QGraphicsRectItem(QRectF(rect.x, rect.y, rect.w, rect.h))
            item.setPos(rack_item.pos())
            item.setBrush(QBrush(fill))
            item.setPen(QPen(colour, 2))
            item.setZValue(50)
            item.setToolTip(verdict.reason)
            self.view.scene().addItem(item)
            self._items.append(item)

    def clear(self) -> None:
        for item in self._items:
            scene = item.scene()
            if scene is not None:
                scene.removeItem(item)
        self._items.clear()


@dataclass
class _Target:
    rack_id: str
    slots: list[Slot]
    verdict: DropVerdict


class DropController:
    """Drags from the catalog palette: highlight while over a rack, place on drop."""

    def __init__(self, view: RackView):
        self.view = view
        self.highlight = SlotHighlight(view)
        self._cache = LoadCache()
        self._target: _Target | None = None

    @staticmethod
    def slug_of(mime) -> str | None:
        if not mime.hasFormat(SLUG_MIME):
            return None
        slugs = bytes(mime.data(SLUG_MIME).data()).decode("utf-8").split()
        return slugs[0] if slugs else None

    def _item(self, slug: str) -> CatalogItem | None:
        design = self.view.document.design
        item = design.device_types.get(slug)
        catalog = self.view.document.catalog
        if item is None and catalog is not None:
            item = catalog.get(slug) if hasattr(catalog, "get") else None
        return item

    def enter(self, event) -> None:
        slug = self.slug_of(event.mimeData())
        if slug is None or self._item(slug) is None:
            event.ignore()
            return
        self._cache = LoadCache()
        self.move(event)
        # Take the drag wherever it enters (a person's pointer crosses the margin or the
        # floor between racks first): Qt sends no move or drop to a view that refused
        # the enter.  Each move then judges the slot under the pointer.
        event.acceptProposedAction()

    def move(self, event) -> None:
        slug = self.slug_of(event.mimeData())
        item = self._item(slug) if slug else None
        hit = self.view.rack_and_u_at(event.position().toPoint())
        if item is None or hit is None:
            self.leave()
            if item is not None:
                self.view.say(f"{item.label} → drop it onto a rack's units.")
            event.ignore()
            return
        rack_id, u = hit
        rack = self.view.design.find_rack(rack_id)
        rack_item = self.view.rack_item(rack_id)
        if rack is None or rack_item is None:
            event.ignore()
            return
        slots = [Slot(item, u if item.u_height > 0 else None, self.view.face)]
        verdict = judge_drop(self.view.design, rack, slots, self._cache)
        self._target = _Target(rack_id, slots, verdict)
        self.highlight.show(rack_item, slots, verdict)
        self.view.say(f"{item.label} → {verdict.reason}")
        if verdict.allowed:
            event.acceptProposedAction()
        else:
            event.ignore()

    def leave(self) -> None:
        self.highlight.clear()
        self._target = None

    def drop(self, event) -> None:
        target, self._target = self._target, None
        self.highlight.clear()
        slug = self.slug_of(event.mimeData())
        if target is None or slug is None or not target.verdict.allowed:
            if target is not None:
                self.view.say(f"Not placed: {target.verdict.reason}", 8000)
            event.ignore()
            return
        slot = target.slots[0]
        document = self.view.document
        placed = document.place_new_device(target.rack_id, slug, slot.u, slot.face, select=True)
        if placed is None:
            event.ignore()
            return
        event.acceptProposedAction()
        if target.verdict.state is DropState.OVER_BUDGET:
            self.view.say(f"Placed, but over budget: {target.verdict.reason}", 10000)
        else:
            found = document.design.find_device(placed)
            self.view.say(f"Placed {found[1].name if found else placed}.", 4000)


class MoveController:
    """Drags of devices already in racks: all selected devices move together, keeping
    their heights relative to the one grabbed."""

    def __init__(self, view: RackView):
        self.view = view
        self.highlight = SlotHighlight(view)
        self._press: QPoint | None = None
        self._grabbed: str | None = None
        self._grab_offset = 0
        self._moving: list[str] = []
        self._target: _Target | None = None
        self._cache = LoadCache()

    @property
    def active(self) -> bool:
        return bool(self._moving)

    def press(self, pos: QPoint, device_id: str) -> None:
        """A press on a device: a move starts once the pointer travels far enough."""
        found = self.view.design.find_device(device_id)
        # A device at no whole unit ("abc", 1.5: a script's design) is not dragged by its
        # units; the inspector shows where it claims to be.
        low = geo.whole_unit(found[1].position) if found is not None else None
        if low is None:
            return
        hit = self.view.rack_and_u_at(pos)
        self._press, self._grabbed = pos, device_id
        self._grab_offset = (hit[1] - low) if hit and hit[1] is not None else 0

    def drag(self, pos: QPoint) -> bool:
        """The pointer moved with the button held; True while a move is under way."""
        if self._press is None or self._grabbed is None:
            return False
        if not self._moving:
            if (pos - self._press).manhattanLength() < QApplication.startDragDistance():
                return False
            selected = [
                i for i in self.view.document.selected if i in self.view.design.index.devices
            ]
            self._moving = selected if self._grabbed in selected else [self._grabbed]
            self._cache = LoadCache()
        self._show(pos)
        return True

    def _slots(self, u: int) -> list[Slot]:
        design = self.view.design
        grabbed = design.find_device(self._grabbed or "")
        assert grabbed is not None
        base = geo.whole_unit(grabbed[1].position)
        assert base is not None  # see press()
        new_low = u - self._grab_offset
        slots = []
        for device_id in self._moving:
            found = design.find_device(device_id)
            if found is None:
                continue
            device = found[1]
            item = design.device_types.get(device.device_type)
            if item is None:
                continue
            low = geo.whole_unit(device.position)
            position = None if low is None else low - base + new_low
            slots.append(
                Slot(
                    item,
                    position,
                    self.view.face if len(self._moving) == 1 else device.face,
                    device,
                )
            )
        return slots

    def _show(self, pos: QPoint) -> None:
        hit = self.view.rack_and_u_at(pos)
        u = hit[1] if hit is not None else None
        if hit is None or u is None:
            self.highlight.clear()
            self._target = None
            self.view.say("Move onto a rack's units.")
            return
        rack_id = hit[0]
        rack = self.view.design.find_rack(rack_id)
        rack_item = self.view.rack_item(rack_id)
        if rack is None or rack_item is None:
            return
        slots = self._slots(u)
        verdict = judge_drop(self.view.design, rack, slots, self._cache)
        self._target = _Target(rack_id, slots, verdict)
        self.highlight.show(rack_item, slots, verdict)
        self.view.say(verdict.reason)

    def release(self) -> bool:
        """End the gesture; True when it was a move (so the click selects nothing)."""
        moving, target = self._moving, self._target
        self._press, self._grabbed, self._moving, self._target = None, None, [], None
        self.highlight.clear()
        if not moving:
            return False
        if target is None or not target.verdict.allowed:
            if target is not None:
                self.view.say(f"Not moved: {target.verdict.reason}", 8000)
            return True
        document = self.view.document
        moves = [(s.device.id, s.u, s.face) for s in target.slots if s.device is not None]
        unchanged = all(
            (found := document.design.find_device(d)) is not None
            and found[0].id == target.rack_id
            and found[1].position == u
            and found[1].face == f
            for d, u, f in moves
        )
        if unchanged:
            return True
        try:
            batch = move_devices(document.design, target.rack_id, moves)
        except EditError as exc:
            self.view.say(f"Not moved: {exc}", 8000)
            return True
        what = "device" if len(moves) == 1 else f"{len(moves)} devices"
        document.push(EditCommand(document, batch, f"Move {what}"))
        if target.verdict.state is DropState.OVER_BUDGET:
            self.view.say(f"Moved, but over budget: {target.verdict.reason}", 10000)
        return True


class RubberBandSelect:
    """Drag a rectangle over the racks: every device it touches is selected."""

    def __init__(self, view: RackView):
        self.view = view
        self._band = QRubberBand(QRubberBand.Shape.Rectangle, view.viewport())
        self._origin: QPoint | None = None

    @property
    def active(self) -> bool:
        return self._origin is not None

    def start(self, pos: QPoint) -> None:
        self._origin = pos
        self._band.setGeometry(QRect(pos, QSize()))
        self._band.show()

    def drag(self, pos: QPoint) -> None:
        if self._origin is not None:
            self._band.setGeometry(QRect(self._origin, pos).normalized())

    def release(self, pos: QPoint, add: bool) -> None:
        if self._origin is None:
            return
        rect = QRect(self._origin, pos).normalized()
        self._origin = None
        self._band.hide()
        area = self.view.mapToScene(rect).boundingRect()
        hits = self.devices_in(area)
        base = list(self.view.document.selected) if add else []
        self.view.document.select_many([*base, *hits])
        if hits:
            self.view.say(f"{len(hits):,} device{'s' if len(hits) != 1 else ''} selected.", 4000)

    def devices_in(self, area: QRectF) -> list[str]:
        found: list[str] = []
        for item in self.view.scene().items(area):
            if not isinstance(item, RackItem):
                continue
            local = item.mapRectFromScene(area)
            for block in item.blocks:
                r = block.rect
                if not block.other_face and local.intersects(QRectF(r.x, r.y, r.w, r.h)):
                    found.append(block.device_id)
        return found


__all__ = [
    "VERDICT_COLOURS",
    "DropController",
    "MoveController",
    "RubberBandSelect",
    "SlotHighlight",
]
