"""The one undo command: every user edit is a model edit wrapped by :class:`EditCommand`.

An edit is data (:mod:`workbench.model.ops` and the modules it gathers); applying it
returns its exact inverse and the :class:`~workbench.model.change.Change` it made.  The
command keeps the edit and its inverse, applies one in ``redo()`` and the other in
``undo()``, and tells the document what changed.  Commands hold ids and values, never Qt
items, so they stay valid when views rebuild.  A new kind of edit needs nothing here:
its dataclass, its handler and its one entry in the model's table are enough.

Only the first ``redo()`` (the one ``QUndoStack.push`` runs) validates: an edit the
model refuses marks the command obsolete, so the stack drops it instead of keeping an
undo step that changed nothing, and the document reports the reason.  ``undo()`` applies
the inverse, which puts back the exact earlier values without checks.

A command that fails for any *other* reason, in any ``redo()`` or ``undo()`` (a value of
the wrong type reaching the model, a bug), must not take the window with it: an
exception out of a Python override called by Qt is at best printed and at worst, in
PySide 6.11, a segmentation fault, and the command used to stay on the stack with the
model half changed.  So every step runs inside :meth:`EditCommand._attempt`:

* before the step, :func:`workbench.model.ops.snapshot` keeps exactly what the edit can
  touch (one object's fields for a field edit, two short lists for a drag; never a copy
  of the whole design, see :mod:`workbench.model.keep`);
* an :class:`EditError` on the first ``redo()`` is the model refusing: it promises to
  have changed nothing, so the snapshot is not even read;
* anything else (or an EditError in a later step) puts the snapshot back, drops the
  id index (rebuilt on the next read) and refreshes every view from the restored model;
  the command is marked obsolete, so Qt drops it, and the document says why
  (:meth:`Document.refuse`) and mends the history around the gap
  (:meth:`Document.command_failed`).

Consecutive edits that name the same ``merge`` key (typing "415" into one field of one
rack) merge into one undo step: the step keeps the first edit's inverse and the last
edit, which sets the same fields to their final values.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtGui import QUndoCommand

from workbench.model import Workload, ops
from workbench.model.change import Change
from workbench.model.edit import DEVICE_FIELDS, EditError
from workbench.model.keep import Snapshot
from workbench.model.rack_fields import RACK_FIELDS

if TYPE_CHECKING:
    from workbench.catalog import Catalog
    from workbench.model import Design

log = logging.getLogger(__name__)


class EditedDocument(Protocol):
    """What a command reads of the document it edits: the design, the catalog a new
    type is snapshotted from, and the three calls that report what happened.

    :class:`workbench.ui.shell.document.Document` has this shape; it imports this module
    to wrap its edits, so the commands name the shape instead of importing it back.
    """

    @property
    def design(self) -> Design: ...

    @property
    def catalog(self) -> Catalog | None: ...

    def notify(self, change: Change) -> None: ...

    def refuse(self, message: str) -> None: ...

    def command_failed(self, message: str, *, undoing: bool, first: bool) -> None: ...


#: The Qt id of every command that may merge (Qt only offers merging between commands
#: of one id; the ``merge`` keys then decide).
_MERGING_ID = 1001


class EditCommand(QUndoCommand):
    """One model edit (a :class:`~ops.Batch` for a drag of several devices) and its exact
    inverse, as one undo step.

    The inverse comes from applying the edit, and undoing gives back the edit to redo
    (with every position filled in), so redo after undo puts back exactly the same state.
    """

    def __init__(
        self, document: EditedDocument, op: ops.Op, text: str, merge: Hashable | None = None
    ):
        super().__init__(text)
        self.op = op
        #: Edits with one key merge into one undo step (None: never).
        self.merge = merge
        #: This edit starts a new step even when its key matches the previous one's.
        self.fresh = False
        self._inverse: ops.Op | None = None
        self._last: Change = Change()
        # Weakly: the document's undo stack holds its commands, and a command holding
        # its document back would keep every closed window's document alive from the
        # finalizer that clears the stack (see Document.__init__).
        self._document = weakref.ref(document)
        self._applied_once = False

    @property
    def document(self) -> EditedDocument:
        """The document this command edits (alive while its stack holds the command)."""
        document = self._document()
        if document is None:
            raise RuntimeError(f"The document of {self.text()!r} is gone.")
        return document

    def id(self) -> int:  # noqa: A003 - Qt's name
        return _MERGING_ID if self.merge is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(other, EditCommand) or other.isObsolete() or self.isObsolete():
            return False  # refused or failed: it changed nothing to merge
        if self.merge is None or other.merge != self.merge or other.fresh:
            return False
        self.op, self._last = other.op, self._last | other._last
        return True

    def _change(self) -> Change:
        return self._last

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
        kept = self._keep(undoing)
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

    def _roll_back(self, kept: Snapshot, exc: Exception, undoing: bool) -> None:
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

    def _keep(self, undoing: bool) -> Snapshot:
        """What the step about to run can change (see :mod:`workbench.model.keep`)."""
        op = self._inverse if undoing else self.op
        assert op is not None
        return ops.snapshot(self.document.design, op)

    def _apply(self) -> None:
        applied = ops.apply(self.document.design, self.op)
        self._inverse, self._last = applied.inverse, applied.change

    def _revert(self) -> None:
        assert self._inverse is not None
        applied = ops.apply(self.document.design, self._inverse)
        self.op, self._last = applied.inverse, applied.change


def _shown(value: object) -> str:
    """A value as an undo step's text names it (a wrong-typed one too: the model, not
    the text, refuses it)."""
    return (value if isinstance(value, str) else repr(value)).strip()


# -- the words of the window's field edits -------------------------------------------------
# Each only names its undo step; the edit itself is the model's.


def rename_device(document: EditedDocument, device_id: str, name: str) -> EditCommand:
    op = ops.RenameDevice(device_id, name)
    return EditCommand(document, op, f"Rename device to “{_shown(name)}”")


def set_device_field(
    document: EditedDocument, device_id: str, field: str, value: str
) -> EditCommand:
    """A device's serial, asset tag or role (see :data:`workbench.model.edit.DEVICE_FIELDS`)."""
    what, shown = DEVICE_FIELDS.get(field, field), _shown(value)
    text = f"Set {what} to “{shown}”" if shown else f"Clear {what}"
    return EditCommand(document, ops.SetDeviceField(device_id, field, value), text)


