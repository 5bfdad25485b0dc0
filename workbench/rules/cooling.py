"""Cooling of a device against its rack, and what to do about a rack too hot for its
cooling: the one home of both answers, read by the RACK-COOLING and DEVICE-COOLING
findings and by the drop verdict while a drag hovers over a rack.

A catalog item may say how it must be cooled (``props.cooling``, the same words as a
rack's: ``air``, ``rear-door``, ``liquid``).  A liquid-cooled server (a GB200 compute
tray, a direct-liquid HGX board) has cold plates on its GPUs and no fans sized to take
the heat away by air: in a rack without coolant manifolds it cannot run at all, however
little else the rack holds.  Rear-door heat exchangers still cool by air, so only a
rack with direct liquid cooling takes such a device.
"""

from __future__ import annotations

from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model import Rack
from workbench.units import format_kw, short_number

#: The cooling a liquid-cooled device needs its rack to have.
LIQUID = "liquid"


def needs_liquid(item: CatalogItem | None) -> bool:
    """Does the catalog say ``item`` is cooled by liquid (cold plates, manifolds)?"""
    return item is not None and item.props.get("cooling") == LIQUID


def device_cooling_problem(item: CatalogItem | None, rack: Rack) -> str | None:
    """Why ``item`` cannot be cooled in ``rack``, with the remedy; None when it can."""
    if not needs_liquid(item) or rack.cooling == LIQUID:
        return None
    assert item is not None
    known = COOLING_TYPES.get(rack.cooling)
    how = known.label.lower() if known is not None else repr(rack.cooling)
    return (
        f"{item.label} is liquid-cooled and {rack.name} is cooled by {how}: set "
        f"{rack.name}'s cooling to direct liquid, or put it in a liquid-cooled rack."
    )


def cooling_remedy(rack: Rack, heat_kw: float) -> str:
    """What brings ``heat_kw`` within reach: fewer servers, and each cooling type
    stronger than the rack's whose planning limit covers the heat ("fewer servers, a
    rear-door heat exchanger (50 kW) or direct liquid (120 kW)")."""
    current = COOLING_TYPES.get(rack.cooling)
    floor = current.limit_kw if current is not None else 0.0
    stronger = [c for c in COOLING_TYPES.values() if c.limit_kw > floor and c.limit_kw >= heat_kw]
    options = ["fewer servers"]
    for c in stronger:
        article = "a " if c.key == "rear-door" else ""
        options.append(f"{article}{c.label.lower()} ({short_number(c.limit_kw)} kW)")
    if len(options) == 1:
        return f"fewer servers: {format_kw(heat_kw)} is more than any cooling type takes"
    return ", ".join(options[:-1]) + " or " + options[-1]


__all__ = ["LIQUID", "cooling_remedy", "device_cooling_problem", "needs_liquid"]
