"""Drag and drop in the rack view, driven with real Qt drag, drop and mouse events.

The mime data comes from the palette's own model (what a real drag from the catalog
carries); the events go to the rack view's viewport, as the platform would deliver them.
Every test asserts on the model, then undoes and redoes.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt
from PySide6.QtWidgets import QApplication, QScrollArea
from qt_helpers import at_unit, drag_over, drop, open_window

from workbench.catalog import load_catalog
from workbench.model import Rack
from workbench.rules.drops import DropState

NONE = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def window(qtbot, tmp_path, tiny_design, catalog):
    # r2 (B01) is an empty 42U air rack; give it a neighbour to move devices into.
    tiny_design.sites[0].rows[1].racks.append(Rack("r3", "B02", "rack-42u", power_limit_kw=50))
    tiny_design.reindex()
    window = open_window(qtbot, tmp_path, tiny_design, catalog)
    window.rack_view.fit()  # every rack on screen: a drag can start and end anywhere
    QApplication.processEvents()
    yield window
    window.document.undo_stack.setClean()


def test_a_drop_that_fits_places_the_server_and_undo_takes_it_back(window):
    document = window.document
    mime, where, accepted = drag_over(window, "nvidia-dgx-h100", "r2", 2)
    assert accepted
    target = window.rack_view.dropper._target
    assert target.verdict.state is DropState.FITS
    assert "U2–U9 (8U) of B01 is free" in window.statusBar().currentMessage()
    assert drop(window, mime, where)
    rack = document.design.find_rack("r2")
    (device,) = rack.devices
    assert (device.device_type, device.position, device.face) == ("nvidia-dgx-h100", 2, "front")
    assert device.name == "gpu-server-B01-u2"  # the default pattern {role}-{rack}-u{u}
    assert document.selection == device.id
    assert document.undo_stack.count() == 1
    document.undo_stack.undo()
    assert rack.devices == []
    document.undo_stack.redo()
    assert [d.position for d in rack.devices] == [2]


def test_a_drop_and_its_undo_refresh_the_inspector_once(window):
    """The dropped device is selected with its edit: every ``changed`` slot already reads
    it as the selection, and the inspector is refreshed once, not first for the old
    selection and then for the new one; the undo drops it from the selection the same
    way."""
    document, inspector = window.document, window.inspector
    refreshes: list[str | None] = []
    seen_by_changed: list[str | None] = []
    selections: list[object] = []
    plain = inspector._refresh

    def counted() -> None:
        refreshes.append(document.selection)
        plain()

    inspector._refresh = counted
    document.changed.connect(lambda _change: seen_by_changed.append(document.selection))
    document.selectionChanged.connect(selections.append)
    document.select("d1")
    refreshes.clear()
    mime, where, _ = drag_over(window, "nvidia-dgx-h100", "r2", 2)
    assert drop(window, mime, where)
    (device,) = document.design.find_rack("r2").devices
    assert seen_by_changed == [device.id] and selections == ["d1", device.id]
    assert refreshes == [device.id]
    assert inspector.title.text() == f"Device · {device.name}"
    refreshes.clear(), seen_by_changed.clear(), selections.clear()
    document.undo()
    assert seen_by_changed == [None] and selections == [None] and refreshes == [None]
    assert inspector.title.text() == "Nothing selected"


def test_the_undo_of_a_drop_leaves_the_inspectors_scroll_range(qtbot, window):
    """The inspector stays as tall as the tallest page it showed: the undo of a drop
    (nothing selected, no findings) does not shrink it, so its scroll bar, whose
    repaint cost milliseconds, is left as it was."""
    document, inspector = window.document, window.inspector
    bar = inspector.findChild(QScrollArea).verticalScrollBar()
    window.resize(1400, 700)  # the inspector's page is taller than its dock
    qtbot.waitUntil(lambda: document.figures.checked)
    mime, where, _ = drag_over(window, "nvidia-dgx-h100", "r2", 2)
    assert drop(window, mime, where)
    document.select("r2")  # the rack's own findings come above its page
    mime, where, _ = drag_over(window, "nvidia-dgx-h100", "r2", 12)  # over its budgets
    assert drop(window, mime, where)
    document.select("r2")
    QApplication.processEvents()
    assert inspector.findings.isVisible()
    shown = (bar.isVisible(), bar.maximum())
    assert shown[1] > 0
    document.undo()
    document.select(None)
    QApplication.processEvents()
    assert inspector.title.text() == "Nothing selected" and not inspector.findings.isVisible()
    assert (bar.isVisible(), bar.maximum()) == shown


def test_a_drop_over_a_server_is_refused_and_names_it(window):
    document = window.document
    mime, where, accepted = drag_over(window, "nvidia-dgx-h100", "r1", 6)
    assert not accepted
    verdict = window.rack_view.dropper._target.verdict
    assert verdict.state is DropState.REFUSED
    assert "taken by dgx-001" in verdict.reason
    assert "taken by dgx-001" in window.statusBar().currentMessage()
    assert not drop(window, mime, where)
    assert len(document.design.find_rack("r1").devices) == 3
    assert document.undo_stack.count() == 0


def test_a_drop_above_the_top_is_refused(window):
    mime, where, accepted = drag_over(window, "nvidia-dgx-h100", "r2", 40)
    assert not accepted
    assert "has U1–U42" in window.rack_view.dropper._target.verdict.reason


def test_a_full_depth_device_on_the_other_face_is_a_depth_clash(window):
    """The switch s1 (full depth, front, U42) blocks U42 at the rear too."""
    window.rack_view.set_face("rear")
    mime, where, accepted = drag_over(window, "generic-mgmt-48p-10g", "r1", 42)
    assert not accepted
    assert "taken by mgmt-a01" in window.rack_view.dropper._target.verdict.reason


def test_a_drop_over_the_budget_is_allowed_with_the_warning(window):
    """B01 is an air rack with a 12 kW budget: the first DGX H100 (10.2 kW) fits, the
    second breaks the power and cooling budgets (amber) but may still be dropped."""
    document = window.document
    mime, where, _ = drag_over(window, "nvidia-dgx-h100", "r2", 2)
    drop(window, mime, where)
    mime, where, accepted = drag_over(window, "nvidia-dgx-h100", "r2", 12)
    assert accepted
    verdict = window.rack_view.dropper._target.verdict
    assert verdict.state is DropState.OVER_BUDGET
    assert "power budget 12 kW (would be 20.4 kW)" in verdict.reason
    assert drop(window, mime, where)
    assert "over budget" in window.statusBar().currentMessage()
    assert len(document.design.find_rack("r2").devices) == 2
    rules = {f.rule for f in document.figures.findings()}
    assert {"RACK-POWER", "RACK-COOLING"} <= rules
    assert window.summary.figure("checks").startswith("2 errors")


def press_move_release(qtbot, view, start: QPoint, end: QPoint, modifier=NONE) -> None:
    qtbot.mousePress(view.viewport(), LEFT, modifier, start)
    for k in range(1, 6):  # several moves, as a hand makes them
        step = start + (end - start) * (k / 5)
        QApplication.sendEvent(
            view.viewport(),
            _mouse_move(QPointF(step), LEFT),
        )
    qtbot.mouseRelease(view.viewport(), LEFT, modifier, end)


def _mouse_move(pos: QPointF, buttons):
    from PySide6.QtGui import QMouseEvent

    return QMouseEvent(QMouseEvent.Type.MouseMove, pos, pos, Qt.MouseButton.NoButton, buttons, NONE)


def test_dragging_a_device_moves_it_between_racks_in_one_step(qtbot, window):
    view, document = window.rack_view, window.document
    start = at_unit(view, "r1", 4)  # dgx-001 covers U2-U9: grabbed 2 U above its base
    end = at_unit(view, "r2", 14)
    press_move_release(qtbot, view, start, end)
    rack, device = document.design.find_device("d1")
    assert rack.id == "r2"
    assert device.position == 12  # the grabbed unit lands where the pointer is
    assert document.undo_stack.count() == 1
    document.undo_stack.undo()
    rack, device = document.design.find_device("d1")
    assert (rack.id, device.position) == ("r1", 2)
    document.undo_stack.redo()
    assert document.design.find_device("d1")[0].id == "r2"


def test_two_selected_devices_move_together_keeping_their_spacing(qtbot, window):
    view, document = window.rack_view, window.document
    document.select_many(["d1", "d2"])  # U2 and U12
    press_move_release(qtbot, view, at_unit(view, "r1", 3), at_unit(view, "r3", 21))
    r3 = document.design.find_rack("r3")
    assert sorted(d.position for d in r3.devices) == [20, 30]
    assert document.undo_stack.count() == 1  # one command for the whole group
    document.undo_stack.undo()
    assert r3.devices == []
    assert [d.id for d in document.design.find_rack("r1").devices] == ["d1", "d2", "s1"]


def test_a_move_onto_an_occupied_slot_changes_nothing(qtbot, window):
    view, document = window.rack_view, window.document
    press_move_release(qtbot, view, at_unit(view, "r1", 3), at_unit(view, "r1", 13))
    assert document.design.find_device("d1")[1].position == 2
    assert document.undo_stack.count() == 0
    assert "Not moved" in window.statusBar().currentMessage()


def test_rubber_band_selects_the_devices_it_touches(qtbot, window):
    view, document = window.rack_view, window.document
    press_move_release(
        qtbot,
        view,
        at_unit(view, "r1", 5),
        at_unit(view, "r1", 15),
        Qt.KeyboardModifier.ShiftModifier,
    )
    assert set(document.selected) == {"d1", "d2"}


def _drag_event(kind, where, mime):
    from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent

    cls = QDragEnterEvent if kind == "enter" else QDragMoveEvent
    return cls(where, Qt.DropAction.CopyAction, mime, LEFT, NONE)


def test_a_drag_that_enters_over_the_margin_is_taken_and_drops_where_the_pointer_is(window):
    """A person's drag crosses the view's margin before it reaches a rack: the enter
    must be accepted there, or Qt sends the view no move and no drop for the drag."""
    from PySide6.QtGui import QDragLeaveEvent
    from qt_helpers import palette_mime

    view = window.rack_view
    mime = palette_mime(window, "nvidia-dgx-h100")
    margin = QPoint(3, 3)
    assert view.rack_and_u_at(margin) is None  # the margin, not a rack
    enter = _drag_event("enter", margin, mime)
    QApplication.sendEvent(view.viewport(), enter)
    assert enter.isAccepted()
    assert "drop it onto a rack" in window.statusBar().currentMessage()
    # Out of the view and back in over the background, then onto B01's U2.
    QApplication.sendEvent(view.viewport(), QDragLeaveEvent())
    again = _drag_event("enter", margin, mime)
    QApplication.sendEvent(view.viewport(), again)
    assert again.isAccepted()
    where = at_unit(view, "r2", 2)
    move = _drag_event("move", where, mime)
    QApplication.sendEvent(view.viewport(), move)
    assert move.isAccepted()
    assert drop(window, mime, where)
    (device,) = window.document.design.find_rack("r2").devices
    assert device.position == 2


def test_the_keyboard_way_places_at_the_unit_clicked_in_the_selected_rack(window, qtbot):
    """Select a rack by clicking a unit, pick a catalog item, press Enter."""
    from qt_helpers import palette_index

    view, document = window.rack_view, window.document
    qtbot.mouseClick(view.viewport(), LEFT, NONE, at_unit(view, "r2", 20))
    assert document.selection == "r2"
    tree = window.palette_widget.tree
    tree.setCurrentIndex(palette_index(window, "nvidia-dgx-h100"))
    tree.setFocus()
    qtbot.keyClick(tree, Qt.Key.Key_Return)
    (device,) = document.design.find_rack("r2").devices
    assert (device.position, device.name) == (20, "gpu-server-B01-u20")
    assert document.selection == device.id
    # Enter again: the rack of the selected device, where a fill would put the next.
    qtbot.keyClick(tree, Qt.Key.Key_Return)
    assert sorted(d.position for d in document.design.find_rack("r2").devices) == [1, 20]
    assert document.undo_stack.count() == 2


def test_place_here_without_a_rack_says_what_to_do(window, qtbot):
    window.document.select(None)
    assert window.hall_actions.place_here("nvidia-dgx-h100") is None
    assert "Select a rack" in window.statusBar().currentMessage()


def test_a_catalog_drag_over_the_floor_plan_drops_into_the_rack_under_the_pointer(window):
    from PySide6.QtGui import QDropEvent
    from qt_helpers import palette_mime

    window.tabs.setCurrentWidget(window.floor_plan)
    plan = window.floor_plan
    plan.fit()
    QApplication.processEvents()
    mime = palette_mime(window, "nvidia-dgx-h100")
    enter = _drag_event("enter", QPoint(2, 2), mime)  # the plan's corner: no rack there
    QApplication.sendEvent(plan.viewport(), enter)
    assert enter.isAccepted()
    where = plan.view_point_of("r2")
    move = _drag_event("move", where, mime)
    QApplication.sendEvent(plan.viewport(), move)
    assert move.isAccepted()
    assert "B01" in window.statusBar().currentMessage()
    dropped = QDropEvent(QPointF(where), Qt.DropAction.CopyAction, mime, LEFT, NONE)
    QApplication.sendEvent(plan.viewport(), dropped)
    assert dropped.isAccepted()
    (device,) = window.document.design.find_rack("r2").devices
    assert device.position == 1 and device.name == "gpu-server-B01-u1"


class _LayoutRequests(QObject):
    """Counts the layout requests and deferred repaints Qt delivers while installed on
    the application (a widget shown posts itself a deferred repaint)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.UpdateLater):
            self.seen += 1
        return False


