"""The storage panel: each tier's capacity and bandwidth, and the storage rules' verdicts.

One row per tier (kind, name, appliances and how many are cabled, usable capacity, read
and write GB/s, the effective read and what limits it, and the storage-to-compute
ratio), from :func:`workbench.calc.storage_tiers.storage_figures`.  Below it the
verdicts: the hot read against the 50 GB/s rule, the GPU nodes as clients, then every
finding of the storage rules (green, amber, red), read from the document's live checker
(:attr:`Document.figures`), so the panel, the Checks view and ``workbench check`` agree.
"Add storage tier…" opens :class:`~workbench.ui.storage.dialogs.AddStorageTierDialog`.

It stays responsive on 100,000 GPUs: the figures (one pass over the links, ~50 ms there)
are recomputed only when an edit touches tiers, links, storage appliances or GPU nodes
(a server dragged to another unit does not), every refresh is put off with a
single-shot timer so a burst of edits costs one, and a panel that is not seen (its tab
behind Checks: :func:`~workbench.ui.seen.is_seen`) does nothing until its tab is raised.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.storage import MAX_CHECKPOINT_OVERHEAD
from workbench.calc.storage_tiers import (
    StorageFigures,
    TierFigures,
    storage_figures,
    touches_storage,
)
from workbench.model import Change
from workbench.render import colors
from workbench.rules.registry import Finding, Severity
from workbench.ui.seen import is_seen
from workbench.ui.shell.document import Document
from workbench.units import format_capacity, format_gbs, short_number

COLUMNS: tuple[str, ...] = (
    "Tier",
    "Name",
    "Appliances",
    "Cabled",
    "Usable",
    "Read",
    "Write",
    "Effective read",
    "TB per GPU",
    "GB/s per GPU",
)
#: Verdict states, and their colours: the rules' severity colours, green when passing.
STATE_COLORS: dict[str, str] = {
    "ok": colors.LOAD_OK,
    "info": colors.SEVERITY_COLORS[Severity.INFO],
    "warning": colors.SEVERITY_COLORS[Severity.WARNING],
    "error": colors.SEVERITY_COLORS[Severity.ERROR],
    "waived": colors.TEXT_MUTED,
    "checking": colors.TEXT_MUTED,
}
#: What the workload rules' silence means, as a passing line.
PASSING: dict[str, str] = {
    "STORAGE-CHECKPOINT": (
        f"Checkpoint saves take at most {MAX_CHECKPOINT_OVERHEAD:.0%} of their interval"
    ),
    "STORAGE-POOLS": "Datasets and checkpoints on separate pools",
}
#: Item data role holding a verdict's object ids (what clicking it selects).
OBJECTS_ROLE = Qt.ItemDataRole.UserRole + 1
STATE_ROLE = Qt.ItemDataRole.UserRole + 2


@dataclass(frozen=True)
class Verdict:
    """One line of the verdicts: its state (``ok``, ``warning``, ``error``, ``waived``,
    ``checking``), its text and what clicking it selects."""

    state: str
    text: str
    objects: tuple[str, ...] = ()
    rule: str = ""


def _state(found: Iterable[Finding], waived: set[tuple[str, str]]) -> str:
    live = [f for f in found if f.key not in waived]
    if any(f.severity is Severity.ERROR for f in live):
        return "error"
    if any(f.severity is Severity.WARNING for f in live):
        return "warning"
    return "ok"


def storage_verdicts(
    found: StorageFigures,
    gpus: int,
    findings: Iterable[Finding] | None,
    waived: set[tuple[str, str]],
    training: bool = True,
    dataset: Sequence[str] | None = None,
) -> list[Verdict]:
    """The panel's verdict lines: the hot read against the 50 GB/s rule and the clients,
    coloured by their rules' findings, then every storage finding, then what passes
    (``findings`` None: not checked yet; ``training``: the design has a training job
    for the checkpoint and pool rules to look at)."""
    # The storage rules' module registers them: imported when first read, with every
    # rule (after the first frame), not by building the panel.
    from workbench.rules.storage import (
        HOT_TIER_RULE_ABOVE_GPUS,
        STORAGE_RULES,
        hot_read,
        hot_tier_required_gbs,
        node_need_gbps,
    )

    ours = [f for f in findings or () if f.rule in STORAGE_RULES]
    by_rule = {rule: [f for f in ours if f.rule == rule] for rule in STORAGE_RULES}
    pending = findings is None
    lines = []
    # The tier the rule judges: the weakest of those the training jobs read
    # (``dataset``, rules.storage.dataset_tiers), every hot tier when not given.
    reads = [hot_read(found, (tier_id,)) for tier_id in dataset or ()]
    hot = min(reads, key=lambda r: r.read_gbs) if reads else hot_read(found)
    need = hot_tier_required_gbs(gpus)
    nodes = found.clients.nodes
    if not hot.tiers:
        text = "No hot tier"
    else:
        text = f"Hot read {format_gbs(hot.read_gbs)} ({hot.limit_text(len(nodes))})"
    if need:
        text += f" against the {need:g} GB/s rule ({gpus:,} GPUs, above {HOT_TIER_RULE_ABOVE_GPUS})"
    else:
        text += f"; the 50 GB/s rule applies above {HOT_TIER_RULE_ABOVE_GPUS} GPUs ({gpus:,} here)"
    state = "checking" if pending else _state(by_rule["STORAGE-HOT-TIER"], waived)
    lines.append(Verdict(state, text, hot.tiers, "STORAGE-HOT-TIER"))
    if nodes:
        slowest = min(nodes, key=lambda n: (n.gbps / max(n.gpus, 1), str(n.name)))  # bytes too
        clients = found.clients
        text = (
            f"Clients: {len(nodes):,} GPU nodes, {format_gbs(clients.gbs)} of storage "
            f"bandwidth in all ({clients.cabled:,} cabled); slowest {slowest.name}: "
            f"{short_number(slowest.gbps)} Gb/s for {slowest.gpus} GPUs (needs "
            f"{short_number(node_need_gbps(slowest.gpus))})"
        )
        state = "checking" if pending else _state(by_rule["STORAGE-CLIENT"], waived)
        lines.append(Verdict(state, text, (slowest.device_id,), "STORAGE-CLIENT"))
    if pending:
        lines.append(Verdict("checking", "Checking the design…"))
        return lines
    for finding in ours:
        state = "waived" if finding.key in waived else finding.severity.label
        suffix = " (waived)" if state == "waived" else ""
        lines.append(Verdict(state, f"{finding.message}{suffix}", finding.objects, finding.rule))
    for rule, text in PASSING.items():
        if not by_rule[rule]:
            if training:
                lines.append(Verdict("ok", text, (), rule))
            else:
                lines.append(
                    Verdict("info", f"No training workload: {text.lower()} not checked", (), rule)
                )
    return lines


class StoragePanel(QWidget):
    """The tiers table, the verdicts and "Add storage tier…" (see the module docstring)."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("storagePanel")
        self.document = document
        self.figures: StorageFigures | None = None
        #: How many times the figures were computed (tests check that drags skip it).
        self.computed = 0
        self._stale = True
        self._shown_version: tuple[int, int, int] | None = None
        self._filling = False
        title = QLabel("Storage tiers")
        title.setStyleSheet("font-weight: 600;")
        self.add_button = QPushButton("Add storage tier…")
        self.add_button.setObjectName("addStorageTier")
        self.add_button.clicked.connect(self.open_add_dialog)
        self.figures_button = QPushButton("Tier figures…")
        self.figures_button.setToolTip(
            "Metadata servers, small-file IOPS, dataset size and concurrent jobs of the "
            "selected tier"
        )
        self.figures_button.clicked.connect(self.open_figures_dialog)
        head = QHBoxLayout()
        head.addWidget(title)
        head.addStretch(1)
        head.addWidget(self.figures_button)
        head.addWidget(self.add_button)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("storageTiers")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the tier's name
        self.table.itemSelectionChanged.connect(self._on_tier_selected)
        self.empty = QLabel("No storage tiers yet: add one to see capacity and bandwidth.")
        self.empty.setObjectName("storageEmpty")
        self.empty.setStyleSheet(f"color: {colors.TEXT_MUTED};")
        self.verdicts = QListWidget()
        self.verdicts.setObjectName("storageVerdicts")
        self.verdicts.setWordWrap(True)
        self.verdicts.itemClicked.connect(self._on_verdict_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(head)
        # Side by side: the panel is a wide, short strip under the canvas.
        body = QHBoxLayout()
        tables = QVBoxLayout()
        tables.addWidget(self.table, 1)
        tables.addWidget(self.empty)
        body.addLayout(tables, 3)
        body.addWidget(self.verdicts, 2)
        layout.addLayout(body, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._refresh_if_seen)
        document.changed.connect(self._on_changed)
        document.designReplaced.connect(self._on_design_replaced)
        document.figures.findingsReady.connect(self.schedule)
        # The first figures come after the first paint (a big design opens at once).
        self.schedule()

    # -- keeping current ---------------------------------------------------------------
    def _on_changed(self, change: Change) -> None:
        if touches_storage(self.document.design, change):
            self._stale = True
        if change.waivers:
            self._shown_version = None
        self.schedule()

    def _on_design_replaced(self) -> None:
        self._stale = True
        self._shown_version = None
        self.schedule()

    def schedule(self) -> None:
        """Refresh after the pending events (one refresh for a burst of edits)."""
        self._timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.schedule()

    def on_exposed(self) -> None:
        """The panel came into view (its dock's tab raised): catch up."""
        self.schedule()

    def _refresh_if_seen(self) -> None:
        if is_seen(self):
            self.refresh()

    def refresh(self) -> None:
        """Bring the table (when stale) and the verdicts (when the findings moved) up to
        date now."""
        self._timer.stop()
        design = self.document.design
        if self._stale or self.figures is None:
            self.figures = storage_figures(design)
            self.computed += 1
            self._stale = False
            self._fill_table(self.figures.tiers)
            self._shown_version = None
        self._show_verdicts()

    def _fill_table(self, tiers: Iterable[TierFigures]) -> None:
        rows = list(tiers)
        self._filling = True
        try:
            self.table.clearSelection()
            self.table.setRowCount(len(rows))
            for row, tier in enumerate(rows):
                cells = (
                    tier.kind,
                    tier.name,
                    f"{tier.devices:,}",
                    tier.cabled_text.removesuffix(" cabled"),
                    format_capacity(tier.usable_tb),
                    format_gbs(tier.read_gbs),
                    format_gbs(tier.write_gbs),
                    f"{format_gbs(tier.effective_read_gbs)} ({tier.read_limit})",
                    format_capacity(tier.usable_tb_per_gpu),
                    format_gbs(tier.read_gbs_per_gpu),
                )
                tip = "\n".join(
                    (
                        f"{format_capacity(tier.raw_tb)} raw × {tier.usable_fraction:.0%} "
                        f"usable ({tier.usable_source})",
                        *tier.notes,
                    )
                )
                for column, text in enumerate(cells):
                    cell = QTableWidgetItem(text)
                    cell.setData(Qt.ItemDataRole.UserRole, tier.tier_id)
                    cell.setToolTip(tip)
                    if column >= 2:
                        cell.setTextAlignment(
                            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                        )
                    if column == 3 and tier.uncabled_devices:
                        cell.setForeground(QBrush(QColor(STATE_COLORS["warning"])))
                    self.table.setItem(row, column, cell)
        finally:
            self._filling = False
        self.table.setVisible(bool(rows))
        self.empty.setVisible(not rows)

    def _show_verdicts(self) -> None:
        figures = self.document.figures
        assert self.figures is not None
        if not figures.checked:
            figures.check_soon()
            findings = None
            version = None
        else:
            checker = figures.checker
            findings = checker.findings()
            version = (checker.version, len(self.document.design.waivers), self.computed)
        if version is not None and version == self._shown_version:
            return
        self._shown_version = version
        design = self.document.design
        from workbench.rules.storage import dataset_tiers

        lines = storage_verdicts(
            self.figures,
            figures.summary.gpus,
            findings,
            figures.waived() if findings else set(),
            training=any(w.kind == "training" for w in design.workloads),
            dataset=dataset_tiers(design),
        )
        self.verdicts.clear()
        for line in lines:
            item = QListWidgetItem(f"● {line.text}")
            item.setForeground(QBrush(QColor(STATE_COLORS[line.state])))
            item.setData(OBJECTS_ROLE, list(line.objects))
            item.setData(STATE_ROLE, line.state)
            item.setToolTip(line.rule)
            self.verdicts.addItem(item)

    def open_figures_dialog(self) -> bool:
        """The selected tier's (else the first tier's) planning figures."""
        from workbench.ui.storage.figures_dialog import TierFiguresDialog

        tiers = self.document.design.storage_tiers
        if not tiers:
            return False
        rows = {i.row() for i in self.table.selectedItems()}
        chosen = tiers[0]
        if len(rows) == 1:
            cell = self.table.item(rows.pop(), 0)
            wanted = cell.data(Qt.ItemDataRole.UserRole) if cell is not None else None
            chosen = next((t for t in tiers if t.id == wanted), chosen)
        self.figures_dialog = TierFiguresDialog(self.document, chosen, self)
        self.figures_dialog.open()
        return True

    # -- reading (for tests and the window) --------------------------------------------
    def tier_row(self, tier_id: str) -> int:
        """The table row of a tier, or -1."""
        for row in range(self.table.rowCount()):
            cell = self.table.item(row, 0)
            if cell is not None and cell.data(Qt.ItemDataRole.UserRole) == tier_id:
                return row
        return -1

    def verdict_lines(self) -> list[tuple[str, str]]:
        """(state, text) of every verdict line shown."""
        out = []
        for i in range(self.verdicts.count()):
            item = self.verdicts.item(i)
            out.append((item.data(STATE_ROLE), item.text().removeprefix("● ")))
        return out

    # -- acting ------------------------------------------------------------------------
    def _select_objects(self, object_ids: Iterable[str]) -> None:
        design = self.document.design
        tiers = {t.id: t for t in design.storage_tiers}
        devices: list[str] = []
        for object_id in object_ids:
            tier = tiers.get(object_id)
            if tier is not None:
                devices += tier.device_ids
            else:
                devices.append(object_id)
        present = [d for d in devices if d in design.index.devices]
        if present:
            self.document.select_many(present)

    def _on_tier_selected(self) -> None:
        if self._filling:
            return
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        for row in rows:
            cell = self.table.item(row, 0)
            if cell is not None:
                self._select_objects([cell.data(Qt.ItemDataRole.UserRole)])

    def _on_verdict_clicked(self, item: QListWidgetItem) -> None:
        self._select_objects(item.data(OBJECTS_ROLE) or [])

    def open_add_dialog(self) -> None:
        """Open "Add storage tier…" (modal); the panel refreshes from the change it makes."""
        from workbench.ui.storage.dialogs import AddStorageTierDialog

        dialog = AddStorageTierDialog(self.document, self)
        self.dialog = dialog  # kept for tests and for the status bar message
        dialog.open()


__all__ = ["StoragePanel", "Verdict", "storage_verdicts", "touches_storage"]
