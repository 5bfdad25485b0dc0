"""The catalog palette: a searchable tree of kind → manufacturer → item.

Items carry their slug in the ``application/x-workbench-slug`` mime type, so the rack
elevation editor (next on the roadmap) only has to accept the drop.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeGuard

from PySide6.QtCore import (
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QIcon, QPixmap, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QLineEdit,
    QMenu,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from workbench.catalog.item import RACKABLE_KINDS, CatalogItem, power_unknown
from workbench.catalog.vocabulary import item_role
from workbench.render.colors import role_color

#: The mime type a dragged catalog item carries: its slug, UTF-8.
SLUG_MIME = "application/x-workbench-slug"

SLUG_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2
#: On a kind's node: (label, number of items), so the filtered count can be shown.
KIND_ROLE = Qt.ItemDataRole.UserRole + 3

KIND_LABELS: dict[str, str] = {
    "server": "Servers",
    "gpu": "GPUs",
    "switch": "Switches",
    "storage": "Storage",
    "nic": "NICs",
    "optic": "Optics",
    "cable": "Cables",
    "rack": "Racks",
    "pdu": "PDUs",
    "infrastructure": "Infrastructure",
}
#: Kinds in the order a planner reaches for them.
KIND_ORDER: tuple[str, ...] = (
    "server",
    "switch",
    "storage",
    "rack",
    "pdu",
    "infrastructure",
    "gpu",
    "nic",
    "optic",
    "cable",
)


def _real(value: object) -> TypeGuard[float]:
    """A non-zero finite number: what the palette may format.  The palette also lists
    the design's own device types, which come from a file and may hold anything."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and value == value
        and abs(value) != float("inf")
        and value != 0
    )


def item_tooltip(item: CatalogItem) -> str:
    """Key figures of a catalog item, one per line."""
    lines = [f"<b>{item.label}</b>", f"<span style='color:#78909c'>{item.slug}</span>"]
    facts: list[str] = []
    if _real(item.u_height):
        facts.append(f"{item.u_height:g}U")
    if _real(item.gpu_count):
        facts.append(f"{item.gpu_count} × {item.gpu or 'GPU'}")
    bf16 = item.tflops.get("bf16") if isinstance(item.tflops, dict) else None
    if _real(bf16):
        facts.append(f"{bf16:,.0f} TFLOPS BF16")
    if _real(item.hbm_gb):
        facts.append(f"{item.hbm_gb:g} GB HBM")
    if _real(item.max_power_w):
        facts.append(f"{item.max_power_w / 1000:,.2f} kW max")
    elif power_unknown(item):
        facts.append("power unknown")
    if item.weight_kg:
        facts.append(f"{item.weight_kg:,.1f} kg")
    for key, unit in (
        ("speed_gbps", "Gb/s"),
        ("reach_m", "m reach"),
        ("capacity_tb", "TB"),
        ("read_gbs", "GB/s read"),
        ("cooling_limit_kw", "kW cooling"),
    ):
        value = item.props.get(key)
        if value:
            facts.append(
                f"{value:g} {unit}" if isinstance(value, (int, float)) else f"{value} {unit}"
            )
    if facts:
        lines.append(" · ".join(facts))
    if item.unit_price:
        lines.append(f"{item.unit_price:,.0f} {item.currency}")
    return "<br>".join(lines)


def _swatch(color: str) -> QIcon:
    pixmap = QPixmap(12, 12)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


