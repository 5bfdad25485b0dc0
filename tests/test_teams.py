"""Teams as model data (issue 24): before, teams existed only in the export's Python
API, so the QOS script and the ResourceQuota always held one "default" team.  Now a
team is part of the design, edited by undoable model edits from the window (Edit ▸
Teams…) and from the command line (``workbench teams``), saved in the project file."""

from __future__ import annotations

import copy

import pytest
from cli_helpers import run
from PySide6.QtCore import Qt

from workbench.model import Design, Team, ops
from workbench.model.errors import EditError
from workbench.model.team_ops import AddTeam, RemoveTeam, SetTeamFields
from workbench.store import open_design, save_design
from workbench.ui.shell.document import Document
from workbench.ui.shell.teams_dialog import TeamsDialog


def test_team_edits_have_exact_inverses():
    design = Design()
    start = copy.deepcopy(design)
    added = ops.apply(design, AddTeam(Team("team-1", "llm", gpus=64, priority=5)))
    middle = copy.deepcopy(design)
    changed = ops.apply(design, SetTeamFields("team-1", (("share", 0.5), ("gpus", None))))
    assert design.teams[0].share == 0.5 and design.teams[0].gpus is None
    ops.apply(design, changed.inverse)
    assert design == middle
    removed = ops.apply(design, RemoveTeam("team-1"))
    ops.apply(design, removed.inverse)
    assert design == middle
    ops.apply(design, added.inverse)
    assert design == start


@pytest.mark.parametrize(
    ("team", "message"),
    [
        (Team("t", "Bad Name", gpus=1), "lowercase letters"),
        (Team("t", "both", gpus=8, share=0.5), "one"),
        (Team("t", "neither"), "one"),
        (Team("t", "share", share=1.5), "at most 1"),
        (Team("t", "prio", gpus=1, priority=-1), "priority"),
    ],
)
def test_bad_teams_are_refused_and_change_nothing(team, message):
    design = Design()
    with pytest.raises(EditError, match=message):
        ops.apply(design, AddTeam(team))
    assert design.teams == []


def test_team_names_are_unique():
    design = Design()
    ops.apply(design, AddTeam(Team("team-1", "llm", gpus=8)))
    with pytest.raises(EditError, match="already"):
        ops.apply(design, AddTeam(Team("team-2", "llm", gpus=8)))


def test_teams_are_saved_and_read_back(tmp_path):
    design = Design(name="teams")
    ops.apply(design, AddTeam(Team("team-1", "llm", gpus=64, priority=5)))
    ops.apply(design, AddTeam(Team("team-2", "research", share=0.25)))
    save_design(design, tmp_path / "t.dcwb")
    assert open_design(tmp_path / "t.dcwb").teams == design.teams


def test_command_line_edits_teams(tmp_path):
    path = tmp_path / "p.dcwb"
    assert run("new", "--template", "hgx-h100-air", str(path)).returncode == 0
    assert run("teams", "add", str(path), "llm", "--gpus", "16", "--priority", "50").returncode == 0
    assert run("teams", "add", str(path), "research", "--share", "0.25").returncode == 0
    assert run("teams", "set", str(path), "research", "--priority", "7").returncode == 0
    bad = run("teams", "add", str(path), "Bad Name", "--gpus", "3")
    assert bad.returncode == 2 and "lowercase letters" in bad.stderr
    shown = run("teams", "list", str(path))
    assert shown.stdout.splitlines() == [
        "llm: 16 GPUs, priority 50",
        "research: 25% of the GPUs, priority 7",
    ]
    assert run("teams", "remove", str(path), "llm").returncode == 0
    assert [t.name for t in open_design(path).teams] == ["research"]
    out = tmp_path / "slurm"
    assert run("export", str(path), "--slurm", str(out)).returncode == 0
    assert "Priority=7" in (out / "qos.sh").read_text()


def test_window_dialog_adds_changes_removes_with_undo(qtbot):
    document = Document(Design())
    dialog = TeamsDialog(document)
    document.setParent(dialog)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.name.setText("llm")
    dialog.amount.setValue(64)
    dialog.priority.setValue(9)
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    assert dialog.rows() == [["llm", "64 GPUs", "9"]]
    assert document.undo_stack.undoText() == "Add team llm"
    dialog.table.selectRow(0)
    dialog.kind.setCurrentIndex(1)
    dialog.amount.setValue(25)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert dialog.rows() == [["llm", "25 % of the GPUs", "9"]]
    dialog.name.setText("Bad Name")
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert "lowercase letters" in dialog.message.text()
    assert dialog.rows() == [["llm", "25 % of the GPUs", "9"]]
    document.undo()
    assert dialog.rows() == [["llm", "64 GPUs", "9"]]
    document.undo()
    assert dialog.rows() == [] and document.design.teams == []
    document.redo()
    dialog.table.selectRow(0)
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    assert document.design.teams == []
