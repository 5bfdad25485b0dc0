"""Field edits are model edits like any other: applied, undone and redone exactly.

Issue 19: the window's renames, serials, cooling, rack properties and workload edits
were hand-written set/restore command pairs in ``ui/commands.py``; they are now edits
of :mod:`workbench.model.field_ops`, registered once in the model's table, so the
command line, scripts and the one generic undo command make the very same edits.
"""

from __future__ import annotations

import pytest

from workbench.model import ops
from workbench.model.edit import EditError
from workbench.store.writer import design_rows
from workbench.templates import sample_design


def rows(design) -> dict[str, list[tuple]]:
    tables = {name: [tuple(row) for row in found] for name, found in design_rows(design)}
    tables["meta"] = [row for row in tables["meta"] if row[0] != "saved_at"]
    return tables


@pytest.fixture
def design():
    return sample_design()


def _edits(design) -> list[ops.Op]:
    rack = next(r for r in design.iter_racks() if r.devices)
    device = rack.devices[0]
    workload = design.workloads[0]
    return [
        ops.RenameDevice(device.id, "renamed-node"),
        ops.SetDeviceField(device.id, "serial", "SN-42"),
        ops.SetDeviceField(device.id, "role", "storage"),
        ops.RenameRack(rack.id, "Z99"),
        ops.SetRackFields(rack.id, {"cooling": "liquid"}),
        ops.SetRackFields(rack.id, {"feed_a_breaker_a": 63.0, "name": "Z98"}),
        ops.UpdateWorkload(workload.id, {"name": "Other job"}),
        ops.RemoveWorkload(workload.id),
    ]


@pytest.mark.parametrize("index", range(8))
def test_each_field_edit_undoes_and_redoes_exactly(design, index):
    op = _edits(design)[index]
    before = rows(design)
    applied = ops.apply(design, op)
    after = rows(design)
    assert after != before
    undone = ops.apply(design, applied.inverse)
    assert rows(design) == before
    ops.apply(design, undone.inverse)
    assert rows(design) == after


def test_a_refused_field_edit_changes_nothing(design):
    rack = next(iter(design.iter_racks()))
    before = rows(design)
    with pytest.raises(EditError):
        ops.apply(design, ops.SetRackFields(rack.id, {"cooling": "no-such-cooling"}))
    with pytest.raises(EditError):
        ops.apply(design, ops.SetDeviceField("no-such-device", "serial", "x"))
    assert rows(design) == before


def test_undo_puts_back_a_value_todays_checks_refuse(design):
    """A name from an old file that the name rule now refuses comes back on undo."""
    rack = next(iter(design.iter_racks()))
    rack.name = "  padded  "  # as a file could hold it
    applied = ops.apply(design, ops.RenameRack(rack.id, "B01"))
    ops.apply(design, applied.inverse)
    assert rack.name == "  padded  "


def test_a_snapshot_of_a_field_edit_is_one_object(design):
    rack = next(iter(design.iter_racks()))
    snap = ops.snapshot(design, ops.RenameRack(rack.id, "B01"))
    assert snap.size == len(vars(rack))


def test_a_cooling_change_keeps_the_typed_power_budget_and_moves_the_cooling_limit(design):
    """Issue 19: model/edit.py overwrote the power budget with the cooling type's limit
    (A01 to liquid: 120 kW) while rack_fields kept it (50 kW).  One path now: the
    budget stays as typed, the cooling limit follows the cooling type."""
    from workbench.model.rack_fields import cooling_limit_kw
    from workbench.rules.budgets import cooling_limit_kw as rules_cooling_limit_kw

    rack = next(r for r in design.iter_racks() if r.name == "A01")
    ops.apply(design, ops.SetRackFields(rack.id, {"power_limit_kw": 50.0}))
    ops.apply(design, ops.SetRackFields(rack.id, {"cooling": "liquid"}))
    assert rack.power_limit_kw == 50.0
    assert cooling_limit_kw(design, rack) == 120.0
    assert rules_cooling_limit_kw is cooling_limit_kw  # the rules call the one home
