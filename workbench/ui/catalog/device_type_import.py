"""File ▸ Import ▸ Device types (NetBox YAML)…, and the palette that shows the result.

The planner picks NetBox device-type files; each is read and classified on its own
(:mod:`workbench.catalog.design_import`: bounded reading, a malformed file is refused
whole with file:line and nothing of it is imported), the questions and diffs are shown
in :class:`~workbench.ui.catalog.device_type_dialog.ImportDialog`, and Import puts every item
into the design's catalog snapshot as ONE undoable edit (a new slug added, an existing
one replaced in place, the GPU a server names snapshotted with it).  The user's files
are only read.

The catalog palette offers the catalog's items, with the design's own version of a
slug in its place and the design's imported types beside them (:func:`palette_items`),
refreshed whenever the snapshot changes (an import, a power figure, their undo).

Hooked into the window by :func:`install_import_menu` (the main window calls it once).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QMessageBox

from workbench.catalog.design_import import (
    MAX_IMPORT_FILES,
    Built,
    Candidate,
    read_candidate,
)
from workbench.catalog.errors import CatalogError
from workbench.catalog.item import CatalogItem, power_unknown
from workbench.model import Change, Design, ops
from workbench.model.requests import ItemSource, snapshot_ops
from workbench.ui.catalog.device_type_dialog import ImportDialog
from workbench.ui.catalog.power_figure import open_power_figure
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document
from workbench.ui.shell.import_menu import import_menu

#: How long the import's summary stays in the status bar, ms.
STATUS_MS = 15000


def known_items(design: Design, catalog: Iterable[CatalogItem] | None) -> dict[str, CatalogItem]:
    """Every item an import can be over or name as its GPU: the catalog's, with the
    design's own version of a slug in its place (that is what its devices use)."""
    known: dict[str, CatalogItem] = {}
    if catalog is not None:
        known.update((item.slug, item) for item in catalog)
    known.update(design.device_types)
    return known


def palette_items(design: Design, catalog: Iterable[CatalogItem] | None) -> list[CatalogItem]:
    """What the palette offers: :func:`known_items` (so an imported type, or one given a
    power figure, is what a drop uses: the design's snapshot wins, see
    :func:`~workbench.model.requests.place_new`)."""
    return list(known_items(design, catalog).values())


def read_files(
    paths: Sequence[Path], known: dict[str, CatalogItem]
) -> tuple[list[Candidate], list[str]]:
    """Each file read and classified, and one line per refused file (file:line and the
    problem).  A slug named by an earlier file of the same import is refused too, and
    so is everything past :data:`MAX_IMPORT_FILES`."""
    candidates: list[Candidate] = []
    refused: list[str] = []
    seen: dict[str, str] = {}
    for number, path in enumerate(paths):
        if number >= MAX_IMPORT_FILES:
            refused.append(
                f"{len(paths) - number:,} more file(s) not read: one import takes at most "
                f"{MAX_IMPORT_FILES:,}"
            )
            break
        try:
            candidate = read_candidate(Path(path), known)
        except CatalogError as exc:
            refused.append(str(exc))
            continue
        if candidate.slug in seen:
            refused.append(
                f"{candidate.shown}: slug {candidate.slug!r} is already imported from "
                f"{seen[candidate.slug]}; nothing imported from this file"
            )
            continue
        seen[candidate.slug] = candidate.shown
        candidates.append(candidate)
    return candidates, refused


def import_op(design: Design, catalog: ItemSource | None, built: Iterable[Built]) -> ops.Batch:
    """The one edit that puts every built item into ``design.device_types``: a slug the
    design holds is replaced in place, a new one added, and the GPU a server names is
    snapshotted from the catalog when the design lacks it (its TFLOPS and HBM count)."""
    steps: list[ops.Op] = []
    gpus: list[str] = []
    slugs = set()
    for entry in built:
        item = entry.item
        slugs.add(item.slug)
        if item.slug in design.device_types:
            steps.append(ops.ReplaceDeviceType(item))
        else:
            steps.append(ops.AddDeviceType(item))
        if item.gpu:
            gpus.append(item.gpu)
    for gpu in dict.fromkeys(gpus):
        if gpu not in slugs:
            steps += [s for s in snapshot_ops(design, catalog, gpu) if s not in steps]
    return ops.Batch(tuple(steps))


