"""The properties inspector: what the shared selection is, and the edits it allows.

It reads the model on every ``changed`` and ``selectionChanged`` and edits only by
pushing commands (rename a device or rack, set a device's serial, asset tag or role,
change a rack's cooling or power limit, the speed and media of a link or a bundle of
them), so every edit made here is one undo step.  A rack's power, space and weight come
from the document's shared :class:`~workbench.ui.shell.live_figures.LiveFigures`, never
recomputed here; a device's ports and links and the link page are
:mod:`workbench.ui.fabric.inspector`'s.
"""

from __future__ import annotations

import html
import logging

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QUndoCommand
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.calc.summary import RackLoad
from workbench.catalog.item import CatalogItem
from workbench.catalog.netbox import power_source
from workbench.catalog.vocabulary import COOLING_TYPES, item_role
from workbench.model import Design, Device, Rack
from workbench.model.placement import units_label
from workbench.render import colors
from workbench.render.colors import role_label
from workbench.render.rack_geometry import as_text, item_height_u, whole_unit
from workbench.render.safe_figures import per_mille, safe_rack_budgets
from workbench.rules.budgets import BudgetState, unknown_note
from workbench.ui.catalog.palette import power_unknown
from workbench.ui.catalog.power_figure import PowerFigureDialog, open_power_figure
from workbench.ui.commands import (
    rename_device,
    rename_rack,
    set_device_field,
    set_rack_cooling,
    set_rack_fields,
)
from workbench.ui.fabric.inspector import LinkPage, link_summary, port_counts
from workbench.ui.fabric.scene import StructureCache
from workbench.ui.one_pass import follow
from workbench.ui.racks.form import RackForm
from workbench.ui.rich_note import RichNote
from workbench.ui.shell.document import Change, Document
from workbench.ui.widgets import narrow_combo
from workbench.units import finite, format_kw, format_limit, short_number


class _UndoPassThrough(QObject):
    """Lets Ctrl+Z / Ctrl+Shift+Z reach the document's Undo/Redo from a line edit.

    A QLineEdit claims the undo shortcuts for its own text history.  Once its text is
    committed (not modified) that history is meaningless, and a planner who just renamed
    a server and pressed Ctrl+Z expects the rename to be undone.
    """

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(watched, QLineEdit)
            and isinstance(event, QKeyEvent)
            and not watched.isModified()
            and (
                event.matches(QKeySequence.StandardKey.Undo)
                or event.matches(QKeySequence.StandardKey.Redo)
            )
        ):
            event.ignore()
            return True
        return False


log = logging.getLogger(__name__)

#: Findings listed for one object; the rest are counted (10,000 devices stacked in one
#: rack give 10,000 findings, and a label holding them all took seconds to lay out).
MAX_FINDINGS_SHOWN = 12


def position_text(position: object, u_height: object) -> str:
    """Where a device sits, as :func:`~workbench.model.placement.units_label` says it,
    or the stored position as it is when it is no unit ("'abc' (not a rack unit)")."""
    low, height = whole_unit(position), item_height_u(u_height)
    if position is None:
        return "not mounted"
    if low is None:
        return f"{as_text(position)} (not a rack unit)"
    return units_label(low, height)


def _weight_kg(item: CatalogItem) -> float | None:
    """The item's weight in kg, None when it holds no number."""
    try:
        weight = item.weight_kg
    except (TypeError, ValueError):
        return None
    return float(weight) if finite(weight) else None


def _value_label() -> QLabel:
    label = QLabel()
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    return label


def _kw(watts: float | None) -> str:
    """A device's nameplate watts as kW with two decimals ("10.20 kW")."""
    return format_kw(None if watts is None else watts / 1000, 2)


def _bar(state: BudgetState) -> str:
    color = colors.budget_color(state)
    return (
        "QProgressBar { border: 1px solid #cfd8dc; border-radius: 3px; background: #f5f7f8;"
        " max-height: 8px; } QProgressBar::chunk { background: " + color + "; }"
    )


