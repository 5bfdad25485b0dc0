"""A training job's software stack, calibration and planning mode in the design
(issue 25): stored with the job (schema 10), read by the window's estimate and the
report, and shown by the Estimates view and the status strip."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from workbench.calc.workload import evaluate_workload  # noqa: E402
from workbench.model.design import SoftwareStack  # noqa: E402
from workbench.store import open_design, save_design  # noqa: E402
from workbench.store import schema as schema_module  # noqa: E402
from workbench.templates import sample_design  # noqa: E402

SAMPLE_V9 = Path(__file__).parent / "data" / "project_v9.dcwb"


def test_a_version_9_file_opens_with_the_documented_defaults(tmp_path: Path) -> None:
    copy = tmp_path / "v9.dcwb"
    shutil.copyfile(SAMPLE_V9, copy)
    before = copy.read_bytes()
    design = open_design(copy)
    assert design.name == "Sample saved by schema version 9"
    (job,) = design.workloads
    assert job.global_batch == 512 and job.goodput == pytest.approx(0.92)
    assert (job.framework, job.cp, job.plan_at_30) == ("", 1, False)
    assert job.grad_precision is None and job.measured_step_s is None
    assert copy.read_bytes() == before  # migrated in memory only
    saved = tmp_path / "v10.dcwb"
    save_design(design, saved)
    assert open_design(saved) == design
    assert schema_module.SCHEMA_VERSION >= 10


def test_the_stack_and_calibration_round_trip(tmp_path: Path) -> None:
    design = sample_design()
    job = design.workloads[0]
    job.framework, job.cp, job.grad_precision = "megatron-core", 2, "bf16"
    job.measured_step_s, job.plan_at_30 = 12.5, True
    path = tmp_path / "job.dcwb"
    save_design(design, path)
    again = open_design(path).workloads[0]
    assert (again.framework, again.cp, again.grad_precision) == ("megatron-core", 2, "bf16")
    assert (again.measured_step_s, again.plan_at_30) == (12.5, True)


def test_the_windows_estimate_uses_the_stack_and_a_measured_step() -> None:
    design = sample_design()
    job = design.workloads[0]
    generic = evaluate_workload(design, job)
    assert generic.stack_profile == "generic" and generic.days_range is not None
    low, high = generic.days_range
    assert low < generic.days < high
    job.framework = "megatron-core"
    core = evaluate_workload(design, job)
    assert core.stack_profile == "megatron-core-bf16"
    assert core.step_time_s != pytest.approx(generic.step_time_s)
    job.measured_step_s = 1.2 * core.step_time_s
    measured = evaluate_workload(design, job)
    assert measured.step_time_s == pytest.approx(job.measured_step_s, rel=1e-6)
    low, high = measured.days_range or (0, 0)
    assert high / measured.days == pytest.approx(1.05)
    # Every other size is predicted from the calibrated efficiency: the curve moves too.
    from workbench.calc.training_estimate import curve_days

    (at_2048,) = curve_days(measured, job, [2048])
    (before,) = curve_days(core, job, [2048])
    assert at_2048 is not None and before is not None and at_2048 > before


def test_plan_at_30_sets_the_mfu_unless_one_is_typed() -> None:
    design = sample_design()
    job = design.workloads[0]
    job.plan_at_30 = True
    planned = evaluate_workload(design, job)
    assert planned.mfu == pytest.approx(0.30) and planned.mfu_source == "plan at 30 %"
    job.mfu = 0.45
    typed = evaluate_workload(design, job)
    assert typed.mfu == pytest.approx(0.45) and typed.mfu_source == "given"


def test_the_design_software_stack_names_the_framework() -> None:
    design = sample_design()
    design.software_stacks.append(
        SoftwareStack("st-1", "Training image 24.09", {"cuda": "12.6", "megatron-core": "0.9.0"})
    )
    r = evaluate_workload(design, design.workloads[0])
    assert r.stack_profile == "megatron-core-bf16"
    assert any("Training image 24.09" in w and "0.9.0" in w for w in r.warnings)
    design.workloads[0].framework = "deepspeed"  # the job's own setting wins
    assert evaluate_workload(design, design.workloads[0]).stack_profile == "megatron-deepspeed"


def test_the_form_sets_the_stack_in_one_undo_step_and_the_strip_shows_planning(
    qtbot, tmp_path, monkeypatch
) -> None:
    from PySide6.QtCore import QSettings

    from workbench.ui.shell.document import Document
    from workbench.ui.shell.main_window import MainWindow

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Document(sample_design()), settings=settings)
    qtbot.addWidget(window)
    window.resize(1600, 1000)
    window.show()
    qtbot.waitExposed(window)
    document = window.document
    window.tabs.setCurrentWidget(window.estimates_page)
    view = window.estimates
    first = document.design.workloads[0]
    view.select_workload(first.id)
    combo = view.form.editors["framework"]
    combo.setCurrentIndex(combo.findData("megatron-core"))
    combo.activated.emit(combo.currentIndex())
    assert document.design.workloads[0].framework == "megatron-core"
    assert document.figures.workload(first.id).stack_profile == "megatron-core-bf16"

    def stack_shown() -> bool:
        estimate = view.estimate
        texts = [f.text for f in estimate.figures if f.key == "stack"] if estimate else []
        return bool(texts) and "megatron-core-bf16" in texts[0]

    qtbot.waitUntil(stack_shown, timeout=20_000)
    box = view.form.editors["plan_at_30"]
    box.click()
    assert document.design.workloads[0].plan_at_30 is True
    qtbot.waitUntil(lambda: "planned at 30 % MFU" in window.summary.text(), timeout=20_000)
    document.undo_stack.undo()
    assert document.design.workloads[0].plan_at_30 is False
    document.undo_stack.undo()
    assert document.design.workloads[0].framework == ""


def test_auto_layout_weighs_layouts_with_the_jobs_stack_and_calibration() -> None:
    from workbench.calc import step_time
    from workbench.calc.design_hardware import fabric_figures
    from workbench.calc.layout_proposal import propose
    from workbench.calc.stack_profiles import PROFILES
    from workbench.calc.summary import summarize

    design = sample_design()
    job = design.workloads[0]
    job.framework = "megatron-core"
    summary, fabric = summarize(design), fabric_figures(design)
    proposal = propose(design, job, summary, fabric)
    best = proposal.choice.best if proposal.choice else None
    assert best is not None and best.prediction is not None
    r = evaluate_workload(design, job)
    again = step_time.predict_step(
        r.model, best.layout, r.hardware, job.precision, **PROFILES["megatron-core-bf16"].keywords()
    )
    assert best.prediction.step_time_s == pytest.approx(again.step_time_s)
    job.measured_step_s = 2 * r.step_time_s  # a slow cluster: every layout slower
    slow = propose(design, job, summary, fabric)
    assert slow.choice is not None and slow.choice.best is not None
    assert slow.choice.best.prediction.step_time_s > best.prediction.step_time_s
