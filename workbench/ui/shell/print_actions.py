"""File ▸ Print Preview…, Print…, Export PDF… and Export SVG…: rack elevations on paper.

The pages come from :mod:`workbench.render.print_export`, the code behind
``workbench print``, and the racks on them from the painter that draws the rack view, so
paper matches the screen.  A small options dialog picks paper, orientation, rack or row
per page and which racks (all, the selected ones, or a name pattern).  Long jobs show a
progress dialog that can cancel; a cancelled or failed export leaves no file behind, and
a failure names the file and the problem in a message box.
"""

from __future__ import annotations

import copy
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtPrintSupport import QPrintDialog, QPrinter, QPrintPreviewDialog
from PySide6.QtWidgets import (
    QApplication,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressDialog,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from workbench.filenames import portable_stem
from workbench.model import Design
from workbench.render.print_export import (
    NothingToPrint,
    PrintCancelled,
    PrintFileError,
    count_pages,
    render_pages,
    write_pdf,
    write_svgs,
)
from workbench.render.print_layout import PAPER_SIZES, PrintOptions, matching_racks
from workbench.ui.shell.document import Document

#: Jobs with more pages than this show a progress dialog at once.
PROGRESS_AFTER_PAGES = 8


class PrintOptionsDialog(QDialog):
    """Paper, orientation, per page and which racks; shows the page count as it changes."""

    def __init__(self, document: Document, options: PrintOptions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Print options")
        self.setObjectName("printOptions")
        self.document = document
        self.selected_racks = matching_racks(document.design, document.selected)
        form = QFormLayout()
        self.paper = QComboBox()
        self.paper.setObjectName("printPaper")
        self.paper.addItems(list(PAPER_SIZES))
        self.paper.setCurrentText(options.paper)
        form.addRow("Paper", self.paper)
        self.orientation = QComboBox()
        self.orientation.setObjectName("printOrientation")
        self.orientation.addItems(["Portrait", "Landscape"])
        self.orientation.setCurrentIndex(1 if options.landscape else 0)
        form.addRow("Orientation", self.orientation)
        self.per_page = QComboBox()
        self.per_page.setObjectName("printPerPage")
        self.per_page.addItem("One rack per page (front and rear)", "rack")
        self.per_page.addItem("One row per page (fronts)", "row")
        self.per_page.setCurrentIndex(1 if options.per_page == "row" else 0)
        form.addRow("Per page", self.per_page)
        self.floor_plan = QCheckBox("A floor-plan page of the hall first")
        self.floor_plan.setObjectName("printFloorPlan")
        self.floor_plan.setChecked(options.floor_plan)
        form.addRow("Floor plan", self.floor_plan)

        self.all_racks = QRadioButton("All racks")
        count = len(self.selected_racks)
        self.selected = QRadioButton(
            f"Selected racks ({count})" if count else "Selected racks (none selected)"
        )
        self.selected.setEnabled(bool(count))
        self.by_name = QRadioButton("Racks named")
        self.pattern = QLineEdit(options.pattern or "")
        self.pattern.setObjectName("printPattern")
        self.pattern.setPlaceholderText("a pattern such as A* or A0[1-4]")
        self.which = QButtonGroup(self)
        for button in (self.all_racks, self.selected, self.by_name):
            self.which.addButton(button)
        if options.pattern:
            self.by_name.setChecked(True)
        elif options.rack_ids is not None and count:
            self.selected.setChecked(True)
        else:
            self.all_racks.setChecked(True)
        racks = QVBoxLayout()
        racks.setSpacing(4)
        racks.addWidget(self.all_racks)
        racks.addWidget(self.selected)
        racks.addWidget(self.by_name)
        racks.addWidget(self.pattern)
        form.addRow("Racks", racks)
        self.page_count = QLabel()
        self.page_count.setObjectName("printPageCount")
        form.addRow("", self.page_count)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)

        for combo in (self.paper, self.orientation, self.per_page):
            combo.currentIndexChanged.connect(self._update)
        self.floor_plan.toggled.connect(lambda _on: self._update())
        self.which.buttonToggled.connect(lambda *_: self._update())
        self.pattern.textEdited.connect(lambda _text: self._on_pattern_edited())
        self._update()

    def _on_pattern_edited(self) -> None:
        self.by_name.setChecked(True)
        self._update()

    def options(self) -> PrintOptions:
        """The options as the dialog shows them."""
        pattern = self.pattern.text().strip() if self.by_name.isChecked() else ""
        return PrintOptions(
            paper=self.paper.currentText(),
            landscape=self.orientation.currentIndex() == 1,
            per_page=str(self.per_page.currentData()),
            pattern=pattern or None,
            rack_ids=self.selected_racks if self.selected.isChecked() else None,
            floor_plan=self.floor_plan.isChecked(),
        )

    def _update(self) -> None:
        pages = count_pages(self.document.design, self.options())
        self.page_count.setText(
            "No rack matches: nothing to print."
            if not pages
            else f"{pages:,} page{'s' if pages != 1 else ''}"
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if ok is not None:
            ok.setEnabled(pages > 0)


class PrintActions(QObject):
    """Owns the window's print and export actions."""

    def __init__(self, window: QMainWindow, document: Document):
        super().__init__(window)
        self.window = window
        self.document = document
        #: The last options chosen (the dialog starts from them).
        self.options = PrintOptions()
        #: The text of the last error box (tests read it).
        self.last_error: str | None = None
        self.preview_action = self._action(
            "Print Pre&view…", None, self.print_preview, "Preview the rack elevations"
        )
        self.print_action = self._action(
            "&Print…", QKeySequence.StandardKey.Print, self.print_, "Print the rack elevations"
        )
        self.export_pdf_action = self._action(
            "Export P&DF…", None, self.export_pdf, "Write the rack elevations to a PDF file"
        )
        self.export_svg_action = self._action(
            "Export S&VG…", None, self.export_svg, "Write one SVG file per page to a folder"
        )

    def _action(self, text: str, shortcut, slot, tip: str) -> QAction:
        action = QAction(text, self.window)
        if shortcut is not None:
            action.setShortcuts(shortcut)
        action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    @property
    def actions(self) -> list[QAction]:
        return [
            self.preview_action,
            self.print_action,
            self.export_pdf_action,
            self.export_svg_action,
        ]

    def add_to_menu(self, menu: QMenu, before: QAction | None = None) -> None:
        """Put the actions into ``menu`` as one group, above ``before`` (Quit)."""
        if before is None:
            menu.addSeparator()
            menu.addActions(self.actions)
            return
        menu.insertActions(before, self.actions)
        menu.insertSeparator(before)

    # -- dialogs (small methods so tests can replace them) -----------------------------
    def ask_options(self, title: str) -> PrintOptions | None:
        dialog = PrintOptionsDialog(self.document, self.options, self.window)
        dialog.setWindowTitle(title)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        self.options = dialog.options()
        return self.options

    def _error(self, title: str, text: str) -> None:
        self.last_error = text
        QMessageBox.critical(self.window, title, text)

    def _status(self, text: str) -> None:
        self.window.statusBar().showMessage(text, 8000)

    def _design(self, options: PrintOptions) -> Design:
        """The design to print: for a floor-plan page, racks the plan has not placed yet
        (it is laid out when first shown) are placed on a copy, as the plan would."""
        design = self.document.design
        if options.floor_plan and any(
            r.floor_x_mm is None or r.floor_y_mm is None for r in design.iter_racks()
        ):
            from workbench.model.floor import lay_out

            design = copy.deepcopy(design)
            lay_out(design)
        return design

    def _default_path(self, suffix: str) -> str:
        stem = portable_stem(self.document.design.name, "racks")
        folder = self.document.path.parent if self.document.path is not None else Path.home()
        return str(folder / f"{stem}-racks{suffix}")

    def _progress(self, title: str):
        """A cancellable progress callback for a job, and the dialog behind it."""
        dialog = QProgressDialog(title, "Cancel", 0, 1, self.window)
        dialog.setWindowTitle(title)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(400)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)

        def progress(done: int, total: int) -> bool:
            if dialog.maximum() != total:
                dialog.setMaximum(total)
                if total > PROGRESS_AFTER_PAGES:
                    dialog.show()
            dialog.setValue(done)
            dialog.setLabelText(f"{title}: page {done:,} of {total:,}")
            QApplication.processEvents()
            return not dialog.wasCanceled()

        return progress, dialog

    # -- the actions ---------------------------------------------------------------------
    def export_pdf(self) -> Path | None:
        """Options, a file name, then the PDF (atomically); returns the file written."""
        options = self.ask_options("Export PDF")
        if options is None:
            return None
        name, _filter = QFileDialog.getSaveFileName(
            self.window, "Export PDF", self._default_path(".pdf"), "PDF files (*.pdf)"
        )
        if not name:
            return None
        path = Path(name if name.lower().endswith(".pdf") else name + ".pdf")
        progress, dialog = self._progress("Exporting PDF")
        try:
            pages = write_pdf(path, self._design(options), options, progress)
        except PrintCancelled:
            self._status("Export cancelled: no file was written.")
            return None
        except (PrintFileError, NothingToPrint, OSError) as exc:
            self._error("Export PDF", _message(path, exc))
            return None
        finally:
            dialog.close()
        self._status(f"Wrote {path.name}: {pages:,} page{'s' if pages != 1 else ''}.")
        return path

    def export_svg(self) -> list[Path]:
        """Options, a folder, then one SVG per page; returns the files written."""
        options = self.ask_options("Export SVG")
        if options is None:
            return []
        start = str(Path(self._default_path("")).parent)
        folder = QFileDialog.getExistingDirectory(self.window, "Export SVG to folder", start)
        if not folder:
            return []
        progress, dialog = self._progress("Exporting SVG")
        try:
            files = write_svgs(Path(folder), self._design(options), options, progress)
        except PrintCancelled:
            self._status("Export cancelled: no file was written.")
            return []
        except (PrintFileError, NothingToPrint, OSError) as exc:
            self._error("Export SVG", _message(Path(folder), exc))
            return []
        finally:
            dialog.close()
        self._status(f"Wrote {len(files):,} SVG page{'s' if len(files) != 1 else ''} to {folder}.")
        return files

    def _printer(self, options: PrintOptions) -> QPrinter:
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setPageLayout(options.page_layout())
        printer.setDocName(f"{self.document.design.name}: rack elevations")
        return printer

    def _render(self, printer: QPrinter, options: PrintOptions, title: str) -> bool:
        progress, dialog = self._progress(title)
        try:
            render_pages(printer, self._design(options), options, progress, apply_layout=False)
        except PrintCancelled:
            self._status(f"{title} cancelled.")
            return False
        except (NothingToPrint, OSError) as exc:
            self._error(title, str(exc))
            return False
        finally:
            dialog.close()
        return True

    def print_preview(self) -> None:
        options = self.ask_options("Print Preview")
        if options is None:
            return
        printer = self._printer(options)
        preview = QPrintPreviewDialog(printer, self.window)
        preview.setWindowTitle("Print Preview")
        preview.paintRequested.connect(lambda p: self._render(p, options, "Preview"))
        preview.resize(1000, 800)
        preview.exec()

    def print_(self) -> None:
        options = self.ask_options("Print")
        if options is None:
            return
        printer = self._printer(options)
        dialog = QPrintDialog(printer, self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        if self._render(printer, options, "Printing"):
            self._status("Sent the rack elevations to the printer.")


def _message(path: Path, exc: Exception) -> str:
    """One line that names the file and the problem."""
    if isinstance(exc, PrintFileError):
        return str(exc)
    if isinstance(exc, NothingToPrint):
        return f"{path}: nothing to print: {exc}"
    return f"{path}: cannot write: {exc}"
