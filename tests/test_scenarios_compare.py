"""The scenario comparison: the sample's H100 design beside a B200 variant of it, the
sibling-file naming, and ``workbench compare`` (exit codes, JSON shape)."""

from __future__ import annotations

import html
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import digest, run

from workbench.calc.costs import design_costs
from workbench.calc.summary import summarize
from workbench.calc.workload import evaluate_workload
from workbench.planning.scenarios import (
    compare,
    figures_of,
    scenario_path,
    sibling_scenarios,
)
from workbench.planning.scenarios.files import scenario_label
from workbench.planning.scenarios.text import BEST, WORST, text_lines
from workbench.rules.full_check import check_design
from workbench.store import save_design
from workbench.templates.builder import build_template
from workbench.templates.bundled import bundled_sample


@pytest.fixture(scope="module")
def h100():
    return bundled_sample()


@pytest.fixture(scope="module")
def b200(h100):
    """The same GPU count on DGX B200 nodes (the B200 template of the sample's size)."""
    return build_template("dgx-b200-liquid", gpus=summarize(h100).gpus)


@pytest.fixture(scope="module")
def files(tmp_path_factory, h100, b200) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("scen")
    base = folder / "hall.dcwb"
    save_design(h100, base)
    variant = scenario_path(base, "B200 liquid")
    save_design(b200, variant)
    return base, variant


def test_table_lines_up_the_figures_of_their_homes(h100, b200):
    table = compare([figures_of(h100, "H100"), figures_of(b200, "B200")])
    rows = {r.label: r for r in table.rows}
    assert table.names == ("H100", "B200")
    for column, design in enumerate((h100, b200)):
        summary = summarize(design)
        assert rows["GPUs"].values[column] == summary.gpus
        assert rows["Peak BF16"].values[column] == summary.peak_pflops["bf16"]
        assert rows["IT power"].values[column] == summary.it_kw
        assert rows["Facility power"].values[column] == summary.facility_kw
        assert rows["Racks"].values[column] == summary.racks
        assert rows["Cables"].values[column] == len(design.links)
        errors = sum(1 for f in check_design(design) if f.severity.label == "error")
        assert rows["Rule errors"].values[column] <= errors  # waived ones drop out


def test_jobs_are_matched_by_name_and_a_missing_job_is_empty(h100, b200):
    table = compare([figures_of(h100, "H100"), figures_of(b200, "B200")])
    rows = {r.label: r for r in table.rows}
    for job in h100.workloads:
        days = evaluate_workload(h100, job).days
        row = rows[f"{job.name}: training"]
        assert row.values[0] == pytest.approx(days)
        if job.name not in {w.name for w in b200.workloads}:
            assert row.values[1] is None and row.differs


def test_best_and_worst_follow_the_direction_of_the_row(h100, b200):
    table = compare([figures_of(h100, "H100"), figures_of(b200, "B200")])
    peak = next(r for r in table.rows if r.label == "Peak BF16")
    values = peak.values
    assert [values[i] for i in peak.best] == [max(values)]
    assert [values[i] for i in peak.worst] == [min(values)]
    racks = next(r for r in table.rows if r.label == "Racks")
    assert racks.best == () and racks.worst == ()  # neither more nor fewer is better
    assert racks.differs == (racks.values[0] != racks.values[1])


def test_a_tie_marks_every_column_that_holds_the_best_value(h100, b200):
    """Two scenarios with the same peak are both best; the table never picks one."""
    table = compare([figures_of(h100, "A"), figures_of(h100, "A again"), figures_of(b200, "B200")])
    peak = next(r for r in table.rows if r.label == "Peak BF16")
    a, again, b = peak.values
    assert a == again and a is not None and b is not None and a != b
    tied, other = ((0, 1), (2,))
    assert (peak.best, peak.worst) == ((tied, other) if a > b else (other, tied))
    cells = text_lines(table)
    line = next(x for x in cells if x.startswith("Peak BF16"))
    assert line.count(BEST) == len(peak.best) and line.count(WORST) == len(peak.worst)


def test_cost_rows_are_the_cost_cores_figures(h100, b200):
    table = compare([figures_of(h100, "H100"), figures_of(b200, "B200")])
    rows = {r.label: r for r in table.rows}
    for column, design in enumerate((h100, b200)):
        costs = design_costs(design)
        assert rows["Capex"].values[column] == costs.capex_total
        assert rows["Opex per year"].values[column] == costs.opex_per_year
        assert rows["Cost per GPU-hour"].values[column] == costs.cost_per_gpu_hour
        for job in costs.runs:
            assert rows[f"{job.name}: run cost"].values[column] == job.cost
        if costs.unpriced_lines:
            assert any(table.names[column] in note for note in table.notes)
    assert rows["Capex"].unit == design_costs(h100).currency


def test_compare_takes_two_to_four(h100):
    one = figures_of(h100, "x")
    with pytest.raises(ValueError, match="2 to 4"):
        compare([one])
    with pytest.raises(ValueError, match="2 to 4"):
        compare([one] * 5)


