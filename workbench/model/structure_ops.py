"""Edits of the design's tree: add, remove and move rows, racks and devices.

A removed device takes its links and storage-tier memberships with it (:class:`Detached`)
and its inverse puts them back in the same places.  Gathered by :mod:`workbench.model.ops`
(which re-exports the classes) through :data:`EDITS`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from workbench.model import keep, unique
from workbench.model.add_checks import check_free, check_names
from workbench.model.applied import Applied, Batch, Edit, insert_at
from workbench.model.change import Change
from workbench.model.design import Design, Device, Link, Rack, Row, Site
from workbench.model.errors import EditError
from workbench.model.names import clean_name
from workbench.model.placement import placement_problem


@dataclass(frozen=True)
class Detached:
    """Links and storage-tier memberships removed together with devices.

    Positions are ascending, so putting them back in that order restores each list
    exactly as it was.
    """

    #: (position in ``design.links``, link)
    links: tuple[tuple[int, Link], ...] = ()
    #: (storage tier id, position in its ``device_ids``, device id)
    tiers: tuple[tuple[str, int, str], ...] = ()


_NONE = Detached()


@dataclass(frozen=True)
class AddRow:
    site_id: str
    row: Row
    index: int | None = None
    detached: Detached = _NONE
    #: An undo putting back what was removed: names are not compared (a file may hold
    #: a clash, and undo must put back exactly what was there).
    restore: bool = False


@dataclass(frozen=True)
class RemoveRow:
    row_id: str
    #: Take the links and tier memberships naming what goes (a user's removal).  False
    #: for the undo of an add that attached nothing: a tier or link may have named the
    #: id before the add (a dangling id a file held), and the exact inverse leaves such
    #: references as the add found them (see :func:`_any`).
    detach: bool = True


@dataclass(frozen=True)
class MoveRow:
    row_id: str
    site_id: str
    index: int


@dataclass(frozen=True)
class AddRack:
    row_id: str
    rack: Rack
    index: int | None = None
    detached: Detached = _NONE
    restore: bool = False  # see AddRow.restore


@dataclass(frozen=True)
class RemoveRack:
    rack_id: str
    #: Take the links and tier memberships naming what goes (a user's removal).  False
    #: for the undo of an add that attached nothing: a tier or link may have named the
    #: id before the add (a dangling id a file held), and the exact inverse leaves such
    #: references as the add found them (see :func:`_any`).
    detach: bool = True


@dataclass(frozen=True)
class MoveRack:
    rack_id: str
    row_id: str
    index: int


@dataclass(frozen=True)
class AddDevice:
    rack_id: str
    device: Device
    index: int | None = None
    detached: Detached = _NONE
    restore: bool = False  # see AddRow.restore


@dataclass(frozen=True)
class AddDevices:
    """New devices put after the last of one rack's devices, in order: what an
    :class:`AddDevice` of each does, checked and indexed as one edit.

    Why: a generated 100,000-GPU fabric places 4,216 switches a rack at a time; one
    edit per rack (386) instead of per switch saves ~0.1 s of per-edit checks and
    changes.  Its inverse removes them, last first, as the single adds' would."""

    rack_id: str
    devices: tuple[Device, ...]


@dataclass(frozen=True)
class RemoveDevice:
    device_id: str
    #: Take the links and tier memberships naming what goes (a user's removal).  False
    #: for the undo of an add that attached nothing: a tier or link may have named the
    #: id before the add (a dangling id a file held), and the exact inverse leaves such
    #: references as the add found them (see :func:`_any`).
    detach: bool = True


@dataclass(frozen=True)
class MoveDevice:
    """Put a device at ``position``/``face`` in ``rack_id`` (its own rack or another).

    ``index`` is its place in the rack's device list; None keeps it (same rack) or
    appends it (another rack).  ``name``, when given, is the device's name after the
    move: a name made from the design's pattern (``gpu-server-A01-u2``) follows the
    device, in the same edit, so its undo puts the old name back with the old place.
    """

    device_id: str
    rack_id: str
    position: int | None
    face: str
    index: int | None = None
    name: str | None = None


