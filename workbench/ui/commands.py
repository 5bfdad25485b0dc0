"""QUndoCommands: every user edit is exactly one of these.

Each command calls a mutation from :mod:`workbench.model.edit` (fields) or applies an
edit of :mod:`workbench.model.ops` (adding, removing and moving objects) in ``redo()``
and the inverse in ``undo()``, then tells the document what it touched.  Commands hold
ids and values, never Qt items, so they stay valid when views rebuild.

Only the first ``redo()`` (the one ``QUndoStack.push`` runs) validates: an edit the
model refuses marks the command obsolete, so the stack drops it instead of keeping an
undo step that changed nothing, and the document reports the reason.  ``undo()`` puts
back the exact earlier values without checks (see :mod:`workbench.model.edit`).

A command that fails for any *other* reason, in any ``redo()`` or ``undo()`` (a value of
the wrong type reaching the model, a bug), must not take the window with it: an
exception out of a Python override called by Qt is at best printed and at worst, in
PySide 6.11, a segmentation fault, and the command used to stay on the stack with the
model half changed.  So every step runs inside :meth:`ModelCommand._attempt`:

* before the step, a :class:`~workbench.ui.rollback.Snapshot` of exactly what it can
  touch is taken (one object's fields for a field edit, two short lists for a drag;
  never a copy of the whole design, see :mod:`workbench.ui.rollback`);
* an :class:`EditError` on the first ``redo()`` is the model refusing: it promises to
  have changed nothing, so the snapshot is not even read;
* anything else (or an EditError in a later step) puts the snapshot back, drops the
  id index (rebuilt on the next read) and refreshes every view from the restored model;
  the command is marked obsolete, so Qt drops it, and the document says why
  (:meth:`Document.refuse`) and mends the history around the gap
  (:meth:`Document.command_failed`).
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from workbench.model import Design, Workload, edit, ops
from workbench.model.edit import EditError
from workbench.model.rack_fields import RACK_FIELDS, restore_rack_fields, set_rack_fields
from workbench.ui import rollback
from workbench.ui.shell.document import Change, Document

log = logging.getLogger(__name__)


class ModelCommand(QUndoCommand):
    """Base: remembers the document, runs each step so that a failure rolls back (see
    the module docstring), and announces the change after redo and undo."""

    def __init__(self, document: Document, text: str):
        super().__init__(text)
        # Weakly: the document's undo stack holds its commands, and a command holding
        # its document back would keep every closed window's document alive from the
        # finalizer that clears the stack (see Document.__init__).
        self._document = weakref.ref(document)
        self._applied_once = False

    @property
    def document(self) -> Document:
        """The document this command edits (alive while its stack holds the command)."""
        document = self._document()
        if document is None:
            raise RuntimeError(f"The document of {self.text()!r} is gone.")
        return document

    def _change(self) -> Change:
        return Change.all()

    def redo(self) -> None:
        if self._attempt(self._apply, undoing=False):
            self._applied_once = True
            self.document.notify(self._change())

    def undo(self) -> None:
        if self._attempt(self._revert, undoing=True):
            self.document.notify(self._change())

    def _attempt(self, step: Callable[[], None], *, undoing: bool) -> bool:
        """Run ``step``; True when it worked.  On failure the model is as before the
        step, the command is obsolete and the document was told."""
        design = self.document.design
        try:
            kept = self._keep(design, undoing)
        except Exception:  # noqa: BLE001 - a design the scope cannot read: keep it all
            kept = rollback.whole_design(design)
        try:
            step()
        except EditError as exc:
            if not undoing and not self._applied_once:
                # The model refused, changing nothing: no undo step, say why.
                self.setObsolete(True)
                self.document.refuse(str(exc))
                return False
            self._roll_back(kept, exc, undoing)
            return False
        except Exception as exc:  # noqa: BLE001 - see the module docstring
            self._roll_back(kept, exc, undoing)
            return False
        return True

    def _roll_back(self, kept: rollback.Snapshot, exc: Exception, undoing: bool) -> None:
        design = self.document.design
        log.error("%s failed; the model was put back", self.text(), exc_info=exc)
        kept.restore()
        design.reindex()  # the index may hold the half-done edit; rebuilt on first read
        self.setObsolete(True)
        what = "Undo of" if undoing else "Redo of" if self._applied_once else ""
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        self.document.command_failed(
            f"{what} {self.text()} failed ({reason}); nothing was changed.".strip(),
            undoing=undoing,
            first=not undoing and not self._applied_once,
        )

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        """What the step about to run can change (see :mod:`workbench.ui.rollback`)."""
        return rollback.whole_design(design)  # pragma: no cover - every command scopes

    def _apply(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _revert(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


def _shown(value: object) -> str:
    """A value as an undo step's text names it (a wrong-typed one too: the model, not
    the text, refuses it)."""
    return (value if isinstance(value, str) else repr(value)).strip()


def _workloads(design: Design) -> rollback.Snapshot:
    """The list of workloads (the workload edits insert, remove and replace in it)."""
    snap = rollback.Snapshot()
    snap.keep_list(design.workloads)
    return snap


def _fields_of(*objects: object) -> rollback.Snapshot:
    """A snapshot of the fields of ``objects`` (None ones skipped)."""
    snap = rollback.Snapshot()
    for obj in objects:
        snap.keep_fields(obj)
    return snap


class EditCommand(ModelCommand):
    """One structural edit of :mod:`workbench.model.ops` (a :class:`~ops.Batch` for a
    drag of several devices) and its exact inverse.

    The inverse comes from applying the edit, and undoing gives back the edit to redo
    (with every position filled in), so redo after undo puts back exactly the same state.
    """

    def __init__(self, document: Document, op: ops.Op, text: str):
        super().__init__(document, text)
        self.op = op
        self._inverse: ops.Op | None = None
        self._last: Change = Change()

    def _change(self) -> Change:
        return self._last

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        return rollback.for_op(design, self._inverse if undoing else self.op)

    def _apply(self) -> None:
        applied = ops.apply(self.document.design, self.op)
        self._inverse, self._last = applied.inverse, applied.change

    def _revert(self) -> None:
        assert self._inverse is not None
        applied = ops.apply(self.document.design, self._inverse)
        self.op, self._last = applied.inverse, applied.change


class RenameDeviceCommand(ModelCommand):
    """Rename one device."""

    def __init__(self, document: Document, device_id: str, name: str):
        super().__init__(document, f"Rename device to “{_shown(name)}”")
        self.device_id, self.new_name = device_id, name
        self.old_name: str | None = None

    def _change(self) -> Change:
        ids = frozenset({self.device_id})
        return Change(devices=ids, labels=ids)

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        found = design.find_device(self.device_id)
        return _fields_of(found[1] if found else None)

    def _apply(self) -> None:
        self.old_name = edit.rename_device(self.document.design, self.device_id, self.new_name)

    def _revert(self) -> None:
        assert self.old_name is not None
        edit.restore_device_name(self.document.design, self.device_id, self.old_name)


class SetDeviceFieldCommand(ModelCommand):
    """Set a device's serial, asset tag or role (``field`` is one of
    :data:`workbench.model.edit.DEVICE_FIELDS`).

    The change names the device's rack as well as the device, so the rack drawing
    repaints that rack: a new role is a new block colour.
    """

    def __init__(self, document: Document, device_id: str, field: str, value: str):
        what = edit.DEVICE_FIELDS.get(field, field)
        shown = _shown(value)
        super().__init__(document, f"Set {what} to “{shown}”" if shown else f"Clear {what}")
        self.device_id, self.field, self.value = device_id, field, value
        self.old: str | None = None
        self.rack_id: str | None = None

    def _change(self) -> Change:
        racks = frozenset({self.rack_id}) if self.rack_id else frozenset()
        devices = frozenset({self.device_id})
        # A serial or an asset tag is a label: no figure or verdict reads it.
        labels = racks | devices if self.field in edit.LABEL_FIELDS else frozenset()
        return Change(racks=racks, devices=devices, labels=labels)

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        found = design.find_device(self.device_id)
        return _fields_of(found[1] if found else None)

    def _apply(self) -> None:
        self.old = edit.set_device_field(
            self.document.design, self.device_id, self.field, self.value
        )
        found = self.document.figures.find_device(self.device_id)
        self.rack_id = found[0].id if found else None

    def _revert(self) -> None:
        assert self.old is not None
        edit.restore_device_field(self.document.design, self.device_id, self.field, self.old)


class RenameRackCommand(ModelCommand):
    """Rename one rack."""

    def __init__(self, document: Document, rack_id: str, name: str):
        super().__init__(document, f"Rename rack to “{_shown(name)}”")
        self.rack_id, self.new_name = rack_id, name
        self.old_name: str | None = None

    def _change(self) -> Change:
        ids = frozenset({self.rack_id})
        return Change(racks=ids, labels=ids)

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        return _fields_of(design.find_rack(self.rack_id))

    def _apply(self) -> None:
        self.old_name = edit.rename_rack(self.document.design, self.rack_id, self.new_name)

    def _revert(self) -> None:
        assert self.old_name is not None
        edit.restore_rack_name(self.document.design, self.rack_id, self.old_name)


class SetRackCoolingCommand(ModelCommand):
    """Change a rack's cooling type and power limit."""

    def __init__(
        self, document: Document, rack_id: str, cooling: str, power_limit_kw: float | None = None
    ):
        super().__init__(document, f"Set rack cooling to {cooling}")
        self.rack_id, self.cooling, self.limit = rack_id, cooling, power_limit_kw
        self.old: tuple[str, float] | None = None

    def _change(self) -> Change:
        return Change(racks=frozenset({self.rack_id}))

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        return _fields_of(design.find_rack(self.rack_id))

    def _apply(self) -> None:
        self.old = edit.set_rack_cooling(
            self.document.design, self.rack_id, self.cooling, self.limit
        )

    def _revert(self) -> None:
        assert self.old is not None
        edit.restore_rack_cooling(self.document.design, self.rack_id, *self.old)


