"""The Estimates view driven through real clicks and key presses (pytest-qt, offscreen).

Each test asserts on the model (the Document's design) as well as on what the view
shows, and undoes back to the start where it edits.
"""

from __future__ import annotations

import math
import os
import re

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit  # noqa: E402

from workbench.calc.explain import num  # noqa: E402
from workbench.calc.summary import rack_loads  # noqa: E402
from workbench.calc.workload import evaluate_workload  # noqa: E402
from workbench.catalog.item import CatalogItem  # noqa: E402
from workbench.model import Design, Device, Rack, Row, Site  # noqa: E402
from workbench.ui.estimates import EstimatesView  # noqa: E402
from workbench.ui.estimates.fields import (  # noqa: E402
    FIELD_BY_NAME,
    format_quantity,
    parse_quantity,
)
from workbench.ui.shell.document import Document  # noqa: E402

#: "nan" shown as a number (a word of its own), not inside "maintenance".
NAN_WORD = re.compile(r"\bnan\b")


def small_design(racks: int = 2, servers_per_rack: int = 2) -> Design:
    """Racks of DGX H100 (8 × H100 SXM 80 GB) built from hand-made catalog items."""
    gpu = CatalogItem(
        slug="nvidia-h100-sxm5-80gb",
        kind="gpu",
        manufacturer="NVIDIA",
        model="H100 SXM5 80GB",
        tflops={"bf16": 989.5, "fp16": 989.5, "fp8": 1979.0, "tf32": 494.5},
        hbm_gb=80,
        hbm_bw_tbs=3.35,
        nvlink_gbs=900,
        max_power_w=700,
    )
    server = CatalogItem(
        slug="nvidia-dgx-h100",
        kind="server",
        manufacturer="NVIDIA",
        model="DGX H100",
        u_height=8,
        gpu="nvidia-h100-sxm5-80gb",
        gpu_count=8,
        typical_power_w=8500,
        max_power_w=10200,
    )
    rack_type = CatalogItem(
        slug="rack-48u", kind="rack", manufacturer="Generic", model="48U", u_height=48
    )
    rack_list = []
    for r in range(racks):
        rack = Rack(
            id=f"rack-{r + 1}",
            name=f"R{r + 1:02d}",
            rack_type="rack-48u",
            cooling="rear-door",
            power_limit_kw=50.0,
        )
        for s in range(servers_per_rack):
            rack.devices.append(
                Device(
                    id=f"dev-{r}-{s}",
                    name=f"gpu{r}-{s}",
                    device_type="nvidia-dgx-h100",
                    position=1 + 8 * s,
                )
            )
        rack_list.append(rack)
    return Design(
        name="small",
        sites=[Site(id="site", name="Site", rows=[Row(id="row", name="A", racks=rack_list)])],
        device_types={item.slug: item for item in (gpu, server, rack_type)},
    )


@pytest.fixture
def document() -> Document:
    return Document(small_design())


@pytest.fixture
def view(qtbot, document) -> EstimatesView:
    widget = EstimatesView(document)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def field(view: EstimatesView, name: str):
    editor = view.form.editors[name]
    assert isinstance(editor, (QLineEdit, QComboBox))
    assert editor.objectName() == f"field_{name}"
    return editor


def type_into(qtbot, line: QLineEdit, text: str) -> None:
    """Replace a line edit's text with real key events and press Enter."""
    line.setFocus()
    line.selectAll()
    qtbot.keyClick(line, Qt.Key.Key_Backspace)
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Return)


def value_text(view: EstimatesView, key: str) -> str:
    return view.results.value_labels[key].text()


def visible_texts(view: EstimatesView) -> list[str]:
    return [label.text() for label in view.findChildren(QLabel) if label.isVisible()]


def add_training(qtbot, view: EstimatesView) -> str:
    qtbot.mouseClick(view.add_training_button, Qt.MouseButton.LeftButton)
    return view.current_id


# -- adding, removing, selecting --------------------------------------------------------
def test_add_training_job_by_button_is_undoable(qtbot, view, document):
    assert document.design.workloads == []
    workload_id = add_training(qtbot, view)
    assert [w.id for w in document.design.workloads] == [workload_id]
    assert document.design.workloads[0].kind == "training"
    assert view.workload_list.count() == 1
    # Issue 12: the MFU is predicted from the design until one is typed: the box is
    # blank and shows the prediction as its placeholder.
    assert document.design.workloads[0].mfu is None
    assert field(view, "mfu").text() == ""
    predicted = document.figures.workload(workload_id).mfu
    assert field(view, "mfu").placeholderText() == f"predicted {predicted * 100:.0f} %"
    assert "days" in value_text(view, "days")
    document.undo_stack.undo()
    assert document.design.workloads == []
    assert view.workload_list.count() == 0
    assert not view.form.isEnabled()
    document.undo_stack.redo()
    assert view.workload_list.count() == 1


