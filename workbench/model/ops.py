"""Structural edits as data: add, remove and move rows, racks, devices and links.

Each edit is a small frozen dataclass; :func:`apply` carries it out on a design and
returns its exact inverse together with the :class:`~workbench.model.change.Change` it
made.  Applying the inverse puts back precisely what was there: the same objects, in the
same places in their lists, with the links and storage-tier memberships that went with
a removed device.  So the window's undo command only keeps an edit and its inverse, the
command line and scripts make the very same edits, and a property test can run random
edits forwards and backwards and compare the whole model with the start.

The operations check structure (ids exist, new ids are free, positions are in range)
and keep :attr:`Design.index` correct.  Whether a device *may* go somewhere (free units,
the rack's budgets) is a placement question asked before an edit is made
(:func:`workbench.model.placement.can_place`); the rules report whatever a design holds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Union

from workbench.catalog.item import CatalogItem
from workbench.model import (
    acceptance,
    captures,
    cost_ops,
    field_ops,
    floor_ops,
    keep,
    net_ops,
    site_ops,
    team_ops,
    type_ops,
    unique,
    version_ops,
)
from workbench.model.acceptance import AddAcceptanceResults, RemoveLastAcceptanceImport
from workbench.model.add_checks import check_free, check_names
from workbench.model.applied import Applied, Batch, Edit, apply_all, insert_at
from workbench.model.captures import ReplaceCaptures
from workbench.model.change import Change
from workbench.model.cost_ops import PutCostText, SetCostInputs
from workbench.model.design import Design, Device, Link, Rack, Row, Site, Waiver
from workbench.model.errors import EditError
from workbench.model.field_ops import (
    AddWorkload,
    RemoveWorkload,
    RenameDevice,
    RenameRack,
    ReplaceWorkload,
    SetDeviceField,
    SetRackFields,
    UpdateWorkload,
)
from workbench.model.floor_ops import MoveRackOnFloor, MoveRowOnFloor
from workbench.model.names import clean_field, clean_name
from workbench.model.net_ops import (
    AddNetwork,
    AddStorageTier,
    RemoveNetwork,
    RemoveStorageTier,
    SetLinkFields,
    SetNetworkFields,
    SetTierFields,
)
from workbench.model.placement import placement_problem
from workbench.model.site_ops import AddSite, RemoveSite
from workbench.model.team_ops import AddTeam, RemoveTeam, SetTeamFields
from workbench.model.type_ops import ReplaceDeviceType, type_change
from workbench.model.version_ops import (
    AddAssignment,
    AddBaseline,
    AddObservations,
    AddRevision,
    RemoveAssignment,
    RemoveBaseline,
    RemoveLastImport,
    RemoveLastRevision,
    RenameBaseline,
)
from workbench.text_rules import STORED_TEXT


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
class RemoveDevice:
    device_id: str


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


@dataclass(frozen=True)
class AddLink:
    link: Link
    index: int | None = None


@dataclass(frozen=True)
class RemoveLink:
    link_id: str


@dataclass(frozen=True)
class AddLinks:
    """Many links as one edit: a generated fabric holds 300,000 of them at 100,000 GPUs,
    and one :class:`AddLink` each would cost a list search per link on undo.

    ``positions`` (ascending) say where each link stands in ``design.links`` once they
    are all in; None appends them in order.
    """

    links: tuple[Link, ...]
    positions: tuple[int, ...] | None = None


@dataclass(frozen=True)
class RemoveLinks:
    """Remove many links in one pass over ``design.links`` (the inverse of AddLinks)."""

    link_ids: tuple[str, ...]


@dataclass(frozen=True)
class AddDeviceType:
    """Put a catalog item into the design's snapshot (before the first device of it)."""

    item: CatalogItem


@dataclass(frozen=True)
class RemoveDeviceType:
    slug: str


@dataclass(frozen=True)
class AddWaiver:
    waiver: Waiver
    index: int | None = None


@dataclass(frozen=True)
class RemoveWaiver:
    rule: str
    object_id: str


