"""Building a hall from the window: clipboard, rows and racks, the context menu, rack
properties in the inspector, and a long random session through the undo stack."""

from __future__ import annotations

import copy
import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from qt_helpers import open_window

from workbench.catalog import load_catalog
from workbench.model import Feed, hall_edits, requests
from workbench.model.errors import EditError
from workbench.model.index import index_problems
from workbench.ui.commands import (
    EditCommand,
    rename_rack,
    set_rack_cooling,
    set_rack_fields,
)
from workbench.ui.shell.document import Document

AIR = "generic-rack-42u-air"
DGX = "nvidia-dgx-h100"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def window(qtbot, tmp_path, tiny_design, catalog):
    window = open_window(qtbot, tmp_path, tiny_design, catalog)
    yield window
    window.document.undo_stack.setClean()


def test_copy_and_paste_into_the_selected_rack(window):
    document, actions = window.document, window.hall_actions
    document.select_many(["d1", "s1"])
    assert actions.copy() == 2
    document.select("r2")
    window.rack_view._last_pos = None  # no pointer over a rack: paste into the selection
    assert actions.paste()
    r2 = document.design.find_rack("r2")
    assert sorted(d.device_type for d in r2.devices) == ["mgmt-48", "nvidia-dgx-h100"]
    assert sorted(d.position for d in r2.devices) == [1, 41]  # the same 40 U apart
    assert document.undo_stack.count() == 1
    document.undo_stack.undo()
    assert r2.devices == []


def test_cut_removes_and_paste_puts_back_elsewhere(window):
    document, actions = window.document, window.hall_actions
    document.select("d2")
    actions.cut()
    assert document.design.find_device("d2") is None
    assert window.statusBar().currentMessage() == "Cut 1 device."
    assert document.undo_stack.text(document.undo_stack.index() - 1) == "Cut 1 device"
    assert actions.paste("r2", 20)
    (pasted,) = document.design.find_rack("r2").devices
    assert (pasted.device_type, pasted.position, pasted.name) == (DGX, 20, "dgx-002")
    assert document.selected == (pasted.id,)  # the pasted devices are selected


def test_a_paste_that_does_not_fit_says_why(window):
    document, actions = window.document, window.hall_actions
    document.select("d1")
    actions.copy()
    assert not actions.paste("r1", 6)  # over dgx-001 and dgx-002
    assert "taken by" in window.statusBar().currentMessage()
    assert document.undo_stack.count() == 0


def test_rows_racks_duplicate_and_reorder_from_the_menu(window, monkeypatch):
    document, actions = window.document, window.hall_actions
    monkeypatch.setattr(actions, "ask_racks", lambda: (AIR, 2))
    document.select("r2")
    assert actions.add_racks()
    row_b = document.design.sites[0].rows[1]
    assert [r.name for r in row_b.racks] == ["B01", "B02", "B03"]
    new = row_b.racks[1]
    assert window.rack_view.rack_item(new.id) is not None  # laid out at once
    document.select(new.id)
    assert actions.duplicate_rack()
    assert [r.name for r in row_b.racks] == ["B01", "B02", "B04", "B03"]
    assert actions.move_rack(-1)
    assert row_b.racks[0] is new
    assert not actions.move_rack(-1)
    assert "already the first rack" in window.statusBar().currentMessage()
    assert actions.add_row()
    assert document.design.sites[0].rows[-1].name == "Row C"
    document.select(new.id)
    assert actions.delete_row()
    assert row_b not in document.design.sites[0].rows
    for _ in range(6):
        document.undo_stack.undo()
    assert [r.name for r in row_b.racks] == ["B01"]


def test_the_context_menu_offers_what_the_pointer_is_over(window):
    view = window.rack_view
    point = view.mapFromScene(view.scene_rect_of("d1").center())
    texts = [a.text() for a in window.hall_actions.context_menu(point).actions()]
    for wanted in ("Cu&t", "&Copy", "&Delete", "Paste Here", "D&uplicate Rack", "Add &Row"):
        assert wanted in texts
    assert window.document.selection == "d1"


def type_into(qtbot, editor, text: str) -> None:
    """Replace a box's text with real key presses, then Enter."""
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Backspace)
    if text:
        qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)


def test_rack_properties_are_edited_in_the_inspector_and_refused_by_name(qtbot, window):
    document = window.document
    document.select("r1")
    form = window.inspector.rack_form
    rack = document.design.find_rack("r1")
    type_into(qtbot, form.editors["feed_a_breaker_a"], "63")
    assert rack.feed_a_breaker_a == 63.0
    type_into(qtbot, form.editors["feed_a_breaker_a"], "-5")
    assert rack.feed_a_breaker_a == 63.0
    assert "Feed A breaker must be a number above 0 A" in window.inspector.message.text()
    type_into(qtbot, form.editors["feed_a_breaker_a"], "lots")
    assert "Feed A breaker must be a number" in window.inspector.message.text()
    assert form.editors["feed_a_breaker_a"].text() == "63"  # the stored value shows again
    type_into(qtbot, form.editors["max_weight_kg"], "200")  # 2 DGX + a switch: 268.9 kg
    assert rack.max_weight_kg == 200.0
    assert "RACK-WEIGHT" in {f.rule for f in document.figures.findings()}
    type_into(qtbot, form.editors["max_weight_kg"], "")  # blank: the rack model's rating
    assert rack.max_weight_kg is None
    model = form.model_box
    model.setCurrentIndex(model.findData(AIR))
    model.activated.emit(model.currentIndex())
    assert rack.rack_type == AIR and AIR in document.design.device_types
    document.undo_stack.undo()
    assert rack.rack_type == "rack-42u" and AIR not in document.design.device_types


