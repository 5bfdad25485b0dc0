"""``workbench check``: exit status 0/1/2, text and JSON output, severities, waivers; the
file is only ever read."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_helpers import digest, run

from workbench.cli.main import main
from workbench.model import Waiver
from workbench.rules import REGISTRY, check_design
from workbench.store import save_design
from workbench.templates import TEMPLATES, build_template

FINDING_KEYS = {"rule", "severity", "message", "objects", "waived"}
NOTE = "Accepted: the feeds of this rack are upgraded in phase 2"


def check(capsys, *args: str) -> tuple[int, str, str]:
    """``workbench check ARGS`` in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def loaded_rack(design):
    """The rack with the most devices (a compute rack)."""
    return max(design.iter_racks(), key=lambda r: len(r.devices))


@pytest.fixture
def passing(tmp_path: Path, capsys) -> Path:
    """What ``workbench new`` writes."""
    path = tmp_path / "new.dcwb"
    assert main(["new", str(path), "--gpus", "8"]) == 0
    capsys.readouterr()
    return path


def failing_design():
    """A template with one rack's power budget cut to 1 kW (one RACK-POWER error) and a
    training target it misses (one WORKLOAD-DEADLINE warning)."""
    design = build_template("dgx-h100-superpod", gpus=8)
    loaded_rack(design).power_limit_kw = 1.0
    design.workloads[0].target_days = 0.5
    return design


@pytest.fixture
def failing(tmp_path: Path) -> Path:
    path = tmp_path / "overloaded.dcwb"
    save_design(failing_design(), path)
    return path


@pytest.fixture
def waived(tmp_path: Path) -> Path:
    """The failing design with its one error waived."""
    design = failing_design()
    design.waivers.append(Waiver("RACK-POWER", loaded_rack(design).id, NOTE))
    path = tmp_path / "waived.dcwb"
    save_design(design, path)
    return path


def test_the_failing_design_has_one_error_and_one_warning() -> None:
    findings = check_design(failing_design())
    assert sorted((f.rule, f.severity.label) for f in findings) == [
        ("RACK-POWER", "error"),
        ("WORKLOAD-DEADLINE", "warning"),
    ]


# -- exit status 0 and 1 ----------------------------------------------------------------------


def test_a_new_design_passes(passing: Path, capsys) -> None:
    before = digest(passing)
    code, out, err = check(capsys, str(passing))
    assert code == 0
    assert "passes" in out and "0 errors" in out
    assert str(passing) in out
    assert err == ""
    assert digest(passing) == before


@pytest.mark.parametrize("name", sorted(TEMPLATES))
@pytest.mark.parametrize("gpus", ["8", "100", "2048"])
def test_every_new_design_passes(tmp_path: Path, capsys, name: str, gpus: str) -> None:
    path = tmp_path / f"{name}.dcwb"
    assert main(["new", str(path), "--template", name, "--gpus", gpus]) == 0
    code, out, _ = check(capsys, str(path))
    assert code == 0, out
    assert "passes" in out


def test_a_design_with_an_error_fails(failing: Path, capsys) -> None:
    before = digest(failing)
    code, out, err = check(capsys, str(failing))
    assert code == 1
    assert err == ""
    lines = out.strip().splitlines()
    errors = [line for line in lines if line.startswith("error")]
    assert len(errors) == 1 and "RACK-POWER" in errors[0]
    assert "1 kW" in errors[0]  # the budget it was given
    assert any(line.startswith("warning") and "WORKLOAD-DEADLINE" in line for line in lines)
    assert "fails the check" in lines[-1] and "1 error" in lines[-1]
    assert lines.index(errors[0]) < min(i for i, x in enumerate(lines) if x.startswith("warning"))
    assert digest(failing) == before


def test_exit_status_as_a_subprocess(passing: Path, failing: Path) -> None:
    good = run("check", str(passing))
    assert good.returncode == 0, good.stderr
    assert "passes the check" in good.stdout and good.stderr == ""
    bad = run("check", str(failing))
    assert bad.returncode == 1, bad.stderr
    assert "RACK-POWER" in bad.stdout and "fails the check" in bad.stdout
    assert "Traceback" not in bad.stderr


# -- exit status 2: files that cannot be read -------------------------------------------------


def _newer_schema(tmp_path: Path) -> Path:
    path = tmp_path / "future.dcwb"
    save_design(build_template("dgx-h100-superpod", gpus=8), tmp_path / "saved.dcwb")
    shutil.copyfile(tmp_path / "saved.dcwb", path)
    (tmp_path / "saved.dcwb").unlink()
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA user_version = 999")
        conn.commit()
    finally:
        conn.close()
    return path


