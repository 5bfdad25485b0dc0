"""The hall as a graphics scene: one item per rack, row labels, and their layout.

Scalability decides the shape: a 100,000-GPU campus has ~3,500 racks and ~19,000
devices, so each rack is ONE graphics item that paints its frame, U numbers and device
blocks through the shared painter (:func:`workbench.render.rack_painter.paint_rack`),
with no per-device items.  Zoomed out, text and U numbers are skipped (level of detail)
and each rack is cached as a device-resolution pixmap.

The scene mirrors the model and keeps only what drawing needs: rack id → item and row id
→ label items.  Which device is in which rack is the model's (its id index).  An edit's
:class:`~workbench.model.Change` decides the work: racks it names are repainted; when
racks came, went or moved, items are added or dropped for exactly those racks and the
rows are laid out again (positions only), instead of rebuilding the whole hall.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from workbench.model import Change, Design, Rack
from workbench.render import colors
from workbench.render import rack_geometry as geo
from workbench.render.rack_painter import paint_rack
from workbench.render.safe_figures import safe_rack_budgets
from workbench.units import format_count

if TYPE_CHECKING:
    from workbench.ui.shell.document import Document

#: Scene units per rack unit at zoom 1.
SCENE_SCALE = 10.0
RACK_GAP = 8.0
ROW_GAP = 36.0
ROW_LABEL_H = 34.0
SITE_LABEL_H = 46.0


class RackItem(QGraphicsItem):
    """One rack, drawn by the shared painter; holds the rack id, never model truth."""

    def __init__(self, scene: HallScene, rack: Rack):
        super().__init__()
        self.hall = scene
        self.rack_id = rack.id
        self._u_total = geo.rack_units(rack, scene.design)
        w, h = geo.rack_size(self._u_total, SCENE_SCALE)
        self._bounds = QRectF(0, 0, w, h)
        #: The device blocks, laid out when first drawn or asked for (None: not yet):
        #: a 100,000-GPU hall has 3,478 racks and the first frame shows a few dozen.
        self._blocks: list[geo.Block] | None = None
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(False)
        self.refresh()

    @property
    def rack(self) -> Rack | None:
        return self.hall.design.find_rack(self.rack_id)

    def refresh(self) -> None:
        """Re-read the rack from the model (after a command touched it) and repaint."""
        rack = self.rack
        if rack is None:
            return
        u_total = geo.rack_units(rack, self.hall.design)
        if u_total != self._u_total:
            self.prepareGeometryChange()
            self._u_total = u_total
            w, h = geo.rack_size(u_total, SCENE_SCALE)
            self._bounds = QRectF(0, 0, w, h)
        self._blocks = None
        self.setToolTip(f"{rack.name} — {format_count(len(rack.devices), 'device')}")
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
        figures = self.hall.document.figures
        paint_rack(
            painter,
            rack,
            self.hall.design,
            (0.0, 0.0),
            SCENE_SCALE,
            selected=self.hall.document.selected,
            detail=detail,
            face=self.hall.face,
            load=(load := figures.rack_load(self.rack_id)),
            blocks=self.blocks,
            mark=figures.rack_mark(self.rack_id),
            marks={d.id: m for d in rack.devices if (m := figures.object_mark(d.id)) is not None},
            budgets=None if load is None else safe_rack_budgets(self.hall.design, rack, load),
        )

    @property
    def blocks(self) -> list[geo.Block]:
        """The device blocks of the rack as it is (rack-local coordinates)."""
        if self._blocks is None:
            rack = self.rack
            self._blocks = (
                []
                if rack is None
                else geo.device_blocks(rack, self.hall.design, SCENE_SCALE, self.hall.face)
            )
        return self._blocks

    def object_at(self, local: QPointF) -> str:
        """The device id under a rack-local point, or this rack's id."""
        return geo.hit_test(self.blocks, local.x(), local.y()) or self.rack_id

    def block_rect(self, device_id: str) -> QRectF | None:
        """A device block's rectangle in item coordinates."""
        for block in self.blocks:
            if block.device_id == device_id:
                r = block.rect
                return QRectF(r.x, r.y, r.w, r.h)
        return None

    def u_at(self, local: QPointF) -> int | None:
        return geo.u_at(local.y(), self._u_total, SCENE_SCALE)


def _font(px: int, bold: bool) -> QFont:
    font = QFont()
    font.setPixelSize(px)
    font.setBold(bold)
    return font