# -- helpers --------------------------------------------------------------------------------


def position_of(items: Sequence[object], obj: object) -> int:
    """Where ``obj`` (this very object) is in ``items``."""
    for i, candidate in enumerate(items):
        if candidate is obj:
            return i
    raise EditError("The model's index and its lists disagree.")  # a bug, not user input


@contextlib.contextmanager
def _taken_back_on_error(design: Design, items: list, obj: object) -> Iterator[None]:
    """An add is complete or absent: if indexing or reattaching the just-inserted
    ``obj`` fails for any reason, it leaves the list again and the index is rebuilt from
    the lists, so no half-added object stays behind an exception."""
    try:
        yield
    except BaseException:
        position = next((i for i, item in enumerate(items) if item is obj), None)
        if position is not None:
            del items[position]
        design.reindex()
        raise


def _devices_of(racks: Iterable[Rack]) -> list[Device]:
    return [device for rack in racks for device in rack.devices]


def _check_unique(design: Design, site: Site | None, devices: list[Device]) -> None:
    """Added devices take no name of their site and no asset tag or serial of the
    design (:mod:`workbench.model.unique`)."""
    unique.check_device_names(design, site, devices)
    unique.check_labels(design, devices)


def _detach(design: Design, devices: Sequence[Device]) -> Detached:
    """Take the links and tier memberships of ``devices`` out of the design."""
    index = design.index
    ids = {d.id for d in devices}
    link_ids: set[str] = set()
    for device_id in ids:
        link_ids |= index.links_of(device_id)
    links: list[tuple[int, Link]] = []
    if link_ids:
        wanted = [index.links[link_id] for link_id in sorted(link_ids)]
        places = index.link_positions(design.links, wanted)
        if places is not None:
            links = sorted(zip(places, wanted, strict=True), key=lambda pair: pair[0])
            for place, run in reversed(list(_runs(links))):
                del design.links[place : place + len(run)]
        else:  # a damaged file's list (two links with one id): take out every one
            kept = []
            for i, link in enumerate(design.links):
                if link.id in link_ids:
                    links.append((i, link))
                else:
                    kept.append(link)
            design.links[:] = kept
        for _, link in links:
            index.drop_link(link)
    tiers: list[tuple[str, int, str]] = []
    for tier in design.storage_tiers:
        if not ids.isdisjoint(tier.device_ids):
            positions = [(i, d) for i, d in enumerate(tier.device_ids) if d in ids]
            tiers += [(tier.id, i, d) for i, d in positions]
            tier.device_ids[:] = [d for d in tier.device_ids if d not in ids]
    return Detached(tuple(links), tuple(tiers))


def _any(detached: Detached) -> bool:
    """Whether an add put links or memberships back, so its inverse takes them out.

    An add that put nothing back (a fresh drop, or the redo of a removal that took
    nothing) must not take out what merely named the id already; an add that put some
    back restores a removal that took every reference, so taking every one is exact."""
    return bool(detached.links or detached.tiers)


def _reattach(design: Design, detached: Detached) -> None:
    for place, run in _runs(detached.links):
        design.links[place:place] = run
    for i, link in detached.links:
        design.index.add_link(link)
        design.index.link_placed(link, i)
    by_id = {tier.id: tier for tier in design.storage_tiers}
    for tier_id, i, device_id in detached.tiers:
        tier = by_id.get(tier_id)
        if tier is not None:
            tier.device_ids.insert(i, device_id)


def _runs(links: Sequence[tuple[int, Link]]) -> Iterator[tuple[int, list[Link]]]:
    """``links`` (places in the design's list, ascending) as runs at consecutive places,
    each with its first place: a run is put in or taken out as one slice.  Why: each
    insert into or delete from the list moves the links after it (443,000 at 100,000
    GPUs), and a cabled node's links stand together: one by one they were ~1 ms of
    every node removed or put back."""
    start = 0
    while start < len(links):
        end = start + 1
        while end < len(links) and links[end][0] == links[end - 1][0] + 1:
            end += 1
        yield links[start][0], [link for _i, link in links[start:end]]
        start = end


