"""The Scenarios panel in the window: Save as Scenario writes a sibling, the wizard's
variant is saved and its findings listed, two ticked scenarios are compared with the
best and worst marked, and a panel behind another tab reads nothing until raised."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication
from qt_helpers import open_window

from workbench.catalog import load_catalog
from workbench.planning.scenarios import compare, figures_of
from workbench.store import open_design, save_design
from workbench.templates.bundled import bundled_sample
from workbench.templates.variants import VariantRequest
from workbench.ui.scenarios.table import BEST, WORST


@pytest.fixture
def window(qtbot, tmp_path):
    catalog = load_catalog(include_user=False, strict=True)
    base = tmp_path / "hall.dcwb"
    save_design(bundled_sample(), base)
    win = open_window(qtbot, tmp_path, open_design(base, catalog=catalog), catalog)
    win.document.set_path(base)
    return win


class _Wizard:
    def __init__(self, request: VariantRequest) -> None:
        self._request = request

    def request(self) -> VariantRequest:
        return self._request


def test_a_hidden_panel_reads_no_folder_until_raised(window):
    actions = window.scenario_actions
    window.checks_dock.raise_()
    QApplication.processEvents()
    before = actions.panel.refreshes
    window.document.set_path(window.document.path)  # what a Save As would do
    QApplication.processEvents()
    assert actions.panel.refreshes == before
    actions.dock.raise_()
    QApplication.processEvents()
    assert actions.panel.refreshes == before + 1


def test_save_as_scenario_and_variant_then_compare(window, tmp_path, qtbot):
    actions = window.scenario_actions
    actions.dock.raise_()
    QApplication.processEvents()
    actions.ask_label = lambda: "as is"
    saved = actions.save_as_scenario()
    assert saved == tmp_path / "hall.scenario-as-is.dcwb" and saved.exists()
    actions.run_wizard = lambda: _Wizard(VariantRequest(node_type="nvidia-dgx-b200"))
    actions.tell = lambda _title, text: setattr(actions, "last_message", text)
    variant = actions.new_variant()
    assert variant == tmp_path / "hall.scenario-dgx-b200.dcwb"
    assert "passes the rules" in actions.last_message or "errors" in actions.last_message
    panel = actions.panel
    assert panel.files.count() == 3
    panel.tick([tmp_path / "hall.dcwb", variant])
    assert panel.compare_button.isEnabled()
    table = panel.compare_ticked()
    assert table is not None and table.names == ("hall", "dgx-b200")
    expected = compare(
        [
            figures_of(open_design(tmp_path / "hall.dcwb"), "hall"),
            figures_of(open_design(variant), "dgx-b200"),
        ]
    )
    assert [r.values for r in table.rows] == [r.values for r in expected.rows]
    grid = panel.grid
    assert grid.columnCount() == 2 and grid.rowCount() == len(table.rows)
    peak = next(y for y, r in enumerate(table.rows) if r.label == "Peak BF16")
    row = table.rows[peak]
    assert grid.item(peak, row.best).background().color() == BEST
    assert grid.item(peak, row.worst).background().color() == WORST
    assert panel.plots.bars_note and panel.plots.scatter_note


def test_save_as_scenario_needs_a_saved_design(qtbot, tmp_path):
    win = open_window(qtbot, tmp_path, bundled_sample())
    actions = win.scenario_actions
    actions.ask_label = lambda: "x"
    actions.tell = lambda _title, text: setattr(actions, "last_message", text)
    assert actions.save_as_scenario() is None
    assert "Save the design first" in actions.last_message


def test_the_wizard_dialog_asks_for_what_it_offers(qtbot):
    from workbench.ui.scenarios.wizard import KEEP, ScenarioWizard

    catalog = load_catalog(include_user=False, strict=True)
    dialog = ScenarioWizard(catalog)
    qtbot.addWidget(dialog)
    assert dialog.request() == VariantRequest()
    offered = [dialog.node.itemText(i) for i in range(dialog.node.count())]
    assert offered[0] == KEEP and "nvidia-dgx-b200" in offered
    assert all(catalog[s].gpu_count for s in offered[1:])
    dialog.node.setCurrentText("nvidia-dgx-b200")
    dialog.cooling.setCurrentText("liquid")
    assert dialog.request() == VariantRequest(node_type="nvidia-dgx-b200", cooling="liquid")


def test_the_panel_writes_the_comparison_pdf(window, tmp_path):
    actions = window.scenario_actions
    actions.dock.raise_()
    QApplication.processEvents()
    actions.ask_label = lambda: "copy"
    copy = actions.save_as_scenario()
    panel = actions.panel
    panel.tick([tmp_path / "hall.dcwb", copy])
    assert not panel.pdf_button.isEnabled()  # nothing compared yet
    panel.compare_ticked()
    assert panel.pdf_button.isEnabled()
    actions.ask_pdf_path = lambda: tmp_path / "budget.pdf"
    written = actions.write_pdf()
    assert written == tmp_path / "budget.pdf"
    assert written.read_bytes()[:5] == b"%PDF-"
