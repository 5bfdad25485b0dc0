"""The hall floor: where racks stand, which way they face, and the aisles between them.

Coordinates are millimetres on the plan, north up: ``x`` grows to the east, ``y`` to the
south (as a screen draws it).  A rack's ``floor_x_mm``/``floor_y_mm`` is its
*front-left corner*, left as seen by a person standing in front of it, so the
footprint turns about that corner with ``facing``::

    facing south          facing north          facing east       facing west
    +--------+            F=========+           +-----F           F-----+
    |  back  |            | front   |           |     |           |     |
    |        |            |  back   |           |     |           |     |
    F========+  <- front  +---------+           +=====+           +=====+
    (x, y) = F: west end  F: east end           F: south end      F: north end

(``=`` marks the front edge; for east and west the front is the right and left side.)
The width runs along the front, the depth from front to back; both come from the rack
type's catalog ``props`` (``width_mm``, ``depth_mm``), 600 × 1200 mm by default.

:func:`lay_out` gives every rack without a position one; it never moves a rack that has
one.  Its rules (see the function) put rows in pairs facing each other across a cold
aisle, hot aisles behind, on a tile grid whose size and aisle widths the design's
``properties`` may set (:class:`FloorSettings`).  :func:`aisles` reads the hot and cold
aisles back from where the rows stand, whoever put them there.

Pure Python, no Qt: the plan view, the template builder, tests and a future command
line all ask the same functions.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from workbench.model.design import FACINGS, Design, Rack, Row
from workbench.model.floor_ops import MoveRackOnFloor
from workbench.model.rack_fields import is_placed

#: ``Design.properties`` keys of the floor settings (text, millimetres).
TILE_KEY = "floor_tile_mm"
COLD_AISLE_KEY = "floor_cold_aisle_mm"
HOT_AISLE_KEY = "floor_hot_aisle_mm"
MAIN_AISLE_KEY = "floor_main_aisle_mm"

#: A raised-floor tile (600 mm is the common size).
DEFAULT_TILE_MM = 600.0
#: Two tiles each: a common minimum for cold aisles (perforated tiles) and hot aisles.
DEFAULT_COLD_AISLE_MM = 1200.0
DEFAULT_HOT_AISLE_MM = 1200.0
#: The cross aisle between blocks of rows and around the hall (carts, people, labels).
DEFAULT_MAIN_AISLE_MM = 2400.0
#: A rack type that does not state its size: a common 600 mm wide, 1200 mm deep cabinet.
DEFAULT_WIDTH_MM = 600.0
DEFAULT_DEPTH_MM = 1200.0
#: The width/height the layout aims for when it puts blocks of row pairs side by side
#: (a hall seen on a landscape screen, not a strip).
TARGET_ASPECT = 1.4

#: Which side of the plan the front of a rack facing that way is on.
FRONT_SIDE = {"north": "top", "south": "bottom", "east": "right", "west": "left"}
_OPPOSITE = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle on the plan, mm (``x0 <= x1``, ``y0 <= y1``)."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def overlaps(self, other: Rect) -> bool:
        """True when the two share area (touching edges do not count)."""
        return (
            self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1
        )

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def union(self, other: Rect) -> Rect:
        return Rect(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )

    def moved(self, dx: float, dy: float) -> Rect:
        return Rect(self.x0 + dx, self.y0 + dy, self.x1 + dx, self.y1 + dy)


def bounds(rects: Iterable[Rect]) -> Rect | None:
    """The smallest rectangle holding all of ``rects`` (None for none)."""
    out: Rect | None = None
    for rect in rects:
        out = rect if out is None else out.union(rect)
    return out


# -- settings -----------------------------------------------------------------------------


def _mm(properties: dict[str, str], key: str, default: float) -> float:
    try:
        value = float(properties.get(key, ""))
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


@dataclass(frozen=True)
class FloorSettings:
    """The floor grid and aisle widths, mm, from the design's ``properties`` (text) or the
    defaults.  Aisles are rounded up to whole tiles so rows line up with the grid."""

    tile_mm: float = DEFAULT_TILE_MM
    cold_aisle_mm: float = DEFAULT_COLD_AISLE_MM
    hot_aisle_mm: float = DEFAULT_HOT_AISLE_MM
    main_aisle_mm: float = DEFAULT_MAIN_AISLE_MM

    @classmethod
    def of(cls, design: Design) -> FloorSettings:
        p = design.properties
        tile = _mm(p, TILE_KEY, DEFAULT_TILE_MM)
        return cls(
            tile_mm=tile,
            cold_aisle_mm=ceil_to(_mm(p, COLD_AISLE_KEY, DEFAULT_COLD_AISLE_MM), tile),
            hot_aisle_mm=ceil_to(_mm(p, HOT_AISLE_KEY, DEFAULT_HOT_AISLE_MM), tile),
            main_aisle_mm=ceil_to(_mm(p, MAIN_AISLE_KEY, DEFAULT_MAIN_AISLE_MM), tile),
        )


def ceil_to(value: float, step: float) -> float:
    """``value`` rounded up to a whole number of ``step`` (a hair's tolerance)."""
    return math.ceil(value / step - 1e-9) * step


def snap(value: float, step: float) -> float:
    """``value`` rounded to the nearest whole number of ``step`` (whole tiles)."""
    return round(value / step) * step


# -- one rack ---------------------------------------------------------------------------


def rack_size(
    design: Design, rack: Rack, sizes: dict[str, tuple[float, float]] | None = None
) -> tuple[float, float]:
    """(width along the front, depth front to back), mm, from the rack type's catalog
    ``props``; 600 × 1200 when the type does not say (or is missing).  ``sizes`` (rack
    type → size) keeps the answers for a caller that asks about thousands of racks."""
    if sizes is not None:
        found = sizes.get(rack.rack_type)
        if found is None:
            found = sizes[rack.rack_type] = rack_size(design, rack)
        return found
    item = design.device_types.get(rack.rack_type)
    props = item.props if item is not None else {}
    return (
        _positive(props.get("width_mm"), DEFAULT_WIDTH_MM),
        _positive(props.get("depth_mm"), DEFAULT_DEPTH_MM),
    )


def _positive(value: object, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return float(value) if math.isfinite(value) and value > 0 else default


def footprint_at(x: float, y: float, width: float, depth: float, facing: str) -> Rect:
    """The footprint of a ``width`` × ``depth`` rack whose front-left corner is at
    (``x``, ``y``) and whose front faces ``facing`` (an unknown facing counts as south)."""
    if facing == "north":
        return Rect(x - width, y, x, y + depth)
    if facing == "east":
        return Rect(x - depth, y - width, x, y)
    if facing == "west":
        return Rect(x, y, x + depth, y + width)
    return Rect(x, y - depth, x + width, y)


def corner_of(rect: Rect, facing: str) -> tuple[float, float]:
    """The front-left corner of a footprint ``rect`` facing ``facing`` (the inverse of
    :func:`footprint_at`)."""
    if facing == "north":
        return (rect.x1, rect.y0)
    if facing == "east":
        return (rect.x1, rect.y1)
    if facing == "west":
        return (rect.x0, rect.y0)
    return (rect.x0, rect.y1)


def footprint(
    design: Design, rack: Rack, sizes: dict[str, tuple[float, float]] | None = None
) -> Rect | None:
    """Where ``rack`` stands on the plan, or None while it has no position (``sizes``:
    see :func:`rack_size`)."""
    if rack.floor_x_mm is None or rack.floor_y_mm is None:
        return None
    width, depth = rack_size(design, rack, sizes)
    return footprint_at(rack.floor_x_mm, rack.floor_y_mm, width, depth, rack.facing)


def front_side(facing: str) -> str:
    """The side of the footprint its front is on: "top", "bottom", "left" or "right"."""
    return FRONT_SIDE.get(facing, "bottom")


def back_side(facing: str) -> str:
    """The side of the footprint its back (the hot exhaust) is on."""
    return _OPPOSITE[front_side(facing)]


def edge(rect: Rect, side: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two end points of one side of ``rect``."""
    if side == "top":
        return (rect.x0, rect.y0), (rect.x1, rect.y0)
    if side == "bottom":
        return (rect.x0, rect.y1), (rect.x1, rect.y1)
    if side == "left":
        return (rect.x0, rect.y0), (rect.x0, rect.y1)
    return (rect.x1, rect.y0), (rect.x1, rect.y1)


def front_edge(rect: Rect, facing: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The end points of the front edge of a footprint."""
    return edge(rect, front_side(facing))


def strip(rect: Rect, side: str, width: float) -> Rect:
    """The band of ``width`` outside ``rect`` along one of its sides."""
    if side == "top":
        return Rect(rect.x0, rect.y0 - width, rect.x1, rect.y0)
    if side == "bottom":
        return Rect(rect.x0, rect.y1, rect.x1, rect.y1 + width)
    if side == "left":
        return Rect(rect.x0 - width, rect.y0, rect.x0, rect.y1)
    return Rect(rect.x1, rect.y0, rect.x1 + width, rect.y1)


def turned(design: Design, rack: Rack, facing: str, tile: float) -> tuple[float, float]:
    """The front-left corner that turns ``rack`` to ``facing`` about its footprint's
    centre, its footprint's corner snapped to whole tiles (the plan's "Face …")."""
    width, depth = rack_size(design, rack)
    old = footprint(design, rack) or footprint_at(0.0, 0.0, width, depth, rack.facing)
    cx, cy = old.center
    shape = footprint_at(0.0, 0.0, width, depth, facing)
    x0, y0 = snap(cx - shape.width / 2, tile), snap(cy - shape.height / 2, tile)
    return corner_of(Rect(x0, y0, x0 + shape.width, y0 + shape.height), facing)


# -- finding racks by place ---------------------------------------------------------------


class FloorIndex:
    """Footprints in a grid of buckets: which rack is at a point, which overlap a rect.

    The plan's hit test, the layout's "is this spot free" and the drop check all ask it;
    a query looks at the few buckets the rect covers, not at every rack of the hall.
    """

    def __init__(self, cell_mm: float = 2400.0):
        self.cell = cell_mm
        self.rects: dict[str, Rect] = {}
        self._cells: dict[tuple[int, int], set[str]] = {}

    def _keys(self, rect: Rect) -> Iterator[tuple[int, int]]:
        c = self.cell
        for i in range(math.floor(rect.x0 / c), math.floor(rect.x1 / c) + 1):
            for j in range(math.floor(rect.y0 / c), math.floor(rect.y1 / c) + 1):
                yield (i, j)

    def add(self, rack_id: str, rect: Rect) -> None:
        self.remove(rack_id)
        self.rects[rack_id] = rect
        for key in self._keys(rect):
            self._cells.setdefault(key, set()).add(rack_id)

    def remove(self, rack_id: str) -> None:
        rect = self.rects.pop(rack_id, None)
        if rect is None:
            return
        for key in self._keys(rect):
            found = self._cells.get(key)
            if found is not None:
                found.discard(rack_id)
                if not found:
                    del self._cells[key]

    def at(self, x: float, y: float) -> str | None:
        """A rack whose footprint holds the point, or None."""
        key = (math.floor(x / self.cell), math.floor(y / self.cell))
        for rack_id in self._cells.get(key, ()):
            if self.rects[rack_id].contains(x, y):
                return rack_id
        return None

    def overlapping(self, rect: Rect, ignore: Iterable[str] = ()) -> list[str]:
        """Racks whose footprints share area with ``rect``, less those in ``ignore``."""
        skip = set(ignore)
        seen: set[str] = set()
        for key in self._keys(rect):
            for rack_id in self._cells.get(key, ()):
                if rack_id not in seen and rack_id not in skip:
                    seen.add(rack_id)
        return sorted(r for r in seen if self.rects[r].overlaps(rect))

    @classmethod
    def of(cls, design: Design) -> FloorIndex:
        index = cls()
        for rack in design.iter_racks():
            rect = footprint(design, rack)
            if rect is not None:
                index.add(rack.id, rect)
        return index


def overlaps(
    design: Design, moves: dict[str, Rect], index: FloorIndex | None = None
) -> dict[str, list[str]]:
    """For racks about to stand at ``moves`` (rack id → new footprint), the racks they
    would overlap (moved ones count at their new places); empty when all are free."""
    index = index if index is not None else FloorIndex.of(design)
    clashes: dict[str, list[str]] = {}
    for rack_id, rect in moves.items():
        hit = index.overlapping(rect, ignore=moves)
        hit += [o for o, other in moves.items() if o != rack_id and other.overlaps(rect)]
        if hit:
            clashes[rack_id] = sorted(set(hit))
    return clashes


# -- rows and aisles ------------------------------------------------------------------------


def row_facing(racks: Sequence[Rack]) -> str:
    """The way most of the racks face (the first of equals in rack order)."""
    return Counter(r.facing for r in racks).most_common(1)[0][0]


def row_extent(design: Design, row: Row) -> tuple[Rect, str] | None:
    """(the rectangle the row's placed racks cover, the way most face), or None."""
    placed = [r for r in row.racks if is_placed(r)]
    rect = bounds(f for r in placed if (f := footprint(design, r)) is not None)
    if rect is None:
        return None
    return rect, row_facing(placed)


@dataclass(frozen=True)
class Aisle:
    """A hot or cold aisle read from the rows beside it.

    ``kind`` is "cold" (the strip the rows' fronts take air from) or "hot" (where their
    backs blow); ``rows`` names the rows that face into it (cold) or back onto it (hot).
    ``mixed`` is True when part of it is also the other kind: a row blows hot air into
    another row's cold aisle, which the plan shows as a problem.
    """

    kind: str
    rect: Rect
    rows: tuple[str, ...]
    mixed: bool = False

    @property
    def horizontal(self) -> bool:
        return self.rect.width >= self.rect.height


def _overlapping_pairs(rects: Sequence[Rect], cell: float = 3000.0) -> Iterator[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, of ``rects`` that share area.  Rects are filed
    in a grid of ``cell``-sized buckets and only those sharing a bucket are compared, so
    thousands of aisle strips cost about as many comparisons as there are strips."""
    cells: dict[tuple[int, int], list[int]] = {}
    floor_ = math.floor
    for i, r in enumerate(rects):
        for gx in range(floor_(r.x0 / cell), floor_(r.x1 / cell) + 1):
            for gy in range(floor_(r.y0 / cell), floor_(r.y1 / cell) + 1):
                cells.setdefault((gx, gy), []).append(i)
    seen: set[tuple[int, int]] = set()
    for members in cells.values():
        for a in range(len(members)):
            i = members[a]
            ri = rects[i]
            for b in range(a + 1, len(members)):
                j = members[b]
                if (i, j) not in seen and ri.overlaps(rects[j]):
                    seen.add((i, j))
                    yield (i, j)


def aisles(
    design: Design,
    settings: FloorSettings | None = None,
    extents: dict[str, tuple[Rect, str]] | None = None,
) -> list[Aisle]:
    """The hot and cold aisles of the hall, from where the rows stand.

    Each row has a cold strip (the cold-aisle width) along its front and a hot strip (the
    hot-aisle width) along its back.  Strips of the same kind that overlap are one aisle
    (two rows facing each other share their cold aisle); a cold aisle that overlaps a hot
    one is ``mixed``.  ``extents`` (row id → :func:`row_extent`) saves recomputing them.
    """
    settings = settings or FloorSettings.of(design)
    if extents is None:
        extents = {}
        for site in design.sites:
            for row in site.rows:
                found = row_extent(design, row)
                if found is not None:
                    extents[row.id] = found
    strips: list[tuple[str, Rect, str]] = []
    for row_id, (rect, facing) in extents.items():
        strips.append(("cold", strip(rect, front_side(facing), settings.cold_aisle_mm), row_id))
        strips.append(("hot", strip(rect, back_side(facing), settings.hot_aisle_mm), row_id))
    parent = list(range(len(strips)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    rects = [s[1] for s in strips]
    for i, j in _overlapping_pairs(rects):
        if strips[i][0] == strips[j][0]:
            parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(strips)):
        groups.setdefault(root(i), []).append(i)
    merged: list[Aisle] = []
    for members in groups.values():
        group = bounds(strips[i][1] for i in members)
        assert group is not None
        rows = tuple(dict.fromkeys(strips[i][2] for i in members))
        merged.append(Aisle(strips[members[0]][0], group, rows))
    mixed: set[int] = set()
    for i, j in _overlapping_pairs([a.rect for a in merged]):
        if merged[i].kind != merged[j].kind:
            mixed |= {i, j}
    out = [Aisle(a.kind, a.rect, a.rows, True) if i in mixed else a for i, a in enumerate(merged)]
    out.sort(key=lambda a: (a.rect.y0, a.rect.x0, a.kind))
    return out


# -- layout -------------------------------------------------------------------------------


def _place(rack: Rack, rect: Rect, facing: str) -> None:
    rack.facing = facing
    rack.floor_x_mm, rack.floor_y_mm = corner_of(rect, facing)


def _next_to(rect: Rect, width: float, depth: float, facing: str, after: bool) -> Rect:
    """A footprint beside ``rect`` along its row (east/south when ``after``, else
    west/north), with the same front line."""
    if facing in ("east", "west"):
        y0 = rect.y1 if after else rect.y0 - width
        x0 = rect.x1 - depth if facing == "east" else rect.x0
        return Rect(x0, y0, x0 + depth, y0 + width)
    x0 = rect.x1 if after else rect.x0 - width
    y0 = rect.y1 - depth if facing != "north" else rect.y0
    return Rect(x0, y0, x0 + width, y0 + depth)


def _free_along(index: FloorIndex, rect: Rect, facing: str, after: bool, step: float) -> Rect:
    """``rect``, or the first spot past it along the row (whole tiles) that is free."""
    sign = 1.0 if after else -1.0
    dx, dy = (0.0, sign * step) if facing in ("east", "west") else (sign * step, 0.0)
    for _ in range(100_000):  # the hall is finite: past its edge every spot is free
        if not index.overlapping(rect):
            return rect
        rect = rect.moved(dx, dy)
    return rect


def _extend_row(
    design: Design, racks: Sequence[Rack], index: FloorIndex, settings: FloorSettings
) -> list[str]:
    """Place the unplaced ``racks`` (a row's, in order) beside the placed ones: each next
    to its neighbour in row order (after the one before it; racks before the first
    placed one go before it), front to the same line, facing the same way."""
    placed: list[str] = []
    first = next(i for i, r in enumerate(racks) if is_placed(r))
    for order, after in ((range(first + 1, len(racks)), True), (range(first - 1, -1, -1), False)):
        previous = racks[first]
        for i in order:
            rack = racks[i]
            if not is_placed(rack):
                prev_rect = footprint(design, previous)
                assert prev_rect is not None
                width, depth = rack_size(design, rack)
                facing = previous.facing if previous.facing in FACINGS else "south"
                rect = _next_to(prev_rect, width, depth, facing, after)
                rect = _free_along(index, rect, facing, after, settings.tile_mm)
                _place(rack, rect, facing)
                index.add(rack.id, rect)
                placed.append(rack.id)
            previous = rack
    return placed


def _lay_out_block(
    design: Design, rows: Sequence[Sequence[Rack]], x0: float, y0: float, settings: FloorSettings
) -> list[str]:
    """The racks of rows with no placed rack (one list per row), in pairs of rows, from
    (x0, y0) down and across (see :func:`lay_out`)."""
    tile = settings.tile_mm
    sizes = {r.id: rack_size(design, r) for row in rows for r in row}

    def depth(row: Sequence[Rack] | None) -> float:
        if not row:
            return 0.0
        return ceil_to(max(sizes[r.id][1] for r in row), tile)

    def length(row: Sequence[Rack]) -> float:
        return sum(sizes[r.id][0] for r in row)

    pairs = [(rows[i], rows[i + 1] if i + 1 < len(rows) else None) for i in range(0, len(rows), 2)]
    widest = ceil_to(max((length(r) for r in rows), default=0.0), tile) or tile
    column_w = widest + settings.main_aisle_mm

    def pair_h(pair: tuple[Sequence[Rack], Sequence[Rack] | None]) -> float:
        a, b = pair
        return settings.hot_aisle_mm + depth(a) + settings.cold_aisle_mm + depth(b)

    mean_h = sum(pair_h(p) for p in pairs) / max(len(pairs), 1)
    columns = max(
        range(1, len(pairs) + 1),
        key=lambda c: (
            -abs(math.log((c * column_w) / (math.ceil(len(pairs) / c) * mean_h) / TARGET_ASPECT))
        ),
        default=1,
    )
    per_column = math.ceil(len(pairs) / columns) if pairs else 0
    placed: list[str] = []
    y = y0
    for k, (a, b) in enumerate(pairs):
        column, slot = divmod(k, per_column)
        if slot == 0:
            y = y0
        x = x0 + column * column_w
        y += settings.hot_aisle_mm
        front_a = y + depth(a)
        placed += _lay_out_row(design, a, x, front_a, "south", sizes)
        front_b = front_a + settings.cold_aisle_mm
        if b is not None:
            placed += _lay_out_row(design, b, x, front_b, "north", sizes)
        y = front_b + depth(b)
    return placed


def _lay_out_row(
    design: Design,
    row: Sequence[Rack],
    x: float,
    front: float,
    facing: str,
    sizes: dict[str, tuple[float, float]],
) -> list[str]:
    """Racks side by side from ``x`` eastwards in row order, fronts on the line ``front``."""
    for rack in row:
        width, depth = sizes[rack.id]
        if facing == "south":
            rect = Rect(x, front - depth, x + width, front)
        else:
            rect = Rect(x, front, x + width, front + depth)
        _place(rack, rect, facing)
        x += width
    return [r.id for r in row]


def lay_out(design: Design, only: Iterable[str] | None = None) -> list[str]:
    """Give every rack without a floor position one (of those in ``only``, when given:
    the others stay off the plan); return their ids.

    It never moves a rack that has a position.  The rules:

    * A row that already has placed racks grows along its line: each unplaced rack goes
      beside its neighbour in row order, front on the same line, facing the same way, and
      further along (whole tiles) if that spot is taken.
    * Rows with no placed rack are laid out as a block below everything already on the
      floor (per site, in site order): in pairs, the first of a pair facing south and the
      second north, so their fronts face each other across a cold aisle; a hot aisle
      behind every row (between pairs, and before the first); racks of a row side by side
      from west to east in row order, fronts on one line.  Pairs stack southwards in
      columns, and columns stand side by side east of each other with a main aisle
      between, as many as make the block about :data:`TARGET_ASPECT` wide for its height.
    * Everything lines up with the tile grid: the block starts one main aisle in from the
      origin (room for the row labels), row depths and aisles are whole tiles.
    """
    wanted = None if only is None else set(only)

    def want(rack: Rack) -> bool:
        return not is_placed(rack) and (wanted is None or rack.id in wanted)

    if not any(want(r) for r in design.iter_racks()):
        return []  # the common case: a design saved with its plan
    settings = FloorSettings.of(design)
    index = FloorIndex.of(design)
    placed: list[str] = []
    for site in design.sites:
        for row in site.rows:
            racks = [r for r in row.racks if is_placed(r) or want(r)]
            if any(is_placed(r) for r in racks) and any(want(r) for r in racks):
                placed += _extend_row(design, racks, index, settings)
    for site in design.sites:
        fresh = [
            racks
            for row in site.rows
            if not any(is_placed(r) for r in row.racks)
            and (racks := [r for r in row.racks if want(r)])
        ]
        if not fresh:
            continue
        taken = bounds(index.rects.values())
        x0 = settings.main_aisle_mm
        y0 = 0.0 if taken is None else ceil_to(taken.y1, settings.tile_mm) + settings.main_aisle_mm
        if taken is not None:
            x0 = min(x0, math.floor(taken.x0 / settings.tile_mm) * settings.tile_mm)
        done = _lay_out_block(design, fresh, x0, y0, settings)
        for rack_id in done:
            rack = design.find_rack(rack_id)
            rect = footprint(design, rack) if rack is not None else None
            if rect is not None:
                index.add(rack_id, rect)
        placed += done
    return placed


def layout_ops(design: Design) -> list[MoveRackOnFloor]:
    """The edits :func:`lay_out` would make, without making them: the plan's "Place
    racks" button pushes them as one undoable step."""
    before = {r.id: (r.floor_x_mm, r.floor_y_mm, r.facing) for r in design.iter_racks()}
    steps: list[MoveRackOnFloor] = []
    for rack_id in lay_out(design):
        rack = design.find_rack(rack_id)
        if rack is None:
            continue
        steps.append(MoveRackOnFloor(rack_id, rack.floor_x_mm, rack.floor_y_mm, rack.facing))
        rack.floor_x_mm, rack.floor_y_mm, rack.facing = before[rack_id]
    return steps