def rename_rack(document: EditedDocument, rack_id: str, name: str) -> EditCommand:
    return EditCommand(document, ops.RenameRack(rack_id, name), f"Rename rack to “{_shown(name)}”")


def set_rack_cooling(document: EditedDocument, rack_id: str, cooling: str) -> EditCommand:
    """The rack's cooling type: its cooling limit follows (unless typed), its power
    budget stays as it is (:mod:`workbench.model.rack_fields`)."""
    op = ops.SetRackFields(rack_id, {"cooling": cooling})
    return EditCommand(document, op, f"Set rack cooling to {cooling}")


def set_rack_fields(
    document: EditedDocument, rack_id: str, changes: Mapping[str, Any], text: str = ""
) -> EditCommand:
    """Properties of one rack in one step.  A rack model new to the design is first put
    into its catalog snapshot, from the document's catalog, in the same step (and taken
    out again by its undo).  Consecutive edits of the same fields of the same rack merge,
    so typing "415" is one undo step."""
    names = ", ".join(RACK_FIELDS[n].label.lower() for n in changes if n in RACK_FIELDS)
    text = text or f"Set rack {names}"
    op: ops.Op = ops.SetRackFields(rack_id, dict(changes))
    slug = changes.get("rack_type")
    design, catalog = document.design, document.catalog
    if isinstance(slug, str) and slug not in design.device_types and catalog is not None:
        try:
            item = catalog[slug]
        except KeyError:
            item = None
        if item is not None:
            return EditCommand(document, ops.Batch((ops.AddDeviceType(item), op)), text)
    return EditCommand(document, op, text, merge=("rack", rack_id, frozenset(changes)))


def add_workload(document: EditedDocument, workload: Workload) -> EditCommand:
    return EditCommand(document, ops.AddWorkload(workload), f"Add workload “{workload.name}”")


def remove_workload(document: EditedDocument, workload_id: str) -> EditCommand:
    return EditCommand(document, ops.RemoveWorkload(workload_id), "Remove workload")


def update_workload(document: EditedDocument, workload_id: str, **changes: Any) -> EditCommand:
    """Fields of a workload; consecutive edits of the same fields of the same workload
    merge, so typing "0.35" in the MFU box is one undo step, not four."""
    op = ops.UpdateWorkload(workload_id, dict(changes))
    text = f"Edit workload {', '.join(sorted(changes))}"
    return EditCommand(document, op, text, merge=("workload", workload_id, frozenset(changes)))


def set_cost_inputs(document: EditedDocument, values: tuple[tuple[str, Any], ...]) -> EditCommand:
    """The design's cost inputs (the Costs form), as one undo step; ``None`` puts an
    input back to its default (:mod:`workbench.model.cost_ops`)."""
    names = ", ".join(name for name, _v in values)
    return EditCommand(document, ops.SetCostInputs(values), f"Set cost inputs ({names})")
