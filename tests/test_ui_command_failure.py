"""A command that raises, for any reason, rolls back and leaves the window working.

Issue 9: ``ModelCommand.redo`` caught only ``EditError``; a command given a wrong-typed
value stayed on the stack with the model half changed, the document turned dirty and
the next push ended in a segmentation fault.  Here model functions are made to fail
*after* they changed something, the command goes through the real QUndoStack, and the
model is compared with its state before, row by row, as the project file would store it.
"""

from __future__ import annotations

import dataclasses

import pytest
from qt_helpers import open_window

from workbench.model import Device, keep, ops
from workbench.model import edit as model_edit
from workbench.model.index import DesignIndex
from workbench.store.writer import design_rows
from workbench.ui.commands import (
    EditCommand,
    rename_rack,
    set_device_field,
    update_workload,
)
from workbench.ui.shell.document import Document


def rows(design) -> dict[str, list[tuple]]:
    """Everything the project file would hold, materialised (the save time left out)."""
    tables = {name: [tuple(row) for row in found] for name, found in design_rows(design)}
    tables["meta"] = [row for row in tables["meta"] if row[0] != "saved_at"]
    return tables


def stack_state(document: Document) -> tuple[int, int, bool]:
    stack = document.undo_stack
    return stack.count(), stack.index(), document.is_dirty


@pytest.fixture
def document(qapp) -> Document:
    """The sample design (its catalog items can be stored, so ``design_rows`` reads it
    whole) with a log of what the document refused.  Racks r00001 "A01", r00002 "A02"."""
    from workbench.templates import sample_design

    doc = Document(sample_design())
    doc.refusals = []  # type: ignore[attr-defined]
    doc.editRefused.connect(doc.refusals.append)  # type: ignore[attr-defined]
    return doc


@pytest.fixture
def patch():
    """A MonkeyPatch of the test's own: ``undo()`` on pytest's ``monkeypatch`` would
    also take back conftest's patches that keep Save/Discard boxes from blocking."""
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _first_devices(document: Document, count: int) -> list[str]:
    return [d.id for _, d in document.design.iter_devices()][:count]


def _assert_later_pushes_work(document: Document) -> None:
    """A rename after the failure is pushed, undone and redone as usual."""
    rack = document.design.find_rack("r00003")
    assert rack is not None
    count, name = document.undo_stack.count(), rack.name
    document.push(rename_rack(document, "r00003", "After"))
    assert rack.name == "After" and document.undo_stack.count() == count + 1
    document.undo()
    assert rack.name == name
    document.redo()
    assert rack.name == "After"


# -- every edit has a scope ------------------------------------------------------------------


def test_every_edit_type_has_a_rollback_scope():
    """Each edit is registered once, with its handler and what it can change (a new edit
    without a keeper would silently take the slow whole-design copy)."""
    missing = [t.__name__ for t, edit in ops._EDITS.items() if not callable(edit.keeps)]
    assert not missing
    assert ops.known_edits() == frozenset(ops._EDITS)
    # Every edit class the union names is in the table, and nothing else is.
    assert set(ops.Op.__args__) == set(ops._EDITS)  # type: ignore[attr-defined]


def test_a_drag_keeps_only_what_it_moves(sample):
    """The snapshot of a move is the two racks' device lists and the device's fields,
    not a copy of the design (the sample has ~1,000 GPUs; the snapshot stays tiny)."""
    racks = [r for r in sample.iter_racks() if r.devices]
    device = racks[0].devices[0]
    op = ops.MoveDevice(device.id, racks[1].id, 40, "front")
    snap = ops.snapshot(sample, op)
    touched = len(racks[0].devices) + len(racks[1].devices) + len(dataclasses.fields(device))
    assert snap.size == touched
    everything = keep.whole_design(sample).size
    assert snap.size * 20 < everything


@pytest.fixture(scope="module")
def sample():
    from workbench.templates import sample_design

    return sample_design()


# -- a first redo that fails half-way --------------------------------------------------------