def _link_ends(detached: Detached) -> frozenset[str]:
    """Both ends of the links taken out with (or put back with) some devices: a switch
    whose port a removed server's link held is touched too (its port is free again, a
    server cabled back to back may now be on no fabric), so its device rules re-run."""
    return frozenset(e for _, link in detached.links for e in (link.a_device, link.b_device))


def _subtree_change(
    racks: Sequence[Rack], rows: Sequence[Row], detached: Detached, *, added: bool
) -> Change:
    devices = frozenset(d.id for d in _devices_of(racks))
    rack_ids = frozenset(r.id for r in racks)
    ids = devices | rack_ids | frozenset(r.id for r in rows)
    links = frozenset(link.id for _, link in detached.links)
    tiers = frozenset(t for t, _, _ in detached.tiers)
    return Change(
        racks=rack_ids,
        devices=devices | _link_ends(detached),
        links=links,
        tiers=tiers,
        added=ids | links if added else frozenset(),
        removed=frozenset() if added else ids | links,
        removed_types=frozenset()
        if added
        else frozenset(d.device_type for d in _devices_of(racks)),
        layout=True,
    )


# -- rows -------------------------------------------------------------------------------------


def _add_row(design: Design, op: AddRow) -> Applied:
    site = design.index.sites.get(op.site_id)
    if site is None:
        raise EditError(f"No site with id {op.site_id!r}.")
    racks = op.row.racks
    check_free(design, [op.row.id, *(r.id for r in racks), *(d.id for d in _devices_of(racks))])
    check_names("row", [op.row])
    check_names("rack", racks)
    check_names("device", _devices_of(racks))
    if not op.restore:
        _check_unique(design, site, _devices_of(racks))
    insert_at(site.rows, op.row, op.index, "rows of the site")
    with _taken_back_on_error(design, site.rows, op.row):
        design.index.add_row(site, op.row)
        _reattach(design, op.detached)
    return Applied(
        RemoveRow(op.row.id, detach=_any(op.detached)),
        _subtree_change(racks, [op.row], op.detached, added=True),
    )


def _remove_row(design: Design, op: RemoveRow) -> Applied:
    placed = design.index.rows.get(op.row_id)
    if placed is None:
        raise EditError(f"No row with id {op.row_id!r}.")
    site, row = placed
    i = position_of(site.rows, row)
    detached = _detach(design, _devices_of(row.racks)) if op.detach else _NONE
    del site.rows[i]
    design.index.drop_row(row)
    change = _subtree_change(row.racks, [row], detached, added=False)
    return Applied(AddRow(site.id, row, i, detached, restore=True), change)


def _move_row(design: Design, op: MoveRow) -> Applied:
    placed = design.index.rows.get(op.row_id)
    target = design.index.sites.get(op.site_id)
    if placed is None or target is None:
        raise EditError(f"No row {op.row_id!r} or no site {op.site_id!r}.")
    site, row = placed
    old = position_of(site.rows, row)
    del site.rows[old]
    try:
        insert_at(target.rows, row, op.index, "rows of the site")
    except EditError:
        site.rows.insert(old, row)
        raise
    design.index.rows[row.id] = (target, row)
    change = Change(
        racks=frozenset(r.id for r in row.racks), moved=frozenset({row.id}), layout=True
    )
    return Applied(MoveRow(row.id, site.id, old), change)


# -- racks ------------------------------------------------------------------------------------


