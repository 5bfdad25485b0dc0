"""The file names the workbench proposes hold nothing FAT or NTFS refuses."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFileDialog
from qt_helpers import open_window

from workbench.filenames import REFUSED, portable_stem


@pytest.mark.parametrize(
    ("text", "stem"),
    [
        ("Hall 3: phase 1", "Hall 3-phase 1"),
        ("a/b\\c", "a-b-c"),
        ("CON", "CON-file"),
        ("...", "design"),
        (
            "DGX H100 SuperPOD-style cluster — 1,024 GPUs",
            "DGX H100 SuperPOD-style cluster — 1,024 GPUs",
        ),
    ],
)
def test_a_portable_stem(text, stem):
    assert portable_stem(text) == stem
    assert not set(REFUSED) & set(portable_stem(text))


def test_save_as_print_and_export_propose_portable_names(qtbot, tmp_path, tiny_design, monkeypatch):
    tiny_design.name = 'Hall 3: phase "1"'
    window = open_window(qtbot, tmp_path, tiny_design)
    window.untitled_name = None
    proposed = []

    def ask(*args, **_kw):
        proposed.append(args[2])
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(ask))
    window.file_actions.save_as()
    monkeypatch.setattr(
        window.print_actions, "ask_options", lambda _title: window.print_actions.options
    )
    window.print_actions.export_pdf()
    from workbench.export.registry import EXPORTS

    window.export_actions.ask_target(next(k for k in EXPORTS if k.metavar != "DIR"))
    assert len(proposed) == 3
    for path in proposed:
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        assert not set(REFUSED) & set(name), name
