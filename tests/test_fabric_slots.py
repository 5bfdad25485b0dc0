"""A switch model's slots (:func:`workbench.planning.fabric.ports.slots`) are exactly the
ports and lanes :func:`workbench.model.ports.free_port` hands out one after the other
on an empty switch, whatever shortcut ``slots`` takes: compared here with the plain
loop for every switch of the shipped catalog at every common speed."""

from __future__ import annotations

import pytest

from workbench.catalog import load_catalog
from workbench.catalog.item import CatalogItem
from workbench.model.ports import free_port, split_lane
from workbench.planning.fabric import ports as fabric_ports

SPEEDS = (1.0, 10.0, 25.0, 50.0, 100.0, 200.0, 400.0, 800.0, 1600.0)


def _plain(item: CatalogItem, speed: float, skip: frozenset[str]) -> tuple[str, ...]:
    used: dict[str, set[int | None]] = {name: {None} for name in skip}
    found: list[str] = []
    while (name := free_port(item, used, speed=speed, as_host=False, breakout=True)) is not None:
        physical, lane = split_lane(name)
        used.setdefault(physical, set()).add(lane)
        found.append(name)
    return tuple(found)


def _switches() -> list[CatalogItem]:
    return load_catalog(include_user=False).by_kind("switch")


@pytest.mark.parametrize("item", _switches(), ids=lambda i: i.slug)
def test_slots_are_free_ports_in_turn(item: CatalogItem, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fabric_ports, "_SLOTS", {})
    some_lanes = 0
    for speed in SPEEDS:
        for skip in (frozenset(), frozenset(p.name for p in item.interfaces[:2])):
            got = fabric_ports.slots(item, speed, skip)
            assert got == _plain(item, speed, skip), (speed, skip)
            some_lanes += sum("/" in name for name in got)
    assert some_lanes or not item.interfaces  # lanes were compared, not only whole ports
