"""The main window: an assembly of parts around one Document.

Central tabs (Racks, Floor plan, Fabric, Estimates), a catalog palette on the left, the
inspector on the right, Checks and Storage below and the live summary in the status bar.  The window itself only wires them
together; file handling lives in :mod:`workbench.ui.shell.file_actions`.
"""

from __future__ import annotations

import html
import platform
from collections.abc import Sequence
from typing import TYPE_CHECKING

import PySide6
from PySide6.QtCore import QSettings, Qt, QTimer, qVersion
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QTabWidget,
    QWidget,
)

import workbench
from workbench.ui.catalog.palette import CatalogPalette
from workbench.ui.checks.view import ChecksView
from workbench.ui.racks.view import RackView
from workbench.ui.seen import follow_dock, is_seen
from workbench.ui.shell.document import Document
from workbench.ui.shell.file_actions import FileActions
from workbench.ui.shell.hall_actions import HallActions
from workbench.ui.shell.inspector import Inspector
from workbench.ui.shell.summary_strip import SummaryStrip
from workbench.ui.zoom_view import ZOOM_STEP

if TYPE_CHECKING:
    from workbench.ui.estimates import EstimatesView
    from workbench.ui.fabric.dialog import FabricDialog
    from workbench.ui.fabric.panel import FabricPanel
    from workbench.ui.fabric.view import FabricView
    from workbench.ui.storage.panel import StoragePanel
    from workbench.ui.versions.view import VersionsView

APP_NAME = "Workbench"


def about_text() -> str:
    """The Help › About box: what the workbench is and which versions are running."""
    qt = qVersion()
    pyside = PySide6.__version__
    qt_line = f"Qt {qt}, PySide6 {pyside}" if qt != pyside else f"Qt and PySide6 {qt}"
    return (
        f"<b>Workbench {html.escape(workbench.__version__)}</b><br>"
        "Design GPU clusters offline: racks, power, cooling, fabrics and capacity "
        "estimates.<br><br>"
        f"{html.escape(qt_line)}<br>"
        f"Python {html.escape(platform.python_version())}"
    )


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


