"""Rack placement rules on the model: clashes, free ranges, out-of-rack devices."""

from __future__ import annotations

import pytest

from workbench.catalog import load_catalog, snapshot_for
from workbench.model import Design, Device, Rack, Row, Site
from workbench.model.placement import clashes, free_ranges, out_of_rack, units_of


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def make(catalog, devices: list[Device]) -> tuple[Design, Rack]:
    rack = Rack(id="r1", name="R01", rack_type="generic-rack-42u-air", devices=devices)
    design = Design(sites=[Site(id="s", name="S", rows=[Row(id="w", name="A", racks=[rack])])])
    design.device_types = snapshot_for(
        catalog, {"generic-rack-42u-air"} | {d.device_type for d in devices}
    )
    return design, rack


def test_units_of() -> None:
    dev = Device(id="d", name="x", device_type="t", position=3)
    assert list(units_of(dev, 8)) == list(range(3, 11))
    assert list(units_of(dev, 0)) == []
    assert list(units_of(Device(id="d", name="x", device_type="t"), 2)) == []


def test_overlapping_servers_clash(catalog) -> None:
    a = Device(id="a", name="a", device_type="nvidia-dgx-h100", position=2)
    b = Device(id="b", name="b", device_type="nvidia-dgx-h100", position=9)  # U9 is a's top unit
    c = Device(id="c", name="c", device_type="nvidia-dgx-h100", position=10)
    design, rack = make(catalog, [a, b, c])
    pairs = {(x.id, y.id) for x, y in clashes(design, rack)}
    assert pairs == {("a", "b"), ("b", "c")}


def test_free_ranges_and_overflow(catalog) -> None:
    a = Device(id="a", name="a", device_type="nvidia-dgx-h100", position=2)  # U2-U9
    top = Device(id="t", name="t", device_type="nvidia-dgx-h100", position=40)  # U40-U47 > 42
    design, rack = make(catalog, [a, top])
    assert out_of_rack(design, rack) == [top]
    runs = free_ranges(design, rack)
    assert runs[0] == range(1, 2)
    assert runs[1] == range(10, 40)
