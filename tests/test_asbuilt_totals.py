"""The as-built totals per plane, row and rack (counted in bulk) against the rule as
the module states it, one verdict at a time: a link counts once in its plane and once
in each distinct row and rack its ends stand in."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from workbench.asbuilt.matcher import VERDICTS, Verdict
from workbench.asbuilt.report import UNPLANNED, places, planes_of, totals
from workbench.templates import build_template


@pytest.fixture(scope="module")
def design():
    return build_template("dgx-h100-superpod", gpus=256)


def one_by_one(design, verdicts: list[Verdict]):
    """The totals counted verdict by verdict (the rule, not the code under test)."""
    where = places(design)
    plane = planes_of(design)
    overall: Counter[str] = Counter()
    planes: dict[str, Counter[str]] = {}
    rows: dict[str, Counter[str]] = {}
    racks: dict[str, Counter[str]] = {}
    for v in verdicts:
        overall[v.verdict] += 1
        planes.setdefault(plane.get(v.link_id, UNPLANNED) if v.link_id else UNPLANNED,
                          Counter())[v.verdict] += 1  # fmt: skip
        spots = [where[d] for d in v.devices if d in where]
        for row in {p.row for p in spots}:
            rows.setdefault(row, Counter())[v.verdict] += 1
        for rack in {p.rack for p in spots}:
            racks.setdefault(rack, Counter())[v.verdict] += 1
    return overall, planes, rows, racks


@pytest.mark.parametrize("seed", range(5))
def test_bulk_totals_match_one_by_one(design, seed: int) -> None:
    rng = random.Random(seed)
    devices = [d.id for _r, d in design.iter_devices()]
    same_rack = [
        [d.id for d in rack.devices] for rack in design.iter_racks() if len(rack.devices) > 1
    ]
    links = [link.id for link in design.links]
    verdicts = []
    for _ in range(3000):
        shape = rng.random()
        if shape < 0.5:
            ends: tuple[str, ...] = (rng.choice(devices), rng.choice(devices))
        elif shape < 0.7:
            ends = tuple(rng.sample(rng.choice(same_rack), 2))
        elif shape < 0.8:
            ends = (rng.choice(devices), "?stranger")
        elif shape < 0.9:
            ends = (rng.choice(devices),)
        else:
            ends = rng.choice(
                [(), ("?a", "?b"), (devices[0], devices[0]), tuple(rng.sample(devices, 3))]
            )
        link_id = rng.choice([*rng.sample(links, 3), None, "no-such-link"])
        verdicts.append(Verdict(rng.choice(VERDICTS), link_id, devices=ends))
    counted = totals(design, verdicts)
    overall, planes, rows, racks = one_by_one(design, verdicts)
    assert counted.overall == overall
    assert counted.planes == planes
    assert counted.rows == rows
    assert counted.racks == racks
    assert sum(counted.overall.values()) == len(verdicts)


def test_no_verdicts_no_totals(design) -> None:
    counted = totals(design, [])
    assert (counted.overall, counted.planes, counted.rows, counted.racks) == (Counter(), {}, {}, {})
