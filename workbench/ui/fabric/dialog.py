"""The fabric generator's dialog: a plane, its hosts, the switches and the shape, with a
live preview of what the generator would build, applied as one undoable step.

Everything is asked of :func:`workbench.planning.fabric.generator.plan_fabric` with a
:class:`~workbench.planning.fabric.request.FabricRequest`: the preview is the plan's
own counts and notes (leaves, spines, cores, links, what it replaces), a request no
fabric of that switch can meet shows the generator's explanation (why, and what would
work) and leaves OK disabled, and OK pushes the plan's batch as ONE
:class:`~workbench.ui.commands.EditCommand`.  The dialog computes nothing itself.

The plan is worked out a moment after the last change of a field (a 100,000-GPU plan
takes a second or two), never while the user is still typing.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import item_role
from workbench.model import Design
from workbench.model.design import PLANES
from workbench.model.ports import HOST_KINDS
from workbench.planning.fabric.generator import plan_fabric
from workbench.planning.fabric.request import (
    DEFAULT_OVERSUBSCRIPTION,
    PLANE_ROLE,
    FabricPlan,
    FabricRequest,
)
from workbench.planning.fabric.sizing import FabricError
from workbench.render import colors
from workbench.render.fabric_layout import PLANE_TITLES
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document
from workbench.units import format_count

#: The topology box's choices: the generator's names, as a person reads them.
TOPOLOGY_CHOICES: dict[str, str] = {
    "auto": "Automatic (2 tiers while they fit, else 3)",
    "2-tier": "2-tier leaf-spine",
    "3-tier": "3-tier with a core",
    "rail": "Rail-optimized (scalable units)",
    "tor": "Per-rack access (top of rack)",
}
#: Speeds offered per host port, Gb/s (None: the plane's network speed).
SPEEDS: tuple[float, ...] = (1, 10, 25, 50, 100, 200, 400, 800)
#: The switch each plane starts with when the design has none there yet, if the catalog
#: has it (the sample's choices: NDR InfiniBand, 800G Ethernet, 10G management).
PREFERRED: dict[str, str] = {
    "compute": "nvidia-qm9700",
    "storage": "nvidia-sn5600",
    "management": "generic-mgmt-48p-10g",
    "oob": "generic-mgmt-48p-10g",
}
#: Milliseconds of quiet after a change before the plan is worked out.
PLAN_DELAY_MS = 200


def switch_items(document: Document) -> list[CatalogItem]:
    """Every switch the catalog and the design's snapshot offer, by maker and model."""
    found: dict[str, CatalogItem] = {}
    if document.catalog is not None:
        found.update((i.slug, i) for i in document.catalog if i.kind == "switch")
    for slug, item in document.design.device_types.items():
        if item.kind == "switch":
            found.setdefault(slug, item)
    return sorted(found.values(), key=lambda i: (i.manufacturer, i.model, i.slug))


def selected_hosts(design: Design, object_ids: Iterable[str]) -> list[str]:
    """The servers and storage appliances the selection holds (a rack: its own)."""
    index = design.index
    hosts: dict[str, None] = {}
    for object_id in object_ids:
        devices = []
        if object_id in index.devices:
            devices = [index.devices[object_id][1]]
        elif object_id in index.racks:
            devices = list(index.racks[object_id][1].devices)
        for device in devices:
            item = design.device_types.get(device.device_type)
            if item is not None and item.kind in HOST_KINDS:
                hosts[device.id] = None
    return list(hosts)


