"""The hall plan as a graphics scene: rack footprints, hot and cold aisles, the tile grid.

The scene mirrors the model and holds no truth: per rack a
:class:`~workbench.ui.floor.items.Spot` (where its footprint is, which way it faces, its
worst budget), read again for exactly the racks a :class:`~workbench.model.Change`
names; per row a :class:`~workbench.ui.floor.items.RowItem`; the aisles read back from
where the rows stand (:func:`workbench.model.floor.aisles`), again only around the rows
that moved.  The tile grid is the scene's background: only the lines in the exposed
rectangle, and the fine ones only when they are far enough apart to help.  How the
items draw, and why they are shaped so, is in :mod:`workbench.ui.floor.items`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields
from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsScene

from workbench.calc.summary import RackLoad
from workbench.model import Change, Design, Rack
from workbench.model import floor as fl
from workbench.render import colors
from workbench.render.floor_painter import FRONT
from workbench.render.rack_geometry import as_text
from workbench.render.safe_figures import safe_rack_budgets
from workbench.rules.budgets import BudgetState
from workbench.ui.floor.items import (
    AISLE_LABEL_MM,
    FLOOR,
    GRID_MAJOR,
    GRID_MINOR,
    HALO_MM,
    OUTLINE,
    OUTSIDE,
    AisleItem,
    FootprintsItem,
    RowItem,
    Spot,
    lod_of,
    make_font,
    qrect,
    same_place,
)

if TYPE_CHECKING:
    from workbench.ui.shell.document import Document

#: What :func:`rack_budgets` may read of a rack and of its load: every figure but the
#: rack's identity, contents (already in its load) and floor place.
_BUDGET_RACK_FIELDS = tuple(
    f.name
    for f in fields(Rack)
    if f.name not in {"id", "name", "devices", "floor_x_mm", "floor_y_mm", "facing"}
)
_BUDGET_LOAD_FIELDS = tuple(f.name for f in fields(RackLoad) if f.name not in {"rack_id", "name"})


#: The farthest a rack may stand from the origin and still be drawn (100 km).
MAX_FLOOR_MM = 1e8


def _drawable_mm(value: object) -> bool:
    """True for a floor coordinate the plan can draw: a finite number within
    :data:`MAX_FLOOR_MM` of the origin."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and abs(value) <= MAX_FLOOR_MM
    )


