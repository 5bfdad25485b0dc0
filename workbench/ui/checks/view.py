"""The Checks view: every finding of the design rules, grouped, filtered and acted on.

Findings come from the document's live figures (the rules engine, re-run incrementally
after each edit); this view only shows them.  Double-clicking a finding selects its
object and asks the window to show it (the rack view scrolls to a device or rack, the
Estimates view opens a workload); the context menu waives a finding with a note, or
takes a waiver back, each as one undoable command.
"""

from __future__ import annotations

import datetime as _dt

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from workbench.model import Change, Waiver, ops
from workbench.rules.full_check import count
from workbench.rules.registry import INTERNAL_ERROR, Finding, Severity, all_rules
from workbench.ui.checks.model import FindingsModel, Row, object_name
from workbench.ui.checks.tree import FindingsTree
from workbench.ui.commands import EditCommand
from workbench.ui.one_pass import set_text_keeping_width
from workbench.ui.seen import is_seen
from workbench.ui.shell.document import Document
from workbench.units import format_count

#: Groups with more findings than this start collapsed.
EXPAND_AT_MOST = 500

_SEVERITY_CHOICES: tuple[tuple[str, Severity], ...] = (
    ("All severities", Severity.INFO),
    ("Warnings and errors", Severity.WARNING),
    ("Errors only", Severity.ERROR),
)


