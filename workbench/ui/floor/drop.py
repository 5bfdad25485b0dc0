"""Catalog drags onto the floor plan: drop a server on a rack's footprint and it goes
into that rack where a fill would put it (:mod:`workbench.ui.racks.place_here`).

Like the rack view, the plan takes a catalog drag wherever it enters (Qt sends no move
or drop to a view that refused the enter), judges the rack under the pointer on every
move, outlines it green, amber or red and says why in the status bar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QPoint
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsScene

from workbench.ui.racks.interaction import VERDICT_COLOURS, DropController
from workbench.ui.racks.place_here import catalog_item, judge_in_rack, place

if TYPE_CHECKING:
    from workbench.model import Design
    from workbench.ui.floor.items import Spot
    from workbench.ui.shell.document import Document


class FloorView(Protocol):
    """What a drop reads of the floor plan (:class:`workbench.ui.floor.plan.FloorPlanView`
    holds this helper, so the helper names the shape instead of importing the view back)."""

    document: Document

    @property
    def design(self) -> Design: ...

    def ensure_built(self) -> None: ...

    def rack_at(self, view_pos: QPoint) -> str | None: ...

    def spot(self, rack_id: str) -> Spot | None: ...

    def say(self, text: str, timeout_ms: int = 0) -> None: ...

    def scene(self) -> QGraphicsScene: ...


class FloorDrop:
    """The floor plan's share of a catalog drag."""

    def __init__(self, view: FloorView):
        self.view = view
        self._outline: QGraphicsRectItem | None = None
        self._target: str | None = None

    def enter(self, event) -> None:
        slug = DropController.slug_of(event.mimeData())
        if slug is None or catalog_item(self.view.document, slug) is None:
            event.ignore()
            return
        self.view.ensure_built()
        self.move(event)
        event.acceptProposedAction()  # wherever it enters: each move judges the rack

    def move(self, event) -> None:
        slug = DropController.slug_of(event.mimeData())
        item = catalog_item(self.view.document, slug) if slug else None
        rack_id = self.view.rack_at(event.position().toPoint())
        rack = self.view.design.find_rack(rack_id) if rack_id else None
        spot = self.view.spot(rack_id) if rack_id else None
        if item is None or rack is None or spot is None:
            self.leave()
            if item is not None:
                self.view.say(f"{item.label} → drop it onto a rack.")
            event.ignore()
            return
        _slots, verdict = judge_in_rack(self.view.design, rack, item)
        self._target = rack.id
        self._show(spot.rect, VERDICT_COLOURS[verdict.state], verdict.reason)
        self.view.say(f"{item.label} → {rack.name}: {verdict.reason}")
        if verdict.allowed:
            event.acceptProposedAction()
        else:
            event.ignore()

    def _show(self, rect, colour: str, tip: str) -> None:
        if self._outline is None:
            self._outline = QGraphicsRectItem()
            self._outline.setZValue(60)
            self.view.scene().addItem(self._outline)
        fill = QColor(colour)
        fill.setAlpha(70)
        pen = QPen(QColor(colour), 0)
        pen.setCosmetic(True)
        pen.setWidth(3)
        self._outline.setRect(rect)
        self._outline.setBrush(QBrush(fill))
        self._outline.setPen(pen)
        self._outline.setToolTip(tip)

    def leave(self) -> None:
        if self._outline is not None:
            scene = self._outline.scene()
            if scene is not None:
                scene.removeItem(self._outline)
            self._outline = None
        self._target = None

    def drop(self, event) -> None:
        target = self._target
        self.leave()
        slug = DropController.slug_of(event.mimeData())
        if target is None or slug is None:
            event.ignore()
            return
        placed, message = place(self.view.document, target, slug)
        self.view.say(message, 8000)
        if placed is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.view.document.select(placed)


__all__ = ["FloorDrop"]
