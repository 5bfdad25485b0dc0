"""The as-built marks of the Fabric view: the verdicts, cached, and how a wrong link looks.

:func:`workbench.asbuilt.verdicts` checks every design link against the captures the
design holds; on a 100,000-GPU design that takes a couple of seconds, so it is never
done per paint.  :class:`AsBuiltCache` (one per document, shared by the Fabric view, its
inspector page and the Cables panel, like
:class:`~workbench.ui.fabric.scene.StructureCache`) computes the verdicts on first use
after a change that can move them (links, devices, catalog items, planes, or a new set
of captures) and keeps them until the next one.

A wrong link is drawn over its bundle in its verdict's colour and dash
(:data:`MARK_STYLES`), with a badge counting the wrong links of the bundle: one line
draws many links, so a bundle takes the style of its worst verdict (:data:`MARK_ORDER`)
and the badge, tooltip and inspector say how many of which.  Unexpected cables are no
design link and have no line; the Cables panel lists them (:class:`AsBuiltList`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QApplication, QGraphicsItem, QStyleOptionGraphicsItem

from workbench.model import Change
from workbench.progress import Progress
from workbench.render import fabric_painter as fp
from workbench.render.fabric_layout import Bundle, FabricLayout
from workbench.units import format_count

if TYPE_CHECKING:
    from workbench.asbuilt import Verdict
    from workbench.ui.shell.document import Document

#: Verdict → (legend label, colour, pen style) of the marks; the worst first, which is
#: also the order a bundle with several kinds of wrong links takes its style by.
MARK_STYLES: dict[str, tuple[str, str, Qt.PenStyle]] = {
    "missing": ("Missing", "#d32f2f", Qt.PenStyle.DashLine),
    "wrong-port": ("Wrong port", "#1565c0", Qt.PenStyle.SolidLine),
    "swapped": ("Swapped", "#8e24aa", Qt.PenStyle.DashDotLine),
    "wrong-speed": ("Wrong speed", "#c77800", Qt.PenStyle.DotLine),
}
MARK_ORDER: tuple[str, ...] = tuple(MARK_STYLES)
UNEXPECTED_COLOR = "#5d4037"
#: Links at or above this many are checked under a busy cursor (a second or more).
BUSY_LINKS = 50_000
#: Wrong links listed one by one in a tooltip or the inspector.
LISTED = 6


class AsBuiltCache(QObject):
    """The document's as-built verdicts, computed on first use after each change that
    can move them.  ``changed()``: the verdicts must be read again."""

    changed = Signal()

    def __init__(self, document: Document):
        super().__init__(document)
        self.document = document
        self._verdicts: list[Verdict] | None = None
        self._by_link: dict[str, Verdict] = {}
        self._wrong: dict[str, Verdict] = {}
        #: Counts the changes of the verdicts (what a reader compares).
        self.version = 0
        self._captures_seen = self._fingerprint()
        # Connected before any reader's own slot (readers ask for the cache first).
        document.changed.connect(self._on_changed)
        document.designReplaced.connect(self.forget)

    @classmethod
    def for_document(cls, document: Document) -> AsBuiltCache:
        cache = getattr(document, "_asbuilt_cache", None)
        if cache is None:
            cache = cls(document)
            document._asbuilt_cache = cache  # type: ignore[attr-defined]
        return cache

    # -- reading ---------------------------------------------------------------------
    @property
    def has_captures(self) -> bool:
        return bool(self.document.design.captures)

    def verdicts(self, progress: Progress | None = None) -> list[Verdict]:
        """Every verdict (design links in order, then the unexpected cables);
        ``progress`` is told how far a check it has to make has got
        (:func:`workbench.asbuilt.check`)."""
        if self._verdicts is None:
            # Imported on first use: the matcher and its readers (numpy's bulk match
            # included) are a tenth of the window's imports, and a design without
            # captures never needs them; none belongs before the first frame.
            from workbench import asbuilt

            design = self.document.design
            busy = bool(design.captures) and len(design.links) >= BUSY_LINKS
            if busy:
                QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
            try:
                found = asbuilt.check(design, progress=progress) if design.captures else []
            finally:
                if busy:
                    QApplication.restoreOverrideCursor()
            self._verdicts = found
            self._by_link = {v.link_id: v for v in found if v.link_id is not None}
            self._wrong = {
                lid: v for lid, v in self._by_link.items() if v.verdict in asbuilt.DISCREPANCIES
            }
        return self._verdicts

    def of_link(self, link_id: str) -> Verdict | None:
        self.verdicts()
        return self._by_link.get(link_id)

    def wrong(self) -> dict[str, Verdict]:
        """Design link id → its verdict, for the links with a discrepancy."""
        self.verdicts()
        return self._wrong

    def unexpected(self) -> list[Verdict]:
        """The captured cables the design lacks."""
        return [v for v in self.verdicts() if v.link_id is None]

    def counts(self) -> Counter[str]:
        """How many verdicts of each kind."""
        return Counter(v.verdict for v in self.verdicts())

    # -- keeping current ---------------------------------------------------------------
    def forget(self) -> None:
        self._verdicts = None
        self._by_link, self._wrong = {}, {}
        self._captures_seen = self._fingerprint()
        self.version += 1
        self.changed.emit()

    def _fingerprint(self) -> tuple[int, str]:
        """Which captures the design holds: one import replaces them all, and its
        records share an import id (a design-wide edit that is not an import keeps it)."""
        captures = self.document.design.captures
        return (len(captures), captures[0].import_id if captures else "")

    def _on_changed(self, change: Change) -> None:
        moved = (
            change.everything
            or change.links
            or change.devices
            or change.types
            or change.networks
            or change.added
            or change.removed
        )
        if moved or (change.design and self._fingerprint() != self._captures_seen):
            self.forget()


# -- marks on bundles ---------------------------------------------------------------------


def bundle_marks(
    layout: FabricLayout, wrong: Mapping[str, Verdict]
) -> dict[tuple[str, str], Counter[str]]:
    """Bundle key → how many of its links have each discrepancy (bundles with none left
    out)."""
    marks: dict[tuple[str, str], Counter[str]] = {}
    where = layout.bundle_of_link
    for link_id, verdict in wrong.items():
        key = where.get(link_id)
        if key is not None:
            marks.setdefault(key, Counter())[verdict.verdict] += 1
    return marks


def worst(counts: Mapping[str, int]) -> str:
    """The verdict a mark is drawn in: the first of :data:`MARK_ORDER` present."""
    return next((v for v in MARK_ORDER if counts.get(v)), MARK_ORDER[0])


def counts_text(counts: Mapping[str, int]) -> str:
    """``2 missing, 1 swapped`` in :data:`MARK_ORDER`."""
    return ", ".join(
        f"{counts[v]:,} {MARK_STYLES[v][0].lower()}" for v in MARK_ORDER if counts.get(v)
    )


def verdict_line(v: Verdict) -> str:
    """One verdict in words with where it was seen: ``swapped: ports crossed with link
    L12 (fabric.txt:88)``."""
    where = f" ({v.where})" if v.where else ""
    found = f"; seen: {v.found}" if v.found else ""
    return f"{v.verdict}: {v.detail}{found}{where}"


def verdict_html(v: Verdict) -> str:
    """:func:`verdict_line` as rich text, the verdict in its mark's colour."""
    color = MARK_STYLES[v.verdict][1] if v.verdict in MARK_STYLES else "#37474f"
    rest = _escape(verdict_line(v)[len(v.verdict) :])
    return f'<b style="color:{color}">{_escape(v.verdict)}</b>{rest}'


