"""The as-built list of the Cables panel: what an installer has to go and fix.

The Fabric view marks wrong design links on their bundles, but a captured cable the
design does not have (``unexpected``) is no design link and has no line to mark, and a
bundle of 300 links shows only a count.  This list names them one by one: the captured
cables the design lacks first, then the wrong links of the panel's plane, each with
what the capture saw and its file:line.  Double-clicking a wrong link selects it (the
Fabric view lights its bundle, the inspector shows it).

It reads the shared verdicts (:class:`~workbench.ui.fabric.asbuilt.AsBuiltCache`) only
while it is shown, and is hidden while the design holds no captures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.fabric.asbuilt import MARK_ORDER, MARK_STYLES, UNEXPECTED_COLOR, AsBuiltCache
from workbench.ui.seen import is_seen
from workbench.ui.shell.document import Document
from workbench.units import format_count

if TYPE_CHECKING:  # the matcher is imported when verdicts are first read
    from workbench.asbuilt import Verdict

COLUMNS: tuple[str, ...] = ("Verdict", "Designed", "Seen", "Where", "Detail")
#: Rows listed at most (a whole unbuilt plane would be 100,000 missing links).
MAX_ROWS = 2000


class AsBuiltList(QWidget):
    """The plane's wrong links and the unexpected cables (see the module docstring).

    ``plane`` tells which plane the panel shows.
    """

    def __init__(self, document: Document, plane: Callable[[], str], parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        self.plane = plane
        self.cache = AsBuiltCache.for_document(document)
        self.shown: list[Verdict] = []
        self.title = QLabel()
        self.title.setObjectName("asbuiltTitle")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("asbuiltList")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.cellDoubleClicked.connect(self._select_row)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        self._stale = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._refresh_if_seen)
        self.cache.changed.connect(self.invalidate)
        self.setVisible(self.cache.has_captures)

    def invalidate(self) -> None:
        """Read the verdicts again (now when the panel is shown, else when it is)."""
        self._stale = True
        self.setVisible(self.cache.has_captures)
        if is_seen(self):
            self._timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.on_exposed()

    def on_exposed(self) -> None:
        """The list came into view (its dock's tab raised): read what it put off."""
        if self._stale:
            self._timer.start()

    def _refresh_if_seen(self) -> None:
        if self._stale and is_seen(self):
            self.refresh()

    def refresh(self) -> None:
        """Fill the table: unexpected cables, then the plane's wrong links."""
        self._stale = False
        if not self.cache.has_captures:
            self.shown = []
            self.table.setRowCount(0)
            self.hide()
            return
        design = self.document.design
        plane = self.plane()
        plane_of = {n.id: n.plane for n in design.networks}
        links = design.index.links
        unexpected = self.cache.unexpected()
        wrong = [
            v
            for lid, v in self.cache.wrong().items()
            if lid in links and plane_of.get(links[lid].network or "") == plane
        ]
        order = {v: i for i, v in enumerate(MARK_ORDER)}
        wrong.sort(key=lambda v: order.get(v.verdict, len(order)))
        every = unexpected + wrong
        self.shown = every[:MAX_ROWS]
        more = f" (the first {MAX_ROWS:,})" if len(every) > MAX_ROWS else ""
        self.title.setText(
            f"<b>As built</b>: {format_count(len(unexpected), 'unexpected cable')}, "
            f"{format_count(len(wrong), 'wrong link')} on the {plane} plane{more}"
        )
        self.table.setRowCount(len(self.shown))
        for row, v in enumerate(self.shown):
            cells = (v.verdict, self._designed(v), v.found or "—", v.where or "—", v.detail)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 0:
                    style = MARK_STYLES.get(v.verdict)
                    item.setForeground(QColor(style[1] if style else UNEXPECTED_COLOR))
                item.setData(Qt.ItemDataRole.UserRole, v.link_id)
                self.table.setItem(row, column, item)

    def _designed(self, v: Verdict) -> str:
        """The designed link's ends in the design's names (— for an unexpected cable)."""
        link = self.document.design.index.links.get(v.link_id) if v.link_id else None
        if link is None:
            return "—"
        devices = self.document.design.index.devices

        def name(device_id: str) -> str:
            found = devices.get(device_id)
            return found[1].name if found is not None else device_id

        return f"{name(link.a_device)} {link.a_port} ↔ {name(link.b_device)} {link.b_port}"

    def _select_row(self, row: int, _column: int) -> None:
        item = self.table.item(row, 0)
        link_id = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if link_id:
            self.document.select(link_id)
