"""A closed main window is freed, with its document (issue 9).

Each open-and-close of a window over the sample design used to keep ~3 MB: a lambda
connected to a document signal held the window, the window held the document, and a
class-wide ``WeakKeyDictionary`` of fabric caches held every document through its own
value.  Here windows are opened, used (every tab, a selection, an edit) and closed, the
deferred deletes are flushed and the garbage collector runs; then weak references to the
windows and documents must be dead.  A control test rebuilds the old leak to show the
check can fail.
"""

from __future__ import annotations

import gc
import weakref

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, Qt
from PySide6.QtWidgets import QApplication

from workbench.ui.commands import rename_rack
from workbench.ui.shell.document import Document
from workbench.ui.shell.main_window import MainWindow


@pytest.fixture(scope="module")
def design_factory():
    from workbench.templates import sample_design

    sample_design()  # the first build loads the catalog; later ones are quick
    return sample_design


def flush() -> None:
    """What freeing a window waits for: deferred deletes, pending events, the collector."""
    for _ in range(2):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QApplication.processEvents()
        gc.collect()


def open_and_use(qtbot, tmp_path, design) -> MainWindow:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Document(design), settings=settings)
    window.file_actions.autosave_timer.stop()
    window.show()
    qtbot.waitExposed(window)
    for index in range(window.tabs.count()):  # builds the plots, the fabric, the floor
        window.tabs.setCurrentIndex(index)
        QApplication.processEvents()
    window.tabs.setCurrentIndex(0)
    document = window.document
    rack = next(document.design.iter_racks())
    document.select(rack.id)
    document.push(rename_rack(document, rack.id, "Renamed"))  # a command on the stack
    QApplication.processEvents()
    return window


def test_closed_windows_and_their_documents_are_freed(qtbot, tmp_path, design_factory):
    flush()
    top_level = len(QApplication.topLevelWidgets())
    refs = []
    for round_ in range(3):
        window = open_and_use(qtbot, tmp_path, design_factory())
        refs.append((weakref.ref(window), weakref.ref(window.document)))
        if round_ == 2:
            # As the app opens its window: deleted by Qt on close, nothing else to do.
            window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            window.close()
        else:
            window.close()
            window.deleteLater()
        del window
        flush()
    alive = [(w() is not None, d() is not None) for w, d in refs]
    assert alive == [(False, False)] * 3
    # Nor anything the window made without a parent (the plots' menus were 33 of them).
    assert len(QApplication.topLevelWidgets()) == top_level


def test_the_check_finds_a_window_kept_alive(qtbot, tmp_path, design_factory):
    """The leak as it was: a lambda on a document signal that names the window."""
    window = open_and_use(qtbot, tmp_path, design_factory())
    window.document.pathChanged.connect(lambda _path, w=window: w.setWindowTitle("x"))
    ref = weakref.ref(window)
    window.close()
    window.deleteLater()
    del window
    flush()
    assert ref() is not None  # the Python side lives on, held by the connection
    held = ref()
    held.document.pathChanged.disconnect()  # let it go, so this test leaks nothing
    del held
    flush()
    assert ref() is None


def test_windows_closed_with_an_edit_on_the_stack_are_freed_without_a_crash(
    qtbot, tmp_path, tiny_design_factory
):
    """The collector used to free the commands' Python side before the stack's
    destructor deleted them: SIGSEGV on the second window (the hand-built tiny design
    shows it every time; the stack is now cleared first, see Document.__init__)."""
    refs = []
    for _ in range(3):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(Document(tiny_design_factory()), settings=settings)
        window.file_actions.autosave_timer.stop()
        window.show()
        QApplication.processEvents()
        window.document.push(rename_rack(window.document, "r1", "Renamed"))
        window.document.undo_stack.setClean()  # no "save changes?" on close
        refs.append(weakref.ref(window.document))
        window.close()
        window.deleteLater()
        del window
        flush()
    assert [r() for r in refs] == [None, None, None]


def test_a_document_with_history_is_freed_without_a_crash(qapp, design_factory):
    """Its undo stack is cleared before the collector frees the commands (a closed
    window with an edit on its stack ended the process with SIGSEGV)."""
    refs = []
    for _ in range(3):
        document = Document(design_factory())
        rack = next(document.design.iter_racks())
        document.push(rename_rack(document, rack.id, "Renamed"))
        document.undo()
        document.redo()
        refs.append(weakref.ref(document))
        del document
        flush()
    assert [r() for r in refs] == [None, None, None]
