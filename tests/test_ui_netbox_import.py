"""File ▸ Import ▸ NetBox Files… and File ▸ Export ▸ NetBox Import Files… in the window."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QMenu, QMessageBox  # noqa: E402
from qt_helpers import open_window  # noqa: E402

from workbench.netbox.export import write_netbox  # noqa: E402
from workbench.templates import build_template  # noqa: E402


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, build_template("hgx-h100-air"))


def _import_menu(win) -> QMenu:
    menu = win.menuBar().findChild(QMenu, "importMenu")
    assert menu is not None
    return menu


def test_file_menu_offers_both_directions(window) -> None:
    titles = [a.text() for a in _import_menu(window).actions()]
    assert "&NetBox Files…" in titles and any("Device types" in t for t in titles)
    assert "--netbox" in window.export_actions.actions


def test_export_then_import_opens_the_same_design(window, tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "netbox"
    monkeypatch.setattr(window.export_actions, "ask_target", lambda _kind: folder)
    window.export_actions.actions["--netbox"].trigger()
    assert (folder / "manifest.json").is_file()
    before = window.document.design
    devices = sorted(d.name for _r, d in before.iter_devices())
    window.document.undo_stack.setClean()
    monkeypatch.setattr(window.netbox_import, "ask_folder", lambda: folder)
    window.netbox_import.action.trigger()
    after = window.document.design
    assert after is not before and window.document.path is None
    assert sorted(d.name for _r, d in after.iter_devices()) == devices
    assert len(after.links) == len(before.links)


def test_a_broken_folder_changes_nothing(window, tmp_path: Path, monkeypatch) -> None:
    write_netbox(build_template("hgx-h100-air"), tmp_path / "nb")
    (tmp_path / "nb" / "devices.csv").write_text('name,role\n"unterminated\n', encoding="utf-8")
    design = window.document.design
    window.document.undo_stack.setClean()
    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text, *a: warned.append(text))
    monkeypatch.setattr(window.netbox_import, "ask_folder", lambda: tmp_path / "nb")
    window.netbox_import.action.trigger()
    assert window.document.design is design
    assert len(warned) == 1 and "devices.csv" in warned[0] and "\n" not in warned[0]