class FloorScene(QGraphicsScene):
    """Every placed rack of the document's design on the hall floor."""

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.document = document
        self.settings = fl.FloorSettings()
        self.spots: dict[str, Spot] = {}
        self.rows: dict[str, RowItem] = {}
        #: row id → (the rectangle its placed racks cover, the way most face)
        self.extents: dict[str, tuple[fl.Rect, str]] = {}
        self.index = fl.FloorIndex()
        self.selected: frozenset[str] = frozenset()
        self.dragging: frozenset[str] = frozenset()
        self.unplaced: list[str] = []
        self.hall = QRectF()
        self.aisle_item: AisleItem | None = None
        self.aisle_font = make_font(AISLE_LABEL_MM)
        self.outline_pen = QPen(QColor(OUTLINE), 0)
        self.selection_pen = QPen(QColor(colors.SELECTION), 3)
        self.selection_pen.setCosmetic(True)
        self.front_brush = QBrush(QColor(FRONT))
        self.text_pen = QPen(QColor(colors.TEXT))
        self.fill_brushes = {s: QBrush(QColor(colors.budget_color(s))) for s in BudgetState}
        self.front_pen = QPen(QColor(FRONT), 2)
        self.front_pen.setCosmetic(True)
        self.footprints: FootprintsItem | None = None
        self._aisles: list[fl.Aisle] | None = None
        #: (the longest rack name, the narrowest footprint): when names are drawn
        self.name_fit: tuple[int, float] = (0, fl.DEFAULT_WIDTH_MM)
        self._fonts: dict[tuple[int, bool], QFont] = {}
        self._forget_memos()

    def _forget_memos(self) -> None:
        self._sizes: dict[str, tuple[float, float]] = {}
        self._states: dict[tuple, BudgetState] = {}
        self._loads: Mapping[str, RackLoad] | None = None
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)

    @property
    def design(self) -> Design:
        return self.document.design

    def font_for_px(self, mm: float, bold: bool = True) -> QFont:
        """A font ``mm`` high on the floor (kept: zooming asks for the same ones)."""
        key = (max(1, round(mm)), bold)
        font = self._fonts.get(key)
        if font is None:
            if len(self._fonts) > 64:
                self._fonts.clear()
            font = self._fonts[key] = make_font(key[0], bold)
        return font

    # -- reading the model -----------------------------------------------------------
    def _state(self, rack: Rack) -> BudgetState:
        """The rules' worst budget verdict on the rack (:func:`rack_budgets`).

        Racks alike in every budget figure (a hall of identical racks) share one
        verdict: it is computed once per distinct set of inputs, which turns 3,500 calls
        at 100,000 GPUs into a handful.  The memo is dropped with the design, and when
        the catalog snapshot changes (a rack type's limits come from it)."""
        load = self._loads.get(rack.id) if self._loads is not None else None
        if load is None:
            self._loads = self.document.figures.rack_loads
            load = self._loads.get(rack.id)
            if load is None:
                return BudgetState.UNKNOWN
        key: tuple | None = (
            tuple([getattr(rack, name) for name in _BUDGET_RACK_FIELDS]),
            tuple([getattr(load, name) for name in _BUDGET_LOAD_FIELDS]),
        )
        try:
            state = self._states.get(key)  # type: ignore[arg-type]
        except TypeError:  # a field holding a list (a script's design): not cached
            state, key = None, None
        if state is None:
            budgets = safe_rack_budgets(self.design, rack, load)
            state = budgets.worst() if budgets is not None else BudgetState.UNKNOWN
            if key is not None:
                self._states[key] = state
        return state

    def _spot(self, rack: Rack, row_id: str) -> Spot | None:
        # A place the plan cannot draw (text, NaN, infinity, kilometres away: a script's
        # design) leaves the rack off the plan, listed with the unplaced ones, instead
        # of the tile grid and the index walking an endless floor.
        if not (_drawable_mm(rack.floor_x_mm) and _drawable_mm(rack.floor_y_mm)):
            return None
        try:
            rect = fl.footprint(self.design, rack, self._sizes)
        except (TypeError, ValueError, OverflowError):  # odd sizes of the rack's item
            return None
        if rect is None:
            return None
        return Spot(
            rack.id, row_id, as_text(rack.name), qrect(rect), rack.facing, self._state(rack)
        )

    def _set_spot(self, rack_id: str, spot: Spot | None) -> None:
        if spot is None:
            self.spots.pop(rack_id, None)
            self.index.remove(rack_id)
            return
        self.spots[rack_id] = spot
        r = spot.rect
        self.index.add(rack_id, fl.Rect(r.left(), r.top(), r.right(), r.bottom()))

    def _extent(self, row_id: str) -> None:
        """The row's rectangle and facing, from the footprints already read."""
        placed = self.design.index.rows.get(row_id)
        racks = [r for r in placed[1].racks if r.id in self.spots] if placed is not None else []
        if not racks:
            self.extents.pop(row_id, None)
            return
        rect = QRectF(self.spots[racks[0].id].rect)
        for rack in racks[1:]:
            rect = rect.united(self.spots[rack.id].rect)
        box = fl.Rect(rect.left(), rect.top(), rect.right(), rect.bottom())
        self.extents[row_id] = (box, fl.row_facing(racks))

    # -- building ------------------------------------------------------------------
    def rebuild(self) -> None:
        """Read every rack again (a new design)."""
        self.clear()
        self.spots.clear()
        self.rows.clear()
        self.extents.clear()
        self.index = fl.FloorIndex()
        self.settings = fl.FloorSettings.of(self.design)
        self._forget_memos()
        self.aisle_item = AisleItem(self)
        self.addItem(self.aisle_item)
        self.footprints = FootprintsItem(self)
        self.addItem(self.footprints)
        for site in self.design.sites:
            for row in site.rows:
                for rack in row.racks:
                    self._set_spot(rack.id, self._spot(rack, row.id))
        self.footprints.reset()
        self._aisles = None
        self._sync_rows(None)

    def _sync_rows(self, touched: set[str] | None) -> None:
        """Make one item per row of the design, and lay out again the rows ``touched``
        (None: all) — their racks, extent and label; then the aisles and the hall."""
        design = self.design
        alive: set[str] = set()
        unplaced: list[str] = []
        before: dict[str, tuple[fl.Rect, str] | None] = {}
        for site in design.sites:
            for row in site.rows:
                alive.add(row.id)
                unplaced += [r.id for r in row.racks if r.id not in self.spots]
                if touched is not None and row.id not in touched and row.id in self.rows:
                    continue
                before[row.id] = self.extents.get(row.id)
                self._extent(row.id)
                item = self.rows.get(row.id)
                if item is None:
                    item = self.rows[row.id] = RowItem(self, row.id)
                    self.addItem(item)
                item.relayout(as_text(row.name), [r.id for r in row.racks])
        for row_id in [r for r in self.rows if r not in alive]:
            self.removeItem(self.rows.pop(row_id))
            before[row_id] = self.extents.pop(row_id, None)
        self.unplaced = unplaced
        items = self.rows.values()
        self.name_fit = (
            max((i.longest for i in items), default=0),
            min((i.narrowest for i in items), default=fl.DEFAULT_WIDTH_MM),
        )
        moved = {r: old for r, old in before.items() if self.extents.get(r) != old}
        if touched is None or self._aisles is None:
            self._refresh_aisles(None)
        elif moved:
            self._refresh_aisles(moved)

    def _refresh_aisles(self, moved: dict[str, tuple[fl.Rect, str] | None] | None) -> None:
        """Read the aisles again: all of them (``moved`` None), or only around the rows
        whose extents moved (row id → its extent before), keeping the rest."""
        settings = self.settings
        if moved is None or self._aisles is None:
            found = fl.aisles(self.design, settings, self.extents)
        else:
            # Where those rows' strips were and are now; every row with an aisle there
            # is read again with them, so merges and "mixed" stay right.
            region: list[fl.Rect] = []
            for row_id, old in moved.items():
                for extent in (old, self.extents.get(row_id)):
                    if extent is not None:
                        rect, facing = extent
                        wide = max(settings.cold_aisle_mm, settings.hot_aisle_mm)
                        region.append(
                            fl.Rect(rect.x0 - wide, rect.y0 - wide, rect.x1 + wide, rect.y1 + wide)
                        )
            rows = set(moved)
            for aisle in self._aisles:
                if any(aisle.rect.overlaps(r) for r in region):
                    rows.update(aisle.rows)
            local = {r: self.extents[r] for r in rows if r in self.extents}
            kept = [a for a in self._aisles if rows.isdisjoint(a.rows)]
            found = kept + fl.aisles(self.design, settings, local)
        self._aisles = found
        if self.aisle_item is not None:
            self.aisle_item.set_aisles(found)
        self._refresh_hall()

    def _refresh_hall(self) -> None:
        """The floor drawn around everything (whole tiles), and the scene a bit beyond."""
        found = self._aisles or []
        everything = fl.bounds([*(a.rect for a in found), *(e[0] for e in self.extents.values())])
        gap = self.settings.main_aisle_mm
        tile = self.settings.tile_mm
        if everything is None:
            hall = QRectF(0, 0, 10 * tile, 10 * tile)
        else:
            x0 = min(0.0, fl.ceil_to(everything.x0 - gap, tile) - tile)
            y0 = min(0.0, fl.ceil_to(everything.y0 - gap, tile) - tile)
            x1 = fl.ceil_to(everything.x1 + gap, tile)
            y1 = fl.ceil_to(everything.y1 + gap, tile)
            hall = QRectF(x0, y0, x1 - x0, y1 - y0)
        if hall != self.hall:
            self.hall = hall
            margin = 4 * gap
            self.setSceneRect(hall.adjusted(-margin, -margin, margin, margin))
            self.update()

    def apply(self, change: Change) -> None:
        """Mirror ``change``: read again the racks it names (and the racks of the devices
        it names: their load moved); re-sync rows when racks came, went or moved."""
        if change.everything:
            self.rebuild()
            return
        design = self.design
        if change.design and fl.FloorSettings.of(design) != self.settings:
            self.rebuild()
            return
        if change.types:
            self._forget_memos()
        self._loads = None  # loads are read again (the live figures bring them up to date)
        index = design.index
        racks = set(change.racks)
        for device_id in change.devices:
            rack = index.rack_of(device_id)
            if rack is not None:
                racks.add(rack.id)
        touched: set[str] = set()  # rows whose footprints moved, came or went
        replaced: list[tuple[Spot, Spot]] = []
        came_or_went = False
        for rack_id in racks:
            old = self.spots.get(rack_id)
            placed = index.racks.get(rack_id)
            new = self._spot(placed[1], placed[0].id) if placed is not None else None
            if old == new:
                continue
            self._set_spot(rack_id, new)
            if old is None or new is None:
                came_or_went = True
            else:
                replaced.append((old, new))
            if old is not None and new is not None and same_place(old, new):
                self._repaint(frozenset({rack_id}))  # only its colour or name: the text
            else:
                touched |= {s.row_id for s in (old, new) if s is not None}
        if self.footprints is not None:
            if came_or_went:
                self.footprints.reset()
            else:
                for old, new in replaced:
                    self.footprints.replace(old, new)
        if change.layout or change.added or change.removed or change.moved:
            named = change.moved | change.added | change.removed
            touched |= {i for i in named if i in index.rows or i in self.rows}
            touched |= {placed[0].id for r in racks if (placed := index.racks.get(r)) is not None}
            self._sync_rows(touched)
        elif touched:
            self._sync_rows(touched)

    # -- questions the view asks -------------------------------------------------------
    def rack_at(self, pos: QPointF) -> str | None:
        """The rack whose footprint holds the scene point, or None."""
        return self.index.at(pos.x(), pos.y())

    def row_label_at(self, pos: QPointF) -> str | None:
        """The row whose label (its drag handle) holds the scene point, or None."""
        for item in self.items(pos):
            if isinstance(item, RowItem) and item.label_rect.contains(pos):
                return item.row_id
        return None

    def rack_rect(self, rack_id: str) -> QRectF | None:
        spot = self.spots.get(rack_id)
        return QRectF(spot.rect) if spot is not None else None

    def set_selected(self, rack_ids: frozenset[str]) -> None:
        """Highlight these racks (repaint only the footprints whose highlight flips)."""
        flipped = self.selected ^ rack_ids
        self.selected = rack_ids
        self._repaint(flipped)

    def set_dragging(self, rack_ids: frozenset[str]) -> None:
        flipped = self.dragging ^ rack_ids
        self.dragging = rack_ids
        self._repaint(flipped)

    def _repaint(self, rack_ids: frozenset[str]) -> None:
        """Repaint these racks' footprints and text (what is drawn of them is current)."""
        for rack_id in rack_ids:
            spot = self.spots.get(rack_id)
            if spot is None:
                continue
            area = spot.rect.adjusted(-HALO_MM, -HALO_MM, HALO_MM, HALO_MM)
            if self.footprints is not None:
                self.footprints.update(area)
            item = self.rows.get(spot.row_id)
            if item is not None:
                item.update(area)

    # -- the floor itself ------------------------------------------------------------
    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:  # noqa: N802
        exposed = QRectF(rect)
        painter.fillRect(exposed, QColor(OUTSIDE))
        area = exposed.intersected(self.hall)
        if area.isEmpty():
            return
        painter.fillRect(area, QColor(FLOOR))
        lod = lod_of(painter)
        tile = self.settings.tile_mm
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # axis-aligned
        for step, color, min_px in ((tile, GRID_MINOR, 8.0), (tile * 10, GRID_MAJOR, 4.0)):
            if step * lod < min_px:
                continue
            painter.setPen(QPen(QColor(color), 0))
            lines: list[QLineF] = []
            x = fl.ceil_to(area.left() - self.hall.left(), step) + self.hall.left()
            while x <= area.right():
                lines.append(QLineF(x, area.top(), x, area.bottom()))
                x += step
            y = fl.ceil_to(area.top() - self.hall.top(), step) + self.hall.top()
            while y <= area.bottom():
                lines.append(QLineF(area.left(), y, area.right(), y))
                y += step
            painter.drawLines(lines)
        painter.setPen(QPen(QColor(GRID_MAJOR), 0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self.hall)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
