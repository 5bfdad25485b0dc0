"""Auto layout: propose the fastest TP / PP / recompute / ZeRO split that fits, and show
the alternatives the search weighed.

The search itself is :func:`workbench.calc.layout_search.auto_layout`; this module only
gathers its inputs the way the estimate does (the GPU, its usable HBM, the design's node
and fabric figures from :mod:`workbench.calc.training_estimate`), turns the chosen
layout into Workload fields, and shows the choice in a small dialog.  It reads the
hardware afresh rather than from the workload's result, because a job whose current
layout cannot run (TP 3 on 8-GPU nodes) has no predicted step, and that is just when a
planner reaches for "Auto layout…".
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.layout_proposal import Proposal
from workbench.calc.layout_search import Candidate


def describe(candidate: Candidate) -> str:
    """``TP 8 · PP 4 × 2 · DP 32, micro-batch 1, selective recompute, ZeRO 1``."""
    lay = candidate.layout
    chunks = f" × {lay.virtual_stages}" if lay.virtual_stages > 1 else ""
    recompute = "no" if lay.recompute == "none" else lay.recompute
    return (
        f"TP {lay.tp} · PP {lay.pp}{chunks} · DP {lay.dp:,}, micro-batch {lay.micro_batch}, "
        f"{recompute} recompute, ZeRO {lay.zero}"
    )


_COLUMNS = ("Layout", "Step time", "MFU", "Memory / GPU", "Why")


class AutoLayoutDialog(QDialog):
    """The search's answer: the fastest layout that fits, then the alternatives.

    "Apply" emits ``applyRequested`` with the selected fitting candidate (the fastest
    unless another fitting row is selected); rows that do not fit cannot be applied.
    """

    applyRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Auto layout")
        self.setModal(False)
        self.resize(860, 330)
        self.proposal: Proposal | None = None
        self.candidates: list[Candidate] = []
        self.summary = QLabel()
        self.summary.setObjectName("autoLayoutSummary")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, len(_COLUMNS))
        self.table.setObjectName("autoLayoutTable")
        self.table.setHorizontalHeaderLabels(_COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for column in range(len(_COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(_COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._selection_moved)
        self.table.itemDoubleClicked.connect(lambda _item: self._apply())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.apply_button = QPushButton("Apply layout")
        self.apply_button.setObjectName("applyLayout")
        self.apply_button.setDefault(True)
        buttons.addButton(self.apply_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.apply_button.clicked.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def show_proposal(self, proposal: Proposal) -> None:
        """Fill the table: the best first (selected), then the alternatives."""
        self.proposal = proposal
        self.summary.setText(proposal.summary)
        choice = proposal.choice
        rows: list[Candidate] = []
        if choice is not None:
            rows = ([choice.best] if choice.best is not None else []) + list(choice.alternatives)
        self.candidates = rows
        self.table.setRowCount(len(rows))
        for row, candidate in enumerate(rows):
            step = candidate.prediction
            usable = candidate.memory.usable_bytes
            memory_text = f"{candidate.memory.total_bytes / 1e9:.1f} GB"
            if usable:
                memory_text += f" of {usable / 1e9:.1f}"
            cells = (
                describe(candidate),
                "—" if step is None else f"{step.step_time_s:.3g} s",
                "—" if step is None else f"{step.mfu * 100:.1f} %",
                memory_text,
                candidate.reason.split(":", 1)[0],
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(candidate.reason)
                if column in (1, 2, 3):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if row == 0 and choice is not None and choice.best is candidate:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                if step is None:
                    item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(row, column, item)
        if rows:
            self.table.selectRow(0)
        self._selection_moved()

    def selected(self) -> Candidate | None:
        """The selected row's candidate when it fits (has a prediction), else None."""
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        candidate = self.candidates[rows[0].row()]
        return candidate if candidate.prediction is not None else None

    def _selection_moved(self) -> None:
        self.apply_button.setEnabled(self.selected() is not None)

    def _apply(self) -> None:
        candidate = self.selected()
        if candidate is None:
            return
        self.applyRequested.emit(candidate)
        self.accept()
