"""User journey 3, "How long will our model train?" ... and what it costs, walked
through the Estimates view on the bundled sample design with real clicks and key
presses."""

from __future__ import annotations

import os

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

import workbench.templates as templates  # noqa: E402 - a missing package fails, never skips
from workbench.calc.summary import summarize  # noqa: E402
from workbench.ui.estimates import EstimatesView  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402


def type_into(qtbot, line, text: str) -> None:
    line.setFocus()
    line.selectAll()
    qtbot.keyClick(line, Qt.Key.Key_Backspace)
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Return)


def choose(combo, data) -> None:
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def test_journey_3_how_long_will_our_model_train(qtbot):
    document = Document(templates.sample_design())
    view = EstimatesView(document)
    qtbot.addWidget(view)
    view.resize(1600, 1000)
    view.show()
    qtbot.waitExposed(view)
    before = len(document.design.workloads)
    editors = view.form.editors

    # 1. Add a training workload: Llama 3 70B, 15T tokens, BF16, MFU 40 %.
    qtbot.mouseClick(view.add_training_button, Qt.MouseButton.LeftButton)
    assert len(document.design.workloads) == before + 1
    workload_id = view.current_id
    choose(editors["model"], "llama3-70b")
    type_into(qtbot, editors["tokens"], "15T")
    choose(editors["precision"], "bf16")
    type_into(qtbot, editors["mfu"], "40")
    type_into(qtbot, editors["pp"], "4")
    choose(editors["zero"], 1)
    workload = next(w for w in document.design.workloads if w.id == workload_id)
    assert (workload.model, workload.tokens, workload.precision, workload.mfu) == (
        "llama3-70b",
        15e12,
        "bf16",
        0.4,
    )
    assert (workload.tp, workload.pp, workload.zero) == (8, 4, 1)

    # 2. Days on the current design, the curve with the design marked, the memory verdict.
    gpus = summarize(document.design).gpus
    days_40 = view.estimate.point[1]
    assert view.estimate.point[0] == gpus
    assert "days" in view.results.value_labels["days"].text()
    x, y = view.days_plot.point.getOriginalDataset()
    assert (x[0], y[0]) == pytest.approx((gpus, days_40))
    _, curve = view.days_plot.curves[0.4].getOriginalDataset()
    assert len(curve) > 10
    assert view.memory_plot.stacked_total() > 0
    # The HBM line is the capacity the fits verdict uses: what nvidia-smi reports for
    # an H100 SXM5 80GB (memory.total 81,559 MiB, cited in the catalog) = 85.52e9 bytes,
    # not the "80 GB" of its name (issue 12).
    assert view.memory_plot.hbm_line.value() == pytest.approx(81_559 * 2**20 / 1e9)
    assert view.results.verdict.text().startswith(("✔ Fits", "✘ Does not fit"))

    # 3. MFU 30 %: days and the point move at once (same event-loop turn, no waiting).
    type_into(qtbot, editors["mfu"], "30")
    assert view.estimate.point[1] == pytest.approx(days_40 * 4 / 3)
    _, y = view.days_plot.point.getOriginalDataset()
    assert y[0] == pytest.approx(days_40 * 4 / 3)

    # 4. Explain the days figure: the formula with the numbers substituted.
    qtbot.mouseClick(view.results.links["days"], Qt.MouseButton.LeftButton)
    text = view.explain_dialog.text()
    assert "86400" in text and "0.3" in text and str(gpus) in text

    # 5. GPUs to finish in 30 days, as nodes rounded up to whole scalable units.
    type_into(qtbot, view.results.deadline_edit, "30")
    answer = view.results.deadline_answer.text()
    nodes = int(answer.split("→")[1].split("nodes")[0].replace(",", ""))
    assert nodes > 0 and nodes % 32 == 0

    # 6. ... and what it costs: the Costs box names the run's cost at MFU 30 %, which is
    # its GPU-hours at the rate without energy plus the run's own energy, worked out
    # here from the box's capex and opex (default inputs: 4 years, 80 % utilisation,
    # 0.10 per kWh, the design's PUE).
    costs = view.costs.costs
    assert costs is not None
    (run,) = [r for r in costs.runs if r.name == workload.name]
    days = view.estimate.point[1]
    assert run.days == pytest.approx(days) and run.gpus == gpus
    energy_year = costs.typical_kw * costs.pue * 8760 * 0.10
    assert costs.opex_by_item["energy"] == pytest.approx(energy_year)
    rate = (costs.capex_total / 4 + costs.opex_per_year - energy_year) / (gpus * 8760 * 0.8)
    run_energy = costs.typical_kw * costs.pue * days * 24 * 0.10
    expected = days * 24 * gpus * rate + run_energy
    shown = view.costs.text.text()
    assert f"Run '{workload.name}': {expected:,.0f} USD for {days:,.1f} days" in shown
    assert "Cost per GPU-hour:" in shown

    # Everything undoes back to the start.
    while document.undo_stack.canUndo():
        document.undo_stack.undo()
    assert len(document.design.workloads) == before
