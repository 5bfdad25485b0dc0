"""Rack placement rules on the model: clashes, free ranges, out-of-rack devices."""

from __future__ import annotations

import random

import pytest

from workbench.catalog import load_catalog, parse_item, snapshot_for
from workbench.model import Design, Device, Rack, Row, Site
from workbench.model.placement import (
    clashes,
    free_ranges,
    free_unit_counts,
    occupancy,
    out_of_rack,
    rack_height,
    units_of,
)


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


def _free_by_cell(design: Design, rack: Rack, face: str, full_depth: bool) -> list[range]:
    """Free runs read unit by unit from :func:`occupancy`'s cells (what free_ranges'
    masks must equal)."""
    taken = occupancy(design, rack)
    faces = ("front", "rear") if full_depth else (face,)
    runs: list[range] = []
    start: int | None = None
    for u in range(1, rack_height(design, rack) + 2):
        free = u <= rack_height(design, rack) and all((u, f) not in taken for f in faces)
        if free and start is None:
            start = u
        elif not free and start is not None:
            runs.append(range(start, u))
            start = None
    return runs


def test_free_ranges_equal_a_reading_cell_by_cell(catalog) -> None:
    """Half-unit, 0U, full- and half-depth devices, unplaced ones, ones reaching below
    U1 or past the top, faces other than front and rear, types the design lacks."""
    shapes = {
        f"t{k}": (h, deep)
        for k, (h, deep) in enumerate(
            [(1, True), (2, False), (0.5, False), (1.5, True), (0, False), (4, True)]
        )
    }
    rng = random.Random(7)
    for _ in range(400):
        devices = [
            Device(
                id=f"x{j}",
                name="x",
                device_type=rng.choice([*shapes, "missing"]),
                position=rng.choice([None, rng.randint(-5, 50)]),
                face=rng.choice(["front", "rear", "side"]),
            )
            for j in range(rng.randint(0, 12))
        ]
        design, rack = make(catalog, [])
        rack.devices = devices
        for slug, (height, deep) in shapes.items():
            design.device_types[slug] = parse_item(
                {
                    "slug": slug,
                    "kind": "switch",
                    "manufacturer": "G",
                    "model": slug,
                    "u_height": height,
                    "is_full_depth": deep,
                },
                source_file="test",
            )
        for face in ("front", "rear", "side"):
            for full_depth in (False, True):
                expected = _free_by_cell(design, rack, face, full_depth)
                assert free_ranges(design, rack, face, full_depth=full_depth) == expected
        counts = tuple(
            sum(map(len, _free_by_cell(design, rack, f, False))) for f in ("front", "rear")
        )
        assert free_unit_counts(design, rack) == counts
