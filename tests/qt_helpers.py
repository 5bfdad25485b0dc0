"""Small helpers shared by the window tests (imported as a plain module, like
``store_designs``)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QWidget


def visit(widget: QWidget, elsewhere: QWidget) -> None:
    """Give ``widget`` the keyboard focus, then take it away, as a Tab or a click would."""
    widget.setFocus()
    QApplication.processEvents()
    assert widget.hasFocus()
    elsewhere.setFocus()
    QApplication.processEvents()
    assert not widget.hasFocus()


def open_window(qtbot, tmp_path, design, catalog=None):
    """A shown main window on ``design`` with its own settings file (not the user's)."""
    from PySide6.QtCore import QSettings

    from workbench.ui.document import Document
    from workbench.ui.main_window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Document(design), catalog=catalog, settings=settings)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    return window
