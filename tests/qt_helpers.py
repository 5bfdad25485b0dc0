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
