"""What an edit can change, kept so that a failure half-way puts the model back.

An edit is meant to be atomic: :func:`workbench.model.ops.apply` checks structure before
it changes anything and raises :class:`EditError` with the model untouched.  That
promise covers the errors the model expects.  An *unexpected* exception (a wrong-typed
value reaching an index update, a bug) can still leave the model half changed, and the
window's undo stack would then disagree with it.  So before every step the window takes
:func:`workbench.model.ops.snapshot` of exactly what the edit can touch, and on failure
puts it back.

The snapshot is *shallow* and *scoped*: a copy of the few lists the edit inserts into or
removes from (a rack's devices, a row's racks, the design's links when devices with
cables go) and of the attribute dictionaries of the objects whose fields it sets.  A
field edit costs one small dict copy, a drag two short list copies.  The list of links
(443,000 at 100,000 GPUs) is not copied when cabled devices go or come back: the
links that go are kept with their places, those that come back as themselves
(:meth:`Snapshot.keep_removals`, :meth:`Snapshot.keep_insertions`), and a restore
takes out or puts back just those (a pass over the list, paid only on failure).  A deep copy of a 100,000-GPU design is never made.  The id index is
not kept: after a restore it is dropped (:meth:`Design.reindex`) and rebuilt on the
next read, a cost paid only on failure.

Each function below is the *keeper* of one kind of edit, named in that edit's one entry
of the model's table of edits (:class:`workbench.model.applied.Edit`); an edit whose
scope cannot be read falls back to :func:`whole_design`, a shallow copy of every list
and object: correct, O(design), and meant to be rare.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.model.design import Design, Device


class Snapshot:
    """Shallow copies of lists, dicts and objects' fields, put back by :meth:`restore`.

    Each container or object is kept once (the first copy is the state before the
    edit), so scopes may name the same list twice.
    """

    def __init__(self) -> None:
        self._lists: list[tuple[list, list]] = []
        self._dicts: list[tuple[dict, dict]] = []
        self._objects: list[tuple[object, dict[str, Any]]] = []
        #: Lists an edit only takes objects out of, by id: (list, [(place, object)]).
        self._removals: dict[int, tuple[list, list[tuple[int, object]]]] = {}
        #: Lists an edit only puts these objects into, by id: (list, objects).
        self._insertions: dict[int, tuple[list, list[object]]] = {}
        self._seen: set[int] = set()

    def _first(self, thing: object) -> bool:
        key = id(thing)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def keep_list(self, items: list | None) -> None:
        if not isinstance(items, list):
            return
        if self._partial(items):  # kept in part by an earlier step: keep it whole
            self._removals.pop(id(items), None)
            self._insertions.pop(id(items), None)
            self._seen.discard(id(items))
        if self._first(items):
            self._lists.append((items, list(items)))

    def _partial(self, items: list) -> bool:
        return id(items) in self._removals or id(items) in self._insertions

    def keep_removals(self, items: list, taken: Iterable[tuple[int, object]]) -> None:
        """``items``, which the edit only takes ``taken`` out of (each object with its
        place in the list now): kept as those pairs, not a copy of the whole list.  The
        steps of a batch are kept before any runs, so their pairs add up."""
        key = id(items)
        if key in self._insertions:  # taken from and put into: keep it whole
            self.keep_list(items)
        elif key in self._removals:
            kept = self._removals[key][1]
            known = {id(obj) for _, obj in kept}
            kept += [pair for pair in taken if id(pair[1]) not in known]
            kept.sort(key=lambda pair: pair[0])
        elif self._first(items):
            self._removals[key] = (items, sorted(taken, key=lambda pair: pair[0]))

    def keep_insertions(self, items: list, objects: Iterable[object]) -> None:
        """``items``, which the edit only puts ``objects`` into (none of them is in it
        now): kept as those objects, not a copy of the whole list."""
        key = id(items)
        if key in self._removals:
            self.keep_list(items)
        elif key in self._insertions:
            self._insertions[key][1].extend(objects)
        elif self._first(items):
            self._insertions[key] = (items, list(objects))

    def keep_dict(self, mapping: dict | None) -> None:
        if isinstance(mapping, dict) and self._first(mapping):
            self._dicts.append((mapping, dict(mapping)))

    def keep_fields(self, obj: object | None) -> None:
        """The object's attributes (its lists are the same list objects; keep those
        with :meth:`keep_list` when the edit changes their content)."""
        if obj is None or not self._first(obj):
            return
        try:
            fields = dict(vars(obj))
        except TypeError:  # __slots__: the dataclass fields
            fields = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]
        self._objects.append((obj, fields))

    @property
    def size(self) -> int:
        """How many references were copied (for tests and benchmarks)."""
        return (
            sum(len(saved) for _, saved in self._lists)
            + sum(len(saved) for _, saved in self._dicts)
            + sum(len(saved) for _, saved in self._objects)
            + sum(len(taken) for _, taken in self._removals.values())
            + sum(len(put) for _, put in self._insertions.values())
        )

    def restore(self) -> None:
        """Put every kept list, dict and object back as it was when kept."""
        for obj, fields in self._objects:
            try:
                attributes = vars(obj)
            except TypeError:
                for name, value in fields.items():
                    object.__setattr__(obj, name, value)
                continue
            attributes.clear()
            attributes.update(fields)
        for items, kept in self._lists:
            items[:] = kept
        for items, put in self._insertions.values():
            _take_out(items, put)
        for items, taken in self._removals.values():
            _take_out(items, [obj for _, obj in taken])  # what the edit did take out
            for place, obj in taken:  # in rising order: each lands where it stood
                items.insert(place, obj)
        for mapping, copy in self._dicts:
            mapping.clear()
            mapping.update(copy)


def _take_out(items: list, objects: list[object]) -> None:
    """Take these very objects out of ``items`` (those the list holds)."""
    gone = {id(obj) for obj in objects}
    if gone:
        items[:] = [item for item in items if id(item) not in gone]


# -- what each edit touches ------------------------------------------------------------------


def _keep_links_and_tiers(design: Design, devices: Iterable[Device], snap: Snapshot) -> None:
    """What removing ``devices`` detaches: their links and storage-tier memberships."""
    index = design.index
    link_ids: set[str] = set()
    for device in devices:
        link_ids |= index.links_of(device.id)
    if link_ids:
        wanted = [index.links[link_id] for link_id in link_ids]
        places = index.link_positions(design.links, wanted)
        if places is None:  # a damaged file's list: the edit scans it, keep it whole
            snap.keep_list(design.links)
        else:
            snap.keep_removals(design.links, zip(places, wanted, strict=True))
    for tier in design.storage_tiers:
        snap.keep_list(tier.device_ids)


def _keep_detached(design: Design, detached: Any, snap: Snapshot) -> None:
    """What putting back removed objects reattaches."""
    if detached.links:
        snap.keep_insertions(design.links, [link for _, link in detached.links])
    if detached.tiers:
        for tier in design.storage_tiers:
            snap.keep_list(tier.device_ids)


def _site_rows(design: Design, site_id: str, snap: Snapshot) -> None:
    site = design.index.sites.get(site_id)
    if site is not None:
        snap.keep_list(site.rows)


def _row_racks(design: Design, row_id: str, snap: Snapshot) -> None:
    placed = design.index.rows.get(row_id)
    if placed is not None:
        snap.keep_list(placed[1].racks)


def _rack_devices(design: Design, rack_id: str, snap: Snapshot) -> None:
    placed = design.index.racks.get(rack_id)
    if placed is not None:
        snap.keep_list(placed[1].devices)


def add_row(design: Design, op: Any, snap: Snapshot) -> None:
    _site_rows(design, op.site_id, snap)
    _keep_detached(design, op.detached, snap)


def remove_row(design: Design, op: Any, snap: Snapshot) -> None:
    placed = design.index.rows.get(op.row_id)
    if placed is not None:
        site, row = placed
        snap.keep_list(site.rows)
        _keep_links_and_tiers(design, (d for r in row.racks for d in r.devices), snap)


def move_row(design: Design, op: Any, snap: Snapshot) -> None:
    placed = design.index.rows.get(op.row_id)
    if placed is not None:
        snap.keep_list(placed[0].rows)
    _site_rows(design, op.site_id, snap)


def add_rack(design: Design, op: Any, snap: Snapshot) -> None:
    _row_racks(design, op.row_id, snap)
    _keep_detached(design, op.detached, snap)


def remove_rack(design: Design, op: Any, snap: Snapshot) -> None:
    placed = design.index.racks.get(op.rack_id)
    if placed is not None:
        row, rack = placed
        snap.keep_list(row.racks)
        _keep_links_and_tiers(design, rack.devices, snap)


def move_rack(design: Design, op: Any, snap: Snapshot) -> None:
    placed = design.index.racks.get(op.rack_id)
    if placed is not None:
        snap.keep_list(placed[0].racks)
    _row_racks(design, op.row_id, snap)


def add_device(design: Design, op: Any, snap: Snapshot) -> None:
    _rack_devices(design, op.rack_id, snap)
    _keep_detached(design, op.detached, snap)


def add_devices(design: Design, op: Any, snap: Snapshot) -> None:
    _rack_devices(design, op.rack_id, snap)


def remove_device(design: Design, op: Any, snap: Snapshot) -> None:
    found = design.index.devices.get(op.device_id)
    if found is not None:
        rack, device = found
        snap.keep_list(rack.devices)
        _keep_links_and_tiers(design, [device], snap)


def move_device(design: Design, op: Any, snap: Snapshot) -> None:
    found = design.index.devices.get(op.device_id)
    if found is not None:
        rack, device = found
        snap.keep_list(rack.devices)
        snap.keep_fields(device)
    _rack_devices(design, op.rack_id, snap)


def device_types(design: Design, op: Any, snap: Snapshot) -> None:
    snap.keep_dict(design.device_types)


def rack_on_floor(design: Design, op: Any, snap: Snapshot) -> None:
    placed = design.index.racks.get(op.rack_id)
    if placed is not None:
        snap.keep_fields(placed[1])


def row_on_floor(design: Design, op: Any, snap: Snapshot) -> None:
    placed = design.index.rows.get(op.row_id)
    if placed is not None:
        for rack in placed[1].racks:
            snap.keep_fields(rack)


def network_fields(design: Design, op: Any, snap: Snapshot) -> None:
    for network in design.networks:
        if network.id == op.network_id:
            snap.keep_fields(network)


def link_fields(design: Design, op: Any, snap: Snapshot) -> None:
    links = design.index.links
    for link_id in op.link_ids:
        snap.keep_fields(links.get(link_id))


def tier_fields(design: Design, op: Any, snap: Snapshot) -> None:
    for tier in design.storage_tiers:
        if tier.id == op.tier_id:
            snap.keep_fields(tier)
            snap.keep_list(tier.device_ids)


def teams(design: Design, _op: Any, snap: Snapshot) -> None:
    """The teams list and every team's fields (a handful of small records)."""
    snap.keep_list(design.teams)
    for team in design.teams:
        snap.keep_fields(team)


