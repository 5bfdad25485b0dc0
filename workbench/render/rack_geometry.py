"""Rack elevation geometry as pure functions: no Qt, no I/O.

Everything is measured in *rack units* and multiplied by ``scale`` (pixels, points or
millimetres per U), so the screen, a PDF page and a hit test all agree on where a
device sits.  U1 is at the bottom, as racks are numbered and as NetBox counts; a device's
``position`` is the lowest unit it occupies.

Layout of one rack, left to right: U-number gutter, rail, 19" mounting slots, rail,
0U strip (vertical PDUs), rail, and on paper a second U-number gutter.  Top to bottom:
header (name and load bar), frame, slots, frame, budget bars, footer (U and kW figures).

A :class:`RackStyle` says what a drawing shows beyond the screen's: paper numbers the
units on both sides, labels devices with asset tag and serial and writes each budget's
figures under the rack.  Every rectangle function takes it, so the page layout and the
painter agree on where everything sits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from workbench.catalog.vocabulary import item_role
from workbench.model.design import Design, Rack
from workbench.model.placement import DEFAULT_RACK_U, rack_height
from workbench.rules.budgets import Budget, BudgetState, RackBudgets, unknown_note
from workbench.units import finite, short_number

#: Widths and heights in U.  A 19" rack is ~600 mm wide against 44.45 mm per U, so the
#: mounting width (482.6 mm) is ~10.9 U; 11 U keeps device labels legible.
GUTTER_U = 1.8
RAIL_U = 0.35
SLOT_WIDTH_U = 11.0
ZERO_U_WIDTH_U = 0.9
HEADER_U = 3.0
FOOTER_U = 1.8
#: The compact budget bars between the frame and the footer (one row of labelled bars).
BUDGET_STRIP_U = 1.9
#: One line of the budget figures written under a rack on paper.
BUDGET_ROW_U = 1.3
#: The U-number gutter right of the frame (paper numbers both sides).
RIGHT_GUTTER_U = 1.8

#: Pixels per U below which text and U numbers are skipped (level of detail).
MIN_TEXT_PX_PER_U = 7.0


@dataclass(frozen=True)
class RackStyle:
    """What a rack drawing shows beyond the screen's defaults.

    The screen keeps every rack compact (thousands of them at 10 px per U); paper has
    room for what an installer needs at the rack: unit numbers on both sides, asset tags
    and serials on the devices, and each budget's figures.
    """

    #: Number the units right of the frame too (a rack is read from either side).
    u_numbers_right: bool = False
    #: Add asset tag and serial to the device labels where known.
    device_details: bool = False
    #: Write each budget as a line of figures (label, bar, used / limit) instead of the
    #: screen's one row of labelled bars.
    budget_figures: bool = False
    #: Outline each device in an opaque darker shade of its own fill instead of
    #: translucent black.  The screen's raster painter strokes a translucent outline
    #: 10-400 times slower than an opaque one (0.1-3.6 ms a GPU node, most of a rack's
    #: repaint after a drop or its undo at 16,384 GPUs, and raster work Qt hands to
    #: its thread pool).  The shade is what the translucent black makes over the
    #: fill; where an outline pixel falls just outside the fill (over the slot grey)
    #: it is that shade too instead of a darkened grey.  Paper keeps the translucent
    #: outline (its files stay as they were; a vector outline costs nothing there).
    opaque_outlines: bool = False


#: The on-screen rack (and the default of every function here).
SCREEN_STYLE = RackStyle(opaque_outlines=True)
#: A rack on a printed page (both faces side by side; figures in the page's table).
PAPER_STYLE = RackStyle(u_numbers_right=True, device_details=True)
#: A rack on a row page, its budget figures written under it.
PAPER_ROW_STYLE = RackStyle(u_numbers_right=True, device_details=True, budget_figures=True)


class Rect(NamedTuple):
    """An axis-aligned rectangle: top-left corner, width and height."""

    x: float
    y: float
    w: float
    h: float

    def contains(self, px: float, py: float) -> bool:
        """True when the point lies inside (edges included)."""
        return self.x <= px <= self.x + self.w and self.y <= py <= self.y + self.h

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


@dataclass(frozen=True)
class Block:
    """One device's rectangle in a rack drawing, relative to the rack's origin."""

    device_id: str
    rect: Rect
    role: str
    name: str
    model: str
    u_height: float
    position: int | None
    other_face: bool = False  # mounted on the face not being drawn
    zero_u: bool = False
    asset_tag: str = ""
    serial: str = ""
    #: The face this block was laid out for (what "other face" is relative to).
    face_drawn: str = "front"


#: The tallest rack drawn.  Real racks stop near 58 U; a rack model claiming a million
#: units (a typo, a script) is drawn this tall, so painting it does not loop a million
#: times and the scene does not grow kilometres high.
MAX_DRAWN_U = 120


def rack_units(rack: Rack, design: Design) -> int:
    """How many U the rack has: :func:`workbench.model.placement.rack_height`, within
    1..:data:`MAX_DRAWN_U` whatever its catalog item says (an infinite height makes
    ``rack_height`` raise; the drawing then falls back to its default)."""
    try:
        height = rack_height(design, rack)
    except (TypeError, ValueError, OverflowError, AttributeError):
        height = 0
    if not isinstance(height, int) or height < 1:
        return DEFAULT_RACK_U
    return min(height, MAX_DRAWN_U)


def as_text(value: object) -> str:
    """A name or label as drawn: text as it is, nothing as "", anything else (bytes from
    a script, a number) as Python writes it, so the drawing shows what the design holds
    instead of raising in the painter."""
    if isinstance(value, str):
        return value
    return "" if value is None else repr(value)


def whole_unit(value: object) -> int | None:
    """``value`` as a rack unit number, or None when it is not a whole number (text,
    NaN, infinity, 1.5, True): such a device cannot be drawn at a unit."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def item_height_u(value: object) -> float:
    """A catalog item's height in U for drawing: 0 (a 0U device) unless it is a finite
    number above 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    height = float(value)
    return height if math.isfinite(height) and height > 0 else 0.0


#: The frame's width in U: three rails, the 19" slots and the 0U strip.
FRAME_WIDTH_U = 3 * RAIL_U + SLOT_WIDTH_U + ZERO_U_WIDTH_U

#: The budgets drawn under a rack: (key in ``RackBudgets.named()``, bar label on screen,
#: line label on paper).  Screen order is left to right, paper order top to bottom.
BUDGET_BARS: tuple[tuple[str, str], ...] = (
    ("space", "U"),
    ("power", "kW"),
    ("cooling", "Cool"),
    ("weight", "kg"),
    ("failover", "Feed"),
)
BUDGET_LINES: tuple[tuple[str, str], ...] = (
    ("space", "Space"),
    ("power", "Power"),
    ("cooling", "Cooling"),
    ("weight", "Weight"),
    ("feed_a", "Feed A"),
    ("feed_b", "Feed B"),
    ("failover", "Failover"),
)


def budget_height_u(style: RackStyle = SCREEN_STYLE) -> float:
    """Height of the budget area under the frame, in U."""
    if style.budget_figures:
        return len(BUDGET_LINES) * BUDGET_ROW_U + 0.5
    return BUDGET_STRIP_U


def rack_size(u_total: int, scale: float, style: RackStyle = SCREEN_STYLE) -> tuple[float, float]:
    """Outer (width, height) of a whole rack drawing, labels included."""
    width = GUTTER_U + FRAME_WIDTH_U + (RIGHT_GUTTER_U if style.u_numbers_right else 0.0)
    height = HEADER_U + 2 * RAIL_U + u_total + budget_height_u(style) + FOOTER_U
    return width * scale, height * scale


def header_rect(u_total: int, scale: float, style: RackStyle = SCREEN_STYLE) -> Rect:
    """The rack name and load bar area above the frame."""
    width, _ = rack_size(u_total, scale, style)
    return Rect(0.0, 0.0, width, HEADER_U * scale)


def frame_rect(u_total: int, scale: float) -> Rect:
    """The rack's outer frame (rails included, gutters and labels excluded)."""
    x = GUTTER_U * scale
    return Rect(x, HEADER_U * scale, FRAME_WIDTH_U * scale, (u_total + 2 * RAIL_U) * scale)


