"""The open document: one design, its undo stack, its file path and its dirty state.

Every view listens to this object and nothing else.  Views never mutate the model: they
build a QUndoCommand (see :mod:`workbench.ui.commands`) and :meth:`Document.push` it.
After each command's redo or undo the command calls :meth:`Document.notify` with what it
touched, and the document emits :attr:`Document.changed` once, so live figures recompute
only what depends on the change.  The figures themselves live in :attr:`Document.figures`
(:class:`~workbench.ui.shell.live_figures.LiveFigures`), shared by every view.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from workbench.model import Change, Design, ops, requests
from workbench.model.errors import EditError
from workbench.ui.commands import EditCommand
from workbench.ui.one_pass import lay_out_now
from workbench.ui.shell.live_figures import LiveFigures
from workbench.units import format_count

if TYPE_CHECKING:
    from workbench.catalog import Catalog
    from workbench.store.later import LinksToRead
    from workbench.ui.shell.link_reading import LinkReading

__all__ = ["Change", "Document"]  # Change is the model's; views import it from here too


def _forget_history(stack: QUndoStack) -> None:
    """Delete every command of a document that is going away (see Document.__init__)."""
    with contextlib.suppress(RuntimeError):  # its C++ side went first, with a parent
        stack.clear()


def _ids(object_ids: Iterable[str]) -> tuple[str, ...]:
    """A selection: the ids in order, each once, empty ones left out."""
    return tuple(dict.fromkeys(i for i in object_ids if i))


class _Nothing(QUndoCommand):
    """An undo step that removes itself: pushed to cut off the redo steps."""

    def redo(self) -> None:
        self.setObsolete(True)


class Document(QObject):
    """Owns the design, the undo stack, the path and the dirty flag.

    Signals:
      * ``changed(Change)``: after every command's redo/undo.
      * ``designReplaced()``: a different design was loaded (new/open/revert).  It is
        the only signal then (no ``changed`` follows), so every view that listens to
        ``changed`` also refreshes on this one.
      * ``dirtyChanged(bool)``: the unsaved-changes state flipped.
      * ``pathChanged(str)``: saved under a new name.
      * ``selectionChanged(object)``: the primary selected object id (str) or None.  The
        selection is shared by every view (click in the rack view, the inspector shows it);
        :attr:`Document.selected` holds every selected id (Ctrl+click adds to it).
      * ``currentWorkloadChanged(object)``: the workload being looked at in the Estimates
        view (id or None); the status strip shows its days.
      * ``editRefused(str)``: a command's edit was refused by the model, or failed and
        was rolled back (the reason, fit for the user); the command was dropped and the
        model is as it was before it.
    """

    changed = Signal(object)
    designReplaced = Signal()
    dirtyChanged = Signal(bool)
    pathChanged = Signal(str)
    selectionChanged = Signal(object)
    currentWorkloadChanged = Signal(object)
    editRefused = Signal(str)

    def __init__(
        self,
        design: Design | None = None,
        path: Path | None = None,
        parent: QObject | None = None,
        catalog: Catalog | None = None,
    ):
        super().__init__(parent)
        self._design = design if design is not None else Design()
        self._path = Path(path) if path is not None else None
        #: The catalog the palette offers: a drop snapshots its item into the design.
        self.catalog = catalog
        self._selection: str | None = None
        self._selected: tuple[str, ...] = ()
        #: The selection :meth:`push` was asked to make with its edit (None: keep it).
        self._select_with_change: tuple[str, ...] | None = None
        self._current_workload: str | None = None
        #: Set when a failed undo forced the history to be dropped: the model then holds
        #: changes no undo step leads back from, so it is unsaved whatever the stack says.
        self._changed_without_history = False
        #: How the history must be mended after a command failed ("undo", "redo").
        self._mend: str | None = None
        #: The file's (mtime ns, size) when the design was read from it or saved to it
        #: (:func:`~workbench.planning.scenarios.figures.file_version`, noted by the File
        #: actions); None when the design is not known to be that file's (new, recovered,
        #: repaired).  With a clean document and the file still at this version, the
        #: design is the file's, and its figures are the file's (the Scenarios panel).
        self.file_version: tuple[int, int] | None = None
        #: The figures every view shows (summary, rack loads, workload results), computed
        #: once per change.  Connected first, so it is invalidated before any view's slot
        #: runs (Qt calls direct connections in the order they were made).
        self.figures = LiveFigures(self, parent=self)
        self.designReplaced.connect(self.figures.invalidate)
        self.changed.connect(self.figures.on_changed)
        self.undo_stack = QUndoStack(self)
        # A bound method, not a lambda: Qt drops the connection when this object dies, so
        # the stack's last cleanChanged during teardown cannot reach a deleted document.
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        # The history goes before the document does.  A document is freed by the garbage
        # collector (it is in reference cycles with its figures); left to itself, the
        # collector could free the commands' Python side first, and the stack's
        # destructor then deleted them again: SIGSEGV on the second closed window that
        # had an edit.  This finalizer runs before the collector frees anything of the
        # document and clears the stack while everything is intact.  It holds the stack,
        # and the commands hold their document only weakly (EditCommand.document), or
        # the finalizer itself would keep every document alive.
        weakref.finalize(self, _forget_history, self.undo_stack)
        #: The links of a design opened in two parts, being read after the first frame
        #: (:mod:`workbench.ui.shell.link_reading`); None when the design is complete.
        self.link_reading: LinkReading | None = None

    def _on_clean_changed(self, clean: bool) -> None:
        self.dirtyChanged.emit(self._changed_without_history or not clean)

    # -- state ---------------------------------------------------------------------
    @property
    def design(self) -> Design:
        """The model; read it freely, change it only through commands."""
        return self._design

    @property
    def links_pending(self) -> bool:
        """True while the design's links are still being read (see :meth:`links_read`)."""
        return self.link_reading is not None

    def links_read(self) -> bool:
        """Finish reading the design's links now, if they are still being read: what an
        edit (or anything else that reads links) waits for.  False when the file was
        refused meanwhile (the design is about to be dropped: do nothing with it)."""
        reading = self.link_reading
        return reading is None or reading.complete()

    def read_links_later(self, later: LinksToRead) -> LinkReading:
        """Read the links of the design just loaded (:meth:`replace_design`, from
        :func:`~workbench.store.later.open_design_in_parts`) after the first frame; its
        first check waits for them."""
        from workbench.ui.shell.link_reading import LinkReading

        reading = self.link_reading = LinkReading(self, self.figures, later)
        reading.finished.connect(self._links_in)
        reading.refused.connect(self._links_refused)
        return reading

    def _links_in(self) -> None:
        """The links are in and checked: the figures start anew on the complete design
        (what was computed without links is dropped) and the first check may run."""
        self.link_reading = None
        self.design.index.keep_tables = True  # the index was built anew with the links
        self.figures.invalidate()
        self.figures.check_soon()

    def _links_refused(self) -> None:
        self.link_reading = None

    @property
    def path(self) -> Path | None:
        """Where the design was last opened from or saved to; None for a new design."""
        return self._path

    @property
    def is_dirty(self) -> bool:
        """True when there are changes since the last save (or since opening)."""
        return self._changed_without_history or not self.undo_stack.isClean()

    @property
    def selection(self) -> str | None:
        """The id of the primary selected object (the last one clicked), or None."""
        return self._selection

    @property
    def selected(self) -> tuple[str, ...]:
        """Every selected id, the primary one last (empty when nothing is selected)."""
        return self._selected

    # -- changes -------------------------------------------------------------------
    def push(self, command: QUndoCommand, select: Iterable[str] | None = None) -> None:
        """Run a user edit through the undo stack (its redo() runs now).

        ``select``: ids to make the selection once the edit is made (a dropped device).
        The views learn both at once (:meth:`notify`): selected afterwards, every view
        that shows the selection refreshed twice, the inspector first showing the old
        selection against the new model and then the new one.  While the design's links
        are still being read, they are read first (:meth:`links_read`)."""
        if not self.links_read():
            return
        self._mend_history()
        self._select_with_change = None if select is None else _ids(select)
        try:
            self.undo_stack.push(command)
        finally:
            self._select_with_change = None
        # As after an undo: the layouts the edit's views asked for come before the first
        # paint (a move between racks painted the Checks dock and the status bar twice).
        lay_out_now()

    def undo(self) -> None:
        """Undo one step (the Undo action), then mend the history if it failed."""
        self._mend_history()
        self.undo_stack.undo()
        self._mend_history()
        lay_out_now()

    def redo(self) -> None:
        """Redo one step (the Redo action), then mend the history if it failed."""
        self._mend_history()
        self.undo_stack.redo()
        self._mend_history()
        lay_out_now()

    def command_failed(self, message: str, *, undoing: bool, first: bool) -> None:
        """Called by a command that failed and rolled the model back (it is obsolete,
        so Qt drops it).  Every view is refreshed from the restored model and the
        reason is shown like a refusal.

        The steps on one side of the gap no longer fit the model: after a failed undo,
        those below it undo onto the state the failed step would have restored; after
        a failed later redo, those above it redo onto the state it would have made.
        That side is dropped once Qt is done with the stack (:meth:`undo`,
        :meth:`redo` and :meth:`push` do it at once; a QTimer, should the stack have
        been driven directly).  A failed first redo needs nothing: Qt never keeps it.
        """
        if not first:
            self._mend = "undo" if undoing else "redo"
            QTimer.singleShot(0, self, self._mend_history)
        self.notify(Change.all())
        self.refuse(message)

    def _mend_history(self) -> None:
        """Drop the half of the history a failed step left unusable (see
        :meth:`command_failed`); nothing when no step failed."""
        mend, self._mend = self._mend, None
        if mend == "redo":
            # Pushing a step that makes itself obsolete removes every redo step above
            # the current one (QUndoStack.push does that first) and leaves no trace.
            self.undo_stack.push(_Nothing())
        elif mend == "undo":
            self._changed_without_history = True  # before clear() reports "clean"
            self.undo_stack.clear()
            self.dirtyChanged.emit(True)

    def notify(self, change: Change) -> None:
        """Called by commands after they changed the model.  The selection follows the
        change before the views hear of it (objects the change removed leave it; a
        :meth:`push` may name what to select), so no view shows something that is gone
        and none refreshes twice: ``selectionChanged`` comes after ``changed``, for a
        selection the views' ``changed`` slots already read."""
        previous = self._selected
        chosen, self._select_with_change = self._select_with_change, None
        if chosen is not None:
            self._set_selected(chosen)
        if change.removed and set(change.removed) & set(self._selected):
            gone = set(change.removed)
            self._set_selected(tuple(i for i in self._selected if i not in gone))
        self.changed.emit(change)
        if self._selected != previous:
            self.selectionChanged.emit(self._selection)

    def place_new_device(
        self, rack_id: str, slug: str, u: int | None, face: str = "front", select: bool = False
    ) -> str | None:
        """Mount a new device of catalog item ``slug`` (one undoable step, the catalog
        snapshot included), selected with the edit when ``select``; returns its id, or
        None after saying why it cannot go there (``editRefused``)."""
        try:
            batch = requests.place_new(self.design, self.catalog, rack_id, slug, u, face)
        except EditError as exc:
            self.refuse(str(exc))
            return None
        added = batch.ops[-1]
        assert isinstance(added, ops.AddDevice)
        new_id = added.device.id
        self.push(
            EditCommand(self, batch, f"Place {added.device.name}"), [new_id] if select else None
        )
        return new_id

    def delete_selected(self) -> int:
        """Remove every selected device, rack and row as one undoable step; returns how
        many objects were removed (0: nothing selected that can be removed)."""
        batch = requests.delete(self.design, self.selected)
        if not batch.ops:
            return 0
        self.push(EditCommand(self, batch, f"Delete {format_count(len(batch.ops), 'object')}"))
        return len(batch.ops)

    def refuse(self, message: str) -> None:
        """Called by a command whose edit the model refused (it leaves no undo step)."""
        self.editRefused.emit(message)

    @property
    def current_workload(self) -> str | None:
        """The id of the workload the user is looking at: the one the Estimates view
        chose, else the design's first (what that view shows first, and what the status
        strip reads before the view was ever built); None when there is none."""
        current = self._current_workload
        if current is not None and current in self.design.index.workloads:
            return current
        workloads = self.design.workloads
        return workloads[0].id if workloads else None

    def set_current_workload(self, workload_id: str | None) -> None:
        """Record which workload the Estimates view shows, and tell the views."""
        if workload_id != self._current_workload:
            self._current_workload = workload_id
            self.currentWorkloadChanged.emit(workload_id)

    def select(self, object_id: str | None) -> None:
        """Make ``object_id`` the whole shared selection and tell the views."""
        self.select_many([] if object_id is None else [object_id])

    def select_many(self, object_ids: Iterable[str]) -> None:
        """Select several objects at once; the last one becomes the primary selection."""
        ids = _ids(object_ids)
        if ids == self._selected:
            return
        self._set_selected(ids)
        self.selectionChanged.emit(self._selection)

    def _set_selected(self, ids: tuple[str, ...]) -> None:
        """Make ``ids`` the selection without telling the views (the caller does)."""
        self._selected = ids
        self._selection = ids[-1] if ids else None

    def toggle_selected(self, object_id: str) -> None:
        """Add ``object_id`` to the selection, or take it out if it is in (Ctrl+click)."""
        if object_id in self._selected:
            self.select_many(i for i in self._selected if i != object_id)
        else:
            self.select_many([*self._selected, object_id])

    def forget_selection_of(self, object_ids: Iterable[str]) -> None:
        """Drop ids that no longer exist (removed by an edit) from the selection."""
        gone = set(object_ids)
        if gone & set(self._selected):
            self.select_many(i for i in self._selected if i not in gone)

    def replace_design(self, design: Design, path: Path | None) -> None:
        """Load a different design: clears undo history and selection, marks clean."""
        if self.link_reading is not None:  # the links of the design going away
            reading, self.link_reading = self.link_reading, None
            reading.cancel()
        previous, self._design = self._design, design
        design.index.keep_tables = True  # the window edits: tables kept are updated
        self.file_version = None  # the File actions note it when the design is the file's
        self._mend, self._changed_without_history = None, False
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self._selection = None
        self._selected = ()
        self._current_workload = None
        self.set_path(path)
        self.designReplaced.emit()
        self.selectionChanged.emit(None)
        self.dirtyChanged.emit(False)
        if previous is not design:
            # What the old design's index keeps by cabling (the compute plane's device
            # table) names the design: a cycle, so the old design (half a million
            # objects at 100,000 GPUs) waited for a full pass of the cyclic collector
            # (0.4-0.7 s).  Without its index, reference counting frees it at once.
            previous.reindex()

    def set_path(self, path: Path | None) -> None:
        """Record a new file path (after Save As)."""
        self._path = Path(path) if path is not None else None
        self.pathChanged.emit(str(self._path) if self._path else "")

    def mark_saved(self, path: Path) -> None:
        """After a successful save: remember the path and make the stack clean."""
        self.set_path(path)
        unsaved_anyway = self._changed_without_history and self.undo_stack.isClean()
        self._changed_without_history = False
        self.undo_stack.setClean()
        if unsaved_anyway:
            self.dirtyChanged.emit(False)  # setClean() says nothing when it was clean

    # -- placement helpers (fill a rack, spread over racks) ---------------------------
    def fill_rack(
        self, rack_id: str, slug: str, count: int, face: str = "front"
    ) -> FillReport | None:
        """Put up to ``count`` devices of ``slug`` into one rack, within its room and
        budgets (:func:`workbench.planning.filling.fill_rack`), as one undoable step.

        Returns the report (what went where, why the rest did not); None after saying
        why nothing could be asked (``editRefused``: unknown rack or item).  Nothing is
        pushed when nothing fits.
        """
        from workbench.planning import filling

        try:
            plan = filling.fill_rack(self.design, self.catalog, rack_id, slug, count, face)
        except EditError as exc:
            self.refuse(str(exc))
            return None
        rack = self.design.find_rack(rack_id)
        where = rack.name if rack is not None else rack_id
        self._push_fill(plan, f"Fill {where} with {len(plan.report.placed)} × {plan.report.label}")
        return plan.report

    def place_across(
        self, rack_ids: Iterable[str], slug: str, count: int, face: str = "front"
    ) -> FillReport | None:
        """Spread ``count`` devices of ``slug`` over ``rack_ids``, least loaded first and
        within every budget (:func:`workbench.planning.filling.place_across`), as one
        undoable step; returns the report, or None after ``editRefused``."""
        from workbench.planning import filling

        racks = list(rack_ids)
        try:
            plan = filling.place_across(self.design, self.catalog, racks, slug, count, face)
        except EditError as exc:
            self.refuse(str(exc))
            return None
        report = plan.report
        used = format_count(len({p.rack_id for p in report.placed}), "rack")
        self._push_fill(plan, f"Place {len(report.placed)} × {report.label} across {used}")
        return plan.report

    def _push_fill(self, plan: FillPlan, text: str) -> None:
        if plan.batch.ops:
            self.push(EditCommand(self, plan.batch, text))


if TYPE_CHECKING:  # the placement helpers' plan and report, for the methods above
    from workbench.planning.filling import FillPlan, FillReport
