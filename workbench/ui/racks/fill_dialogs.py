"""The placement helpers in the window: fill a rack with N × a model, place K across racks.

Both dialogs choose a rackable catalog item and a count, show live what the request
would do (the same plan the core works out, with the reasons for whatever would not
fit), and on accepting push one undoable command through the document
(:meth:`Document.fill_rack`, :meth:`Document.place_across`).  The report then goes to the
status bar, and when anything did not fit to a message box that lists why, rack by rack.

:func:`fill_actions` adds both entries to a context menu (the rack view calls it with the
rack under the cursor); the work itself is :mod:`workbench.planning.filling`, Qt-free.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.catalog.item import RACKABLE_KINDS, CatalogItem, power_figure_w, power_unknown
from workbench.catalog.vocabulary import item_role
from workbench.model.errors import EditError
from workbench.model.placement import rack_height
from workbench.planning import filling
from workbench.planning.filling import FillPlan, FillReport
from workbench.ui.shell.document import Document

#: The order the model list shows kinds in: what a fill is usually for first.
KIND_ORDER: tuple[str, ...] = ("server", "storage", "switch", "pdu", "infrastructure")

#: How long the report stays in the status bar, ms.
STATUS_MS = 15000


def rackable_items(document: Document) -> list[CatalogItem]:
    """Every item that can go in a rack: the catalog's, plus any in the design's snapshot
    that the catalog lacks, servers first, then by maker and model."""
    found: dict[str, CatalogItem] = {}
    if document.catalog is not None:
        found.update((i.slug, i) for i in document.catalog if i.kind in RACKABLE_KINDS)
    for slug, item in document.design.device_types.items():
        if item.kind in RACKABLE_KINDS:
            found.setdefault(slug, item)

    def order(item: CatalogItem) -> tuple[int, str, str, str]:
        kind = KIND_ORDER.index(item.kind) if item.kind in KIND_ORDER else len(KIND_ORDER)
        return (kind, item.manufacturer.lower(), item.model.lower(), item.slug)

    return sorted(found.values(), key=order)


def item_text(item: CatalogItem) -> str:
    """How the model list shows an item: "NVIDIA DGX H100 — 8U, 10.2 kW".

    An item without a power figure says "power unknown": a fill packs it by U alone
    (there is no number to budget with), so the planner must see that before placing
    a rack full of them."""
    size = f"{item.u_height:g}U" if item.u_height > 0 else "0U"
    watts = power_figure_w(item)
    if power_unknown(item):
        power = ", power unknown"
    else:
        power = f", {watts / 1000:.1f} kW" if watts else ""
    return f"{item.label} — {size}{power}"


def show_report(parent: QWidget | None, report: FillReport) -> None:
    """The report in the window's status bar, and in a message box when anything did
    not fit (what was placed, and per rack why the rest was not)."""
    window = parent.window() if parent is not None else None
    if isinstance(window, QMainWindow):
        window.statusBar().showMessage(report.summary(), STATUS_MS)
    if report.missing:
        QMessageBox.warning(parent, "Not everything fitted", report.details())


class _PlacementDialog(QDialog):
    """A model, a count, a live preview, and Place / Cancel."""

    def __init__(self, document: Document, title: str, intro: str, parent: QWidget | None):
        super().__init__(parent)
        self.document = document
        self.setWindowTitle(title)
        #: The report of the request made on accepting (None until then, or refused).
        self.report: FillReport | None = None
        self.model = QComboBox()
        self.model.setObjectName("fillModel")
        for item in rackable_items(document):
            self.model.addItem(item_text(item), item.slug)
        self.count = QSpinBox()
        self.count.setObjectName("fillCount")
        self.count.setRange(1, filling.MAX_COUNT)
        self.preview = QLabel()
        self.preview.setObjectName("fillPreview")
        self.preview.setWordWrap(True)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Place")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Model", self.model)
        form.addRow("How many", self.count)
        layout = QVBoxLayout(self)
        heading = QLabel(intro)
        heading.setWordWrap(True)
        layout.addWidget(heading)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)

    def _connect_preview(self) -> None:
        self.model.currentIndexChanged.connect(self.update_preview)
        self.count.valueChanged.connect(self.update_preview)
        self.update_preview()

    # -- fields ------------------------------------------------------------------------
    def slug(self) -> str | None:
        """The chosen item's slug (None: the list is empty)."""
        data = self.model.currentData()
        return data if isinstance(data, str) else None

    def set_slug(self, slug: str) -> bool:
        """Choose ``slug`` in the model list; False when it is not there."""
        i = self.model.findData(slug)
        if i >= 0:
            self.model.setCurrentIndex(i)
        return i >= 0

    def _default_slug(self, candidates: Sequence[str]) -> None:
        """Choose the first of ``candidates`` the list holds, else its first GPU server."""
        for slug in candidates:
            if self.set_slug(slug):
                return
        for i in range(self.model.count()):
            item = self.document.design.device_types.get(self.model.itemData(i))
            if item is None and self.document.catalog is not None:
                item = self.document.catalog.get(self.model.itemData(i))
            if item is not None and item_role(item) == "gpu-server":
                self.model.setCurrentIndex(i)
                return

    # -- the request ----------------------------------------------------------------------
    def plan(self, count: int | None = None) -> FillPlan:
        """What the request would do now (ids are placeholders: nothing is used up)."""
        slug = self.slug()
        if slug is None:
            raise EditError("The catalog holds nothing that goes in a rack.")
        ids = itertools.count(1)
        return self._plan(
            slug, self.count.value() if count is None else count, lambda: f"preview-{next(ids)}"
        )

    def _plan(
        self, slug: str, count: int, new_id: Callable[[], str]
    ) -> FillPlan:  # pragma: no cover - abstract
        raise NotImplementedError

    def _run(self, slug: str, count: int) -> FillReport | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def update_preview(self) -> None:
        """Say what Place would do, and allow it only when at least one device fits."""
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        try:
            report = self.plan().report
        except EditError as exc:
            self.preview.setText(str(exc))
            ok.setEnabled(False)
            return
        if not report.missing:
            text = f"All {report.requested} fit."
        elif not report.placed:
            text = "Nothing fits: " + "; ".join(f"{s.rack_name}: {s.message}" for s in report.stops)
        else:
            text = report.details(planned=True)
        self.preview.setText(text)
        ok.setEnabled(bool(report.placed))

    def accept(self) -> None:
        slug = self.slug()
        if slug is None:
            return
        self.report = self._run(slug, self.count.value())
        super().accept()
        if self.report is not None:
            show_report(self.parentWidget(), self.report)


