"""The scenario wizard dialog: pick another node type, cooling, compute switch or
topology; the variant is made by :func:`workbench.templates.variants.make_variant`
(Qt-free, the same as ``workbench scenario``), saved beside the design, and what the
rules find on it is listed in the dialog."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.templates.variants import TOPOLOGIES, VariantRequest

KEEP = "(keep)"


class ScenarioWizard(QDialog):
    """Choices for one variant; ``request()`` is what was chosen."""

    def __init__(self, catalog, parent: QWidget | None = None) -> None:  # noqa: ANN001
        super().__init__(parent)
        self.setWindowTitle("New Scenario Variant")
        items = list(catalog or ())
        self.node = self._combo(sorted(i.slug for i in items if i.kind == "server" and i.gpu_count))
        self.cooling = self._combo(sorted(COOLING_TYPES))
        self.switch = self._combo(sorted(i.slug for i in items if i.kind == "switch"))
        self.topology = self._combo(sorted(TOPOLOGIES))
        form = QFormLayout()
        form.addRow("GPU node type", self.node)
        form.addRow("Cooling", self.cooling)
        form.addRow("Compute switch", self.switch)
        form.addRow("Topology", self.topology)
        #: What the rules found on the last variant made (filled by the caller).
        self.findings = QPlainTextEdit()
        self.findings.setReadOnly(True)
        self.findings.setPlaceholderText("What the rules find on the variant appears here.")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Close
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Make Variant")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.findings)
        layout.addWidget(buttons)

    @staticmethod
    def _combo(choices: list[str]) -> QComboBox:
        box = QComboBox()
        box.addItems([KEEP, *choices])
        return box

    def request(self) -> VariantRequest:
        """The variant asked for (None where the choice is kept)."""

        def pick(box: QComboBox) -> str | None:
            text = box.currentText()
            return None if text == KEEP else text

        return VariantRequest(
            pick(self.node), pick(self.cooling), pick(self.switch), pick(self.topology)
        )