def _bad_file(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A file ``check`` cannot read, and a word its one-line error should contain."""
    if kind == "missing":
        return tmp_path / "missing.dcwb", "no such file"
    if kind == "newer":
        return _newer_schema(tmp_path), "newer"
    path = tmp_path / f"{kind}.dcwb"
    path.write_bytes(b"" if kind == "empty" else random.Random(7).randbytes(4096))
    return path, "empty" if kind == "empty" else "not an SQLite database"


BAD_KINDS = ["missing", "empty", "random", "newer"]


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_an_unreadable_file_is_exit_2(tmp_path: Path, capsys, kind: str) -> None:
    path, why = _bad_file(tmp_path, kind)
    before = digest(path) if path.exists() else None
    listing = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = check(capsys, str(path))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert path.name in err and why in err
    assert (digest(path) if path.exists() else None) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == listing


@pytest.mark.parametrize("kind", BAD_KINDS)
def test_an_unreadable_file_as_a_subprocess(tmp_path: Path, kind: str) -> None:
    path, why = _bad_file(tmp_path, kind)
    before = digest(path) if path.exists() else None
    listing = sorted(p.name for p in tmp_path.iterdir())
    for extra in ([], ["--json"]):
        result = run("check", str(path), *extra)
        assert result.returncode == 2, result.stderr
        assert result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "Traceback" not in result.stderr
        assert result.stderr.startswith("workbench: ")
        assert path.name in result.stderr and why in result.stderr
    assert (digest(path) if path.exists() else None) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == listing


def test_no_file_is_exit_2(capsys) -> None:
    code, out, err = check(capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "FILE" in err


# -- JSON -------------------------------------------------------------------------------------


def test_json_of_a_failing_design(failing: Path, capsys) -> None:
    before = digest(failing)
    code, out, _ = check(capsys, str(failing), "--json")
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False
    assert report["file"] == str(failing)
    assert report["counts"] == {"errors": 1, "warnings": 1, "info": 0, "waived": 0}
    assert len(report["findings"]) == 2
    for finding in report["findings"]:
        assert set(finding) >= FINDING_KEYS
        assert finding["severity"] in ("error", "warning", "info")
        assert isinstance(finding["objects"], list) and finding["objects"]
        assert finding["message"] and finding["waived"] is False
    first = report["findings"][0]
    assert first["rule"] == "RACK-POWER" and first["severity"] == "error"
    assert first["title"] == REGISTRY["RACK-POWER"].title
    assert first["source"] == REGISTRY["RACK-POWER"].source
    assert digest(failing) == before


def test_json_of_a_passing_design(passing: Path) -> None:
    result = run("check", str(passing), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["findings"] == []
    assert report["counts"] == {"errors": 0, "warnings": 0, "info": 0, "waived": 0}


# -- severity ---------------------------------------------------------------------------------


def test_severity_error_hides_warnings_but_still_fails(failing: Path, capsys) -> None:
    code, out, _ = check(capsys, str(failing), "--severity", "error")
    assert code == 1
    assert "WORKLOAD-DEADLINE" not in out
    assert not any(line.startswith("warning") for line in out.splitlines())
    assert "RACK-POWER" in out and "fails the check" in out
    code, out, _ = check(capsys, str(failing), "--severity", "error", "--json")
    assert code == 1
    report = json.loads(out)
    assert [f["severity"] for f in report["findings"]] == ["error"]
    assert report["counts"]["warnings"] == 1, "counts cover every finding"
    assert report["ok"] is False


def test_severity_error_on_a_design_with_only_warnings(tmp_path: Path, capsys) -> None:
    design = build_template("dgx-h100-superpod", gpus=8)
    design.workloads[0].target_days = 0.5
    path = tmp_path / "late.dcwb"
    save_design(design, path)
    code, out, _ = check(capsys, str(path))
    assert code == 0 and "WORKLOAD-DEADLINE" in out and "passes" in out
    code, out, _ = check(capsys, str(path), "--severity", "error")
    assert code == 0 and "WORKLOAD-DEADLINE" not in out and "passes" in out


def test_unknown_severity_is_refused(failing: Path) -> None:
    result = run("check", str(failing), "--severity", "fatal")
    assert result.returncode == 2
    assert "--severity" in result.stderr and "Traceback" not in result.stderr


# -- waivers ----------------------------------------------------------------------------------


def test_a_waived_error_passes_and_is_shown(waived: Path, capsys) -> None:
    before = digest(waived)
    code, out, _ = check(capsys, str(waived))
    assert code == 0
    (line,) = [x for x in out.splitlines() if "RACK-POWER" in x]
    assert f"[waived: {NOTE}]" in line
    assert "1 waived" in out and "passes the check" in out and "0 errors" in out
    code, out, _ = check(capsys, str(waived), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["ok"] is True
    assert report["counts"] == {"errors": 0, "warnings": 1, "info": 0, "waived": 1}
    (power,) = [f for f in report["findings"] if f["rule"] == "RACK-POWER"]
    assert power["waived"] is True and power["waiver"] == NOTE
    (deadline,) = [f for f in report["findings"] if f["rule"] == "WORKLOAD-DEADLINE"]
    assert deadline["waived"] is False and deadline["waiver"] is None
    assert digest(waived) == before


def test_a_waiver_for_another_object_does_not_apply(tmp_path: Path, capsys) -> None:
    design = failing_design()
    other = next(r for r in design.iter_racks() if r is not loaded_rack(design))
    design.waivers.append(Waiver("RACK-POWER", other.id, NOTE))
    path = tmp_path / "wrong-waiver.dcwb"
    save_design(design, path)
    code, out, _ = check(capsys, str(path), "--json")
    assert code == 1
    assert json.loads(out)["counts"]["waived"] == 0


# -- the rule list ----------------------------------------------------------------------------


def test_rules_lists_every_rule(capsys) -> None:
    code, out, err = check(capsys, "--rules")
    assert code == 0 and err == ""
    for rule_id, registered in REGISTRY.items():
        assert rule_id in out
        assert registered.title in out
    code, out, _ = check(capsys, "--rules", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows] == list(REGISTRY)
    assert all(r["source"] and r["title"] and r["scope"] for r in rows)


def test_rules_as_a_subprocess() -> None:
    result = run("check", "--rules")
    assert result.returncode == 0, result.stderr
    assert all(rule_id in result.stdout for rule_id in REGISTRY)
