"""What the hall plan draws: footprints, rows' text, aisles and a drag's ghost.

One scene unit is one millimetre of floor, in the coordinates of
:mod:`workbench.model.floor` (x east, y south: north is up).

Scalability decides the shape: a 100,000-GPU hall has ~3,500 racks in ~440 rows.  ONE
item (:class:`FootprintsItem`) paints every footprint in a few batched calls (one
``drawRects`` per budget colour, one for the front edges: C++ loops over thousands of
kept rectangles, Qt clips what is off screen), so a frame of the whole hall costs a few
Python calls.  Text is per row (:class:`RowItem`: the row's label, and zoomed in its
racks' names and loads), where Qt's index skips the rows off screen; it appears only
when it is big enough to read and never grows past a comfortable size (level of detail,
as the rack drawing skips text zoomed out).  The aisles are one item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen, QStaticText, QTransform
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from workbench.model import floor as fl
from workbench.render import colors
from workbench.render.floor_painter import COLD_FILL, COLD_TEXT, HOT_FILL, HOT_TEXT, metres
from workbench.rules.budgets import BudgetState, unknown_note

if TYPE_CHECKING:
    from workbench.ui.shell.document import Document


class FloorScene(Protocol):
    """What the items read of their scene (:class:`workbench.ui.floor.scene.FloorScene`
    builds them, so they name the shape instead of importing the scene back)."""

    settings: fl.FloorSettings
    spots: dict[str, Spot]
    extents: dict[str, tuple[fl.Rect, str]]
    selected: frozenset[str]
    dragging: frozenset[str]
    text_pen: QPen
    outline_pen: QPen
    selection_pen: QPen
    front_pen: QPen
    front_brush: QBrush
    fill_brushes: dict[BudgetState, QBrush]
    aisle_font: QFont
    name_fit: tuple[int, float]
    document: Document

    def font_for_px(self, mm: float, bold: bool = True) -> QFont: ...


#: Text is drawn only where it is at least this many pixels high.
MIN_TEXT_PX = 7.0
#: Font heights on the floor, mm: a rack's name, a row's label, an aisle's label.
NAME_MM = 170.0
ROW_LABEL_MM = 850.0
AISLE_LABEL_MM = 320.0
#: Text never grows taller than this on screen, however far in the plan is zoomed.
NAME_MAX_PX = 15.0
LOAD_MAX_PX = 12.0
LABEL_MAX_PX = 30.0
AISLE_MAX_PX = 18.0
#: A character's width as a share of the font's height (for "does it fit" tests).
CHAR_EM = 0.62
#: The dark band marking a rack's front: this deep, and never thinner than 2 px.
FRONT_MM = 110.0
FRONT_MIN_PX = 2.0
#: Room around items for outlines drawn in pixels (selection) at any sane zoom.
HALO_MM = 600.0

FLOOR = "#fbfcfc"
OUTSIDE = "#e4e9ec"
GRID_MINOR = "#e6ebee"
GRID_MAJOR = "#cdd6db"
MIXED_FILL = "#ecd5f2"
MIXED_TEXT = "#7b1fa2"
OUTLINE = "#546e7a"


def same_place(a: Spot, b: Spot) -> bool:
    return a.rect == b.rect and a.facing == b.facing and a.row_id == b.row_id and a.name == b.name


def _frect(rect: QRectF) -> fl.Rect:
    return fl.Rect(rect.left(), rect.top(), rect.right(), rect.bottom())


def qrect(rect: fl.Rect) -> QRectF:
    return QRectF(rect.x0, rect.y0, rect.width, rect.height)


def front_band(rect: QRectF, facing: str, depth: float) -> QRectF:
    """The band along a footprint's front edge, ``depth`` deep, inside the footprint."""
    side = fl.front_side(facing)
    if side == "top":
        return QRectF(rect.left(), rect.top(), rect.width(), depth)
    if side == "left":
        return QRectF(rect.left(), rect.top(), depth, rect.height())
    if side == "right":
        return QRectF(rect.right() - depth, rect.top(), depth, rect.height())
    return QRectF(rect.left(), rect.bottom() - depth, rect.width(), depth)


def _band(spot: Spot) -> QRectF:
    rect = spot.rect
    return front_band(rect, spot.facing, min(FRONT_MM, rect.height() / 3, rect.width() / 3))