def versions(design: Design, op: Any, snap: Snapshot) -> None:
    """The version matrix: its three lists, and each baseline's name and revisions (a
    handful of baselines; the observations list is copied by reference, one pointer
    per observation)."""
    matrix = design.versions
    snap.keep_list(matrix.baselines)
    snap.keep_list(matrix.assignments)
    snap.keep_list(matrix.observations)
    for baseline in matrix.baselines:
        snap.keep_fields(baseline)
        snap.keep_list(baseline.revisions)


def keep_whole_design(design: Design, snap: Snapshot) -> None:
    """Every list and object of the design, shallowly: the fallback for an edit whose
    scope is unknown, or when taking a scope raised (a design holding odd values)."""
    snap.keep_fields(design)
    snap.keep_dict(design.device_types)
    snap.keep_dict(design.properties)
    for name in ("sites", "networks", "links", "storage_tiers", "workloads", "waivers"):
        snap.keep_list(getattr(design, name, None))
    snap.keep_list(design.software_stacks)
    for site in design.sites:
        snap.keep_fields(site)
        snap.keep_list(site.rows)
        for row in site.rows:
            snap.keep_fields(row)
            snap.keep_list(row.racks)
            for rack in row.racks:
                snap.keep_fields(rack)
                snap.keep_list(rack.devices)
                for device in rack.devices:
                    snap.keep_fields(device)
    for group in (design.networks, design.links, design.workloads, design.waivers):
        for obj in group:
            snap.keep_fields(obj)
    for tier in design.storage_tiers:
        snap.keep_fields(tier)
        snap.keep_list(tier.device_ids)
    for stack in design.software_stacks:
        snap.keep_fields(stack)
        snap.keep_dict(stack.components)
    teams(design, None, snap)
    if hasattr(design, "versions"):
        snap.keep_fields(design.versions)
        versions(design, None, snap)