@pytest.mark.parametrize("error", [TypeError, RuntimeError])
def test_a_field_edit_that_fails_half_way_is_rolled_back(document, patch, error):
    before, state = rows(document.design), stack_state(document)

    def half_done(design, rack_id, name):
        design.find_rack(rack_id).name = "half-done"  # changed, then it breaks
        raise error("the model broke")

    patch.setattr(model_edit, "rename_rack", half_done)
    document.push(rename_rack(document, "r00001", "Renamed"))
    assert rows(document.design) == before
    assert stack_state(document) == state  # no step, not dirty
    assert len(document.refusals) == 1 and error.__name__ in document.refusals[0]
    assert "Rename rack" in document.refusals[0] and "\n" not in document.refusals[0]
    patch.undo()
    _assert_later_pushes_work(document)


def test_a_wrong_typed_value_is_refused_without_a_crash(document):
    """What the fuzzing found: a value of the wrong type reaches the model (a serial
    that is a number).  Whether the model refuses it (EditError) or trips over it
    (``value.strip()``: AttributeError), nothing changes and the reason is shown."""
    before, state = rows(document.design), stack_state(document)
    device = _first_devices(document, 1)[0]
    document.push(set_device_field(document, device, "serial", 42))  # type: ignore[arg-type]
    assert rows(document.design) == before and stack_state(document) == state
    assert len(document.refusals) == 1 and "erial" in document.refusals[0]
    _assert_later_pushes_work(document)


def test_a_structural_edit_that_fails_inside_the_index_is_rolled_back(document, patch):
    """``_add_device`` inserts into the rack, then the index update raises: the device
    must leave the rack again and the index must not know it."""
    before, state = rows(document.design), stack_state(document)
    real = DesignIndex.add_device

    def broken(self, rack, device):
        real(self, rack, device)
        raise RuntimeError("index broke")

    patch.setattr(DesignIndex, "add_device", broken)
    existing = _first_devices(document, 1)[0]
    slug = document.design.find_device(existing)[1].device_type
    new = Device(id="d-new", name="new", device_type=slug, position=None)
    document.push(EditCommand(document, ops.AddDevice("r00001", new), "Place new"))
    patch.undo()
    assert rows(document.design) == before and stack_state(document) == state
    assert document.design.find_device("d-new") is None
    assert document.design.find_device(existing) is not None
    assert "RuntimeError" in document.refusals[0]
    _assert_later_pushes_work(document)


def test_a_batch_whose_second_step_fails_half_way_is_rolled_back(document, patch):
    """The first step is undone by the batch, the second step's own half by the
    snapshot (the batch cannot know what a step did before it raised)."""
    before, state = rows(document.design), stack_state(document)
    real = ops._EDITS[ops.MoveDevice]

    def move_then_break(design, op):
        real.apply(design, op)
        raise TypeError("move broke")

    patch.setitem(ops._EDITS, ops.MoveDevice, real._replace(apply=move_then_break))
    links = document.design.index.device_links
    cabled = next(d for _, d in document.design.iter_devices() if links.get(d.id)).id
    moved = next(d for d in _first_devices(document, 2) if d != cabled)
    batch = ops.Batch((ops.RemoveDevice(cabled), ops.MoveDevice(moved, "r00002", 5, "rear")))
    document.push(EditCommand(document, batch, "Move"))
    patch.undo()
    assert rows(document.design) == before and stack_state(document) == state
    assert document.design.find_device(cabled) is not None
    assert document.design.index.device_links.get(cabled)
    _assert_later_pushes_work(document)


# -- later steps that fail ------------------------------------------------------------------


