"""The planes' structures brought up to date from the links an edit touched.

:func:`workbench.calc.fabric.planes.plane_structures` reads all ~443,000 links of a
100,000-GPU design (~0.18 s); removing a cabled GPU node touches a dozen of them.  The
index logs what each cabling edit did (:meth:`DesignIndex.fabric_changes`), and
:func:`replayed` applies that to the kept structures: each touched link taken out of,
or put into, its plane's lists at the place the design's order gives it, the hosts
of the touched devices decided again, and the leaves put back in the order a full pass
would name them.

The answer must equal a full pass exactly (lists in the design's link order, the
switches' tiers in the same order with the same values): where an edit could change
more than this replays (a switch-to-switch link, a switch that stops or starts being a
leaf, a device that comes or goes while links name it), :func:`replayed` answers None
and the caller reads every link again.

The lists are edited in place (a dozen links out of or into a list of 300,000: a
memmove), not copied: a copy of the compute plane's lists touched each of its 300,000
links twice (a reference taken, then dropped with the old list) and gave the cyclic
collector a new 300,000-item list to walk, ~20 ms of every cabled node removed or put
back at 100,000 GPUs.  A reader that holds a structure across events while the design
may be edited (a step generator) says so with :func:`held`; a held structure is left
as it is and the replay makes a new one beside it, as it always did.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import count
from typing import cast

import numpy as np

from workbench.calc.fabric.planes import (
    PlaneStructure,
    host_port_names,
    link_plane,
    network_planes,
)
from workbench.calc.fabric.tables import spliced, spliced_in_room
from workbench.calc.steps import drain
from workbench.model.design import Design, Link
from workbench.model.index import FabricChange

#: Numbers the structures a replay made, so a reader keeping per-link arrays of one
#: structure can tell it is the base of the next (see :class:`Replay`).
_serials = count(1)


@dataclass(frozen=True)
class Replay:
    """How a plane's ``links`` list changed from the structure ``base`` (its serial)
    to this one: the places taken out (in ``base.links``, ascending) and the places
    the new links stand (in the new list, ascending)."""

    base: int
    removed: tuple[int, ...]
    inserted: tuple[int, ...]


@dataclass
class _Kept:
    """What a replay keeps beside a structure: the object ids of its ``links`` (numpy,
    to find a link without comparing 300,000 of them; under ``"links"``), each leaf's
    first host link (what orders the leaves), the leaves in their order, and per row
    of ``links`` whether the link is a host link (every other one is a switch link).

    Why ``host_row``: a link's place in ``host_links`` is the count of host rows before
    its place in ``links`` (both lists keep the design's order), and whether a link
    taken out was a switch link is its row; looking the removed links up among the
    ids of the other two lists too was two more passes per removed link over 300,000
    ids at 100,000 GPUs, and a put-back link's second binary search."""

    ids: dict[str, np.ndarray]
    first: dict[str, Link]
    leaves: list[str]
    host_row: np.ndarray


#: No places (a list no link was taken out of).
_NONE = np.zeros(0, dtype=np.int64)


def kept_of(structure: PlaneStructure) -> _Kept:
    """The :class:`_Kept` of ``structure``, made on first ask (one pass over its
    lists, ~20 ms at 100,000 GPUs; the window makes it in steps after opening a design,
    :func:`kept_in_steps`, so the first cabling edit does not pay it)."""
    kept = structure.__dict__.get("_kept")
    if kept is None:
        kept = structure.__dict__["_kept"] = drain(_kept_steps(structure, None))
    return kept


def kept_in_steps(design: Design, chunk: int) -> Iterator[None]:
    """The :class:`_Kept` of every plane structure kept for the current cabling, made
    ``chunk`` links per step (the window's warm-up after opening a design).  A structure
    is only given what was read while the cabling stood still: a replay in between
    edits the lists in place, and a half-read list would name the wrong links."""
    index = design.index
    version = index.fabric_version
    cached = index.fabric_cache.get("plane_structures")
    if cached is None or cached[0] != version:
        return
    for structure in cast(dict[str, PlaneStructure], cached[1]).values():
        if "_kept" in structure.__dict__:
            continue
        steps = _kept_steps(structure, chunk)
        while True:
            try:
                next(steps)
            except StopIteration as done:
                if index.fabric_version == version and "_kept" not in structure.__dict__:
                    structure.__dict__["_kept"] = done.value
                break
            yield
            if index.fabric_version != version:
                return


def _kept_steps(structure: PlaneStructure, chunk: int | None) -> Generator[None, None, _Kept]:
    """Make ``structure``'s :class:`_Kept`, yielding after every ``chunk`` links (None:
    in one go)."""
    items: list[Link] = structure.links
    if chunk is None:
        ids = {"links": np.fromiter(map(id, items), dtype=np.int64, count=len(items))}
    else:
        parts = [np.zeros(0, dtype=np.int64)]
        for start in range(0, len(items), chunk):
            yield
            parts.append(np.fromiter(map(id, items[start : start + chunk]), dtype=np.int64))
        ids = {"links": np.concatenate(parts)}
    host_row = yield from _host_rows(structure, chunk)
    order = [s for s, tier in structure.tiers.items() if tier == 1]
    leaves = set(order)
    first: dict[str, Link] = {}
    links = structure.host_links
    step = chunk or max(1, len(links))
    for start in range(0, len(links), step):
        if chunk is not None:
            yield
        for link in links[start : start + step] if chunk is not None else links:
            a, b = link.a_device, link.b_device
            if a in leaves and a not in first:
                first[a] = link
            if b in leaves and b not in first:
                first[b] = link
    return _Kept(ids, first, order, host_row)


def _host_rows(structure: PlaneStructure, chunk: int | None) -> Generator[None, None, np.ndarray]:
    """Per row of ``structure.links``: whether it is a host link.  ``host_links`` is
    the subsequence of ``links`` that are (in the same order), so one walk of both
    marks them, yielding after every ``chunk`` links (None: in one go)."""
    links, host_links = structure.links, structure.host_links
    rows = np.zeros(len(links), dtype=bool)
    step = chunk or max(1, len(links))
    h, hosts = 0, len(host_links)
    for start in range(0, len(links), step):
        if chunk is not None:
            yield
        marked = []
        for k, link in enumerate(links[start : start + step], start):
            if h < hosts and host_links[h] is link:
                marked.append(k)
                h += 1
        rows[marked] = True
    return rows


def _host_places(host_row: np.ndarray, places: list[int]) -> list[int]:
    """The places in ``host_links`` of the host rows among ``places`` (ascending places
    in ``links``): each the count of host rows before it."""
    out: list[int] = []
    before = start = 0
    for place in places:
        before += int(np.count_nonzero(host_row[start:place]))
        start = place
        if host_row[place]:
            out.append(before)
    return out


def serial_of(structure: PlaneStructure) -> int:
    """A number for ``structure``, given on first ask: what a reader keeping per-link
    arrays of it records, to know the arrays' base when :func:`replay_of` names it."""
    return cast(int, structure.__dict__.setdefault("_serial", next(_serials)))


@contextmanager
def held(structure: PlaneStructure) -> Iterator[PlaneStructure]:
    """``structure``, left as it is by every replay while the block runs: a replay then
    makes a new structure beside it (copying the lists it changes) instead of editing
    its lists in place.  For readers that hold a structure across events the design may
    be edited between (a step generator): they read what they started on to its end."""
    kept = structure.__dict__
    kept["_holds"] = kept.get("_holds", 0) + 1
    try:
        yield structure
    finally:
        kept["_holds"] -= 1


def replay_of(structure: PlaneStructure) -> Replay | None:
    """How a replay made ``structure`` from its base (None: a full pass made it)."""
    return cast("Replay | None", structure.__dict__.get("_replay"))


class HostEnds:
    """Whether a link end is a plane's end point, as the full pass decides it
    (:func:`~workbench.calc.fabric.planes.host_port_names`), per slug once."""

    def __init__(self, design: Design):
        self.design = design
        self.by_slug: dict[str, frozenset[str] | None] = {}

    def names(self, device_id: str) -> frozenset[str] | None:
        """None for a host item (every port a host end), else the management-only port
        names that are (empty for a plain switch, or a device the design lacks)."""
        found = self.design.index.devices.get(device_id)
        if found is None:
            return frozenset()
        return self._names(found[1].device_type)

    def host(self, device_id: str, port: str) -> bool:
        found = self.design.index.devices.get(device_id)
        if found is None:
            return False
        names = self._names(found[1].device_type)
        return names is None or port in names

    def _names(self, slug: str) -> frozenset[str] | None:
        if slug not in self.by_slug:
            self.by_slug[slug] = host_port_names(self.design.device_types.get(slug))
        return self.by_slug[slug]


def replayed(
    design: Design, old: dict[str, PlaneStructure], changes: Sequence[FabricChange]
) -> dict[str, PlaneStructure] | None:
    """``old`` (every plane's structure, as of the version ``changes`` start from)
    brought up to date, or None when the changes are more than a replay follows.

    A structure no reader holds (:func:`held`) is brought up to date in place, so after
    None some of ``old`` may be half done: the caller must drop them (see
    :func:`workbench.calc.fabric.planes.plane_structures`)."""
    touched: dict[int, Link] = {}
    dropped: list[Link] = []
    for kind, what in changes:
        if kind == "add":
            for link in what:  # type: ignore[attr-defined]
                touched[id(link)] = link
        elif kind == "drop":
            touched[id(what)] = what  # type: ignore[assignment]
            dropped.append(what)  # type: ignore[arg-type]
        else:
            return None
    if not touched:
        return dict(old)
    index = design.index
    current = index.links
    by_network = network_planes(design)
    ends = HostEnds(design)
    planes: dict[str, list[Link]] = {}  # plane → touched links now in the design
    for link in touched.values():
        if current.get(link.id) is link:
            plane = plane_of(design, link, by_network)
            if plane in old:
                planes.setdefault(plane, []).append(link)
    out = dict(old)
    # Only a link some change took out can be in the kept lists (one only put in was
    # not in the design then), and one on a network only in its network's plane: a
    # node put back reads none of the 300,000 ids, a removal each plane's own.
    wanted: dict[str | None, list[int]] = {}
    for link in dropped:
        plane = by_network.get(link.network) if link.network in by_network else None
        wanted.setdefault(plane, []).append(id(link))
    anywhere = wanted.get(None, [])
    for plane, structure in old.items():
        kept = kept_of(structure)
        mine = wanted.get(plane, []) + anywhere
        gone = _rows_of(kept.ids["links"], mine) if mine else _NONE
        new = planes.get(plane, [])
        if len(gone) == 0 and not new:
            continue
        found = _replay_plane(design, structure, kept, gone, new, ends, by_network)
        if found is None:
            return None
        out[plane] = found
    return out


def _rows_of(ids: np.ndarray, wanted: list[int]) -> np.ndarray:
    """The rows of ``ids`` (each id once in it) holding one of ``wanted`` (some may be
    in no row), ascending: ``np.flatnonzero(np.isin(ids, wanted))``.  A row next after
    the one found before is tried first, then the whole column is read.  Why: a removed
    node's eight compute links stand together in the plane's list, and ``isin`` read
    the 300,000 ids once per link (~0.8 ms at 100,000 GPUs); this reads them once."""
    rows: list[int] = []
    after = -1
    size = len(ids)
    for wanted_id in dict.fromkeys(wanted):
        if 0 <= after + 1 < size and ids[after + 1] == wanted_id:
            after += 1
        else:
            hits = np.flatnonzero(ids == wanted_id)
            if not len(hits):
                continue
            after = int(hits[0])
        rows.append(after)
    return np.array(sorted(rows), dtype=np.int64)


def plane_of(design: Design, link: Link, by_network: dict[str, str]) -> str | None:
    """The plane the full pass files ``link`` under."""
    if link.network in by_network:
        return by_network[link.network]
    return link_plane(design, link, by_network)


def _replay_plane(
    design: Design,
    structure: PlaneStructure,
    kept: _Kept,
    gone: np.ndarray,
    new: list[Link],
    ends: HostEnds,
    by_network: dict[str, str],
) -> PlaneStructure | None:
    """``structure`` with the links at ``gone`` taken out and ``new`` put in: itself,
    edited in place, unless a reader holds it (:func:`held`), then a new structure.
    The hosts and leaves are decided before any list is touched, so a None for them
    leaves ``structure`` as it was."""
    index = design.index
    old_links = structure.links
    gone_places = gone.tolist()
    removed = [old_links[i] for i in gone_places]
    removed_ids = [id(link) for link in removed]
    if gone_places and not kept.host_row[gone].all():
        return None  # a switch-to-switch link went: tiers may move
    for link in new:
        if not (ends.host(link.a_device, link.a_port) or ends.host(link.b_device, link.b_port)):
            return None  # a switch-to-switch link came
    positions = index.link_positions(design.links, new) if new else []
    if positions is None:
        return None
    in_place = not structure.__dict__.get("_holds")
    gone_rows = dict(zip(removed_ids, gone_places, strict=True))
    parts = _replayed_parts(
        design, structure, kept, gone_rows, removed, new, ends, by_network, in_place
    )
    if parts is None:
        return None
    hosts, tiers, first, leaves = parts
    # The lists, without the links that went (kept in order) ...
    lists: dict[str, list[Link]] = {}
    drops = {"links": gone_places, "host_links": _host_places(kept.host_row, gone_places)}
    for name, drop in drops.items():
        target = getattr(structure, name)
        if in_place:
            _delete_runs(target, drop)
        else:
            target = _without(target, drop)
        lists[name] = target
    # ... and with the new ones (host links all) at the places the design's order gives
    # them: in ``links`` by a binary search, in ``host_links`` after the host rows before.
    order = sorted(zip(positions, new, strict=True), key=lambda pair: pair[0])
    came = [link for _at, link in order]
    # Each new link's place among the links there now (ascending, as the design's
    # order is); the k-th new link then stands at its place + k.
    spots: list[int] = []
    for at, _link in order:
        spot = _place(design, lists["links"], at, spots[-1] if spots else 0)
        if spot is None:
            return None
        spots.append(spot)
    inserted = [spot + k for k, spot in enumerate(spots)]
    # The kept columns, rows out and in at once: over their own buffers when the lists
    # were edited in place (the old _Kept goes with them), else copied for the holder.
    splice = spliced_in_room if in_place else spliced
    link_ids = splice(kept.ids["links"], gone, spots, [id(link) for link in came])
    host_row = splice(kept.host_row, gone, spots, [True] * len(came))
    if inserted:
        _insert_runs(lists["links"], spots, came)
        host_spots = [p - k for k, p in enumerate(_host_places(host_row, inserted))]
        _insert_runs(lists["host_links"], host_spots, came)
    ids = {"links": link_ids}
    base = serial_of(structure)
    if in_place:
        found = structure
        found.tiers = tiers
        found.__dict__["_serial"] = next(_serials)
    else:
        found = PlaneStructure(
            structure.plane,
            lists["links"],
            hosts,
            tiers,
            lists["host_links"],
            structure.switch_links,
        )
    found.__dict__["_kept"] = _Kept(ids, first, leaves, host_row)
    found.__dict__["_replay"] = Replay(base, tuple(gone.tolist()), tuple(inserted))
    return found


def _without(items: list[Link], places: list[int]) -> list[Link]:
    """A copy of ``items`` without the items at ``places`` (ascending)."""
    out = list(items)
    _delete_runs(out, places)
    return out


def _delete_runs(items: list[Link], places: list[int]) -> None:
    """Take the items at ``places`` (ascending) out of ``items``, each run of adjacent
    places as one slice, from the last.  Why: each deletion from a 300,000-link list
    moves the links after it, and a removed node's eight compute links, which stand
    together, were taken out one by one (eight moves of ~2.4 MB at 100,000 GPUs)."""
    end = len(places)
    while end:
        start = end - 1
        while start and places[start - 1] == places[start] - 1:
            start -= 1
        del items[places[start] : places[end - 1] + 1]
        end = start


def _replayed_parts(
    design: Design,
    structure: PlaneStructure,
    kept: _Kept,
    gone_ids: dict[int, int],
    removed: list[Link],
    new: list[Link],
    ends: HostEnds,
    by_network: dict[str, str],
    in_place: bool,
) -> tuple[set[str], dict[str, int], dict[str, Link], list[str]] | None:
    """The touched devices' parts: host of the plane, leaf of it, and a leaf's first
    host link; the plane's hosts (``structure.hosts`` itself when ``in_place``), tiers
    and each leaf's first host link after the edit, or None when a switch became or
    stopped being a leaf.  ``gone_ids``: the removed links' ids, each with its row in
    the structure's ``links``.  Reads the design, and the structure's lists (as they
    were before the edit) only after a leaf's first host link that went."""
    index = design.index
    devices: set[str] = set()
    for link in (*removed, *new):
        devices.update((link.a_device, link.b_device))
    first = kept.first.copy()
    moved: set[str] = set()
    tiers = structure.tiers
    decided: dict[str, bool] = {}
    # Devices whose management-only port a touched link holds: their being a host of
    # the plane is read again; every other switch keeps what it was.
    on_mgmt = {
        device
        for link in (*removed, *new)
        for device, port in ((link.a_device, link.a_port), (link.b_device, link.b_port))
        if port in (ends.names(device) or ())
    }
    table = index.links
    for device in devices:
        was_leaf = tiers.get(device) == 1
        head = first.get(device)
        # A leaf whose first host link went: the next of its host links still in the
        # list; every host link of it when none is near (else the first that decides).
        every = was_leaf and (head is None or id(head) in gone_ids)
        after = None
        if every and head is not None:
            after = _next_host_link(
                structure.links, kept.host_row, gone_ids[id(head)], device, gone_ids
            )
            every = after is None
        names = ends.names(device)
        kept_host = names is not None and device not in on_mgmt
        is_host = kept_host and device in structure.hosts and device in index.devices
        is_leaf = False
        mine = []
        for link_id in index.device_links.get(device, ()):
            link = table[link_id]
            if plane_of(design, link, by_network) != structure.plane:
                continue
            a_host = ends.host(link.a_device, link.a_port)
            b_host = ends.host(link.b_device, link.b_port)
            if not (a_host or b_host):
                continue
            mine.append(link)
            if link.a_device == device:
                is_host = is_host or a_host
                is_leaf = is_leaf or (b_host and not a_host)
            if link.b_device == device:
                is_host = is_host or b_host
                is_leaf = is_leaf or (a_host and not b_host)
            # A host item's end is always a host (never a leaf); a switch whose host part
            # stands is a leaf once one host link names it: one such link decides.
            if not every and ((names is None and is_host) or (kept_host and is_leaf)):
                break
        if is_leaf != was_leaf:
            return None  # a switch became or stopped being a leaf: tiers may move
        decided[device] = is_host
        if is_leaf:
            if every:
                candidates = mine
            else:
                candidates = [after if after is not None else cast(Link, head)]
                candidates += (link for link in new if device in (link.a_device, link.b_device))
            spots = index.link_positions(design.links, candidates)
            if spots is None:
                return None
            head = min(zip(spots, candidates, strict=True), key=lambda pair: pair[0])[1]
            # A head taken out and put back (an undo out of order) may stand elsewhere
            # in the design now: the same link, but the leaf's place must be read again.
            if first.get(device) is not head or id(head) in gone_ids:
                first[device] = head
                moved.add(device)
    leaves = kept.leaves
    if moved:
        reordered = _reordered(design, structure.tiers, first, moved, leaves)
        if reordered is None:
            return None
        tiers, leaves = reordered
    hosts = structure.hosts if in_place else set(structure.hosts)
    for device, is_host in decided.items():
        if is_host:
            hosts.add(device)
        else:
            hosts.discard(device)
    return hosts, tiers, first, leaves


#: Rows :func:`_next_host_link` reads before it gives up (a leaf's host links farther
#: apart are all read again instead).
HEAD_SCAN = 2048


def _next_host_link(
    links: list[Link], host_row: np.ndarray, row: int, device: str, gone: dict[int, int]
) -> Link | None:
    """The first host link of ``device`` after ``row`` in ``links`` (a plane's list as
    it was before the edit, in the design's order) that the edit did not take out
    (``gone``), within :data:`HEAD_SCAN` rows; None when there is none that near.

    Why: a leaf whose first host link went (its first node removed) has as its new
    first the earliest of its host links left and those the edit brought; the ones
    left stand after the old first (none before it named the leaf), most often a
    few rows on (the next node's link to it), where reading every host link of the
    leaf and the design's place of each took ~1 ms of the removal at 100,000 GPUs."""
    for at in range(row + 1, min(len(links), row + 1 + HEAD_SCAN)):
        link = links[at]
        if (
            (link.a_device == device or link.b_device == device)
            and id(link) not in gone
            and host_row[at]
        ):
            return link
    return None


def _place(design: Design, target: list[Link], at: int, low: int = 0) -> int | None:
    """Where a link standing at ``at`` in the design's list goes in ``target`` (a list
    in the design's order, every link of it in the design): after the links before it,
    at ``low`` or later.  A binary search, each probe's place read from the index (a
    few steps each), after a first probe at ``low``: a node's links stand together in
    the design, so the next of them most often goes where the one before it went."""
    index, links = design.index, design.links
    high = len(target)
    if low < high:
        found = index.link_positions(links, [target[low]])
        if found is None:
            return None
        if at < found[0]:
            return low
        low += 1
    while low < high:
        middle = (low + high) // 2
        found = index.link_positions(links, [target[middle]])
        if found is None:
            return None
        if at < found[0]:
            high = middle
        else:
            low = middle + 1
    return low


def _insert_runs(target: list[Link], spots: list[int], items: list[Link]) -> None:
    """Put ``items`` into ``target`` at ``spots`` (places in ``target`` as it stands,
    ascending): the items of one spot go in as one slice.  Why: each insert into a
    300,000-link list moves the links after it, and a node put back at 100,000 GPUs
    put its links in one by one (~1.4 ms)."""
    offset = start = 0
    while start < len(items):
        end = start + 1
        while end < len(items) and spots[end] == spots[start]:
            end += 1
        place = spots[start] + offset
        target[place:place] = items[start:end]
        offset += end - start
        start = end


def _reordered(
    design: Design,
    tiers: dict[str, int],
    first: dict[str, Link],
    moved: set[str],
    leaves: list[str],
) -> tuple[dict[str, int], list[str]] | None:
    """``tiers`` with the leaves in the order of their first host link (the link's
    ``a`` end before its ``b`` end), then the other switches as they were, and the
    leaves in that order (``leaves``: in ``tiers``' order).  Only the ``moved`` leaves'
    first links changed: the others keep their order, and each moved one is put among
    them by a binary search (a few places read, not 2,000).  ``tiers`` itself when one
    leaf moved and still sorts between its neighbours (its first node removed, the
    next one now first): the common case, which then copies no dict."""
    index, links = design.index, design.links
    keys: dict[str, tuple[int, int]] = {}

    def key(leaf: str) -> tuple[int, int] | None:
        found = keys.get(leaf)
        if found is None:
            head = first[leaf]
            places = index.link_positions(links, [head])
            if places is None:
                return None
            found = keys[leaf] = (places[0], 0 if head.a_device == leaf else 1)
        return found

    if len(moved) == 1:
        (leaf,) = moved
        at = leaves.index(leaf)
        mine = key(leaf)
        found = [key(leaves[i]) for i in (at - 1, at + 1) if 0 <= i < len(leaves)]
        if mine is None or None in found:
            return None
        if (at == 0 or cast(tuple[int, int], found[0]) < mine) and (
            at + 1 == len(leaves) or mine < cast(tuple[int, int], found[-1])
        ):
            return tiers, leaves
    order = [s for s in leaves if s not in moved]
    for leaf in moved:
        mine = key(leaf)
        if mine is None:
            return None
        low, high = 0, len(order)
        while low < high:
            middle = (low + high) // 2
            theirs = key(order[middle])
            if theirs is None:
                return None
            if mine < theirs:
                high = middle
            else:
                low = middle + 1
        order.insert(low, leaf)
    out = dict.fromkeys(order, 1)
    out.update((s, tier) for s, tier in tiers.items() if tier != 1)
    return out, order
