"""QUndoCommands: every user edit is exactly one of these.

Each command calls a mutation from :mod:`workbench.model.edit` (fields) or applies an
edit of :mod:`workbench.model.ops` (adding, removing and moving objects) in ``redo()``
and the inverse in ``undo()``, then tells the document what it touched.  Commands hold
ids and values, never Qt items, so they stay valid when views rebuild.

Only the first ``redo()`` (the one ``QUndoStack.push`` runs) validates: an edit the
model refuses marks the command obsolete, so the stack drops it instead of keeping an
undo step that changed nothing, and the document reports the reason.  ``undo()`` puts
back the exact earlier values without checks (see :mod:`workbench.model.edit`).
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from workbench.model import Workload, edit, ops
from workbench.model.edit import EditError
from workbench.model.rack_fields import RACK_FIELDS, restore_rack_fields, set_rack_fields
from workbench.ui.document import Change, Document


class ModelCommand(QUndoCommand):
    """Base: remembers the document and announces the change after redo and undo."""

    def __init__(self, document: Document, text: str):
        super().__init__(text)
        self.document = document
        self._applied_once = False

    def _change(self) -> Change:
        return Change.all()

    def redo(self) -> None:
        try:
            self._apply()
        except EditError as exc:
            if self._applied_once:
                raise  # the model changed behind the stack's back: a bug, not a user error
            self.setObsolete(True)  # QUndoStack.push drops it: no empty undo step
            self.document.refuse(str(exc))
            return
        self._applied_once = True
        self.document.notify(self._change())

    def undo(self) -> None:
        self._revert()
        self.document.notify(self._change())

    def _apply(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _revert(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


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
        super().__init__(document, f"Rename device to “{name.strip()}”")
        self.device_id, self.new_name = device_id, name
        self.old_name: str | None = None

    def _change(self) -> Change:
        return Change(devices=frozenset({self.device_id}))

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
        shown = value.strip()
        super().__init__(document, f"Set {what} to “{shown}”" if shown else f"Clear {what}")
        self.device_id, self.field, self.value = device_id, field, value
        self.old: str | None = None
        self.rack_id: str | None = None

    def _change(self) -> Change:
        racks = frozenset({self.rack_id}) if self.rack_id else frozenset()
        return Change(racks=racks, devices=frozenset({self.device_id}))

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
        super().__init__(document, f"Rename rack to “{name.strip()}”")
        self.rack_id, self.new_name = rack_id, name
        self.old_name: str | None = None

    def _change(self) -> Change:
        return Change(racks=frozenset({self.rack_id}))

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
        if not isinstance(other, UpdateWorkloadCommand):
            return False
        if other.workload_id != self.workload_id or set(other.changes) != set(self.changes):
            return False
        self.changes = dict(other.changes)
        return True

    def _change(self) -> Change:
        return Change(workloads=frozenset({self.workload_id}))

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
        if set(other.changes) != set(self.changes) or other.snapshot_inverse is not None:
            return False
        self.changes = dict(other.changes)
        return True

    def _change(self) -> Change:
        return Change(racks=frozenset({self.rack_id}))

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