def budget_rect(u_total: int, scale: float, style: RackStyle = SCREEN_STYLE) -> Rect:
    """The budget bars (screen) or budget lines (paper) between frame and footer, as
    wide as the frame."""
    frame = frame_rect(u_total, scale)
    gap = 0.35 * scale
    return Rect(frame.x, frame.y + frame.h + gap, frame.w, budget_height_u(style) * scale - gap)


def budget_bar_rects(u_total: int, scale: float, count: int = len(BUDGET_BARS)) -> list[Rect]:
    """``count`` bars side by side across the screen's budget strip, small gaps between."""
    strip = budget_rect(u_total, scale)
    gap = 0.25 * scale
    width = (strip.w - gap * (count - 1)) / max(count, 1)
    height = min(strip.h, 1.35 * scale)
    return [Rect(strip.x + i * (width + gap), strip.y, width, height) for i in range(count)]


def budget_line_rects(u_total: int, scale: float, style: RackStyle = PAPER_ROW_STYLE) -> list[Rect]:
    """One rectangle per :data:`BUDGET_LINES` entry, top to bottom, for paper."""
    area = budget_rect(u_total, scale, style)
    return [
        Rect(area.x, area.y + i * BUDGET_ROW_U * scale, area.w, BUDGET_ROW_U * scale)
        for i in range(len(BUDGET_LINES))
    ]