def test_a_long_random_session_through_the_undo_stack(qtbot, tiny_design, catalog):
    """Every kind of command the window pushes, hundreds of times, then undo to the
    start: the whole model is as it was, and the index with it."""
    document = Document(tiny_design, catalog=catalog)
    design = document.design
    start = copy.deepcopy(design)
    rng = random.Random(7)
    pushed = 0
    for step in range(300):
        index = design.index
        racks, devices = sorted(index.racks), sorted(index.devices)
        kind = rng.choice(
            ["place", "move", "delete", "racks", "dup", "fields", "cooling", "rename", "paste"]
        )
        try:
            if kind == "place" and racks:
                batch = requests.place_new(
                    design, catalog, rng.choice(racks), DGX, rng.randint(1, 40)
                )
                command = EditCommand(document, batch, "place")
            elif kind == "move" and racks and devices:
                batch = hall_edits.move_devices(
                    design, rng.choice(racks), [(rng.choice(devices), rng.randint(1, 40), "front")]
                )
                command = EditCommand(document, batch, "move")
            elif kind == "delete" and devices:
                command = EditCommand(
                    document, requests.delete(design, [rng.choice(devices)]), "del"
                )
            elif kind == "racks":
                row = rng.choice(sorted(index.rows))
                command = EditCommand(
                    document, hall_edits.add_racks(design, catalog, row, AIR), "r"
                )
            elif kind == "dup" and racks:
                command = EditCommand(
                    document, hall_edits.duplicate_rack(design, rng.choice(racks)), "d"
                )
            elif kind == "fields" and racks:
                feed = Feed(
                    rng.choice([230.0, 415.0]), rng.choice([1, 3]), rng.choice([16.0, 32.0])
                )
                command = set_rack_fields(
                    document,
                    rng.choice(racks),
                    {
                        "feed_b_voltage": feed.voltage,
                        "feed_b_phases": feed.phases,
                        "feed_b_breaker_a": feed.breaker_a,
                        "max_weight_kg": rng.choice([None, 900.0]),
                    },
                )
            elif kind == "cooling" and racks:
                command = set_rack_cooling(
                    document, rng.choice(racks), rng.choice(["air", "rear-door", "liquid"])
                )
            elif kind == "rename" and racks:
                command = rename_rack(document, rng.choice(racks), f"R{step}")
            elif kind == "paste" and devices and racks:
                copied = hall_edits.copy_devices(design, [rng.choice(devices)])
                command = EditCommand(
                    document,
                    hall_edits.paste(design, catalog, rng.choice(racks), copied, None),
                    "paste",
                )
            else:
                continue
        except EditError:
            continue
        document.push(command)
        pushed += 1
        if step % 50 == 0:
            QApplication.processEvents()
            assert document.figures.summary.devices == sum(1 for _ in design.iter_devices())
    assert pushed > 150
    while document.undo_stack.canUndo():
        document.undo_stack.undo()
    assert index_problems(design) == []
    assert design == start
    # Drop the commands while the document is whole: left to the garbage collector, the
    # stack and its 200 commands (each holding the document) were torn down in whatever
    # order the collector chose, which crashed the process after earlier window tests.
    document.undo_stack.clear()


def test_every_rack_the_hall_menu_creates_gets_its_pdus(window, monkeypatch):
    """Before: Hall ▸ Add Racks, a new row of racks and Duplicate Rack made racks with
    no PDU (RACK-PDU then flagged each).  Now each new rack gets its A and B PDUs sized
    to its budget by planning.rack_pdus (the home "Add storage tier" uses), in the same
    undo step."""
    from workbench.planning.rack_pdus import PDU_CONTINUOUS_SHARE, is_pdu, pdu_capacity_kw

    document, actions = window.document, window.hall_actions
    design = document.design

    def pdus(rack):
        return [d for d in rack.devices if is_pdu(design, d)]

    def check(rack) -> None:
        found = pdus(rack)
        sides = {d.name.rsplit("-", 1)[1][0] for d in found}
        assert sides == {"a", "b"}, [d.name for d in found]
        per_side = len(found) // 2
        cap = pdu_capacity_kw(design.device_types[found[0].device_type])
        assert cap is not None
        assert per_side * cap * PDU_CONTINUOUS_SHARE >= rack.power_limit_kw

    monkeypatch.setattr(actions, "ask_racks", lambda: (AIR, 2))
    before = document.undo_stack.count()
    document.select("r2")
    assert actions.add_racks()
    assert document.undo_stack.count() == before + 1  # racks and PDUs: one undo step
    row_b = design.sites[0].rows[1]
    new = [r for r in row_b.racks if r.name in ("B02", "B03")]
    assert len(new) == 2
    for rack in new:
        check(rack)
    document.select(new[0].id)
    assert actions.duplicate_rack()
    copy_rack = next(r for r in row_b.racks if r.name == "B04")
    check(copy_rack)
    assert len(pdus(copy_rack)) == len(pdus(new[0]))  # the copy's, not a second pair
    flagged = {f.objects[0] for f in document.figures.findings() if f.rule == "RACK-PDU"}
    assert not flagged & {r.id for r in (*new, copy_rack)}
    document.undo_stack.undo()
    document.undo_stack.undo()
    assert [r.name for r in row_b.racks] == ["B01"]
    assert not any(d.name.startswith("pdu-b0") for _r, d in design.iter_devices())
