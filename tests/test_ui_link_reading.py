"""A window started on a file reads its links after the first frame: nothing uses the
design without them (``ui.shell.link_reading``).

Each test opens a saved design as ``run_app`` does (``open_path(links_later=True)``), so
the document holds it without links, then does what could reach them before the
reading has finished: an edit, a key press, a mouse press, a save, the first check.
Each must find the design complete, compared with the file read by ``open_design``; a
gate left out (the event filter, ``Document.push``'s wait, the save's, the check's hold)
makes its test fail.  A file whose links are bad is refused after the first frame with
the message ``open_design`` gives, and the design shown is dropped.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from workbench.model.design import Design
from workbench.store import ProjectFileError, open_design, save_design
from workbench.store.writer import design_rows
from workbench.templates import sample_design
from workbench.ui.commands import rename_device
from workbench.ui.shell.document import Document
from workbench.ui.shell.main_window import MainWindow


def _rows(design: Design) -> list:
    """Every table's rows, without the stamp of the moment they are made."""
    return [
        (table, [tuple(r) for r in rows if table != "meta" or r[0] != "saved_at"])
        for table, rows in design_rows(design)
    ]


@pytest.fixture
def errors(boxes) -> list[tuple[str, str]]:
    return boxes("critical")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, errors) -> MainWindow:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Document(Design()), settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    return window


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("links") / "sample.dcwb"
    save_design(sample_design(), path)
    return path


def _opened(window: MainWindow, path: Path) -> Document:
    """``path`` opened as the window's start opens it: its links not read yet."""
    assert window.file_actions.open_path(path, ask_save=False, links_later=True)
    document = window.document
    assert document.links_pending and document.design.links == []
    return document


def test_links_are_read_after_opening_and_the_design_is_the_files(
    qtbot, window: MainWindow, saved: Path
) -> None:
    document = _opened(window, saved)
    qtbot.waitUntil(lambda: not document.links_pending, timeout=20_000)
    assert _rows(document.design) == _rows(open_design(saved))
    qtbot.waitUntil(lambda: document.figures.checked, timeout=20_000)
    assert not document.is_dirty


def test_an_edit_while_links_are_read_waits_for_them(window: MainWindow, saved: Path) -> None:
    document = _opened(window, saved)
    _rack, device = next(iter(document.design.iter_devices()))
    document.push(rename_device(document, device.id, "renamed-while-reading"))
    assert not document.links_pending
    whole = open_design(saved)
    assert len(document.design.links) == len(whole.links) > 0
    assert document.design.index.devices[device.id][1].name == "renamed-while-reading"
    document.undo_stack.undo()
    assert _rows(document.design) == _rows(whole)


@pytest.mark.parametrize("how", ["key", "mouse"])
def test_input_while_links_are_read_finishes_them_first(
    window: MainWindow, saved: Path, how: str
) -> None:
    document = _opened(window, saved)
    reading = document.link_reading
    assert reading is not None
    said: list[tuple[str, str]] = []  # (the signal's text, the status bar's as it waited)
    reading.waiting.connect(lambda text: said.append((text, window.statusBar().currentMessage())))
    if how == "key":
        QTest.keyClick(window.rack_view.viewport(), Qt.Key.Key_Right)
    else:
        QTest.mousePress(window.rack_view.viewport(), Qt.MouseButton.LeftButton)
    assert not document.links_pending
    assert _rows(document.design) == _rows(open_design(saved))
    # The wait was said, in the status bar, before it began; the busy cursor is gone.
    links = len(document.design.links)
    assert said == [(f"Reading the last {links:,} links first…",) * 2]
    assert QApplication.overrideCursor() is None


def test_input_while_the_links_are_checked_waits_for_the_check(
    qtbot, window: MainWindow, saved: Path, monkeypatch
) -> None:
    """The whole-design check runs on its own thread (not a block of the event loop);
    a key pressed meanwhile is handled only once it has passed."""
    import workbench.store.later as later_module

    checked_on: list[threading.Thread] = []
    go = threading.Event()
    plain = later_module.check_values

    def held_check(*args, **kwargs) -> None:
        checked_on.append(threading.current_thread())
        go.wait(20)
        plain(*args, **kwargs)

    document = _opened(window, saved)  # its first part checked, the links not read yet
    monkeypatch.setattr(later_module, "check_values", held_check)
    qtbot.waitUntil(lambda: bool(checked_on), timeout=20_000)
    assert checked_on[0] is not threading.main_thread()
    assert document.links_pending, "the design counted as the file's before its check"
    QApplication.processEvents()  # the window answers while the check waits
    assert document.links_pending
    threading.Timer(0.2, go.set).start()
    QTest.keyClick(window.rack_view.viewport(), Qt.Key.Key_Right)
    assert go.is_set() and not document.links_pending
    assert _rows(document.design) == _rows(open_design(saved))


def test_findings_wanted_while_links_are_read_are_the_whole_designs(
    window: MainWindow, saved: Path
) -> None:
    """A view that wants the findings now (the Checks list, the strip's count) gets
    those of the design with its links, not of the design without them."""
    document = _opened(window, saved)
    found = sorted((f.rule, f.message) for f in document.figures.findings())
    assert not document.links_pending
    whole = Document(open_design(saved))
    assert found == sorted((f.rule, f.message) for f in whole.figures.findings())


def test_saving_while_links_are_read_writes_them(
    window: MainWindow, saved: Path, tmp_path: Path
) -> None:
    _opened(window, saved)
    copy = tmp_path / "copy.dcwb"
    assert window.file_actions.save_to(copy)
    assert _rows(open_design(copy)) == _rows(open_design(saved))


def test_the_first_check_waits_for_the_links(qtbot, window: MainWindow, saved: Path) -> None:
    document = _opened(window, saved)
    reading = document.link_reading
    assert reading is not None
    reading._timer.stop()  # the reading paused: the check must not run meanwhile
    document.figures.check_soon()
    qtbot.wait(300)
    figures = document.figures
    assert not figures.checked and document.links_pending
    assert figures._owed, "the check was begun, not put off until the links are in"
    assert figures._checker is None and figures._slicing is None
    assert reading.complete()
    qtbot.waitUntil(lambda: document.figures.checked, timeout=20_000)
    assert len(document.design.links) == len(open_design(saved).links)


def test_bad_links_refuse_the_file_after_the_first_frame(
    qtbot, window: MainWindow, saved: Path, tmp_path: Path, errors, monkeypatch
) -> None:
    bad = tmp_path / "bad.dcwb"
    bad.write_bytes(saved.read_bytes())
    conn = sqlite3.connect(bad)
    conn.execute("UPDATE links SET a_device = 'nowhere' WHERE seq = 1")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectFileError) as refused:
        open_design(bad)
    exits: list[int] = []
    monkeypatch.setattr(QApplication, "exit", staticmethod(exits.append))
    document = _opened(window, bad)
    qtbot.waitUntil(lambda: bool(exits), timeout=20_000)
    assert exits == [1]
    assert errors == [("Cannot open project", str(refused.value))]
    assert not document.links_pending
    assert document.path is None and not list(document.design.iter_devices())
