"""The generator's links made field by field (:func:`made_links`) are the links the
dataclass makes, every field: a field added to :class:`Link` and not set there fails."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.model.design import Link
from workbench.planning.fabric.wiring import made_links


def test_made_links_are_the_links_the_dataclass_makes() -> None:
    ends = [("d1", "p1", "s1", "swp1", 400.0), ("d2", "p1/2", "s1", "swp2s1", 100.0)]
    made = made_links(["l000001", "l000002"], ends, "net-compute")
    plain = [
        Link(i, a, ap, b, bp, "net-compute", None, None, speed)
        for i, (a, ap, b, bp, speed) in zip(["l000001", "l000002"], ends, strict=True)
    ]
    assert made == plain
    for got, want in zip(made, plain, strict=True):
        assert type(got) is Link
        assert dataclasses.astuple(got) == dataclasses.astuple(want)
    assert made_links([], [], None) == []


def test_made_links_want_an_id_per_link() -> None:
    with pytest.raises(ValueError):
        made_links(["l000001"], [], None)