def footer_rect(u_total: int, scale: float, style: RackStyle = SCREEN_STYLE) -> Rect:
    """The figures line below the budgets."""
    width, height = rack_size(u_total, scale, style)
    return Rect(0.0, height - FOOTER_U * scale, width, FOOTER_U * scale)


def slots_rect(u_total: int, scale: float) -> Rect:
    """The 19" mounting area holding U1..u_total."""
    return Rect(
        (GUTTER_U + RAIL_U) * scale,
        (HEADER_U + RAIL_U) * scale,
        SLOT_WIDTH_U * scale,
        u_total * scale,
    )


def zero_u_rect(u_total: int, scale: float) -> Rect:
    """The vertical strip at the right that holds 0U devices (vertical PDUs)."""
    x = (GUTTER_U + 2 * RAIL_U + SLOT_WIDTH_U) * scale
    return Rect(x, (HEADER_U + RAIL_U) * scale, ZERO_U_WIDTH_U * scale, u_total * scale)


def u_rect(u: float, u_height: float, u_total: int, scale: float) -> Rect:
    """The slot rectangle of a device whose lowest unit is ``u`` and that is ``u_height`` tall.

    Never raises and stays near the rack: a unit that is no finite number gives an empty
    rectangle on the top of the slots, and one far outside the rack (U−5, U2⁶³−1) is
    drawn just beyond its end, not a billion units away."""
    slots = slots_rect(u_total, scale)
    if not (finite(u) and finite(u_height)):
        return Rect(slots.x, slots.y, slots.w, 0.0)
    u_height = max(0.0, min(float(u_height), float(u_total)))
    u = max(-float(u_total), min(float(u), 2.0 * u_total))
    top_u = u + u_height - 1  # highest unit occupied
    y = slots.y + (u_total - top_u) * scale
    return Rect(slots.x, y, slots.w, u_height * scale)


def u_label_rect(u: int, u_total: int, scale: float) -> Rect:
    """Where the number of unit ``u`` is written, in the gutter."""
    slot = u_rect(u, 1, u_total, scale)
    return Rect(0.0, slot.y, (GUTTER_U - 0.25) * scale, scale)


def u_label_rect_right(u: int, u_total: int, scale: float) -> Rect:
    """Where the number of unit ``u`` is written right of the frame (paper)."""
    slot = u_rect(u, 1, u_total, scale)
    frame = frame_rect(u_total, scale)
    return Rect(frame.x + frame.w + 0.25 * scale, slot.y, (RIGHT_GUTTER_U - 0.25) * scale, scale)