def test_sibling_files_are_named_and_found(tmp_path):
    base = tmp_path / "hall 3.dcwb"
    base.write_bytes(b"")
    a = scenario_path(base, "B200: liquid")
    assert a.name == "hall 3.scenario-B200-liquid.dcwb"
    assert scenario_path(a, "air") == tmp_path / "hall 3.scenario-air.dcwb"
    a.write_bytes(b"")
    (tmp_path / "other.scenario-x.dcwb").write_bytes(b"")
    assert sibling_scenarios(a) == [base, a]
    assert scenario_label(a) == "B200-liquid" and scenario_label(base) == "hall 3"


def test_cli_compare_prints_the_table_and_leaves_the_files_alone(files):
    base, variant = files
    before = [digest(base), digest(variant)]
    proc = run("compare", str(base), str(variant))
    assert proc.returncode == 0, proc.stderr
    assert "B200-liquid" in proc.stdout and "Peak BF16" in proc.stdout
    assert [digest(base), digest(variant)] == before


def test_cli_compare_json_shape(files):
    base, variant = files
    proc = run("compare", str(base), str(variant), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["columns"] == ["hall", "B200-liquid"]
    assert out["files"] == [str(base), str(variant)]
    assert {"label", "unit", "values", "best", "worst", "differs"} <= set(out["rows"][0])
    assert all(len(r["values"]) == 2 for r in out["rows"])
    assert {"gpus", "capex", "jobs", "findings"} <= set(out["scenarios"][0])


def test_cli_compare_refuses_bad_input(files, tmp_path):
    base, _ = files
    assert run("compare", str(base)).returncode == 2
    assert run("compare", *[str(base)] * 5).returncode == 2
    missing = run("compare", str(base), str(tmp_path / "gone.dcwb"))
    assert missing.returncode == 2 and "gone.dcwb" in missing.stderr
    junk = tmp_path / "junk.dcwb"
    junk.write_text("not a project")
    bad = run("compare", str(base), str(junk))
    assert bad.returncode == 2 and "junk.dcwb" in bad.stderr and "Traceback" not in bad.stderr


def test_cli_compare_pdf_is_one_page(files, tmp_path):
    base, variant = files
    out = tmp_path / "budget.pdf"
    proc = run("compare", str(base), str(variant), "--pdf", str(out))
    assert proc.returncode == 0, proc.stderr
    data = out.read_bytes()
    assert data[:5] == b"%PDF-"
    assert b"/Count 1" in data  # the page tree holds one page
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp left


def test_file_figures_are_kept_until_the_file_changes(tmp_path, h100, b200):
    from workbench.planning.scenarios.figures import figures_of_file

    path = tmp_path / "x.dcwb"
    save_design(h100, path)
    first = figures_of_file(path)
    assert figures_of_file(path) is first
    save_design(b200, path)  # a rewrite: another size or modification time
    again = figures_of_file(path)
    assert again is not first and again.peak_pflops == summarize(b200).peak_pflops["bf16"]


def _words(pdf: Path) -> list[tuple[float, float, str]]:
    """Every word of the PDF's first page as (x, y, text), from ``pdftotext -bbox``."""
    boxes = subprocess.run(
        ["pdftotext", "-bbox", "-f", "1", "-l", "1", str(pdf), "-"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    found = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)</word>', boxes)
    return [(float(x), float(y), html.unescape(text)) for x, y, text in found]


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
def test_cli_compare_pdf_draws_cost_per_run_against_days(files, tmp_path):
    base, variant = files
    out = tmp_path / "budget.pdf"
    proc = run("compare", str(base), str(variant), "--pdf", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    table = json.loads(proc.stdout)
    money = table["scenarios"][0]["currency"]
    text = subprocess.run(
        ["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "Cost per run against days" in text
    assert "Training days" in text and f"Cost per run ({money})" in text
    words = _words(out)
    # The scatter's legend, below its title and right of the table, names every scenario
    # (the table's header and the bars' labels sit above the title, the notes to the left).
    y0 = next(y for x, y, w in words if w == "against")
    left = min(x for x, y, w in words if w == "Cost" and abs(y - y0) < 1)
    legend = {w for x, y, w in words if y > y0 + 1 and x >= left - 1}
    for label in table["columns"]:
        assert label in legend, (label, sorted(legend))
    jobs = {j for s in table["scenarios"] for j in s["jobs"]}
    assert jobs
    for job in jobs:
        assert job.split()[0] in legend


def test_axis_ticks_are_round_and_reach_the_largest_value():
    from workbench.render.compare_page import nice_ticks

    for value in (0.004, 1, 9.3, 51, 100, 208, 14_480_518, 79_348_378):
        ticks = nice_ticks(value)
        step = ticks[1]
        assert ticks[0] == 0 and ticks[-1] >= value > ticks[-2]
        assert len(ticks) <= 6
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 6) in (1, 2, 2.5, 5)