def front_line(rect: QRectF, facing: str) -> QLineF:
    """A footprint's front edge."""
    side = fl.front_side(facing)
    if side == "top":
        return QLineF(rect.topLeft(), rect.topRight())
    if side == "left":
        return QLineF(rect.topLeft(), rect.bottomLeft())
    if side == "right":
        return QLineF(rect.topRight(), rect.bottomRight())
    return QLineF(rect.bottomLeft(), rect.bottomRight())


def short_row_name(name: str) -> str:
    """What the plan writes beside a row: "Row B" → "B" (other names as they are)."""
    return name[4:] if name.startswith("Row ") and len(name) > 4 else name


def make_font(mm: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(max(1, round(mm)))
    font.setBold(bold)
    return font


def lod_of(painter: QPainter) -> float:
    """Screen pixels per millimetre of floor."""
    return QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())


@dataclass
class Spot:
    """What the plan draws of one placed rack."""

    rack_id: str
    row_id: str
    name: str
    rect: QRectF
    facing: str
    state: BudgetState


class FootprintsItem(QGraphicsItem):
    """Every footprint of the hall: fills by budget colour, front edges, selection.

    One item, so a frame hands the painter a few lists of thousands of rectangles each
    (``drawRects`` runs them in C++) instead of making thousands of Python calls; Qt
    clips what is off screen.  The lists are kept between frames, and a rack that moved
    or changed colour is put right in them in place (:meth:`replace`), so a drop on a
    100,000-GPU hall does not rebuild them.
    """

    def __init__(self, scene: FloorScene):
        super().__init__()
        self.plan = scene
        self._bounds = QRectF()
        self._slot: dict[str, int] = {}
        self._fills: dict[BudgetState, list[QRectF]] | None = None
        self._bands: list[QRectF] | None = None
        self._edges: list[QLineF] | None = None

    def reset(self) -> None:
        """Racks came or went: rebuild the lists (on the next paint) and the bounds."""
        self._slot = {rack_id: i for i, rack_id in enumerate(self.plan.spots)}
        self._fills = self._bands = self._edges = None
        bounds = QRectF()
        for spot in self.plan.spots.values():
            bounds = bounds.united(spot.rect)
        self._set_bounds(bounds)
        self.update()

    def _set_bounds(self, bounds: QRectF) -> None:
        bounds = bounds.adjusted(-HALO_MM, -HALO_MM, HALO_MM, HALO_MM)
        if bounds != self._bounds:
            self.prepareGeometryChange()
            self._bounds = bounds

    def replace(self, old: Spot, new: Spot) -> None:
        """The same rack, drawn anew (moved, turned or another colour)."""
        i = self._slot.get(new.rack_id)
        if i is None:
            self.reset()
            return
        if self._fills is not None:
            if old.state != new.state:
                self._fills = None
            else:
                same = self._fills[old.state]
                for k, rect in enumerate(same):
                    if rect is old.rect:
                        same[k] = new.rect
                        break
                else:
                    self._fills = None
        if self._edges is not None:
            self._edges[i] = front_line(new.rect, new.facing)
        if self._bands is not None:
            self._bands[i] = _band(new)
        if not self._bounds.contains(new.rect):
            self._set_bounds(self._bounds.united(new.rect))
        for rect in (old.rect, new.rect):
            self.update(rect.adjusted(-HALO_MM, -HALO_MM, HALO_MM, HALO_MM))

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def _fill_lists(self) -> dict[BudgetState, list[QRectF]]:
        if self._fills is None:
            self._fills = {}
            for spot in self.plan.spots.values():
                self._fills.setdefault(spot.state, []).append(spot.rect)
        return self._fills

    def _band_list(self) -> list[QRectF]:
        if self._bands is None:
            self._bands = [_band(s) for s in self.plan.spots.values()]
        return self._bands

    def _edge_list(self) -> list[QLineF]:
        if self._edges is None:
            self._edges = [front_line(s.rect, s.facing) for s in self.plan.spots.values()]
        return self._edges

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        lod = lod_of(painter)
        plan = self.plan
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # all axis-aligned
        outlined = lod * fl.DEFAULT_WIDTH_MM >= 5.0
        painter.setPen(plan.outline_pen if outlined else Qt.PenStyle.NoPen)
        for state, rects in self._fill_lists().items():
            painter.setBrush(plan.fill_brushes[state])
            painter.drawRects(rects)
        if lod * FRONT_MM >= FRONT_MIN_PX:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(plan.front_brush)
            painter.drawRects(self._band_list())
        else:  # zoomed out: the front edge as a line of a fixed width on screen
            painter.setPen(plan.front_pen)
            painter.drawLines(self._edge_list())
        spots = plan.spots
        lifted = [spots[r].rect for r in plan.dragging if r in spots]
        if lifted:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(255, 255, 255, 170))
            painter.drawRects(lifted)
        chosen = [spots[r].rect for r in plan.selected if r in spots]
        if chosen:
            painter.setPen(plan.selection_pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRects(chosen)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)


