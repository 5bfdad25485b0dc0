"""Undo commands: undo puts back exactly what was there; a refused edit leaves no step."""

from __future__ import annotations

import pytest

from workbench.model import Workload
from workbench.ui.commands import (
    rename_device,
    rename_rack,
    set_rack_cooling,
    update_workload,
)
from workbench.ui.shell.document import Document


@pytest.fixture
def document(qapp, tiny_design) -> Document:
    return Document(tiny_design)


def refusals(document: Document) -> list[str]:
    seen: list[str] = []
    document.editRefused.connect(seen.append)
    return seen


@pytest.mark.parametrize("stored", ["", "  A01 "])
def test_undo_of_a_rack_rename_restores_the_exact_stored_name(document, stored):
    rack = document.design.find_rack("r1")
    rack.name = stored  # as read from a file: blank, or with spaces a rename would strip
    document.push(rename_rack(document, "r1", "GPU-01"))
    assert rack.name == "GPU-01"
    document.undo_stack.undo()
    assert rack.name == stored
    assert document.undo_stack.index() == 0 and not document.is_dirty
    document.undo_stack.redo()
    assert rack.name == "GPU-01"


def test_undo_of_a_device_rename_restores_a_blank_stored_name(document):
    device = document.design.find_device("d1")[1]
    device.name = ""
    document.push(rename_device(document, "d1", "dgx-001"))
    document.undo_stack.undo()
    assert device.name == ""


def test_undo_of_a_cooling_change_restores_a_cooling_type_no_longer_offered(document):
    rack = document.design.find_rack("r1")
    rack.cooling, rack.power_limit_kw = "immersion", 80.0
    document.push(set_rack_cooling(document, "r1", "air"))
    # The cooling changes; the power budget the planner set stays (issue 19).
    assert (rack.cooling, rack.power_limit_kw) == ("air", 80.0)
    document.undo_stack.undo()
    assert (rack.cooling, rack.power_limit_kw) == ("immersion", 80.0)


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (lambda d: rename_rack(d, "r1", "   "), "A rack name cannot be empty."),
        (lambda d: rename_device(d, "d1", ""), "A device name cannot be empty."),
        (lambda d: set_rack_cooling(d, "r1", "immersion"), "Unknown cooling type 'immersion'"),
        (lambda d: update_workload(d, "w9", mfu=0.3), "No workload with id 'w9'."),
    ],
)
def test_a_refused_edit_leaves_no_undo_step_and_says_why(document, command, message):
    seen = refusals(document)
    rack = document.design.find_rack("r1")
    before = (rack.name, rack.cooling, document.design.find_device("d1")[1].name)
    document.push(command(document))
    assert document.undo_stack.count() == 0 and not document.is_dirty
    assert len(seen) == 1 and seen[0].startswith(message)
    assert (rack.name, rack.cooling, document.design.find_device("d1")[1].name) == before


def test_a_refused_edit_after_good_ones_keeps_their_undo(document):
    seen = refusals(document)
    document.push(rename_rack(document, "r1", "GPU-01"))
    document.push(rename_rack(document, "r1", ""))
    assert document.undo_stack.count() == 1 and seen
    document.undo_stack.undo()
    assert document.design.find_rack("r1").name == "A01"


def test_undo_of_a_workload_edit_restores_the_earlier_workload(document):
    earlier = Workload(id="w1", name="Job", mfu=0.4)
    document.design.workloads.append(earlier)
    document.push(update_workload(document, "w1", mfu=0.3))
    document.push(update_workload(document, "w1", mfu=0.35))  # merged: one step
    assert document.undo_stack.count() == 1
    assert document.design.workloads[0].mfu == 0.35
    document.undo_stack.undo()
    assert document.design.workloads == [earlier]
    assert document.design.workloads[0] is earlier
