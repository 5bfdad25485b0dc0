"""Entering a power figure for a device type whose power is unknown.

Most NetBox device-type files carry no power figure, and an unknown one counts as
unknown rather than 0 W (:mod:`workbench.calc.summary`), which leaves the rack's
power, cooling and feed budgets unknown and raises RACK-POWER-UNKNOWN.  The planner
ends that by entering the figure from a datasheet or a measurement, with where it came
from: the inspector (a device of that type selected) and the catalog palette's context
menu open :class:`PowerFigureDialog`.  Accepting makes ONE undoable edit that replaces
the type in the design's catalog snapshot with the item re-parsed from
:func:`workbench.catalog.merge.with_power` (or adds it, for a type no device uses yet),
so the budgets, the rack header and the rule update at once, and undo puts the unknown
back.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.catalog.errors import CatalogError
from workbench.catalog.item import CatalogItem
from workbench.catalog.merge import with_power
from workbench.catalog.netbox import power_source
from workbench.catalog.parse import parse_item
from workbench.model import Design, ops
from workbench.model.requests import ItemSource, lookup_item
from workbench.render import colors
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document

#: The largest figure the box takes, W: four times a GB200 NVL72 rack (~120 kW), so a
#: slip of the finger (an extra 0) is still visible, and any real device fits.
MAX_WATTS = 500_000.0


def type_item(design: Design, catalog: ItemSource | None, slug: str) -> CatalogItem | None:
    """The item a power figure is entered for: the design's snapshot first (what its
    devices use), else the catalog's."""
    return design.device_types.get(slug) or lookup_item(catalog, slug)


def power_figure_op(
    design: Design,
    catalog: ItemSource | None,
    slug: str,
    watts: float,
    source: str,
    typical_w: float | None = None,
) -> ops.Op:
    """The edit that gives ``slug`` a maximum draw of ``watts`` (and ``typical_w``),
    recording ``source``: the design's item replaced, or the catalog's added.  Raises
    ValueError (a figure out of range, no source, no item) before changing anything."""
    item = type_item(design, catalog, slug)
    if item is None:
        raise ValueError(f"no catalog item {slug!r} in the design or the catalog")
    if not source.strip():
        raise ValueError(f"{slug}: say where the figure comes from (datasheet, measurement...)")
    mapping = with_power(item, watts, source, typical_w)
    try:
        new = parse_item(mapping, source_file=item.source_file or "design snapshot")
    except CatalogError as exc:
        raise ValueError(f"{slug}: the item with this figure is refused: {exc}") from None
    if slug in design.device_types:
        return ops.ReplaceDeviceType(new)
    return ops.AddDeviceType(new)


class PowerFigureDialog(QDialog):
    """Maximum W, optional typical W, and the source (required); OK makes the edit."""

    def __init__(self, document: Document, slug: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("powerFigureDialog")
        self.document, self.slug = document, slug
        item = type_item(document.design, document.catalog, slug)
        label = item.label if item is not None else slug
        self.setWindowTitle(f"Power of {label}")
        now = power_source(item) if item is not None else "unknown"
        intro = QLabel(
            f"<b>{label}</b> ({slug})<br>Power now: {now}.<br>Enter the maximum draw a "
            "rack must be budgeted for (W, per device) and where it comes from; it is "
            "recorded with the figure."
        )
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.RichText)
        self.max_w = QDoubleSpinBox()
        self.max_w.setObjectName("powerMaxW")
        self.max_w.setRange(0.0, MAX_WATTS)
        self.max_w.setDecimals(0)
        self.max_w.setSuffix(" W")
        self.typical_w = QDoubleSpinBox()
        self.typical_w.setObjectName("powerTypicalW")
        self.typical_w.setRange(0.0, MAX_WATTS)
        self.typical_w.setDecimals(0)
        self.typical_w.setSuffix(" W")
        self.typical_w.setSpecialValueText("not known")  # 0: no typical figure
        self.source = QLineEdit()
        self.source.setObjectName("powerSource")
        self.source.setPlaceholderText("datasheet, measurement, vendor quote…")
        self.message = QLabel()
        self.message.setObjectName("powerMessage")
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {colors.LOAD_OVER};")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Set power")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Maximum", self.max_w)
        form.addRow("Typical", self.typical_w)
        form.addRow("Source", self.source)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        for signal in (self.max_w.valueChanged, self.typical_w.valueChanged):
            signal.connect(self._update)
        self.source.textChanged.connect(self._update)
        self._update()
        self.setMinimumWidth(420)

    def _problem(self) -> str | None:
        """Why OK is not allowed yet, or None."""
        watts, typical = self.max_w.value(), self.typical_w.value()
        if not watts > 0:
            return "Enter the maximum draw in W."
        if typical > watts:
            return f"The typical draw ({typical:,.0f} W) is above the maximum ({watts:,.0f} W)."
        if not self.source.text().strip():
            return "Say where the figure comes from."
        return None

    def _update(self) -> None:
        problem = self._problem()
        self.message.setText(problem or "")
        self.ok.setEnabled(problem is None)

    def accept(self) -> None:
        if self._problem() is not None:
            return
        typical = self.typical_w.value() or None
        watts = self.max_w.value()
        try:
            op = power_figure_op(
                self.document.design,
                self.document.catalog,
                self.slug,
                watts,
                self.source.text(),
                typical,
            )
        except ValueError as exc:
            self.message.setText(str(exc))
            return
        self.document.push(
            EditCommand(self.document, op, f"Set power of {self.slug} to {watts:,.0f} W")
        )
        super().accept()


def open_power_figure(
    document: Document, slug: str, parent: QWidget | None = None
) -> PowerFigureDialog:
    """Show the dialog for ``slug`` (window-modal, deleted when closed)."""
    dialog = PowerFigureDialog(document, slug, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