def test_several_workloads_and_remove(qtbot, view, document):
    first = add_training(qtbot, view)
    qtbot.mouseClick(view.add_inference_button, Qt.MouseButton.LeftButton)
    second = view.current_id
    assert [w.kind for w in document.design.workloads] == ["training", "inference"]
    assert view.workload_list.count() == 2
    # The inference form hides training-only rows and shows the inference ones.
    assert view.form.form.isRowVisible(field(view, "context"))
    assert not view.form.form.isRowVisible(field(view, "mfu"))
    # Serving shards by TP only: a PP box would take values nothing reads.
    assert view.form.form.isRowVisible(field(view, "tp"))
    assert not view.form.form.isRowVisible(field(view, "pp"))
    assert "kv_cache_gib" in view.results.value_labels
    view.select_workload(first)
    assert view.current_id == first
    assert view.form.form.isRowVisible(field(view, "mfu"))
    view.select_workload(second)
    qtbot.mouseClick(view.remove_button, Qt.MouseButton.LeftButton)
    assert [w.id for w in document.design.workloads] == [first]
    document.undo_stack.undo()
    assert [w.id for w in document.design.workloads] == [first, second]
    assert view.workload_list.count() == 2


# -- editing the MFU: model, figures, plot, undo ------------------------------------------
def test_edit_mfu_with_keys_updates_model_label_plot_and_undoes(qtbot, view, document):
    workload_id = add_training(qtbot, view)
    predicted = document.figures.workload(workload_id).mfu
    days_before = value_text(view, "days")
    _, point_before = view.days_plot.point.getOriginalDataset()
    commands_before = document.undo_stack.count()

    type_into(qtbot, field(view, "mfu"), "30")

    workload = document.design.workloads[0]
    assert workload.mfu == pytest.approx(0.30)
    assert document.undo_stack.count() == commands_before + 1
    days_after = value_text(view, "days")
    assert days_after != days_before
    assert value_text(view, "mfu") == "30.0 % (given)"
    _, point_after = view.days_plot.point.getOriginalDataset()
    # days = C / (gpus · peak · MFU) / goodput: the FLOPs, GPUs and goodput are the
    # same, so the typed 30 % scales the predicted days by predicted / 0.30.
    assert point_after[0] == pytest.approx(point_before[0] * predicted / 0.30)
    expected = evaluate_workload(document.design, workload).days
    assert point_after[0] == pytest.approx(expected)

    document.undo_stack.undo()
    assert document.design.workloads[0].mfu is None
    assert field(view, "mfu").text() == ""
    assert value_text(view, "mfu").endswith("(predicted)")
    assert value_text(view, "days") == days_before
    _, point_undone = view.days_plot.point.getOriginalDataset()
    assert point_undone[0] == pytest.approx(point_before[0])
    # Re-reading the model after undo pushed nothing new.
    assert document.undo_stack.count() == commands_before + 1
    assert document.undo_stack.index() == commands_before


def test_tokens_edit_moves_the_curves(qtbot, view, document):
    add_training(qtbot, view)
    _, curve_before = view.days_plot.curves[0.4].getOriginalDataset()
    type_into(qtbot, field(view, "tokens"), "30T")
    assert document.design.workloads[0].tokens == pytest.approx(30e12)
    _, curve_after = view.days_plot.curves[0.4].getOriginalDataset()
    assert np.allclose(curve_after, 2 * curve_before)
    # The band has the 30 % curve above the 50 % one everywhere.
    _, low = view.days_plot.curves[0.5].getOriginalDataset()
    _, high = view.days_plot.curves[0.3].getOriginalDataset()
    assert np.all(high > low)


def test_editing_the_same_field_twice_is_one_undo_step(qtbot, view, document):
    add_training(qtbot, view)
    count = document.undo_stack.count()
    type_into(qtbot, field(view, "mfu"), "35")
    type_into(qtbot, field(view, "mfu"), "45")
    assert document.undo_stack.count() == count + 1
    document.undo_stack.undo()
    assert document.design.workloads[0].mfu is None  # back to the predicted MFU


