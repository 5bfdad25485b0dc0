"""The File menu's Import submenu, shared by every importer.

Importers live in their own modules (NetBox files, device types, as-built captures) and
each adds its action here, so the submenu is made once, above Quit, whichever of them
is installed first.
"""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QMenu


def import_menu(window: QMainWindow, menu: QMenu) -> QMenu:
    """The File menu's Import submenu (object name ``importMenu``), made above Quit."""
    submenu = menu.findChild(QMenu, "importMenu")
    if submenu is None:
        submenu = QMenu("&Import", menu)
        submenu.setObjectName("importMenu")
        quit_action = getattr(getattr(window, "file_actions", None), "quit_action", None)
        if quit_action is not None and quit_action in menu.actions():
            menu.insertMenu(quit_action, submenu)
        else:
            menu.addMenu(submenu)
    return submenu
