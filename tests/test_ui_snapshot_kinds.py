"""The window over files whose catalog snapshot gives an item another kind (issue 18:
a DGX H100 stored as ``"kind": "switch"`` crashed the Fabric tab with SIGSEGV while
``report`` and ``check`` opened it cleanly).  Every such file the reader accepts must
show in every tab; the fuzz is bounded (a few kinds on the GPU server item)."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest
from qt_helpers import open_window
from test_ui_odd_designs import _report, exercise

from workbench.model.design import Design
from workbench.render import fabric_layout
from workbench.store import ProjectFileError, open_design, save_design
from workbench.templates import build_template

#: Kinds to give the GPU server: what a hand edit or a bad merge may leave.
KINDS = ("switch", "pdu", "patch-panel", "storage")


def _with_kind(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"kind-{kind}.dcwb"
    save_design(build_template("hgx-h100-air"), path)
    conn = sqlite3.connect(path)
    for seq, raw in conn.execute("SELECT seq, raw FROM catalog_snapshot").fetchall():
        item = json.loads(raw)
        if item.get("gpu_count"):
            item["kind"] = kind
            conn.execute(
                "UPDATE catalog_snapshot SET raw = ?, kind = ? WHERE seq = ?",
                (json.dumps(item), kind, seq),
            )
    conn.commit()
    conn.close()
    return path


def test_every_snapshot_kind_the_reader_accepts_shows_in_every_tab(qtbot, tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="workbench")
    window = open_window(qtbot, tmp_path, Design())
    window.file_actions.autosave_timer.stop()
    opened = 0
    for kind in KINDS:
        path = _with_kind(tmp_path, kind)
        try:
            design = open_design(path)
        except ProjectFileError:
            continue
        fabric_layout.lay_out_fabric(design)  # raised ValueError before the fix
        opened += 1
        with qtbot.captureExceptions() as raised:
            assert window.file_actions.open_path(path, ask_save=False), kind
            exercise(window)
        assert not raised, f"{kind}: {_report(raised)}"
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING], kind
    assert opened >= 1  # "switch" is a rackable kind: the reader takes it


def test_a_drawing_that_fails_says_so_instead_of_crashing(qtbot, tmp_path, monkeypatch):
    """Whatever else a design may hold, the Fabric tab shows a note, not a crash."""
    from workbench.ui.fabric import scene as fabric_scene

    def broken(*args, **kwargs):
        raise ValueError("no layout for this")

    monkeypatch.setattr(fabric_scene, "lay_out_fabric", broken)
    window = open_window(qtbot, tmp_path, build_template("hgx-h100-air"))
    with qtbot.captureExceptions() as raised:
        exercise(window)
    assert not raised
    notes = [p.note for p in window.fabric_view.fabric.layout.panels]
    assert any("cannot be drawn" in note and "no layout for this" in note for note in notes)


@pytest.mark.parametrize("kind", ["switch"])
def test_the_reader_accepts_the_crashing_file(tmp_path, kind) -> None:
    open_design(_with_kind(tmp_path, kind))
