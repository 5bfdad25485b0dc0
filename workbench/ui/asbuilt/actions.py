"""File ▸ Import ▸ As-built captures…: a folder of ibnetdiscover / LLDP captures in, as
one undo step, and the totals of what was built right and wrong.

The same reading as ``workbench asbuilt`` (:func:`workbench.asbuilt.read_folder`: the
format told from each file's content, bounded reading, the first problem stops the
whole read with ``FILE:LINE: problem``), under a progress dialog with Cancel (a
100,000-GPU fabric's captures are thousands of files).  Only when every file parses do
the records replace the design's earlier captures, through ONE
:class:`~workbench.model.captures.ReplaceCaptures` edit, so Undo brings the previous
captures (and the Fabric view's marks) back.  A malformed capture is one message naming
its file and line, and the design is left as it was.

Afterwards a dialog shows the totals per plane, row and rack
(:func:`workbench.asbuilt.totals`) from the verdicts the Fabric view marks with (the
shared :class:`~workbench.ui.fabric.asbuilt.AsBuiltCache`: checked once).

Hooked into the window by :func:`install_asbuilt_import`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressDialog,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.model.captures import ReplaceCaptures
from workbench.model.errors import EditError
from workbench.ui.commands import EditCommand
from workbench.ui.fabric.asbuilt import BUSY_LINKS, AsBuiltCache
from workbench.ui.fabric.panel import PLANE_TITLES
from workbench.ui.shell.document import Document
from workbench.ui.shell.import_menu import import_menu
from workbench.ui.versions.version_import import login_name
from workbench.units import format_count

if TYPE_CHECKING:  # the capture readers and the matcher load when captures are read
    from workbench import asbuilt

#: Racks listed in the summary (those with discrepancies; the rest are in the sheet).
MAX_RACKS = 200

#: The busy dialog's bar, in steps (a check tells fractions).
_STEPS = 1000


def now_utc() -> str:
    """Now as ISO 8601 UTC to the second (as ``workbench asbuilt`` stamps an import)."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class _Cancelled(Exception):
    """The user pressed Cancel on the progress dialog."""


class AsBuiltImport(QObject):
    """The action and what it does (see the module docstring)."""

    def __init__(self, window: QWidget, document: Document):
        super().__init__(window)
        self.window = window
        self.document = document
        self.action = QAction("As-built &captures…", window)
        self.action.setObjectName("importAsBuilt")
        self.action.setStatusTip(
            "Check the cabled cluster against the design: a folder of ibnetdiscover and "
            "LLDP captures (one undoable step)"
        )
        self.action.triggered.connect(lambda _checked=False: self.run())
        #: The last refusal shown (for tests and the status bar).
        self.last_message = ""
        #: What the import said it was doing after the read, in order (tests read it).
        self.steps_said: list[str] = []
        self.summary: SummaryDialog | None = None

    # -- dialogs (small methods so tests can replace them) -----------------------------
    def choose_folder(self) -> Path | None:
        chosen = QFileDialog.getExistingDirectory(self.window, "Folder of as-built captures")
        return Path(chosen) if chosen else None

    def refuse(self, text: str) -> None:
        self.last_message = text
        QMessageBox.warning(self.window, "As-built import refused", text)

    # -- the import --------------------------------------------------------------------
    def run(self, folder: Path | None = None) -> bool:
        """Ask for a folder (unless given), read it, and replace the design's captures
        in one undoable step; True when they were."""
        if folder is None:
            folder = self.choose_folder()
            if folder is None:
                return False
        read = self._read(folder)
        if read is None:
            return False
        if not read.captures:
            self.refuse(f"{folder}: the capture files hold no neighbours; nothing changed.")
            return False
        design = self.document.design
        refused: list[str] = []
        self.document.editRefused.connect(refused.append)
        with self._busy(len(design.links)) as (say, tell):
            say(f"Storing {len(read.captures):,} captured neighbours…")
            try:
                self.document.push(
                    EditCommand(
                        self.document,
                        ReplaceCaptures(read.captures),
                        f"Import as-built captures from {folder.name}",
                    )
                )
            finally:
                self.document.editRefused.disconnect(refused.append)
            imported = bool(design.captures) and design.captures[0] is read.captures[0]
            if imported:
                checking = f"Checking {len(design.links):,} links against the captures…"
                say(checking)
                verdicts = AsBuiltCache.for_document(self.document).verdicts(
                    lambda fraction, part: tell(fraction, f"{checking}\n{part}")
                )
                say("Counting the verdicts by plane, row and rack…")
                from workbench.asbuilt import totals

                counted = totals(design, verdicts)
        if not imported:
            self.refuse(f"Nothing was imported: {refused[0] if refused else 'refused'}")
            return False
        self.show_summary(read, counted)
        return True

    @contextmanager
    def _busy(
        self, links: int
    ) -> Iterator[tuple[Callable[[str], None], Callable[[float, str], None]]]:
        """What the import does after the read, said in a dialog while it runs: storing
        the records (one edit), checking every link and counting the verdicts take ~3 s,
        ~8 s and ~4 s at 100,000 GPUs.  The dialog is painted before each step starts
        (``say``); the check tells how far it has got (``tell``: the bar and the label,
        repainted); a small design's steps are too short to show one."""
        dialog: QProgressDialog | None = None
        if links >= BUSY_LINKS:
            dialog = QProgressDialog("", "", 0, 0, self.window)
            dialog.setWindowTitle("Import as-built captures")
            dialog.setWindowModality(Qt.WindowModality.WindowModal)
            dialog.setCancelButton(None)  # none: the edit and the check run in one go
            dialog.setMinimumDuration(0)
            # Wide enough for the check's longest part, so it does not grow as it goes.
            dialog.setMinimumWidth(dialog.fontMetrics().horizontalAdvance("m" * 40))
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)

        def say(text: str) -> None:
            self.steps_said.append(text)
            if dialog is not None:
                dialog.setRange(0, 0)  # busy until the step tells how far it has got
                dialog.setLabelText(text)
                dialog.show()
                QApplication.processEvents()  # painted before the step blocks

        def tell(fraction: float, text: str) -> None:
            if dialog is not None:
                dialog.setRange(0, _STEPS)
                dialog.setLabelText(text)
                dialog.setValue(min(_STEPS - 1, int(fraction * _STEPS)))
                QApplication.processEvents()  # the input stays blocked: the dialog is modal

        try:
            yield say, tell
        finally:
            if dialog is not None:
                QApplication.restoreOverrideCursor()
                dialog.close()
                dialog.deleteLater()

    def _read(self, folder: Path) -> asbuilt.CaptureRead | None:
        """Every capture of ``folder``, or None when cancelled or refused (said)."""
        from workbench import asbuilt

        dialog = QProgressDialog("Reading captures…", "Cancel", 0, _STEPS, self.window)
        dialog.setWindowTitle("Import as-built captures")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(400)
        dialog.setMinimumWidth(dialog.fontMetrics().horizontalAdvance("m" * 40))

        def progress(fraction: float, what: str) -> None:
            dialog.setValue(min(_STEPS - 1, int(fraction * _STEPS)))
            dialog.setLabelText(f"Reading captures…\n{what}" if what else "Reading captures…")
            QApplication.processEvents()
            if dialog.wasCanceled():
                raise _Cancelled

        try:
            return asbuilt.read_folder(
                folder,
                who=login_name(),
                now=now_utc(),
                progress=progress,
                limits=asbuilt.limits_of(self.document.design),
            )
        except _Cancelled:
            return None
        except (asbuilt.CaptureError, EditError) as exc:
            self.refuse(f"Nothing was imported.\n\n{exc}")
            return None
        finally:
            dialog.close()

    def show_summary(self, read: asbuilt.CaptureRead, totals: asbuilt.Totals) -> None:
        self.summary = SummaryDialog(read, totals, self.window)
        self.summary.open()