class AddWorkloadCommand(ModelCommand):
    """Add a workload (training job or inference service)."""

    def __init__(self, document: Document, workload: Workload):
        super().__init__(document, f"Add workload “{workload.name}”")
        self.workload = workload
        self.index: int | None = None

    def _change(self) -> Change:
        ids = frozenset({self.workload.id})
        return Change(workloads=ids, added=ids)

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        return _workloads(design)

    def _apply(self) -> None:
        self.index = edit.add_workload(self.document.design, self.workload, self.index)

    def _revert(self) -> None:
        edit.remove_workload(self.document.design, self.workload.id)


class RemoveWorkloadCommand(ModelCommand):
    """Remove a workload; undo puts it back where it was."""

    def __init__(self, document: Document, workload_id: str):
        super().__init__(document, "Remove workload")
        self.workload_id = workload_id
        self.removed: tuple[int, Workload] | None = None

    def _change(self) -> Change:
        ids = frozenset({self.workload_id})
        return Change(workloads=ids, removed=ids)

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        return _workloads(design)

    def _apply(self) -> None:
        self.removed = edit.remove_workload(self.document.design, self.workload_id)

    def _revert(self) -> None:
        assert self.removed is not None
        index, workload = self.removed
        edit.add_workload(self.document.design, workload, index)


