"""The baseline editor: pick a stack, edit its layers, save the next revision, assign it.

A revision is never edited in place (history is never overwritten): the table shows
the current revision, edits stay pending in the table until "Save Revision" records
them as revision N+1, one undo step.  Before saving, the editor says which layers the
revision changes and warns, citing the domain brief, when it is more than one: the
one-layer-at-a-time rule (VERSION-ONE-LAYER) would flag it anyway, but the moment to
hear it is before the change.
"""

from __future__ import annotations

from datetime import datetime, timezone

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.model.version_ops import (
    AddAssignment,
    AddBaseline,
    AddRevision,
    RenameBaseline,
    layers_changed,
)
from workbench.model.versions import LAYERS, Assignment, Baseline, BaselineRevision
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document
from workbench.ui.versions.version_import import login_name


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class BaselineEditor(QWidget):
    """See the module docstring.  Reads the design on :meth:`reload`, never caches it."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self._loading = False
        self.choice = QComboBox()
        self.choice.currentIndexChanged.connect(self._show_current)
        self.new_button = QPushButton("New…")
        self.new_button.clicked.connect(self.new_baseline)
        self.rename_button = QPushButton("Rename…")
        self.rename_button.clicked.connect(self.rename_baseline)
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>Baseline</b>"))
        head.addWidget(self.choice, 1)
        head.addWidget(self.new_button)
        head.addWidget(self.rename_button)

        self.table = QTableWidget(len(LAYERS), 2)
        self.table.setHorizontalHeaderLabels(["Layer", "Version"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents
        )
        self.table.horizontalHeader().setStretchLastSection(True)
        for row, (_key, label) in enumerate(LAYERS):
            item = QTableWidgetItem(label)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(row, 0, item)
            self.table.setItem(row, 1, QTableWidgetItem(""))
        self.table.itemChanged.connect(self._on_edited)

        self.note = QLineEdit(placeholderText="Why this revision (kept in its history)")
        self.pending = QLabel()
        self.pending.setWordWrap(True)
        self.save_button = QPushButton("Save Revision")
        self.save_button.clicked.connect(self.save_revision)
        self.pattern = QLineEdit("*", placeholderText="Node names, e.g. gpu-su01-*")
        self.assign_button = QPushButton("Assign")
        self.assign_button.setToolTip("The baseline governs GPU nodes whose names match")
        self.assign_button.clicked.connect(self.assign)
        self.history = QLabel()
        self.history.setWordWrap(True)
        self.history.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        save_row = QHBoxLayout()
        save_row.addWidget(self.note, 1)
        save_row.addWidget(self.save_button)
        assign_row = QHBoxLayout()
        assign_row.addWidget(QLabel("Nodes"))
        assign_row.addWidget(self.pattern, 1)
        assign_row.addWidget(self.assign_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.pending)
        layout.addLayout(save_row)
        layout.addLayout(assign_row)
        layout.addWidget(self.history)

    # -- reading the model -----------------------------------------------------------------
    def _cell(self, row: int) -> QTableWidgetItem:
        cell = self.table.item(row, 1)
        assert cell is not None  # every row was given its item in __init__
        return cell

    def baseline(self) -> Baseline | None:
        return self.document.design.versions.baseline(self.choice.currentData() or "")

    def reload(self) -> None:
        """Refill from the design, keeping the chosen baseline when it still exists."""
        keep = self.choice.currentData()
        self._loading = True
        self.choice.clear()
        for b in self.document.design.versions.baselines:
            self.choice.addItem(b.name, b.id)
        at = self.choice.findData(keep)
        self.choice.setCurrentIndex(at if at >= 0 else 0)
        self._loading = False
        self._show_current()

    def _show_current(self) -> None:
        baseline = self.baseline()
        current = baseline.current if baseline else None
        versions = current.versions if current else {}
        self._loading = True
        for row, (key, _label) in enumerate(LAYERS):
            cell = self._cell(row)
            cell.setText(versions.get(key, ""))
            cell.setFlags(
                cell.flags() | Qt.ItemFlag.ItemIsEditable
                if baseline
                else cell.flags() & ~Qt.ItemFlag.ItemIsEditable
            )
        self._loading = False
        for widget in (self.save_button, self.assign_button, self.rename_button, self.note):
            widget.setEnabled(baseline is not None)
        self._show_history(baseline)
        self._on_edited()

    def _show_history(self, baseline: Baseline | None) -> None:
        if baseline is None:
            self.history.setText("No baseline yet: New… starts one.")
            return
        lines = []
        previous = None
        for rev in baseline.revisions[-6:]:
            changed = ", ".join(layers_changed(previous, rev)) if previous else "first"
            who = f" by {rev.author}" if rev.author else ""
            note = f": {rev.note}" if rev.note else ""
            lines.append(f"r{rev.revision} {rev.created[:10]}{who} ({changed}){note}")
            previous = rev
        matrix = self.document.design.versions
        patterns = [a.pattern for a in matrix.assignments if a.baseline_id == baseline.id]
        lines.append("Assigned to: " + (", ".join(patterns) if patterns else "no nodes yet"))
        self.history.setText("\n".join(lines))

    def edited_versions(self) -> dict[str, str]:
        out = {}
        for row, (key, _label) in enumerate(LAYERS):
            text = self._cell(row).text().strip()
            if text:
                out[key] = text
        return out

    def _on_edited(self, *_args: object) -> None:
        if self._loading:
            return
        baseline = self.baseline()
        if baseline is None:
            self.pending.setText("")
            return
        candidate = BaselineRevision(0, self.edited_versions())
        changed = layers_changed(baseline.current, candidate)
        if not changed:
            self.pending.setText("No pending change.")
        elif len(changed) > 1 and baseline.current is not None:
            self.pending.setText(
                f"<span style='color:#b35900'>Changes {', '.join(changed)} at once: the "
                "one-layer-at-a-time rule (domain brief §6) asks for one layer per revision, "
                "with acceptance re-run between.</span>"
            )
        else:
            self.pending.setText(f"Pending: {', '.join(changed)}.")
        self.save_button.setEnabled(bool(changed))

    # -- edits: each one undo step -------------------------------------------------------
    def new_baseline(self) -> None:
        name, ok = QInputDialog.getText(self, "New Baseline", "Name of the stack:")
        if ok:
            self.add_baseline(name)

    def add_baseline(self, name: str) -> None:
        matrix = self.document.design.versions
        baseline_id = matrix.new_id("bl")
        self.document.push(
            EditCommand(self.document, AddBaseline(Baseline(baseline_id, name)), "New baseline")
        )
        self.reload()
        at = self.choice.findData(baseline_id)
        if at >= 0:
            self.choice.setCurrentIndex(at)

    def rename_baseline(self) -> None:
        baseline = self.baseline()
        if baseline is None:
            return
        name, ok = QInputDialog.getText(self, "Rename Baseline", "Name:", text=baseline.name)
        if ok:
            op = RenameBaseline(baseline.id, name)
            self.document.push(EditCommand(self.document, op, "Rename baseline"))

    def save_revision(self) -> None:
        baseline = self.baseline()
        if baseline is None:
            return
        number = 1 if baseline.current is None else baseline.current.revision + 1
        revision = BaselineRevision(
            number, self.edited_versions(), self.note.text().strip(), login_name(), _now()
        )
        op = AddRevision(baseline.id, revision)
        self.document.push(EditCommand(self.document, op, f"Baseline revision {number}"))
        self.note.clear()

    def assign(self) -> None:
        baseline = self.baseline()
        if baseline is None:
            return
        matrix = self.document.design.versions
        op = AddAssignment(
            Assignment(matrix.new_id("as"), baseline.id, self.pattern.text().strip())
        )
        self.document.push(EditCommand(self.document, op, "Assign baseline"))