class RowItem(QGraphicsItem):
    """One row's text: its label beside it (the row's drag handle) and, zoomed in, the
    names and loads of its racks.  Qt's index skips the rows off screen."""

    def __init__(self, scene: FloorScene, row_id: str):
        super().__init__()
        self.plan = scene
        self.row_id = row_id
        self.rack_ids: list[str] = []
        self.label = ""
        self.label_rect = QRectF()
        self.length_mm = 0.0
        #: (label and size, font, laid-out text, where): kept while neither changes
        self._label: tuple[tuple[str, float], QFont, QStaticText, QPointF] | None = None
        self.longest = 0
        self.narrowest = fl.DEFAULT_WIDTH_MM
        self.shortest_long = fl.DEFAULT_DEPTH_MM
        self._bounds = QRectF()
        self.setZValue(1)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)

    def relayout(self, name: str, rack_ids: list[str]) -> None:
        """Take the row's racks and name again; recompute the label place and bounds."""
        spots = self.plan.spots
        self._label = None  # its place may move with the row
        self.rack_ids = [r for r in rack_ids if r in spots]
        self.label = short_row_name(name)
        self.longest = max((len(spots[r].name) for r in self.rack_ids), default=0)
        self.narrowest = min(
            (spots[r].rect.width() for r in self.rack_ids), default=fl.DEFAULT_WIDTH_MM
        )
        #: The shortest long side of a footprint: room for a name turned along it.
        self.shortest_long = min(
            (max(spots[r].rect.width(), spots[r].rect.height()) for r in self.rack_ids),
            default=fl.DEFAULT_DEPTH_MM,
        )
        extent = self.plan.extents.get(self.row_id)
        #: The row's length along its racks, mm (shown under its name).
        self.length_mm = max(extent[0].width, extent[0].height) if extent is not None else 0.0
        if extent is None:
            self.label_rect = QRectF()
        else:
            rect, facing = extent
            gap = self.plan.settings.main_aisle_mm
            if facing in ("east", "west"):
                self.label_rect = QRectF(rect.x0, rect.y0 - gap * 0.9, rect.width, gap * 0.8)
            else:
                self.label_rect = QRectF(rect.x0 - gap * 0.9, rect.y0, gap * 0.8, rect.height)
        bounds = QRectF(self.label_rect)
        for rack_id in self.rack_ids:
            bounds = bounds.united(self.plan.spots[rack_id].rect)
        if bounds != self._bounds:
            self.prepareGeometryChange()
            self._bounds = bounds
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        lod = lod_of(painter)
        exposed = option.exposedRect
        if self.rack_ids and self._names_fit(lod):
            self._paint_names(painter, lod, exposed)
        elif self.rack_ids and self._turned_names_fit(lod):
            self._paint_turned_names(painter, lod, exposed)
        if self.label and self.label_rect.intersects(exposed):
            self._paint_label(painter, lod)

    def _names_fit(self, lod: float) -> bool:
        """True when the hall's longest rack name fits across its narrowest footprint
        at the smallest readable size: names come in as soon as they can be read, and
        in every row at once."""
        longest, narrowest = self.plan.name_fit
        return lod * narrowest >= longest * CHAR_EM * MIN_TEXT_PX + 4

    def _turned_names_fit(self, lod: float) -> bool:
        """Zoomed out further: a name still reads along a rack's long side (a 600 mm
        wide rack is 1,200 mm deep), turned, as the printed plan writes it."""
        if self.longest <= 0:
            return False
        fits_along = lod * self.shortest_long >= self.longest * CHAR_EM * MIN_TEXT_PX + 4
        return fits_along and lod * self.narrowest >= MIN_TEXT_PX

    def _paint_turned_names(self, painter: QPainter, lod: float, exposed: QRectF) -> None:
        """Each rack's name along its long side at the smallest readable size."""
        plan = self.plan
        painter.setFont(plan.font_for_px(MIN_TEXT_PX / lod))
        painter.setPen(QColor(colors.TEXT))
        center = int(Qt.AlignmentFlag.AlignCenter)
        for rack_id in self.rack_ids:
            spot = plan.spots[rack_id]
            rect = spot.rect
            if not rect.intersects(exposed):
                continue
            if rect.width() >= rect.height():
                painter.drawText(rect, center, spot.name)
                continue
            painter.save()
            painter.translate(rect.center())
            painter.rotate(-90)
            painter.drawText(
                QRectF(-rect.height() / 2, -rect.width() / 2, rect.height(), rect.width()),
                center,
                spot.name,
            )
            painter.restore()

    def _paint_names(self, painter: QPainter, lod: float, exposed: QRectF) -> None:
        """Each rack's name, and zoomed in further its maximum draw against its budget;
        at least readable, never taller than :data:`NAME_MAX_PX` on screen."""
        plan = self.plan
        name_px = min(NAME_MAX_PX, max(MIN_TEXT_PX, lod * NAME_MM))
        name_font = plan.font_for_px(name_px / lod)
        load_px = min(LOAD_MAX_PX, name_px * 0.8)
        loads = None
        if lod * self.plan.name_fit[1] >= 7 * CHAR_EM * load_px + 6 and load_px >= MIN_TEXT_PX:
            loads = plan.document.figures.rack_loads
            load_font = plan.font_for_px(load_px / lod, bold=False)
        painter.setPen(QColor(colors.TEXT))
        center = int(Qt.AlignmentFlag.AlignCenter)
        bottom = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom)
        top = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        for rack_id in self.rack_ids:
            spot = plan.spots[rack_id]
            rect = spot.rect
            if not rect.intersects(exposed):
                continue
            load = loads.get(rack_id) if loads is not None else None
            painter.setFont(name_font)
            if load is None:
                painter.drawText(rect, center, spot.name)
                continue
            gap = 0.1 * name_px / lod
            upper = QRectF(rect.left(), rect.top(), rect.width(), rect.height() / 2 - gap)
            lower = QRectF(rect.left(), rect.center().y() + gap, rect.width(), rect.height() / 2)
            painter.drawText(upper, bottom, spot.name)
            painter.setFont(load_font)
            text = f"{load.kw_max:.1f} kW{unknown_note(load.unknown_power_devices)}"
            if load.limit_kw:
                text += f"\nof {load.limit_kw:.0f} kW"
            painter.drawText(lower, top, text)

    def _paint_label(self, painter: QPainter, lod: float) -> None:
        """The row's name beside it: its floor size while that reads well, else kept
        between :data:`MIN_TEXT_PX` and :data:`LABEL_MAX_PX` on screen, as long as it
        fits beside the row.  Laid out once per size (a static text), so hundreds of
        labels on screen cost little more than their glyphs."""
        rect = self.label_rect
        px = min(LABEL_MAX_PX, max(MIN_TEXT_PX, lod * ROW_LABEL_MM))
        if lod * rect.height() < px or lod * rect.width() < len(self.label) * CHAR_EM * px:
            return
        size_mm = ROW_LABEL_MM if px == lod * ROW_LABEL_MM else round(px / lod)
        key = (self.label, size_mm)
        if self._label is None or self._label[0] != key:
            font = self.plan.font_for_px(size_mm)
            text = QStaticText(self.label)
            text.setPerformanceHint(QStaticText.PerformanceHint.AggressiveCaching)
            text.prepare(QTransform(), font)
            size = text.size()
            beside = rect.width() <= rect.height() * 1.5  # left of an east-west row
            x = rect.right() - size.width() if beside else rect.center().x() - size.width() / 2
            at = QPointF(x, rect.center().y() - size.height() / 2)
            self._label = (key, font, text, at)
        _key, font, text, at = self._label
        painter.setFont(font)
        painter.setPen(self.plan.text_pen)
        painter.drawStaticText(at, text)
        # The row's length under its name, small but readable, while there is room.
        small = max(MIN_TEXT_PX, min(12.0, px * 0.45)) / lod
        below = QRectF(rect.left(), at.y() + text.size().height(), rect.width(), small * 1.6)
        if self.length_mm > 0 and below.height() * lod >= MIN_TEXT_PX:
            painter.setFont(self.plan.font_for_px(small, bold=False))
            align = Qt.AlignmentFlag.AlignTop | (
                Qt.AlignmentFlag.AlignRight
                if at.x() + text.size().width() >= rect.right() - 1
                else Qt.AlignmentFlag.AlignHCenter
            )
            painter.drawText(below, int(align), metres(self.length_mm))


