"""Rack elevation geometry as pure functions: no Qt, no I/O.

Everything is measured in *rack units* and multiplied by ``scale`` (pixels, points or
millimetres per U), so the screen, a PDF page and a hit test all agree on where a
device sits.  U1 is at the bottom, as racks are numbered and as NetBox counts; a device's
``position`` is the lowest unit it occupies.

Layout of one rack, left to right: U-number gutter, rail, 19" mounting slots, rail,
0U strip (vertical PDUs), rail.  Top to bottom: header (name and load bar), frame,
slots, frame, footer (U and kW figures).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from workbench.catalog.vocabulary import item_role
from workbench.model.design import Design, Rack
from workbench.model.placement import rack_height
from workbench.units import short_number

#: Widths and heights in U.  A 19" rack is ~600 mm wide against 44.45 mm per U, so the
#: mounting width (482.6 mm) is ~10.9 U; 11 U keeps device labels legible.
GUTTER_U = 1.8
RAIL_U = 0.35
SLOT_WIDTH_U = 11.0
ZERO_U_WIDTH_U = 0.9
HEADER_U = 3.0
FOOTER_U = 1.8

#: Pixels per U below which text and U numbers are skipped (level of detail).
MIN_TEXT_PX_PER_U = 7.0


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


def rack_units(rack: Rack, design: Design) -> int:
    """How many U the rack has: :func:`workbench.model.placement.rack_height`."""
    return rack_height(design, rack)


def rack_size(u_total: int, scale: float) -> tuple[float, float]:
    """Outer (width, height) of a whole rack drawing, labels included."""
    width = GUTTER_U + 3 * RAIL_U + SLOT_WIDTH_U + ZERO_U_WIDTH_U
    height = HEADER_U + 2 * RAIL_U + u_total + FOOTER_U
    return width * scale, height * scale


def header_rect(u_total: int, scale: float) -> Rect:
    """The rack name and load bar area above the frame."""
    width, _ = rack_size(u_total, scale)
    return Rect(0.0, 0.0, width, HEADER_U * scale)


def frame_rect(u_total: int, scale: float) -> Rect:
    """The rack's outer frame (rails included, gutter and labels excluded)."""
    width, _ = rack_size(u_total, scale)
    x = GUTTER_U * scale
    return Rect(x, HEADER_U * scale, width - x, (u_total + 2 * RAIL_U) * scale)


def footer_rect(u_total: int, scale: float) -> Rect:
    """The figures line below the frame."""
    width, height = rack_size(u_total, scale)
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
    """The slot rectangle of a device whose lowest unit is ``u`` and that is ``u_height`` tall."""
    slots = slots_rect(u_total, scale)
    top_u = u + u_height - 1  # highest unit occupied
    y = slots.y + (u_total - top_u) * scale
    return Rect(slots.x, y, slots.w, u_height * scale)


def u_label_rect(u: int, u_total: int, scale: float) -> Rect:
    """Where the number of unit ``u`` is written, in the gutter."""
    slot = u_rect(u, 1, u_total, scale)
    return Rect(0.0, slot.y, (GUTTER_U - 0.25) * scale, scale)


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
    share the 0U strip top to bottom.
    """
    u_total = rack_units(rack, design)
    other: list[Block] = []
    mine: list[Block] = []
    zero: list[tuple] = []
    for device in rack.devices:
        item = design.device_types.get(device.device_type)
        height = float(item.u_height) if item is not None and item.u_height else 0.0
        model = item.model if item is not None else device.device_type
        role = item_role(item, device.role)
        if device.position is None or height <= 0:
            zero.append((device, model, role))
            continue
        rect = u_rect(device.position, height, u_total, scale)
        block = Block(
            device.id,
            rect,
            role,
            device.name,
            model,
            height,
            device.position,
            other_face=device.face != face,
        )
        (other if block.other_face else mine).append(block)
    strip = zero_u_rect(u_total, scale)
    piece = strip.h / max(len(zero), 1)
    zero_blocks = [
        Block(
            device.id,
            Rect(strip.x, strip.y + i * piece, strip.w, piece),
            role,
            device.name,
            model,
            0.0,
            device.position,
            zero_u=True,
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


def load_fraction(used: float, limit: float) -> float:
    """Used/limit clamped to [0, 1.5] for drawing a load bar (1.0 = at the limit)."""
    if limit <= 0:
        return 1.5 if used > 0 else 0.0
    return max(0.0, min(used / limit, 1.5))


def footer_text(u_used: float, u_total: int, kw: float | None, limit_kw: float | None) -> str:
    """The figures written under a rack: "16/42 U · 40.8/50 kW"."""
    text = f"{short_number(u_used)}/{u_total} U"
    if kw is not None:
        text += f" · {kw:,.1f}"
        text += f"/{short_number(limit_kw)} kW" if limit_kw else " kW"
    return text