class FillRackDialog(_PlacementDialog):
    """Fill one rack with N × a model, bottom-up for servers and storage, top-down for
    switches and PDUs, stopping before any budget would go over."""

    def __init__(
        self, document: Document, rack_id: str, parent: QWidget | None = None, face: str = "front"
    ):
        rack = document.design.find_rack(rack_id)
        name = rack.name if rack is not None else rack_id
        super().__init__(
            document,
            f"Fill {name}",
            f"Put up to N devices into {name}: servers and storage from the lowest free "
            "units, switches and PDUs from the top, never overlapping, and stopping before "
            "the rack's power, cooling, weight or feed budgets would be exceeded.",
            parent,
        )
        self.setObjectName("fillRackDialog")
        self.rack_id, self.face = rack_id, face
        if rack is not None:
            selected = [self._type_of(i) for i in document.selected]
            # What the rack holds in its units: the zero-U PDUs every new rack comes
            # with would otherwise tie with (and beat) the first servers placed.
            mounted = (d.device_type for d in rack.devices if d.position is not None)
            common = Counter(mounted).most_common()
            self._default_slug([s for s in selected if s] + [slug for slug, _n in common])
            self.count.setValue(self._fitting(rack_height(document.design, rack)))
        self._connect_preview()

    def _type_of(self, object_id: str) -> str | None:
        found = self.document.design.find_device(object_id)
        if found is None or found[0].id != self.rack_id:
            return None
        return found[1].device_type

    def _fitting(self, most: int) -> int:
        """How many of the chosen item fit now (at least 1): the count offered first."""
        try:
            return max(1, len(self.plan(most).report.placed))
        except EditError:
            return 1

    def _plan(self, slug: str, count: int, new_id: Callable[[], str]) -> FillPlan:
        return filling.fill_rack(
            self.document.design,
            self.document.catalog,
            self.rack_id,
            slug,
            count,
            self.face,
            new_id=new_id,
        )

    def _run(self, slug: str, count: int) -> FillReport | None:
        return self.document.fill_rack(self.rack_id, slug, count, self.face)


