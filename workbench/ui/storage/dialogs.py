"""The "Add storage tier…" dialog; the edit it makes is planned in
:mod:`workbench.planning.storage_tier`.

The dialog collects the kind, name, file system, appliance model and count, shows the
figures the tier would add, and pushes the planned batch as one undo step; a refusal
is shown, and nothing changes.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.fabric.planes import plane_structure
from workbench.calc.storage_clients import storage_port_gbps
from workbench.calc.storage_tiers import usable_fraction
from workbench.catalog.item import CatalogItem
from workbench.model.errors import EditError
from workbench.model.net_ops import TIER_KINDS
from workbench.planning import filling
from workbench.planning.storage_tier import (
    TIER_DEFAULTS,
    TierPlan,
    default_item,
    plan_storage_tier,
    storage_items,
)
from workbench.render import colors
from workbench.rules import Severity
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document
from workbench.units import format_capacity, format_gbs


class AddStorageTierDialog(QDialog):
    """Tier kind, name, file system, appliance model and count; Add / Cancel.

    On Add the plan is made (:func:`plan_storage_tier`) and pushed as one undoable
    command; a refusal shows its reason here and the dialog stays open.
    """

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.setWindowTitle("Add storage tier")
        #: The plan pushed on accepting (None until then).
        self.plan: TierPlan | None = None
        self._items = storage_items(document.design, document.catalog)
        self.kind = QComboBox()
        self.kind.setObjectName("tierKind")
        for kind in TIER_KINDS:
            self.kind.addItem(kind, kind)
        self.name = QLineEdit(TIER_DEFAULTS["hot"][0])
        self.name.setObjectName("tierName")
        self.filesystem = QLineEdit(TIER_DEFAULTS["hot"][1])
        self.filesystem.setObjectName("tierFilesystem")
        self.model = QComboBox()
        self.model.setObjectName("tierModel")
        for item in self._items:
            self.model.addItem(self._item_text(item), item.slug)
        self.count = QSpinBox()
        self.count.setObjectName("tierCount")
        self.count.setRange(1, filling.MAX_COUNT)
        self.count.setValue(2)
        self.cable = QCheckBox("Cable into the storage plane")
        self.cable.setObjectName("tierCable")
        self._switches = bool(plane_structure(document.design, "storage").tiers)
        self.preview = QLabel()
        self.preview.setObjectName("tierPreview")
        self.preview.setWordWrap(True)
        self.error = QLabel()
        self.error.setObjectName("tierError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {colors.SEVERITY_COLORS[Severity.ERROR]};")
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Add")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Tier", self.kind)
        form.addRow("Name", self.name)
        form.addRow("File system", self.filesystem)
        form.addRow("Appliance", self.model)
        form.addRow("How many", self.count)
        form.addRow("", self.cable)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self._named = (self.name.text(), self.filesystem.text())
        self.kind.currentIndexChanged.connect(self._on_kind_changed)
        self.model.currentIndexChanged.connect(self._update_preview)
        self.count.valueChanged.connect(self._update_preview)
        self.model.currentIndexChanged.connect(self._update_cabling)
        self._choose_model("hot")
        self._update_preview()
        self._update_cabling()

    def cabling_problem(self) -> str | None:
        """Why the chosen appliances cannot be cabled now, or None when they can."""
        if not self._switches:
            return (
                "The storage plane has no switches yet: generate it first (Fabric view), "
                "or add the tier uncabled."
            )
        item = next((i for i in self._items if i.slug == self.slug()), None)
        if item is not None and not storage_port_gbps(item):
            return f"{item.label} has no storage-plane port (it is attached through a server)."
        return None

    def _update_cabling(self) -> None:
        problem = self.cabling_problem()
        self.cable.setEnabled(problem is None)
        self.cable.setChecked(problem is None)
        self.cable.setToolTip(problem or "Cable every storage port to the storage plane's leaves.")

    @staticmethod
    def _item_text(item: CatalogItem) -> str:
        read = item.props.get("read_gbs")
        capacity = item.props.get("capacity_tb")
        figures = [f"{item.u_height:g}U"]
        if isinstance(capacity, (int, float)):
            figures.append(format_capacity(capacity))
        if isinstance(read, (int, float)):
            figures.append(f"{format_gbs(read)} read")
        return f"{item.label} — {', '.join(figures)}"

    def _choose_model(self, kind: str) -> None:
        item = default_item(self._items, kind)
        if item is not None:
            self.model.setCurrentIndex(self.model.findData(item.slug))

    def _on_kind_changed(self) -> None:
        kind = self.kind.currentData()
        # The name and file system follow the kind until the user typed their own.
        if (self.name.text(), self.filesystem.text()) == self._named:
            self.name.setText(TIER_DEFAULTS[kind][0])
            self.filesystem.setText(TIER_DEFAULTS[kind][1])
            self._named = (self.name.text(), self.filesystem.text())
        self._choose_model(kind)
        self._update_preview()

    def slug(self) -> str | None:
        return self.model.currentData()

    def _update_preview(self) -> None:
        slug = self.slug()
        item = next((i for i in self._items if i.slug == slug), None)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(item is not None)
        if item is None:
            self.preview.setText("The catalog has no storage appliance.")
            return
        n = self.count.value()

        def figure(name: str) -> float:
            value = item.props.get(name)
            return float(value) if isinstance(value, (int, float)) else 0.0

        share = usable_fraction(item, self.kind.currentData())
        raw = n * figure("capacity_tb")
        self.preview.setText(
            f"{n:,} × {item.label}: {format_capacity(raw)} raw, "
            f"{format_capacity(raw * share.fraction)} usable ({share.fraction:.0%}: "
            f"{share.source}); {format_gbs(n * figure('read_gbs'))} read, "
            f"{format_gbs(n * figure('write_gbs'))} write."
        )

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()

    def accept(self) -> None:
        slug = self.slug()
        if slug is None:
            return
        document = self.document
        try:
            plan = plan_storage_tier(
                document.design,
                document.catalog,
                kind=self.kind.currentData(),
                name=self.name.text(),
                filesystem=self.filesystem.text(),
                slug=slug,
                count=self.count.value(),
                cable=self.cable.isChecked(),
            )
        except EditError as exc:
            self.show_error(str(exc))
            return
        refused: list[str] = []

        def note(message: str) -> None:
            refused.append(message)

        document.editRefused.connect(note)
        try:
            document.push(EditCommand(document, plan.batch, f"Add storage tier {plan.tier.name}"))
        finally:
            document.editRefused.disconnect(note)
        if refused:
            self.show_error(refused[0])
            return
        self.plan = plan
        parent = self.parentWidget()
        window = parent.window() if parent is not None else None
        status = getattr(window, "statusBar", None)
        if callable(status):
            message = plan.summary() + (" " + " ".join(plan.notes) if plan.notes else "")
            status().showMessage(message, 15000)
        super().accept()