def _add_rack(design: Design, op: AddRack) -> Applied:
    placed = design.index.rows.get(op.row_id)
    if placed is None:
        raise EditError(f"No row with id {op.row_id!r}.")
    row = placed[1]
    check_free(design, [op.rack.id, *(d.id for d in op.rack.devices)])
    check_names("rack", [op.rack])
    check_names("device", op.rack.devices)
    if not op.restore:
        _check_unique(design, design.index.site_of_row(row.id), op.rack.devices)
    insert_at(row.racks, op.rack, op.index, "racks of the row")
    with _taken_back_on_error(design, row.racks, op.rack):
        design.index.add_rack(row, op.rack)
        _reattach(design, op.detached)
    return Applied(
        RemoveRack(op.rack.id, detach=_any(op.detached)),
        _subtree_change([op.rack], [], op.detached, added=True),
    )


def _remove_rack(design: Design, op: RemoveRack) -> Applied:
    placed = design.index.racks.get(op.rack_id)
    if placed is None:
        raise EditError(f"No rack with id {op.rack_id!r}.")
    row, rack = placed
    i = position_of(row.racks, rack)
    detached = _detach(design, rack.devices) if op.detach else _NONE
    del row.racks[i]
    design.index.drop_rack(rack)
    change = _subtree_change([rack], [], detached, added=False)
    return Applied(AddRack(row.id, rack, i, detached, restore=True), change)


def _move_rack(design: Design, op: MoveRack) -> Applied:
    placed = design.index.racks.get(op.rack_id)
    target = design.index.rows.get(op.row_id)
    if placed is None or target is None:
        raise EditError(f"No rack {op.rack_id!r} or no row {op.row_id!r}.")
    row, rack = placed
    new_row = target[1]
    old = position_of(row.racks, rack)
    del row.racks[old]
    try:
        insert_at(new_row.racks, rack, op.index, "racks of the row")
    except EditError:
        row.racks.insert(old, rack)
        raise
    design.index.racks[rack.id] = (new_row, rack)
    change = Change(racks=frozenset({rack.id}), moved=frozenset({rack.id}), layout=True)
    return Applied(MoveRack(rack.id, row.id, old), change)


# -- devices ----------------------------------------------------------------------------------


def _add_device(design: Design, op: AddDevice) -> Applied:
    placed = design.index.racks.get(op.rack_id)
    if placed is None:
        raise EditError(f"No rack with id {op.rack_id!r}.")
    rack = placed[1]
    check_free(design, [op.device.id])
    check_names("device", [op.device])
    if not op.restore:
        _check_unique(design, unique.site_of_rack(design, rack.id), [op.device])
    problem = placement_problem(op.device.position, op.device.face)
    if problem is not None:
        raise EditError(f"{op.device.name} cannot be added there: {problem}.")
    insert_at(rack.devices, op.device, op.index, "devices of the rack")
    put_back = _any(op.detached)
    with _taken_back_on_error(design, rack.devices, op.device):
        design.index.add_device(rack, op.device)
        if put_back:
            _reattach(design, op.detached)
    ids = frozenset({op.device.id})
    if not put_back:
        # A fresh drop (a generated fabric places 45,000 switches at 1,000,000 GPUs):
        # the change below, without reading the empty links and tiers put back.
        change = Change(racks=frozenset({rack.id}), devices=ids, added=ids)
        return Applied(RemoveDevice(op.device.id, detach=False), change)
    links = frozenset(link.id for _, link in op.detached.links)
    change = Change(
        racks=frozenset({rack.id}),
        devices=ids | _link_ends(op.detached),
        links=links,
        tiers=frozenset(t for t, _, _ in op.detached.tiers),
        added=ids | links,
    )
    return Applied(RemoveDevice(op.device.id, detach=True), change)


