"""Totals of the verdicts per plane, row and rack, and the JSON the command prints.

A link is counted once in its plane (its network's; ``unplanned`` for a link on no
network and for unexpected links) and once in each distinct row and rack its ends stand
in, so a link between two racks counts in both racks' totals (what each rack's
installers must look at), and the per-rack figures add up to more than the links.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from workbench.asbuilt.matcher import DISCREPANCIES, VERDICTS, Verdict
from workbench.model.design import Design

UNPLANNED = "unplanned"


@dataclass
class Totals:
    """Verdict counts: over all, and per plane, row and rack (by name)."""

    overall: Counter[str] = field(default_factory=Counter)
    planes: dict[str, Counter[str]] = field(default_factory=dict)
    rows: dict[str, Counter[str]] = field(default_factory=dict)
    racks: dict[str, Counter[str]] = field(default_factory=dict)

    @property
    def discrepancies(self) -> int:
        """How many verdicts are discrepancies (what makes the command exit 1)."""
        return sum(n for v, n in self.overall.items() if v in DISCREPANCIES)


@dataclass(frozen=True)
class Place:
    """Where a design device stands: its row's and rack's names."""

    row: str
    rack: str


def places(design: Design) -> dict[str, Place]:
    """Device id → row and rack names."""
    out: dict[str, Place] = {}
    for site in design.sites:
        for row in site.rows:
            for rack in row.racks:
                place = Place(row.name, rack.name)
                for device in rack.devices:
                    out[device.id] = place
    return out


def planes_of(design: Design) -> dict[str, str]:
    """Link id → plane (its network's), for the links on a network."""
    plane = {n.id: n.plane for n in design.networks}
    return {link.id: plane.get(link.network or "", UNPLANNED) for link in design.links}


def totals(design: Design, verdicts: list[Verdict]) -> Totals:
    """Count ``verdicts`` (from :func:`workbench.asbuilt.matcher.check`) per place."""
    where = places(design)
    link_plane = planes_of(design)
    out = Totals()
    for v in verdicts:
        out.overall[v.verdict] += 1
        plane = link_plane.get(v.link_id, UNPLANNED) if v.link_id else UNPLANNED
        out.planes.setdefault(plane, Counter())[v.verdict] += 1
        spots = [where[d] for d in v.devices if d in where]
        for row in {p.row for p in spots}:
            out.rows.setdefault(row, Counter())[v.verdict] += 1
        for rack in {p.rack for p in spots}:
            out.racks.setdefault(rack, Counter())[v.verdict] += 1
    return out


def _counts(counter: Counter[str]) -> dict[str, int]:
    return {v: counter[v] for v in VERDICTS if counter[v]}


def totals_json(t: Totals) -> dict[str, Any]:
    """The totals as plain JSON values, verdicts in :data:`VERDICTS` order."""
    return {
        "overall": _counts(t.overall),
        "discrepancies": t.discrepancies,
        "planes": {k: _counts(c) for k, c in sorted(t.planes.items())},
        "rows": {k: _counts(c) for k, c in sorted(t.rows.items())},
        "racks": {k: _counts(c) for k, c in sorted(t.racks.items())},
    }


def verdict_json(design: Design, v: Verdict) -> dict[str, Any]:
    """One verdict with the design's names for its ends."""
    link = design.index.links.get(v.link_id) if v.link_id else None
    expected = None
    if link is not None:
        expected = [_name(design, link.a_device), link.a_port,
                    _name(design, link.b_device), link.b_port]  # fmt: skip
    return {
        "link": v.link_id,
        "verdict": v.verdict,
        "expected": expected,
        "found": v.found or None,
        "where": v.where or None,
        "expected_gbps": v.expected_gbps,
        "found_gbps": v.found_gbps,
        "detail": v.detail,
    }


def _name(design: Design, device_id: str) -> str:
    placed = design.find_device(device_id)
    return placed[1].name if placed is not None else device_id


def summary_lines(t: Totals) -> list[str]:
    """Human-readable totals: overall, then per plane, then the racks with problems."""

    def text(c: Counter[str]) -> str:
        return ", ".join(f"{n} {v}" for v, n in _counts(c).items()) or "nothing"

    lines = [f"As built: {text(t.overall)}."]
    for plane, c in sorted(t.planes.items()):
        lines.append(f"  plane {plane}: {text(c)}")
    bad = [(r, c) for r, c in sorted(t.racks.items()) if any(v in DISCREPANCIES for v in c)]
    for rack, c in bad[:50]:
        lines.append(f"  rack {rack}: {text(c)}")
    if len(bad) > 50:
        lines.append(f"  ... and {len(bad) - 50} more racks with discrepancies")
    return lines
