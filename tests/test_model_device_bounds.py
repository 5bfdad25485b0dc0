"""Device edits apply the same unit and face bounds as the file reader
(model/placement.py: rack_unit_problem, placement_problem)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from workbench.model import ops
from workbench.model.errors import EditError
from workbench.model.placement import MAX_RACK_UNIT, placement_problem, rack_unit_problem
from workbench.templates import build_template


@pytest.mark.parametrize("bad", [0, -5, MAX_RACK_UNIT + 1, 2**63 - 1, 10**400, 1.5, "abc", True])
def test_units_outside_the_bound_are_refused(bad) -> None:
    assert rack_unit_problem(bad) is not None


def test_units_inside_and_unracked_are_fine() -> None:
    assert rack_unit_problem(1) is None and rack_unit_problem(MAX_RACK_UNIT) is None
    assert placement_problem(None, "front") is None
    assert "front or rear" in (placement_problem(2, "top") or "")


@pytest.mark.parametrize(("position", "face"), [(-5, "front"), (10**9, "front"), (2, "top")])
def test_move_and_add_refuse_and_change_nothing(position, face) -> None:
    design = build_template("hgx-h100-air")
    rack = next(design.iter_racks())
    device = rack.devices[0]
    before = (device.position, device.face, list(rack.devices))
    with pytest.raises(EditError, match="cannot move there"):
        ops.apply(design, ops.MoveDevice(device.id, rack.id, position, face))
    twin = replace(device, id="dev-bounds", name="twin-bounds", position=position, face=face)
    with pytest.raises(EditError, match="cannot be added there"):
        ops.apply(design, ops.AddDevice(rack.id, twin, None))
    assert (device.position, device.face, list(rack.devices)) == before
    assert design.find_device("dev-bounds") is None


def test_an_add_that_fails_half_way_leaves_nothing(monkeypatch) -> None:
    """Indexing raising after the insert (a bug, or a script's odd object): the device
    leaves the rack's list again and the index agrees with the lists."""
    design = build_template("hgx-h100-air")
    rack = next(design.iter_racks())
    twin = replace(rack.devices[0], id="dev-half", name="twin-half", position=None)
    before = list(rack.devices)

    def broken(*_args):
        raise RuntimeError("index broke")

    monkeypatch.setattr(type(design.index), "add_device", broken)
    with pytest.raises(RuntimeError, match="index broke"):
        ops.apply(design, ops.AddDevice(rack.id, twin, None))
    monkeypatch.undo()
    assert rack.devices == before and design.find_device("dev-half") is None
    assert not design.index.in_use("dev-half")
