"""The Versions tab: the node × layer matrix, the baseline editor and the verdicts.

Left, the table (:mod:`versions_model`): sortable, filtered by node name or value, with
"drifted only" for the question site engineers ask first.  Right, the baseline editor
(:mod:`baseline_editor`), whose every edit is one undo step, and the compatibility
panel: the VERSION-* findings of the rules engine with their reasons and sources (the
same findings as the Checks view and ``workbench check``).

The view mirrors the model: it reloads when a change touches the version matrix or
device names, and never holds versions of its own.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.shell.document import Change, Document
from workbench.ui.versions.baseline_editor import BaselineEditor
from workbench.ui.versions.model import VersionTableModel
from workbench.ui.versions.version_import import import_reports, import_results


class _Filter(QSortFilterProxyModel):
    """Text in any cell, and optionally drifted rows only."""

    def __init__(self, model: VersionTableModel):
        super().__init__()
        self.table = model
        self.drifted_only = False
        self.needle = ""  # folded filter text (not a regex: "535.104" means what it says)
        self.setSourceModel(model)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setSortRole(Qt.ItemDataRole.UserRole)

    def filterAcceptsRow(self, row: int, parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        if self.drifted_only and not self.table.is_drifted(row):
            return False
        return not self.needle or self.needle in self.table.haystack(row)


class VersionsView(QWidget):
    """The tab (see the module docstring)."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.model = VersionTableModel(self)
        self._stale = False
        self.proxy = _Filter(self.model)

        self.search = QLineEdit(placeholderText="Filter nodes or versions…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._on_filter)
        self.drifted = QCheckBox("Drifted only")
        self.drifted.toggled.connect(self._on_drifted)
        self.import_button = QPushButton("Import Reports…")
        self.import_button.setToolTip(
            "Read a folder of what the nodes report (nvidia-smi, uname -r, ethtool -i, "
            "ibstat, dmidecode -t bios): DIR/NODE/*.txt or DIR/NODE.anything"
        )
        self.import_button.clicked.connect(lambda: import_reports(self, self.document))
        self.results_button = QPushButton("Import Results…")
        self.results_button.setToolTip(
            "Read the results-<node>.csv files health_check.sh wrote "
            "(File ▸ Export ▸ Health Check Script…) into the Acceptance column"
        )
        self.results_button.clicked.connect(lambda: import_results(self, self.document))
        self.counts = QLabel()

        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.drifted)
        top.addWidget(self.import_button)
        top.addWidget(self.results_button)
        top.addWidget(self.counts)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        rows = self.table.verticalHeader()
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)  # compact, like Checks
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.selectionModel().currentRowChanged.connect(self._on_row)

        self.editor = BaselineEditor(document)
        self.verdicts = QListWidget()
        self.verdicts.setWordWrap(True)
        self.verdicts.itemDoubleClicked.connect(self._on_verdict)
        compat = QWidget()
        compat_layout = QVBoxLayout(compat)
        compat_layout.setContentsMargins(0, 0, 0, 0)
        compat_layout.addWidget(QLabel("<b>Compatibility</b>"))
        compat_layout.addWidget(self.verdicts, 1)
        below = QSplitter(Qt.Orientation.Horizontal)
        below.addWidget(self.editor)
        below.addWidget(compat)
        below.setSizes([420, 600])

        # The matrix on top at full width (its layers are many columns); the editor and
        # the verdicts below it, side by side.
        self.empty = QLabel(
            "No GPU node follows a baseline and none has reported yet.\n\n"
            "Start a stack with New… below and Assign it to node names, or read what the "
            "nodes report with Import Reports… (nvidia-smi, uname -r, ethtool -i, ibstat, "
            "dmidecode -t bios)."
        )
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: #667;")
        self.pages = QStackedWidget()
        self.pages.addWidget(self.table)
        self.pages.addWidget(self.empty)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.pages)
        split.addWidget(below)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)

        document.changed.connect(self._on_changed)
        document.designReplaced.connect(self._on_design_replaced)
        document.selectionChanged.connect(self._on_selection)
        document.figures.findingsReady.connect(self._show_verdicts)
        # Filled when first shown: a tab nobody opened costs nothing at start.
        self._stale = True

    def _on_design_replaced(self) -> None:
        self._stale = True
        if self.isVisible():
            self.reload()

    # -- mirroring the model -------------------------------------------------------------
    def _on_changed(self, change: Change) -> None:
        """Reload for what can change a row: the matrix, devices coming, going or being
        renamed (a node is a name), their types, acceptance results (a design change).  A drag (devices only moved) cannot, and
        at 12,500 nodes must not cost a reload; a hidden tab reloads when next shown."""
        renamed = change.devices - change.moved
        if not (change.everything or change.versions or change.types or change.added
                or change.removed or renamed or change.design):  # fmt: skip
            return
        self._stale = True
        if self.isVisible():
            self.reload()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._stale:
            self.reload()

    def reload(self) -> None:
        self._stale = False
        self.model.load(self.document.design)
        self.pages.setCurrentWidget(self.table if self.model.rowCount() else self.empty)
        self._fit_columns()
        self._show_counts()
        self.editor.reload()
        self._show_verdicts()

    def _fit_columns(self) -> None:
        """Columns as wide as their text.  Qt measures every row to do that, so a big
        matrix is measured on its first rows only (12,500 rows would take a second)."""
        header = self.table.horizontalHeader()
        if self.model.rowCount() <= 300:
            self.table.resizeColumnsToContents()
            return
        metrics = self.fontMetrics()
        for column in range(self.model.columnCount()):
            texts = [str(self.model.headerData(column, Qt.Orientation.Horizontal) or "")]
            texts += [
                str(self.model.data(self.model.index(row, column)) or "") for row in range(200)
            ]
            header.resizeSection(column, min(320, max(map(metrics.horizontalAdvance, texts)) + 18))

    def _show_counts(self) -> None:
        total = self.model.rowCount()
        drifted = sum(1 for row in range(total) if self.model.is_drifted(row))
        self.counts.setText(f"{total:,} nodes, {drifted:,} drifted")

    def _show_verdicts(self) -> None:
        self.verdicts.clear()
        figures = self.document.figures
        if not figures.checked:
            self.verdicts.addItem("Checking the design…")
            figures.check_soon()  # findingsReady calls back here
            return
        findings = [f for f in figures.checker.findings() if f.rule.startswith("VERSION-")]
        findings.sort(key=lambda f: (-f.severity, f.rule))
        for f in findings[:500]:  # a list, not a report: the Checks view has them all
            item = QListWidgetItem(f"{f.severity.name.title()} · {f.rule}: {f.message}")
            item.setData(Qt.ItemDataRole.UserRole, f.object_id)
            item.setToolTip(f.message)
            self.verdicts.addItem(item)
        if not findings and not self.model.rowCount():
            self.verdicts.addItem("Nothing to check yet: no baseline and no reports.")
        elif not findings:
            self.verdicts.addItem("No version findings: every stack checked is compatible.")

    # -- filters and selection -----------------------------------------------------------
    def _on_filter(self, text: str) -> None:
        self._refilter(text.strip().casefold(), self.proxy.drifted_only)
        self._show_counts()

    def _on_drifted(self, on: bool) -> None:
        self._refilter(self.proxy.needle, on)

    def _refilter(self, needle: str, drifted_only: bool) -> None:
        proxy = self.proxy
        if hasattr(proxy, "beginFilterChange"):  # Qt 6.9+; invalidateFilter is deprecated
            proxy.beginFilterChange()
            proxy.needle, proxy.drifted_only = needle, drifted_only
            proxy.endFilterChange()
        else:  # pragma: no cover - older PySide6
            proxy.needle, proxy.drifted_only = needle, drifted_only
            proxy.invalidateRowsFilter()

    def _on_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        nv = self.model.rows[self.proxy.mapToSource(current).row()]
        if nv.device_id is not None and nv.device_id != self.document.selection:
            self.document.select(nv.device_id)

    def _on_selection(self, _selected: object) -> None:
        device_id = self.document.selection
        for row, nv in enumerate(self.model.rows):
            if nv.device_id is not None and nv.device_id == device_id:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                if index.isValid() and self.table.currentIndex().row() != index.row():
                    self.table.setCurrentIndex(index)
                return

    def _on_verdict(self, item: QListWidgetItem) -> None:
        object_id = item.data(Qt.ItemDataRole.UserRole)
        if object_id:
            self.document.select(object_id)