def whole_design(design: Design) -> Snapshot:
    """A snapshot of everything (see :func:`keep_whole_design`)."""
    snap = Snapshot()
    keep_whole_design(design, snap)
    return snap


def device_fields(design: Design, op: Any, snap: Snapshot) -> None:
    """The fields of the device ``op.device_id`` (a rename, a serial, a role)."""
    found = design.index.devices.get(op.device_id)
    if found is not None:
        snap.keep_fields(found[1])


def rack_fields(design: Design, op: Any, snap: Snapshot) -> None:
    """The fields of the rack ``op.rack_id`` (its name, cooling, budgets, model)."""
    placed = design.index.racks.get(op.rack_id)
    if placed is not None:
        snap.keep_fields(placed[1])


def _design_list(name: str) -> Callable[[Design, Any, Snapshot], None]:
    """What an edit that inserts into or removes from ``design.<name>`` can change:
    that one list (its records are replaced, never changed in place)."""

    def keeps(design: Design, _op: Any, snap: Snapshot) -> None:
        snap.keep_list(getattr(design, name))

    keeps.__name__ = keeps.__qualname__ = name
    return keeps


#: The edits that change one list of the design as a whole, by the list they change.
links = _design_list("links")
waivers = _design_list("waivers")
networks = _design_list("networks")
tiers = _design_list("storage_tiers")
acceptance = _design_list("acceptance")  # frozen records, copied by reference
captures = _design_list("captures")  # frozen records, copied by reference
workloads = _design_list("workloads")
sites = _design_list("sites")
