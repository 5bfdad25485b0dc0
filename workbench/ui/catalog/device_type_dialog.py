"""The dialog of File ▸ Import ▸ Device types: questions, diffs, and Import.

One page per file that needs the planner: the questions the file's evidence leaves
open (kind, role, GPU, GPU count, each with the evidence and the choices), and for a
file over an item the design or the catalog already holds, the field-by-field diff
with "keep what the file lacks" (the default) or "replace with the file alone".  Files
that need nothing are listed on the first page, with the files refused and why
(file:line).  Import stays disabled until every chosen file's questions are answered;
what it builds is :attr:`ImportDialog.built`, which
:mod:`workbench.ui.catalog.device_type_import` turns into one undoable edit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.catalog.classify import Decision
from workbench.catalog.design_import import Built, Candidate, build
from workbench.catalog.errors import CatalogError
from workbench.catalog.item import KINDS, CatalogItem
from workbench.catalog.merge import KEPT, REPLACED
from workbench.catalog.vocabulary import DEVICE_ROLES
from workbench.render import colors

#: GPU counts offered when the evidence names none.
GPU_COUNTS: tuple[int, ...] = (1, 2, 4, 8, 16)


def cell_text(value: Any) -> str:
    """A diff cell: "unknown" for no value, numbers without trailing zeros, long
    values cut (the table is for reading, ``--json`` on the command line has it all)."""
    if value is None:
        return "unknown"
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def choices(question: Decision, known: Mapping[str, CatalogItem]) -> list[Any]:
    """What a question offers: its best guess and candidates, likeliest first, else
    every value the field can take (kinds, roles, the GPUs of the design and the
    catalog, usual GPU counts)."""
    if question.candidates:
        return question.options()
    if question.field == "kind":
        return list(KINDS)
    if question.field == "role":
        return list(DEVICE_ROLES)
    if question.field == "gpu":
        return sorted(slug for slug, item in known.items() if item.kind == "gpu")
    return list(GPU_COUNTS)


class FilePage(QWidget):
    """One file's questions and diff; :meth:`built` gives its item (or why not)."""

    def __init__(self, candidate: Candidate, known: Mapping[str, CatalogItem], parent=None):
        super().__init__(parent)
        self.candidate, self.known = candidate, known
        layout = QVBoxLayout(self)
        head = QLabel(f"<b>{candidate.label}</b> ({candidate.slug})<br>{candidate.shown}")
        head.setTextFormat(Qt.TextFormat.RichText)
        head.setWordWrap(True)
        layout.addWidget(head)
        self.include = QCheckBox("Import this file")
        self.include.setObjectName("importInclude")
        self.include.setChecked(True)
        layout.addWidget(self.include)
        #: Question field → its choice box ("— choose —" first, data None).
        self.answers: dict[str, QComboBox] = {}
        questions = candidate.questions()
        if questions:
            form = QFormLayout()
            for question in questions:
                box = QComboBox()
                box.setObjectName(f"answer_{question.field}")
                box.addItem("— choose —", None)
                for value in choices(question, known):
                    box.addItem(str(value), value)
                why = QLabel(
                    f"best guess {question.value!r} ({question.confidence:.0%}): "
                    + "; ".join(question.evidence)
                )
                why.setWordWrap(True)
                why.setStyleSheet(f"color: {colors.TEXT_MUTED};")
                column = QVBoxLayout()
                column.addWidget(box)
                column.addWidget(why)
                form.addRow(question.field.replace("_", " ").capitalize(), column)
                self.answers[question.field] = box
            layout.addWidget(QLabel("The file does not say; choose:"))
            layout.addLayout(form)
        self.keep = QRadioButton("Keep the figures the file lacks (power, price, GPUs, sources)")
        self.keep.setObjectName("importKeep")
        self.replace = QRadioButton("Replace with the file alone")
        self.replace.setObjectName("importReplace")
        self.keep.setChecked(True)
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("importDiff")
        self.table.setHorizontalHeaderLabels(["Field", "Now", "From the file", "Result"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.status = QLabel()
        self.status.setWordWrap(True)
        if candidate.old is not None:
            where = candidate.old.source_file or "the design"
            layout.addWidget(QLabel(f"Over the existing {candidate.slug} ({where}):"))
            layout.addWidget(self.keep)
            layout.addWidget(self.replace)
            layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        for box in self.answers.values():
            box.currentIndexChanged.connect(self.refresh)
        self.keep.toggled.connect(self.refresh)
        self.include.toggled.connect(self.refresh)
        self.refresh()

    @property
    def needs_attention(self) -> bool:
        """True when the planner has something to answer or to see."""
        return bool(self.answers) or self.candidate.old is not None

    def answer_values(self) -> dict[str, Any]:
        return {field: box.currentData() for field, box in self.answers.items()}

    def built(self) -> Built | str:
        """The item with the answers and the keep/replace choice, or why it cannot be."""
        missing = [f for f, v in self.answer_values().items() if v is None]
        if missing:
            return f"{self.candidate.shown}: choose the {', '.join(missing)}"
        try:
            return build(self.candidate, self.answer_values(), self.known, self.replace.isChecked())
        except CatalogError as exc:
            return str(exc)

    def refresh(self) -> None:
        """Show the diff for the current answers and choice, and let the dialog update
        its Import button."""
        self._show(self.built() if self.include.isChecked() else "not imported")
        parent = self.parent()
        while parent is not None and not isinstance(parent, ImportDialog):
            parent = parent.parent()
        if parent is not None:
            parent.update_ok()

    def _show(self, result: Built | str) -> None:
        self.status.setText(result if isinstance(result, str) else "")
        self.table.setRowCount(0)
        if isinstance(result, str):
            return
        for row in result.changes:
            at = self.table.rowCount()
            self.table.insertRow(at)
            for column, text in enumerate((row.field, cell_text(row.old), cell_text(row.new))):
                self.table.setItem(at, column, QTableWidgetItem(text))
            action = QTableWidgetItem(row.action)
            if row.action == KEPT:
                action.setForeground(Qt.GlobalColor.darkGreen)
            elif row.action == REPLACED:
                action.setForeground(Qt.GlobalColor.darkRed)
            self.table.setItem(at, 3, action)
        self.table.resizeColumnsToContents()


class ImportDialog(QDialog):
    """Every file of one import: refused ones with their reason, a page per file that
    needs the planner, and Import."""

    def __init__(
        self,
        candidates: Sequence[Candidate],
        refused: Sequence[str],
        known: Mapping[str, CatalogItem],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.setObjectName("deviceTypeImportDialog")
        self.setWindowTitle("Import device types")
        #: What Import built, one per chosen file (filled on accept).
        self.built: list[Built] = []
        self.pages = [FilePage(c, known, self) for c in candidates]
        self.tabs = QTabWidget()
        summary = QLabel(self._summary(candidates, refused))
        summary.setObjectName("importSummary")
        summary.setWordWrap(True)
        summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tabs.addTab(summary, "Files")
        for page in self.pages:
            if page.needs_attention:
                mark = "?" if page.answers else "≠"
                self.tabs.addTab(page, f"{mark} {page.candidate.slug}")
            else:
                page.hide()  # nothing to ask: listed on the first page only
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.message = QLabel()
        self.message.setObjectName("importMessage")
        self.message.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        self.resize(720, 520)
        self.update_ok()

    @staticmethod
    def _summary(candidates: Sequence[Candidate], refused: Sequence[str]) -> str:
        lines = [f"{len(candidates)} file(s) read:"]
        for c in candidates:
            asks = ", ".join(q.field for q in c.questions())
            note = f" — asks: {asks}" if asks else ""
            note += f" — over the existing {c.slug}" if c.old is not None else ""
            lines.append(f"  {c.shown}: {c.label} as {c.found.kind.value}{note}")
        if refused:
            lines.append(f"{len(refused)} file(s) refused, nothing imported from them:")
            lines += [f"  {reason}" for reason in refused]
        return "\n".join(lines)

    def chosen(self) -> list[FilePage]:
        return [page for page in self.pages if page.include.isChecked()]

    def update_ok(self) -> None:
        """Import N, enabled when every chosen file builds; what stops the rest."""
        if getattr(self, "ok", None) is None:
            return  # a page refreshed while the dialog is still being built
        results = [page.built() for page in self.chosen()]
        problems = [r for r in results if isinstance(r, str)]
        ready = [r for r in results if not isinstance(r, str)]
        self.ok.setText(f"Import {len(ready)} device type(s)")
        self.ok.setEnabled(bool(ready) and not problems)
        self.message.setText("\n".join(problems))

    def accept(self) -> None:
        results = [page.built() for page in self.chosen()]
        if not results or any(isinstance(r, str) for r in results):
            self.update_ok()
            return
        self.built = [r for r in results if not isinstance(r, str)]
        super().accept()