class SummaryDialog(QDialog):
    """The verdict totals of an import: overall, per plane, per row, and the racks
    with discrepancies."""

    def __init__(self, read: asbuilt.CaptureRead, totals: asbuilt.Totals, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("asbuiltSummary")
        self.setWindowTitle("As built")
        from workbench.asbuilt.matcher import DISCREPANCIES, VERDICTS

        bad = totals.discrepancies
        head = QLabel(
            f"Read {format_count(len(read.files), 'capture file')}: "
            f"{format_count(len(read.captures), 'neighbour record')}."
            f"<br><b>{format_count(bad, 'discrepancy', 'discrepancies')}</b>"
            + (" — the Fabric view marks them; the as-built sheet lists them." if bad else ".")
        )
        head.setObjectName("asbuiltSummaryHead")
        self.rows: list[tuple[str, Counter[str]]] = [("All", totals.overall)]
        self.rows += [(_plane(p), c) for p, c in sorted(totals.planes.items())]
        self.rows += [(_named("Row", r), c) for r, c in sorted(totals.rows.items())]
        racks = [
            (r, c) for r, c in sorted(totals.racks.items()) if any(v in DISCREPANCIES for v in c)
        ]
        self.rows += [(_named("Rack", r), c) for r, c in racks[:MAX_RACKS]]
        table = QTableWidget(len(self.rows), len(VERDICTS) + 1)
        table.setObjectName("asbuiltTotals")
        table.setHorizontalHeaderLabels(["", *VERDICTS])
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        for r, (name, counts) in enumerate(self.rows):
            table.setItem(r, 0, QTableWidgetItem(name))
            for c, verdict in enumerate(VERDICTS, 1):
                n = counts.get(verdict, 0)
                item = QTableWidgetItem(f"{n:,}" if n else "")
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(r, c, item)
        self.table = table
        note = ""
        if len(racks) > MAX_RACKS:
            note = f"The first {MAX_RACKS} of {len(racks):,} racks with discrepancies."
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(head)
        layout.addWidget(table, 1)
        if note:
            layout.addWidget(QLabel(note))
        layout.addWidget(buttons)
        self.resize(760, min(620, 140 + 26 * len(self.rows)))


def _plane(plane: str) -> str:
    from workbench.asbuilt.report import UNPLANNED

    if plane == UNPLANNED:
        return "No plane (unexpected cables)"
    return f"{PLANE_TITLES.get(plane, plane.capitalize())} plane"


def _named(what: str, name: str) -> str:
    """``Row A`` for a row named ``A``; a row named ``Row A`` as it is."""
    return name if name.casefold().startswith(what.casefold()) else f"{what} {name}"


def install_asbuilt_import(window: QMainWindow, menu: QMenu) -> AsBuiltImport:
    """Add File ▸ Import ▸ As-built captures… to ``menu`` (the File menu; its Import
    submenu is found by object name ``importMenu`` or made above Quit)."""
    document: Document = window.document  # type: ignore[attr-defined]
    importer = AsBuiltImport(window, document)
    import_menu(window, menu).addAction(importer.action)
    window.asbuilt_import = importer  # type: ignore[attr-defined]
    return importer
