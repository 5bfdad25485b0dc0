"""File ▸ Export: every export of ``workbench export``, with a progress bar and Cancel.

The window runs the same Qt-free writers as the command line
(:data:`workbench.export.registry.EXPORTS`), so a workbook made here and one made by a
script are the same file.  Exports of 100,000-GPU designs take seconds, so each runs
under a modal progress dialog whose Cancel raises ``ExportCancelled`` inside the writer
at its next progress call; the writer's atomic output then leaves no partial file.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressDialog,
)

from workbench.export.output import ExportCancelled, ExportError
from workbench.export.registry import EXPORTS, ExportKind, exporter
from workbench.filenames import portable_stem
from workbench.ui.shell.document import Document

_TITLES = {
    "--bom": "Bill of Materials…",
    "--inventory": "Inventory…",
    "--cables": "Cable Schedule…",
    "--ip-plan": "IP Plan…",
    "--checklist": "Acceptance Checklists…",
    "--slurm": "Slurm Configuration…",
    "--k8s": "Kubernetes Manifests…",
    "--health-check": "Health Check Script…",
    "--monitoring": "Monitoring (Prometheus)…",
    "--asbuilt": "As-Built Sheet…",
    "--netbox": "NetBox Import Files…",
}


class ExportActions(QObject):
    """The Export submenu's actions; ``run(kind, target)`` is what each one does."""

    def __init__(self, window: QMainWindow, document: Document):
        super().__init__(window)
        self.window = window
        self.document = document
        self.menu = QMenu("&Export", window)
        self.actions: dict[str, QAction] = {}
        for kind in EXPORTS:
            action = QAction(_TITLES.get(kind.option, kind.option), window)
            action.setStatusTip(kind.help[:1].upper() + kind.help[1:])
            action.triggered.connect(lambda _checked=False, k=kind: self.ask_and_run(k))
            self.menu.addAction(action)
            self.actions[kind.option] = action
            if kind.option == "--checklist":
                self.menu.addSeparator()  # workbooks above, handoff folders below

    def add_to_menu(self, menu: QMenu, before: QAction | None = None) -> None:
        if before is None:
            menu.addMenu(self.menu)
        else:
            menu.insertMenu(before, self.menu)

    # -- dialogs (small methods so tests can replace them) ---------------------------------
    def ask_target(self, kind: ExportKind) -> Path | None:
        base = portable_stem(
            self.document.path.stem if self.document.path else self.document.design.name
        )
        start = str((self.document.path.parent if self.document.path else Path.home()) / base)
        if kind.metavar == "DIR":
            folder = QFileDialog.getExistingDirectory(self.window, _TITLES[kind.option], start)
            return Path(folder) if folder else None
        name = f"{start}-{kind.dest.replace('_', '-')}.xlsx"
        path, _ = QFileDialog.getSaveFileName(
            self.window, _TITLES[kind.option], name, "Excel workbooks (*.xlsx)"
        )
        if not path:
            return None
        return Path(path) if path.lower().endswith(".xlsx") else Path(path + ".xlsx")

    def _error(self, text: str) -> None:
        self.last_error = text
        QMessageBox.warning(self.window, "Export failed", text)

    def _status(self, text: str) -> None:
        bar = self.window.statusBar()
        if bar is not None:
            bar.showMessage(text, 8000)

    # -- running ---------------------------------------------------------------------------
    def ask_and_run(self, kind: ExportKind) -> bool:
        target = self.ask_target(kind)
        return target is not None and self.run(kind, target)

    def run(self, kind: ExportKind, target: Path) -> bool:
        """Write one export under a progress dialog; True when it was written."""
        dialog = QProgressDialog(f"Writing {target.name}…", "Cancel", 0, 1000, self.window)
        dialog.setWindowTitle(_TITLES[kind.option].rstrip("…"))
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)

        def progress(fraction: float, label: str = "") -> None:
            dialog.setValue(int(max(0.0, min(1.0, fraction)) * 1000))
            if label:
                dialog.setLabelText(f"Writing {target.name}… {label}")
            QApplication.processEvents()
            if dialog.wasCanceled():
                raise ExportCancelled

        try:
            written = exporter(kind)(self.document.design, target, progress=progress)
        except ExportCancelled:
            self._status(f"Export cancelled; {target.name} was not written")
            return False
        except ExportError as exc:
            self._error(str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - a bug, but the user's design is safe
            self._error(f"{target}: the export failed unexpectedly: {exc}")
            return False
        finally:
            dialog.close()
        shown = f"{len(written)} files in {target}" if isinstance(written, list) else str(target)
        self._status(f"Exported {shown}")
        return True