# -- bad input --------------------------------------------------------------------------
def test_mfu_150_percent_shows_the_error_naming_the_field_and_no_nan(qtbot, view, document):
    add_training(qtbot, view)
    type_into(qtbot, field(view, "mfu"), "150")
    assert document.design.workloads[0].mfu == pytest.approx(1.5)
    errors = view.form.error_label
    assert errors.isVisible()
    assert "MFU (%)" in errors.text()
    # In the percent the box is typed in, not the calculator's fraction (1.5).
    assert "at most 100 %, got 150 %" in errors.text()
    assert "#fdecea" in field(view, "mfu").styleSheet()
    assert value_text(view, "days") == "—"
    for text in visible_texts(view):
        assert not NAN_WORD.search(text.lower())  # "maintenance" holds no NaN
        assert "traceback" not in text.lower()
    # Fixing it clears the error.
    type_into(qtbot, field(view, "mfu"), "45")
    assert not errors.isVisible()
    assert "days" in value_text(view, "days")


def test_text_that_is_not_a_number_is_refused_without_touching_the_model(qtbot, view, document):
    add_training(qtbot, view)
    count = document.undo_stack.count()
    type_into(qtbot, field(view, "tokens"), "lots")
    assert document.design.workloads[0].tokens == pytest.approx(15e12)
    assert document.undo_stack.count() == count
    assert "Tokens (D)" in view.form.error_label.text()
    assert "not a number" in view.form.error_label.text()


def test_tp_that_does_not_divide_the_gpus_is_reported(qtbot, view, document):
    add_training(qtbot, view)
    type_into(qtbot, field(view, "tp"), "3")
    text = view.form.error_label.text()
    assert "Tensor parallel (TP)" in text
    assert "divide" in text


# -- explain and the deadline question -------------------------------------------------
def test_explain_days_shows_the_substituted_formula(qtbot, view, document):
    add_training(qtbot, view)
    qtbot.mouseClick(view.results.links["days"], Qt.MouseButton.LeftButton)
    dialog = view.explain_dialog
    assert dialog.isVisible()
    text = dialog.text()
    assert "86400" in text
    result = evaluate_workload(document.design, document.design.workloads[0])
    assert result.explanations["days"].substituted in text
    # Issue 12: days = C / (gpus·peak·MFU) / goodput / 86400, with C the published FLOP
    # accounting (attention and logits included, so no longer 6·N·D of N and D) and the
    # MFU the step-time model predicted.
    assert num(result.total_flops) in text
    assert f"32·{num(989.5e12)}·{num(result.mfu)}" in text  # GPUs, peak, predicted MFU
    assert "goodput" in text and "PaLM" in text
    # The open dialog follows live edits.
    type_into(qtbot, field(view, "mfu"), "30")
    assert f"·{num(0.3)})" in dialog.text()


def test_every_figure_with_a_value_can_be_explained(qtbot, view, document):
    add_training(qtbot, view)
    for key in view.results.value_labels:
        if key == "gpus":
            continue
        assert key in view.results.links, key
        view.explain(key)
        figure = view.estimate.figure(key)
        assert figure.explained.substituted in view.explain_dialog.text()
    qtbot.mouseClick(view.add_inference_button, Qt.MouseButton.LeftButton)
    for key in view.results.value_labels:
        if key != "gpus":
            assert key in view.results.links, key


def test_gpus_for_a_deadline_rounds_up_to_scalable_units(qtbot, view, document):
    add_training(qtbot, view)
    type_into(qtbot, view.results.deadline_edit, "30")
    answer = view.results.deadline_answer.text()
    assert "GPUs" in answer and "nodes" in answer
    nodes = int(answer.split("→")[1].split("nodes")[0].replace(",", ""))
    assert nodes % 32 == 0
    type_into(qtbot, view.results.su_edit, "1")
    nodes_no_su = int(
        view.results.deadline_answer.text().split("→")[1].split("nodes")[0].replace(",", "")
    )
    assert nodes_no_su <= nodes
    view.explain("deadline")
    # A predicted MFU moves with the size, so the answer is searched on the predictions.
    assert "predicted days" in view.explain_dialog.text()
    type_into(qtbot, view.results.deadline_edit, "-3")
    assert view.results.deadline_answer.text().startswith("Deadline (days): ")