def _add_devices(design: Design, op: AddDevices) -> Applied:
    placed = design.index.racks.get(op.rack_id)
    if placed is None:
        raise EditError(f"No rack with id {op.rack_id!r}.")
    rack = placed[1]
    devices = list(op.devices)
    ids = [device.id for device in devices]
    check_free(design, ids)
    check_names("device", devices)
    _check_unique(design, unique.site_of_rack(design, rack.id), devices)
    for device in devices:
        problem = placement_problem(device.position, device.face)
        if problem is not None:
            raise EditError(f"{device.name} cannot be added there: {problem}.")
    start = len(rack.devices)
    rack.devices.extend(devices)
    try:
        for device in devices:
            design.index.add_device(rack, device)
    except BaseException:
        del rack.devices[start:]
        design.reindex()
        raise
    added = frozenset(ids)
    change = Change(racks=frozenset({rack.id}), devices=added, added=added)
    inverse = Batch(tuple(RemoveDevice(device_id, detach=False) for device_id in reversed(ids)))
    return Applied(inverse, change)


def _remove_device(design: Design, op: RemoveDevice) -> Applied:
    found = design.index.devices.get(op.device_id)
    if found is None:
        raise EditError(f"No device with id {op.device_id!r}.")
    rack, device = found
    i = position_of(rack.devices, device)
    detached = _detach(design, [device]) if op.detach else _NONE
    del rack.devices[i]
    design.index.drop_device(device)
    links = frozenset(link.id for _, link in detached.links)
    change = Change(
        racks=frozenset({rack.id}),
        devices=frozenset({device.id}) | _link_ends(detached),
        links=links,
        tiers=frozenset(t for t, _, _ in detached.tiers),
        removed=frozenset({device.id}) | links,
        removed_types=frozenset({device.device_type}),
    )
    return Applied(AddDevice(rack.id, device, i, detached, restore=True), change)


def _move_device(design: Design, op: MoveDevice) -> Applied:
    found = design.index.devices.get(op.device_id)
    target = design.index.racks.get(op.rack_id)
    if found is None or target is None:
        raise EditError(f"No device {op.device_id!r} or no rack {op.rack_id!r}.")
    rack, device = found
    new_rack = target[1]
    problem = placement_problem(op.position, op.face)
    if problem is not None:
        raise EditError(f"{device.name} cannot move there: {problem}.")
    old_index = position_of(rack.devices, device)
    old = (rack.id, device.position, device.face)
    old_name = device.name if op.name is not None and op.name != device.name else None
    if old_name is not None:
        clean_name(op.name, "device")
    if old_name is not None or new_rack is not rack:
        moved = replace(device, name=op.name) if op.name is not None else device
        new_site = unique.site_of_rack(design, new_rack.id)
        if old_name is not None or new_site is not unique.site_of_rack(design, rack.id):
            unique.check_device_names(design, new_site, [moved], frozenset({device.id}))
    if new_rack is not rack or op.index is not None:
        del rack.devices[old_index]
        try:
            insert_at(new_rack.devices, device, op.index, "devices of the rack")
        except EditError:
            rack.devices.insert(old_index, device)
            raise
        design.index.move_device(new_rack, device)
    device.position, device.face = op.position, op.face
    if old_name is not None and op.name is not None:
        device.name = op.name
        design.index.rename_device(old_name, op.name, device.id)
    change = Change(
        racks=frozenset({rack.id, new_rack.id}),
        devices=frozenset({device.id}),
        moved=frozenset({device.id}),
    )
    return Applied(MoveDevice(device.id, old[0], old[1], old[2], old_index, old_name), change)


#: This module's edits: how each is carried out and what it can change.
EDITS: dict[type, Edit] = {
    AddRow: Edit(_add_row, keep.add_row),
    RemoveRow: Edit(_remove_row, keep.remove_row),
    MoveRow: Edit(_move_row, keep.move_row),
    AddRack: Edit(_add_rack, keep.add_rack),
    RemoveRack: Edit(_remove_rack, keep.remove_rack),
    MoveRack: Edit(_move_rack, keep.move_rack),
    AddDevice: Edit(_add_device, keep.add_device),
    AddDevices: Edit(_add_devices, keep.add_devices),
    RemoveDevice: Edit(_remove_device, keep.remove_device),
    MoveDevice: Edit(_move_device, keep.move_device),
}
