"""Totals of the verdicts per plane, row and rack, and the JSON the command prints.

A link is counted once in its plane (its network's; ``unplanned`` for a link on no
network and for unexpected links) and once in each distinct row and rack its ends stand
in, so a link between two racks counts in both racks' totals (what each rack's
installers must look at), and the per-rack figures add up to more than the links.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np

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
    links = design.links
    # A link on no network (None) finds no plane: network ids are never empty.
    return dict(
        zip(map(_ID, links), map(plane.get, map(_NETWORK, links), repeat(UNPLANNED)), strict=True)
    )


def totals(design: Design, verdicts: list[Verdict]) -> Totals:
    """Count ``verdicts`` (from :func:`workbench.asbuilt.matcher.check`) per place.

    Counted in bulk: each verdict's plane, rows and racks are looked up with C-level
    maps as numbers and the (place, verdict) pairs counted by ``numpy.bincount``, where
    a loop over the verdicts took ~9 us each (4 s for the 443,216 links of 100,000
    GPUs, the window blocked after its check).  A verdict of two devices in one row or
    rack counts there once; the few of another count of devices (unexpected cables) go
    one by one."""
    where = places(design)
    out = Totals()
    names = list(map(_VERDICT, verdicts))
    kinds = list(dict.fromkeys(names))
    n = len(names)
    kind = np.fromiter(map({k: i for i, k in enumerate(kinds)}.__getitem__, names), np.intp, n)
    out.overall = Counter(dict(zip(kinds, np.bincount(kind, minlength=len(kinds)).tolist(),
                                   strict=True)))  # fmt: skip
    link_plane = planes_of(design)
    plane_names = [*dict.fromkeys(link_plane.values()), UNPLANNED]
    plane_code = {p: i for i, p in enumerate(plane_names)}
    planes = map(plane_code.__getitem__, map(link_plane.get, map(_LINK_ID, verdicts),
                                             repeat(UNPLANNED)))  # fmt: skip
    _count(out.planes, plane_names, kinds, np.fromiter(planes, np.intp, n), kind)
    devices = list(map(_DEVICES, verdicts))
    sizes = np.fromiter(map(len, devices), np.intp, n)
    two = np.flatnonzero(sizes == 2)
    pairs = list(map(devices.__getitem__, two.tolist()))
    for table, of in ((out.rows, _ROW), (out.racks, _RACK)):
        place_names = list(dict.fromkeys(map(of, where.values())))
        code = {name: i for i, name in enumerate(place_names)}
        at = {device: code[of(place)] for device, place in where.items()}
        first = np.fromiter(map(at.get, map(_FIRST, pairs), repeat(-1)), np.intp, len(pairs))
        second = np.fromiter(map(at.get, map(_SECOND, pairs), repeat(-1)), np.intp, len(pairs))
        second[second == first] = -1  # both ends in one place: counted there once
        both = np.concatenate([first, second])
        _count(table, place_names, kinds, both, np.concatenate([kind[two], kind[two]]))
    for i in np.flatnonzero(sizes != 2).tolist():
        spots = [where[d] for d in devices[i] if d in where]
        for row in {p.row for p in spots}:
            out.rows.setdefault(row, Counter())[names[i]] += 1
        for rack in {p.rack for p in spots}:
            out.racks.setdefault(rack, Counter())[names[i]] += 1
    return out


_ID, _NETWORK = attrgetter("id"), attrgetter("network")
_VERDICT, _LINK_ID, _DEVICES = itemgetter(0), itemgetter(1), itemgetter(7)
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_ROW, _RACK = attrgetter("row"), attrgetter("rack")


def _count(
    table: dict[str, Counter[str]],
    places: list[str],
    kinds: list[str],
    place: np.ndarray,
    kind: np.ndarray,
) -> None:
    """Add to ``table`` (place → verdict counts) one count per (``place[i]``,
    ``kind[i]``), numbers into ``places`` and ``kinds``; a place of -1 (an end on no
    design device) is left out."""
    kept = place >= 0
    counts = np.bincount(place[kept] * len(kinds) + kind[kept], minlength=0)
    for key in np.flatnonzero(counts).tolist():
        where, verdict = divmod(key, len(kinds))
        table.setdefault(places[where], Counter())[kinds[verdict]] += int(counts[key])


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
