"""The design's id index: every object by id, with its parent, kept correct by the edits.

A 100,000-GPU design holds ~3,500 racks, ~19,000 devices and ~110,000 links; scanning
them to find one id (what ``Design.find_device`` used to do) costs milliseconds per
lookup, and every view used to build its own map to avoid that.  The index is built once,
lazily, on first use, and from then on the structural edits in
:mod:`workbench.model.ops` keep it up to date, so views, rules and commands all ask the
model and never keep identity of their own.

Ids are unique within a kind (two racks never share an id) and, for what the window
selects (sites, rows, racks, devices, links, workloads), across kinds as well; the
allocator hands out ids that are free in every kind.

The link tables (:attr:`DesignIndex.links`, :attr:`DesignIndex.device_links`) are built
apart, on their first read: at 100,000 GPUs they are 440,000 links and most of the
index's cost (~0.3 s), and what the window draws first (the racks) needs none of them.
The design's link list stays the truth meanwhile; the link edits change it before they
tell the index, so a build at any point reads what the edits made.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import (
    Callable,
    Collection,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
)
from fractions import Fraction
from operator import attrgetter
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from workbench.model.id_numbers import ID_SHAPES, NumberedRuns
from workbench.model.index_numbering import DeviceLog, NewIds
from workbench.model.link_places import HashedShards, LinkPlaces, LinkPositions
from workbench.text_rules import node_hostname

if TYPE_CHECKING:
    from workbench.model.parts import Device, Link, Rack, Row, Site, Workload


class Design(Protocol):
    """What the index reads of a design (:class:`workbench.model.design.Design` holds an
    index, so this module names the shape instead of importing it back)."""

    sites: list[Site]
    links: list[Link]
    workloads: list[Workload]

    @property
    def index(self) -> DesignIndex: ...


T = TypeVar("T")


class RackTotals(Protocol):
    """Totals over the values :meth:`DesignIndex.per_rack` keeps per rack: each value
    put in once, and taken out when its rack is read again.  Exact (integers, or
    fractions for floats), so the kept totals equal a fresh sum whatever the order."""

    def add(self, value: object) -> None: ...

    def remove(self, value: object) -> None: ...


def exact(value: float) -> int | Fraction | None:
    """``value`` as an exact number (an integer when whole, else a fraction), or None
    when it is not finite: kept totals add and subtract these without rounding, and
    round once when read."""
    if isinstance(value, int):  # a whole count or speed read from a file (Python 3.11's
        return value  # int has no is_integer)
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() else Fraction(value)


class SignedTotals:
    """A :class:`RackTotals` whose ``add`` and ``remove`` are one step signed +1 / −1."""

    def add(self, value: object) -> None:
        self.step(value, 1)

    def remove(self, value: object) -> None:
        self.step(value, -1)

    def step(self, value: object, sign: int) -> None:
        """Put ``value`` in (``sign`` 1) or take it out (−1)."""
        raise NotImplementedError


#: A link's id and the devices at its ends.
_LINK_ID = attrgetter("id")
_A_DEVICE = attrgetter("a_device")
_B_DEVICE = attrgetter("b_device")


def _fill_ends(ends: defaultdict[str, set[str]], links: Iterable[Link]) -> None:
    """Put each link's id under the devices at its ends."""
    for link in links:
        link_id = link.id
        ends[link.a_device].add(link_id)
        ends[link.b_device].add(link_id)


