"""``workbench export`` and ``workbench acceptance import`` through the real entry point,
and File ▸ Export in the window (progress, cancel, errors)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import openpyxl
import pytest

from workbench.cli.main import main
from workbench.export.registry import EXPORTS
from workbench.store import open_design


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "site.dcwb"
    assert main(["new", str(out), "--template", "hgx-h100-air"]) == 0
    return out


def test_every_export_of_the_registry_is_an_option(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = capsys.readouterr().out
    assert all(kind.option in text for kind in EXPORTS)


def test_workbooks_are_written_and_open_again(project, tmp_path, capsys) -> None:
    before = digest(project)
    out = {name: tmp_path / f"{name}.xlsx" for name in ("bom", "inventory", "cables", "ip", "chk")}
    code = main(
        ["export", str(project), "--bom", str(out["bom"]), "--inventory", str(out["inventory"]),
         "--cables", str(out["cables"]), "--ip-plan", str(out["ip"]),
         "--checklist", str(out["chk"])]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0 and printed.count("wrote ") == 5
    assert digest(project) == before  # the project file is only read
    design = open_design(project)
    devices = sum(len(r.devices) for r in design.iter_racks())
    inventory = openpyxl.load_workbook(out["inventory"], read_only=True)
    rows = list(inventory.worksheets[0].iter_rows(values_only=True))
    assert len(rows) - 1 == devices
    for path in out.values():
        assert openpyxl.load_workbook(path, read_only=True).sheetnames


def test_an_unwritable_target_is_one_line_and_exit_1(project, tmp_path, capsys) -> None:
    target = tmp_path / "missing" / "bom.xlsx"
    assert main(["export", str(project), "--bom", str(target)]) == 1
    err = capsys.readouterr().err
    assert "--bom" in err and str(target) in err and "Traceback" not in err
    assert not target.parent.exists()


def test_no_export_chosen_is_a_usage_error(project, capsys) -> None:
    assert main(["export", str(project)]) == 2
    assert "choose at least one" in capsys.readouterr().err


def test_health_check_results_come_back_in(project, tmp_path, capsys) -> None:
    """The loop: export the script, run it on a node (here: most items SKIP, no GPU),
    import its CSV, and the checklist shows what was measured."""
    copy = tmp_path / "p.dcwb"
    copy.write_bytes(project.read_bytes())
    folder = tmp_path / "hc"
    assert main(["export", str(copy), "--health-check", str(folder)]) == 0
    node = next(d.name for _, d in open_design(copy).iter_devices() if d.name.startswith("gpu"))
    results = tmp_path / "results"
    subprocess.run(
        ["bash", str(folder / "health_check.sh"), "-n", node, "-o", str(results)],
        check=False, capture_output=True, timeout=120,
    )  # fmt: skip
    assert (results / f"results-{node}.csv").exists()
    capsys.readouterr()
    assert main(["acceptance", "import", str(copy), str(results), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["nodes"] == [node] and summary["results"] > 0
    assert len(open_design(copy).acceptance) == summary["results"]


def test_a_malformed_results_file_changes_nothing(project, tmp_path, capsys) -> None:
    copy = tmp_path / "p.dcwb"
    copy.write_bytes(project.read_bytes())
    results = tmp_path / "results"
    results.mkdir()
    (results / "results-nobody.csv").write_text(
        "node,item,measured,verdict,timestamp\nnobody,gpu.count,8,PASS,2026-12-01T00:00:00Z\n"
    )
    before = digest(copy)
    assert main(["acceptance", "import", str(copy), str(results)]) == 2
    err = capsys.readouterr().err
    assert "nothing changed" in err and "results-nobody.csv:2" in err
    assert digest(copy) == before


def test_the_window_exports_with_progress_and_cancel(qtbot, tmp_path, monkeypatch) -> None:
    from qt_helpers import open_window

    from workbench.export.registry import EXPORTS as KINDS
    from workbench.templates import build_template

    window = open_window(qtbot, tmp_path, build_template("hgx-h100-air"))
    actions = window.export_actions
    bom = next(k for k in KINDS if k.option == "--bom")
    target = tmp_path / "bom.xlsx"
    assert actions.run(bom, target) and target.exists()
    assert "Exported" in window.statusBar().currentMessage()
    # Cancel at the first progress call: no file, and the status bar says so.
    from PySide6.QtWidgets import QProgressDialog

    monkeypatch.setattr(QProgressDialog, "wasCanceled", lambda self: True)
    cancelled = tmp_path / "cancelled.xlsx"
    assert not actions.run(bom, cancelled)
    assert not cancelled.exists() and not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]
    assert "cancelled" in window.statusBar().currentMessage()
    # The submenu offers every export of the registry.
    titles = [a.text() for a in actions.menu.actions() if not a.isSeparator()]
    assert len(titles) == len(KINDS)
