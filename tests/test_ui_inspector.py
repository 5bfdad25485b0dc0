"""The inspector's edit boxes: leaving one unchanged edits nothing; a real change is one
undo step (driven with real focus changes and key presses)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QVBoxLayout, QWidget
from qt_helpers import visit

from workbench.render import colors
from workbench.rules.budgets import budget_state
from workbench.ui.shell.document import Document
from workbench.ui.shell.inspector import Inspector


@pytest.fixture
def make_inspector(qtbot):
    """An inspector on ``design`` with ``selected`` selected, plus a box to move focus to."""
    alive: list[QWidget] = []  # qtbot only closes widgets; the test keeps them alive

    def make(design, selected: str) -> tuple[Inspector, QLineEdit]:
        document = Document(design)
        host = QWidget()
        inspector = Inspector(document)
        elsewhere = QLineEdit()
        layout = QVBoxLayout(host)
        layout.addWidget(inspector)
        layout.addWidget(elsewhere)
        qtbot.addWidget(host)
        alive.append(host)
        host.show()
        qtbot.waitExposed(host)
        host.activateWindow()
        QApplication.processEvents()
        document.select(selected)
        return inspector, elsewhere

    return make


@pytest.mark.parametrize("limit", [12.34, 12.345, 1500.0])
def test_visiting_the_power_limit_box_changes_nothing(make_inspector, tiny_design, limit):
    """12.34 kW must not become 12.3 nor 1500 kW become 1000 by focusing and leaving."""
    tiny_design.find_rack("r1").power_limit_kw = limit
    inspector, elsewhere = make_inspector(tiny_design, "r1")
    visit(inspector.power_limit, elsewhere)
    inspector.power_limit.setFocus()
    inspector.power_limit.lineEdit().returnPressed.emit()  # Enter without typing, too
    elsewhere.setFocus()
    assert inspector.document.design.find_rack("r1").power_limit_kw == limit
    assert inspector.document.undo_stack.count() == 0


def test_a_typed_power_limit_is_one_undo_step(qtbot, make_inspector, tiny_design):
    tiny_design.find_rack("r1").power_limit_kw = 12.345
    inspector, elsewhere = make_inspector(tiny_design, "r1")
    box = inspector.power_limit
    box.setFocus()
    box.selectAll()
    qtbot.keyClicks(box, "2500.5")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    rack = inspector.document.design.find_rack("r1")
    assert rack.power_limit_kw == 2500.5 and rack.cooling == "rear-door"
    assert inspector.document.undo_stack.count() == 1
    elsewhere.setFocus()  # leaving afterwards adds nothing
    assert inspector.document.undo_stack.count() == 1
    inspector.document.undo_stack.undo()
    assert rack.power_limit_kw == 12.345
    assert box.value() == 12.35


@pytest.mark.parametrize(
    ("object_id", "stored"), [("r1", "  A01 "), ("r1", ""), ("d1", " dgx-001"), ("d1", "")]
)
def test_visiting_a_name_box_changes_nothing(make_inspector, tiny_design, object_id, stored):
    """A stored name with spaces is not stripped, nor a blank one complained about,
    just because the user passed through its box."""
    found = tiny_design.find_device(object_id)
    target = found[1] if found else tiny_design.find_rack(object_id)
    target.name = stored
    inspector, elsewhere = make_inspector(tiny_design, object_id)
    editor = inspector.device_name if found else inspector.rack_name
    assert editor.text() == stored
    visit(editor, elsewhere)
    assert target.name == stored
    assert inspector.document.undo_stack.count() == 0
    assert inspector.message.isHidden()


@pytest.mark.parametrize(
    ("limit", "color"), [(50.0, colors.LOAD_OK), (24.0, colors.LOAD_WARN), (20.0, colors.LOAD_OVER)]
)
def test_power_bar_colour_follows_the_load(make_inspector, tiny_design, limit, color):
    """Two DGX and a switch (20.5 kW) under 80 % of 50 kW, above 80 % of 24, over 20."""
    tiny_design.find_rack("r1").power_limit_kw = limit
    inspector, _ = make_inspector(tiny_design, "r1")
    assert f"background: {color};" in inspector.kw_bar.styleSheet()
    # The colour is the rules' verdict, not the inspector's own threshold.
    assert colors.budget_color(budget_state(20.5, limit)) == color


def _half_u_design(tiny_design):
    """A 0.5U panel at U20 and a 1.5U server at U30 in the empty rack r2 (half-U heights
    are legal in NetBox device types)."""
    from workbench.catalog.item import CatalogItem
    from workbench.model import Device

    tiny_design.device_types["panel-05u"] = CatalogItem(
        slug="panel-05u", kind="switch", manufacturer="Generic", model="0.5U panel", u_height=0.5
    )
    tiny_design.device_types["server-15u"] = CatalogItem(
        slug="server-15u", kind="server", manufacturer="Generic", model="1.5U box", u_height=1.5
    )
    rack = tiny_design.find_rack("r2")
    rack.devices += [
        Device(id="h1", name="panel", device_type="panel-05u", position=20),
        Device(id="h2", name="box", device_type="server-15u", position=30),
    ]
    tiny_design.reindex()
    return tiny_design


@pytest.mark.parametrize(
    ("device_id", "shown"), [("h1", "U20 (0.5U), front"), ("h2", "U30–U31 (1.5U), front")]
)
def test_half_u_positions_read_as_the_units_they_cover(
    make_inspector, tiny_design, device_id, shown
):
    inspector, _ = make_inspector(_half_u_design(tiny_design), device_id)
    assert inspector.device_fields["position"].text() == shown


def test_half_u_devices_are_drawn_at_their_true_height(tiny_design):
    """The drawing keeps the fraction (a 0.5U panel is half a unit tall, in the bottom
    half of U20); placement counts every unit it reaches into."""
    from workbench.model.placement import covered_units
    from workbench.render import rack_geometry as geo

    design = _half_u_design(tiny_design)
    rack = design.find_rack("r2")
    blocks = {b.device_id: b for b in geo.device_blocks(rack, design, 10.0)}
    u20 = geo.u_rect(20, 1, 42, 10.0)
    assert blocks["h1"].rect.h == 5.0
    assert blocks["h1"].rect.y == u20.y + 5.0  # the bottom half of U20
    u31, u30 = geo.u_rect(31, 1, 42, 10.0), geo.u_rect(30, 1, 42, 10.0)
    assert blocks["h2"].rect.h == 15.0
    assert blocks["h2"].rect.y == u31.y + 5.0 and blocks["h2"].rect.y + 15.0 == u30.y + 10.0
    assert list(covered_units(30, 1.5)) == [30, 31]
