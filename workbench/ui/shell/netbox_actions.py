"""File ▸ Import ▸ NetBox Files…: a design from NetBox's bulk-import (or export) files.

Export goes through File ▸ Export like every other writer (the registry's ``--netbox``
entry), so this module only reads.  The folder becomes a new, unsaved design, the way
a template does: the user's current design is asked about first and is never merged
into, so nothing of it can be lost, and a folder that cannot be read changes nothing.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QMessageBox

from workbench.ui.shell.document import Document
from workbench.ui.shell.import_menu import import_menu


class NetBoxImport(QObject):
    """The action and what it does; ``ask_folder`` is a method so tests can replace it."""

    def __init__(self, window: QMainWindow, document: Document):
        super().__init__(window)
        self.window = window
        self.document = document
        self.last_error = ""
        self.action = QAction("&NetBox Files…", window)
        self.action.setObjectName("importNetBoxAction")
        self.action.setStatusTip(
            "Open NetBox bulk-import or export files (a folder with manifest.json) as a new design"
        )
        self.action.triggered.connect(lambda _checked=False: self.ask_and_run())

    def ask_folder(self) -> Path | None:
        start = str(self.document.path.parent) if self.document.path else str(Path.home())
        folder = QFileDialog.getExistingDirectory(self.window, "Import NetBox files", start)
        return Path(folder) if folder else None

    def ask_and_run(self) -> bool:
        file_actions = getattr(self.window, "file_actions", None)
        if file_actions is not None and not file_actions.maybe_save():
            return False
        folder = self.ask_folder()
        return folder is not None and self.run(folder)

    def run(self, folder: Path) -> bool:
        """Read ``folder`` into a new design; True when it was opened."""
        # Imported here: the NetBox reader (and the exports it shares code with) is not
        # needed before the window's first frame, only when a folder is read.
        from workbench.netbox.importer import NetBoxImportError, read_netbox

        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            design = read_netbox(folder)
        except NetBoxImportError as exc:
            self._error(str(exc))
            return False
        except OSError as exc:
            self._error(f"{folder}: {exc.strerror or exc}")
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        self.document.replace_design(design, None)
        bar = self.window.statusBar()
        if bar is not None:
            bar.showMessage(f"Imported {design.name or 'the design'} from {folder}", 8000)
        return True

    def _error(self, text: str) -> None:
        self.last_error = text
        QMessageBox.warning(self.window, "NetBox import failed", text)


def install_netbox_import(window: QMainWindow, menu: QMenu) -> NetBoxImport:
    """Add File ▸ Import ▸ NetBox Files… to ``menu`` (the File menu)."""
    document: Document = window.document  # type: ignore[attr-defined]
    importer = NetBoxImport(window, document)
    import_menu(window, menu).addAction(importer.action)
    return importer