class DesignIndex(NewIds, DeviceLog, LinkPositions):
    """Id → object (and parent) maps of one design.

    Read it freely; only :mod:`workbench.model.ops` changes it, in step with the lists.
    The ids it hands out and the device log are in :mod:`workbench.model.index_numbering`,
    where links stand in the list in :mod:`workbench.model.link_places`.
    """

    def __init__(self, design: Design):
        self.sites: dict[str, Site] = {}
        #: row id → (site, row)
        self.rows: dict[str, tuple[Site, Row]] = {}
        #: rack id → (row, rack)
        self.racks: dict[str, tuple[Row, Rack]] = {}
        #: device id → (rack, device)
        self.devices: dict[str, tuple[Rack, Device]] = {}
        #: Built from :attr:`_unindexed` on first read (see :attr:`links`).
        self._links: MutableMapping[str, Link] | None = None
        self._device_links: defaultdict[str, set[str]] | None = None
        #: The design's link list until the link tables are built (the same list object:
        #: edits change it in place), then None.  None while the tree is indexed below,
        #: too: a device met there is no news to any figure (see :meth:`_named_by_links`).
        self._unindexed: list[Link] | None = None
        #: The design's link list (the same object), read when :attr:`device_links` is
        #: first asked for: a template's build never asks (it needs only whether a new
        #: device's id is named by a link, :attr:`_ends`), and filling it link by link
        #: was a seventh of a 1,000,000-GPU build.
        self._link_list: list[Link] = []
        #: Every device id some link ends on, while :attr:`device_links` is not built
        #: (made in C on first need, grown by the link adds, dropped by a link removal).
        self._ends: set[str] | None = None
        self.workloads: dict[str, Workload] = {}
        #: Next number to try per kind (see :meth:`new_id`).
        self._next: dict[str, int] = {}
        #: While the link tables are not built: the ids of every link in the list, when
        #: each came from a batch of :meth:`new_ids` (a template's links all do), so a
        #: new id is checked against them without building :attr:`links` (see
        #: :meth:`_link_runs_now`); None once another link comes in or one goes out.
        self._link_runs: NumberedRuns | None = None
        #: The batches of links the runs took in, and per link field read so far: the
        #: values met, in all and per batch read (see :meth:`link_values`).
        self._run_batches: list[Sequence[Link]] = []
        self._run_values: dict[str, tuple[set[object], list[set[object]]]] = {}
        #: The latest batch of link ids :meth:`new_ids` handed out (its first number and
        #: a copy of the ids), until links with exactly those ids are added.
        self._issued: tuple[int, list[str]] | None = None
        #: How many devices carry each name (built on first use; see :attr:`device_names`).
        self._names: Counter[str] | None = None
        #: How many devices' names map to each host name (see :attr:`host_names`).
        self._hosts: Counter[str] | None = None
        #: Bumped by every edit that can change what the cabling means (a link added or
        #: removed or re-speeded, a network's plane, a catalog item's kind), so figures
        #: read off the links (:func:`workbench.calc.fabric.planes.plane_structures`) are
        #: computed once per such edit, not once per view that asks.
        self.fabric_version = 0
        #: Bumped (with :attr:`fabric_version`) by every change of the catalog snapshot
        #: (:meth:`touch_types`): figures that read the items but no link (a rack's IT
        #: draw) key on this, and a link added or removed leaves them be.
        self.types_version = 0
        #: Derived results keyed by name, valid for :attr:`fabric_version` (the calc
        #: layer's caches; dropped with the index).
        self.fabric_cache: dict[str, tuple[int, object]] = {}
        #: What each of the latest :attr:`fabric_version` bumps did, oldest first (see
        #: :meth:`fabric_changes`), and the version before the first of them.
        self._fabric_log: list[FabricChange | None] = []
        self._log_from = 0
        #: Whether readers may keep per-link tables between cabling edits to update them
        #: in step (:func:`workbench.calc.design_hardware.compute_plane`): the window,
        #: which edits, says so; a command's one pass would only hold the memory.
        self.keep_tables = False
        #: Where each link stood in the design's list when last seen (see
        #: :meth:`link_positions`), and how many links left and entered the list since:
        #: a link has moved at most that many places towards the front / the back.
        self._link_at: LinkPlaces | None = None
        self._links_out = 0
        self._links_in = 0
        #: Device ids that came into (True) or left (False) :attr:`devices`, oldest first,
        #: since a reader first asked for a mark (:meth:`device_mark`); None until then,
        #: so a build pays nothing.  The order of :attr:`devices` is what numbers them in
        #: the fabric's tables, and a table kept across an edit is renumbered from this.
        self._device_log: list[tuple[str, bool]] | None = None
        self._device_log_from = 0
        #: Per reader of :meth:`per_rack`: racks whose device list, or a device's name,
        #: changed since it last asked (empty until a reader asks: building costs nothing).
        self._rack_marks: dict[str, set[str]] = {}
        #: Per reader of :meth:`per_rack`: its key and rack id → (rack, value).
        self._per_rack: dict[str, tuple[object, dict[str, tuple[Rack, object]]]] = {}
        #: Per reader of :meth:`per_rack` that keeps totals: the totals over its table.
        self._rack_totals: dict[str, RackTotals] = {}
        for site in design.sites:
            self.add_site(site)
            for row in site.rows:
                self.add_row(site, row)
        for workload in design.workloads:
            self.workloads[workload.id] = workload
        self._unindexed = self._link_list = design.links
        if not design.links:
            self._link_runs = NumberedRuns(*ID_SHAPES["link"])

    # -- the link tables, built on first read -------------------------------------------
    @property
    def links(self) -> MutableMapping[str, Link]:
        """link id → link (a dict, or :class:`HashedShards` when the window's warm-up
        built it in steps)"""
        if self._links is None:
            self._index_links()
        return cast("MutableMapping[str, Link]", self._links)

    @links.setter
    def links(self, table: MutableMapping[str, Link]) -> None:
        """Put ``table`` in place of the built one (a test's spy wraps it)."""
        if self._links is None:
            self._index_links()
        self._links = table

    @property
    def device_links(self) -> defaultdict[str, set[str]]:
        """device id → ids of the links with an end on it"""
        if self._device_links is None:
            if self._links is None:
                self._index_links()
            ends: defaultdict[str, set[str]] = defaultdict(set)
            _fill_ends(ends, self._link_list)
            self._device_links, self._ends = ends, None
        return self._device_links

    def link_tables_in_steps(self, chunk: int) -> Iterator[None]:
        """Build :attr:`links` and :attr:`device_links` ``chunk`` links per step.

        Why: in one go they take 0.15-0.3 s at 100,000 GPUs (a set per device, an id per
        link end), and the window's first check met them in one step, when FABRIC-PORT
        first asked about a suspect device.  The id table is filed in
        :class:`HashedShards` (one dict of millions doubled inside single steps: ~175 ms
        at 1,000,000 GPUs, ~27 ms at 100,000).  Read off the design's list itself (a copy
        was one 35 MB step at 1,000,000 GPUs), given up as soon as the cabling moves, and
        kept only when the cabling did not move meanwhile (every link edit bumps
        :attr:`fabric_version`) and no reader built them first; otherwise the next
        reader builds them as ever."""
        if self._device_links is not None:
            return
        version, source = self.fabric_version, self._link_list
        table: HashedShards[Link] = HashedShards(len(source))
        ends: defaultdict[str, set[str]] = defaultdict(set)
        for start in range(0, len(source), max(1, chunk)):
            yield
            if self.fabric_version != version:
                return  # the list moved: a run read now could skip or repeat links
            run = source[start : start + max(1, chunk)]
            table.add_pairs(map(_LINK_ID, run), run)
            _fill_ends(ends, run)
        if self.fabric_version != version or self._device_links is not None:
            return
        if self._links is None:
            self._unindexed, self._links = None, table
        self._device_links, self._ends = ends, None

    @property
    def links_indexed(self) -> bool:
        """Whether the link tables are built yet (for tests and timings)."""
        return self._links is not None

    def _index_links(self) -> None:
        pending, self._unindexed = self._unindexed or [], None
        self._end_runs()  # the table answers from now on
        self._links = {}
        self._fill_links(pending)

    def _fill_links(self, links: Sequence[Link]) -> None:
        table = self._links
        if isinstance(table, HashedShards):
            table.add_pairs(map(_LINK_ID, links), links)
        else:
            cast("dict[str, Link]", table).update(zip(map(_LINK_ID, links), links, strict=True))
        if self._device_links is not None:
            _fill_ends(self._device_links, links)

    # -- kept in step by the edits ------------------------------------------------------
    def add_site(self, site: Site) -> None:
        self.sites[site.id] = site

    def add_row(self, site: Site, row: Row) -> None:
        self.rows[row.id] = (site, row)
        for rack in row.racks:
            self.add_rack(row, rack)

    def add_rack(self, row: Row, rack: Rack) -> None:
        self.racks[rack.id] = (row, rack)
        self._mark(rack.id)
        if self._unindexed is None and self._links is None and self._first_build():
            # The index being built: nothing to log, count or tell per device (443,000
            # at 1,000,000 GPUs, and a template indexes itself more than once).
            self.devices.update({device.id: (rack, device) for device in rack.devices})
            return
        for device in rack.devices:
            self.add_device(rack, device)

    def _first_build(self) -> bool:
        """Whether :meth:`add_device` would only file each device: no device log, no
        name counts kept yet (and, the caller asks, no link named by a device yet)."""
        return self._device_log is None and self._names is None and self._hosts is None

    def _named_by_links(self, device_id: str) -> bool:
        """Whether a link has an end on ``device_id``; False while the index is first
        built (no figure has been read off it yet, so no change is news)."""
        if self._links is None and self._unindexed is None:
            return False
        if self._device_links is not None:
            return bool(self._device_links.get(device_id))
        if self._ends is None:
            links = self._link_list
            self._ends = set(map(_A_DEVICE, links))
            self._ends.update(map(_B_DEVICE, links))
        return device_id in self._ends

    def add_device(self, rack: Rack, device: Device) -> None:
        if self._device_log is not None and device.id not in self.devices:
            self._log_device(device.id, True)
        self.devices[device.id] = (rack, device)
        self._mark(rack.id)
        if self._named_by_links(device.id):
            # A link already named this id (a file's dangling end): what the cabling
            # means changes with the device's type, so figures cached by cabling go.
            self._bump(("device", device.id))
        if self._names is not None:
            self._names[device.name] += 1
        if self._hosts is not None:
            _count(self._hosts, _host(device.name), 1)

    def drop_device(self, device: Device) -> None:
        if self._named_by_links(device.id):
            self._bump(("device", device.id))  # links naming it now end on nothing
        placed = self.devices.pop(device.id, None)
        if placed is not None:
            self._mark(placed[0].id)
            self.rename_device(device.name, None)
            if self._device_log is not None:
                self._log_device(device.id, False)

    def move_device(self, rack: Rack, device: Device) -> None:
        """``device`` now sits in ``rack`` (moved there, or to another place in the
        rack's list): both racks' device lists changed."""
        placed = self.devices.get(device.id)
        if placed is not None:
            self._mark(placed[0].id)
        elif self._device_log is not None:
            self._log_device(device.id, True)
        self.devices[device.id] = (rack, device)
        self._mark(rack.id)

    def rename_device(self, old: str, new: str | None, device_id: str | None = None) -> None:
        """Keep :attr:`device_names` and :attr:`host_names` in step with a rename
        (``new`` None: a removal); ``device_id`` names the renamed device, whose rack
        :meth:`per_rack` readers then read again."""
        if device_id is not None:
            placed = self.devices.get(device_id)
            if placed is not None:
                self._mark(placed[0].id)
        if self._hosts is not None:
            _count(self._hosts, _host(old), -1)
            if new is not None:
                _count(self._hosts, _host(new), 1)
        if self._names is None:
            return
        self._names[old] -= 1
        if self._names[old] <= 0:
            del self._names[old]
        if new is not None:
            self._names[new] += 1

    @property
    def host_names(self) -> Counter[str]:
        """How many devices' names map to each host name
        (:func:`workbench.text_rules.node_hostname`): a name whose host name only one
        device holds clashes with none, so NODE-HOSTNAME need not walk 30,000 devices
        to say so after a drop at 100,000 GPUs."""
        if self._hosts is None:
            hosts: Counter[str] = Counter()
            for _rack, device in self.devices.values():
                _count(hosts, _host(device.name), 1)
            self._hosts = hosts
        return self._hosts

    @property
    def device_names(self) -> Counter[str]:
        """Every device name with how many devices carry it: what a new name must avoid
        (a drop on a 100,000-GPU design need not read 33,000 names)."""
        if self._names is None:
            self._names = Counter(device.name for _rack, device in self.devices.values())
        return self._names

    def drop_row(self, row: Row) -> None:
        self.rows.pop(row.id, None)
        for rack in row.racks:
            self.drop_rack(rack)

    def drop_rack(self, rack: Rack) -> None:
        self.racks.pop(rack.id, None)
        self._mark(rack.id)
        for device in rack.devices:
            self.drop_device(device)

    def rack_changed(self, rack_id: str) -> None:
        """Say a rack's own fields changed (its cooling, say): :meth:`per_rack` readers
        read it again.  Every write of a rack field on an indexed rack calls this."""
        self._mark(rack_id)

    def _mark(self, rack_id: str) -> None:
        for marks in self._rack_marks.values():
            marks.add(rack_id)

    def per_rack(
        self,
        name: str,
        key: object,
        compute: Callable[[Rack], T],
        totals: Callable[[], RackTotals] | None = None,
    ) -> dict[str, tuple[Rack, T]]:
        """rack id → (rack, ``compute(rack)``) for every rack, kept from call to call under
        ``name``: only racks whose devices came, went, moved or were renamed since the
        last call are computed again, and every rack when ``key`` differs from that
        call's (say, the cabling version the figure also reads).

        For figures summed per rack over every device (the storage clients, the racks'
        IT draw): a GPU node dropped on a 100,000-GPU design then reads one rack, not
        30,000 devices.  ``compute`` must read nothing of a rack but its devices' ids,
        names and types, the rack fields whose writers call :meth:`rack_changed` (its
        cooling), and what ``key`` stands for.  The caller checks each entry's rack is the rack it holds (two
        racks of a damaged file may share an id).

        ``totals`` (a factory) keeps totals over the table's values as well
        (:meth:`rack_totals`): a rebuilt table starts fresh ones, and each rack read
        again takes its old value out and puts its new one in, so a figure summed over
        12,500 GPU nodes is not summed again after a drop."""
        marks = self._rack_marks.get(name)
        self._rack_marks[name] = set()
        kept = self._per_rack.get(name)
        table: dict[str, tuple[Rack, object]]
        kept_totals = self._rack_totals.get(name)
        if (
            marks is None
            or kept is None
            or kept[0] != key
            or (totals is not None and kept_totals is None)
        ):
            table = {rack_id: (rack, compute(rack)) for rack_id, (_row, rack) in self.racks.items()}
            if totals is not None:
                kept_totals = self._rack_totals[name] = totals()
                for _rack, value in table.values():
                    kept_totals.add(value)
        else:
            table = kept[1]
            for rack_id in marks:
                placed = self.racks.get(rack_id)
                old = table.pop(rack_id, None)
                if kept_totals is not None and old is not None:
                    kept_totals.remove(old[1])
                if placed is not None:
                    value = compute(placed[1])
                    table[rack_id] = (placed[1], value)
                    if kept_totals is not None:
                        kept_totals.add(value)
        self._per_rack[name] = (key, table)
        return cast("dict[str, tuple[Rack, T]]", table)

    def per_rack_in_steps(
        self,
        name: str,
        key: object,
        compute: Callable[[Rack], T],
        totals: Callable[[], RackTotals] | None,
        chunk: int,
    ) -> Iterator[None]:
        """The full read :meth:`per_rack` would make of every rack (nothing when it
        would read only marked racks), ``chunk`` racks per step, kept for its next call.

        Why: the storage clients of a 100,000-GPU design's 3,500 racks took one step of
        ~25 ms in the window's first check.  The marks start afresh before the first
        step, so a rack an edit touches meanwhile is read again by that next call (a
        rack gone is dropped then, a rack new is read then); if another caller read the
        table meanwhile, what the steps read is dropped."""
        marks = self._rack_marks.get(name)
        kept = self._per_rack.get(name)
        if not (
            marks is None
            or kept is None
            or kept[0] != key
            or (totals is not None and self._rack_totals.get(name) is None)
        ):
            return
        self._rack_marks[name] = set()
        racks = [rack for _row, rack in self.racks.values()]
        table: dict[str, tuple[Rack, object]] = {}
        for start in range(0, len(racks), max(1, chunk)):
            yield
            for rack in racks[start : start + max(1, chunk)]:
                table[rack.id] = (rack, compute(rack))
        if self._per_rack.get(name) is not kept:
            return
        if totals is not None:
            kept_totals = self._rack_totals[name] = totals()
            for _rack, value in table.values():
                kept_totals.add(value)
        self._per_rack[name] = (key, table)

    def rack_totals(self, name: str) -> RackTotals | None:
        """The totals :meth:`per_rack` keeps under ``name`` (None before it is asked
        with a ``totals`` factory), current as of its last call."""
        return self._rack_totals.get(name)

    def racks_unique(self, design_sites: Iterable[Site]) -> bool:
        """Whether every rack of the design is indexed under its own id (no two racks of
        a damaged file share one): then :meth:`per_rack`'s table holds every rack, and
        its totals are the design's.  Counts rows' racks, not racks' devices."""
        return sum(len(row.racks) for site in design_sites for row in site.rows) == len(self.racks)

    def touch_fabric(self) -> None:
        """Say the cabling changed (see :attr:`fabric_version`) in a way no reader can
        replay (a network's plane, a catalog item's ports, a link's fields)."""
        self._bump(None)

    def touch_types(self) -> None:
        """Say a catalog item of the snapshot came, went or was replaced: what the
        cabling means changes (ports, speeds), and so may every figure read off items."""
        self.types_version += 1
        self._bump(None)

    def _bump(self, change: FabricChange | None) -> None:
        self.fabric_version += 1
        log = self._fabric_log
        log.append(change)
        if len(log) > _LOG_LENGTH:
            del log[: len(log) - _LOG_LENGTH]
            self._log_from = self.fabric_version - len(log)

    def fabric_changes(self, since: int) -> list[FabricChange] | None:
        """What changed the cabling after :attr:`fabric_version` ``since``, in order:
        ``("add", links)`` (put into the design's list), ``("drop", link)`` (taken
        out), ``("device", id)`` (a device came or went while links named it).  None
        when some change cannot be replayed (:meth:`touch_fabric`, a large add) or is
        no longer logged: the reader computes afresh.

        Why: a cabling edit at 100,000 GPUs touches a few links of 443,000, and the
        figures read off every link (the planes' structures, the compute plane's link
        arrays) can be brought up to date from the links it touched."""
        if since < self._log_from or since > self.fabric_version:
            return None
        found = self._fabric_log[since - self._log_from :]
        if any(change is None for change in found):
            return None
        return cast("list[FabricChange]", found)

    def by_cabling(self, name: str, compute: Callable[[], T]) -> T:
        """``compute()`` once per :attr:`fabric_version` under ``name``: figures read
        off the links alone (each link's plane, each host's storage-plane Gb/s) are
        then computed once per cabling edit, not once per device drop or rename."""
        key = self.fabric_version
        cached = self.fabric_cache.get(name)
        if cached is not None and cached[0] == key:
            return cast(T, cached[1])
        found = compute()
        self.fabric_cache[name] = (key, found)
        return found

    def add_link(self, link: Link) -> None:
        self.add_links((link,))

    def add_links(
        self,
        links: Iterable[Link],
        ids: list[str] | None = None,
        ends: Collection[str] | None = None,
    ) -> None:
        """Index many links at once (a generated fabric adds 300,000 in one edit); the
        caller has put them in the design's list already, so while the link tables are
        not built there is nothing to do but say the cabling changed (and keep the
        link id runs, see :meth:`_link_runs_now`).  ``ids``: the links' ids, and
        ``ends``: every device id they end on, when the caller has them already (a few
        hundred thousand devices to take in rather than both ends of millions of links).
        """
        links = links if isinstance(links, (list, tuple)) else list(links)
        if self._links is None and self._link_runs is not None:
            self._take_in_runs(links, ids)
        self._bump(("add", tuple(links)) if len(links) <= _LOGGED_LINKS else None)
        if self._link_at is not None:
            self._links_in += len(links)
        if self._ends is not None and ends is not None:
            self._ends.update(ends)
        elif self._ends is not None:
            self._ends.update(map(_A_DEVICE, links))
            self._ends.update(map(_B_DEVICE, links))
        if self._links is not None:
            self._fill_links(links)

    def drop_link(self, link: Link) -> None:
        self._bump(("drop", link))
        self._links_out += 1
        self._ends = None  # another link may end on its devices: made again if asked
        if self._links is None:
            self._end_runs()  # the runs hold its id no more: the table decides
            return  # taken out of the design's list already: never indexed
        self.links.pop(link.id, None)
        if self._device_links is None:
            return  # made from the design's list when first asked for
        for end in (link.a_device, link.b_device):
            ids = self._device_links.get(end)
            if ids is not None:
                ids.discard(link.id)
                if not ids:
                    del self._device_links[end]

    def names_in_steps(self, chunk: int, unmoved: Callable[[], bool]) -> Iterator[None]:
        """Count :attr:`device_names` and :attr:`host_names` ``chunk`` devices per step
        (the window's warm-up: in one go they were ~0.1 s of the first removal or drop
        at 100,000 GPUs).  Kept only while ``unmoved()`` says no edit came meanwhile."""
        if self._names is not None and self._hosts is not None:
            return
        devices = [device for _rack, device in self.devices.values()]
        names: Counter[str] = Counter()
        hosts: Counter[str] = Counter()
        for start in range(0, len(devices), max(1, chunk)):
            yield
            if not unmoved():
                return
            run = [device.name for device in devices[start : start + max(1, chunk)]]
            try:
                names.update(run)
                for name in run:
                    _count(hosts, _host(name), 1)
            except TypeError:
                # A name that is no text (a list, from a script or a stranger's file)
                # cannot be counted: the warm-up leaves the counts to be built on use,
                # where the reader of them meets the same name as before.
                return
        if unmoved():
            self._names = self._names if self._names is not None else names
            self._hosts = self._hosts if self._hosts is not None else hosts

    # -- questions ----------------------------------------------------------------------
    def kind_of(self, object_id: str) -> str | None:
        """``"device"``, ``"rack"``, ``"row"``, ``"site"``, ``"link"``, ``"workload"`` or None."""
        for kind, table in (
            ("device", self.devices),
            ("rack", self.racks),
            ("row", self.rows),
            ("site", self.sites),
            ("link", self.links),
            ("workload", self.workloads),
        ):
            if object_id in table:
                return kind
        return None

    def rack_of(self, object_id: str) -> Rack | None:
        """The rack that is ``object_id`` or holds the device ``object_id``."""
        found = self.devices.get(object_id)
        if found is not None:
            return found[0]
        placed = self.racks.get(object_id)
        return placed[1] if placed is not None else None

    def row_of_rack(self, rack_id: str) -> Row | None:
        placed = self.racks.get(rack_id)
        return placed[0] if placed is not None else None

    def site_of_row(self, row_id: str) -> Site | None:
        placed = self.rows.get(row_id)
        return placed[0] if placed is not None else None

    def links_named(self, link_ids: Iterable[str]) -> list[Link]:
        """The links of ``link_ids``, in that order (KeyError for an id not indexed),
        looked up without a Python call per link where the table allows: FABRIC-PORT
        reads eight leaf switches' 289 links each when a node is put back at 100,000
        GPUs, each a :class:`HashedShards` method call when the warm-up built the table."""
        table = self.links
        if isinstance(table, HashedShards):
            return table.values_of(link_ids)
        return list(map(table.__getitem__, link_ids))

    def links_of(self, device_id: str) -> set[str]:
        """Ids of the links with an end on ``device_id`` (empty when none)."""
        return set(self.device_links.get(device_id, ()))

    def id_tables(self) -> tuple[Mapping[str, object], ...]:
        """Every table of objects by id (an id names one object of any kind)."""
        return (self.links, self.devices, self.racks, self.rows, self.sites, self.workloads)