def u_at(y: float, u_total: int, scale: float) -> int | None:
    """The unit under a y coordinate (rack-relative), or None outside the slots.

    Drag-and-drop will use this to snap a dragged device to a U.
    """
    slots = slots_rect(u_total, scale)
    if not slots.y <= y < slots.y + slots.h:
        return None
    return u_total - int((y - slots.y) // scale)


def device_blocks(rack: Rack, design: Design, scale: float, face: str = "front") -> list[Block]:
    """Rectangles of every device in ``rack`` as seen from ``face``.

    Devices mounted on the other face come first (drawn underneath, hatched); 0U devices
    share the 0U strip top to bottom, and so do devices at no unit inside the rack (below
    U1, above the top, or at a position that is no whole number): drawn at their claimed
    units they were outside the drawing, or raised.  Names, models, tags and serials
    that are not text are drawn as their repr (:func:`as_text`).
    """
    u_total = rack_units(rack, design)
    other: list[Block] = []
    mine: list[Block] = []
    zero: list[tuple] = []
    types = design.device_types
    for device in rack.devices:
        slug = device.device_type
        item = types.get(slug) if isinstance(slug, str) else None
        height = item_height_u(item.u_height) if item is not None else 0.0
        model = as_text(item.model if item is not None else slug)
        role = item_role(item, device.role if isinstance(device.role, str) else "")
        low = whole_unit(device.position)
        # Drawn at its units only when it lies inside the rack; a position below U1 or
        # above the top (or no number at all) goes to the strip with the unmounted
        # devices, where it can still be seen and selected (the checks say what is wrong).
        if low is None or height <= 0 or low < 1 or low + height - 1 > u_total:
            zero.append((device, model, role))
            continue
        rect = u_rect(low, height, u_total, scale)
        block = Block(
            as_text(device.id),
            rect,
            role,
            as_text(device.name),
            model,
            height,
            low,
            other_face=device.face != face,
            asset_tag=as_text(device.asset_tag),
            serial=as_text(device.serial),
            face_drawn=face,
        )
        (other if block.other_face else mine).append(block)
    strip = zero_u_rect(u_total, scale)
    piece = strip.h / max(len(zero), 1)
    zero_blocks = [
        Block(
            as_text(device.id),
            Rect(strip.x, strip.y + i * piece, strip.w, piece),
            role,
            as_text(device.name),
            model,
            0.0,
            whole_unit(device.position),
            zero_u=True,
            asset_tag=as_text(device.asset_tag),
            serial=as_text(device.serial),
            face_drawn=face,
        )
        for i, (device, model, role) in enumerate(zero)
    ]
    return other + mine + zero_blocks


def hit_test(blocks: list[Block], x: float, y: float) -> str | None:
    """The id of the device drawn at (x, y), topmost first, or None."""
    for block in reversed(blocks):
        if block.rect.contains(x, y):
            return block.device_id
    return None


def block_text(block: Block, px_per_u: float) -> tuple[str, str]:
    """(primary, secondary) label lines for a device block at this zoom.

    Blocks two or more units tall show name and model; 1U blocks show the name only.
    Too small to read means no text at all.
    """
    if block.zero_u or px_per_u < MIN_TEXT_PX_PER_U:
        return "", ""
    if block.u_height >= 2:
        return block.name, block.model
    return block.name, ""


def device_lines(block: Block, one_line: bool = False) -> list[str]:
    """Every label line of a device on paper: name, model, then asset tag and serial
    where known.  The painter writes as many as the block's height holds.  ``one_line``
    (a 1U device) puts tag and serial before the model: they are what the installer
    matches against the sticker, and what an elided line must not lose."""
    extra = []
    if block.asset_tag.strip():
        extra.append(f"Asset {block.asset_tag.strip()}")
    if block.serial.strip():
        extra.append(f"S/N {block.serial.strip()}")
    model = [block.model] if block.model else []
    name = block.name or "(unnamed)"
    return [name, *extra, *model] if one_line else [name, *model, *extra]


def budget_items(
    budgets: RackBudgets, names: tuple[tuple[str, str], ...]
) -> list[tuple[str, Budget]]:
    """(label, budget) for each of ``names`` (:data:`BUDGET_BARS` or :data:`BUDGET_LINES`)."""
    named = budgets.named()
    return [(label, named[key]) for key, label in names]


def budget_figures(budget: Budget) -> str:
    """A budget as written on paper: "33 / 48 U · 69 %", "41.1 kW · no limit", and
    "20.5 / 50 kW + 2 unknown · 41 %" when devices of unknown power are left out."""
    used = f"{budget.used:,.1f}" if budget.unit == "kW" else short_number(budget.used)
    if budget.unit == "kg":
        used = f"{budget.used:,.0f}"
    note = unknown_note(budget.unknown)
    if budget.limit is None or not budget.limit > 0:
        return f"{used} {budget.unit}{note} · no limit"
    return f"{used} / {short_number(budget.limit)} {budget.unit}{note} · {budget.fraction:.0%}"


def budget_state_word(state: BudgetState) -> str:
    """What a printed budget line says after its figures (colour alone does not copy)."""
    return {BudgetState.OVER: "OVER", BudgetState.NEAR: "near", BudgetState.OK: "ok"}.get(
        state, "?"
    )


def load_fraction(used: float, limit: float) -> float:
    """Used/limit clamped to [0, 1.5] for drawing a load bar (1.0 = at the limit)."""
    if not finite(used):
        return 1.5 if used == math.inf else 0.0
    if not finite(limit) or limit <= 0:  # no usable limit: full when anything is drawn
        return 1.5 if used > 0 and limit != math.inf else 0.0
    return max(0.0, min(used / limit, 1.5))


def footer_text(
    u_used: float, u_total: int, kw: float | None, limit_kw: float | None, unknown: int = 0
) -> str:
    """The figures written under a rack: "16/42 U · 40.8/50 kW", and "… kW + 2 unknown"
    when ``unknown`` devices of unknown power are left out of ``kw``."""
    text = f"{short_number(u_used)}/{u_total} U"
    if kw is not None:
        text += f" · {kw:,.1f}" if finite(kw) else " · ?"
        text += f"/{short_number(limit_kw)} kW" if limit_kw else " kW"
        text += unknown_note(unknown)
    return text
