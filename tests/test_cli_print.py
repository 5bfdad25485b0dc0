"""``workbench print``: rack elevations from the command line, headless and atomic."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_helpers import digest, run

from workbench.cli.main import main

needs_poppler = pytest.mark.skipif(
    shutil.which("pdfinfo") is None or shutil.which("pdftotext") is None,
    reason="poppler-utils (pdfinfo, pdftotext) not installed",
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """The bundled sample (5 rows, 37 racks) with an asset tag, saved as a project file."""
    from workbench.store import save_design
    from workbench.templates import sample_design

    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(tmp_path / "no-user-catalog"))
    design = sample_design()
    rack = design.sites[0].rows[0].racks[0]
    server = next(d for d in rack.devices if d.name == "gpu00001")
    server.asset_tag = "INV-2025-0001"
    server.serial = "1654322000123"
    path = tmp_path / "hall.dcwb"
    save_design(design, path)
    return path


def _pages(path: Path) -> int:
    out = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    line = next(line for line in out.stdout.splitlines() if line.startswith("Pages:"))
    return int(line.split()[1])


def _text(path: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse refusing an option
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@needs_poppler
def test_prints_one_rack_per_page_and_never_touches_the_project(qapp, project, tmp_path, capsys):
    before = digest(project)
    out = tmp_path / "racks.pdf"
    code, stdout, stderr = _cli(capsys, "print", str(project), "--out", str(out))
    assert code == 0, stderr
    assert stdout.strip() == f"wrote {out}: 37 pages (A4 portrait, one rack per page)"
    assert _pages(out) == 37
    text = _text(out)
    for name in ("A01", "C05", "E05", "INV-2025-0001", "1654322000123", "gpu00001"):
        assert name in text, name
    assert digest(project) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hall.dcwb", "racks.pdf"]


@needs_poppler
def test_per_page_row_paper_and_pattern(qapp, project, tmp_path, capsys):
    out = tmp_path / "rows.pdf"
    code, stdout, _ = _cli(
        capsys, "print", str(project), "--out", str(out), "--per-page", "row", "--paper", "A3",
        "--landscape",
    )  # fmt: skip
    assert code == 0 and "5 pages (A3 landscape, one row per page)" in stdout
    assert _pages(out) == 5
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True).stdout
    assert "1191 x 842 pts" in info
    out = tmp_path / "a.pdf"
    code, stdout, _ = _cli(capsys, "print", str(project), "--out", str(out), "--racks", "A*")
    assert code == 0 and _pages(out) == 8
    text = _text(out)
    assert "A08" in text and "B01" not in text


def test_svg_dir_gets_one_parsable_file_per_page(qapp, project, tmp_path, capsys):
    folder = tmp_path / "svg"
    code, stdout, stderr = _cli(
        capsys, "print", str(project), "--svg-dir", str(folder), "--racks", "B0[1-3]"
    )
    assert code == 0, stderr
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["001-B01.svg", "002-B02.svg", "003-B03.svg"]
    for name in names:
        assert ET.parse(folder / name).getroot().tag.endswith("svg")
    assert "3 pages as SVG" in stdout


def test_unwritable_path_is_one_line_exit_1_and_no_file(qapp, project, tmp_path, capsys):
    out = tmp_path / "missing" / "racks.pdf"
    code, stdout, stderr = _cli(capsys, "print", str(project), "--out", str(out))
    assert code == 1 and stdout == ""
    assert stderr == f"workbench: {out}: cannot write: No such file or directory\n"
    assert not out.parent.exists()


def test_permission_denied_reads_as_such(qapp, project, tmp_path, capsys, monkeypatch):
    """The message for a folder the user may not write to (simulated: tests run as root
    in some containers, where chmod does not stop a write)."""
    import workbench.store.atomic as atomic

    def refuse(target: Path) -> Path:
        raise PermissionError(13, "Permission denied", str(target))

    monkeypatch.setattr(atomic, "create_temp", refuse)
    out = tmp_path / "racks.pdf"
    code, _, stderr = _cli(capsys, "print", str(project), "--out", str(out))
    assert code == 1
    assert stderr == f"workbench: {out}: cannot write: Permission denied\n"
    assert not out.exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="needs a non-root user")
def test_read_only_folder(qapp, project, tmp_path, capsys):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        code, _, stderr = _cli(capsys, "print", str(project), "--out", str(folder / "r.pdf"))
    finally:
        folder.chmod(0o700)
    assert code == 1 and stderr.endswith("cannot write: Permission denied\n")
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--paper", "B5"],
        ["--per-page", "site"],
        ["--racks", "Z*"],
        [],  # neither --out nor --svg-dir
    ],
    ids=["paper", "per-page", "no-match", "no-output"],
)
def test_bad_options_exit_2_and_write_nothing(qapp, project, tmp_path, capsys, argv):
    out = ["--out", str(tmp_path / "x.pdf")] if argv else []
    code, _, stderr = _cli(capsys, "print", str(project), *out, *argv)
    assert code == 2
    assert stderr.strip()
    assert not (tmp_path / "x.pdf").exists()


def test_unreadable_project_is_one_line(qapp, tmp_path, capsys):
    code, _, stderr = _cli(capsys, "print", str(tmp_path / "nope.dcwb"), "--out", "x.pdf")
    assert code == 1 and stderr.count("\n") == 1 and "nope.dcwb" in stderr


def test_console_script_needs_no_display(project, tmp_path):
    """The real entry point in a fresh process makes its own offscreen application."""
    out = tmp_path / "one.pdf"
    env_free = run("print", str(project), "--out", str(out), "--racks", "A01")
    assert env_free.returncode == 0, env_free.stderr
    assert "1 page" in env_free.stdout
    assert out.read_bytes().startswith(b"%PDF-")


@needs_poppler
def test_a_floor_plan_page_a_planner_can_read(qapp, project, tmp_path, capsys):
    """--floor-plan: page 1 is the hall from above, with tile grid labels, the aisles
    and their widths, every rack named, each row's length and a scale in metres."""
    before = digest(project)
    out = tmp_path / "plan.pdf"
    code, _stdout, stderr = _cli(
        capsys, "print", str(project), "--out", str(out), "--floor-plan", "--racks", "A01"
    )
    assert code == 0, stderr
    assert _pages(out) == 2
    first = _text(out).split("\f")[0]
    assert "Floor plan" in first
    assert "Cold aisle 1.2 m" in first and "Hot aisle 1.2 m" in first
    assert "Row A · 4.8 m" in first
    for rack in ("A01", "B08", "E05"):
        assert rack in first, rack
    assert "Tiles 0.6 m" in first
    assert re.search(r"^\s*\d+(\.\d)? ?m\b", first, re.MULTILINE), "no scale bar"
    assert digest(project) == before  # the layout for the page was made on the copy read