# -- forms mirror the model -------------------------------------------------------------
def test_choosing_custom_model_makes_params_editable(qtbot, view, document):
    add_training(qtbot, view)
    combo = field(view, "model")
    params = field(view, "params")
    assert params.isReadOnly()
    combo.setFocus()
    index = combo.findData("custom")
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    workload = document.design.workloads[0]
    assert workload.model == "custom"
    assert workload.params == pytest.approx(70_553_706_496)
    assert not params.isReadOnly()
    type_into(qtbot, params, "10B")
    assert document.design.workloads[0].params == pytest.approx(10e9)
    assert "Custom" in view.workload_list.item(0).text()
    document.undo_stack.undo()
    document.undo_stack.undo()
    assert document.design.workloads[0].model == "llama3-70b"
    assert combo.currentData() == "llama3-70b"
    assert params.isReadOnly()


def test_rename_updates_the_list(qtbot, view, document):
    add_training(qtbot, view)
    type_into(qtbot, field(view, "name"), "Pretrain 70B")
    assert document.design.workloads[0].name == "Pretrain 70B"
    assert view.workload_list.item(0).text().startswith("Pretrain 70B")


def test_inference_figures_and_memory_bar(qtbot, view, document):
    qtbot.mouseClick(view.add_inference_button, Qt.MouseButton.LeftButton)
    kv_before = value_text(view, "kv_cache_gib")
    type_into(qtbot, field(view, "context"), "16384")
    assert document.design.workloads[0].context == 16384
    assert value_text(view, "kv_cache_gib") != kv_before
    assert "max_concurrency" in view.results.value_labels
    assert "decode_tokens_per_s" in view.results.value_labels
    result = evaluate_workload(document.design, document.design.workloads[0])
    assert view.memory_plot.stacked_total() == pytest.approx(result.inference_gb_per_gpu)


def test_memory_bar_stacks_the_training_breakdown(qtbot, view, document):
    add_training(qtbot, view)
    result = evaluate_workload(document.design, document.design.workloads[0])
    assert view.memory_plot.stacked_total() == pytest.approx(result.memory.gb()["total"])
    assert view.memory_plot.hbm_line.value() == pytest.approx(80)
    zero = field(view, "zero")
    # The new job starts from the auto layout (ZeRO 3 on these 32 GPUs): go to ZeRO 1
    # first, so ZeRO 3 has optimizer state and gradients to shard.
    zero.setCurrentIndex(zero.findData(1))
    zero.activated.emit(zero.currentIndex())
    assert document.design.workloads[0].zero == 1
    before = view.memory_plot.stacked_total()
    zero.setCurrentIndex(zero.findData(3))
    zero.activated.emit(zero.currentIndex())
    assert document.design.workloads[0].zero == 3
    assert view.memory_plot.stacked_total() < before
    verdict = view.results.verdict.text()
    assert "fit" in verdict.lower()


# -- rack power ------------------------------------------------------------------------
def test_rack_power_bars_match_rack_loads(view, document):
    loads = list(rack_loads(document.design).values())
    heights = view.power_plot.max_bars.opts["height"]
    assert list(heights) == pytest.approx([load.kw_max for load in loads])
    _, limits = view.power_plot.limit.getOriginalDataset()
    assert list(limits) == pytest.approx([load.limit_kw for load in loads])


def test_three_thousand_racks_use_a_fixed_handful_of_items(qtbot):
    design = small_design(racks=3000, servers_per_rack=1)
    design.sites[0].rows[0].racks[7].power_limit_kw = 5.0  # one rack over its limit
    document = Document(design)
    view = EstimatesView(document)
    qtbot.addWidget(view)
    plot = view.power_plot
    bars = [item for item in plot.getPlotItem().items if type(item).__name__ == "BarGraphItem"]
    assert len(bars) == 3  # maximum, typical, over-limit: one item each whatever the count
    assert len(plot.max_bars.opts["height"]) == 3000
    assert list(plot.over_bars.opts["x"]) == [7]
    assert len(plot.typical_bars.opts["x"]) == 2999


def test_replacing_the_design_resets_the_view(qtbot, view, document):
    add_training(qtbot, view)
    document.replace_design(small_design(racks=1), None)
    assert view.workload_list.count() == 0
    assert view.current_id is None
    assert len(view.power_plot.max_bars.opts["height"]) == 1


# -- text helpers ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("70B", 70e9),
        ("15T", 15e12),
        ("1.5e13", 1.5e13),
        ("15,000", 15000.0),
        ("8k", 8000.0),
    ],
)
def test_parse_quantity(text, value):
    assert parse_quantity(text) == pytest.approx(value)


def test_format_quantity_round_trips():
    for value in (15e12, 70e9, 6.74e9, 4096.0, 70_553_706_496.0):
        assert math.isclose(parse_quantity(format_quantity(value)), value, rel_tol=1e-5)