class HallScene(QGraphicsScene):
    """Every site, row and rack of the document's design, laid out left to right per row
    and rows top to bottom."""

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.document = document
        self.face = "front"
        self.items_by_rack: dict[str, RackItem] = {}
        #: row or site id → (name label, count label or None)
        self._labels: dict[str, tuple[QGraphicsSimpleTextItem, QGraphicsSimpleTextItem | None]] = {}
        self._empty: QGraphicsSimpleTextItem | None = None
        self.setBackgroundBrush(QBrush(QColor("#eceff1")))
        self._title_font, self._count_font = _font(18, True), _font(12, False)
        self._site_font = _font(26, True)

    @property
    def design(self) -> Design:
        return self.document.design

    # -- building ------------------------------------------------------------------
    def rebuild(self) -> None:
        """Drop every item and build the hall anew (a new design)."""
        self.clear()
        self.items_by_rack.clear()
        self._labels.clear()
        self._empty = None
        for rack in self.design.iter_racks():
            self._add_item(rack)
        self.layout()

    def apply(self, change: Change) -> None:
        """Mirror ``change``: repaint the racks it names; add, drop and lay out again when
        racks came, went or moved."""
        if change.everything:
            self.rebuild()
            return
        index = self.design.index
        if change.layout or change.removed or change.added:
            # Only the racks the change names can have come or gone (not a walk of the
            # hall's 3,500 items after every device removed or dropped).
            for rack_id in change.racks:
                placed = index.racks.get(rack_id)
                if placed is None:
                    gone = self.items_by_rack.pop(rack_id, None)
                    if gone is not None:
                        self.removeItem(gone)
                elif rack_id not in self.items_by_rack:
                    self._add_item(placed[1])
        racks = set(change.racks)
        for device_id in change.devices:
            rack = index.rack_of(device_id)
            if rack is not None:
                racks.add(rack.id)
        for rack_id in racks:
            item = self.items_by_rack.get(rack_id)
            if item is not None:
                item.refresh()
        if change.layout:
            self.layout()

    def _add_item(self, rack: Rack) -> RackItem:
        item = RackItem(self, rack)
        self.addItem(item)
        self.items_by_rack[rack.id] = item
        return item

    def layout(self) -> None:
        """Put every rack item and label where the model's order says (positions only)."""
        y = 0.0
        seen: set[str] = set()
        multi_site = len(self.design.sites) > 1
        for site in self.design.sites:
            if multi_site:
                self._place_label(site.id, site.name, None, y, self._site_font)
                seen.add(site.id)
                y += SITE_LABEL_H
            for row in site.rows:
                count = format_count(len(row.racks), "rack")
                self._place_label(row.id, row.name, count, y, self._title_font)
                seen.add(row.id)
                y += ROW_LABEL_H
                x, row_h = 0.0, 0.0
                for rack in row.racks:
                    item = self.items_by_rack.get(rack.id) or self._add_item(rack)
                    if item.pos() != QPointF(x, y):
                        item.setPos(x, y)
                    bounds = item.boundingRect()
                    x += bounds.width() + RACK_GAP
                    row_h = max(row_h, bounds.height())
                y += row_h + ROW_GAP
        for key in [k for k in self._labels if k not in seen]:
            title, count_label = self._labels.pop(key)
            self.removeItem(title)
            if count_label is not None:
                self.removeItem(count_label)
        if not self.items_by_rack and self._empty is None:
            self._empty = self._text(
                "This design has no racks yet.\n\n"
                "Start with File ▸ New… (Ctrl+N) for a hall of racks, or with\n"
                "Hall ▸ Add Row (Ctrl+Shift+R) and Hall ▸ Add Racks… (Ctrl+Shift+A),\n"
                "then drag servers, switches and storage from the catalog on the left\n"
                "into the racks.",
                self._title_font,
                True,
            )
        elif self.items_by_rack and self._empty is not None:
            self.removeItem(self._empty)
            self._empty = None
        # Extra room at the bottom so the floating legend never hides the last footer.
        self.setSceneRect(self.itemsBoundingRect().adjusted(-40, -30, 40, 70))

    def _text(self, text: str, font: QFont, bold: bool) -> QGraphicsSimpleTextItem:
        item = QGraphicsSimpleTextItem(geo.as_text(text))  # a row named by a script: bytes
        item.setFont(font)
        item.setBrush(QColor(colors.TEXT if bold else colors.TEXT_MUTED))
        self.addItem(item)
        return item

    def _place_label(self, key: str, name: str, count: str | None, y: float, font: QFont) -> None:
        found = self._labels.get(key)
        if found is None:
            title = self._text(name, font, True)
            count_label = self._text(count, self._count_font, False) if count is not None else None
            self._labels[key] = found = (title, count_label)
        title, count_label = found
        name = geo.as_text(name)
        if title.text() != name:
            title.setText(name)
        title.setPos(0.0, y)
        if count_label is not None and count is not None:
            if count_label.text() != count:
                count_label.setText(count)
            count_label.setPos(QFontMetricsF(font).horizontalAdvance(name) + 14, y + 5)

    def set_face(self, face: str) -> None:
        """Show the front or the rear of every rack."""
        if face != self.face:
            self.face = face
            for item in self.items_by_rack.values():
                item.refresh()
