"""Storage ▸ Tier figures…: a tier's planning figures, edited in the window.

Metadata servers, the small-file IOPS they serve, the dataset size and how many jobs
read it at once (the seeds' sizing inputs; STORAGE-CAPACITY and STORAGE-METADATA judge
them).  OK makes one undoable :class:`~workbench.model.net_ops.SetTierFields` edit, the
one ``workbench tiers set`` makes; a box at 0 with "not said" clears its figure.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.model import StorageTier
from workbench.model.net_ops import SetTierFields
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document

NOT_SAID = "not said"


def _count(value: int | None) -> QSpinBox:
    box = QSpinBox()
    box.setRange(-1, 100_000)
    box.setSpecialValueText(NOT_SAID)  # shown at the minimum, -1
    box.setValue(-1 if value is None else value)
    return box


def _amount(value: float | None, decimals: int, top: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setDecimals(decimals)
    box.setRange(-1, top)
    box.setSpecialValueText(NOT_SAID)
    box.setValue(-1 if value is None else value)
    return box


class TierFiguresDialog(QDialog):
    """The planning figures of one tier, and whether it is read with GPUDirect Storage."""

    def __init__(self, document: Document, tier: StorageTier, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.tier_id = tier.id
        self.setWindowTitle(f"Tier figures: {tier.name}")
        self.metadata_servers = _count(tier.metadata_servers)
        self.small_file_iops = _amount(tier.small_file_iops, 0, 1e12)
        self.dataset_tb = _amount(tier.dataset_tb, 1, 1e9)
        self.concurrent_jobs = _count(tier.concurrent_jobs)
        self.gpudirect_storage = QComboBox()
        for text, value in ((NOT_SAID, None), ("yes", True), ("no", False)):
            self.gpudirect_storage.addItem(text, value)
        self.gpudirect_storage.setCurrentIndex(
            self.gpudirect_storage.findData(tier.gpudirect_storage)
        )
        form = QFormLayout()
        form.addRow("Metadata servers", self.metadata_servers)
        form.addRow("Small-file IOPS", self.small_file_iops)
        form.addRow("Dataset (TB)", self.dataset_tb)
        form.addRow("Concurrent jobs", self.concurrent_jobs)
        form.addRow("GPUDirect Storage", self.gpudirect_storage)
        note = QLabel(
            "Capacity to plan: dataset × concurrent jobs. Above 40 GPUs the dataset tier "
            "needs dedicated metadata servers (small files load them first)."
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def values(self) -> tuple[tuple[str, object], ...]:
        """The figures as the edit sets them (None where "not said")."""
        out: list[tuple[str, object]] = []
        for name in ("metadata_servers", "concurrent_jobs"):
            box: QSpinBox = getattr(self, name)
            out.append((name, None if box.value() < 0 else box.value()))
        for name in ("small_file_iops", "dataset_tb"):
            amount: QDoubleSpinBox = getattr(self, name)
            out.append((name, None if amount.value() < 0 else float(amount.value())))
        out.append(("gpudirect_storage", self.gpudirect_storage.currentData()))
        return tuple(out)

    def accept(self) -> None:
        op = SetTierFields(self.tier_id, self.values())
        self.document.push(EditCommand(self.document, op, "Set tier figures"))
        super().accept()