class AisleItem(QGraphicsItem):
    """Every hot and cold aisle, shaded, labelled when readable."""

    def __init__(self, scene: FloorScene):
        super().__init__()
        self.plan = scene
        self.aisles: list[tuple[fl.Aisle, QRectF]] = []
        self._bounds = QRectF()
        self.setZValue(-1)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)

    def set_aisles(self, aisles: list[fl.Aisle]) -> None:
        self.aisles = [(a, qrect(a.rect)) for a in aisles]
        bounds = QRectF()
        for _a, rect in self.aisles:
            bounds = bounds.united(rect)
        if bounds != self._bounds:
            self.prepareGeometryChange()
            self._bounds = bounds
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        exposed = option.exposedRect
        shown = [(a, r) for a, r in self.aisles if r.intersects(exposed)]
        painter.setPen(Qt.PenStyle.NoPen)
        for kind, fill in (("cold", COLD_FILL), ("hot", HOT_FILL)):
            rects = [r for a, r in shown if a.kind == kind and not a.mixed]
            if rects:
                painter.setBrush(QColor(fill))
                painter.drawRects(rects)
        mixed = [r for a, r in shown if a.mixed]
        if mixed:
            painter.setBrush(QBrush(QColor(MIXED_FILL), Qt.BrushStyle.SolidPattern))
            painter.drawRects(mixed)
        lod = lod_of(painter)
        if lod * AISLE_LABEL_MM < MIN_TEXT_PX:
            return
        if lod * AISLE_LABEL_MM > AISLE_MAX_PX:
            painter.setFont(self.plan.font_for_px(AISLE_MAX_PX / lod, bold=False))
        else:
            painter.setFont(self.plan.aisle_font)
        for aisle, rect in shown:
            # The aisle's width, as a planner checks it against the site's minimum.
            across = metres(aisle.rect.height if aisle.horizontal else aisle.rect.width)
            if aisle.mixed:
                text, color = f"{aisle.kind.capitalize()} aisle — hot and cold mix", MIXED_TEXT
            else:
                text, color = (
                    f"{aisle.kind.capitalize()} aisle {across}",
                    (COLD_TEXT if aisle.kind == "cold" else HOT_TEXT),
                )
                along = rect.width() if aisle.horizontal else rect.height()
                if painter.fontMetrics().horizontalAdvance(text) > along:
                    text = across  # a short aisle: its width is what matters
            painter.setPen(QColor(color))
            if aisle.horizontal:
                painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)
            else:
                painter.save()
                center = rect.center()
                painter.translate(center)
                painter.rotate(-90)
                turned = QRectF(-rect.height() / 2, -rect.width() / 2, rect.height(), rect.width())
                painter.drawText(turned, int(Qt.AlignmentFlag.AlignCenter), text)
                painter.restore()


class GhostItem(QGraphicsItem):
    """Where the dragged racks would land: outlines that follow the mouse by whole tiles,
    red where they would stand on another rack."""

    def __init__(self, spots: list[Spot]):
        super().__init__()
        self.spots = spots
        self.blocked = False
        bounds = QRectF()
        for spot in spots:
            bounds = bounds.united(spot.rect)
        self._bounds = bounds.adjusted(-HALO_MM, -HALO_MM, HALO_MM, HALO_MM)
        self.setZValue(10)

    def set_blocked(self, blocked: bool) -> None:
        if blocked != self.blocked:
            self.blocked = blocked
            self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        color = QColor(colors.LOAD_OVER if self.blocked else colors.SELECTION)
        fill = QColor(color)
        fill.setAlpha(70)
        pen = QPen(color, 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRects([s.rect for s in self.spots])
        lod = lod_of(painter)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        depth = max(FRONT_MM, FRONT_MIN_PX / max(lod, 1e-9))
        painter.drawRects(
            [
                front_band(s.rect, s.facing, min(depth, s.rect.height() / 3, s.rect.width() / 3))
                for s in self.spots
            ]
        )