def test_gpu_model_choice_is_pushed_and_undone(qtbot, view, document):
    add_training(qtbot, view)
    combo = field(view, "gpu_type")
    assert combo.currentData() == ""
    index = combo.findData("nvidia-h100-sxm5-80gb")
    assert index > 0
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    assert document.design.workloads[0].gpu_type == "nvidia-h100-sxm5-80gb"
    document.undo_stack.undo()
    assert document.design.workloads[0].gpu_type is None
    assert combo.currentData() == ""


NASTY = ("0", "-1", "1e400", "nan", "inf", "abc", "", "1.5", "99999999999999", "2.5e-3", "7")


@pytest.mark.parametrize("kind", ["training", "inference"])
def test_nasty_input_in_every_box_never_shows_nan_or_raises(qtbot, view, document, kind):
    """Every visible line edit takes junk without a traceback, NaN or inf on screen."""
    button = view.add_training_button if kind == "training" else view.add_inference_button
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    start = document.undo_stack.index()
    for name, editor in view.form.editors.items():
        if not isinstance(editor, QLineEdit) or not view.form.form.isRowVisible(editor):
            continue
        if editor.isReadOnly():
            continue
        for text in NASTY:
            type_into(qtbot, editor, text)
            for shown in visible_texts(view):
                # The user's own text may be quoted back ('nan' is not a number).
                lowered = shown.lower().replace("'nan'", "").replace("'inf'", "")
                assert not NAN_WORD.search(lowered), (name, text, shown)
                assert " inf " not in f" {lowered} ", (name, text, shown)
        # Each field's edits merge into at most one undo step, except that an optional
        # box's switch between a typed value and blank (its default) is a step of its
        # own, so clearing a typed MFU can be undone: at most 3 for those ("7", "",
        # "1.5"; the NASTY list is blank once).
        optional = [n for n in view.form.editors if FIELD_BY_NAME[n].kind.startswith("optional")]
        assert document.undo_stack.index() <= start + len(view.form.editors) + 2 * len(optional)
    while document.undo_stack.index() > start:
        document.undo_stack.undo()
    assert document.design.workloads[0].kind == kind
    assert not view.form.error_label.isVisible()


def test_rack_edits_from_other_views_refresh_the_power_plot(qtbot, view, document):
    from workbench.ui.commands import set_rack_fields

    document.push(set_rack_fields(document, "rack-1", {"power_limit_kw": 12.0}))
    _, limits = view.power_plot.limit.getOriginalDataset()
    assert limits[0] == pytest.approx(12.0)
    assert list(view.power_plot.over_bars.opts["x"]) == [0]  # 2 × 10.2 kW > 12 kW
    document.undo_stack.undo()
    _, limits = view.power_plot.limit.getOriginalDataset()
    assert limits[0] == pytest.approx(50.0)
    assert len(view.power_plot.over_bars.opts["x"]) == 0


def test_a_box_that_is_not_a_number_shows_only_its_own_complaint(qtbot, view, document):
    """ "abc" after "0" says "'abc' is not a number", without the calculators' stale
    "must be greater than 0, got 0.0" about the value still in the model."""
    add_training(qtbot, view)
    type_into(qtbot, field(view, "tokens"), "0")
    assert view.form.error_lines() == ["Tokens (D): must be greater than 0, got 0.0"]
    type_into(qtbot, field(view, "tokens"), "abc")
    assert view.form.error_lines() == ["Tokens (D): 'abc' is not a number"]
    type_into(qtbot, field(view, "tokens"), "15T")
    assert view.form.error_lines() == []


def test_deadline_and_su_errors_name_the_boxes_and_mark_them(qtbot, view, document):
    add_training(qtbot, view)
    results = view.results
    type_into(qtbot, results.deadline_edit, "0")
    assert results.deadline_answer.text().startswith("Deadline (days): ")
    assert "#fdecea" in results.deadline_edit.styleSheet()
    assert "#fdecea" not in results.su_edit.styleSheet()
    type_into(qtbot, results.deadline_edit, "30")
    type_into(qtbot, results.su_edit, "abc")
    assert results.deadline_answer.text() == "SU (nodes): 'abc' is not a number"
    assert "#fdecea" in results.su_edit.styleSheet()
    assert "#fdecea" not in results.deadline_edit.styleSheet()
    type_into(qtbot, results.su_edit, "2.5")  # used to be truncated to 2 silently
    assert results.deadline_answer.text().startswith("SU (nodes): must be a whole number")
    type_into(qtbot, results.su_edit, "1")
    assert "SU × 1 node = " in results.deadline_answer.text()
    assert results.su_edit.styleSheet() == ""