class _Body(QWidget):
    """The scrolled panel: its size hint's height is read at the width it has.

    Why: Qt's size hint of a widget whose layout has a height for width is that height
    at the hint's own width (~400 px here, wider than the dock), and the scroll area asks
    for it after every new text.  Every wrapped label, the findings and each page of the
    stack were then laid out a second time at that width, besides the width they are
    shown at, after every drop and undo (their layouts keep one width at a time).  The
    width of the hint is unchanged; only its height is read where the panel is."""

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        layout = self.layout()
        if layout is None or not layout.hasHeightForWidth() or not self.isVisible():
            return super().sizeHint()
        hint = layout.sizeHint()
        return QSize(hint.width(), layout.totalHeightForWidth(self.width()))


class Inspector(QWidget):
    """Shows the selected device or rack and lets the user rename it and set cooling."""

    def __init__(self, document: Document, parent: QWidget | None = None):
        super().__init__(parent)
        self.document = document
        # Asked for first, so it forgets the planes before this inspector reads them.
        self.structures = StructureCache.for_document(document)
        self._shown: str | None = None
        #: The selection the last refresh showed (a selection change to it needs none).
        self._refreshed_for: tuple[str, ...] | None = None
        #: The power-limit box's value when last filled from the model (rounded to what
        #: it can show): leaving the box commits only when the user moved it from this.
        self._limit_shown: float | None = None
        self._pass_through = _UndoPassThrough(self)
        #: The reason of the last edit the model refused (see :meth:`_push_device_field`).
        self._refusal: str | None = None
        #: The last power figure dialog opened from here (tests drive it).
        self.power_dialog: PowerFigureDialog | None = None
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 15px; font-weight: 600; padding: 2px 0 6px 0;")
        self.title.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self._make_empty_page())
        self.stack.addWidget(self._make_device_page())
        self.stack.addWidget(self._make_rack_page())
        self.stack.addWidget(self._make_link_page())
        self.message = QLabel()
        self.message.setStyleSheet(f"color: {colors.LOAD_OVER};")
        self.message.setWordWrap(True)
        self.message.hide()
        #: The rule findings about what is shown (waived ones marked), as in Checks.
        #: Rich text laid out once per text (a word-wrapped QLabel laid it out five to
        #: seven times: see :mod:`workbench.ui.rich_note`).
        self.findings = RichNote()
        self.findings.setObjectName("inspectorFindings")
        self.findings.hide()

        body = self._body = _Body()
        layout = self._body_layout = QVBoxLayout(body)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addWidget(self.title)
        # Findings first: what is wrong with the object matters more than its fields, and
        # below the stack (as tall as its tallest page) they fell out of sight.
        layout.addWidget(self.findings)
        layout.addWidget(self.message)
        layout.addWidget(self.stack)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        follow(scroll)  # its bar comes and goes with the page: laid out before the paint
        # Opaque (its groove covers it whole): a drop's new scroll range repaints the
        # bar alone, not the dock beneath it too (~0.4 ms of every drop and its undo).
        scroll.verticalScrollBar().setAutoFillBackground(True)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

        document.changed.connect(self._on_document_changed)
        document.selectionChanged.connect(self._on_selection_changed)
        document.designReplaced.connect(self._on_design_replaced)
        document.editRefused.connect(self._on_edit_refused)
        document.figures.findingsReady.connect(self.refresh)
        self.refresh()

    # -- pages -----------------------------------------------------------------------
    def _make_empty_page(self) -> QWidget:
        label = QLabel(
            "Click a device or a rack in the rack view, or a link in the Fabric view, to "
            "see its properties."
        )
        label.setWordWrap(True)
        label.setStyleSheet(f"color: {colors.TEXT_MUTED};")
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        return label

    def _form(self) -> tuple[QWidget, QFormLayout]:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(7)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # Labels go above their fields when the dock is too narrow for both side by side.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        return page, form

    def _make_device_page(self) -> QWidget:
        page, form = self._form()
        self.device_name = QLineEdit()
        self.device_name.setObjectName("deviceName")
        self.device_name.editingFinished.connect(self._commit_device_name)
        self.device_name.installEventFilter(self._pass_through)
        form.addRow("Name", self.device_name)
        self.device_fields: dict[str, QLabel] = {}
        for key, label in (("model", "Model"), ("manufacturer", "Manufacturer")):
            self.device_fields[key] = _value_label()
            form.addRow(label, self.device_fields[key])
        self.device_role = narrow_combo("deviceRole")
        self.device_role.addItem("From catalog", "")  # text set per device: its catalog role
        for role, (label, _fill) in colors.ROLE_COLORS.items():
            if role != "other":  # "other" is what an unknown role falls back to, not a choice
                self.device_role.addItem(label, role)
        self._role_choices = self.device_role.count()
        self.device_role.activated.connect(self._commit_device_role)
        form.addRow("Role", self.device_role)
        for key, label in (
            ("rack", "Rack"),
            ("row", "Row"),
            ("position", "Position"),
            ("power", "Power"),
            ("gpus", "GPUs"),
            ("weight", "Weight"),
        ):
            self.device_fields[key] = _value_label()
            form.addRow(label, self.device_fields[key])
            if key == "power":
                #: Shown for a type whose power is unknown: opens the power figure dialog.
                self.set_power = QPushButton("Set power figure…")
                self.set_power.setObjectName("setPowerFigure")
                self.set_power.clicked.connect(self._open_power_figure)
                form.addRow("", self.set_power)
        #: Installers' labels, typed node by node: field name → its box.
        self.device_labels: dict[str, QLineEdit] = {}
        for field, label, name in (
            ("serial", "Serial", "deviceSerial"),
            ("asset_tag", "Asset tag", "deviceAssetTag"),
        ):
            editor = QLineEdit()
            editor.setObjectName(name)
            editor.setPlaceholderText("—")
            editor.editingFinished.connect(lambda field=field: self._commit_device_label(field))
            editor.installEventFilter(self._pass_through)
            self.device_labels[field] = editor
            form.addRow(label, editor)
        self.device_serial = self.device_labels["serial"]
        self.device_asset_tag = self.device_labels["asset_tag"]
        #: Ports in use and links per plane (hidden for a device without data ports).
        for key, label in (("ports", "Ports"), ("fabric", "Fabric")):
            self.device_fields[key] = _value_label()
            form.addRow(label, self.device_fields[key])
        self._device_form = form
        return page

    def _make_link_page(self) -> QWidget:
        page, form = self._form()
        self.link_page = LinkPage(self.document, self._push_checked, form, page)
        return page

    def _make_rack_page(self) -> QWidget:
        page, form = self._form()
        self.rack_name = QLineEdit()
        self.rack_name.setObjectName("rackName")
        self.rack_name.editingFinished.connect(self._commit_rack_name)
        self.rack_name.installEventFilter(self._pass_through)
        form.addRow("Name", self.rack_name)
        self.rack_fields: dict[str, QLabel] = {}
        for key, label in (("row", "Row"),):
            self.rack_fields[key] = _value_label()
            form.addRow(label, self.rack_fields[key])
        self.cooling = narrow_combo("rackCooling")
        for key, cooling in COOLING_TYPES.items():
            self.cooling.addItem(f"{cooling.label} ({cooling.limit_kw:g} kW)", key)
        self.cooling.activated.connect(self._commit_cooling)
        form.addRow("Cooling", self.cooling)
        self.power_limit = QDoubleSpinBox()
        self.power_limit.setObjectName("rackPowerLimit")
        # Wide and fine enough to show any sensible stored limit as it is; a value it
        # cannot show exactly is still only written back when the user changes it.
        self.power_limit.setRange(0.01, 10_000.0)
        self.power_limit.setDecimals(2)
        self.power_limit.setSuffix(" kW")
        self.power_limit.setKeyboardTracking(False)
        self.power_limit.editingFinished.connect(self._commit_power_limit)
        form.addRow("Power budget", self.power_limit)
        self.kw_bar, self.u_bar, self.kg_bar = QProgressBar(), QProgressBar(), QProgressBar()
        for key, label, bar in (
            ("kw", "Power", self.kw_bar),
            ("u", "Space", self.u_bar),
            ("weight", "Weight", self.kg_bar),
        ):
            self.rack_fields[key] = _value_label()
            bar.setTextVisible(False)
            bar.setRange(0, 1000)
            box = QWidget()
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(3)
            column.addWidget(self.rack_fields[key])
            column.addWidget(bar)
            form.addRow(label, box)
        for key, label in (("devices", "Devices"), ("gpus", "GPUs")):
            self.rack_fields[key] = _value_label()
            form.addRow(label, self.rack_fields[key])
        #: Rack model, limits, feeds and the other budgets (a form of its own).
        self.rack_form = RackForm(self.document, self._push_checked, form)
        return page

    # -- showing ---------------------------------------------------------------------
    @property
    def design(self) -> Design:
        return self.document.design

    def refresh(self) -> None:
        """Show the document's current selection (again).

        Never raises: odd values are shown as they are (see
        :func:`~workbench.render.rack_geometry.as_text`), and should a figure still
        fail, the reason is logged and shown in place of the page, because an exception
        out of this slot would leave the inspector showing the previous object.
        """
        self._refreshed_for = self.document.selected
        try:
            self._refresh()
        except Exception as exc:  # noqa: BLE001 - the last line of defence, logged
            log.exception("Could not show %r in the inspector", self.document.selection)
            self.title.setText("Cannot show this object")
            self.stack.setCurrentIndex(0)
            self._fail(f"The inspector could not read it: {exc}")
        self._keep_tallest()

    def _keep_tallest(self) -> None:
        """Keep the page at least as tall as the tallest it has been.

        Why: a drop shows the new device with its findings and its undo shows nothing
        selected; the page's height, so the scroll bar's range, changed with every such
        edit, and Qt repainted the whole bar (its gradients: ~1-3 ms, half of it in Qt's
        paint threads, of every drop and undo at 16,384 GPUs).  The page already stays
        as tall as its tallest form (one stacked widget); now the findings above it
        only ever add room too, until another design replaces this one."""
        body, layout = self._body, self._body_layout
        if not body.isVisible():
            return  # not laid out yet: its width, so its wrapped lines' height, is not known
        tall = (
            layout.totalHeightForWidth(body.width())
            if layout.hasHeightForWidth()
            else layout.totalSizeHint().height()
        )
        if tall > body.minimumHeight():
            body.setMinimumHeight(tall)

    def _refresh(self) -> None:
        self.message.hide()
        selected = self.document.selection
        self._shown = selected
        self._show_findings(selected)
        found = self.document.figures.find_device(selected) if selected else None
        if found is not None:
            self._show_device(*found)
            return
        rack = self.document.figures.find_rack(selected) if selected else None
        if rack is not None:
            self._show_rack(rack)
            return
        # Nothing selected asks nothing of the link table (not built before it is needed).
        links = self.design.index.links if selected is not None else {}
        if selected is not None and selected in links:
            ids = [i for i in self.document.selected if i in links]
            self.title.setText(self.link_page.show_links(ids))
            self.stack.setCurrentIndex(3)
            return
        self._shown = None
        self.title.setText("Nothing selected")
        self.stack.setCurrentIndex(0)

    def _row_of(self, rack: Rack) -> str:
        index = self.design.index
        row = index.row_of_rack(rack.id)
        if row is None:
            return "—"
        site = index.site_of_row(row.id)
        name = as_text(row.name)
        if len(self.design.sites) == 1 or site is None:
            return name
        return f"{name} ({as_text(site.name)})"

    def _show_findings(self, object_id: str | None) -> None:
        """List the rule findings about the selected object, worst first."""
        figures = self.document.figures
        if object_id is None or not figures.checked:
            self.findings.hide()
            return
        waived = figures.waived()
        found = sorted(
            figures.checker.findings_of(object_id), key=lambda f: (f.key in waived, -f.severity)
        )
        if not found:
            self.findings.hide()
            return
        lines = []
        shown, rest = found[:MAX_FINDINGS_SHOWN], len(found) - MAX_FINDINGS_SHOWN
        for finding in shown:
            color = (
                colors.TEXT_MUTED
                if finding.key in waived
                else colors.SEVERITY_COLORS[finding.severity]
            )
            note = " (waived)" if finding.key in waived else ""
            lines.append(
                f'<p style="margin:0 0 4px 0"><b style="color:{color}">'
                f"{html.escape(as_text(finding.rule))}</b>{note}: "
                f"{html.escape(as_text(finding.message))}</p>"
            )
        if rest > 0:
            lines.append(f"<p style='margin:0'>… and {rest:,} more in the Checks view</p>")
        self.findings.setText("<b>Checks</b>" + "".join(lines))
        self.findings.show()

    def _show_device(self, rack: Rack, device: Device) -> None:
        slug = device.device_type
        item = self.design.device_types.get(slug) if isinstance(slug, str) else None
        f = self.device_fields
        name = as_text(device.name)
        self.title.setText(f"Device · {name}")
        if not self.device_name.hasFocus() or not self.device_name.isModified():
            self.device_name.setText(name)
        f["model"].setText(
            as_text(item.model) if item else f"{as_text(slug)} (not in design catalog)"
        )
        f["manufacturer"].setText(as_text(item.manufacturer) if item else "—")
        self._show_role(item, as_text(device.role))
        f["rack"].setText(as_text(rack.name))
        f["row"].setText(self._row_of(rack))
        height = item.u_height if item else 0
        f["position"].setText(f"{position_text(device.position, height)}, {as_text(device.face)}")
        unknown = item is not None and power_unknown(item)
        self._device_form.setRowVisible(self.set_power, unknown)
        if item is not None:
            if unknown:
                f["power"].setText("unknown: the catalog item has no power figure")
            else:
                f["power"].setText(
                    f"{_kw(item.max_power_w)} max · {_kw(item.typical_power_w)} typical "
                    f"({power_source(item)})"
                )
            if item.gpu_count:
                gpu_slug = item.gpu if isinstance(item.gpu, str) else ""
                gpu = self.design.device_types.get(gpu_slug)
                gpu_name = as_text(gpu.model) if gpu else (gpu_slug or "GPU")
                f["gpus"].setText(f"{as_text(item.gpu_count)} × {gpu_name}")
            else:
                f["gpus"].setText("—")
            weight = _weight_kg(item)
            f["weight"].setText("—" if weight is None else f"{weight:,.1f} kg")
        else:
            for key in ("power", "gpus", "weight"):
                f[key].setText("—")
        for field, editor in self.device_labels.items():
            if not editor.hasFocus() or not editor.isModified():
                editor.setText(as_text(getattr(device, field)))
        self._show_fabric(device)
        self.stack.setCurrentIndex(1)

    def _show_fabric(self, device: Device) -> None:
        """Ports used and free, and per plane the device's tier and links."""
        form, f = self._device_form, self.device_fields
        try:
            counts = port_counts(self.design, device.id)
        except Exception:  # noqa: BLE001 - links to ports the item lacks, odd interfaces
            log.exception("Could not count the ports of %r", device.id)
            counts = None
        if counts is not None:
            used, total = counts
            f["ports"].setText(f"{used:,} of {total:,} used · {total - used:,} free")
        form.setRowVisible(f["ports"], counts is not None)
        cabled = bool(self.design.index.device_links.get(device.id))
        try:
            summary = (
                link_summary(self.design, device.id, self.structures.structures()) if cabled else ""
            )
        except Exception:  # noqa: BLE001 - cabling the fabric figures cannot read
            log.exception("Could not summarise the links of %r", device.id)
            summary = "? (the links could not be read)"
        f["fabric"].setText(summary)
        form.setRowVisible(f["fabric"], bool(summary))

    def _show_role(self, item: CatalogItem | None, role: str) -> None:
        """Point the role box at ``role``; "" reads "From catalog (its role)".  A stored
        role the box does not offer gets an entry of its own, so that showing it (or
        passing through the box) never changes it."""
        combo = self.device_role
        combo.blockSignals(True)
        combo.setItemText(0, f"From catalog ({role_label(item_role(item))})")
        while combo.count() > self._role_choices:
            combo.removeItem(combo.count() - 1)
        index = combo.findData(role)
        if index < 0:
            known = role.strip().lower()
            label = (
                f"{role_label(known)} (stored as “{role}”)"
                if known in colors.ROLE_COLORS
                else f"{role} (unknown role)"
            )
            combo.addItem(label, role)
            index = combo.count() - 1
        combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def _show_rack(self, rack: Rack) -> None:
        f = self.rack_fields
        load = self.document.figures.rack_load(rack.id)
        name = as_text(rack.name)
        self.title.setText(f"Rack · {name}")
        if not self.rack_name.hasFocus() or not self.rack_name.isModified():
            self.rack_name.setText(name)
        f["row"].setText(self._row_of(rack))
        cooling = as_text(rack.cooling)
        index = self.cooling.findData(cooling)
        self.cooling.blockSignals(True)
        if index < 0:
            self.cooling.addItem(f"{cooling or '(none)'} (unknown)", cooling)
            index = self.cooling.count() - 1
        self.cooling.setCurrentIndex(index)
        self.cooling.blockSignals(False)
        if not self.power_limit.hasFocus():
            limit = rack.power_limit_kw
            box = self.power_limit
            box.blockSignals(True)
            # A limit that is no number the box can hold ("lots", NaN, infinity, 0)
            # shows as "?" at the bottom of the range; it is only replaced when the
            # user moves the box away from there.
            shown = finite(limit) and box.minimum() <= limit <= box.maximum()
            box.setSpecialValueText("" if shown else "?")
            box.setValue(float(limit) if shown else box.minimum())
            box.blockSignals(False)
            self._limit_shown = box.value()
        if load is not None:
            self._show_budgets(rack, load)
        self.rack_form.show_rack(rack, load)
        f["devices"].setText(f"{len(rack.devices):,}")
        f["gpus"].setText(f"{load.gpus:,}" if load else "0")
        self.stack.setCurrentIndex(2)

    def _show_budgets(self, rack: Rack, load: RackLoad) -> None:
        """Power, space and weight against their limits, coloured by the rules' verdict."""
        f = self.rack_fields
        budgets = safe_rack_budgets(self.design, rack, load)
        if budgets is None:  # figures no calculator reads (see render.safe_figures)
            for key in ("kw", "u", "weight"):
                f[key].setText("?")
            return
        power, space, weight = budgets.power, budgets.space, budgets.weight
        note = unknown_note(power.unknown)
        f["kw"].setText(
            f"{format_kw(power.used)}{note} of {format_limit(power.limit, 'kW')} "
            f"({power.fraction:.0%}) at maximum · {format_kw(load.kw_typical)}{note} typical"
        )
        for bar, budget in ((self.kw_bar, power), (self.u_bar, space), (self.kg_bar, weight)):
            bar.setValue(per_mille(budget.fraction))
            bar.setStyleSheet(_bar(budget.state))
        f["u"].setText(f"{short_number(space.used)} of {format_limit(space.limit, 'U')} used")
        if weight.limit:
            f["weight"].setText(f"{weight.used:,.0f} of {format_limit(weight.limit, 'kg')}")
            self.kg_bar.show()
        else:
            f["weight"].setText(f"{weight.used:,.0f} kg of devices")
            self.kg_bar.hide()

    # -- signals ---------------------------------------------------------------------
    def _on_document_changed(self, change: Change) -> None:
        del change
        self.refresh()

    def _on_design_replaced(self) -> None:
        """Another design: the height kept for the last one's tallest page (see
        :meth:`_keep_tallest`) is forgotten, so the page shrinks to what this design
        shows (a small design opened after a large one had left blank room below)."""
        self._body.setMinimumHeight(0)
        self.refresh()

    def _on_selection_changed(self, object_id: object) -> None:
        del object_id
        # A name typed but not yet committed belongs to what was shown before.
        if self.device_name.isModified():
            self._commit_device_name()
        for field, editor in self.device_labels.items():
            if editor.isModified():
                self._commit_device_label(field)
        if self.rack_name.isModified():
            self._commit_rack_name()
        # An edit that selects what it made (a drop) or drops what it removed says so
        # before its ``changed``, whose refresh showed this selection already.
        if self.document.selected != self._refreshed_for:
            self.refresh()

    # -- edits -----------------------------------------------------------------------
    def _fail(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()

    def _commit_device_name(self) -> None:
        editor = self.device_name
        found = self.document.figures.find_device(self._shown) if self._shown else None
        editor.setModified(False)
        if found is None:
            return
        _, device = found
        if editor.text() == device.name:
            return  # left unchanged: even a name today's rules refuse stays as it is
        if editor.text().strip() != device.name:
            self._push_checked(rename_device(self.document, device.id, editor.text()))

    def _on_edit_refused(self, text: str) -> None:
        self._refusal = text

    def _push_device_field(self, device_id: str, field: str, value: str) -> None:
        self._push_checked(set_device_field(self.document, device_id, field, value))

    def _push_checked(self, command: QUndoCommand) -> None:
        """Push one command; if the model refuses it (the main window says why in the
        status bar), show the stored value again and the reason here too.  The model is
        the one judge of a name or a label: nothing is checked here."""
        self._refusal = None
        self.document.push(command)
        if self._refusal is not None:
            reason, self._refusal = self._refusal, None
            self.refresh()
            self._fail(reason)

    def _commit_device_label(self, field: str) -> None:
        editor = self.device_labels[field]
        found = self.document.figures.find_device(self._shown) if self._shown else None
        editor.setModified(False)
        if found is None:
            return
        _, device = found
        stored = getattr(device, field)
        if editor.text() == stored:
            return  # left unchanged: a stored value with spaces stays as it is
        value = editor.text().strip()
        if value == stored:
            editor.setText(stored)  # only spaces were added: nothing to change
            return
        self._push_device_field(device.id, field, value)

    def _commit_device_role(self, index: int) -> None:
        found = self.document.figures.find_device(self._shown) if self._shown else None
        role = self.device_role.itemData(index)
        if found is None or not isinstance(role, str) or role == found[1].role:
            return
        self._push_device_field(found[1].id, "role", role)

    def _commit_rack_name(self) -> None:
        editor = self.rack_name
        rack = self.document.figures.find_rack(self._shown) if self._shown else None
        editor.setModified(False)
        if rack is None:
            return
        if editor.text() == rack.name:
            return  # left unchanged: even a name today's rules refuse stays as it is
        if editor.text().strip() != rack.name:
            self._push_checked(rename_rack(self.document, rack.id, editor.text()))

    def _commit_cooling(self, index: int) -> None:
        rack = self.document.figures.find_rack(self._shown) if self._shown else None
        cooling = self.cooling.itemData(index)
        if rack is None or cooling not in COOLING_TYPES or cooling == rack.cooling:
            return
        self.document.push(set_rack_cooling(self.document, rack.id, cooling))

    def _open_power_figure(self) -> None:
        """The power figure dialog for the shown device's type (one undoable edit)."""
        found = self.document.figures.find_device(self._shown) if self._shown else None
        if found is not None and isinstance(found[1].device_type, str):
            self.power_dialog = open_power_figure(self.document, found[1].device_type, self)

    def _commit_power_limit(self) -> None:
        rack = self.document.figures.find_rack(self._shown) if self._shown else None
        value = self.power_limit.value()
        if rack is None or value == self._limit_shown or value == rack.power_limit_kw:
            return
        command = set_rack_fields(self.document, rack.id, {"power_limit_kw": value})
        self.document.push(command)
