"""Versions ▸ Import Reports…: a folder of node reports in, as one undo step.

Planning reads every file first (with a progress bar and Cancel: 12,500 nodes take
seconds) and changes nothing; the user then sees the summary (nodes updated, values
changed, unknown nodes) and confirms.  A malformed file refuses the whole import with
its file and line, so the matrix never shows half of this week's reports.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QProgressDialog, QWidget

from workbench.model.errors import EditError
from workbench.model.version_ops import AddObservations
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document

if TYPE_CHECKING:  # the report readers are imported when a folder is read, not at start
    from workbench.versions.importer import ImportPlan


class _Cancelled(Exception):
    """The user pressed Cancel on the progress dialog."""


def login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def plan_with_progress(parent: QWidget, document: Document, folder: Path) -> ImportPlan | None:
    """The import plan for ``folder``, or None when cancelled or refused (said in a box)."""
    from workbench.versions.importer import plan_import
    from workbench.versions.reports import ReportError

    dialog = QProgressDialog("Reading node reports…", "Cancel", 0, 0, parent)
    dialog.setWindowTitle("Import Reports")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(400)

    def progress(files: int) -> None:
        dialog.setLabelText(f"Reading node reports… {files:,} files")
        QApplication.processEvents()
        if dialog.wasCanceled():
            raise _Cancelled

    try:
        return plan_import(document.design, folder, who=login_name(), progress=progress)
    except _Cancelled:
        return None
    except (ReportError, EditError) as exc:
        QMessageBox.warning(parent, "Import refused", f"Nothing was imported.\n\n{exc}")
        return None
    finally:
        dialog.close()


def import_reports(
    parent: QWidget, document: Document, folder: Path | None = None, *, confirm: bool = True
) -> bool:
    """Ask for a folder (unless given), plan, confirm, and push one undoable import.
    Returns whether observations were added."""
    if folder is None:
        chosen = QFileDialog.getExistingDirectory(parent, "Folder of node reports")
        if not chosen:
            return False
        folder = Path(chosen)
    plan = plan_with_progress(parent, document, folder)
    if plan is None:
        return False
    text = "\n".join(plan.summary.lines())
    if not plan.observations:
        QMessageBox.information(parent, "Import Reports", f"{text}\n\nNothing new to import.")
        return False
    if confirm:
        answer = QMessageBox.question(
            parent,
            "Import Reports",
            f"{text}\n\nImport {len(plan.observations):,} values?",
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Ok:
            return False
    before = len(document.design.versions.observations)
    document.push(
        EditCommand(
            document, AddObservations(plan.observations), f"Import reports from {folder.name}"
        )
    )
    return len(document.design.versions.observations) > before


def import_results(
    parent: QWidget, document: Document, folder: Path | None = None, *, confirm: bool = True
) -> bool:
    """Versions ▸ Import Results…: ``results-<node>.csv`` files of health_check.sh in,
    all or nothing, as one undo step (``workbench acceptance import`` does the same)."""
    from workbench.export.acceptance import ResultsError, read_results

    if folder is None:
        chosen = QFileDialog.getExistingDirectory(parent, "Folder of health-check results")
        if not chosen:
            return False
        folder = Path(chosen)
    try:
        plan = read_results(document.design, folder, who=login_name())
    except (ResultsError, EditError) as exc:
        QMessageBox.warning(parent, "Import refused", f"Nothing was imported.\n\n{exc}")
        return False
    if not plan.results:
        QMessageBox.information(parent, "Import Results", "The files hold no results.")
        return False
    nodes = len({r.node for r in plan.results})
    fails = sum(1 for r in plan.results if r.verdict == "FAIL")
    text = f"{len(plan.results):,} results for {nodes:,} nodes ({fails:,} FAIL) in {folder}."
    if confirm:
        answer = QMessageBox.question(
            parent,
            "Import Results",
            f"{text}\n\nImport them?",
            QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Ok:
            return False
    before = len(document.design.acceptance)
    document.push(EditCommand(document, plan.op(), f"Import acceptance results from {folder.name}"))
    return len(document.design.acceptance) > before
