"""The scenario wizard dialog: tick other node types, coolings, compute switches or
topologies, and one variant is made per combination.

The dialog only chooses: it lists the files the choices will make (planned with the
Qt-free :func:`workbench.templates.variants.plan_variants`, the same as ``workbench
scenario``) and refuses a plan that the planning refuses (nothing ticked, more than
:data:`~workbench.templates.variants.MAX_VARIANTS`), with the reason, before anything is
built.  Making, saving and listing what the rules find on each variant is the caller's
(:class:`workbench.ui.scenarios.actions.ScenarioActions`), under a progress dialog.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.catalog.item import is_compute_switch, is_gpu_server
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.design import Design
from workbench.templates.builder import TemplateError
from workbench.templates.variants import (
    MAX_VARIANTS,
    TOPOLOGIES,
    VariantChoices,
    VariantRequest,
    plan_variants,
    variant_paths,
)


class ScenarioWizard(QDialog):
    """Ticks for each building block; ``requests()`` is the plan they make."""

    def __init__(
        self,
        catalog,  # noqa: ANN001
        design: Design,
        path: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("New Scenario Variants")
        self.catalog = catalog
        self.design = design
        self.path = path
        items = list(catalog or ())
        self.node = self._ticks(sorted(i.slug for i in items if is_gpu_server(i)))
        self.cooling = self._ticks(sorted(COOLING_TYPES))
        self.switch = self._ticks(sorted(i.slug for i in items if is_compute_switch(i)))
        self.topology = self._ticks(sorted(TOPOLOGIES))
        grid = QGridLayout()
        for column, (title, box) in enumerate(
            (
                ("GPU node types", self.node),
                ("Cooling", self.cooling),
                ("Compute switches", self.switch),
                ("Topologies", self.topology),
            )
        ):
            grid.addWidget(QLabel(title), 0, column)
            grid.addWidget(box, 1, column)
        hint = QLabel(
            "Tick what to try; one variant is made per combination (at most "
            f"{MAX_VARIANTS}). What you leave unticked stays as in the design."
        )
        hint.setWordWrap(True)
        #: The files the ticks will make, or why they make none.
        self.plan = QPlainTextEdit()
        self.plan.setObjectName("variantPlan")
        self.plan.setReadOnly(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Close
        )
        self.make_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addLayout(grid)
        layout.addWidget(QLabel("Will make:"))
        layout.addWidget(self.plan)
        layout.addWidget(self.buttons)
        for box in (self.node, self.cooling, self.switch, self.topology):
            box.itemChanged.connect(self._update_plan)
        self.resize(760, 460)
        self._update_plan()

    @staticmethod
    def _ticks(choices: list[str]) -> QListWidget:
        box = QListWidget()
        for choice in choices:
            item = QListWidgetItem(choice)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            box.addItem(item)
        return box

    @staticmethod
    def _ticked(box: QListWidget) -> tuple[str, ...]:
        return tuple(
            box.item(row).text()
            for row in range(box.count())
            if box.item(row).checkState() == Qt.CheckState.Checked
        )

    @staticmethod
    def tick(box: QListWidget, values: list[str]) -> None:
        """Tick exactly ``values`` in ``box`` (a script's or a test's way to choose)."""
        for row in range(box.count()):
            item = box.item(row)
            item.setCheckState(
                Qt.CheckState.Checked if item.text() in values else Qt.CheckState.Unchecked
            )

    def choices(self) -> VariantChoices:
        """What is ticked, per building block."""
        return VariantChoices(
            self._ticked(self.node),
            self._ticked(self.cooling),
            self._ticked(self.switch),
            self._ticked(self.topology),
        )

    def requests(self) -> list[VariantRequest]:
        """The variants the ticks ask for, in order ([] when the plan is refused)."""
        try:
            return plan_variants(self.design, self.choices(), self.catalog)
        except TemplateError:
            return []

    def _update_plan(self, *_args: object) -> None:
        """List the files the ticks will make, or say why they make none."""
        choices = self.choices()
        try:
            requests = plan_variants(self.design, choices, self.catalog)
            names = (
                [p.name for p in variant_paths(self.path, requests)]
                if self.path is not None
                else [r.label() for r in requests]
            )
        except TemplateError as exc:
            self.plan.setPlainText(str(exc)[:1].upper() + str(exc)[1:])
            self.make_button.setEnabled(False)
            self.make_button.setText("Make Variants")
            return
        n = len(requests)
        self.plan.setPlainText(
            f"{n} variant{'s' if n != 1 else ''} ({choices.describe()}):\n"
            + "\n".join(f"  {name}" for name in names)
        )
        self.make_button.setEnabled(True)
        self.make_button.setText(f"Make {n} Variant{'s' if n != 1 else ''}")
