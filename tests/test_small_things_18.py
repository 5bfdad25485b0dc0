"""Issue 18's small things, each with the test that failed before its fix."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from test_versions_import import DATA, make_design

from workbench.cli.main import main
from workbench.store import open_design, save_design
from workbench.text_rules import text_problem


def test_report_exits_2_on_an_unreadable_file_like_check(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.dcwb"
    bad.write_bytes(b"not a project")
    assert main(["check", str(bad)]) == 2
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("bad.dcwb" in line for line in err)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "p.dcwb"
    save_design(make_design(), path)
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_versions_import_leaves_the_file_alone_when_nothing_changed(project, tmp_path, capsys):
    reports = tmp_path / "reports"
    reports.mkdir()
    shutil.copy(DATA / "uname-r.txt", reports / "gpu-r01-u02.uname.txt")
    assert main(["versions", "import", str(project), str(reports)]) == 0
    first = _digest(project)
    capsys.readouterr()
    assert main(["versions", "import", str(project), str(reports)]) == 0
    out = capsys.readouterr().out
    assert "0 nodes updated" in out and "left as it was" in out
    assert _digest(project) == first
    assert len(open_design(project).versions.observations) == 1


@pytest.mark.skipif(os.name != "posix", reason="byte file names")
def test_a_report_file_name_that_is_not_utf8_is_kept_readably(project, tmp_path, capsys):
    reports = tmp_path / "reports"
    reports.mkdir()
    name = os.fsdecode(bytes(reports) + b"/gpu-r01-u02.\xff.uname.txt")
    shutil.copy(DATA / "uname-r.txt", name)
    assert main(["versions", "import", str(project), str(reports)]) == 0  # was a traceback
    (obs,) = open_design(project).versions.observations
    assert obs.source == "reports/gpu-r01-u02.\\xff.uname.txt"


@pytest.mark.parametrize(
    ("name", "accepted", "words"),
    [
        ("👨\u200d👩\u200d👧 rack", True, ""),  # an emoji ZWJ sequence is text people write
        ("\u0915\u094d\u200d\u0937", True, ""),  # Devanagari with a joiner
        ("gpu\u200b01", False, "invisible character U+200B (zero width space)"),
        ("gpu\ufeff01", False, "invisible character U+FEFF"),
        ("gpu\u300001", False, "unusual space U+3000"),
        ("gpu\t01", False, "control characters (found U+0009)"),
    ],
)
def test_invisible_characters_get_an_accurate_message(name, accepted, words) -> None:
    problem = text_problem(name)
    assert (problem is None) == accepted
    if not accepted:
        assert words in problem and "tabs, line breaks" not in problem or "U+0009" in words


def test_a_negative_checkpoint_interval_is_a_finding_without_a_tier_too() -> None:
    from workbench.rules import check_design
    from workbench.templates import build_template

    design = build_template("hgx-h100-air")
    job = next(w for w in design.workloads if w.kind == "training")
    job.checkpoint_interval_min, job.checkpoint_tier, job.target_days = -5, None, 0
    found = {f.rule: f.message for f in check_design(design) if job.id in f.objects}
    assert "interval -5 is not a number of minutes" in found["STORAGE-CHECKPOINT"]
    assert "target 0 is not a number of days above 0" in found["WORKLOAD-DEADLINE"]