Op = Union[  # noqa: UP007 - a runtime alias; "|" on these classes needs Python 3.10+ anyway
    AddRow,
    RemoveRow,
    MoveRow,
    AddRack,
    RemoveRack,
    MoveRack,
    AddDevice,
    RemoveDevice,
    MoveDevice,
    AddLink,
    RemoveLink,
    AddLinks,
    RemoveLinks,
    AddDeviceType,
    RemoveDeviceType,
    AddWaiver,
    RemoveWaiver,
    Batch,
    MoveRackOnFloor,
    MoveRowOnFloor,
    AddNetwork,
    RemoveNetwork,
    SetNetworkFields,
    SetLinkFields,
    AddStorageTier,
    RemoveStorageTier,
    SetTierFields,
    AddBaseline,
    RemoveBaseline,
    RenameBaseline,
    AddRevision,
    RemoveLastRevision,
    AddAssignment,
    RemoveAssignment,
    AddObservations,
    RemoveLastImport,
    AddAcceptanceResults,
    RemoveLastAcceptanceImport,
    ReplaceCaptures,
    ReplaceDeviceType,
    AddSite,
    RemoveSite,
    AddTeam,
    RemoveTeam,
    SetTeamFields,
    RenameDevice,
    SetDeviceField,
    RenameRack,
    SetRackFields,
    AddWorkload,
    RemoveWorkload,
    UpdateWorkload,
    ReplaceWorkload,
    SetCostInputs,
    PutCostText,
]


def apply(design: Design, op: Op) -> Applied:
    """Carry out ``op`` on ``design``; raise :class:`EditError` (changing nothing) when
    the structure does not allow it."""
    edit = _EDITS.get(type(op))
    if edit is None:
        raise EditError(f"Unknown edit {type(op).__name__}.")
    return edit.apply(design, op)


def snapshot(design: Design, op: Op) -> keep.Snapshot:
    """A shallow copy of what applying ``op`` to ``design`` can change, to put back if
    it fails half-way (see :mod:`workbench.model.keep`); the whole design when the scope
    cannot be read (an unknown edit, a design holding odd values)."""
    snap = keep.Snapshot()
    try:
        _keep(design, op, snap)
    except Exception:  # noqa: BLE001 - a scope that cannot be read: keep everything
        return keep.whole_design(design)
    return snap


def _keep(design: Design, op: object, snap: keep.Snapshot) -> None:
    edit = _EDITS.get(type(op))
    if edit is None:
        keep.keep_whole_design(design, snap)
    else:
        edit.keeps(design, op, snap)


def known_edits() -> frozenset[type]:
    """Every kind of edit :func:`apply` carries out (for tests and documentation)."""
    return frozenset(_EDITS)


# -- helpers --------------------------------------------------------------------------------


def _position(items: Sequence[object], obj: object) -> int:
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


def _reattach(design: Design, detached: Detached) -> None:
    for i, link in detached.links:
        design.links.insert(i, link)
        design.index.add_link(link)
    by_id = {tier.id: tier for tier in design.storage_tiers}
    for tier_id, i, device_id in detached.tiers:
        tier = by_id.get(tier_id)
        if tier is not None:
            tier.device_ids.insert(i, device_id)


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
        devices=devices,
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
    return Applied(RemoveRow(op.row.id), _subtree_change(racks, [op.row], op.detached, added=True))


def _remove_row(design: Design, op: RemoveRow) -> Applied:
    placed = design.index.rows.get(op.row_id)
    if placed is None:
        raise EditError(f"No row with id {op.row_id!r}.")
    site, row = placed
    i = _position(site.rows, row)
    detached = _detach(design, _devices_of(row.racks))
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
    old = _position(site.rows, row)
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
    return Applied(RemoveRack(op.rack.id), _subtree_change([op.rack], [], op.detached, added=True))


def _remove_rack(design: Design, op: RemoveRack) -> Applied:
    placed = design.index.racks.get(op.rack_id)
    if placed is None:
        raise EditError(f"No rack with id {op.rack_id!r}.")
    row, rack = placed
    i = _position(row.racks, rack)
    detached = _detach(design, rack.devices)
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
    old = _position(row.racks, rack)
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
    with _taken_back_on_error(design, rack.devices, op.device):
        design.index.add_device(rack, op.device)
        _reattach(design, op.detached)
    links = frozenset(link.id for _, link in op.detached.links)
    change = Change(
        racks=frozenset({rack.id}),
        devices=frozenset({op.device.id}),
        links=links,
        tiers=frozenset(t for t, _, _ in op.detached.tiers),
        added=frozenset({op.device.id}) | links,
    )
    return Applied(RemoveDevice(op.device.id), change)


