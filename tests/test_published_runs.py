"""The step-time model against published training runs (workbench.calc.published_runs).

Leave-one-out: the kernel efficiency (the only fitted constant) is fitted on all runs
but one and that run is predicted, for every run.  Targets (issue 12): mean ≤ 8 %,
worst ≤ 15 % without being told the MFU; within 5 % on every run when told it.
"""

from __future__ import annotations

import pytest

from workbench.calc import published_runs as pr
from workbench.calc import step_time as st

RUNS = pr.runs()
REPORT = pr.leave_one_out(RUNS)


def test_at_least_eight_cited_runs():
    assert len(RUNS) >= 8
    assert len({r.key for r in RUNS}) == len(RUNS)
    for run in RUNS:
        assert run.citation and run.target_note and run.target_step_s > 0, run.key


@pytest.mark.parametrize("run", RUNS, ids=[r.key for r in RUNS])
def test_each_run_leave_one_out_within_15_percent(run):
    err = REPORT.errors[run.key]
    assert abs(err) <= 0.15, f"{run.key}: LOO error {err:+.1%}\n{REPORT.table()}"


def test_leave_one_out_mean_within_8_percent():
    assert REPORT.mean_abs <= 0.08, REPORT.table()
    assert REPORT.worst_abs <= 0.15, REPORT.table()


def test_default_constant_is_the_all_runs_fit():
    assert pytest.approx(REPORT.all_runs_fit, abs=0.002) == st.DEFAULT_KERNEL_EFFICIENCY, (
        REPORT.table()
    )


TOLD = [r for r in RUNS + pr.reference_runs() if r.published_tflops is not None]


@pytest.mark.parametrize("run", TOLD, ids=[r.key for r in TOLD])
def test_told_the_published_rate_step_time_within_5_percent(run):
    told = pr.told_step_s(run)
    assert told == pytest.approx(run.target_step_s, rel=0.05), (run.key, told, run.target_step_s)


def test_reference_runs_are_reported_not_scored():
    # MT-NLG 530B: same model and layout as Korthikanti et al.'s 530B, 1.4× slower per
    # micro-batch on the same nodes; kept visible so the exclusion is checkable.
    for run in pr.reference_runs():
        assert run.key not in REPORT.errors
        err = pr.predict(run).step_time_s / run.target_step_s - 1
        assert -0.30 < err < 0.0, (run.key, err)