def test_a_drop_and_its_undo_are_laid_out_before_the_window_paints(window):
    """The inspector's new page, the Checks counts and the status strip are laid out
    when the drop (and the Undo) returns, so the first paint after it is the only one:
    no layout request is left for the event loop to move painted widgets with, and no
    deferred repaint of what the drop showed (the inspector's device page, its scroll
    bar) to paint them again."""
    document = window.document
    QApplication.processEvents()
    mime, where, accepted = drag_over(window, "nvidia-dgx-h100", "r2", 2)
    assert accepted
    counter = _LayoutRequests()
    QApplication.instance().installEventFilter(counter)
    try:
        assert drop(window, mime, where)
        counter.seen = 0
        QApplication.processEvents()
        after_drop = counter.seen
        document.undo()
        counter.seen = 0
        QApplication.processEvents()
        after_undo = counter.seen
    finally:
        QApplication.instance().removeEventFilter(counter)
    assert window.inspector.title.text() == "Nothing selected"
    assert window.inspector.findChild(QScrollArea).verticalScrollBar().isHidden() == (
        window.inspector.findChild(QScrollArea).widget().height()
        <= window.inspector.findChild(QScrollArea).viewport().height()
    )
    assert document.design.find_rack("r2").devices == []
    assert (after_drop, after_undo) == (0, 0)