def _remove_device(design: Design, op: RemoveDevice) -> Applied:
    found = design.index.devices.get(op.device_id)
    if found is None:
        raise EditError(f"No device with id {op.device_id!r}.")
    rack, device = found
    i = _position(rack.devices, device)
    detached = _detach(design, [device])
    del rack.devices[i]
    design.index.drop_device(device)
    links = frozenset(link.id for _, link in detached.links)
    change = Change(
        racks=frozenset({rack.id}),
        devices=frozenset({device.id}),
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
    old_index = _position(rack.devices, device)
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
        design.index.devices[device.id] = (new_rack, device)
    device.position, device.face = op.position, op.face
    if old_name is not None and op.name is not None:
        device.name = op.name
        design.index.rename_device(old_name, op.name)
    change = Change(
        racks=frozenset({rack.id, new_rack.id}),
        devices=frozenset({device.id}),
        moved=frozenset({device.id}),
    )
    return Applied(MoveDevice(device.id, old[0], old[1], old[2], old_index, old_name), change)


# -- links, snapshot, waivers -----------------------------------------------------------------


def _add_link(design: Design, op: AddLink) -> Applied:
    link = op.link
    for end in (link.a_device, link.b_device):
        if end not in design.index.devices:
            raise EditError(f"Link {link.id!r} ends on a device that does not exist: {end!r}.")
    check_free(design, [link.id])
    insert_at(design.links, link, op.index, "links")
    design.index.add_link(link)
    ids = frozenset({link.id})
    change = Change(devices=frozenset({link.a_device, link.b_device}), links=ids, added=ids)
    return Applied(RemoveLink(link.id), change)


def _remove_link(design: Design, op: RemoveLink) -> Applied:
    link = design.index.links.get(op.link_id)
    if link is None:
        raise EditError(f"No link with id {op.link_id!r}.")
    i = _position(design.links, link)
    del design.links[i]
    design.index.drop_link(link)
    ids = frozenset({link.id})
    change = Change(devices=frozenset({link.a_device, link.b_device}), links=ids, removed=ids)
    return Applied(AddLink(link, i), change)


def _add_links(design: Design, op: AddLinks) -> Applied:
    links = op.links
    devices = design.index.devices
    for link in links:
        for end in (link.a_device, link.b_device):
            if end not in devices:
                raise EditError(f"Link {link.id!r} ends on a device that does not exist: {end!r}.")
    check_free(design, (link.id for link in links))
    if op.positions is None:
        design.links.extend(links)
    else:
        positions = op.positions
        total = len(design.links) + len(links)
        if len(positions) != len(links) or any(
            not 0 <= p < total or (i and p <= positions[i - 1]) for i, p in enumerate(positions)
        ):
            raise EditError("Link positions must ascend and lie inside the list of links.")
        merged: list[Link] = []
        old = iter(design.links)
        new = 0
        for at in range(total):
            if new < len(links) and positions[new] == at:
                merged.append(links[new])
                new += 1
            else:
                merged.append(next(old))
        design.links[:] = merged
    design.index.add_links(links)
    ids = frozenset(link.id for link in links)
    ends = frozenset(e for link in links for e in (link.a_device, link.b_device))
    change = Change(devices=ends, links=ids, added=ids)
    return Applied(RemoveLinks(tuple(link.id for link in links)), change)


def _remove_links(design: Design, op: RemoveLinks) -> Applied:
    wanted = set(op.link_ids)
    missing = wanted - design.index.links.keys()
    if missing:
        raise EditError(f"No link with id {sorted(missing)[0]!r}.")
    kept: list[Link] = []
    gone: list[Link] = []
    positions: list[int] = []
    for i, link in enumerate(design.links):
        if link.id in wanted:
            gone.append(link)
            positions.append(i)
        else:
            kept.append(link)
    design.links[:] = kept
    for link in gone:
        design.index.drop_link(link)
    ids = frozenset(wanted)
    ends = frozenset(e for link in gone for e in (link.a_device, link.b_device))
    change = Change(devices=ends, links=ids, removed=ids)
    return Applied(AddLinks(tuple(gone), tuple(positions)), change)


def _add_device_type(design: Design, op: AddDeviceType) -> Applied:
    if op.item.slug in design.device_types:
        raise EditError(f"The design already holds catalog item {op.item.slug!r}.")
    design.device_types[op.item.slug] = op.item
    design.index.touch_fabric()
    return Applied(RemoveDeviceType(op.item.slug), type_change(design, op.item.slug))


def _remove_device_type(design: Design, op: RemoveDeviceType) -> Applied:
    item = design.device_types.pop(op.slug, None)
    if item is None:
        raise EditError(f"The design holds no catalog item {op.slug!r}.")
    design.index.touch_fabric()
    return Applied(AddDeviceType(item), type_change(design, op.slug))


def _waiver_change(design: Design, waiver: Waiver) -> Change:
    """A waiver changes how its object's rack is marked, nothing else."""
    rack = design.index.rack_of(waiver.object_id)
    return Change(waivers=True, racks=frozenset({rack.id}) if rack is not None else frozenset())


def _waiver_position(design: Design, rule: str, object_id: str) -> int | None:
    for i, waiver in enumerate(design.waivers):
        if waiver.rule == rule and waiver.object_id == object_id:
            return i
    return None


def _add_waiver(design: Design, op: AddWaiver) -> Applied:
    waiver = op.waiver
    if _waiver_position(design, waiver.rule, waiver.object_id) is not None:
        raise EditError(f"{waiver.rule} on {waiver.object_id!r} is already waived.")
    if not isinstance(waiver.note, str) or not waiver.note.strip():
        raise EditError("A waiver needs a note saying why the finding is accepted.")
    note = clean_field("waivers.note", waiver.note)
    for key, value in (("waivers.rule", waiver.rule), ("waivers.object_id", waiver.object_id),
                       ("waivers.created_at", waiver.created_at)):  # fmt: skip
        problem = STORED_TEXT[key].problem(value)  # made by the app, judged as stored
        if problem is not None:
            raise EditError(f"A waiver's {STORED_TEXT[key].what} {problem}.")
    waiver = replace(waiver, note=note) if note != waiver.note else waiver
    insert_at(design.waivers, waiver, op.index, "waivers")
    return Applied(RemoveWaiver(waiver.rule, waiver.object_id), _waiver_change(design, waiver))


def _remove_waiver(design: Design, op: RemoveWaiver) -> Applied:
    i = _waiver_position(design, op.rule, op.object_id)
    if i is None:
        raise EditError(f"{op.rule} on {op.object_id!r} is not waived.")
    waiver = design.waivers.pop(i)
    return Applied(AddWaiver(waiver, i), _waiver_change(design, waiver))


def _batch(design: Design, op: Batch) -> Applied:
    return apply_all(design, op.ops, apply)


def _keep_batch(design: Design, op: Batch, snap: keep.Snapshot) -> None:
    for step in op.ops:
        _keep(design, step, snap)


#: Edit class → how it is carried out and what it can change: the one table of every
#: edit the model knows.  The edits of this module are listed here; those kept in their
#: own modules come with those modules' ``EDITS``.  A new edit is its dataclass, its
#: handler and ONE entry in a table; the window's undo command needs nothing more.
_EDITS: dict[type, Edit] = {
    AddRow: Edit(_add_row, keep.add_row),
    RemoveRow: Edit(_remove_row, keep.remove_row),
    MoveRow: Edit(_move_row, keep.move_row),
    AddRack: Edit(_add_rack, keep.add_rack),
    RemoveRack: Edit(_remove_rack, keep.remove_rack),
    MoveRack: Edit(_move_rack, keep.move_rack),
    AddDevice: Edit(_add_device, keep.add_device),
    RemoveDevice: Edit(_remove_device, keep.remove_device),
    MoveDevice: Edit(_move_device, keep.move_device),
    AddLink: Edit(_add_link, keep.links),
    RemoveLink: Edit(_remove_link, keep.links),
    AddLinks: Edit(_add_links, keep.links),
    RemoveLinks: Edit(_remove_links, keep.links),
    AddDeviceType: Edit(_add_device_type, keep.device_types),
    RemoveDeviceType: Edit(_remove_device_type, keep.device_types),
    AddWaiver: Edit(_add_waiver, keep.waivers),
    RemoveWaiver: Edit(_remove_waiver, keep.waivers),
    Batch: Edit(_batch, _keep_batch),
    **floor_ops.EDITS,
    **net_ops.EDITS,
    **version_ops.EDITS,
    **acceptance.EDITS,
    **captures.EDITS,
    **type_ops.EDITS,
    **site_ops.EDITS,
    **team_ops.EDITS,
    **field_ops.EDITS,
    **cost_ops.EDITS,
}
