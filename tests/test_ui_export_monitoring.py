"""File ▸ Export ▸ Monitoring (Prometheus)… writes the same files as the command line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qt_helpers import open_window  # noqa: E402

from workbench.templates import build_template  # noqa: E402


@pytest.fixture
def window(qtbot, tmp_path):
    return open_window(qtbot, tmp_path, build_template("hgx-h100-air"))


def test_export_menu_writes_monitoring_files(window, tmp_path: Path, monkeypatch) -> None:
    action = window.export_actions.actions["--monitoring"]
    assert action.text() == "Monitoring (Prometheus)…"
    assert action in window.export_actions.menu.actions()
    folder = tmp_path / "monitoring"
    monkeypatch.setattr(window.export_actions, "ask_target", lambda _kind: folder)
    action.trigger()
    assert (folder / "prometheus.yml").read_text().count("job_name:") == 2
    assert "GpuTooHot" in (folder / "alerts.yml").read_text()