def test_a_failing_undo_keeps_the_model_and_drops_the_history(document, patch):
    document.push(rename_rack(document, "r00001", "First"))
    document.push(rename_rack(document, "r00002", "Second"))
    after = rows(document.design)

    def half_done(design, rack_id, name):
        design.find_rack(rack_id).name = "half-undone"
        raise RuntimeError("undo broke")

    patch.setattr(model_edit, "restore_rack_name", half_done)
    document.undo()
    patch.undo()
    assert rows(document.design) == after  # as it was before the undo
    # The step is gone, and the one below it (which would undo onto the state this
    # step should have restored) with it; the design differs from the saved one.
    assert document.undo_stack.count() == 0 and document.is_dirty
    assert "Undo of Rename rack" in document.refusals[0]
    _assert_later_pushes_work(document)
    assert document.is_dirty


def test_a_failing_redo_keeps_the_model_and_drops_the_steps_above(document, patch):
    first = rename_rack(document, "r00001", "First")
    document.push(first)
    document.push(rename_rack(document, "r00002", "Second"))
    document.undo()
    document.undo()
    start = rows(document.design)
    assert not document.is_dirty  # back at the opened state

    def broken(design, rack_id, name):
        raise RuntimeError("redo broke")

    patch.setattr(model_edit, "rename_rack", broken)
    document.redo()
    patch.undo()
    assert rows(document.design) == start
    assert document.undo_stack.count() == 0  # "Second" needed "First": dropped too
    assert not document.is_dirty  # the model is the opened design, unchanged
    assert "Redo of Rename rack" in document.refusals[0]
    _assert_later_pushes_work(document)


def test_the_stack_driven_directly_is_mended_on_the_next_turn(document, patch, qtbot):
    """Code that calls ``undo_stack.undo()`` itself (not :meth:`Document.undo`) gets the
    same result once the event loop turns."""
    document.push(rename_rack(document, "r00001", "First"))
    document.push(rename_rack(document, "r00002", "Second"))
    patch.setattr(
        model_edit, "restore_rack_name", lambda *a: (_ for _ in ()).throw(ValueError("no"))
    )
    document.undo_stack.undo()
    patch.undo()
    qtbot.waitUntil(lambda: document.undo_stack.count() == 0, timeout=20_000)
    assert document.is_dirty
    _assert_later_pushes_work(document)


def test_a_failed_edit_never_merges_into_the_one_before(document, patch):
    """Qt offers an obsolete command to ``mergeWith`` before it drops it; merging would
    have made the earlier step redo the failed values."""
    workload = document.design.workloads[0]
    start_mfu = workload.mfu
    document.push(update_workload(document, workload.id, mfu=0.5))
    patch.setattr(
        model_edit, "update_workload", lambda *a, **k: (_ for _ in ()).throw(TypeError("no"))
    )
    document.push(update_workload(document, workload.id, mfu=0.6))
    patch.undo()
    assert document.undo_stack.count() == 1
    assert document.undo_stack.command(0).op.changes == {"mfu": 0.5}
    assert document.design.find_workload(workload.id).mfu == 0.5
    document.undo()
    assert document.design.find_workload(workload.id).mfu == start_mfu
    document.redo()
    assert document.design.find_workload(workload.id).mfu == 0.5


# -- in the window -----------------------------------------------------------------------------


def test_the_window_says_why_and_lives_on(qtbot, tmp_path, patch):
    from workbench.templates import sample_design

    window = open_window(qtbot, tmp_path, sample_design())
    document = window.document
    before = rows(document.design)

    def half_done(design, rack_id, name):
        design.find_rack(rack_id).name = "half-done"
        raise TypeError("wrong type")

    with qtbot.captureExceptions() as raised:
        patch.setattr(model_edit, "rename_rack", half_done)
        document.push(rename_rack(document, "r00001", "Renamed"))
        patch.undo()
        qtbot.wait(10)
        assert "TypeError: wrong type" in window.statusBar().currentMessage()
        assert rows(document.design) == before and not window.isWindowModified()
        # The Undo and Redo actions of the Edit menu run through the document.
        document.push(rename_rack(document, "r00001", "Renamed"))
        window.undo_action.trigger()
        assert document.design.find_rack("r00001").name == "A01"
        window.redo_action.trigger()
        assert document.design.find_rack("r00001").name == "Renamed"
        window.rack_view.grab()
    assert not raised