class ChecksView(QWidget):
    """A filter bar over a tree of findings."""

    #: An object the user asked to see (device, rack, workload or tier id).
    showObject = Signal(str)

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.model = FindingsModel(self)
        self._rows_by_finding: dict[Finding, Row] = {}
        #: (checker version, number of waivers, id of the design) last shown.
        self._shown_version: tuple[int, int, int] | None = None
        #: Edits came while the view was not seen (None: none); True when one of them
        #: asks for the rows to be rebuilt even if the findings are the same.
        self._behind: bool | None = None

        self.severity = QComboBox()
        self.severity.setObjectName("checksSeverity")
        for text, severity in _SEVERITY_CHOICES:
            self.severity.addItem(text, int(severity))
        self.rule = QComboBox()
        self.rule.setObjectName("checksRule")
        self.rule.addItem("All rules", "")
        # Each rule is added once the first check has loaded them (_list_rules): the
        # rule modules and what they compute with are no part of the first frame.
        self.rule.setMinimumContentsLength(16)
        self.rule.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.grouping = QComboBox()
        self.grouping.setObjectName("checksGrouping")
        for text, key in (
            ("Group by severity", "severity"),
            ("Group by rule", "rule"),
            ("Group by object", "object"),
        ):
            self.grouping.addItem(text, key)
        self.search = QLineEdit()
        self.search.setObjectName("checksSearch")
        self.search.setPlaceholderText("Filter by object or text…")
        self.search.setClearButtonEnabled(True)
        self.show_waived = QCheckBox("Show waived")
        self.show_waived.setChecked(True)
        self.summary = QLabel()
        self.summary.setObjectName("checksSummary")
        # Right-aligned: it keeps the width of its longest count (set_text_keeping_width).
        self.summary.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # Opaque, so a new count repaints the label alone, not the dock beneath it too.
        self.summary.setAutoFillBackground(True)

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 2)
        for widget in (self.severity, self.rule, self.grouping):
            bar.addWidget(widget)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.show_waived)
        bar.addWidget(self.summary)

        self.tree = FindingsTree()
        self.tree.setObjectName("checksTree")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column, width in ((1, 150), (2, 190), (3, 200)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, width)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.tree, 1)

        self.severity.currentIndexChanged.connect(self._on_filters_changed)
        self.rule.currentIndexChanged.connect(self._on_filters_changed)
        self.grouping.currentIndexChanged.connect(self._on_filters_changed)
        self.search.textChanged.connect(self._on_filters_changed)
        self.show_waived.toggled.connect(self._on_filters_changed)
        self.tree.doubleClicked.connect(self._on_double_clicked)
        self.tree.activated.connect(self._on_double_clicked)
        self.tree.customContextMenuRequested.connect(self._on_context_menu)
        document.changed.connect(self._on_document_changed)
        document.designReplaced.connect(self.refresh)
        document.figures.findingsReady.connect(self.refresh)
        self.refresh()

    # -- filling ------------------------------------------------------------------------
    def _on_document_changed(self, change: Change) -> None:
        # A move or a rename changes where a finding's object is, or what it is called,
        # without changing the finding: its row must follow.
        force = bool(change.waivers or change.moved or change.labels)
        if not is_seen(self):
            # Covered by another tab of its dock, or closed: rows nobody sees are not
            # rebuilt after every edit; they catch up when the tab is raised.
            self._behind = bool(self._behind) or force
            return
        self.refresh(force=force)

    def on_exposed(self) -> None:
        """The dock's tab came to the front: show what the edits made meanwhile."""
        if self._behind is not None:
            force, self._behind = self._behind, None
            self.refresh(force=force)

    def refresh(self, force: bool = False) -> None:
        """Show the current findings (only rebuilt when they or the waivers differ)."""
        figures = self.document.figures
        if not figures.checked:
            self._shown_version = None
            self.model.set_rows([])
            set_text_keeping_width(self.summary, "Checking…")
            self.tree.set_placeholder("Checking the design…")
            figures.check_soon()
            return
        self._list_rules()
        checker = figures.checker
        version = (checker.version, len(self.document.design.waivers), id(self.document.design))
        if not force and version == self._shown_version:
            return
        self._shown_version = version
        design = self.document.design
        waivers = {(w.rule, w.object_id): w for w in design.waivers}
        # A finding that did not change keeps its row (a rule re-run after an edit makes
        # new findings only for what it re-checked): thousands of rows are not rebuilt.
        cache, self._rows_by_finding = self._rows_by_finding, {}
        rows = []
        for f in checker.findings():
            waiver = waivers.get(f.key)
            row = cache.get(f)
            name = object_name(design, f.object_id)
            if row is None or row.waiver is not waiver or row.object_name != name:
                row = Row(f, name, waiver)
            self._rows_by_finding[f] = row
            rows.append(row)
        self.model.set_rows(rows)
        self._expand_groups()
        self._show_summary(rows)

    def _list_rules(self) -> None:
        """Offer every rule in the rule filter (once: the rules are loaded by now)."""
        if self.rule.count() == 1:
            for rule in all_rules().values():
                self.rule.addItem(f"{rule.id}: {rule.title}", rule.id)

    def _expand_groups(self) -> None:
        """Open the groups a person can read through; a group of thousands (every rack
        of a hall over its limit) stays closed until clicked, because laying out its
        rows after every edit would cost more than the edit (~30 ms per 7,000).  A group
        opened by a click closes again when the findings change, as it did when every
        change reset the model (the model now updates its rows in place)."""
        for group in range(self.model.rowCount()):
            index = self.model.index(group, 0)
            if len(self.model.groups[group].rows) <= EXPAND_AT_MOST:
                self.tree.expand(index)
            else:
                self.tree.collapse(index)

    def _show_summary(self, rows: list[Row]) -> None:
        # The status strip's count (rules.full_check.count), so the two always agree.
        counts = count((r.finding for r in rows), {r.finding.key for r in rows if r.waived})
        text = (
            f"{format_count(counts.errors, 'error')} · {format_count(counts.warnings, 'warning')}"
        )
        if counts.waived:
            text += f" · {counts.waived:,} waived"
        shown = self.model.visible_count()
        if shown != len(rows):
            text += f" · {shown:,} shown"
        set_text_keeping_width(self.summary, text)
        # Said in the tree itself when it is empty (see FindingsTree: no page swapped).
        if not rows:
            self.tree.set_placeholder(
                f"✔ The design passes all {len(all_rules())} design rules: nothing to fix."
            )
        elif not shown:
            self.tree.set_placeholder("No finding matches the filters.")

    def _on_filters_changed(self, *_args) -> None:
        self.model.set_filters(
            grouping=self.grouping.currentData(),
            min_severity=Severity(self.severity.currentData()),
            rule=self.rule.currentData(),
            text=self.search.text(),
            show_waived=self.show_waived.isChecked(),
        )
        self._expand_groups()
        if self._shown_version is None:
            # Still checking: no rows yet is not "the design passes" (refresh says so
            # once the check ends).
            return
        self._show_summary(self.model._rows)

    # -- acting -------------------------------------------------------------------------
    def current_row(self) -> Row | None:
        return self.model.row_at(self.tree.currentIndex())

    def _on_double_clicked(self, index: QModelIndex) -> None:
        row = self.model.row_at(index)
        if row is not None:
            self.show_finding(row)

    def show_finding(self, row: Row) -> None:
        """Select what the finding is about and have the window bring it into view."""
        design = self.document.design
        target = row.finding.object_id
        tier = next((t for t in design.storage_tiers if t.id == target), None)
        if tier is not None:
            present = [d for d in tier.device_ids if d in design.index.devices]
            self.document.select_many(present)
            if present:
                self.showObject.emit(present[-1])
            return
        if design.index.in_use(target):
            if design.index.kind_of(target) != "workload":
                self.document.select(target)
            self.showObject.emit(target)

    def _on_context_menu(self, pos: QPoint) -> None:
        row = self.model.row_at(self.tree.indexAt(pos))
        if row is None:
            return
        menu = self.context_menu(row)
        menu.exec(self.tree.viewport().mapToGlobal(pos))

    def context_menu(self, row: Row) -> QMenu:
        """The actions on one finding (built separately so tests can trigger them)."""
        menu = QMenu(self)
        menu.addAction("Show", lambda: self.show_finding(row))
        if row.waiver is None:
            waive = menu.addAction("Waive…", lambda: self.waive(row))
            waive.setEnabled(row.finding.rule != INTERNAL_ERROR)
        else:
            menu.addAction("Remove waiver", lambda: self.unwaive(row))
        menu.addSeparator()
        menu.addAction(
            "Copy message",
            lambda: QGuiApplication.clipboard().setText(
                f"{row.finding.rule}: {row.finding.message}"
            ),
        )
        return menu

    def ask_waiver_note(self, row: Row) -> str | None:
        """The note for a waiver, typed by the user (None: cancelled)."""
        text, ok = QInputDialog.getMultiLineText(
            self,
            "Waive finding",
            f"{row.finding.rule} on {row.object_name}:\n{row.finding.message}\n\n"
            "Why is this accepted? (kept in the design, shown with the finding)",
        )
        return text if ok else None

    def waive(self, row: Row) -> None:
        note = self.ask_waiver_note(row)
        if note is None:
            return
        waiver = Waiver(
            row.finding.rule,
            row.finding.object_id,
            note.strip(),
            _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        )
        self.document.push(
            EditCommand(self.document, ops.AddWaiver(waiver), f"Waive {row.finding.rule}")
        )

    def unwaive(self, row: Row) -> None:
        f = row.finding
        self.document.push(
            EditCommand(self.document, ops.RemoveWaiver(f.rule, f.object_id), f"Unwaive {f.rule}")
        )


__all__ = ["ChecksView", "object_name"]