class UpdateWorkloadCommand(ModelCommand):
    """Change fields of a workload.

    Consecutive edits of the same field of the same workload merge into one undo step,
    so typing "0.35" in the MFU box is one undo, not four.
    """

    ID = 1001

    def __init__(self, document: Document, workload_id: str, **changes):
        names = ", ".join(sorted(changes))
        super().__init__(document, f"Edit workload {names}")
        self.workload_id = workload_id
        self.changes = changes
        self.previous: Workload | None = None

    def id(self) -> int:  # noqa: A003 - Qt's name
        return self.ID

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(other, UpdateWorkloadCommand) or other.isObsolete():
            return False
        if other.workload_id != self.workload_id or set(other.changes) != set(self.changes):
            return False
        self.changes = dict(other.changes)
        return True

    def _change(self) -> Change:
        return Change(workloads=frozenset({self.workload_id}))

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        return _workloads(design)

    def _apply(self) -> None:
        previous = edit.update_workload(self.document.design, self.workload_id, **self.changes)
        if self.previous is None:
            self.previous = previous

    def _revert(self) -> None:
        assert self.previous is not None
        edit.replace_workload(self.document.design, self.previous)


class SetRackFieldsCommand(ModelCommand):
    """Set properties of one rack (see :mod:`workbench.model.rack_fields`) in one step.

    A rack model new to the design is first put into its catalog snapshot, from the
    document's catalog, and taken out again on undo.  Consecutive edits of the same
    fields of the same rack merge, so typing "415" is one undo step.
    """

    ID = 1002

    def __init__(self, document: Document, rack_id: str, changes: dict, text: str = ""):
        names = ", ".join(RACK_FIELDS[n].label.lower() for n in changes if n in RACK_FIELDS)
        super().__init__(document, text or f"Set rack {names}")
        self.rack_id, self.changes = rack_id, dict(changes)
        self.old: dict | None = None
        self.snapshot_inverse: ops.Op | None = None

    def id(self) -> int:  # noqa: A003 - Qt's name
        return self.ID

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(other, SetRackFieldsCommand) or other.rack_id != self.rack_id:
            return False
        if other.isObsolete():  # refused or failed: it changed nothing to merge
            return False
        if set(other.changes) != set(self.changes) or other.snapshot_inverse is not None:
            return False
        self.changes = dict(other.changes)
        return True

    def _change(self) -> Change:
        return Change(racks=frozenset({self.rack_id}))

    def _keep(self, design: Design, undoing: bool) -> rollback.Snapshot:
        snap = _fields_of(design.find_rack(self.rack_id))
        snap.keep_dict(design.device_types)  # a rack model new to the design goes in
        return snap

    def _apply(self) -> None:
        design = self.document.design
        slug = self.changes.get("rack_type")
        if slug is not None and slug not in design.device_types:
            item = None
            if self.document.catalog is not None:
                try:
                    item = self.document.catalog[slug]
                except KeyError:
                    item = None
            if item is None:
                raise EditError(f"The catalog has no rack model {slug!r}.")
            self.snapshot_inverse = ops.apply(design, ops.AddDeviceType(item)).inverse
        try:
            old = set_rack_fields(design, self.rack_id, self.changes)
        except EditError:
            if self.snapshot_inverse is not None:
                ops.apply(design, self.snapshot_inverse)
                self.snapshot_inverse = None
            raise
        if self.old is None:
            self.old = old

    def _revert(self) -> None:
        assert self.old is not None
        restore_rack_fields(self.document.design, self.rack_id, self.old)
        if self.snapshot_inverse is not None:
            ops.apply(self.document.design, self.snapshot_inverse)
            self.snapshot_inverse = None
