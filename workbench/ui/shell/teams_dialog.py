"""Edit ▸ Teams…: the teams sharing the cluster, edited in the window.

Each button makes the model's own edit (:mod:`workbench.model.team_ops`, the one
``workbench teams`` makes from the command line) as one undoable command; a refused
value is said under the form and changes nothing.  The table follows the document, so
undo and redo show at once.  The Slurm and Kubernetes exports read these teams.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.model import Team
from workbench.model.errors import EditError
from workbench.model.ops import Op
from workbench.model.team_ops import (
    MAX_PRIORITY,
    AddTeam,
    RemoveTeam,
    SetTeamFields,
    check_team,
    new_team_id,
)
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document


def limit_text(team: Team) -> str:
    """``64 GPUs`` or ``25 % of the GPUs``."""
    if team.gpus is not None:
        return f"{team.gpus:,} GPUs"
    return f"{(team.share or 0) * 100:g} % of the GPUs"


class TeamsDialog(QDialog):
    """The teams table and a form to add, change or remove one."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.setWindowTitle("Teams")
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Team", "GPU limit", "Priority"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._load_selected)
        self.name = QLineEdit()
        self.name.setPlaceholderText("e.g. llm-pretrain (a Kubernetes namespace)")
        self.kind = QComboBox()
        self.kind.addItem("GPUs", "gpus")
        self.kind.addItem("% of the GPUs", "share")
        self.amount = QDoubleSpinBox()
        self.amount.setRange(0, 10_000_000)
        self.amount.setDecimals(1)
        self.amount.setValue(8)
        self.priority = QSpinBox()
        self.priority.setRange(0, MAX_PRIORITY)
        self.priority.setValue(1)
        limit = QHBoxLayout()
        limit.addWidget(self.amount)
        limit.addWidget(self.kind)
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Limit", limit)
        form.addRow("Priority", self.priority)
        self.add_button = QPushButton("Add")
        self.apply_button = QPushButton("Apply to Selected")
        self.remove_button = QPushButton("Remove Selected")
        self.add_button.clicked.connect(self.add)
        self.apply_button.clicked.connect(self.apply_selected)
        self.remove_button.clicked.connect(self.remove_selected)
        buttons = QHBoxLayout()
        for button in (self.add_button, self.apply_button, self.remove_button):
            buttons.addWidget(button)
        self.message = QLabel(
            "The Slurm and Kubernetes exports give each team a QOS and account, a "
            "namespace, a GPU quota and a priority class."
        )
        self.message.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        document.changed.connect(self._on_changed)
        document.designReplaced.connect(self.refresh)
        document.editRefused.connect(self.refused)
        self.resize(520, 420)
        self.refresh()

    # -- showing ----------------------------------------------------------------------------
    def _on_changed(self, _change: object) -> None:
        """A bound slot, not a lambda, so the document's signal does not keep the dialog
        (and the document with it) alive once it is closed."""
        self.refresh()

    def refresh(self) -> None:
        """Fill the table from the design (after any edit, undo or redo)."""
        teams = self.document.design.teams
        selected = self.selected_id()
        self.table.blockSignals(True)
        try:
            self.table.setRowCount(len(teams))
            for row, team in enumerate(teams):
                for column, text in enumerate((team.name, limit_text(team), f"{team.priority:,}")):
                    self.table.setItem(row, column, QTableWidgetItem(text))
                if team.id == selected:
                    self.table.selectRow(row)
        finally:
            self.table.blockSignals(False)
        self.table.resizeColumnsToContents()
        has = self.selected_id() is not None
        self.apply_button.setEnabled(has)
        self.remove_button.setEnabled(has)

    def selected_id(self) -> str | None:
        rows = {i.row() for i in self.table.selectedItems()}
        teams = self.document.design.teams
        if len(rows) != 1:
            return None
        row = rows.pop()
        return teams[row].id if row < len(teams) else None

    def rows(self) -> list[list[str]]:
        """The table's text (for tests)."""
        out = []
        for r in range(self.table.rowCount()):
            cells = (self.table.item(r, c) for c in range(3))
            out.append([cell.text() if cell is not None else "" for cell in cells])
        return out

    def _load_selected(self) -> None:
        team_id = self.selected_id()
        self.apply_button.setEnabled(team_id is not None)
        self.remove_button.setEnabled(team_id is not None)
        team = next((t for t in self.document.design.teams if t.id == team_id), None)
        if team is None:
            return
        self.name.setText(team.name)
        if team.gpus is not None:
            self.kind.setCurrentIndex(0)
            self.amount.setValue(team.gpus)
        else:
            self.kind.setCurrentIndex(1)
            self.amount.setValue((team.share or 0) * 100)
        self.priority.setValue(team.priority)

    # -- editing ----------------------------------------------------------------------------
    def _form(self) -> tuple[str, int | None, float | None, int]:
        amount = self.amount.value()
        if self.kind.currentData() == "gpus":
            return self.name.text().strip(), int(round(amount)), None, self.priority.value()
        return self.name.text().strip(), None, amount / 100, self.priority.value()

    def _push(self, op: Op, text: str) -> bool:
        """One undoable command; a refusal (the model's message) is shown under the
        form by :meth:`refused` and leaves nothing on the stack."""
        stack = self.document.undo_stack
        before = stack.index()
        self.document.push(EditCommand(self.document, op, text))
        done = stack.index() > before
        if done:
            self.message.setText(text)
        return done

    def refused(self, message: str) -> None:
        self.message.setText(message)

    def add(self) -> bool:
        name, gpus, share, priority = self._form()
        team = Team(new_team_id(self.document.design), name, gpus, share, priority)
        try:
            check_team(team)
        except EditError as exc:
            self.message.setText(str(exc))
            return False
        return self._push(AddTeam(team), f"Add team {name}")

    def apply_selected(self) -> bool:
        team_id = self.selected_id()
        if team_id is None:
            return False
        name, gpus, share, priority = self._form()
        values = (("name", name), ("gpus", gpus), ("share", share), ("priority", priority))
        return self._push(SetTeamFields(team_id, values), f"Change team {name}")

    def remove_selected(self) -> bool:
        team_id = self.selected_id()
        if team_id is None:
            return False
        team = next(t for t in self.document.design.teams if t.id == team_id)
        return self._push(RemoveTeam(team_id), f"Remove team {team.name}")
