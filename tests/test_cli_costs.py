"""``workbench costs`` and the ``cost`` section of ``workbench report``, on a real file."""

from __future__ import annotations

import json

import pytest

from workbench.cli.main import main
from workbench.model.cost_inputs import cost_inputs_of
from workbench.store import open_design


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "sample.dcwb"
    assert main(["new", str(path)]) == 0
    return path


def test_costs_sets_saves_and_report_agrees(project, capsys):
    capsys.readouterr()
    assert main(["costs", str(project), "--tariff", "0.15", "--pue", "1.4", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["inputs"]["tariff_per_kwh"] == 0.15 and shown["pue"] == 1.4
    stored = cost_inputs_of(open_design(project))
    assert stored.tariff_per_kwh == 0.15 and stored.pue == 1.4
    # Energy = typical kW × PUE × 8,760 h × tariff.
    assert shown["opex_by_item"]["energy"] == pytest.approx(shown["typical_kw"] * 1.4 * 8760 * 0.15)
    assert main(["report", str(project), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cost"]["capex_total"] == pytest.approx(shown["capex_total"])
    assert report["cost"]["cost_per_gpu_hour"] == pytest.approx(shown["cost_per_gpu_hour"])
    assert main(["report", str(project)]) == 0
    text = capsys.readouterr().out
    assert "cost per GPU-hour" in text and "without a price" in text


def test_a_refused_value_leaves_the_file_as_it_was(project, capsys):
    before = project.read_bytes()
    with pytest.raises(SystemExit) as exc:
        code = main(["costs", str(project), "--tariff", "0.2", "--utilisation", "1.5"])
        raise SystemExit(code)
    assert exc.value.code == 2
    assert "utilisation" in capsys.readouterr().err
    assert project.read_bytes() == before


def test_default_puts_an_input_back(project, capsys):
    assert main(["costs", str(project), "--years", "6"]) == 0
    assert cost_inputs_of(open_design(project)).amortisation_years == 6
    assert main(["costs", str(project), "--years", "default"]) == 0
    assert "cost." + "amortisation_years" not in open_design(project).properties
