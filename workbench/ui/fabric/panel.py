"""The Cables panel: one plane's figures and its cable summary, beside Checks and Storage.

What a network engineer reads after generating or drawing a plane (journey 4): the
tiers with their switch counts and oversubscription, the bisection bandwidth and the
longest path, what the worst single leaf or spine failure costs, and the cables and
optics by media, stocked length and catalog part, which the BOM will count the same way.
Everything comes from :func:`workbench.calc.fabric.analysis.analyse_plane`; the panel only
lays it out.

The analysis reads every link of the plane (about 0.9 s for the 300,000 compute links of
a 100,000-GPU design), so it runs only while the panel is seen (:func:`~workbench.ui.seen.
is_seen`: a Cables tab behind Checks is not), after the edits that can change it (links,
networks, device types, racks moving on the floor), and once per burst of edits on a
single-shot timer; a covered panel catches up when its tab is raised.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.model import PLANES, Change
from workbench.model.ports import MEDIA
from workbench.render import colors
from workbench.ui.asbuilt.list_view import AsBuiltList
from workbench.ui.seen import is_seen
from workbench.ui.shell.document import Document
from workbench.units import format_count, short_number

if TYPE_CHECKING:
    from workbench.calc.fabric.analysis import PlaneReport

log = logging.getLogger(__name__)

#: What the plane selector says for each plane.
PLANE_TITLES: dict[str, str] = {
    "compute": "Compute",
    "storage": "Storage",
    "management": "Management",
    "oob": "Out-of-band",
}
COLUMNS: tuple[str, ...] = ("Media", "Length", "Cables")
#: Media as a count reads: "468 DAC, 942 multimode".
MEDIA_SHORT: dict[str, str] = {
    "dac": "DAC",
    "aoc": "AOC",
    "mmf": "multimode",
    "smf": "single-mode",
    "utp": "twisted pair",
}
PART_COLUMNS: tuple[str, ...] = ("Part to order", "Count")


def touches_fabric(change: Change) -> bool:
    """Whether ``change`` can move a plane's figures or cable lengths."""
    return bool(
        change.everything
        or change.links
        or change.networks
        or change.types
        or change.floor
        or change.layout
        or change.added
        or change.removed
        or change.moved
    )


def summary_lines(report: PlaneReport) -> list[str]:
    """The plane's figures in a few sentences."""
    if not report.links:
        return [f"No links on the {PLANE_TITLES.get(report.plane, report.plane)} plane yet."]
    tiers = ", ".join(
        f"{format_count(t.switches, t.name, 'leaves' if t.name == 'leaf' else None)}"
        + (f" at {short_number(t.ratio)}:1" if t.ratio is not None else "")
        for t in report.tiers
    )
    lines = [
        f"{format_count(report.hosts, 'host')}, {format_count(report.links, 'link')}; {tiers}.",
        f"Bisection {short_number(report.bisection_tbps)} Tb/s; "
        + (
            f"at most {report.hops.hops} switch hops between hosts."
            if report.hops.hops is not None
            else "hop count unknown (the plane is not in one piece)."
        ),
    ]
    for tier, impact in sorted(report.worst_failures.items()):
        what = "leaf" if tier == 1 else "spine"
        cut = len(impact.hosts_cut_off)
        lines.append(
            f"Worst single {what} failure: {short_number(impact.bandwidth_lost_pct)} % of its "
            f"layer's bandwidth lost, "
            + (f"{format_count(cut, 'host')} cut off." if cut else "no host cut off.")
        )
    if report.uncabled_hosts:
        lines.append(f"{format_count(len(report.uncabled_hosts), 'host')} not cabled.")
    return lines


