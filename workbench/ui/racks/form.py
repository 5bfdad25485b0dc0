"""The inspector's rack properties beyond name, cooling and power budget: rack model,
cooling limit, weight rating, the A and B feeds, and every budget with row and hall
totals.

Edits go through :class:`~workbench.ui.commands.set_rack_fields`; whether a value is
acceptable is the model's call (:mod:`workbench.model.rack_fields` names the field in its
refusal), so the boxes only read text.  An empty box means "not set here" (the limit then
comes from the cooling or rack type, a feed is unknown).  Budgets and their colours come
from :func:`workbench.rules.budgets.rack_budgets`, like the drawing's bars.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.power import rack_heat_text
from workbench.calc.summary import RackLoad
from workbench.model import Rack
from workbench.model.rack_fields import RACK_FIELDS, default_cooling_limit_kw
from workbench.render import colors
from workbench.render.safe_figures import per_mille, safe_rack_budgets
from workbench.rules.budgets import Budget, BudgetState, unknown_note
from workbench.ui.commands import set_rack_fields
from workbench.ui.shell.document import Document
from workbench.ui.widgets import narrow_combo
from workbench.units import format_kw, format_limit, format_power, short_number

#: The boxes a planner types numbers into (blank: not set here).
NUMBER_FIELDS: tuple[str, ...] = (
    "cooling_limit_kw",
    "max_weight_kg",
    "feed_a_voltage",
    "feed_a_breaker_a",
    "feed_b_voltage",
    "feed_b_breaker_a",
)
_PHASES: tuple[tuple[str, int | None], ...] = (
    ("phases?", None),
    ("1-phase", 1),
    ("3-phase", 3),
)


def _bar_style(state: BudgetState) -> str:
    return (
        "QProgressBar { border: 1px solid #cfd8dc; border-radius: 3px; background: #f5f7f8;"
        " max-height: 8px; } QProgressBar::chunk { background: "
        + colors.budget_color(state)
        + "; }"
    )


def _budget_text(budget: Budget, unit: str = "kW") -> str:
    """ "20.4 of 50 kW (41%)", "+ 2 unknown" after the figure when it leaves devices of
    unknown power out (the budget is then unknown, see :mod:`workbench.rules.budgets`)."""
    used = short_number(budget.used) + unknown_note(budget.unknown)
    if budget.limit is None:
        return f"{used} {unit} (no limit set)"
    return f"{used} of {format_limit(budget.limit, unit)} ({budget.fraction:.0%})"


class RackForm(QWidget):
    """Rack model, limits, feeds and budgets of the rack the inspector shows."""

    def __init__(
        self,
        document: Document,
        push_checked: Callable[[QUndoCommand], None],
        form: QFormLayout,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.document = document
        self._push_checked = push_checked
        self.rack_id: str | None = None
        self.model_box = narrow_combo("rackModel")
        self.model_box.activated.connect(self._commit_model)
        form.addRow("Rack model", self.model_box)
        self.editors: dict[str, QLineEdit] = {}
        self.phases: dict[str, QComboBox] = {}
        for name, label in (
            ("cooling_limit_kw", "Cooling limit (kW)"),
            ("max_weight_kg", "Weight rating (kg)"),
        ):
            form.addRow(label, self._editor(name))
        for side in ("a", "b"):
            form.addRow(f"Feed {side.upper()}", self._feed_row(side))
        self.values: dict[str, QLabel] = {}
        self.bars: dict[str, QProgressBar] = {}
        for key, label in (
            ("cooling", "Cooling load"),
            ("feed_a", "Feed A load"),
            ("feed_b", "Feed B load"),
            ("failover", "Failover"),
        ):
            form.addRow(label, self._budget_row(key))
        for key, label in (("heat", "Heat"), ("row_totals", "Row totals"), ("hall", "Hall")):
            value = QLabel()
            value.setWordWrap(True)
            value.setObjectName(f"rack_{key}")
            self.values[key] = value
            form.addRow(label, value)

    # -- building ------------------------------------------------------------------------
    def _editor(self, name: str) -> QLineEdit:
        editor = QLineEdit()
        editor.setObjectName(f"rack_{name}")
        editor.editingFinished.connect(lambda name=name: self._commit_number(name))
        self.editors[name] = editor
        return editor

    def _feed_row(self, side: str) -> QWidget:
        """Voltage, phases and breaker of one feed on one line: "[415] V [3-phase] [32] A"."""
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        for name, unit in ((f"feed_{side}_voltage", "V"), (f"feed_{side}_breaker_a", "A")):
            editor = self._editor(name)
            editor.setMaximumWidth(64)
            editor.setToolTip(f"{RACK_FIELDS[name].label} in {unit} (blank: not set)")
            if unit == "A":
                row.addWidget(self._phases_box(side), 1)
            row.addWidget(editor)
            row.addWidget(QLabel(unit))
        return box

    def _phases_box(self, side: str) -> QComboBox:
        phases = narrow_combo(f"rack_feed_{side}_phases", 6)
        for text, value in _PHASES:
            phases.addItem(text, value)
        phases.activated.connect(lambda _i, side=side: self._commit_phases(side))
        self.phases[side] = phases
        return phases

    def _budget_row(self, key: str) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(3)
        value = QLabel()
        value.setWordWrap(True)
        value.setObjectName(f"rack_{key}")
        bar = QProgressBar()
        bar.setTextVisible(False)
        bar.setRange(0, 1000)
        column.addWidget(value)
        column.addWidget(bar)
        self.values[key], self.bars[key] = value, bar
        return box

    # -- showing -------------------------------------------------------------------------
    def show_rack(self, rack: Rack, load: RackLoad | None) -> None:
        """Fill every box and budget from the model (boxes being typed in are left)."""
        self.rack_id = rack.id
        self._fill_models(rack)
        design = self.document.design
        placeholders = {
            "cooling_limit_kw": f"from {rack.cooling} cooling: "
            + format_limit(default_cooling_limit_kw(design, rack.rack_type, rack.cooling), "kW"),
            "max_weight_kg": "from the rack model"
            + (
                f": {format_limit(load.max_weight_kg, 'kg')}" if load and load.max_weight_kg else ""
            ),
        }
        for name, editor in self.editors.items():
            if editor.hasFocus() and editor.isModified():
                continue
            value = getattr(rack, name)
            editor.setText("" if value is None else short_number(value).replace(",", ""))
            editor.setPlaceholderText(placeholders.get(name, "not set"))
            editor.setModified(False)
        for side, box in self.phases.items():
            box.blockSignals(True)
            index = box.findData(getattr(rack, f"feed_{side}_phases"))
            box.setCurrentIndex(max(index, 0))
            box.blockSignals(False)
        if load is not None:
            self._show_budgets(rack, load)

    def _fill_models(self, rack: Rack) -> None:
        box = self.model_box
        box.blockSignals(True)
        box.clear()
        models = {s: i for s, i in self.document.design.device_types.items() if i.kind == "rack"}
        catalog = self.document.catalog
        if catalog is not None:
            models.update({i.slug: i for i in catalog if i.kind == "rack" and i.slug not in models})
        for slug, item in sorted(models.items(), key=lambda kv: kv[1].label):
            box.addItem(f"{item.label} ({short_number(item.u_height)}U)", slug)
        index = box.findData(rack.rack_type)
        if index < 0:
            box.addItem(f"{rack.rack_type} (not in the catalog)", rack.rack_type)
            index = box.count() - 1
        box.setCurrentIndex(index)
        box.blockSignals(False)

    def _show_budgets(self, rack: Rack, load: RackLoad) -> None:
        budgets = safe_rack_budgets(self.document.design, rack, load)
        if budgets is None:  # figures no calculator reads (see render.safe_figures)
            for key in ("cooling", "feed_a", "feed_b", "failover"):
                self.values[key].setText("?")
                self.bars[key].setVisible(False)
            return
        for key in ("cooling", "feed_a", "feed_b", "failover"):
            budget = getattr(budgets, key)
            self.values[key].setText(_budget_text(budget))
            self.bars[key].setValue(per_mille(budget.fraction))
            self.bars[key].setStyleSheet(_bar_style(budget.state))
            self.bars[key].setVisible(budget.limit is not None)
        if budgets.failover.limit is None:
            self.values["failover"].setText("set both feeds to check a failover")
        note = unknown_note(load.unknown_power_devices)
        self.values["heat"].setText(
            f"{format_kw(load.kw_max)}{note} at maximum draw · "
            f"{rack_heat_text(load.kw_max, rack.cooling)}"
        )
        self.values["row_totals"].setText(self._row_totals(rack))
        summary = self.document.figures.summary
        self.values["hall"].setText(
            f"{summary.racks:,} racks · {format_power(summary.it_kw)}"
            f"{unknown_note(summary.unknown_power_devices)} IT · "
            f"{summary.heat_btu_h:,.0f} BTU/h"
        )

    def _row_totals(self, rack: Rack) -> str:
        row = self.document.design.index.row_of_rack(rack.id)
        if row is None:
            return "—"
        figures = self.document.figures
        loads = [load for r in row.racks if (load := figures.rack_load(r.id)) is not None]
        kw = sum(load.kw_max for load in loads)
        unknown = sum(load.unknown_power_devices for load in loads)
        u_used = sum(load.u_used for load in loads)
        u_total = sum(load.u_total for load in loads)
        kg = sum(load.weight_kg for load in loads)
        return (
            f"{row.name}: {len(loads)} racks · {format_power(kw)}{unknown_note(unknown)} · "
            f"{short_number(u_used)}/{short_number(u_total)} U · {kg:,.0f} kg"
        )

    # -- edits ---------------------------------------------------------------------------
    def _rack(self) -> Rack | None:
        return self.document.design.find_rack(self.rack_id) if self.rack_id else None

    def _push(self, changes: dict) -> None:
        if self.rack_id is not None:
            self._push_checked(set_rack_fields(self.document, self.rack_id, changes))

    def _commit_number(self, name: str) -> None:
        editor = self.editors[name]
        rack = self._rack()
        if rack is None or not editor.isModified():
            return
        editor.setModified(False)
        text = editor.text().strip()
        stored = getattr(rack, name)
        shown = "" if stored is None else short_number(stored).replace(",", "")
        if text == shown:
            return
        self._push({name: text or None})

    def _commit_phases(self, side: str) -> None:
        rack = self._rack()
        value = self.phases[side].currentData()
        name = f"feed_{side}_phases"
        if rack is not None and value != getattr(rack, name):
            self._push({name: value})

    def _commit_model(self, index: int) -> None:
        rack = self._rack()
        slug = self.model_box.itemData(index)
        if rack is not None and isinstance(slug, str) and slug != rack.rack_type:
            self._push({"rack_type": slug})
