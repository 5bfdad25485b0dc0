"""Every write cleans up after itself (issue 18): killing ``export --cables``, ``print``
or ``netbox export`` left ``.xlsx.*.tmp``, ``.pdf.*.tmp`` or ``.nb.*.export/`` (up to
7.8 MB each) that a later export never removed, since the sweep only knew ``.dcwb``
temporaries.  Now every export, print and import sweeps its folder when it has written,
and the window sweeps the folders of its recent files when it starts."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.export.cables import write_cables
from workbench.export.output import write_folder
from workbench.netbox import write_netbox
from workbench.store import sweep_temps
from workbench.templates import build_template

pytestmark = pytest.mark.skipif(os.name != "posix", reason="pids are only checked on POSIX")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _aged(path: Path, seconds: float = 120) -> Path:
    stamp = time.time() - seconds
    os.utime(path, (stamp, stamp))
    return path


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture(scope="module")
def design():
    return build_template("hgx-h100-air")


def test_a_killed_workbook_export_is_removed_by_the_next_export(tmp_path: Path, design) -> None:
    script = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from workbench.export import cables\n"
        "from workbench.store import atomic\n"
        "from workbench.templates import build_template\n"
        "def killed(tmp):\n"  # the workbook is written; killed before its rename
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "atomic.fsync_file = killed\n"
        "cables.write_cables(build_template('hgx-h100-air'), Path(sys.argv[1]))\n"
    )
    target = tmp_path / "cables.xlsx"
    run = subprocess.run([sys.executable, "-c", script, str(target)], timeout=120, check=False)
    assert run.returncode == -9
    (left,) = [p for p in tmp_path.iterdir() if p.name.startswith(".cables.xlsx.")]
    assert left.name.endswith(".tmp")
    _aged(left)
    write_cables(design, tmp_path / "other.xlsx")  # any export into the folder
    assert _leftovers(tmp_path) == []


def test_a_netbox_staging_folder_is_removed_by_the_next_export(tmp_path: Path, design) -> None:
    stage = tmp_path / f".nb.{_dead_pid()}.0123abcd.export"
    stage.mkdir()
    (stage / "devices.csv").write_text("half a file")
    _aged(stage / "devices.csv")
    _aged(stage)
    write_netbox(design, tmp_path / "nb")
    assert _leftovers(tmp_path) == []
    # A folder export next to it sweeps too.
    stage.mkdir()
    _aged(stage)
    write_folder(tmp_path / "slurm", {"slurm.conf": "# x\n"})
    assert _leftovers(tmp_path) == []


def test_a_killed_print_is_removed_by_the_next_print(qtbot, tmp_path: Path, design) -> None:
    from workbench.render.print_export import write_pdf, write_svgs
    from workbench.render.print_layout import PrintOptions

    pdf = tmp_path / f".racks.pdf.{_dead_pid()}.0123abcd.tmp"
    pdf.write_bytes(b"%PDF-1.4 half")
    _aged(pdf)
    write_pdf(tmp_path / "racks.pdf", design, PrintOptions())
    assert _leftovers(tmp_path) == []
    pages = tmp_path / "svg"
    pages.mkdir()
    stage = pages / f".pages.{_dead_pid()}.0123abcd.export"
    stage.mkdir()
    _aged(stage)
    write_svgs(pages, design, PrintOptions())
    assert _leftovers(pages) == []


def test_what_is_not_ours_or_may_be_running_is_left_alone(tmp_path: Path) -> None:
    keep = [
        tmp_path / ".notes.txt.1234.0123abcd.tmp",  # not a suffix the workbench writes
        tmp_path / ".cables.xlsx.0123abcd.tmp",  # no pid: not an export's name
        tmp_path / f".cables.xlsx.{os.getpid()}.0123abcd.tmp",  # this process, writing now
    ]
    for path in keep:
        path.write_bytes(b"x")
        _aged(path, 60)
    fresh = tmp_path / f".b.xlsx.{_dead_pid()}.0123abcd.tmp"
    fresh.write_bytes(b"x")  # a writer on another machine may be at work: settle first
    user_folder = tmp_path / ".photos.export"
    user_folder.mkdir()
    _aged(user_folder)
    sweep = sweep_temps(tmp_path)
    assert sweep.removed == ()
    assert all(p.exists() for p in [*keep, fresh, user_folder])


def test_the_window_sweeps_recent_folders_when_it_starts(qtbot, tmp_path: Path, design) -> None:
    from qt_helpers import open_window

    from workbench.store import save_design

    project = tmp_path / "site.dcwb"
    save_design(design, project)
    left = tmp_path / f".cables.xlsx.{_dead_pid()}.0123abcd.tmp"
    left.write_bytes(bytes(1000))
    _aged(left)
    window = open_window(qtbot, tmp_path, design)
    window.file_actions.add_recent(project)
    found = window.file_actions.sweep_recent_folders()
    assert found.removed == (left,)
    assert "removed 1 leftover" in window.statusBar().currentMessage()
