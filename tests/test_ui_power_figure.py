"""Entering a power figure for a type whose power is unknown: from the inspector and from
the catalog palette's context menu, one undo step that records its source; the rack's
budgets, its figures and RACK-POWER-UNKNOWN follow at once, and undo brings them back."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMainWindow, QVBoxLayout, QWidget

from workbench.catalog import load_catalog, load_file
from workbench.catalog.netbox import power_source
from workbench.model import ops
from workbench.rules import check_design
from workbench.rules.budgets import BudgetState, rack_budgets
from workbench.rules.power_unknown import rack_power_unknown
from workbench.templates import build_template
from workbench.ui.catalog.palette import CatalogPalette
from workbench.ui.catalog.power_figure import PowerFigureDialog, power_figure_op
from workbench.ui.shell.document import Document
from workbench.ui.shell.inspector import Inspector

NETBOX = Path(__file__).parent / "data" / "netbox"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def unknown_switch_design():
    """The 64-GPU template with its SN5600s replaced by the library's file (no power)."""
    design = build_template("hgx-h100-air")
    [switch] = load_file(NETBOX / "nvidia-sn5600-library.yaml").items
    design.device_types[switch.slug] = switch
    return design, switch.slug


def _first_device(design, slug):
    for rack in design.iter_racks():
        for device in rack.devices:
            if device.device_type == slug:
                return rack, device
    raise AssertionError(slug)


def _live_rules(document, object_id: str) -> set[str]:
    """The rules the window's incremental checker reports on ``object_id`` now."""
    return {f.rule for f in document.figures.checker.findings_of(object_id)}


def _flagged(design) -> list[str]:
    return sorted(f.object_id for f in check_design(design, rules=[rack_power_unknown]))


@pytest.fixture
def inspector(qtbot, catalog):
    design, slug = unknown_switch_design()
    document = Document(design, catalog=catalog)
    host = QWidget()
    inspector = Inspector(document)
    QVBoxLayout(host).addWidget(inspector)
    qtbot.addWidget(host)
    host.show()
    qtbot.waitExposed(host)
    yield inspector, slug
    del host  # kept alive until here: qtbot only closes widgets


def _fill(qtbot, dialog: PowerFigureDialog, watts: str, typical: str, source: str) -> None:
    for box, text in ((dialog.max_w, watts), (dialog.typical_w, typical)):
        box.setFocus()
        box.selectAll()
        qtbot.keyClicks(box, text)
    qtbot.keyClicks(dialog.source, source)


def test_inspector_power_figure_is_one_undo_step_and_clears_the_rule(qtbot, inspector):
    inspector, slug = inspector
    document = inspector.document
    design = document.design
    rack, device = _first_device(design, slug)
    place = list(design.device_types).index(slug)
    flagged = _flagged(design)
    assert rack.id in flagged
    assert "RACK-POWER-UNKNOWN" in _live_rules(document, rack.id)
    load = document.figures.rack_load(rack.id)
    assert load.unknown_power_devices > 0
    assert rack_budgets(design, rack, load).power.state is BudgetState.UNKNOWN

    document.select(device.id)
    assert inspector.device_fields["power"].text().startswith("unknown")
    assert inspector.set_power.isVisibleTo(inspector)
    qtbot.mouseClick(inspector.set_power, Qt.MouseButton.LeftButton)
    dialog = inspector.power_dialog
    assert dialog is not None and dialog.isVisible()
    assert not dialog.ok.isEnabled()  # no figure, no source yet
    _fill(qtbot, dialog, "1800", "1100", "NVIDIA SN5600 datasheet, max power")
    assert dialog.ok.isEnabled(), dialog.message.text()
    qtbot.mouseClick(dialog.ok, Qt.MouseButton.LeftButton)

    item = design.device_types[slug]
    assert (item.max_power_w, item.typical_power_w) == (1800.0, 1100.0)
    assert item.sources["max_power_w"] == "user: NVIDIA SN5600 datasheet, max power"
    assert power_source(item) == "user"
    assert document.undo_stack.count() == 1
    assert _flagged(design) == []
    assert "RACK-POWER-UNKNOWN" not in _live_rules(document, rack.id)
    load = document.figures.rack_load(rack.id)  # the live figures, not recomputed here
    assert load.unknown_power_devices == 0
    assert rack_budgets(design, rack, load).power.state is not BudgetState.UNKNOWN
    assert "(user)" in inspector.device_fields["power"].text()
    assert not inspector.set_power.isVisibleTo(inspector)

    document.undo()
    assert design.device_types[slug].max_power_w is None
    assert _flagged(design) == flagged
    assert "RACK-POWER-UNKNOWN" in _live_rules(document, rack.id)
    assert document.figures.rack_load(rack.id).unknown_power_devices > 0
    assert list(design.device_types).index(slug) == place  # replaced in place, both ways
    document.redo()
    assert design.device_types[slug].max_power_w == 1800.0