#: Cabling changes :meth:`DesignIndex.fabric_changes` remembers, and the most links one
#: logged add may hold (a generated fabric's 300,000 are recomputed, not replayed).
_LOG_LENGTH = 256
_LOGGED_LINKS = 4096

#: One logged cabling change (see :meth:`DesignIndex.fabric_changes`).
FabricChange = tuple[str, object]


def _host(name: object) -> str | None:
    """The host name a device name maps to; None for one that is not text (a damaged
    file's): the index must take any device, the rules say what is wrong with it."""
    return node_hostname(name) if isinstance(name, str) else None


def _count(counter: Counter[str], key: str | None, delta: int) -> None:
    """Add ``delta`` to ``counter[key]`` (nothing for None), dropping keys at zero."""
    if key is None:
        return
    counter[key] += delta
    if counter[key] <= 0:
        del counter[key]


def index_problems(design: Design) -> list[str]:
    """Where ``design``'s index disagrees with a fresh one (for tests; empty when right)."""
    current = design.index
    fresh = DesignIndex(design)
    problems = []
    for name in ("sites", "rows", "racks", "devices", "links", "workloads"):
        have, want = getattr(current, name), getattr(fresh, name)
        if have.keys() != want.keys():
            extra, missing = sorted(have.keys() - want.keys()), sorted(want.keys() - have.keys())
            problems.append(f"{name}: extra {extra[:5]}, missing {missing[:5]}")
            continue
        for key, value in want.items():
            mine = have[key]
            pairs = zip(mine, value, strict=True) if isinstance(value, tuple) else [(mine, value)]
            if any(a is not b for a, b in pairs):
                problems.append(f"{name}: {key!r} points at a stale object")
    if current._names is not None and +current._names != fresh.device_names:
        problems.append("device_names differ")
    if current._hosts is not None and +current._hosts != fresh.host_names:
        problems.append("host_names differ")
    have_links = {k: v for k, v in current.device_links.items() if v}
    if have_links != dict(fresh.device_links):
        problems.append("device_links differ")
    return problems
