"""The Estimates view's Costs box and the design-level Costs form.

The box shows what the design costs (:func:`workbench.calc.costs.design_costs`): capex
by category with the unpriced lines counted, opex per year by item, cost per GPU-hour
and, for every training job, the run's cost and its energy.  It is redrawn after each
edit, reusing the window's live summary, fabric figures and workload results, so the
figures move with the design and with the cost inputs.

"Cost inputs…" opens the form: one field per input with its unit and the currency;
Apply checks every value with the model's own check and pushes ONE undoable edit
(:func:`workbench.ui.commands.set_cost_inputs`); an empty field means the default.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.costs import COST_LABELS, CostSummary, cost_inputs_of, design_costs
from workbench.model.cost_inputs import BOUNDS, FIELDS, CostInputs, as_text, check_cost_value
from workbench.model.errors import EditError
from workbench.ui.commands import set_cost_inputs
from workbench.ui.shell.document import Document

#: How each input reads on the form.
TITLES: dict[str, str] = {
    "currency": "Currency",
    "tariff_per_kwh": "Electricity tariff",
    "pue": "PUE (empty: the design's)",
    "maintenance_pct": "Maintenance and support",
    "installation_pct": "Installation",
    "spares_pct": "Spares (empty: the BOM's)",
    "space_per_rack_year": "Space",
    "staffing_per_year": "Staffing",
    "amortisation_years": "Amortisation",
    "utilisation": "Utilisation",
}


def _shown(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else f"{value:g}"


def summary_text(costs: CostSummary) -> str:
    """The Costs box's text (also what the journey test reads)."""
    cur = costs.currency
    lines = [f"Capex: {costs.capex_total:,.0f} {cur}"]
    lines += [f"  {COST_LABELS[k]}: {v:,.0f}" for k, v in costs.capex_by_category.items()]
    if costs.unpriced_lines:
        lines.append(
            f"  {costs.unpriced_lines} line(s) without a price not counted "
            f"(capex is a lower bound): {'; '.join(costs.unpriced[:3])}"
        )
    lines.append(f"Opex: {costs.opex_per_year:,.0f} {cur} per year at PUE {costs.pue:g}")
    lines += [f"  {COST_LABELS[k]}: {v:,.0f}" for k, v in costs.opex_by_item.items()]
    cph = costs.cost_per_gpu_hour
    i = costs.inputs
    lines.append(
        "Cost per GPU-hour: "
        + ("n/a (no GPUs)" if cph is None else f"{cph:,.2f} {cur}")
        + f" (over {i.amortisation_years:g} years at {i.utilisation:.0%} utilisation)"
    )
    for run in costs.runs:
        if run.cost is None or run.days is None or run.gpus is None:
            lines.append(f"Run '{run.name}': n/a (its days are unknown)")
        else:
            lines.append(
                f"Run '{run.name}': {run.cost:,.0f} {cur} for {run.days:,.1f} days on "
                f"{run.gpus:,} GPUs (energy {run.energy_cost or 0:,.0f})"
            )
    return "\n".join(lines)


class CostsDialog(QDialog):
    """The design-level Costs form (units and currency beside every field)."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Cost inputs")
        self.setObjectName("costsDialog")
        self.document = document
        self.fields: dict[str, QLineEdit] = {}
        self.units: dict[str, QLabel] = {}
        form = QFormLayout()
        for name in FIELDS:
            edit = QLineEdit()
            edit.setObjectName(f"cost_{name}")
            unit = QLabel()
            self.fields[name], self.units[name] = edit, unit
            row = QWidget()
            box = QVBoxLayout(row)
            box.setContentsMargins(0, 0, 0, 0)
            box.addWidget(edit)
            box.addWidget(unit)
            form.addRow(TITLES[name], row)
        self.error = QLabel()
        self.error.setObjectName("costsError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Apply | QDialogButtonBox.StandardButton.Close
        )
        self._buttons = buttons
        apply_button = self.button_apply()
        apply_button.setObjectName("costsApply")
        apply_button.clicked.connect(self.apply)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.load()

    def button_apply(self) -> QPushButton:
        """The Apply button (tests and the journey click it)."""
        return self._buttons.button(QDialogButtonBox.StandardButton.Apply)

    def load(self) -> None:
        """Fill the fields from the design's stored inputs (typed ones only)."""
        stored = self.document.design.properties
        inputs = cost_inputs_of(self.document.design)
        for name, edit in self.fields.items():
            typed = f"cost.{name}" in stored
            edit.setText(_shown(getattr(inputs, name)) if typed else "")
            edit.setPlaceholderText(_shown(getattr(CostInputs(), name)) or "default")
        self._units(inputs.currency)
        self.error.clear()

    def _units(self, currency: str) -> None:
        for name, label in self.units.items():
            if name == "currency":
                label.setText("code of the catalog's prices (the shipped catalog: USD)")
                continue
            unit = BOUNDS[name][2]
            money = name in ("tariff_per_kwh", "space_per_rack_year", "staffing_per_year")
            label.setText(f"{currency} {unit}" if money else unit)

    def values(self) -> tuple[tuple[str, Any], ...]:
        """Every field, checked (EditError naming the first bad one); empty = default."""
        out: list[tuple[str, Any]] = []
        for name, edit in self.fields.items():
            text = edit.text().strip()
            out.append((name, None if not text else check_cost_value(name, text)))
        return tuple(out)

    def apply(self) -> bool:
        """Push the form's values as one undoable edit; False (and a message) when a
        value is refused, with nothing changed."""
        try:
            values = self.values()
        except EditError as exc:
            self.error.setText(str(exc))
            return False
        stored = self.document.design.properties
        changed = tuple(
            (name, value)
            for name, value in values
            if stored.get(f"cost.{name}") != (None if value is None else as_text(value))
        )
        self.error.clear()
        if changed:
            self.document.push(set_cost_inputs(self.document, changed))
        self._units(cost_inputs_of(self.document.design).currency)
        return True


class CostsPanel(QGroupBox):
    """What the design costs, redrawn after every edit; opens the Costs form."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__("Costs", parent)
        self.setObjectName("costsPanel")
        self.document = document
        self.costs: CostSummary | None = None
        self._dialog: CostsDialog | None = None
        self.text = QLabel()
        self.text.setObjectName("costsText")
        self.text.setWordWrap(True)
        self.inputs_button = QPushButton("Cost inputs…")
        self.inputs_button.setObjectName("costInputs")
        self.inputs_button.setToolTip("Tariff, PUE, percentages, space, staff, years")
        self.inputs_button.clicked.connect(self.open_inputs)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(self.inputs_button)
        self.refresh()

    @property
    def dialog(self) -> CostsDialog:
        """The (single, non-modal) Costs form, created on first use."""
        if self._dialog is None:
            self._dialog = CostsDialog(self.document, self)
        return self._dialog

    def open_inputs(self) -> None:
        """Show the Costs form with the design's inputs."""
        dialog = self.dialog
        dialog.load()
        dialog.show()
        dialog.raise_()

    def refresh(self) -> None:
        """Recompute the costs from the live figures and show them."""
        figures = self.document.figures
        design = self.document.design
        self.costs = design_costs(
            design,
            summary=figures.summary,
            fabric=figures.fabric if design.workloads else None,
            evaluate=lambda w: figures.workload(w.id),
        )
        self.text.setText(summary_text(self.costs))
        if self._dialog is not None and self._dialog.isVisible():
            self._dialog.load()  # an undo of a cost edit shows in the open form
