"""Where devices sit in a rack: occupied units, clashes and free ranges.

One function per rule, used by the rack drawing and the budget figures now (rack height)
and by drop highlighting, validation and exports later (architecture: placement rules
live on the model); the template tests check every generated rack with them.  A full-depth
device blocks its units on both faces; a half-depth one only on its own face, so a
half-depth switch at the rear may share units with a half-depth patch panel at the front.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from workbench.model.design import Design, Device, Rack


def units_of(device: Device, u_height: float) -> range:
    """The rack units a device covers (empty for 0U or unplaced devices)."""
    if device.position is None or u_height <= 0:
        return range(0)
    return range(device.position, device.position + max(1, math.ceil(u_height)))


def _faces(device: Device, full_depth: bool) -> tuple[str, ...]:
    return ("front", "rear") if full_depth else (device.face,)


def occupancy(design: Design, rack: Rack) -> dict[tuple[int, str], Device]:
    """Map (unit, face) → the device holding it; later clashing devices are left out."""
    taken: dict[tuple[int, str], Device] = {}
    for device, cells in _cells(design, rack):
        for cell in cells:
            taken.setdefault(cell, device)
    return taken


def _cells(design: Design, rack: Rack) -> Iterator[tuple[Device, list[tuple[int, str]]]]:
    for device in rack.devices:
        item = design.device_types.get(device.device_type)
        if item is None:
            continue
        faces = _faces(device, item.is_full_depth)
        yield device, [(u, f) for u in units_of(device, item.u_height) for f in faces]


#: Height assumed for a rack whose catalog type is unknown or gives none (the common
#: 19-inch cabinet).
DEFAULT_RACK_U = 42


def rack_height(design: Design, rack: Rack) -> int:
    """The rack's height in U from its catalog type: the one rule the drawing, the budget
    figures and the placement checks all use, so they never disagree."""
    item = design.device_types.get(rack.rack_type)
    try:
        height = int(item.u_height) if item is not None else 0
    except (TypeError, ValueError):
        height = 0
    return height if height > 0 else DEFAULT_RACK_U


def clashes(design: Design, rack: Rack) -> list[tuple[Device, Device]]:
    """Pairs of devices that claim the same unit on the same face."""
    taken: dict[tuple[int, str], Device] = {}
    found: list[tuple[Device, Device]] = []
    seen: set[tuple[str, str]] = set()
    for device, cells in _cells(design, rack):
        for cell in cells:
            other = taken.get(cell)
            if other is None:
                taken[cell] = device
            elif (other.id, device.id) not in seen:
                seen.add((other.id, device.id))
                found.append((other, device))
    return found


def out_of_rack(design: Design, rack: Rack) -> list[Device]:
    """Devices whose units fall below U1 or above the rack's top unit."""
    top = rack_height(design, rack)
    bad = []
    for device in rack.devices:
        item = design.device_types.get(device.device_type)
        units = units_of(device, item.u_height if item else 0)
        if units and (units.start < 1 or units.stop - 1 > top):
            bad.append(device)
    return bad


def free_ranges(design: Design, rack: Rack, face: str = "front") -> list[range]:
    """Runs of free units on ``face`` from bottom to top (what a drop can use)."""
    taken = occupancy(design, rack)
    runs: list[range] = []
    start = None
    for u in range(1, rack_height(design, rack) + 1):
        free = (u, face) not in taken
        if free and start is None:
            start = u
        elif not free and start is not None:
            runs.append(range(start, u))
            start = None
    if start is not None:
        runs.append(range(start, rack_height(design, rack) + 1))
    return runs
