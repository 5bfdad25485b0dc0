"""Fuzzed project files in the real window: whatever the reader accepts, every view
shows without an exception reaching Qt.

The reader refuses what the model cannot hold (tests/test_fuzz_project.py); what it
accepts is either the sample unchanged in meaning or a design the checks report.  Both
must open, paint and take an edit in the window, through the same path a user takes
(File ▸ Open, i.e. ``FileActions.open_path``).  A seeded draw of the value edits keeps
this to a handful of files in the default run; the full sweep is the fuzz benchmark's.
"""

from __future__ import annotations

import logging
import random

import pytest
from fuzz_cases import BASE_SEED, all_value_cases, sample_bytes
from qt_helpers import open_window
from test_ui_odd_designs import _report, exercise

from workbench.model.design import Design
from workbench.store import ProjectFileError, open_design

#: Accepted files opened per run: each costs a full tour of the window (~2 s here).
ACCEPTED_PER_RUN = 6


def _accepted(tmp_path) -> list[tuple[str, bytes]]:
    """The first accepted value edits of a seeded shuffle of all of them."""
    cases = all_value_cases(BASE_SEED)
    random.Random(BASE_SEED).shuffle(cases)
    original = sample_bytes()
    out: list[tuple[str, bytes]] = []
    for case in cases:
        data = case.build(original, tmp_path)
        if data is None or data == original:
            continue
        path = tmp_path / "probe.dcwb"
        path.write_bytes(data)
        try:
            open_design(path)
        except ProjectFileError:
            continue
        out.append((case.ident, data))
        if len(out) == ACCEPTED_PER_RUN:
            break
    return out


def test_every_accepted_fuzz_file_opens_and_shows_in_the_window(qtbot, tmp_path, caplog):
    accepted = _accepted(tmp_path)
    assert len(accepted) == ACCEPTED_PER_RUN, "the draw found too few accepted files"
    caplog.set_level(logging.WARNING, logger="workbench")
    window = open_window(qtbot, tmp_path, Design())
    window.file_actions.autosave_timer.stop()
    for ident, data in accepted:
        path = tmp_path / f"{ident.replace(':', '_')}.dcwb"
        path.write_bytes(data)
        with qtbot.captureExceptions() as raised:
            assert window.file_actions.open_path(path, ask_save=False), ident
            exercise(window)
        assert not raised, f"{ident}: {len(raised)} exception(s) reached Qt:\n{_report(raised)}"
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert not errors, f"{ident}: " + "\n".join(r.getMessage() for r in errors)
        assert path.read_bytes() == data, f"{ident}: opening changed the file"


@pytest.mark.parametrize("ident", ["header:user_version:-1", "truncate"])
def test_a_refused_file_leaves_the_window_as_it_was(qtbot, tmp_path, ident, monkeypatch):
    from fuzz_cases import make_cases

    # A case by its name, or a family's first case (which index a family's case gets
    # moves with the schema's columns: the value cases are drawn first).
    case = next(c for c in make_cases(200) if ident in (c.ident, c.family))
    data = case.build(sample_bytes(), tmp_path)
    assert data is not None
    path = tmp_path / "bad.dcwb"
    path.write_bytes(data)
    window = open_window(qtbot, tmp_path, Design(name="kept"))
    said: list[str] = []
    monkeypatch.setattr(window.file_actions, "_error", lambda title, text: said.append(text))
    assert not window.file_actions.open_path(path, ask_save=False)
    assert window.document.design.name == "kept"
    assert len(said) == 1 and str(path) in said[0] and "\n" not in said[0]
    assert path.read_bytes() == data