class PlaceAcrossDialog(_PlacementDialog):
    """Place K × a model across several racks, least loaded first, within every budget."""

    def __init__(
        self,
        document: Document,
        rack_ids: Sequence[str],
        parent: QWidget | None = None,
        face: str = "front",
    ):
        self.rack_ids, self.face = list(rack_ids), face
        design = document.design
        names = [r.name for r in (design.find_rack(i) for i in self.rack_ids) if r is not None]
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        super().__init__(
            document,
            f"Place Across {len(names)} Racks",
            f"Spread K devices over {shown}: each goes to the least loaded rack that still "
            "has room and budget, servers low and switches high; a rack whose power or "
            "cooling limit is reached keeps its remaining units empty.",
            parent,
        )
        self.setObjectName("placeAcrossDialog")
        selected = [
            found[1].device_type for i in document.selected if (found := design.find_device(i))
        ]
        self._default_slug(selected)
        self.count.setValue(max(1, len(self.rack_ids)))
        self._connect_preview()

    def _plan(self, slug: str, count: int, new_id: Callable[[], str]) -> FillPlan:
        return filling.place_across(
            self.document.design,
            self.document.catalog,
            self.rack_ids,
            slug,
            count,
            self.face,
            new_id=new_id,
        )

    def _run(self, slug: str, count: int) -> FillReport | None:
        return self.document.place_across(self.rack_ids, slug, count, self.face)


def open_fill_rack(
    document: Document, rack_id: str, parent: QWidget | None = None, face: str = "front"
) -> FillRackDialog:
    """Show the fill dialog for ``rack_id`` (window-modal, deleted when closed)."""
    dialog = FillRackDialog(document, rack_id, parent, face)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def open_place_across(
    document: Document, rack_ids: Sequence[str], parent: QWidget | None = None, face: str = "front"
) -> PlaceAcrossDialog:
    """Show the place-across dialog for ``rack_ids`` (window-modal, deleted when closed)."""
    dialog = PlaceAcrossDialog(document, rack_ids, parent, face)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def fill_actions(
    menu: QMenu,
    document: Document,
    parent: QWidget | None,
    rack_id: str | None = None,
    face: str = "front",
) -> list[QAction]:
    """Add "Fill rack with N × …" (for ``rack_id``, the rack under the cursor; disabled
    without one) and "Place K servers across selected racks…" (the racks, rows and sites
    in the document's selection; disabled without any) to ``menu``; returns both."""
    design = document.design
    rack = design.find_rack(rack_id) if rack_id is not None else None
    has_items = bool(rackable_items(document))
    fill = menu.addAction(f"Fill {rack.name} with N × …" if rack else "Fill rack with N × …")
    fill.setObjectName("fillRackAction")
    fill.setEnabled(rack is not None and has_items)
    if rack is not None:
        target = rack.id
        fill.triggered.connect(lambda: open_fill_rack(document, target, parent, face))
    racks = filling.racks_in(design, document.selected)
    across = menu.addAction(
        f"Place K servers across {len(racks)} selected racks…"
        if len(racks) > 1
        else "Place K servers across selected racks…"
    )
    across.setObjectName("placeAcrossAction")
    across.setEnabled(bool(racks) and has_items)
    if racks:
        across.triggered.connect(lambda: open_place_across(document, racks, parent, face))
    return [fill, across]
