"""Model mutations, each returning what is needed to undo it.

The window never assigns to model fields directly: a QUndoCommand calls one of these
functions in ``redo()`` and the inverse in ``undo()``.  Keeping them here (Qt-free) lets
the command line, scripts and tests make exactly the same edits as the window.

The edits validate what the user asks for; the ``restore_*`` functions and
:func:`replace_workload` do not, because undo must put back exactly what was there,
even a value today's rules refuse (a blank name or an old cooling type from a file):
an undo that raised would leave the undo stack and the model disagreeing.
"""

from __future__ import annotations

from dataclasses import fields, replace

from workbench.model import unique
from workbench.model.design import DEVICE_ROLES, Design, Device, Rack, Workload
from workbench.model.errors import EditError
from workbench.model.names import check_name, clean_label, clean_name

_WORKLOAD_FIELDS = frozenset(f.name for f in fields(Workload)) - {"id"}

#: Device fields :func:`set_device_field` edits, with the words a message uses for them.
DEVICE_FIELDS: dict[str, str] = {"serial": "serial", "asset_tag": "asset tag", "role": "role"}
#: Device fields no figure or rule verdict reads (only the words of a finding could).
LABEL_FIELDS: frozenset[str] = frozenset({"serial", "asset_tag"})


def _rack(design: Design, rack_id: str) -> Rack:
    rack = design.find_rack(rack_id)
    if rack is None:
        raise EditError(f"No rack with id {rack_id!r}.")
    return rack


def rename_device(design: Design, device_id: str, name: str) -> str:
    """Rename a device; returns the old name.  The name must pass :mod:`names`."""
    name = clean_name(name, "device")
    found = design.find_device(device_id)
    if found is None:
        raise EditError(f"No device with id {device_id!r}.")
    rack, device = found
    site = unique.site_of_rack(design, rack.id)
    unique.check_device_names(design, site, [replace(device, name=name)], frozenset({device.id}))
    old, device.name = device.name, name
    design.index.rename_device(old, name, device_id)
    return old


def rename_rack(design: Design, rack_id: str, name: str) -> str:
    """Rename a rack; returns the old name.  The name must pass :mod:`names`."""
    name = clean_name(name, "rack")
    rack = _rack(design, rack_id)
    old, rack.name = rack.name, name
    return old


def _device(design: Design, device_id: str) -> Device:
    found = design.find_device(device_id)
    if found is None:
        raise EditError(f"No device with id {device_id!r}.")
    return found[1]


def _clean_label(design: Design, device: Device, field: str, value: str) -> str:
    """A serial or asset tag as it will be stored: stripped, short, printable, and (for
    asset tags) not already on another device, since a tag identifies one box."""
    value = clean_label(value, DEVICE_FIELDS[field])  # the column's rule
    if value:
        changed = (
            replace(device, serial=value) if field == "serial" else replace(device, asset_tag=value)
        )
        unique.check_labels(design, [changed], frozenset({device.id}))
    return value


def set_device_field(design: Design, device_id: str, field: str, value: str) -> str:
    """Set a device's serial, asset tag or role; returns the old value (for undo).

    Surrounding whitespace is dropped and an empty value clears the field (for ``role``:
    back to the catalog item's role).  Serials and asset tags must be at most
    :data:`~workbench.model.names.MAX_LABEL_CHARS` printable characters, asset tags unique in the design; a
    role must be one the rack drawing knows a colour for.
    """
    if field not in DEVICE_FIELDS:
        raise EditError(f"A device's {field!r} cannot be edited here.")
    device = _device(design, device_id)
    if field == "role":
        value = value.strip().lower()
        if value and value not in DEVICE_ROLES:
            raise EditError(f"Unknown role {value!r}; use one of {', '.join(DEVICE_ROLES)}.")
    else:
        value = _clean_label(design, device, field, value)
    old = getattr(device, field)
    setattr(device, field, value)
    return old


def restore_device_field(design: Design, device_id: str, field: str, value: str) -> None:
    """Put back a device's earlier serial, asset tag or role exactly as it was (undo of
    :func:`set_device_field`): a padded serial or a duplicate tag from a file included."""
    if field not in DEVICE_FIELDS:
        raise EditError(f"A device's {field!r} cannot be edited here.")
    setattr(_device(design, device_id), field, value)


def restore_device_name(design: Design, device_id: str, name: str) -> None:
    """Put back a device's earlier name exactly as it was (undo of :func:`rename_device`)."""
    found = design.find_device(device_id)
    if found is None:
        raise EditError(f"No device with id {device_id!r}.")
    design.index.rename_device(found[1].name, name, device_id)
    found[1].name = name


def restore_rack_name(design: Design, rack_id: str, name: str) -> None:
    """Put back a rack's earlier name exactly as it was (undo of :func:`rename_rack`)."""
    _rack(design, rack_id).name = name


def add_workload(design: Design, workload: Workload, index: int | None = None) -> int:
    """Insert a workload; returns the index it landed at (for undo)."""
    check_name(workload.name, "workload")  # kept as given: judged as stored
    if design.index.in_use(workload.id):
        raise EditError(f"The id {workload.id!r} is already in use.")
    if index is None:
        index = len(design.workloads)
    design.workloads.insert(index, workload)
    design.index.workloads[workload.id] = workload
    return index


def remove_workload(design: Design, workload_id: str) -> tuple[int, Workload]:
    """Remove a workload; returns (index, workload) so undo can put it back."""
    for i, w in enumerate(design.workloads):
        if w.id == workload_id:
            del design.workloads[i]
            design.index.workloads.pop(workload_id, None)
            return i, w
    raise EditError(f"No workload with id {workload_id!r}.")


def update_workload(design: Design, workload_id: str, **changes) -> Workload:
    """Replace fields of a workload; returns the previous value (a copy) for undo.

    Unknown fields are an EditError rather than the dataclass's TypeError, so a form
    that drifts from the model is refused like any other bad edit.  Value ranges are
    the calculators' business (rule WORKLOAD-INPUT), but the name is checked here like
    every other name, because the file and the exports must hold it.
    """
    unknown = sorted(set(changes) - _WORKLOAD_FIELDS)
    if unknown:
        raise EditError(f"A workload has no field {unknown[0]!r}.")
    if "name" in changes:
        changes["name"] = clean_name(changes["name"], "workload")
    for i, w in enumerate(design.workloads):
        if w.id == workload_id:
            design.workloads[i] = design.index.workloads[w.id] = replace(w, **changes)
            return w
    raise EditError(f"No workload with id {workload_id!r}.")


def replace_workload(design: Design, workload: Workload) -> None:
    """Put ``workload`` in place of the one with its id (undo of :func:`update_workload`)."""
    for i, w in enumerate(design.workloads):
        if w.id == workload.id:
            design.workloads[i] = design.index.workloads[w.id] = workload
            return
    raise EditError(f"No workload with id {workload.id!r}.")
