"""Captured links against the design's links: one verdict per design link, plus the
captured links the design does not have.

Verdicts (:data:`VERDICTS`):

* ``correct``: a capture connects exactly the designed ends (a host end whose port the
  capture could not name, see :mod:`workbench.asbuilt.mapping`, counts by its device),
  at the designed speed or at a speed the capture does not report;
* ``wrong-speed``: the right ends at another speed or width (``2xNDR`` where ``4xNDR``
  was planned, a 400G port negotiated to 100G);
* ``swapped``: two links whose cables are crossed: each end sits on the right device,
  but the ports of the two links are exchanged on one side (``A1–B2`` and ``A2–B1``
  captured where ``A1–B1`` and ``A2–B2`` are designed);
* ``wrong-port``: a designed end holds a cable that goes somewhere else (another port
  of the right device, or another device), not explained by a swap;
* ``missing``: nothing was captured at either end although a capture covers one of the
  devices (an ibnetdiscover run covers every node it lists; an LLDP capture the device
  it was taken on);
* ``unchecked``: no capture covers either device (the plane was not captured yet);
  never a discrepancy, but shown, so "all correct" means what it says;
* ``unexpected``: a captured link that touches no designed end (a cable to a port the
  design leaves free, a device the design does not have).

Everything is indexed by ``(device id, port)``, and only for the links at a device some
capture names; one pass over the captures, and the links no capture touches (most of
them) get their missing/unchecked verdict in bulk (:mod:`workbench.asbuilt.bulk`), so
only the links a capture touches are looked at one by one.  100,000 captured links
against a 100,000-GPU design (443,216 links) take about 1.5 s
(``tests/benchmarks/bench_asbuilt.py``; 2.5-2.9 s before the bulk pass).
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from operator import attrgetter
from typing import NamedTuple, TypeVar

import numpy as np

from workbench.asbuilt import bulk
from workbench.asbuilt.mapping import (
    UNKNOWN,
    DeviceNames,
    PortMap,
    ib_port_names,
    ib_port_number,
    ib_split_ways,
    pick,
)
from workbench.model.captures import CapturedLink
from workbench.model.design import Design, Link
from workbench.model.ports import link_speed
from workbench.progress import Progress

VERDICTS: tuple[str, ...] = ("correct", "wrong-speed", "swapped", "wrong-port", "missing",
                             "unexpected", "unchecked")  # fmt: skip
#: The verdicts that make ``workbench asbuilt`` exit 1.
DISCREPANCIES: frozenset[str] = frozenset(
    {"wrong-speed", "swapped", "wrong-port", "missing", "unexpected"}
)

#: (verdict, -, detail, found, where) of a link nothing was seen at.
_MISSING = ("missing", None, "no cable seen at either end", "", "")
_UNCHECKED = ("unchecked", None, "no capture covers either device", "", "")

T = TypeVar("T")

End = tuple[str, str]  # (device id, or "?" + a name the design lacks; catalog port or UNKNOWN)
_A_END, _B_END = attrgetter("a_device", "a_port"), attrgetter("b_device", "b_port")
_A_DEV, _B_DEV = attrgetter("a_device"), attrgetter("b_device")
_LOCAL, _REMOTE = attrgetter("local_device"), attrgetter("remote_device")


class Verdict(NamedTuple):
    """What the captures say about one design link (``link_id``) or one captured link
    the design lacks (``link_id`` None, verdict ``unexpected``).

    ``found`` is the captured cable as the capture names it (``leaf01 swp3 — gpu01
    mlx5_0``), ``where`` its file:line; both "" when nothing was captured.  A named
    tuple rather than a dataclass: one is made per design link, 440,000 for a
    100,000-GPU design, and a tuple is made several times faster.
    """

    verdict: str
    link_id: str | None
    detail: str = ""
    found: str = ""
    where: str = ""
    expected_gbps: float | None = None
    found_gbps: float | None = None
    #: Design device ids the verdict concerns (for totals by row and rack).
    devices: tuple[str, ...] = ()


class _Cap:
    """One captured cable after the names are mapped, merged over its observations."""

    __slots__ = ("a", "b", "record", "speed", "width")

    def __init__(self, a: End, b: End, record: CapturedLink):
        self.a, self.b, self.record = a, b, record
        self.speed, self.width = record.speed_gbps, record.width

    def other(self, end: End) -> End:
        return self.b if _same(self.a, end) else self.a

    def text(self) -> str:
        r = self.record
        far = f"{r.remote_device} {r.remote_port}".rstrip()
        return f"{r.local_device} {r.local_port} — {far}"


def _same(x: End, y: End) -> bool:
    """The same port, where an unknown host port matches any port of its device."""
    return x[0] == y[0] and (x[1] == y[1] or x[1] == UNKNOWN or y[1] == UNKNOWN)


def check(
    design: Design,
    captures: Iterable[CapturedLink] | None = None,
    progress: Progress | None = None,
) -> list[Verdict]:
    """Verdicts for ``design.links`` (in their order), then the unexpected links.

    ``captures`` defaults to the ones the design holds.  ``progress(fraction, part)``
    is told before each part and every :data:`TELL_EVERY` captured neighbours or links
    within one (a whole-fabric capture of 1,000,000 GPUs takes minutes).
    """
    tell = progress if progress is not None else _no_progress
    with _collector_paused():
        tell(0.0, "the design's link ends")
        matcher = _Matcher(design, design.captures if captures is None else captures, tell)
        return matcher.run()


#: How many captured neighbours, or links a capture touches, between two tellings.
TELL_EVERY = 1 << 16

#: Where each part of a check starts, as a share of the whole (measured on a generated
#: whole-fabric capture of 100,000 GPUs: 443,216 links, 531,332 neighbours).
_STARTS = {"read": 0.1, "bulk": 0.62, "touched": 0.71, "rest": 0.91, "unexpected": 0.91}


def _no_progress(_fraction: float, _part: str) -> None:
    """The progress of a check nobody watches."""


def _told(
    tell: Progress, items: Sequence[T], part: str, span: tuple[float, float], what: str
) -> Iterator[T]:
    """``items``, telling ``tell`` every :data:`TELL_EVERY` of them how far through
    them the check is (``span``: where the part starts and ends, as shares of it)."""
    n = len(items)
    start, end = span
    for first in range(0, n, TELL_EVERY):
        tell(start + (end - start) * first / n, f"{part}: {first:,} of {n:,} {what}")
        yield from items[first : first + TELL_EVERY]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while the verdicts are made.

    A check makes a verdict tuple per design link (440,000 for 100,000 GPUs) and they
    all live on, so the collections that much allocation sets off, each walking the
    whole design, free nothing: they were a third of the time.  Reference counting still
    frees as usual (the same as :func:`workbench.store.binding.collector_paused`).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _highest_ib_ports(captures: Iterable[CapturedLink]) -> dict[str, int]:
    """The highest switch port number ibnetdiscover shows per node name: how a switch
    numbers its split ports is told from it (:func:`~workbench.asbuilt.mapping.ib_split_ways`)."""
    highest: dict[str, int] = {}
    get = highest.get
    for record in captures:
        if record.format != "ibnetdiscover":
            continue
        port = record.local_port
        if port.isdigit() and (n := ib_port_number(port)) > get(record.local_device, 0):
            highest[record.local_device] = n
        port = record.remote_port
        if port.isdigit() and (n := ib_port_number(port)) > get(record.remote_device, 0):
            highest[record.remote_device] = n
    return highest


class _Matcher:
    def __init__(
        self, design: Design, captures: Iterable[CapturedLink], tell: Progress = _no_progress
    ):
        self.design = design
        self.tell = tell
        self.names = DeviceNames(design)
        self.links: Sequence[Link] = design.links
        self.captures = captures if isinstance(captures, (list, tuple)) else list(captures)
        self.a_devs: list[str] = list(map(_A_DEV, self.links))
        self.b_devs: list[str] = list(map(_B_DEV, self.links))
        #: The links with an end on a device some capture names, in order, and their ends.
        self.near: list[int] = self._near()
        near_links = list(map(self.links.__getitem__, self.near))
        self.a_ends: list[End] = list(map(_A_END, near_links))
        self.b_ends: list[End] = list(map(_B_END, near_links))
        ends: list[End] = [("", "")] * (2 * len(near_links))
        ends[0::2], ends[1::2] = self.a_ends, self.b_ends
        ends.reverse()
        # Built backwards so that an end two links claim keeps the first one (in C).  Only
        # the near links' ends: every lookup is of an end a capture names (this index of
        # all 900,000 ends of a 100,000-GPU design was a fifth of the time).
        self.end_link: dict[End, int] = dict(
            zip(ends, np.repeat(np.asarray(self.near, dtype=np.intp), 2)[::-1].tolist(),
                strict=True)
        )  # fmt: skip
        self._pairs: dict[tuple[str, str], list[int]] | None = None
        self._planes_of: dict[str, Counter[str | None]] | None = None
        self._lanes: dict[tuple[str, str], int] | None = None
        self._split: dict[str, int] | None = None
        self._speeds: dict[tuple[str, str, str, str], float | None] = {}
        self.caps: list[_Cap] = []
        self.at: dict[End, int] = {}  # a known port -> the capture there
        self.wild: dict[str, list[int]] = {}  # device -> captures with its port unknown
        #: device -> the planes a capture covers on it (see :meth:`_cover`)
        self.covered: dict[str, set[str | None]] = {}
        self._link_plane = {n.id: n.plane for n in design.networks}
        self._ib_planes = {n.plane for n in design.networks if n.technology == "infiniband"}
        self._read(self.captures)

    def _near(self) -> list[int]:
        """Indexes of the links with an end on a design device that a capture names."""
        names = {*map(_LOCAL, self.captures), *map(_REMOTE, self.captures)}
        ids = {self.names.device(name) for name in names}
        ids.discard(None)
        n = len(self.links)
        hit = np.fromiter(map(ids.__contains__, self.a_devs), bool, n)
        hit |= np.fromiter(map(ids.__contains__, self.b_devs), bool, n)
        return np.flatnonzero(hit).tolist()

    # -- captures ------------------------------------------------------------
    def _read(self, captures: Sequence[CapturedLink]) -> None:
        ports = PortMap()
        names, items, end_link = self.names, self.names.item, self.end_link
        resolved: dict[tuple[str, str], End] = {}
        highest = _highest_ib_ports(captures)
        splits: dict[str, int] = {}  # capture node name -> ib_split_ways

        def resolve(name: str, port: str) -> End:
            key = (name, port)
            end = resolved.get(key)
            if end is None:
                dev = names.device(name)
                if dev is None:
                    end = ("?" + name, port)
                else:
                    item = items[dev]
                    number = port.isdigit()
                    split = splits.get(name) if number else 1
                    if split is None:
                        split = splits[name] = ib_split_ways(item, highest.get(name, 0))
                    designed = lambda p: (dev, p) in end_link  # noqa: E731
                    lanes = lambda phys: self._lanes_used(dev, phys)  # noqa: E731
                    end = (dev, pick(ports.candidates(item, port, split), designed, lanes))
                    if number and split == 1 and end not in end_link:
                        # A number the design does not use: read as the design splits
                        # the switch (a pass over the design, so only for these).
                        split = ib_split_ways(item, highest.get(name, 0),
                                              lambda: self._split_only().get(dev, 0))  # fmt: skip
                        if split > 1:
                            end = (dev, pick(ports.candidates(item, port, split), designed, lanes))
                resolved[key] = end
            return end

        covered = self.covered
        ib_planes: set[str | None] = set(self._ib_planes) or {None}
        ib_done: set[str] = set()  # devices already covered on every InfiniBand plane
        span = _STARTS["read"], _STARTS["bulk"]
        for record in _told(self.tell, captures, "reading", span, "captured neighbours"):
            # The cache looked up here, not in resolve(): 200,000 calls saved per 100,000.
            key = (record.local_device, record.local_port)
            a = resolved.get(key) or resolve(*key)
            key = (record.remote_device, record.remote_port)
            b = resolved.get(key) or resolve(*key)
            if record.format != "ibnetdiscover":
                self._cover(a, b, record.format)
            else:  # _cover's first case, once per device
                for dev in (a[0], b[0]):
                    if dev not in ib_done:
                        ib_done.add(dev)
                        covered.setdefault(dev, set()).update(ib_planes)
            if self._merged(a, b, record):
                continue
            index = len(self.caps)
            self.caps.append(_Cap(a, b, record))
            for end in (a, b):
                if end[1] == UNKNOWN:
                    self.wild.setdefault(end[0], []).append(index)
                else:
                    self.at.setdefault(end, index)

    def _cover(self, a: End, b: End, fmt: str) -> None:
        """Note which planes of which devices a record shows were looked at.

        ibnetdiscover sees the whole subnet: every node it lists is covered on the
        InfiniBand planes.  An LLDP capture covers the device it was taken on, on the
        plane of the neighbour it saw (the plane of the designed link at either end,
        else of a link between the two devices, else the neighbour's usual plane): a
        host's lldpd sees neither its InfiniBand ports nor its BMC's, so those links
        stay unchecked rather than missing.
        """
        if fmt == "ibnetdiscover":
            planes: set[str | None] = set(self._ib_planes) or {None}
            for dev in (a[0], b[0]):
                self.covered.setdefault(dev, set()).update(planes)
            return
        plane = self._plane_between(a, b)
        if plane is not None:  # a neighbour on no plane of the design says nothing
            self.covered.setdefault(a[0], set()).add(plane)

    def _plane_between(self, a: End, b: End) -> str | None:
        for end in (a, b):
            j = self.end_link.get(end)
            if j is not None:
                return self._link_plane.get(self.links[j].network or "")
        between = self._links_at((b[0], UNKNOWN), a[0])
        if between:
            return self._link_plane.get(self.links[between[0]].network or "")
        usual = self._device_planes().get(b[0])
        return usual.most_common(1)[0][0] if usual else None

    def _lanes_used(self, dev: str, phys: str) -> int:
        """The highest breakout lane the design uses on a physical port (0: none)."""
        if self._lanes is None:
            lanes: dict[tuple[str, str], int] = {}
            get = lanes.get
            for d, port in self.end_link:
                if "/" in port:
                    head, _, lane = port.rpartition("/")
                    if lane.isdigit() and (n := int(lane)) > get((d, head), 0):
                        lanes[(d, head)] = n
            self._lanes = lanes
        return self._lanes.get((dev, phys), 0)

    def _split_only(self) -> dict[str, int]:
        """InfiniBand switch -> the most lanes the design splits a port of it into, for
        switches whose every designed InfiniBand port (of the links near a capture) is
        a breakout lane (their management ports are on another network)."""
        if self._split is None:
            by_item: dict[str, frozenset[str]] = {}
            switches: dict[str, frozenset[str]] = {}
            for d, item in self.names.item.items():
                if item is not None and item.kind == "switch":
                    names = by_item.get(item.slug)
                    if names is None:
                        names = by_item[item.slug] = ib_port_names(item)
                    if names:
                        switches[d] = names
            lanes: dict[str, int] = {}
            whole: set[str] = set()
            for d, port in self.end_link:
                ib = switches.get(d)
                if ib is None:
                    continue
                head, slash, lane = port.rpartition("/")
                if slash and lane.isdigit() and head in ib:
                    lanes[d] = max(lanes.get(d, 0), int(lane))
                elif port in ib:
                    whole.add(d)
            self._split = {d: n for d, n in lanes.items() if d not in whole}
        return self._split

    def _device_planes(self) -> dict[str, Counter[str | None]]:
        if self._planes_of is None:
            self._planes_of = {}
            for link in self.links:
                plane = self._link_plane.get(link.network or "")
                for dev in (link.a_device, link.b_device):
                    self._planes_of.setdefault(dev, Counter())[plane] += 1
        return self._planes_of

    def _is_covered(self, link: Link) -> bool:
        covered = self.covered
        if not covered:
            return False
        plane = self._link_plane.get(link.network or "")
        for dev in (link.a_device, link.b_device):
            planes = covered.get(dev)
            if planes and (plane in planes or plane is None or None in planes):
                return True
        return False

    def _merged(self, a: End, b: End, record: CapturedLink) -> bool:
        """Fold a second observation of a known cable (seen from its other end) into it."""
        for end, far in ((a, b), (b, a)):
            if end[1] == UNKNOWN:
                continue
            index = self.at.get(end)
            if index is None:
                continue
            cap = self.caps[index]
            known = cap.other(end)
            if not _same(known, far):
                return False
            if known[1] == UNKNOWN and far[1] != UNKNOWN:
                cap.a, cap.b = end, far
                self.at.setdefault(far, index)
            if record.speed_gbps is not None:
                cap.speed = (
                    record.speed_gbps if cap.speed is None else min(cap.speed, record.speed_gbps)
                )
            return True
        return False

    # -- links -----------------------------------------------------------------
    def run(self) -> list[Verdict]:
        """Every link's verdict as if nothing were seen at it (in bulk), then the links
        a capture touches looked at one by one: first those their capture connects as
        designed, then the rest (swapped, wrong port, missing), in link order, so that
        a capture two links could claim goes to the one found first."""
        links = self.links
        devices = (self.a_devs, self.b_devs)
        tell = self.tell
        tell(_STARTS["bulk"], "the links no capture touches")
        out = bulk.nothing_seen(Verdict, links, devices, self._link_plane, self.covered,
                                (_UNCHECKED, _MISSING), self._expected_speed)  # fmt: skip
        used: set[int] = set()
        at, caps = self.at, self.caps
        rest: list[int] = []
        touched = bulk.touched(self.near, (self.a_ends, self.b_ends), at, self.wild)
        span = _STARTS["touched"], _STARTS["rest"]
        for i in _told(tell, touched, "matching", span, "links a capture touches"):
            link = links[i]
            a, b = (link.a_device, link.a_port), (link.b_device, link.b_port)
            index = at.get(a)
            if index is None or not _same(caps[index].other(a), b):
                index = at.get(b)
                if index is None or not _same(caps[index].other(b), a):
                    rest.append(i)
                    continue
            used.add(index)
            out[i] = self._found(link, caps[index])
        tell(_STARTS["rest"], f"looking into {len(rest):,} links not found as designed")
        for i in rest:
            out[i] = self._not_found(i, links[i], used)
        tell(_STARTS["unexpected"], "captured cables the design lacks")
        out.extend(self._unexpected(used))
        return out

    def _expected_speed(self, link: Link) -> float | None:
        """The link's own speed, else what its ports share (cached per item pair and
        ports: a port lookup scans the item's interfaces)."""
        if link.speed_gbps is not None:
            return link.speed_gbps
        items = self.names.item
        ai, bi = items.get(link.a_device), items.get(link.b_device)
        if ai is None or bi is None:
            return None
        key = (ai.slug, link.a_port, bi.slug, link.b_port)
        if key not in self._speeds:
            self._speeds[key] = link_speed(ai, link.a_port, bi, link.b_port)
        return self._speeds[key]

    def _found(self, link: Link, cap: _Cap) -> Verdict:
        expected = self._expected_speed(link)
        devices = (link.a_device, link.b_device)
        where, found = cap.record.where, cap.text()
        rate = f"{cap.width}x at {cap.speed:g}G" if cap.width and cap.speed else None
        if cap.speed is None or expected is None:
            detail = "speed not reported" if cap.speed is None else ""
            return Verdict("correct", link.id, detail, found, where, expected, cap.speed, devices)
        if abs(cap.speed - expected) > 1e-6:
            detail = f"runs at {rate or f'{cap.speed:g}G'}, designed {expected:g}G"
            return Verdict("wrong-speed", link.id, detail, found, where, expected, cap.speed,
                           devices)  # fmt: skip
        return Verdict("correct", link.id, "", found, where, expected, cap.speed, devices)

    def _not_found(self, i: int, link: Link, used: set[int]) -> Verdict:
        a, b = (link.a_device, link.a_port), (link.b_device, link.b_port)
        expected = self._expected_speed(link)
        devices = (a[0], b[0])
        for p, q in ((a, b), (b, a)):
            partner = self._swap_partner(i, p, q)
            if partner is not None:
                cap, other = partner
                detail = f"ports crossed with link {self.links[other].id}"
                return Verdict("swapped", link.id, detail, cap.text(), cap.record.where, expected,
                               cap.speed, devices)  # fmt: skip
        for end in (a, b):
            index = self.at.get(end)
            if index is not None:
                cap = self.caps[index]
                detail = f"the cable at {self._label(end)} goes to {self._label(cap.other(end))}"
                return Verdict("wrong-port", link.id, detail, cap.text(), cap.record.where,
                               expected, cap.speed, devices)  # fmt: skip
        for end, far in ((a, b), (b, a)):
            for index in self.wild.get(end[0], ()):
                cap = self.caps[index]
                there = cap.other((end[0], UNKNOWN))
                if index not in used and there[0] == far[0] and there not in self.end_link:
                    used.add(index)
                    detail = f"the cable from {self._label(end)} is on {self._label(there)}"
                    return Verdict("wrong-port", link.id, detail, cap.text(), cap.record.where,
                                   expected, cap.speed, devices)  # fmt: skip
        return self._absent(link, expected, devices)

    def _absent(self, link: Link, expected: float | None, devices: tuple[str, ...]) -> Verdict:
        fields = _MISSING if self._is_covered(link) else _UNCHECKED
        return Verdict(fields[0], link.id, *fields[2:], expected, None, devices)

    def _swap_partner(self, i: int, p: End, q: End) -> tuple[_Cap, int] | None:
        """(the capture at this link, the crossed link) when the cables of link ``i``
        (``p``–``q``) and another link cross on ``q``'s device; else None."""
        at, caps = self.at, self.caps
        index = at.get(q)  # the cable in q's port comes from the partner's far end
        if index is not None:
            far = caps[index].other(q)
            for j in self._links_at(far, q[0]):
                link = self.links[j]
                ends = ((link.a_device, link.a_port), (link.b_device, link.b_port))
                q2 = ends[0] if ends[0][0] == q[0] and ends[0] != q else ends[1]
                if j == i or q2[0] != q[0] or q2 == q:
                    continue
                other = at.get(q2)
                if other is not None and _same(caps[other].other(q2), p):
                    return caps[index], j
        index = at.get(p)  # the cable from p lands on the partner's port of q's device
        if index is not None:
            q2 = caps[index].other(p)
            found = self.end_link.get(q2)
            if q2[0] == q[0] and q2 != q and found is not None and found != i:
                j = found
                link = self.links[j]
                p2 = (link.a_device, link.a_port) if (link.b_device, link.b_port) == q2 else (
                    link.b_device, link.b_port)  # fmt: skip
                back = at.get(p2)
                if back is not None and caps[back].other(p2) == q:
                    return caps[index], j
                back = at.get(q)
                if back is not None and _same(caps[back].other(q), p2):
                    return caps[index], j
        return None

    def _links_at(self, end: End, device: str) -> list[int]:
        """Design links at ``end``; for an unknown port, those between its device and
        ``device``."""
        if end[1] != UNKNOWN:
            j = self.end_link.get(end)
            return [] if j is None else [j]
        if self._pairs is None:
            self._pairs = {}
            for j, link in enumerate(self.links):
                key = tuple(sorted((link.a_device, link.b_device)))
                self._pairs.setdefault(key, []).append(j)  # type: ignore[arg-type]
        return self._pairs.get(tuple(sorted((end[0], device))), [])  # type: ignore[arg-type]

    def _unexpected(self, used: set[int]) -> list[Verdict]:
        out = []
        for index, cap in enumerate(self.caps):
            if index in used or cap.a in self.end_link or cap.b in self.end_link:
                continue
            devices = tuple(e[0] for e in (cap.a, cap.b) if not e[0].startswith("?"))
            detail = "not in the design"
            unknown = [e[0][1:] for e in (cap.a, cap.b) if e[0].startswith("?")]
            if unknown:
                detail = f"the design has no device {unknown[0]!r}"
            out.append(Verdict("unexpected", None, detail, cap.text(), cap.record.where, None,
                               cap.speed, devices))  # fmt: skip
        return out

    def _label(self, end: End) -> str:
        dev, port = end
        if dev.startswith("?"):
            name = dev[1:]
        else:
            placed = self.design.find_device(dev)
            name = placed[1].name if placed is not None else dev
        return f"{name} {port}" if port else f"{name} (port not reported)"