class FabricPanel(QWidget):
    """A plane selector, the plane's figures and its cable summary table."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("fabricPanel")
        self.document = document
        self.report: PlaneReport | None = None
        self._stale = True
        self.plane_box = QComboBox()
        self.plane_box.setObjectName("cablesPlane")
        for plane in PLANES:
            self.plane_box.addItem(PLANE_TITLES.get(plane, plane), plane)
        self.plane_box.currentIndexChanged.connect(self._on_plane_chosen)
        self.figures = QLabel()
        self.figures.setObjectName("fabricFigures")
        self.figures.setWordWrap(True)
        self.figures.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("cableSummary")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.parts = QTableWidget(0, len(PART_COLUMNS))
        self.parts.setObjectName("cableParts")
        self.parts.setHorizontalHeaderLabels(list(PART_COLUMNS))
        self.parts.verticalHeader().hide()
        self.parts.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        parts_header = self.parts.horizontalHeader()
        parts_header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        parts_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.totals = QLabel()
        self.totals.setObjectName("cableTotals")
        self.totals.setStyleSheet(f"color: {colors.TEXT_MUTED};")
        head = QHBoxLayout()
        head.addWidget(QLabel("Plane"))
        head.addWidget(self.plane_box)
        head.addStretch(1)
        left = QVBoxLayout()
        left.addLayout(head)
        left.addWidget(self.figures, 1)
        left.addWidget(self.totals)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(left, 3)
        layout.addWidget(self.table, 2)
        layout.addWidget(self.parts, 2)
        # The plane's wrong links and the unexpected cables, while captures are held.
        self.asbuilt = AsBuiltList(document, lambda: self.plane, self)
        layout.addWidget(self.asbuilt, 4)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._refresh_if_seen)
        #: How many times the plane was analysed (tests check covered panels skip it).
        self.computed = 0
        document.changed.connect(self._on_changed)
        document.designReplaced.connect(self._invalidate)

    @property
    def plane(self) -> str:
        return str(self.plane_box.currentData())

    def set_plane(self, plane: str) -> None:
        """Show ``plane`` ("compute", "storage", "management" or "oob")."""
        self.plane_box.setCurrentIndex(list(PLANES).index(plane))

    # -- keeping current ---------------------------------------------------------------
    def _on_changed(self, change: Change) -> None:
        if touches_fabric(change):
            self._invalidate()

    def _on_plane_chosen(self, _index: int) -> None:
        self._invalidate()
        self.asbuilt.invalidate()

    def _invalidate(self) -> None:
        self._stale = True
        if is_seen(self):
            self._timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.on_exposed()

    def on_exposed(self) -> None:
        """The panel came into view (shown, or its dock's tab raised): catch up."""
        if self._stale:
            self._timer.start()
        self.asbuilt.on_exposed()

    def _refresh_if_seen(self) -> None:
        if self._stale and is_seen(self):
            self.refresh()

    def refresh(self) -> None:
        """Analyse the chosen plane and show it."""
        self._stale = False
        self.computed += 1
        try:
            # The analysis (numpy, the plane graph) loads when a plane is first shown.
            from workbench.calc.fabric.analysis import analyse_plane

            report = analyse_plane(self.document.design, self.plane)
        except Exception as exc:  # noqa: BLE001 - cabling the analysis cannot read
            # Links with a speed of "fast" (a script's design): say so, show no table.
            log.warning("Could not analyse the %s plane: %s", self.plane, exc)
            self.report = None
            self.figures.setText(f"The {self.plane} plane could not be analysed: {exc}")
            self.table.setRowCount(0)
            self.parts.setRowCount(0)
            self.totals.setText("")
            return
        self.report = report
        self.figures.setText("<br>".join(summary_lines(report)))
        self._fill_table(report)

    def _fill_table(self, report: PlaneReport) -> None:
        counts = report.cables
        rows = (
            sorted(
                counts.by_length.items(),
                key=lambda kv: (kv[0][0], float("inf") if kv[0][1] is None else kv[0][1]),
            )
            if counts is not None
            else []
        )
        self.table.setRowCount(len(rows))
        for r, ((media, length), n) in enumerate(rows):
            cells = (
                MEDIA.get(media, media),
                "not measured" if length is None else f"{short_number(length)} m",
                f"{n:,}",
            )
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
        parts = sorted(counts.parts.items()) if counts is not None else []
        self.parts.setRowCount(len(parts))
        for r, (slug, n) in enumerate(parts):
            self.parts.setItem(r, 0, QTableWidgetItem(self._part_label(slug)))
            self.parts.setItem(r, 1, QTableWidgetItem(f"{n:,}"))
        if counts is None:
            self.totals.setText("")
            return
        by_media = ", ".join(
            f"{n:,} {MEDIA_SHORT.get(m, m)}" for m, n in sorted(counts.by_media.items())
        )
        text = f"{counts.links:,} cables: {by_media}; {counts.optics:,} optic modules"
        if counts.problems:
            text += f"; {counts.problems:,} without a catalog part that reaches"
        self.totals.setText(text + ".")

    def _part_label(self, slug: str) -> str:
        """A part's catalog name (the slug when the catalog lacks it)."""
        item = self.document.design.device_types.get(slug)
        catalog = self.document.catalog
        if item is None and catalog is not None:
            try:
                item = catalog[slug]
            except KeyError:
                item = None
        return f"{item.model} ({slug})" if item is not None else slug