class MainWindow(QMainWindow):
    """One design per window: rack view, estimates, catalog, inspector and summary.

    Lifetime: closing a window hides it (tests and callers go on reading a closed
    window); whoever opens one for good sets ``WA_DeleteOnClose`` (the app does) or
    calls ``deleteLater()``.  Once Qt deleted it, nothing outside keeps its Python side
    or its document alive: the window and its views connect to the document's signals
    only through bound methods (Qt drops those with the receiver; a lambda naming the
    window kept every closed window, ~3 MB each, alive from the document), and the
    document's history is cleared before the collector frees it (see ``Document``).
    """

    def __init__(
        self,
        document: Document,
        catalog=None,
        settings: QSettings | None = None,
        catalog_problems: Sequence[str] = (),
        parent: QWidget | None = None,
        catalog_warnings: Sequence[str] = (),
    ):
        super().__init__(parent)
        self.document = document
        self.catalog = catalog
        if document.catalog is None:
            document.catalog = catalog
        self.settings = settings if settings is not None else QSettings()
        #: Catalog errors: entries that could not be loaded and were left out.
        self.catalog_problems = list(catalog_problems)
        #: Catalog warnings: entries that were loaded but have a figure worth checking.
        self.catalog_warnings = list(catalog_warnings)
        #: Shown instead of the design's name while an unsaved design has one ("Sample design").
        self.untitled_name: str | None = None
        self.setObjectName("mainWindow")
        self.resize(1500, 940)

        self.rack_view = RackView(document)
        self.rack_view.statusMessage.connect(self._say)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.rack_view, "Racks")
        # The hall plan, beside the elevations: a click on a rack shows its elevation.
        from workbench.ui.floor.plan import FloorPlanView

        self.floor_plan = FloorPlanView(document)
        self.floor_plan.showObject.connect(self.show_object)
        self.floor_plan.statusMessage.connect(self._say)
        self.tabs.addTab(self.floor_plan, "Floor plan")
        # Every plane's cabling as a layered drawing, and (below) the versions: each
        # built the first time its tab is shown or it is asked for (fabric_view,
        # versions_view), an empty page holding its place until then: neither is in the
        # first frame, and their modules and widgets were ~10 % of the window's start.
        self._fabric_view: FabricView | None = None
        self._fabric_page = QWidget()
        self.tabs.addTab(self._fabric_page, "Fabric")
        # Scrolled, so a wide form never forces the window wider than a laptop screen.
        # The view itself (pyqtgraph, ~0.6 s to import and build) is made the first time
        # its tab is shown or it is asked for (:attr:`estimates`), not at start.
        self._estimates: EstimatesView | None = None
        scroller = QScrollArea()
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.tabs.addTab(scroller, "Estimates")
        self.estimates_page = scroller
        # Baselines, what the nodes report, and the compatibility verdicts.
        self._versions_view: VersionsView | None = None
        self._versions_page = QWidget()
        self.tabs.addTab(self._versions_page, "Versions")
        self.setCentralWidget(self.tabs)

        self.palette_widget = CatalogPalette(catalog if catalog is not None else ())
        self.palette_widget.setMinimumWidth(250)
        self.palette_dock = self._dock(
            "Catalog", "catalogDock", self.palette_widget, Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.inspector = Inspector(document)
        self.inspector.setMinimumWidth(330)
        self.inspector_dock = self._dock(
            "Inspector", "inspectorDock", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.resizeDocks(
            [self.palette_dock, self.inspector_dock], [270, 330], Qt.Orientation.Horizontal
        )
        self.checks = ChecksView(document)
        self.checks_dock = self._dock(
            "Checks", "checksDock", self.checks, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.resizeDocks([self.checks_dock], [190], Qt.Orientation.Vertical)
        # The storage tiers and their verdicts, a tab beside Checks: figures the hall,
        # the fabric and the estimates all move.  It and the Cables tab (one plane's
        # figures and cable summary, what the BOM will count) hold an empty page until
        # they first come into view or are asked for (storage_panel, fabric_panel):
        # behind Checks, as shipped, neither is in the first frame.
        self._storage_panel: StoragePanel | None = None
        self.storage_dock = self._dock(
            "Storage", "storageDock", QWidget(), Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.tabifyDockWidget(self.checks_dock, self.storage_dock)
        self._fabric_panel: FabricPanel | None = None
        self.cables_dock = self._dock(
            "Cables", "cablesDock", QWidget(), Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.tabifyDockWidget(self.storage_dock, self.cables_dock)
        for dock in (self.storage_dock, self.cables_dock):
            dock.visibilityChanged.connect(self._on_panel_dock_shown)
        # Sibling scenario files compared side by side, a fourth tab.
        from workbench.ui.scenarios.actions import ScenarioActions

        self.scenario_actions = ScenarioActions(self, dock_under=self.cables_dock)
        self.checks_dock.raise_()
        self.checks.showObject.connect(self.show_object)

        self.summary = SummaryStrip(document)
        self.summary.checksClicked.connect(self.show_checks)
        self.statusBar().addPermanentWidget(self.summary)
        self.statusBar().messageChanged.connect(self._make_room_for_message)

        #: Docks the Estimates tab put away (catalog, inspector and checks are about the
        #: hall), shown again on leaving it, so the form and plots get the room on a
        #: laptop screen.  The status strip still counts the findings.
        self._docks_put_away: list[QDockWidget] = []
        self.tabs.currentChanged.connect(self._on_tab_changed)

        self.file_actions = FileActions(
            self, document, self.settings, catalog, document_name=self.document_name
        )
        # A saved design's comparison figures are kept from the window's findings.
        self.file_actions.saved.connect(self.scenario_actions.keep_saved_figures)
        self.hall_actions = HallActions(self, document, self.rack_view)
        # Enter (or Place Here) on a catalog item: the keyboard way to place one.
        self.palette_widget.slugActivated.connect(self.hall_actions.place_here)
        self._make_menus()
        self.rack_view.context_menu_for = self.hall_actions.context_menu

        document.dirtyChanged.connect(self.setWindowModified)
        document.pathChanged.connect(self._on_path_changed)
        document.designReplaced.connect(self._on_design_replaced)
        document.editRefused.connect(self._on_edit_refused)
        self._update_title()
        self._restore_layout()
        self._fitted = False
        #: Whether the first frame was painted (None: the window was never shown).
        self._painted: bool | None = None
        # Held until the first frame (see showEvent): a design opened before the window
        # is shown (a FILE on the command line) must not be checked before it is drawn.
        # A window nobody shows (a script's, a test's) lets go at the first event loop.
        document.figures.hold_checks()
        QTimer.singleShot(0, self._release_if_hidden)

    # -- parts ---------------------------------------------------------------------
    def _dock(self, title: str, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        # A panel that puts its work off while covered catches up when its tab is raised.
        on_exposed = getattr(widget, "on_exposed", None)
        if on_exposed is not None:
            follow_dock(dock, on_exposed)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        self.addDockWidget(area, dock)
        return dock

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.file_actions.fill_menu(file_menu)
        # Print Preview…, Print…, Export PDF…, Export SVG…: above Quit, as one group.
        from workbench.ui.shell.print_actions import PrintActions

        self.print_actions = PrintActions(self, self.document)
        self.print_actions.add_to_menu(file_menu, before=self.file_actions.quit_action)
        # Workbooks and handoff files, the same writers as `workbench export`.
        from workbench.ui.shell.export_actions import ExportActions

        self.export_actions = ExportActions(self, self.document)
        # File ▸ Import: a design from NetBox files, device types into this design.
        from workbench.ui.asbuilt.actions import install_asbuilt_import
        from workbench.ui.catalog.device_type_import import install_import_menu
        from workbench.ui.shell.netbox_actions import install_netbox_import

        self.netbox_import = install_netbox_import(self, file_menu)
        self.device_type_import = install_import_menu(self, file_menu)
        self.asbuilt_import = install_asbuilt_import(self, file_menu)
        self.export_actions.add_to_menu(file_menu, before=self.file_actions.quit_action)
        self.scenario_actions.add_to_menu(file_menu, before=self.file_actions.quit_action)
        file_menu.insertSeparator(self.file_actions.quit_action)

        edit = bar.addMenu("&Edit")
        self.undo_action = self.document.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts(QKeySequence.StandardKey.Undo)
        self.redo_action = self.document.undo_stack.createRedoAction(self, "&Redo")
        redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        if QKeySequence("Ctrl+Shift+Z") not in redo_keys:  # what Linux desktops use
            redo_keys.append(QKeySequence("Ctrl+Shift+Z"))
        self.redo_action.setShortcuts(redo_keys)
        # The actions keep their texts and enabled states from the stack, but run
        # through the document, which mends the history when a step fails.
        self.undo_action.triggered.disconnect()
        self.undo_action.triggered.connect(self.document.undo)
        self.redo_action.triggered.disconnect()
        self.redo_action.triggered.connect(self.document.redo)
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        edit.addSeparator()
        self.hall_actions.fill_edit_menu(edit)
        self.delete_action = self._add(
            edit, "&Delete", QKeySequence.StandardKey.Delete, self._delete_selected
        )
        self.delete_action.setStatusTip(
            "Remove the selected devices and racks, or links in the Fabric view (undoable)"
        )
        self.hall_actions.delete_action = self.delete_action
        edit.addSeparator()
        self.teams_action = self._add(edit, "&Teams…", None, self.show_teams)
        self.teams_action.setStatusTip(
            "The teams sharing the cluster: GPU limit and priority (the exports' QOS and quotas)"
        )
        self.costs_action = self._add(edit, "C&osts…", None, self.show_costs)
        self.costs_action.setStatusTip(
            "Cost inputs: tariff, PUE, maintenance, space, staffing, years, utilisation"
        )
        self.hall_actions.fill_hall_menu(bar.addMenu("&Hall"))
        fabric = bar.addMenu("F&abric")
        self.generate_fabric_action = self._add(
            fabric, "&Generate Fabric…", "Ctrl+Shift+G", self.generate_fabric
        )
        self.generate_fabric_action.setStatusTip(
            "Generate a plane's switches and links (one undoable step)"
        )
        self.show_fabric_action = self._add(fabric, "Show &Fabric View", None, self.show_fabric)
        self.cable_summary_action = self._add(
            fabric, "&Cable Summary", "Ctrl+Shift+L", self.show_cable_summary
        )
        self.cable_summary_action.setStatusTip(
            "A plane's figures and its cables and optics by media, length and part"
        )
        self.storage_action = self._add(fabric, "&Storage Tiers", None, self.show_storage)

        view = bar.addMenu("&View")
        for dock in (
            self.palette_dock,
            self.inspector_dock,
            self.checks_dock,
            self.storage_dock,
            self.cables_dock,
        ):
            view.addAction(dock.toggleViewAction())
        self.checks_dock.toggleViewAction().setShortcut(QKeySequence("Ctrl+Shift+C"))
        view.addSeparator()
        self.fit_action = self._add(view, "&Fit Racks in View", "Ctrl+0", self.rack_view.fit)
        self._add(
            view,
            "Zoom &In",
            QKeySequence.StandardKey.ZoomIn,
            lambda: self.rack_view.zoom_by(ZOOM_STEP, around_centre=True),
        )
        self._add(
            view,
            "Zoom &Out",
            QKeySequence.StandardKey.ZoomOut,
            lambda: self.rack_view.zoom_by(1 / ZOOM_STEP, around_centre=True),
        )

        help_menu = bar.addMenu("&Help")
        self.catalog_problems_action = self._add(
            help_menu, "&Catalog Problems…", None, self.show_catalog_problems
        )
        self.catalog_problems_action.setEnabled(
            bool(self.catalog_problems or self.catalog_warnings)
        )
        self.about_action = self._add(help_menu, "&About Workbench", None, self._about)

    def show_teams(self) -> None:
        """Edit ▸ Teams…: the teams dialog (one per window, kept while it lives)."""
        from workbench.ui.shell.teams_dialog import TeamsDialog

        if getattr(self, "teams_dialog", None) is None:
            self.teams_dialog = TeamsDialog(self.document, self)
        self.teams_dialog.show()
        self.teams_dialog.raise_()

    def show_costs(self) -> None:
        """Edit ▸ Costs…: the Estimates view (whose Costs box shows the figures) and
        its Costs form."""
        self.tabs.setCurrentWidget(self.estimates_page)
        self.estimates.costs.open_inputs()

    def _add(self, menu, text: str, shortcut, slot) -> QAction:
        action = QAction(text, self)
        if isinstance(shortcut, QKeySequence.StandardKey):
            action.setShortcuts(shortcut)
        elif shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    @property
    def estimates(self) -> EstimatesView:
        """The Estimates view, made on first use (see ``__init__``)."""
        if self._estimates is None:
            from workbench.ui.estimates import EstimatesView

            self._estimates = EstimatesView(self.document)
            self.estimates_page.setWidget(self._estimates)
        return self._estimates

    @property
    def fabric_view(self) -> FabricView:
        """The Fabric tab's view (built the first time it is shown or asked for)."""
        if self._fabric_view is None:
            from workbench.ui.fabric.view import FabricView

            view = FabricView(self.document)
            view.statusMessage.connect(self._say)
            view.showObject.connect(self.show_object)
            view.generateRequested.connect(self.generate_fabric)
            self._fabric_view = view
            self._into_tab(self._fabric_page, view)
        return self._fabric_view

    @property
    def versions_view(self) -> VersionsView:
        """The Versions tab's view (built the first time it is shown or asked for)."""
        if self._versions_view is None:
            from workbench.ui.versions.view import VersionsView

            self._versions_view = VersionsView(self.document)
            self._into_tab(self._versions_page, self._versions_view)
        return self._versions_view

    @property
    def storage_panel(self) -> StoragePanel:
        """The Storage tab's panel (built the first time it comes into view or is asked
        for)."""
        if self._storage_panel is None:
            from workbench.ui.storage.panel import StoragePanel

            self._storage_panel = StoragePanel(self.document)
            self._into_dock(self.storage_dock, self._storage_panel)
        return self._storage_panel

    @property
    def fabric_panel(self) -> FabricPanel:
        """The Cables tab's panel (built the first time it comes into view or is asked
        for)."""
        if self._fabric_panel is None:
            from workbench.ui.fabric.panel import FabricPanel

            self._fabric_panel = FabricPanel(self.document)
            self._into_dock(self.cables_dock, self._fabric_panel)
        return self._fabric_panel

    @staticmethod
    def _into_dock(dock: QDockWidget, panel: StoragePanel | FabricPanel) -> None:
        """Put ``panel`` in ``dock`` for good, where it follows the dock from now on (it
        catches up when its tab is raised) and catches up now if it is in view."""
        page = dock.widget()
        dock.setWidget(panel)
        if page is not None:
            page.deleteLater()
        follow_dock(dock, panel.on_exposed)
        panel.on_exposed()  # refreshes (after the event) only if it is seen

    def _on_panel_dock_shown(self, shown: bool) -> None:
        """The Storage or Cables dock came into view: build its panel, once the event is
        done (what the dock exposes is known then)."""
        if shown:
            QTimer.singleShot(0, self._build_seen_panels)

    def _build_seen_panels(self) -> None:
        if self._storage_panel is None and is_seen(self.storage_dock):
            self.storage_panel  # noqa: B018 - built the first time it is seen
        if self._fabric_panel is None and is_seen(self.cables_dock):
            self.fabric_panel  # noqa: B018 - built the first time it is seen

    def _into_tab(self, page: QWidget, view: QWidget) -> None:
        """Put ``view`` in the tab that ``page`` held, the same tab current as before (no
        change of tab is announced: none happened)."""
        tabs = self.tabs
        index, current = tabs.indexOf(page), tabs.currentIndex()
        blocked = tabs.blockSignals(True)
        try:
            text = tabs.tabText(index)
            tabs.removeTab(index)
            tabs.insertTab(index, view, text)
            tabs.setCurrentIndex(current)
        finally:
            tabs.blockSignals(blocked)
        page.deleteLater()

    def _on_tab_changed(self, index: int) -> None:
        shown = self.tabs.widget(index)
        if shown is self._fabric_page:
            self.fabric_view  # noqa: B018 - built the first time its tab is shown
        elif shown is self._versions_page:
            self.versions_view  # noqa: B018 - built the first time its tab is shown
        if shown is self.estimates_page:
            self.estimates  # noqa: B018 - build the view the first time its tab is shown
            self._docks_put_away = [
                dock
                for dock in (
                    self.palette_dock,
                    self.inspector_dock,
                    self.checks_dock,
                    self.storage_dock,
                    self.cables_dock,
                )
                if dock.isVisible() and not dock.isFloating()
            ]
            for dock in self._docks_put_away:
                dock.hide()
        else:
            self._restore_docks()

    def _delete_selected(self) -> None:
        # Links (a bundle picked in the Fabric view) go in one step of their own.
        view = self._fabric_view  # not built: no link can be picked in it
        if view is not None and view.delete_selected_links():
            return
        removed = self.document.delete_selected()
        if not removed:
            self.statusBar().showMessage(
                "Select devices or racks in the rack view, or links in the Fabric view, to "
                "delete them.",
                5000,
            )

    # -- the fabric ------------------------------------------------------------------------
    def show_fabric(self) -> None:
        """Bring the Fabric view forward."""
        self.tabs.setCurrentWidget(self.fabric_view)

    def show_cable_summary(self, plane: str | None = None) -> None:
        """Raise the Cables tab, on the plane the Fabric view shows."""
        shown = plane or self.fabric_view.plane
        if shown in ("compute", "storage", "management", "oob"):
            self.fabric_panel.set_plane(shown)
        self.cables_dock.show()
        self.cables_dock.raise_()

    def show_storage(self) -> None:
        """Raise the Storage tab."""
        self.storage_dock.show()
        self.storage_dock.raise_()

    def _fabric_generated(self, plane: str) -> None:
        self.show_fabric()
        self.fabric_view.set_plane(plane)

    def generate_fabric(self) -> FabricDialog:
        """Open the fabric generator for the plane the Fabric view shows (the hosts the
        selection holds, when it holds some); OK applies it as one undoable step."""
        from workbench.ui.fabric.dialog import FabricDialog

        plane = self.fabric_view.plane if self.fabric_view.plane != "all" else "compute"
        dialog = FabricDialog(self.document, self.catalog, plane=plane, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.generated.connect(self._fabric_generated)
        dialog.open()
        self._fabric_dialog = dialog
        return dialog

    # -- findings ----------------------------------------------------------------------
    def show_checks(self) -> None:
        """Bring the Checks view up (the status strip's count was clicked)."""
        self.checks_dock.show()
        self.checks_dock.raise_()
        self.checks.tree.setFocus()

    def show_object(self, object_id: str) -> None:
        """Bring the view that shows ``object_id`` forward and scroll it into view: the
        Estimates view for a workload, the rack view for a rack or a device."""
        kind = self.document.design.index.kind_of(object_id)
        if kind == "workload":
            came_from_checks = self.checks_dock.isVisible()
            self.tabs.setCurrentWidget(self.estimates_page)
            self.estimates.select_workload(object_id)
            if came_from_checks:  # keep the list the user is working through on screen
                self.checks_dock.show()
                if self.checks_dock in self._docks_put_away:
                    self._docks_put_away.remove(self.checks_dock)
            return
        if kind in ("rack", "device"):
            self.tabs.setCurrentWidget(self.rack_view)
            self.rack_view.show_object(object_id)
        elif kind == "link":
            self.tabs.setCurrentWidget(self.fabric_view)
            self.document.select(object_id)

    def _restore_docks(self) -> None:
        docks, self._docks_put_away = self._docks_put_away, []
        for dock in docks:
            dock.show()

    # -- title -----------------------------------------------------------------------
    def document_name(self) -> str:
        """The file name, or the design's name while it has never been saved."""
        path = self.document.path
        if path is not None:
            return path.name
        return self.untitled_name or self.document.design.name or "Untitled design"

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.document_name()}[*] — {APP_NAME}")
        self.setWindowModified(self.document.is_dirty)

    def _on_path_changed(self, _path: str) -> None:
        self._update_title()

    def set_untitled_name(self, name: str | None) -> None:
        """Name the unsaved design in the title (the bundled sample is "Sample design")."""
        self.untitled_name = name
        self._update_title()

    def _make_room_for_message(self, message: str) -> None:
        """A status message (a drop's reason) is read whole; the summary gives way."""
        if not message:
            self.summary.make_room(None)
            return
        bar = self.statusBar()
        needed = bar.fontMetrics().horizontalAdvance(message) + 40
        self.summary.make_room(max(bar.width() - needed, 0))

    def _say(self, text: str, timeout_ms: int) -> None:
        self.statusBar().showMessage(text, timeout_ms)

    def _on_edit_refused(self, text: str) -> None:
        """Say why an edit did nothing (the refused command left no undo step)."""
        self.statusBar().showMessage(text, 8000)

    def _on_design_replaced(self) -> None:
        self.untitled_name = None
        self._update_title()
        QTimer.singleShot(0, self.rack_view.fit_readable)

    # -- catalog problems ------------------------------------------------------------
    def report_catalog_problems(self) -> None:
        """Say once, without blocking, that some catalog files were skipped.

        Errors also open the list; warnings alone (the entries were loaded) only get the
        status bar, so a known warning does not greet the user at every start.
        """
        errors, warnings = len(self.catalog_problems), len(self.catalog_warnings)
        if not errors and not warnings:
            return
        parts = []
        if errors:
            parts.append(
                f"{_plural(errors, 'problem', 'problems')}, "
                f"{'the entry was' if errors == 1 else 'the entries were'} skipped"
            )
        if warnings:
            parts.append(
                f"{_plural(warnings, 'warning', 'warnings')}, "
                f"{'the entry was' if warnings == 1 else 'the entries were'} loaded"
            )
        self.statusBar().showMessage(
            f"Catalog: {'; '.join(parts)} (Help ▸ Catalog Problems)", 20000
        )
        if errors:
            self.show_catalog_problems()

    def catalog_problem_lines(self) -> list[str]:
        """Errors then warnings, labelled as ``workbench catalog validate`` prints them."""
        return [f"error: {e}" for e in self.catalog_problems] + [
            f"warning: {w}" for w in self.catalog_warnings
        ]

    def catalog_problems_summary(self) -> str:
        """The dialog's headline: what was left out, and what was loaded with a warning."""
        errors, warnings = len(self.catalog_problems), len(self.catalog_warnings)
        sentences = []
        if errors:
            sentences.append(
                f"{_plural(errors, 'catalog entry', 'catalog entries')} could not be loaded "
                f"and {'was' if errors == 1 else 'were'} left out. The workbench works "
                f"without {'it' if errors == 1 else 'them'}."
            )
        if warnings:
            sentences.append(
                f"{_plural(warnings, 'catalog warning', 'catalog warnings')}: "
                f"{'the entry was' if warnings == 1 else 'the entries were'} loaded and "
                f"{'is' if warnings == 1 else 'are'} in use, but check the figure"
                f"{'' if warnings == 1 else 's'} named below."
            )
        return "\n".join(sentences)

    def show_catalog_problems(self) -> QMessageBox | None:
        """A non-modal dialog listing each error and warning as file:line: field: message."""
        lines = self.catalog_problem_lines()
        if not lines:
            return None
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Catalog problems",
            self.catalog_problems_summary(),
            QMessageBox.StandardButton.Close,
            self,
        )
        box.setDetailedText("\n".join(lines))
        box.setInformativeText("\n".join(lines[:8]) + ("\n…" if len(lines) > 8 else ""))
        box.setModal(False)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.show()
        self._problems_box = box
        return box

    def _about(self) -> None:
        QMessageBox.about(self, "About Workbench", about_text())

    # -- window state ----------------------------------------------------------------
    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        # A message shown while the window was smaller (opening a file) needs less room now.
        self._make_room_for_message(self.statusBar().currentMessage())

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            if self.settings.value("window/state") is None:
                self.resizeDocks(
                    [self.palette_dock, self.inspector_dock], [280, 340], Qt.Orientation.Horizontal
                )
            QTimer.singleShot(0, self.rack_view.fit_readable)
            # The window first, then the checks: the first full check (and the fabric
            # an estimate reads) waits for the first paint (held since __init__; half a
            # second after showing, should no paint come), then runs in slices.
            self._painted = False
            QTimer.singleShot(500, self.document.figures.release_checks)

    def _release_if_hidden(self) -> None:
        if not self.isVisible():
            self.document.figures.release_checks()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        if self._painted is False:
            self._painted = True
            # Queued: it runs once this paint pass (the whole first frame) is done.
            QTimer.singleShot(0, self.document.figures.release_checks)

    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
            # A layout saved before a dock existed leaves the new dock loose beside
            # Checks; put it back in its tab.
            if isinstance(state, (bytes, bytearray)) or hasattr(state, "data"):
                raw = bytes(state.data()) if hasattr(state, "data") else bytes(state)
                if b"storageDock" not in raw or b"cablesDock" not in raw:
                    self.tabifyDockWidget(self.checks_dock, self.storage_dock)
                    self.tabifyDockWidget(self.storage_dock, self.cables_dock)
                    self.checks_dock.raise_()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        if not self.file_actions.maybe_save():
            event.ignore()
            return
        if not self.document.is_dirty:
            self.file_actions.discard_autosave()
        self.file_actions.autosave_timer.stop()
        self._restore_docks()  # remember the docks as the user set them, not as put away
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        event.accept()