class DeviceTypeImport(QObject):
    """The import action of one window, and the palette kept in step with the design."""

    def __init__(self, window: QMainWindow, document: Document):
        super().__init__(window)
        self.window, self.document = window, document
        #: The dialog of the import in progress (tests drive it), None between imports.
        self.dialog: ImportDialog | None = None
        #: What the last import said (status bar or message box), for tests and logs.
        self.last_message = ""
        self.action = QAction("&Device types (NetBox YAML)…", window)
        self.action.setObjectName("importDeviceTypesAction")
        self.action.setStatusTip(
            "Add NetBox device-type files to this design's catalog: questions where the "
            "file cannot tell, a field-by-field diff over an existing type; one undo step"
        )
        self.action.triggered.connect(lambda _checked=False: self.choose_files())
        document.changed.connect(self._on_changed)
        document.designReplaced.connect(self.refresh_palette)
        palette = getattr(window, "palette_widget", None)
        if palette is not None:
            palette.powerFigureRequested.connect(self.set_power_figure)
        self.refresh_palette()

    def choose_files(self) -> None:
        paths, _filter = QFileDialog.getOpenFileNames(
            self.window, "Import device types", "", "NetBox device types (*.yaml *.yml)"
        )
        if paths:
            self.start([Path(p) for p in paths])

    def start(self, paths: Sequence[Path]) -> ImportDialog | None:
        """Read ``paths`` and show the dialog (window-modal); None when every file was
        refused (the reasons are shown in a message box instead)."""
        known = known_items(self.document.design, self.document.catalog)
        candidates, refused = read_files(paths, known)
        if not candidates:
            self.show_refused(refused)
            return None
        dialog = ImportDialog(candidates, refused, known, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.finish(dialog.built))
        dialog.finished.connect(self._forget)
        self.dialog = dialog
        dialog.open()
        return dialog

    def _forget(self) -> None:
        self.dialog = None

    def show_refused(self, refused: Sequence[str]) -> None:
        """Say why no file could be imported (one line per file)."""
        self.last_message = "No device type imported:\n" + "\n".join(refused)
        QMessageBox.warning(self.window, "Import device types", self.last_message)

    def finish(self, built: Sequence[Built]) -> None:
        """Make the one undoable edit, and say what it did in the status bar."""
        if not built:
            return
        op = import_op(self.document.design, self.document.catalog, built)
        replaced = sum(isinstance(s, ops.ReplaceDeviceType) for s in op.ops)
        added = len(built) - replaced
        self.document.push(EditCommand(self.document, op, f"Import {len(built)} device type(s)"))
        unknown = sum(1 for b in built if power_unknown(b.item))
        text = f"Imported {added} new and {replaced} replaced device type(s)"
        if unknown:
            text += f"; {unknown} without a power figure (right-click it in the catalog)"
        self.last_message = text
        self.window.statusBar().showMessage(text, STATUS_MS)

    def set_power_figure(self, slug: str) -> None:
        open_power_figure(self.document, slug, self.window)

    def refresh_palette(self) -> None:
        palette = getattr(self.window, "palette_widget", None)
        if palette is not None:
            palette.set_items(palette_items(self.document.design, self.document.catalog))

    def _on_changed(self, change: Change) -> None:
        if change.types or change.everything:
            self.refresh_palette()


def install_import_menu(window: QMainWindow, menu: QMenu) -> DeviceTypeImport:
    """Add File ▸ Import ▸ Device types (NetBox YAML)… to ``menu`` (the File menu; its
    Import submenu is found by object name ``importMenu`` or made above Quit) and keep
    the window's catalog palette in step with the design's device types."""
    document: Document = window.document  # type: ignore[attr-defined]
    importer = DeviceTypeImport(window, document)
    import_menu(window, menu).addAction(importer.action)
    return importer
