"""The bulk verdicts of uncaptured links agree with the matcher's one-link rule, and the
capture import is an ordinary undoable edit.

:mod:`workbench.asbuilt.bulk` gives every link "missing" or "unchecked" in one numpy pass
(the speed of a 100,000-GPU check); :meth:`_Matcher._is_covered` is the same rule for one
link, used for the links a capture touches.  Random coverage (planes, no plane, links on
no network or an unknown one) must give the same answer both ways.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from workbench import asbuilt
from workbench.asbuilt import bulk
from workbench.asbuilt.matcher import _MISSING, _UNCHECKED, Verdict, _Matcher
from workbench.model import ops
from workbench.model.captures import ReplaceCaptures
from workbench.templates import build_template

DATA = Path(__file__).parent / "data" / "captures"


@pytest.fixture(scope="module")
def design():
    return build_template("dgx-h100-superpod", gpus=256)


@pytest.mark.parametrize("seed", range(6))
def test_bulk_verdicts_follow_the_one_link_rule(design, seed: int) -> None:
    rng = random.Random(seed)
    links = list(design.links)
    for link in rng.sample(links, len(links) // 8):  # copies: the fixture is shared
        links[links.index(link)] = replace(link, network=rng.choice([None, "x"]))
    matcher = _Matcher(design, [])
    matcher.links = links
    planes = [None, *sorted({n.plane for n in design.networks})]
    devices = sorted({d for link in links for d in (link.a_device, link.b_device)})
    matcher.covered = {
        d: set(rng.sample(planes, rng.randint(1, 2)))
        for d in rng.sample(devices, len(devices) // 3)
    }
    a_devs = [link.a_device for link in links]
    b_devs = [link.b_device for link in links]
    out = bulk.nothing_seen(Verdict, links, (a_devs, b_devs), matcher._link_plane,
                            matcher.covered, (_UNCHECKED, _MISSING), matcher._expected_speed)  # fmt: skip
    assert len(out) == len(links)
    seen = Counter(v.verdict for v in out)
    assert seen["missing"] and seen["unchecked"], seen  # both branches taken
    for link, v in zip(links, out, strict=True):
        assert isinstance(v, Verdict) and v.link_id == link.id
        assert v.verdict == ("missing" if matcher._is_covered(link) else "unchecked"), link
        assert v.devices == (link.a_device, link.b_device)
        assert v.expected_gbps == matcher._expected_speed(link)


def test_replace_captures_is_registered_and_undoes_exactly(design) -> None:
    read = asbuilt.read_folder(DATA / "ibnetdiscover", who="t", now="2026-04-02T08:00:00Z")
    assert design.captures == []
    applied = ops.apply(design, ReplaceCaptures(read.captures))
    try:
        assert tuple(design.captures) == read.captures
        assert applied.change.design
        assert {v.verdict for v in asbuilt.verdicts(design).values()} >= {"swapped", "missing"}
    finally:
        back = ops.apply(design, applied.inverse)
    assert design.captures == []
    assert tuple(back.inverse.captures) == read.captures  # redo puts the same records back