def test_a_move_between_racks_is_laid_out_before_the_window_paints(window):
    """What a drag between racks pushes (Document.push) is laid out when the push
    returns, as a drop and an undo are: the selected device's inspector page (its new
    rack) and the counts are not moved by a layout after the window's first paint."""
    from workbench.model.hall_edits import move_devices
    from workbench.ui.commands import EditCommand

    document = window.document
    document.select("d1")
    QApplication.processEvents()
    counter = _LayoutRequests()
    batch = move_devices(document.design, "r2", [("d1", 20, "front")])
    QApplication.instance().installEventFilter(counter)
    try:
        document.push(EditCommand(document, batch, "Move device"))
        counter.seen = 0
        QApplication.processEvents()
    finally:
        QApplication.instance().removeEventFilter(counter)
    assert document.design.find_device("d1")[0].id == "r2"
    assert counter.seen == 0


def _rack_with_findings_shown(qtbot, window):
    """Two DGX H100 dropped into r2 (the second over the rack's budgets, so the rack has
    findings) and r2 selected: the inspector's page with findings above it.  Returns the
    inspector's scrolled panel."""
    document = window.document
    window.resize(1400, 700)
    qtbot.waitUntil(lambda: document.figures.checked)
    for u in (2, 12):
        mime, where, _ = drag_over(window, "nvidia-dgx-h100", "r2", u)
        assert drop(window, mime, where)
    document.select("r2")
    QApplication.processEvents()
    return window.inspector.findChild(QScrollArea).widget()


