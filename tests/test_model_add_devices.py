"""ops.AddDevices: what an AddDevice of each device does, as one edit with an exact
inverse (the fabric generator places a rack's switches with it)."""

from __future__ import annotations

import dataclasses

import pytest

from workbench.model import ops
from workbench.model.change import Change
from workbench.model.design import Design, Device
from workbench.model.errors import EditError
from workbench.model.index import index_problems


def _racks(design: Design) -> list[tuple[str, list[tuple[object, ...]]]]:
    return [
        (rack.id, [dataclasses.astuple(device) for device in rack.devices])
        for rack in design.iter_racks()
    ]


def _new(design: Design, names: list[str]) -> tuple[Device, ...]:
    return tuple(
        Device(design.index.new_id("device"), name, "mgmt-48", 20 + i, role="leaf")
        for i, name in enumerate(names)
    )


def test_add_devices_is_each_added_in_turn(tiny_design_factory) -> None:
    one, each = tiny_design_factory(), tiny_design_factory()
    before = _racks(one)
    devices = _new(one, ["x1", "x2", "x3"])
    applied = ops.apply(one, ops.AddDevices("r2", devices))
    changes = [
        ops.apply(each, ops.AddDevice("r2", d)).change for d in _new(each, ["x1", "x2", "x3"])
    ]
    assert _racks(one) == _racks(each)
    assert index_problems(one) == []
    assert applied.change == Change.combine(changes)
    ops.apply(one, applied.inverse)
    assert _racks(one) == before
    assert index_problems(one) == []


def test_add_devices_refuses_as_a_whole(tiny_design_factory) -> None:
    design = tiny_design_factory()
    before = _racks(design)
    taken = next(design.iter_devices())[1].name
    devices = _new(design, ["x1", "x1"])
    with pytest.raises(EditError, match="both named"):
        ops.apply(design, ops.AddDevices("r2", devices))
    with pytest.raises(EditError, match="already"):
        ops.apply(design, ops.AddDevices("r1", _new(design, ["y1", taken])))
    assert _racks(design) == before
    assert index_problems(design) == []