class CatalogModel(QStandardItemModel):
    """Kind → manufacturer → item; leaves drag out as slugs."""

    def __init__(self, items: Iterable[CatalogItem] = (), parent=None):
        super().__init__(parent)
        self.set_items(items)

    def set_items(self, items: Iterable[CatalogItem]) -> None:
        """Replace the tree's contents."""
        self.clear()
        #: The items shown, by slug (the context menu asks about the one clicked).
        self.items: dict[str, CatalogItem] = {}
        by_kind: dict[str, dict[str, list[CatalogItem]]] = {}
        for item in items:
            self.items[item.slug] = item
            by_kind.setdefault(item.kind, {}).setdefault(item.manufacturer or "Other", []).append(
                item
            )
        order = [k for k in KIND_ORDER if k in by_kind] + sorted(
            k for k in by_kind if k not in KIND_ORDER
        )
        for kind in order:
            manufacturers = by_kind[kind]
            total = sum(len(v) for v in manufacturers.values())
            label = KIND_LABELS.get(kind, kind.capitalize())
            kind_node = self._group(f"{label} ({total})", label, bold=True)
            kind_node.setData((label, total), KIND_ROLE)
            for manufacturer in sorted(manufacturers, key=str.lower):
                maker_node = self._group(manufacturer, manufacturer, bold=False)
                for item in sorted(manufacturers[manufacturer], key=lambda i: i.model.lower()):
                    maker_node.appendRow(self._leaf(item))
                kind_node.appendRow(maker_node)
            self.appendRow(kind_node)

    @staticmethod
    def _group(text: str, search: str, bold: bool) -> QStandardItem:
        node = QStandardItem(text)
        node.setData(search, SEARCH_ROLE)
        node.setEditable(False)
        node.setDragEnabled(False)
        font = node.font()
        font.setBold(bold)
        node.setFont(font)
        if not bold:
            node.setForeground(QColor("#546e7a"))
        return node

    @staticmethod
    def _leaf(item: CatalogItem) -> QStandardItem:
        text = item.model
        if item.kind in RACKABLE_KINDS and _real(item.u_height):
            text += f"  ·  {item.u_height:g}U"
        if power_unknown(item):
            text += "  ·  power unknown"
        leaf = QStandardItem(text)
        leaf.setEditable(False)
        leaf.setDragEnabled(True)
        leaf.setData(item.slug, SLUG_ROLE)
        search = " ".join(
            filter(
                None,
                [
                    item.manufacturer,
                    item.model,
                    item.slug,
                    item.gpu or "",
                    item.role,
                    item.part_number,
                ],
            )
        )
        leaf.setData(search, SEARCH_ROLE)
        leaf.setToolTip(item_tooltip(item))
        if item.kind in RACKABLE_KINDS:
            leaf.setIcon(_swatch(role_color(item_role(item))))
        return leaf

    def mimeTypes(self) -> list[str]:  # noqa: N802 - Qt's name
        return [SLUG_MIME, "text/plain"]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:  # noqa: N802 - Qt's name
        slugs = [i.data(SLUG_ROLE) for i in indexes if i.data(SLUG_ROLE)]
        mime = QMimeData()
        if slugs:
            mime.setData(SLUG_MIME, "\n".join(slugs).encode("utf-8"))
            mime.setText("\n".join(slugs))
        return mime


class _FilterProxy(QSortFilterProxyModel):
    """The search filter; a kind's heading counts what the filter leaves ("4 of 5")."""

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ):
        if (
            role == Qt.ItemDataRole.DisplayRole
            and self.filterRegularExpression().pattern()
            and not index.parent().isValid()
        ):
            kind = super().data(index, KIND_ROLE)
            if kind:
                label, total = kind
                shown = sum(1 for _ in _walk(self, index))
                if shown != total:
                    return f"{label} ({shown} of {total})"
        return super().data(index, role)


