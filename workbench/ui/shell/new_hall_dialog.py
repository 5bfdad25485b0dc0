"""The New hall dialog behind File ▸ New: site and hall names, rows and racks per row,
the rack model (its height shown), cooling and its limit, the A/B feeds, and
optionally a template to start from.  It only gathers a
:class:`~workbench.templates.new_hall.HallSpec`; the planning module builds the hall.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.rack_fields import type_cooling_limit_kw
from workbench.templates.new_hall import MAX_RACKS_PER_ROW, MAX_ROWS, HallSpec

#: The rack model the dialog offers first (a 42U air-cooled rack, the planner's default).
DEFAULT_RACK = "generic-rack-42u-air"


class NewHallDialog(QDialog):
    """Ask for a new hall; :meth:`spec` is the answer once accepted."""

    def __init__(self, racks: list[CatalogItem], parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New hall")
        self.setObjectName("newHallDialog")
        self._racks = {item.slug: item for item in racks}
        form = QFormLayout(self)

        self.site = QLineEdit("Site 1")
        self.site.setObjectName("newHallSite")
        self.hall = QLineEdit("Hall 1")
        self.hall.setObjectName("newHallName")
        self.rows = QSpinBox()
        self.rows.setObjectName("newHallRows")
        self.rows.setRange(1, MAX_ROWS)
        self.rows.setValue(1)
        self.racks_per_row = QSpinBox()
        self.racks_per_row.setObjectName("newHallRacks")
        self.racks_per_row.setRange(1, MAX_RACKS_PER_ROW)
        self.racks_per_row.setValue(2)

        self.rack_type = QComboBox()
        self.rack_type.setObjectName("newHallRackModel")
        for slug, item in sorted(self._racks.items(), key=lambda kv: kv[1].label):
            self.rack_type.addItem(item.label, slug)
        self.rack_height = QLabel()
        self.rack_height.setObjectName("newHallHeight")

        self.cooling = QComboBox()
        self.cooling.setObjectName("newHallCooling")
        for key, kind in COOLING_TYPES.items():
            self.cooling.addItem(kind.label, key)
        self.limit = QDoubleSpinBox()
        self.limit.setObjectName("newHallLimit")
        self.limit.setRange(0.5, 1000.0)
        self.limit.setDecimals(1)
        self.limit.setSuffix(" kW")

        self.breaker = QDoubleSpinBox()
        self.breaker.setObjectName("newHallBreaker")
        self.breaker.setRange(1.0, 1000.0)
        self.breaker.setDecimals(0)
        self.breaker.setValue(32.0)
        self.breaker.setSuffix(" A")
        self.voltage = QDoubleSpinBox()
        self.voltage.setObjectName("newHallVoltage")
        self.voltage.setRange(1.0, 1000.0)
        self.voltage.setDecimals(0)
        self.voltage.setValue(415.0)
        self.voltage.setSuffix(" V")
        self.phases = QComboBox()
        self.phases.setObjectName("newHallPhases")
        self.phases.addItem("Three-phase", 3)
        self.phases.addItem("Single-phase", 1)

        self.template = QComboBox()
        self.template.setObjectName("newHallTemplate")
        self.template.addItem("None: empty racks", None)
        try:
            from workbench.templates import TEMPLATES
        except ImportError:  # pragma: no cover - the templates ship with the package
            TEMPLATES = {}  # noqa: N806
        for name, spec in TEMPLATES.items():
            self.template.addItem(spec.title, name)

        form.addRow("Site", self.site)
        form.addRow("Hall", self.hall)
        form.addRow("Rows", self.rows)
        form.addRow("Racks per row", self.racks_per_row)
        form.addRow("Rack model", self.rack_type)
        form.addRow("Height", self.rack_height)
        form.addRow("Cooling", self.cooling)
        form.addRow("Cooling limit", self.limit)
        form.addRow("A/B feed breaker", self.breaker)
        form.addRow("A/B feed voltage", self.voltage)
        form.addRow("Phases", self.phases)
        form.addRow("Start from template", self.template)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create hall")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

        self.rack_type.currentIndexChanged.connect(self._on_rack_type)
        self.cooling.currentIndexChanged.connect(self._on_cooling)
        self.template.currentIndexChanged.connect(self._on_template)
        start = self.rack_type.findData(DEFAULT_RACK)
        self.rack_type.setCurrentIndex(max(start, 0))
        self._on_rack_type()

    def _item(self) -> CatalogItem | None:
        return self._racks.get(self.rack_type.currentData())

    def _on_rack_type(self) -> None:
        """A rack model is built for a cooling: offer it, with its limit."""
        item = self._item()
        self.rack_height.setText(f"{item.u_height:g}U" if item is not None else "")
        built_for = item.props.get("cooling") if item is not None else None
        index = self.cooling.findData(built_for)
        if index >= 0 and index != self.cooling.currentIndex():
            self.cooling.setCurrentIndex(index)  # _on_cooling sets the limit
        else:
            self._on_cooling()

    def _on_cooling(self) -> None:
        """The limit of the cooling chosen: the rack model's own figure when the model is
        built for that cooling, else the cooling type's planning limit."""
        key = self.cooling.currentData()
        limit = type_cooling_limit_kw(self._item(), key)
        self.limit.setValue(limit if limit is not None else COOLING_TYPES[key].limit_kw)

    def _on_template(self) -> None:
        empty = self.template.currentData() is None
        for widget in (
            self.rows,
            self.racks_per_row,
            self.rack_type,
            self.cooling,
            self.limit,
            self.breaker,
            self.voltage,
            self.phases,
        ):
            widget.setEnabled(empty)

    def spec(self) -> HallSpec:
        """What was asked for."""
        key = self.cooling.currentData()
        limit = self.limit.value()
        return HallSpec(
            site=self.site.text(),
            hall=self.hall.text(),
            rows=self.rows.value(),
            racks_per_row=self.racks_per_row.value(),
            rack_type=self.rack_type.currentData() or DEFAULT_RACK,
            cooling=key,
            cooling_limit_kw=None if limit == type_cooling_limit_kw(self._item(), key) else limit,
            breaker_a=self.breaker.value(),
            voltage=self.voltage.value(),
            phases=int(self.phases.currentData()),
            template=self.template.currentData(),
        )


__all__ = ["NewHallDialog"]