def test_the_dialog_refuses_typical_above_maximum_and_a_blank_source(qtbot, inspector):
    inspector, slug = inspector
    dialog = PowerFigureDialog(inspector.document, slug)
    qtbot.addWidget(dialog)
    _fill(qtbot, dialog, "900", "1000", "   ")
    assert not dialog.ok.isEnabled() and "above the maximum" in dialog.message.text()
    dialog.typical_w.setValue(0)
    assert not dialog.ok.isEnabled() and "comes from" in dialog.message.text()
    dialog.accept()  # even forced, nothing happens
    assert inspector.document.undo_stack.count() == 0
    assert inspector.document.design.device_types[slug].max_power_w is None


def test_palette_context_menu_sets_the_figure_of_a_catalog_item(qtbot, catalog):
    """An item of unknown power shown in the palette (here only in the design): its
    context menu's "Set power figure…" opens the same dialog; a known item's is off."""
    design, slug = unknown_switch_design()
    window = QMainWindow()
    window.document = Document(design, catalog=catalog, parent=window)
    qtbot.addWidget(window)
    palette = CatalogPalette([*catalog, design.device_types[slug]])
    qtbot.addWidget(palette)
    opened: list[PowerFigureDialog] = []

    def open_dialog(chosen: str) -> None:
        dialog = PowerFigureDialog(window.document, chosen, window)
        opened.append(dialog)
        dialog.open()

    palette.powerFigureRequested.connect(open_dialog)
    qtbot.keyClicks(palette.search, "SN5600")
    assert slug in palette.visible_slugs()
    known = palette.menu_for("nvidia-dgx-h100").actions()[0]
    assert not known.isEnabled()
    action = palette.menu_for(slug).actions()[0]
    assert action.isEnabled() and action.text() == "Set power figure…"
    action.trigger()
    QApplication.processEvents()
    [dialog] = opened
    _fill(qtbot, dialog, "2000", "0", "measured on site, 2024-05")
    qtbot.keyClick(dialog.source, Qt.Key.Key_Return)
    assert design.device_types[slug].max_power_w == 2000.0
    assert design.device_types[slug].typical_power_w == 2000.0  # none given: the maximum
    assert window.document.undo_stack.count() == 1


def test_power_figure_op_adds_a_catalog_only_type_and_refuses_nonsense(catalog):
    design, slug = unknown_switch_design()
    [library] = load_file(NETBOX / "nvidia-qm9700-library.yaml").items
    op = power_figure_op(design, {library.slug: library}, library.slug, 1200, "datasheet")
    assert isinstance(op, ops.AddDeviceType) and op.item.max_power_w == 1200
    assert isinstance(power_figure_op(design, None, slug, 1, "x"), ops.ReplaceDeviceType)
    with pytest.raises(ValueError, match="above 0 W"):
        power_figure_op(design, None, slug, 0, "datasheet")
    with pytest.raises(ValueError, match="comes from"):
        power_figure_op(design, None, slug, 100, " ")
    with pytest.raises(ValueError, match="no catalog item"):
        power_figure_op(design, None, "no-such-type", 100, "datasheet")
