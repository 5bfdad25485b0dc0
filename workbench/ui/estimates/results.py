"""The results panel and the explain dialog.

Every figure is one grid row: what it is, its value with the unit, and an "explain"
link that opens the calculator's own :class:`~workbench.calc.explain.Explained` text
(formula, the same formula with the numbers substituted, and its source).  The panel
holds no arithmetic: it prints what :mod:`workbench.ui.estimates.estimate` gathered from
the calculators.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.explain import Explained, num
from workbench.ui.estimates.estimate import DEFAULT_NODES_PER_SU, Estimate, Figure

_ERROR_STYLE = "border: 1px solid #c62828; background: #fdecea;"
_LINK_STYLE = (
    "QToolButton { color: #1565c0; text-decoration: underline; border: none; "
    "padding: 0 2px; } QToolButton:hover { color: #0d47a1; }"
)


class ExplainButton(QToolButton):
    """A small link-looking "explain" button that reports its figure key when clicked."""

    explain = Signal(str)

    def __init__(self, key: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.key = key
        self.setText("explain")
        self.setObjectName(f"explain_{key}")
        self.setAutoRaise(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setStyleSheet(_LINK_STYLE)
        self.setToolTip("Show the formula with the numbers substituted")
        self.clicked.connect(lambda: self.explain.emit(self.key))


class ResultsPanel(QGroupBox):
    """Live figures of the selected workload, each with an explain link."""

    explainRequested = Signal(str)
    deadlineChanged = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__("Results", parent)
        self.value_labels: dict[str, QLabel] = {}
        self.links: dict[str, ExplainButton] = {}
        self._rows: list[QWidget] = []
        #: (key, label, has explain) of the rows shown: same shape, only texts change.
        self._shape: tuple | None = None

        self.grid = QGridLayout()
        self.grid.setColumnStretch(1, 1)
        self.grid.setHorizontalSpacing(12)
        self.verdict = QLabel()
        self.verdict.setObjectName("memoryVerdict")
        self.verdict.setWordWrap(True)

        deadline_box = QGroupBox("How many GPUs to finish in N days?")
        self.deadline_edit = QLineEdit("30")
        self.deadline_edit.setObjectName("deadlineDays")
        self.deadline_edit.setMaximumWidth(80)
        self.deadline_edit.editingFinished.connect(self.deadlineChanged)
        self.su_edit = QLineEdit(str(DEFAULT_NODES_PER_SU))
        self.su_edit.setObjectName("nodesPerSu")
        self.su_edit.setMaximumWidth(60)
        self.su_edit.setToolTip(
            "Nodes per scalable unit; the answer rounds up to whole SUs "
            "(DGX SuperPOD: 32). 1 means no SU rounding."
        )
        self.su_edit.editingFinished.connect(self.deadlineChanged)
        self.deadline_answer = QLabel("—")
        self.deadline_answer.setObjectName("deadlineAnswer")
        self.deadline_answer.setWordWrap(True)
        self.deadline_answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.deadline_link = ExplainButton("deadline")
        self.deadline_link.explain.connect(self.explainRequested)
        row = QHBoxLayout()
        row.addWidget(QLabel("Deadline (days)"))
        row.addWidget(self.deadline_edit)
        row.addSpacing(12)
        row.addWidget(QLabel("SU (nodes)"))
        row.addWidget(self.su_edit)
        row.addStretch(1)
        row.addWidget(self.deadline_link)
        deadline_layout = QVBoxLayout(deadline_box)
        deadline_layout.addLayout(row)
        deadline_layout.addWidget(self.deadline_answer)
        self.deadline_box = deadline_box

        self.notes = QLabel()
        self.notes.setObjectName("resultNotes")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #8a6d00;")
        self.notes.hide()
        self.empty = QLabel("Add or select a workload to see its estimates.")
        self.empty.setStyleSheet("color: #666;")
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty)
        layout.addLayout(self.grid)
        layout.addWidget(self.verdict)
        layout.addWidget(self.notes)
        layout.addWidget(deadline_box)

    def deadline_text(self) -> str:
        """What the user typed as the deadline in days."""
        return self.deadline_edit.text()

    def su_text(self) -> str:
        """What the user typed as nodes per scalable unit."""
        return self.su_edit.text()

    def set_estimate(self, estimate: Estimate | None) -> None:
        """Show ``estimate`` (None: nothing selected).

        When the rows are the same as shown (the usual case: a typed MFU moves the
        values, not which figures there are) only the texts change, so nothing is laid
        out again and the plots beside the panel are not repainted.
        """
        shape = (
            None
            if estimate is None
            else tuple((f.key, f.label, f.explained is not None) for f in estimate.figures)
        )
        if estimate is not None and shape == self._shape:
            for figure in estimate.figures:
                self.value_labels[figure.key].setText(figure.text)
            self._show_rest(estimate)
            return
        self._shape = shape
        for widget in self._rows:
            self.grid.removeWidget(widget)
            widget.hide()  # now, not at the deferred delete: old values must not show through
            widget.deleteLater()
        self._rows.clear()
        self.value_labels.clear()
        self.links.clear()
        self.empty.setVisible(estimate is None)
        self.deadline_box.setVisible(estimate is not None and estimate.kind == "training")
        if estimate is None:
            self.verdict.clear()
            self.verdict.hide()
            self.notes.hide()
            return
        for row, figure in enumerate(estimate.figures):
            self._add_row(row, figure)
        self._show_rest(estimate)

    def _show_rest(self, estimate: Estimate) -> None:
        """Notes, the memory verdict and the deadline answer of ``estimate``."""
        self.notes.setText("\n".join(f"Note: {w}" for w in estimate.warnings))
        self.notes.setVisible(bool(estimate.warnings))
        self._show_verdict(estimate)
        self.deadline_answer.setText(estimate.deadline_text)
        self.deadline_answer.setStyleSheet("color: #c62828;" if estimate.deadline_error else "")
        for name, edit in (("deadline_days", self.deadline_edit), ("nodes_per_su", self.su_edit)):
            edit.setStyleSheet(_ERROR_STYLE if estimate.deadline_field == name else "")
        self.deadline_link.setVisible(estimate.deadline is not None)

    def _add_row(self, row: int, figure: Figure) -> None:
        name = QLabel(figure.label)
        value = QLabel(figure.text)
        value.setObjectName(f"value_{figure.key}")
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        font = value.font()
        font.setBold(True)
        value.setFont(font)
        self.grid.addWidget(name, row, 0)
        self.grid.addWidget(value, row, 1)
        widgets: list[QWidget] = [name, value]
        if figure.explained is not None:
            link = ExplainButton(figure.key)
            link.explain.connect(self.explainRequested)
            self.grid.addWidget(link, row, 2)
            self.links[figure.key] = link
            widgets.append(link)
        self.value_labels[figure.key] = value
        self._rows.extend(widgets)

    def _show_verdict(self, estimate: Estimate) -> None:
        if estimate.fits is None:
            self.verdict.clear()
            self.verdict.hide()
            return
        self.verdict.show()
        if estimate.fits:
            self.verdict.setText(f"✔ Fits: {estimate.fit_text}")
            self.verdict.setStyleSheet("color: #2e7d32; font-weight: bold;")
        else:
            self.verdict.setText(f"✘ Does not fit: {estimate.fit_text}")
            self.verdict.setStyleSheet("color: #c62828; font-weight: bold;")


class ExplainDialog(QDialog):
    """Shows one Explained figure: formula, substituted numbers, result and source."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Explain")
        self.setModal(False)
        self.resize(720, 420)
        self.key: str | None = None
        self.title = QLabel()
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title.setFont(font)
        self.body = QPlainTextEdit()
        self.body.setObjectName("explainText")
        self.body.setReadOnly(True)
        self.body.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.body)
        layout.addWidget(buttons)

    def show_figure(
        self,
        key: str,
        label: str,
        explained: Explained | None,
        parts: tuple[tuple[str, Explained], ...] = (),
    ) -> None:
        """Fill the dialog; a figure without explanation says so (never blank).

        ``parts`` are the terms the figure sums (the step time's five), each shown
        below it with its own formula, numbers and source."""
        self.key = key
        self.title.setText(label)
        if explained is None:
            self.body.setPlainText("This figure cannot be computed from the current inputs.")
            return
        lines = [
            "Formula:",
            f"    {explained.formula}",
            "",
            "With the numbers substituted:",
            f"    = {explained.substituted}",
            f"    = {num(explained.value)} {explained.unit}".rstrip(),
            "",
            "In one line:",
            f"    {explained.text()}",
        ]
        if explained.source:
            lines += ["", "Source:", f"    {explained.source}"]
        for name, part in parts:
            lines += [
                "",
                f"── {name}: {num(part.value)} {part.unit}".rstrip(),
                f"    {part.formula}",
                f"    = {part.substituted}",
            ]
            if part.source:
                lines.append(f"    Source: {part.source}")
        self.body.setPlainText("\n".join(lines))

    def text(self) -> str:
        """Everything the dialog shows, for tests and copy-paste."""
        return f"{self.title.text()}\n{self.body.toPlainText()}"
