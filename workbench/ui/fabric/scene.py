"""The fabric drawing as a graphics scene: panels, bundles and boxes, and the highlight.

The scene mirrors the model and holds no truth.  Where things go is
:func:`workbench.render.fabric_layout.lay_out_fabric`'s answer, how they look
:mod:`workbench.render.fabric_painter`'s; here they become a handful of items per
plane (the panel card, ONE item painting all the plane's bundles, ONE painting its
boxes), so a 100,000-GPU fabric is a dozen items and no per-link graphics at all.

What a change costs:

* a link's speed or media, a device's name: the layout still holds; only the items
  are repainted (names are read again for the boxes that draw the renamed devices);
* links or devices that came or went, planes edited: the drawing is laid out again,
  once per event-loop turn however many changes arrive (a generated fabric is one
  change anyway), and only while the view is shown; a hidden view lays out when shown.

The planes' structures are shared with the inspector through :class:`StructureCache`,
read once per change of the cabling.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, QRectF, QTimer, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem

from workbench.calc.fabric.planes import PlaneStructure, plane_structures
from workbench.model import Change, Design
from workbench.model.design import PLANES
from workbench.render import fabric_painter as fp
from workbench.render.fabric_layout import Box, Bundle, FabricLayout, Panel, lay_out_fabric
from workbench.ui.fabric.asbuilt import AsBuiltCache, MarksItem, bundle_marks
from workbench.units import format_count

_log = logging.getLogger(__name__)


def _unavailable(exc: Exception) -> FabricLayout:
    """A drawing that says the fabric cannot be drawn, and where to look instead."""
    note = (
        f"The fabric cannot be drawn ({type(exc).__name__}: {str(exc)[:120]}). "
        "The Checks list names what is wrong with the design."
    )
    layout = FabricLayout(panels=[Panel("compute", "Fabric", 0.0, -60.0, 460.0, 120.0, note=note)])
    layout.bounds = (0.0, -60.0, 460.0, 120.0)
    return layout


if TYPE_CHECKING:
    from workbench.ui.shell.document import Document

#: Bundle counts are written on every bundle only while a plane has at most this many
#: (beyond, only the lit ones carry their count: hundreds of pills are noise).
COUNT_LIMIT = 120
#: How near a click must be to a bundle's line to pick it, in view pixels.
PICK_PX = 5.0


class StructureCache(QObject):
    """The document's plane structures, computed on first use after each change of the
    cabling (links, planes, devices that came or went) and shared by the Fabric view
    and the inspector.  One per document (:meth:`for_document`).

    The document holds it (a child QObject and an attribute), not a class-level
    ``WeakKeyDictionary``: the cache refers to its document, so as a dictionary value it
    kept its own weak key alive and no closed window's document was ever freed.
    """

    def __init__(self, document: Document):
        super().__init__(document)
        self.document = document
        self._structures: dict[str, PlaneStructure] | None = None
        #: Counts the changes of the cabling (what a reader compares to know whether
        #: figures it derived are still current).
        self.version = 0
        # Connected before any reader's own slot (readers ask for the cache first),
        # so the structures are forgotten before anyone reads them after a change.
        document.changed.connect(self._on_changed)
        document.designReplaced.connect(self.forget)

    @classmethod
    def for_document(cls, document: Document) -> StructureCache:
        cache = getattr(document, "_structure_cache", None)
        if cache is None:
            cache = cls(document)
            document._structure_cache = cache  # type: ignore[attr-defined]
        return cache

    def structures(self) -> dict[str, PlaneStructure]:
        if self._structures is None:
            self._structures = plane_structures(self.document.design)
        return self._structures

    def forget(self) -> None:
        self._structures = None
        self.version += 1

    def touches_cabling(self, change: Change) -> bool:
        """Whether the planes' structures may differ after ``change``: links came, went
        or changed, planes were edited, or the catalog item (the ports) of a cabled
        device changed.  A device added or removed with links names them (its links
        come and go with it); a new item in the snapshot (a switch dropped) changes no
        cabled device."""
        if change.everything or change.links or change.networks:
            return True
        if change.types:
            cabled = self.document.design.index.device_links
            return any(cabled.get(d) for d in change.devices)
        return False

    def _on_changed(self, change: Change) -> None:
        if self.touches_cabling(change):
            self.forget()


# -- items ------------------------------------------------------------------------------


class PanelItem(QGraphicsItem):
    """A plane's card: its title and the layers' bands, names and figures."""

    def __init__(self, scene: FabricScene, panel: Panel):
        super().__init__()
        self.fabric = scene
        self.card = panel
        self.setZValue(0)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return fp.panel_rect(self.card).adjusted(-4, -4, 4, 4)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        fp.paint_panel(
            painter,
            self.card,
            self.fabric.layout,
            self.fabric.figures,
            labels=not self.fabric.pinned_labels,
        )


class BundlesItem(QGraphicsItem):
    """Every bundle of one plane, painted in a few batched calls (kept between frames)."""

    def __init__(self, scene: FabricScene, bundles: list[Bundle]):
        super().__init__()
        self.fabric = scene
        self.bundles = bundles
        self._batches = fp.batch_bundles(bundles)
        rect = QRectF()
        for bundle in bundles:
            (ax, ay), (bx, by) = bundle.a_point, bundle.b_point
            rect = rect.united(QRectF(QPointF(ax, ay), QPointF(bx, by)).normalized())
        self._bounds = rect.adjusted(-40, -40, 40, 40)
        self.setZValue(1)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        fp.paint_bundles(
            painter,
            self.fabric.layout,
            self.bundles,
            self.fabric.highlight,
            batches=self._batches,
            counts=len(self.bundles) <= COUNT_LIMIT,
        )


class BoxesItem(QGraphicsItem):
    """Every box of one panel."""

    def __init__(self, scene: FabricScene, boxes: list[Box]):
        super().__init__()
        self.fabric = scene
        self.boxes = boxes
        rect = QRectF()
        for box in boxes:
            rect = rect.united(fp.box_rect(box))
        self._bounds = rect.adjusted(-12, -12, 12, 12)
        self.setZValue(2)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        fp.paint_boxes(painter, self.boxes, self.fabric.highlight)


# -- the scene --------------------------------------------------------------------------------


class FabricScene(QGraphicsScene):
    """The drawing of the document's fabric, on the planes chosen (see the module
    docstring).  ``figuresChanged()``: the analytics' figures arrived;
    ``marksChanged()``: the as-built marks were made again (:attr:`marks`)."""

    figuresChanged = Signal()
    marksChanged = Signal()

    def __init__(self, document: Document, parent: QObject | None = None):
        super().__init__(parent)
        self.document = document
        self.cache = StructureCache.for_document(document)
        self.asbuilt = AsBuiltCache.for_document(document)
        #: Bundle key → its wrong links' verdicts (see :mod:`workbench.ui.fabric.asbuilt`).
        self.marks: dict[tuple[str, str], Counter[str]] = {}
        self._mark_items: list[QGraphicsItem] = []
        self._marks_of: int | None = None  # the as-built version the marks show
        self.planes: tuple[str, ...] = PLANES
        self.layout = FabricLayout()
        self.figures = fp.Figures()
        self.highlight = fp.Highlight()
        #: The view pins the layers' names and the titles to its window (readable at any
        #: zoom) instead of the panels drawing them at scene size.
        self.pinned_labels = False
        self._items: list[QGraphicsItem] = []
        self._stale = True
        self._figures_due = False
        #: (cabling version, planes) the figures were read for, and the planes' lines.
        self._figures_of: tuple[int, tuple[str, ...]] | None = None
        self._lines: dict[str, str] = {}

    @property
    def design(self) -> Design:
        return self.document.design

    # -- building ---------------------------------------------------------------------
    @property
    def stale(self) -> bool:
        """The drawing lags the model (laid out again on the next :meth:`ensure_current`)."""
        return self._stale

    def mark_stale(self) -> None:
        self._stale = True

    def ensure_current(self) -> bool:
        """Lay out again if the model moved on; True when it did.  (The as-built marks
        are made again too when the captures or their verdicts moved on.)"""
        if not self._stale:
            if self._marks_of != self.asbuilt.version:
                self.mark_bundles()
            return False
        self.rebuild()
        return True

    def set_planes(self, planes: Iterable[str]) -> None:
        self.planes = tuple(planes)
        self.rebuild()

    def rebuild(self) -> None:
        """Lay the chosen planes out again from the model and make the items anew."""
        self._stale = False
        try:
            structures = self.cache.structures()
            self.layout = lay_out_fabric(
                self.design, self.planes, structures=structures, tier_details=self._tier_details()
            )
        except Exception as exc:  # a design the checks flag must not take the window down
            _log.warning("the fabric drawing failed", exc_info=True)
            self.layout = _unavailable(exc)
        for item in self._items:
            self.removeItem(item)
        self._items = []
        by_panel: dict[str, list[Box]] = {}
        for box in self.layout.boxes.values():
            by_panel.setdefault(box.plane, []).append(box)
        by_plane: dict[str, list[Bundle]] = {}
        for bundle in self.layout.bundles.values():
            by_plane.setdefault(bundle.plane, []).append(bundle)
        for panel in self.layout.panels:
            items: list[QGraphicsItem] = [PanelItem(self, panel)]
            if by_plane.get(panel.plane):
                items.append(BundlesItem(self, by_plane[panel.plane]))
            if by_panel.get(panel.plane):
                items.append(BoxesItem(self, by_panel[panel.plane]))
            for item in items:
                self.addItem(item)
            self._items += items
        self.mark_bundles()
        left, top, right, bottom = self.layout.bounds
        # Room to pan past the edges, and for the view to centre a drawing smaller
        # than the window (a scene smaller than the view is pinned to its middle).
        margin = 400.0 + max(right - left, bottom - top)
        self.setSceneRect(
            QRectF(
                left - margin, top - margin, right - left + 2 * margin, bottom - top + 2 * margin
            )
        )
        self.set_selection(self.document.selected)
        # The analytics' figures come a moment later, so the drawing shows at once; only
        # when the cabling or the planes shown changed.
        if (self.cache.version, self.planes) == self._figures_of:
            self.figures = fp.Figures(
                layers=self.figures.layers, planes=self._subtitles(self._lines)
            )
            return
        self.figures = fp.Figures(planes=self._plane_subtitles())
        if not self._figures_due:
            self._figures_due = True
            QTimer.singleShot(0, self._load_figures)

    def _subtitles(self, lines: Mapping[str, str]) -> dict[str, str]:
        """Each plane's network line, with the analytics' line after it."""
        subtitles = self._plane_subtitles()
        for plane, line in lines.items():
            subtitles[plane] = f"{subtitles[plane]} · {line}" if plane in subtitles else line
        return subtitles

    def _plane_subtitles(self) -> dict[str, str]:
        result: dict[str, str] = {}
        for network in self.design.networks:
            if network.plane in result:
                continue
            mtu = f", MTU {network.mtu}" if network.mtu else ""
            result[network.plane] = (
                f"{network.name}: {network.technology}, {network.speed_gbps:g}G per host port{mtu}"
            )
        return result

    def _tier_details(self) -> dict[str, str]:
        """Capacity and bandwidth of each storage tier, for its box."""
        if not self.design.storage_tiers or "storage" not in self.planes:
            return {}
        # The storage figures read the fabric's kept tables (numpy): loaded when a
        # drawing first needs them, not with the window.
        from workbench.calc.storage_tiers import tier_figures

        details = {}
        for f in tier_figures(self.design):
            usable = f.usable_tb
            size = f"{usable / 1000:,.2f} PB" if usable >= 1000 else f"{usable:,.0f} TB"
            cabled = f" · {f.cabled_text}" if f.uncabled_devices else ""
            details[f.tier_id] = (
                f"{format_count(f.devices, 'device')}{cabled} · {size} usable\n"
                f"{f.served_read_gbs:,.0f} GB/s read · {f.served_write_gbs:,.0f} GB/s write"
            )
        return details

    def _load_figures(self) -> None:
        """Each drawn tier's oversubscription and each plane's bisection, from the
        analytics (a moment after the drawing, which shows without them)."""
        self._figures_due = False
        planes = [p.plane for p in self.layout.panels]
        structures = self.cache.structures()
        layers, self._lines = plane_figures(self.design, structures, planes)
        self._figures_of = (self.cache.version, self.planes)
        self.figures = fp.Figures(layers=layers, planes=self._subtitles(self._lines))
        self.figuresChanged.emit()
        self.update()

    # -- partial refresh -----------------------------------------------------------------
    def apply(self, change: Change) -> str:
        """Mirror ``change``: "layout" when the drawing must be laid out again (the
        caller decides when), "repaint" when the items were repainted, "" otherwise."""
        # Devices that came or went (a switch dropped: the tray) and storage tiers
        # redraw too, though the structures stand.
        if self.cache.touches_cabling(change) or change.tiers or change.added or change.removed:
            self._stale = True
            return "layout"
        touched = False
        if change.devices:
            for device_id in change.devices:
                keys = self.layout.boxes_of_device.get(device_id)
                if not keys:
                    continue
                touched = True
                found = self.design.index.devices.get(device_id)
                for key in keys:
                    box = self.layout.boxes[key]
                    if box.kind == "switch" and found is not None:
                        box.title = found[1].name
        if change.links:
            touched = touched or any(i in self.layout.bundle_of_link for i in change.links)
        if self._marks_of != self.asbuilt.version:  # new captures, or their undo
            drawn = bool(self.marks) or self.asbuilt.has_captures
            if not self.asbuilt.has_captures or any(v.isVisible() for v in self.views()):
                self.mark_bundles()  # else when shown (ensure_current): it costs seconds
            touched = touched or drawn
        if touched:
            self.update()
            return "repaint"
        return ""

    def mark_bundles(self) -> None:
        """Make the as-built marks of the drawn bundles from the (cached) verdicts."""
        for item in self._mark_items:
            self.removeItem(item)
        self._mark_items = []
        self._marks_of = self.asbuilt.version
        wrong = self.asbuilt.wrong() if self.asbuilt.has_captures else {}
        self.marks = bundle_marks(self.layout, wrong)
        by_plane: dict[str, list[tuple[Bundle, Counter[str]]]] = {}
        for key, counts in self.marks.items():
            bundle = self.layout.bundles[key]
            by_plane.setdefault(bundle.plane, []).append((bundle, counts))
        for marked in by_plane.values():
            item = MarksItem(marked)
            self.addItem(item)
            self._mark_items.append(item)
        self.marksChanged.emit()

    # -- selection --------------------------------------------------------------------------
    def set_selection(self, object_ids: Iterable[str]) -> None:
        """Light up what the shared selection holds: the boxes drawing the selected
        devices (a rack's devices for a rack), the bundles of their links or the
        bundles holding the selected links, and the boxes across those bundles."""
        layout = self.layout
        index = self.design.index
        boxes: set[str] = set()
        bundles: set[tuple[str, str]] = set()
        ends: set[str] = set()
        for object_id in object_ids:
            devices: list[str] = []
            if object_id in layout.bundle_of_link:
                key = layout.bundle_of_link[object_id]
                bundles.add(key)
                ends.update(key)
                continue
            if object_id in layout.boxes_of_device:
                devices = [object_id]
            else:
                rack = index.racks.get(object_id)
                if rack is not None:
                    devices = [d.id for d in rack[1].devices if d.id in layout.boxes_of_device]
            for device in devices:
                boxes.update(layout.boxes_of_device[device])
                for link_id in index.device_links.get(device, ()):
                    lit = layout.bundle_of_link.get(link_id)
                    if lit is not None:
                        bundles.add(lit)
        neighbours = {k for key in bundles for k in key} | ends
        highlight = fp.Highlight(
            frozenset(boxes), frozenset(neighbours - boxes), frozenset(bundles)
        )
        if highlight != self.highlight:
            self.highlight = highlight
            self.update()

    def highlighted_links(self) -> set[str]:
        """Ids of the links drawn lit (every link of every lit bundle)."""
        bundles = self.layout.bundles
        return {i for key in self.highlight.bundles for i in bundles[key].link_ids}

    # -- questions the view asks ------------------------------------------------------------
    def box_at(self, pos: QPointF) -> Box | None:
        return self.layout.box_at(pos.x(), pos.y())

    def bundle_at(self, pos: QPointF, tolerance: float) -> Bundle | None:
        """The bundle whose line passes nearest ``pos`` within ``tolerance`` scene units."""
        best: tuple[float, Bundle] | None = None
        x, y = pos.x(), pos.y()
        for bundle in self.layout.bundles.values():
            (ax, ay), (bx, by) = bundle.a_point, bundle.b_point
            if not (min(ax, bx) - tolerance <= x <= max(ax, bx) + tolerance):
                continue
            if not (min(ay, by) - tolerance <= y <= max(ay, by) + tolerance):
                continue
            distance = _distance(x, y, ax, ay, bx, by)
            if distance <= tolerance and (best is None or distance < best[0]):
                best = (distance, bundle)
        return best[1] if best is not None else None

    def box_rect(self, key: str) -> QRectF | None:
        box = self.layout.boxes.get(key)
        return fp.box_rect(box) if box is not None else None

    def render_to(self, painter: QPainter) -> None:
        """Paint the whole drawing through the one drawing path (for images, paper)."""
        fp.paint_fabric(painter, self.layout, self.highlight, self.figures)


def _distance(x: float, y: float, ax: float, ay: float, bx: float, by: float) -> float:
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length))
    px, py = ax + t * dx, ay + t * dy
    return ((x - px) ** 2 + (y - py) ** 2) ** 0.5


def plane_figures(
    design: Design, structures: Mapping[str, PlaneStructure], planes: Iterable[str]
) -> tuple[dict[tuple[str, int], str], dict[str, str]]:
    """The analytics' figures for the drawn planes: (plane, level) → the tier's
    oversubscription, plane → its bisection bandwidth.  The view computes none of them
    itself: :func:`~workbench.calc.fabric.analysis.tier_figures` and
    :func:`~workbench.calc.fabric.analysis.bisection_gbps` do, on the plane's graph
    (the cheap part of :func:`~workbench.calc.fabric.analysis.analyse_plane`: the hop
    count and failure ranking are left to the reports, as they cost seconds at scale
    and the view asks again after every hand-drawn link)."""
    # networkx comes with the analytics: loaded when figures are first asked for, not
    # when the window starts.
    from workbench.calc.fabric.analysis import bisection_gbps, tier_figures
    from workbench.calc.fabric.graph import plane_graph

    layers: dict[tuple[str, int], str] = {}
    lines: dict[str, str] = {}
    for plane in planes:
        structure = structures.get(plane)
        if structure is None or not structure.links:
            continue
        try:
            graph = plane_graph(design, plane, structure)
            tiers = tier_figures(graph)
            bisection = bisection_gbps(graph)
        except ValueError:  # an input the analytics cannot use: the drawing stands
            continue
        for tier in tiers:
            if tier.ratio is None:
                continue
            if tier.ratio <= 1.0 + 1e-6:
                layers[(plane, tier.tier)] = "1:1 non-blocking"
            else:
                layers[(plane, tier.tier)] = f"{tier.ratio:.3g}:1 oversubscribed"
        lines[plane] = f"bisection {bisection / 1000:,.1f} Tb/s"
    return layers, lines
