"""The Estimates view's Costs box and the Costs form, driven with real key presses and
clicks (pytest-qt, offscreen), on the bundled sample design."""

from __future__ import annotations

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from workbench.calc.costs import design_costs  # noqa: E402
from workbench.model.cost_inputs import cost_inputs_of  # noqa: E402
from workbench.templates import sample_design  # noqa: E402
from workbench.ui.estimates import EstimatesView  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402


@pytest.fixture(scope="module")
def sample():
    return sample_design()


@pytest.fixture
def document(sample) -> Document:
    from copy import deepcopy

    return Document(deepcopy(sample))


@pytest.fixture
def view(qtbot, document) -> EstimatesView:
    widget = EstimatesView(document)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_costs_box_shows_the_figures_and_the_run(view, document):
    costs = design_costs(document.design)
    text = view.costs.text.text()
    assert f"Capex: {costs.capex_total:,.0f} USD" in text
    assert f"Cost per GPU-hour: {costs.cost_per_gpu_hour:,.2f} USD" in text
    (run,) = costs.runs
    assert f"Run '{run.name}': {run.cost:,.0f} USD" in text
    assert f"{costs.unpriced_lines} line(s) without a price" in text


def test_costs_form_edits_are_one_undo_step_and_move_the_figures(qtbot, view, document):
    before = view.costs.costs
    assert before is not None
    qtbot.mouseClick(view.costs.inputs_button, Qt.MouseButton.LeftButton)
    dialog = view.costs.dialog
    assert dialog.isVisible()
    assert "USD per kWh" in dialog.units["tariff_per_kwh"].text()
    for name, text in (("tariff_per_kwh", "0.2"), ("pue", "1.5")):
        line = dialog.fields[name]
        line.setFocus()
        line.selectAll()
        qtbot.keyClicks(line, text)
    steps = document.undo_stack.count()
    qtbot.mouseClick(dialog.button_apply(), Qt.MouseButton.LeftButton)
    assert document.undo_stack.count() == steps + 1
    inputs = cost_inputs_of(document.design)
    assert inputs.tariff_per_kwh == 0.2 and inputs.pue == 1.5
    after = view.costs.costs
    assert after is not None and after.pue == 1.5
    energy = after.typical_kw * 1.5 * 8760 * 0.2
    assert after.opex_by_item["energy"] == pytest.approx(energy)
    assert after.cost_per_gpu_hour > before.cost_per_gpu_hour
    document.undo_stack.undo()
    assert cost_inputs_of(document.design) == cost_inputs_of(sample_design())
    assert view.costs.costs.cost_per_gpu_hour == pytest.approx(before.cost_per_gpu_hour)
    assert dialog.fields["tariff_per_kwh"].text() == ""  # the open form follows the undo


def test_a_refused_value_says_why_and_changes_nothing(qtbot, view, document):
    view.costs.open_inputs()
    dialog = view.costs.dialog
    dialog.fields["utilisation"].setText("1.5")
    steps = document.undo_stack.count()
    assert dialog.apply() is False
    assert "utilisation" in dialog.error.text()
    assert document.undo_stack.count() == steps
    assert "cost.utilisation" not in document.design.properties


def test_edit_menu_costs_opens_the_estimates_view_and_the_form(qtbot, tmp_path, sample):
    from copy import deepcopy

    from qt_helpers import open_window

    window = open_window(qtbot, tmp_path, deepcopy(sample))
    window.costs_action.trigger()
    assert window.tabs.currentWidget() is window.estimates_page
    dialog = window.estimates.costs.dialog
    assert dialog.isVisible()
    dialog.fields["staffing_per_year"].setText("1000000")
    assert dialog.apply()
    assert window.estimates.costs.costs.opex_by_item["staffing"] == 1_000_000.0
    window.document.undo_stack.undo()
    assert "cost.staffing_per_year" not in window.document.design.properties
