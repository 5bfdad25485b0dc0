"""Edits of single fields as data: a device's name, serial, asset tag or role; a rack's
name and other properties (its cooling among them); the workloads.

Like every edit of :mod:`workbench.model.ops` (which gathers :data:`EDITS`), each is a
frozen dataclass whose handler returns its exact inverse, so the window's one undo
command, the command line and the tests make the same edits.  The forward edit checks
the value (:mod:`workbench.model.edit`, :mod:`workbench.model.rack_fields`); its inverse
carries ``restore=True`` and puts the earlier value back *without* checks, because undo
must put back exactly what was there, even a value today's rules refuse (a blank name
or an old cooling type from a file).  The inverse of a restore is the checked edit
again, so a redo checks its value as the first did.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.model import edit, keep
from workbench.model.applied import Applied, Edit
from workbench.model.change import Change
from workbench.model.design import Design, Workload
from workbench.model.rack_fields import restore_rack_fields, set_rack_fields


@dataclass(frozen=True)
class RenameDevice:
    device_id: str
    name: str
    restore: bool = False


@dataclass(frozen=True)
class SetDeviceField:
    """A device's serial, asset tag or role (``field`` is one of
    :data:`workbench.model.edit.DEVICE_FIELDS`)."""

    device_id: str
    field: str
    value: str
    restore: bool = False


@dataclass(frozen=True)
class RenameRack:
    rack_id: str
    name: str
    restore: bool = False


@dataclass(frozen=True)
class SetRackFields:
    """Properties of one rack at once (see :mod:`workbench.model.rack_fields`)."""

    rack_id: str
    values: Mapping[str, Any] = field(default_factory=dict)
    restore: bool = False


@dataclass(frozen=True)
class AddWorkload:
    workload: Workload
    index: int | None = None


@dataclass(frozen=True)
class RemoveWorkload:
    workload_id: str


@dataclass(frozen=True)
class UpdateWorkload:
    """Replace fields of a workload (its inverse puts the earlier record back)."""

    workload_id: str
    changes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ReplaceWorkload:
    """Put ``workload`` in place of the one with its id, unchecked (an undo)."""

    workload: Workload


def _rename_device(design: Design, op: RenameDevice) -> Applied:
    if op.restore:
        found = design.find_device(op.device_id)
        old = found[1].name if found else ""
        edit.restore_device_name(design, op.device_id, op.name)
    else:
        old = edit.rename_device(design, op.device_id, op.name)
    ids = frozenset({op.device_id})
    return Applied(RenameDevice(op.device_id, old, not op.restore), Change(devices=ids, labels=ids))


def _set_device_field(design: Design, op: SetDeviceField) -> Applied:
    if op.restore:
        found = design.find_device(op.device_id)
        old = getattr(found[1], op.field, "") if found else ""
        edit.restore_device_field(design, op.device_id, op.field, op.value)
    else:
        old = edit.set_device_field(design, op.device_id, op.field, op.value)
    found = design.find_device(op.device_id)
    racks = frozenset({found[0].id}) if found else frozenset()
    devices = frozenset({op.device_id})
    # A serial or an asset tag is a label: no figure or verdict reads it.  The rack is
    # named too, so its drawing repaints (a new role is a new block colour).
    labels = racks | devices if op.field in edit.LABEL_FIELDS else frozenset()
    inverse = SetDeviceField(op.device_id, op.field, old, not op.restore)
    return Applied(inverse, Change(racks=racks, devices=devices, labels=labels))


def _rename_rack(design: Design, op: RenameRack) -> Applied:
    if op.restore:
        rack = design.find_rack(op.rack_id)
        old = rack.name if rack else ""
        edit.restore_rack_name(design, op.rack_id, op.name)
    else:
        old = edit.rename_rack(design, op.rack_id, op.name)
    ids = frozenset({op.rack_id})
    return Applied(RenameRack(op.rack_id, old, not op.restore), Change(racks=ids, labels=ids))


def _set_rack_fields(design: Design, op: SetRackFields) -> Applied:
    if op.restore:
        rack = design.find_rack(op.rack_id)
        old = {name: getattr(rack, name) for name in op.values} if rack else {}
        restore_rack_fields(design, op.rack_id, op.values)
    else:
        old = set_rack_fields(design, op.rack_id, op.values)
    return Applied(
        SetRackFields(op.rack_id, old, not op.restore), Change(racks=frozenset({op.rack_id}))
    )


def _workload_change(workload_id: str, added: bool = False, removed: bool = False) -> Change:
    ids = frozenset({workload_id})
    empty: frozenset[str] = frozenset()
    return Change(workloads=ids, added=ids if added else empty, removed=ids if removed else empty)


def _add_workload(design: Design, op: AddWorkload) -> Applied:
    edit.add_workload(design, op.workload, op.index)
    return Applied(RemoveWorkload(op.workload.id), _workload_change(op.workload.id, added=True))


def _remove_workload(design: Design, op: RemoveWorkload) -> Applied:
    index, workload = edit.remove_workload(design, op.workload_id)
    return Applied(AddWorkload(workload, index), _workload_change(op.workload_id, removed=True))


def _update_workload(design: Design, op: UpdateWorkload) -> Applied:
    previous = edit.update_workload(design, op.workload_id, **dict(op.changes))
    return Applied(ReplaceWorkload(previous), _workload_change(op.workload_id))


def _replace_workload(design: Design, op: ReplaceWorkload) -> Applied:
    current = design.index.workloads.get(op.workload.id)
    edit.replace_workload(design, op.workload)
    assert current is not None  # replace_workload raised otherwise
    return Applied(ReplaceWorkload(current), _workload_change(op.workload.id))


#: This module's edits: how each is carried out and what it can change.
EDITS: dict[type, Edit] = {
    RenameDevice: Edit(_rename_device, keep.device_fields),
    SetDeviceField: Edit(_set_device_field, keep.device_fields),
    RenameRack: Edit(_rename_rack, keep.rack_fields),
    SetRackFields: Edit(_set_rack_fields, keep.rack_fields),
    AddWorkload: Edit(_add_workload, keep.workloads),
    RemoveWorkload: Edit(_remove_workload, keep.workloads),
    UpdateWorkload: Edit(_update_workload, keep.workloads),
    ReplaceWorkload: Edit(_replace_workload, keep.workloads),
}