class FabricDialog(QDialog):
    """Generate a plane's fabric (see the module docstring).  ``generated(plane)`` after
    OK pushed the edit."""

    generated = Signal(str)

    def __init__(
        self,
        document: Document,
        catalog=None,
        *,
        plane: str = "compute",
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.document = document
        self.catalog = catalog if catalog is not None else document.catalog
        self.setWindowTitle("Generate fabric")
        self.setMinimumWidth(560)
        self.plan: FabricPlan | None = None
        self.error: str | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PLAN_DELAY_MS)
        self._timer.timeout.connect(self.update_plan)
        self._selection = selected_hosts(document.design, document.selected)
        self._build()
        index = self.plane_box.findData(plane if plane in PLANES else "compute")
        self.plane_box.setCurrentIndex(max(index, 0))
        self._plane_changed()
        self.update_plan()

    # -- the form ----------------------------------------------------------------------
    def _build(self) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.plane_box = QComboBox()
        self.plane_box.setObjectName("fabricPlane")
        for plane in PLANES:
            self.plane_box.addItem(PLANE_TITLES.get(plane, plane), plane)
        self.plane_box.currentIndexChanged.connect(self._plane_changed)
        form.addRow("Plane", self.plane_box)

        hosts = QWidget()
        row = QVBoxLayout(hosts)
        row.setContentsMargins(0, 0, 0, 0)
        self.all_hosts = QRadioButton("Every host with ports on the plane")
        count = format_count(len(self._selection), "selected host")
        self.some_hosts = QRadioButton(f"Only the selection ({count})")
        self.some_hosts.setEnabled(bool(self._selection))
        group = QButtonGroup(self)
        group.addButton(self.all_hosts)
        group.addButton(self.some_hosts)
        (self.some_hosts if self._selection else self.all_hosts).setChecked(True)
        self.all_hosts.toggled.connect(self._changed)
        row.addWidget(self.all_hosts)
        row.addWidget(self.some_hosts)
        form.addRow("Hosts", hosts)

        switches = switch_items(self.document)
        self.switch_box = QComboBox()
        self.switch_box.setObjectName("fabricSwitch")
        self.spine_box = QComboBox()
        self.spine_box.setObjectName("fabricSpine")
        self.spine_box.addItem("Same as the leaves", None)
        for item in switches:
            label = f"{item.manufacturer} {item.model}"
            self.switch_box.addItem(label, item.slug)
            self.spine_box.addItem(label, item.slug)
        self.switch_box.currentIndexChanged.connect(self._changed)
        self.spine_box.currentIndexChanged.connect(self._changed)
        form.addRow("Leaf switch", self.switch_box)
        form.addRow("Spine and core switch", self.spine_box)

        self.speed_box = QComboBox()
        self.speed_box.setObjectName("fabricSpeed")
        self.speed_box.currentIndexChanged.connect(self._changed)
        form.addRow("Speed per host port", self.speed_box)

        self.ratio_box = QDoubleSpinBox()
        self.ratio_box.setObjectName("fabricOversubscription")
        self.ratio_box.setRange(1.0, 32.0)
        self.ratio_box.setSingleStep(0.5)
        self.ratio_box.setDecimals(2)
        self.ratio_box.setSuffix(" : 1")
        self.ratio_box.setKeyboardTracking(False)
        self.ratio_box.valueChanged.connect(self._changed)
        form.addRow("Oversubscription", self.ratio_box)

        self.topology_box = QComboBox()
        self.topology_box.setObjectName("fabricTopology")
        for key, text in TOPOLOGY_CHOICES.items():
            self.topology_box.addItem(text, key)
        self.topology_box.currentIndexChanged.connect(self._changed)
        form.addRow("Topology", self.topology_box)

        su = QWidget()
        su_row = QHBoxLayout(su)
        su_row.setContentsMargins(0, 0, 0, 0)
        self.su_box = QSpinBox()
        self.su_box.setObjectName("fabricSuNodes")
        self.su_box.setRange(1, 4096)
        self.su_box.setValue(32)
        self.su_box.setSuffix(" nodes")
        self.su_box.setKeyboardTracking(False)
        self.su_box.valueChanged.connect(self._changed)
        su_row.addWidget(self.su_box)
        su_row.addWidget(QLabel("per scalable unit (rail-optimized)"))
        su_row.addStretch(1)
        form.addRow("Scalable unit", su)

        self.replace_box = QCheckBox("Replace the plane's links and the switches only they use")
        self.replace_box.setChecked(True)
        self.replace_box.toggled.connect(self._changed)
        form.addRow("", self.replace_box)

        self.preview = QLabel()
        self.preview.setObjectName("fabricPreview")
        self.preview.setWordWrap(True)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preview.setMinimumHeight(110)
        self.preview.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.preview.setStyleSheet(
            "QLabel#fabricPreview { background: #f5f7f8; border: 1px solid #cfd8dc;"
            " border-radius: 4px; padding: 8px; }"
        )
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Generate")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(QLabel("<b>What the generator will do</b>"))
        layout.addWidget(self.preview, 1)
        layout.addWidget(self.buttons)

    def _plane_changed(self) -> None:
        """Defaults for the plane: its switch, network speed and oversubscription."""
        plane = self.plane
        for box in (self.switch_box, self.speed_box, self.ratio_box, self.topology_box):
            box.blockSignals(True)
        slug = self._default_switch(plane)
        index = self.switch_box.findData(slug)
        if index >= 0:
            self.switch_box.setCurrentIndex(index)
        network = next((n for n in self.document.design.networks if n.plane == plane), None)
        self.speed_box.clear()
        shown = f" ({network.speed_gbps:g}G)" if network is not None else ""
        self.speed_box.addItem(f"The plane's network speed{shown}", None)
        for speed in SPEEDS:
            self.speed_box.addItem(f"{speed:g}G", float(speed))
        self.ratio_box.setValue(DEFAULT_OVERSUBSCRIPTION.get(plane, 1.0))
        topology = (
            "rail" if plane == "compute" else "tor" if plane in ("management", "oob") else "auto"
        )
        self.topology_box.setCurrentIndex(max(0, self.topology_box.findData(topology)))
        for box in (self.switch_box, self.speed_box, self.ratio_box, self.topology_box):
            box.blockSignals(False)
        self._changed()

    def _default_switch(self, plane: str) -> str | None:
        """The model the plane's leaves use now, else the preferred one, else the first
        catalog switch whose role serves the plane."""
        design = self.document.design
        from workbench.calc.fabric.planes import plane_structure

        structure = plane_structure(design, plane) if design.links else None
        if structure is not None:
            for switch in structure.switches_in(1):
                found = design.index.devices.get(switch)
                if found is not None:
                    return found[1].device_type
        slugs = [self.switch_box.itemData(i) for i in range(self.switch_box.count())]
        if PREFERRED.get(plane) in slugs:
            return PREFERRED[plane]
        for item in switch_items(self.document):
            if item_role(item) == PLANE_ROLE.get(plane):
                return item.slug
        return slugs[0] if slugs else None

    # -- the request and its plan -------------------------------------------------------
    @property
    def plane(self) -> str:
        return str(self.plane_box.currentData() or "compute")

    def request(self) -> FabricRequest | None:
        """The request the fields make (None while no switch can be chosen)."""
        switch = self.switch_box.currentData()
        if not switch:
            return None
        hosts = tuple(self._selection) if self.some_hosts.isChecked() else None
        return FabricRequest(
            plane=self.plane,
            switch=switch,
            spine_switch=self.spine_box.currentData(),
            hosts=hosts,
            speed_gbps=self.speed_box.currentData(),
            oversubscription=self.ratio_box.value(),
            topology=str(self.topology_box.currentData()),
            su_nodes=self.su_box.value(),
            replace=self.replace_box.isChecked(),
        )

    def _changed(self, *_args) -> None:
        self.su_box.setEnabled(self.topology_box.currentData() in ("rail", "auto"))
        self.ok_button.setEnabled(False)
        self.preview.setText("Working out the fabric…")
        self._timer.start()

    def update_plan(self) -> FabricPlan | None:
        """Ask the generator for the plan now (the timer's slot; tests call it)."""
        self._timer.stop()
        request = self.request()
        self.plan, self.error = None, None
        if request is None:
            self.error = "The catalog has no switch to build a fabric of."
        else:
            try:
                self.plan = plan_fabric(self.document.design, self.catalog, request)
            except FabricError as exc:
                self.error = str(exc)
        self._show_plan()
        return self.plan

    def _show_plan(self) -> None:
        if self.plan is None:
            self.preview.setStyleSheet(
                f"QLabel#fabricPreview {{ background: #fdecea; border: 1px solid "
                f"{colors.LOAD_OVER}; border-radius: 4px; padding: 8px; color: #8e0000; }}"
            )
            self.preview.setText(self.error or "")
            self.ok_button.setEnabled(False)
            return
        self.preview.setStyleSheet(
            "QLabel#fabricPreview { background: #f5f7f8; border: 1px solid #cfd8dc;"
            " border-radius: 4px; padding: 8px; }"
        )
        plan = self.plan
        shape = plan.shape
        counts = (
            f"{shape.leaves:,} leaves · {shape.spines:,} spines · {shape.cores:,} cores · "
            f"{plan.added.links:,} links"
        )
        gone = ""
        if plan.removed.links or plan.removed.switches:
            gone = (
                f"Removes {format_count(plan.removed.links, 'link')} and "
                f"{format_count(plan.removed.switches, 'switch', 'switches')} of the plane."
            )
        lines = [counts, *plan.notes]
        if gone and not any(line.startswith("Replaces") for line in plan.notes):
            lines.append(gone)
        self.preview.setText("\n".join(lines))
        self.ok_button.setEnabled(True)

    def accept(self) -> None:
        """Push the plan as one undoable step (planned again if it is not current)."""
        if self._timer.isActive() or self.plan is None:
            self.update_plan()
        plan = self.plan
        if plan is None:
            return
        title = PLANE_TITLES.get(self.plane, self.plane).replace(" plane", "").lower()
        self.document.push(EditCommand(self.document, plan.batch, f"Generate {title} fabric"))
        self.generated.emit(self.plane)
        super().accept()
