"""The lines of the bill of materials: what to buy, how many, at what unit price.

Moved down from :mod:`workbench.export.bom` so the cost figures
(:mod:`workbench.calc.costs`) and the BOM workbook count the same lines with the same
rules, from one home.  Where the quantities come from, and the spares percentages, are
described in :mod:`workbench.export.bom`'s docstring.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from workbench.calc.cabling import cable_counts
from workbench.calc.fabric.media import design_parts
from workbench.catalog.item import CatalogItem
from workbench.model import Design
from workbench.model.ports import MEDIA

#: Category key → sheet title, in sheet order.
CATEGORIES: dict[str, str] = {
    "compute": "Compute",
    "network": "Network",
    "optics_cables": "Optics and cables",
    "storage": "Storage",
    "racks_power": "Racks and power",
}
#: Spares as a percentage of each category's quantities (see the module docstring).
DEFAULT_SPARES_PCT: dict[str, float] = {
    "compute": 2.0,
    "network": 5.0,
    "optics_cables": 5.0,
    "storage": 2.0,
    "racks_power": 2.0,
}
_KIND_CATEGORY = {
    "server": "compute",
    "switch": "network",
    "nic": "network",
    "storage": "storage",
    "pdu": "racks_power",
    "infrastructure": "racks_power",
    "rack": "racks_power",
    "cable": "optics_cables",
    "optic": "optics_cables",
}


@dataclass
class Line:
    """One thing to buy: what, how many, at what price (None: not in the catalog)."""

    item: str
    manufacturer: str
    part_number: str
    quantity: int
    unit_price: float | None
    lead_time: str = ""
    notes: str = ""
    #: Whether spares are bought for it (racks: no).
    spares: bool = True
    #: Where the part number comes from (the catalog's ``sources.part_number``).
    part_source: str = ""
    #: The unit price's currency (the catalog item's).
    currency: str = "USD"


def _line(item: CatalogItem, quantity: int, note: str = "") -> Line:
    notes = [note] if note else []
    if item.unit_price is None:
        notes.append("no price in the catalog: to be quoted")
    elif item.currency and item.currency != "USD":
        notes.append(f"price in {item.currency}")
    if not item.part_number:
        notes.append(f"no part number in the catalog (item {item.slug}): to be quoted")
    weeks = item.props.get("lead_time_weeks")
    lead = f"{weeks:g} weeks" if isinstance(weeks, int | float) else ""
    return Line(
        item.model or item.slug,
        item.manufacturer,
        item.part_number,
        quantity,
        item.unit_price,
        lead,
        "; ".join(notes),
        item.kind != "rack",
        str(item.sources.get("part_number") or f"catalog item {item.slug} (no source given)")
        if item.part_number
        else "",
        item.currency or "USD",
    )


def _natural(text: str) -> list[object]:
    """Sort key putting ``aoc-400g-osfp-3m`` before ``aoc-400g-osfp-10m``."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def bom_lines(design: Design) -> dict[str, list[Line]]:
    """Category key → its lines, in catalog-slug order (see the module docstring)."""
    lines: dict[str, list[Line]] = {key: [] for key in CATEGORIES}
    devices: Counter[str] = Counter(device.device_type for _r, device in design.iter_devices())
    racks: Counter[str] = Counter(rack.rack_type for rack in design.iter_racks())
    for slug, n in sorted((devices + racks).items()):
        item = design.device_types.get(slug)
        if item is None:
            note = "not in the design's catalog snapshot: to be identified and quoted"
            lines["compute"].append(Line(slug, "", "", n, None, notes=note))
            continue
        lines[_KIND_CATEGORY.get(item.kind, "compute")].append(_line(item, n))
    counts = cable_counts(design)
    parts = {item.slug: item for item in design_parts(design)}
    for slug, n in sorted(counts.parts.items(), key=lambda kv: _natural(kv[0])):
        item = parts.get(slug)
        if item is None:
            lines["optics_cables"].append(Line(slug, "", "", n, None, notes="unknown part"))
        else:
            lines["optics_cables"].append(_line(item, n))
    for (media, length), n in sorted(
        counts.by_length.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)
    ):
        if media not in ("mmf", "smf") or length is None:
            continue
        name = f"{MEDIA[media].replace(' and optics', '')} patch cord {length:g} m"
        note = "patch cords are not catalog items: to be quoted"
        lines["optics_cables"].append(Line(name, "", "", n, None, notes=note))
    for (media, length), n in sorted(counts.to_quote.items()):
        name = f"{MEDIA[media]} {length:g} m"
        note = "the catalog stocks no length that covers these runs: to be quoted"
        lines["optics_cables"].append(Line(name, "", "", n, None, notes=note))
    if counts.problems:
        reasons = "; ".join(r for r, _n in counts.reasons.most_common(3))
        note = f"no stocked cable or optic fits these runs: {reasons}"
        lines["optics_cables"].append(
            Line("Runs without a part", "", "", counts.problems, None, notes=note)
        )
    return lines


def spare_quantity(quantity: int, pct: float) -> int:
    """Spares bought for ``quantity`` at ``pct`` percent: ``ROUNDUP(quantity × % / 100)``
    (the workbook's Spares formula; a hair's tolerance so 100 × 2 % is 2, not 3)."""
    return math.ceil(quantity * pct / 100 - 1e-9) if pct > 0 else 0


def expected_total(lines: dict[str, list[Line]], pct: dict[str, float] | None = None) -> float:
    """The grand total the workbook's formulas compute, worked out in Python (for tests
    and for a caller that wants the figure without opening the workbook)."""
    pct = {**DEFAULT_SPARES_PCT, **(pct or {})}
    total = 0.0
    for key, group in lines.items():
        for line in group:
            if line.unit_price is None:
                continue
            total += line.quantity * line.unit_price
            if line.spares and pct[key] > 0:
                total += spare_quantity(line.quantity, pct[key]) * line.unit_price
    return total