class CatalogPalette(QWidget):
    """Search box over the catalog tree."""

    slugActivated = Signal(str)
    #: "Set power figure…" chosen for an item of unknown power (its slug); whoever owns
    #: the document opens :class:`~workbench.ui.catalog.power_figure.PowerFigureDialog`.
    powerFigureRequested = Signal(str)

    def __init__(self, items: Iterable[CatalogItem] = (), parent: QWidget | None = None):
        super().__init__(parent)
        self.model = CatalogModel(items, self)
        self.proxy = _FilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setRecursiveFilteringEnabled(True)
        self.proxy.setAutoAcceptChildRows(True)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setFilterRole(SEARCH_ROLE)

        self.search = QLineEdit()
        self.search.setObjectName("catalogSearch")
        self.search.setPlaceholderText("Search catalog (model, maker, slug)…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._on_search_changed)

        self.tree = QTreeView()
        self.tree.setModel(self.proxy)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.activated.connect(self._on_activated)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._on_context_menu)

        self.status = QLabel()
        self.status.setStyleSheet("color: #78909c; padding: 2px 4px;")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 4)
        layout.setSpacing(4)
        layout.addWidget(self.search)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.status)
        self._expand_top()
        self._update_status()

    def set_items(self, items: Iterable[CatalogItem]) -> None:
        """Show a different catalog (after loading or importing); the same items again
        (a design opened on the catalog it was made from, the window's first design)
        leave the tree as it is: rebuilt, it cost 5-10 ms a time, twice before the
        window's first frame."""
        items = list(items)
        if items == list(self.model.items.values()):
            return
        self.model.set_items(items)
        self._on_search_changed(self.search.text())

    def _on_search_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text.strip())
        if text.strip():
            self.tree.expandAll()
        else:
            self.tree.collapseAll()
            self._expand_top()
        self._update_status()

    def _expand_top(self) -> None:
        if self.proxy.rowCount():  # servers: what a planner wants first
            top = self.proxy.index(0, 0)
            self.tree.expand(top)
            for row in range(self.proxy.rowCount(top)):
                self.tree.expand(self.proxy.index(row, 0, top))

    def _update_status(self) -> None:
        shown = len(self.visible_slugs())
        total = self.model_item_count()
        if shown == total:
            self.status.setText(f"{total:,} items")
        elif shown == 0:
            self.status.setText(f"No item matches “{self.search.text().strip()}”")
        else:
            self.status.setText(f"{shown:,} of {total:,} items")

    def _on_activated(self, index: QModelIndex) -> None:
        slug = index.data(SLUG_ROLE)
        if slug:
            self.slugActivated.emit(slug)

    def menu_for(self, slug: str) -> QMenu:
        """The context menu of item ``slug``: "Set power figure…", enabled when its
        power is unknown (the one figure a planner must supply to budget its racks), and
        "Place Here" (into the selected rack, as Enter does)."""
        menu = QMenu(self)
        item = self.model.items.get(slug)
        action = menu.addAction("Set power figure…")
        action.setObjectName("setPowerFigureAction")
        action.setEnabled(item is not None and power_unknown(item))
        if item is not None and not power_unknown(item):
            action.setToolTip("Its power is known; see the tooltip for the figure.")
        action.triggered.connect(lambda: self.powerFigureRequested.emit(slug))
        place = menu.addAction("Place Here")
        place.setObjectName("placeHereAction")
        place.setToolTip("Put it into the selected rack (at the unit clicked), as Enter does")
        place.triggered.connect(lambda: self.slugActivated.emit(slug))
        return menu

    def _on_context_menu(self, pos: QPoint) -> None:
        slug = self.tree.indexAt(pos).data(SLUG_ROLE)
        if slug:
            menu = self.menu_for(slug)
            menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            menu.popup(self.tree.viewport().mapToGlobal(pos))

    def model_item_count(self) -> int:
        """How many catalog items the tree holds (unfiltered)."""
        return sum(1 for _ in _walk(self.model, QModelIndex()))

    def visible_slugs(self) -> list[str]:
        """Slugs of the items the filter leaves visible, in tree order."""
        return list(_walk(self.proxy, QModelIndex()))


def _walk(model, parent: QModelIndex | QPersistentModelIndex):
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        slug = index.data(SLUG_ROLE)
        if slug:
            yield slug
        yield from _walk(model, index)