def mark_pen(verdict: str, width: float) -> QPen:
    _label, color, style = MARK_STYLES.get(verdict, MARK_STYLES["missing"])
    pen = QPen(QColor(color), width)
    pen.setCosmetic(True)
    pen.setStyle(style)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    return pen


class MarksItem(QGraphicsItem):
    """The as-built marks of one plane's bundles: a line in the worst verdict's style
    over each bundle with a wrong link, and a badge with how many are wrong."""

    #: The badge's height on screen, pixels (it stays readable at any zoom).
    BADGE_PX = 15.0

    def __init__(self, marked: Iterable[tuple[Bundle, Counter[str]]]):
        super().__init__()
        self.marked = list(marked)
        rect = QRectF()
        for bundle, _counts in self.marked:
            (ax, ay), (bx, by) = bundle.a_point, bundle.b_point
            rect = rect.united(QRectF(QPointF(ax, ay), QPointF(bx, by)).normalized())
        self._bounds = rect.adjusted(-60, -60, 60, 60)
        self.setZValue(1.5)  # over the bundles, under the boxes

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for bundle, counts in self.marked:
            painter.setPen(mark_pen(worst(counts), fp.bundle_width(bundle.count) + 2.5))
            painter.drawLine(fp.bundle_line(bundle))
        # Badges in window pixels, so a 32-leaf fabric zoomed out still shows them.
        transform = painter.worldTransform()
        painter.save()
        painter.resetTransform()
        font = fp.font(self.BADGE_PX * 0.68, bold=True)
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        for bundle, counts in self.marked:
            (ax, ay), (bx, by) = bundle.a_point, bundle.b_point
            at = transform.map(QPointF((ax + bx) / 2, (ay + by) / 2))
            text = f"! {sum(counts.values()):,}"
            width = max(self.BADGE_PX, metrics.horizontalAdvance(text) + 9)
            rect = QRectF(at.x() - width / 2, at.y() - self.BADGE_PX / 2, width, self.BADGE_PX)
            painter.setPen(QPen(QColor("#ffffff"), 1.2))
            painter.setBrush(QColor(MARK_STYLES[worst(counts)][1]))
            painter.drawRoundedRect(rect, self.BADGE_PX / 2, self.BADGE_PX / 2)
            painter.setPen(QColor("#ffffff"))
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)
        painter.restore()


def bundle_tooltip(cache: AsBuiltCache, bundle: Bundle, counts: Mapping[str, int]) -> list[str]:
    """The as-built lines of a marked bundle's tooltip: the counts, then the first
    wrong links with their detail and file:line."""
    lines = [f"<b>As built:</b> {counts_text(counts)} of {format_count(bundle.count, 'link')}"]
    wrong = cache.wrong()
    shown = [wrong[i] for i in bundle.link_ids if i in wrong][:LISTED]
    lines += [_escape(verdict_line(v)) for v in shown]
    more = sum(counts.values()) - len(shown)
    if more > 0:
        lines.append(f"… and {more:,} more (the Cables panel lists them)")
    return lines


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