def test_a_bad_mfu_asks_to_fix_the_form_in_the_deadline_box(qtbot, view, document):
    add_training(qtbot, view)
    type_into(qtbot, field(view, "mfu"), "150")
    assert view.results.deadline_answer.text() == "Fix the inputs marked in red first."


def test_a_complaint_survives_an_edit_of_another_box(qtbot, view, document):
    """Typing "lots" into Tokens and then changing MFU must not silently swap the typed
    text for the model's 15T: the box keeps its text and complaint until it is edited."""
    add_training(qtbot, view)
    tokens = field(view, "tokens")
    type_into(qtbot, tokens, "lots")
    type_into(qtbot, field(view, "mfu"), "45")
    assert document.design.workloads[0].mfu == pytest.approx(0.45)
    assert tokens.text() == "lots"
    assert view.form.error_lines() == ["Tokens (D): 'lots' is not a number"]
    document.undo_stack.undo()  # undoing the MFU edit does not drop it either
    assert tokens.text() == "lots" and view.form.error_lines()
    type_into(qtbot, tokens, "20T")
    assert document.design.workloads[0].tokens == pytest.approx(20e12)
    assert view.form.error_lines() == []


def test_a_complaint_goes_with_another_workload(qtbot, view, document):
    first = add_training(qtbot, view)
    type_into(qtbot, field(view, "tokens"), "lots")
    add_training(qtbot, view)
    assert view.form.error_lines() == []
    view.select_workload(first)
    assert field(view, "tokens").text() == format_quantity(15e12)
    assert view.form.error_lines() == []


def test_a_complaint_about_n_goes_when_a_preset_takes_n_back(qtbot, view, document):
    add_training(qtbot, view)
    combo, params = field(view, "model"), field(view, "params")
    index = combo.findData("custom")
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    type_into(qtbot, params, "lots")
    # A custom model known by N alone cannot have its MFU predicted: the calculators
    # ask for one (issue 12), beside the complaint about N.
    assert "Parameters (N): 'lots' is not a number" in view.form.error_lines()
    assert any(line.startswith("MFU (%): give an MFU") for line in view.form.error_lines())
    document.undo_stack.undo()  # back on the preset: N is read-only again
    assert document.design.workloads[0].model == "llama3-70b"
    assert params.isReadOnly() and params.text() == format_quantity(70_553_706_496)
    assert view.form.error_lines() == []


def test_days_read_the_same_everywhere_and_short_jobs_in_hours() -> None:
    from workbench.units import format_quantity as fmt

    # The status strip and the plot label print days with one decimal.
    assert fmt(181.3313, "days") == "181.3 days"
    assert fmt(1234.56, "days") == "1,234.6 days"
    # 0.05 days = 1.2 hours: not "0.1 days" or "0.0 days".
    assert fmt(0.05, "days") == "1.2 hours"


# -- the target window ------------------------------------------------------------------
def test_typed_target_days_reach_the_rules_and_undo(qtbot, view, document):
    """A target typed in the form is stored (one undo step) and the deadline rule reads
    it: past the estimate it is a WORKLOAD-DEADLINE warning, blank removes it."""
    workload_id = add_training(qtbot, view)
    days = document.figures.workload(workload_id).days
    assert days is not None
    type_into(qtbot, field(view, "target_days"), f"{days / 2:.0f}")
    workload = document.design.find_workload(workload_id)
    assert workload.target_days == pytest.approx(round(days / 2))
    deadline = [f for f in document.figures.findings() if f.rule == "WORKLOAD-DEADLINE"]
    assert [f.object_id for f in deadline] == [workload_id]
    assert f"past its target of {round(days / 2):,.1f} days" in deadline[0].message
    document.undo_stack.undo()
    assert document.design.find_workload(workload_id).target_days is None
    assert not [f for f in document.figures.findings() if f.rule == "WORKLOAD-DEADLINE"]
    assert field(view, "target_days").text() == ""
    document.undo_stack.redo()
    assert field(view, "target_days").text() == f"{round(days / 2):g}"
    type_into(qtbot, field(view, "target_days"), "")  # blank: no target
    assert document.design.find_workload(workload_id).target_days is None
    assert not [f for f in document.figures.findings() if f.rule == "WORKLOAD-DEADLINE"]