def test_another_design_lets_the_inspector_shrink_again(qtbot, window):
    """The height kept for the tallest page belongs to the design that showed it: once
    another design replaces it, the page is as tall as what that design shows."""
    from workbench.model import Design

    document, inspector = window.document, window.inspector
    body = _rack_with_findings_shown(qtbot, window)
    assert inspector.findings.isVisible()
    tallest = body.minimumHeight()
    document.select(None)
    QApplication.processEvents()
    assert body.minimumHeight() == tallest  # kept while the design stays
    document.undo_stack.setClean()
    document.replace_design(Design(), None)
    QApplication.processEvents()
    assert inspector.title.text() == "Nothing selected"
    assert 0 < body.minimumHeight() < tallest
    assert body.minimumHeight() == body.layout().totalHeightForWidth(body.width())


def test_the_inspectors_size_hint_is_read_at_the_width_it_has(qtbot, window):
    """The inspector's panel reads its size hint's height at the width it has: the
    scroll area asks for that hint after each new text, and Qt's own hint (the height at
    the hint's wider width) laid every wrapped text of the panel (the findings, each
    page's labels) out a second time at that width, after every drop and undo."""
    panel = _rack_with_findings_shown(qtbot, window)
    findings = window.inspector.findings
    assert findings.isVisible() and panel.sizeHint().width() > panel.width()
    findings.setText(findings.text() + "<p>one line more</p>")  # a new text, as an edit's
    hint = panel.sizeHint()
    assert hint.height() == panel.layout().totalHeightForWidth(panel.width())
    assert hint.width() == panel.layout().sizeHint().width()  # the width asked is Qt's
