"""Devices, port ends and links of a design numbered, with their facts as numpy arrays.

A 100,000-GPU design has 300,000 links on its compute plane alone, so the fabric
analytics do their per-link work once, into arrays: each device gets a number, each
distinct (catalog item, port name) end a code whose facts (speed, host end or not,
cage, breakout lane, the splits the port allows ...) are read from
:mod:`workbench.model.ports` and :mod:`workbench.calc.fabric.planes` once, and a link is a row
of device numbers, end codes and a speed.  :mod:`workbench.calc.fabric.graph`,
:mod:`workbench.calc.fabric.ports` and :mod:`workbench.calc.cabling` sum over them.
"""

from __future__ import annotations

import ctypes
import math
import weakref
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import cast

import numpy as np

from workbench.calc.fabric.planes import is_host_end
from workbench.calc.steps import chunks, drain
from workbench.catalog.item import CatalogItem
from workbench.model.design import Design, Link
from workbench.model.ports import Port, breakout_ways, end_speed, port_named, split_lane


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (``np.unique`` without its slow hashing path)."""
    if len(values) == 0:
        return values
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def coded(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True, return_counts=True)`` of integers, its
    inverse flat: by counting, where the values span a short range (end codes, media
    codes, the few combinations of a link's facts), else by np.unique.

    Why: np.unique's inverse sorts all the values; over the 300,000 links of a
    100,000-GPU plane each such sort is ~10-20 ms, counting ~1-2 ms."""
    if len(values) == 0 or values.dtype.kind not in "iu":
        found, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
        return found, inverse.reshape(-1), counts
    low, high = int(values.min()), int(values.max())
    if high - low > 4 * len(values) + 1024:
        found, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
        return found, inverse.reshape(-1), counts
    shifted = values - low
    seen = np.bincount(shifted, minlength=high - low + 1)
    present = np.flatnonzero(seen)
    number = np.zeros(high - low + 1, dtype=np.intp)
    number[present] = np.arange(len(present), dtype=np.intp)
    return (present + low).astype(values.dtype), number[shifted], seen[present]


def coded_gather(table: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(table[index], return_inverse=True)``, its inverse flat, sorting only
    the rows of ``table`` that ``index`` names (a column read per end code: a few
    hundred rows for 300,000 links) instead of one value per index."""
    if len(index) == 0:
        found, inverse = np.unique(table[index], return_inverse=True)
        return found, inverse.reshape(-1)
    rows, number, _counts = coded(index)
    found, inverse = np.unique(table[rows], return_inverse=True)
    return found, inverse.reshape(-1)[number]


def without_rows(column: np.ndarray, removed: Sequence[int] | np.ndarray) -> np.ndarray:
    """``np.delete(column, removed)`` for a few places in a long column: the kept runs
    between them joined in one copy (np.delete builds and applies a mask as long as
    the column)."""
    places = distinct(np.asarray(removed, dtype=np.int64))
    if len(places) == 0:
        return column.copy()
    bounds = [-1, *places.tolist(), len(column)]
    return np.concatenate([column[s + 1 : e] for s, e in zip(bounds, bounds[1:], strict=False)])


def with_rows(column: np.ndarray, at: Sequence[int] | np.ndarray, values: object) -> np.ndarray:
    """``np.insert(column, at, values)`` for a few places ``at`` (ascending, places in
    ``column``) in a long column: one copy of the runs between them and the values
    (np.insert builds and applies a mask as long as the column)."""
    new = np.asarray(values, dtype=column.dtype)
    places = np.asarray(at, dtype=np.int64).tolist()
    if not places:
        return column.copy()
    pieces: list[np.ndarray] = []
    start = 0
    for k, place in enumerate(places):
        pieces += (column[start:place], new[k : k + 1])
        start = place
    pieces.append(column[start:])
    return np.concatenate(pieces)


def spliced(
    column: np.ndarray,
    removed: Sequence[int] | np.ndarray,
    at: Sequence[int] | np.ndarray,
    values: object,
) -> np.ndarray:
    """``with_rows(without_rows(column, removed), at, values)`` in one copy: a replay
    that takes rows out and puts rows in (a node put back takes its old links' rows
    out and its new ones' in) allocates one new column, not two.  Why: each is 2.4 MB
    at 100,000 GPUs, and a fresh allocation that size costs its page faults here."""
    places = distinct(np.asarray(removed, dtype=np.int64)).tolist()
    new = np.asarray(values, dtype=column.dtype)
    # Each new row's place in ``column``: before the kept row it lands before.
    cuts: list[tuple[int, int, int]] = [(p, 1, 0) for p in places]
    for k, place in enumerate(np.asarray(at, dtype=np.int64).tolist()):
        for gone in places:
            if gone > place:
                break
            place += 1
        cuts.append((place, 0, k))
    if not cuts:
        return column.copy()
    cuts.sort()
    pieces: list[np.ndarray] = []
    start = 0
    for place, kind, k in cuts:
        pieces.append(column[start:place])
        if kind:
            start = place + 1
        else:
            pieces.append(new[k : k + 1])
            start = place
    pieces.append(column[start:])
    return np.concatenate(pieces)


def renumbered_column(
    column: np.ndarray, renumber: np.ndarray, names_missing: bool = True
) -> np.ndarray:
    """``renumber[column]`` (device numbers carried to a renumbered table), or
    ``column`` itself where that changes no number in it: devices only came (a node put
    back is numbered last) and no row names the old :attr:`DeviceTable.missing`.
    ``names_missing`` False: the caller knows no row does (:attr:`LinkArrays.
    names_missing`), so the column is not read to find out."""
    if not _moves_numbers(column, renumber, names_missing):
        return column
    return cast(np.ndarray, renumber[column])


def _moves_numbers(column: np.ndarray, renumber: np.ndarray, names_missing: bool = True) -> bool:
    missing = len(renumber) - 1
    return not (
        np.array_equal(renumber[:missing], np.arange(missing))
        and (renumber[missing] == missing or not names_missing or not (column == missing).any())
    )


#: Rows of room a column :func:`spliced_in_room` makes has past its end.
ROOM = 4096

#: The buffers :func:`spliced_in_room` made, by id: only those are written over.
_ROOMY: weakref.WeakValueDictionary[int, np.ndarray] = weakref.WeakValueDictionary()


def spliced_in_room(
    column: np.ndarray,
    removed: Sequence[int] | np.ndarray,
    at: Sequence[int] | np.ndarray,
    values: object,
    renumber: np.ndarray | None = None,
    names_missing: bool = True,
) -> np.ndarray:
    """``spliced(renumbered_column(column, renumber, names_missing), removed, at,
    values)`` (without ``renumber``: not renumbered), written over ``column``'s own buffer when it is a
    column this function returned and the rows fit, else into a new buffer with
    :data:`ROOM` rows to spare.  ``column`` is then overwritten: its holder must read
    it no more (the compute plane's kept link arrays, which the answer replaces).

    Why: a new 300,000-row column per field (five) per cabling edit cost its page
    faults in the window's process, 1-1.5 ms each when a node was put back at 100,000
    GPUs; here the rows move within the buffer they are in."""
    places = distinct(np.asarray(removed, dtype=np.int64)).tolist()
    new = np.asarray(values, dtype=column.dtype)
    spots = np.asarray(at, dtype=np.int64).tolist()
    n = len(column)
    size = n - len(places) + len(spots)
    buf = column.base
    if (
        not isinstance(buf, np.ndarray)
        or _ROOMY.get(id(buf)) is not buf
        or len(buf) < size
        or buf.ctypes.data != column.ctypes.data
    ):
        if renumber is not None:
            column = renumbered_column(column, renumber, names_missing)
        out = np.empty(size + ROOM, dtype=column.dtype)
        out[:size] = spliced(column, places, spots, new)
        _ROOMY[id(out)] = out
        return out[:size]
    if renumber is not None and _moves_numbers(column, renumber, names_missing):
        # Each row reads its own number before it is written: in place is safe.
        np.take(renumber, column, out=column, mode="clip")
    # The rows taken out: the kept runs after each moved down over it ...
    end = n
    if places:
        write = places[0]
        for k, place in enumerate(places):
            stop = places[k + 1] if k + 1 < len(places) else n
            buf[write : write + stop - place - 1] = buf[place + 1 : stop]
            write += stop - place - 1
        end = write
    # ... then the new ones, from the last: the rows from each spot on move up.
    for k in range(len(spots) - 1, -1, -1):
        spot = spots[k]
        _move_rows(buf, spot + k + 1, spot, end - spot)
        buf[spot + k] = new[k]
        end = spot
    return buf[:size]


def _move_rows(buf: np.ndarray, to: int, start: int, count: int) -> None:
    """``buf[to : to + count] = buf[start : start + count]`` as one memmove.  Why: numpy
    copies overlapping rows moved up through a new buffer first (a 300,000-row column's
    half: 1.2 MB, its page faults paid per column per node put back at 100,000 GPUs)."""
    if buf.dtype.hasobject:  # references, not bytes: numpy moves them
        buf[to : to + count] = buf[start : start + count]
    elif count > 0:
        size = buf.itemsize
        base = buf.ctypes.data
        ctypes.memmove(base + to * size, base + start * size, count * size)


@dataclass(frozen=True)
class EndFacts:
    """What the analytics need of one (catalog item, port name) end."""

    item: CatalogItem | None
    name: str
    port: Port | None
    #: A plane's end point (:func:`workbench.calc.fabric.planes.is_host_end`).
    host: bool
    #: What the end carries unsplit, Gb/s (:func:`workbench.model.ports.end_speed`);
    #: NaN for a breakout lane (its speed depends on the split) or a missing port.
    speed: float
    #: The physical port (``p1`` for ``p1/2``) and the lane (None: the whole port).
    physical: str
    lane: int | None
    #: A number for the physical port, the same for all its lanes (per catalog item).
    physical_id: int = 0
    #: The ways the physical port may split (:func:`workbench.model.ports.breakout_ways`).
    ways: tuple[int, ...] = ()

    @property
    def cage(self) -> str:
        return self.port.kind.cage if self.port is not None else ""


class _Codes(dict[str, int]):
    """Port name → end code for one catalog item (None: an unknown device or item),
    filled on first look-up."""

    def __init__(self, table: EndTable, item: CatalogItem | None):
        super().__init__()
        self.table = table
        self.item = item

    def __missing__(self, name: str) -> int:
        code = self[name] = self.table.add(self.item, name)
        return code


class EndTable:
    """Every distinct end seen, numbered, with its facts as numpy columns."""

    def __init__(self) -> None:
        self.facts: list[EndFacts] = []
        self._by_slug: dict[str, _Codes] = {}
        self.unknown = _Codes(self, None)
        self._columns: dict[str, np.ndarray] = {}
        self._built = -1
        self.cages: list[str] = [""]
        #: (slug, physical port name) → its number (see :attr:`EndFacts.physical_id`).
        self._physical: dict[tuple[str, str], int] = {}

    def codes(self, item: CatalogItem | None) -> _Codes:
        """The port name → code table of ``item`` (one per slug)."""
        if item is None:
            return self.unknown
        found = self._by_slug.get(item.slug)
        if found is None:
            found = self._by_slug[item.slug] = _Codes(self, item)
        return found

    def add(self, item: CatalogItem | None, name: str) -> int:
        port = port_named(item, name) if item is not None else None
        physical, lane = split_lane(name)
        speed = end_speed(item, name) if item is not None else None
        host = item is not None and is_host_end(item, name)
        key = (item.slug if item is not None else "", physical)
        physical_id = self._physical.setdefault(key, len(self._physical))
        ways = breakout_ways(item, port) if item is not None and port is not None else ()
        self.facts.append(
            EndFacts(
                item,
                name,
                port,
                host,
                math.nan if speed is None else speed,
                physical,
                lane,
                physical_id,
                ways,
            )
        )
        return len(self.facts) - 1

    @property
    def physical_ports(self) -> int:
        """How many physical port numbers are in use (an upper bound for keys)."""
        return max(len(self._physical), 1)

    def column(self, name: str) -> np.ndarray:
        """One fact of every code as an array: ``host`` (bool), ``speed`` (float),
        ``lane`` (bool), ``lane_no`` (int, 0 for a whole port), ``item`` (bool: the
        item is known), ``data`` (bool: a data port the item has, not a
        management-only one), ``cage`` (int, into :attr:`cages`), ``port_speed``
        (float: the physical port's own speed), ``physical`` (int:
        :attr:`EndFacts.physical_id`), ``ways_mask`` (int: bit *w* set when the port
        may split *w* ways), ``max_ways`` (int: its largest split, 1 for none)."""
        if self._built != len(self.facts):
            self._build()
        return self._columns[name]

    def _build(self) -> None:
        facts = self.facts
        cage_codes = {c: i for i, c in enumerate(self.cages)}
        for fact in facts:
            if fact.cage not in cage_codes:
                cage_codes[fact.cage] = len(self.cages)
                self.cages.append(fact.cage)
        self._columns = {
            "host": np.array([f.host for f in facts], dtype=bool),
            "speed": np.array([f.speed for f in facts], dtype=float),
            "lane": np.array([f.lane is not None for f in facts], dtype=bool),
            "item": np.array([f.item is not None for f in facts], dtype=bool),
            "data": np.array(
                [f.port is not None and not f.port.mgmt_only for f in facts], dtype=bool
            ),
            "cage": np.array([cage_codes[f.cage] for f in facts], dtype=np.int64),
            "port_speed": np.array(
                [f.port.kind.speed_gbps if f.port is not None else math.nan for f in facts],
                dtype=float,
            ),
            "lane_no": np.array([f.lane or 0 for f in facts], dtype=np.int64),
            "physical": np.array([f.physical_id for f in facts], dtype=np.int64),
            "ways_mask": np.array([sum(1 << w for w in f.ways) for f in facts], dtype=np.int64),
            "max_ways": np.array([max(f.ways, default=1) for f in facts], dtype=np.int64),
        }
        self._built = len(facts)


def _mark(design: Design) -> int | None:
    """The index's device mark a table numbered now starts from, where tables are kept
    across edits (:attr:`DesignIndex.keep_tables`); None elsewhere (nothing logged)."""
    index = design.index
    return index.device_mark() if index.keep_tables else None


class _Shifted(Mapping[str, int]):
    """Device id → number of a renumbered table, read through the numbers of the full
    table it descends from (``base``; ``through`` maps those to this table's, -1 for a
    device gone since) and ``extra``, the devices that came since, by id."""

    def __init__(
        self, base: Mapping[str, int], through: np.ndarray, extra: dict[str, int], ids: list[str]
    ):
        self.base, self.through, self.extra, self.ids = base, through, extra, ids

    def __getitem__(self, device_id: str) -> int:
        found = self.extra.get(device_id)
        if found is not None:
            return found
        number = int(self.through[self.base[device_id]])
        if number < 0:
            raise KeyError(device_id)
        return number

    def numbers(self, device_ids: Sequence[str]) -> np.ndarray:
        """Each id's number, -1 for one the table lacks (see :func:`numbers`)."""
        found = np.fromiter(map(self.base.get, device_ids, repeat(-1)), np.int64, len(device_ids))
        out = np.where(found >= 0, self.through[found], -1)
        if self.extra:
            for k, device_id in enumerate(device_ids):
                if device_id in self.extra:
                    out[k] = self.extra[device_id]
        return out

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


def numbers(devices: DeviceTable, device_ids: Sequence[str]) -> np.ndarray:
    """Each of ``device_ids``' number in ``devices``, -1 for a device it lacks: the
    switches of a plane (2,000 at 100,000 GPUs) looked up at once, where a renumbered
    table reads each through numpy (:class:`_Shifted`)."""
    pos = devices.pos
    if isinstance(pos, _Shifted):
        return pos.numbers(device_ids)
    return np.fromiter(map(pos.get, device_ids, repeat(-1)), np.int64, len(device_ids))


#: Devices gone at most which :func:`_steps` shifts the numbers after each in turn.
FEW_PLACES = 8


def _steps(size: int, places: list[int]) -> np.ndarray:
    """Each of ``size`` numbers → its number once the numbers at ``places`` (ascending,
    distinct) are taken out and those after close up; -1 for those taken out.  Why: a
    node removed or put back at 100,000 GPUs renumbers 30,000 devices, where a mask, its
    running sum and a choice between them were three passes and three new arrays
    (~0.3 ms of the edit); a few gone are a suffix shifted each."""
    if len(places) > FEW_PLACES:
        keep = np.ones(size, dtype=bool)
        keep[places] = False
        return np.where(keep, np.cumsum(keep) - 1, -1)
    step = np.arange(size, dtype=np.int64)
    for place in places:
        step[place + 1 :] -= 1
    step[places] = -1
    return step


class DeviceTable:
    """Every device of a design numbered (one more number, :attr:`missing`, for link ends
    on a device the design lacks), with its catalog item and its ends' codes."""

    def __init__(self, design: Design, ends: EndTable | None = None):
        """``ends``: an earlier table's, so its end codes hold here too (link arrays
        kept across an edit are brought up to date, not read again)."""
        drain(self._fill(design, None, ends))

    @classmethod
    def in_steps(cls, design: Design, chunk: int) -> Generator[None, None, DeviceTable]:
        """The table of ``design``, ``chunk`` devices per step (a step generator whose
        return value it is).  Why: numbering the 30,000 devices of a 100,000-GPU design
        takes ~40 ms, one step too long for the window's first check between events."""
        table = cls.__new__(cls)
        yield from table._fill(design, chunk, None)
        return table

    def _fill(
        self, design: Design, chunk: int | None, ends: EndTable | None
    ) -> Generator[None, None, None]:
        self.design = design
        #: The index the table was numbered from (its :attr:`mark` is in its log); a
        #: weak reference, as the index keeps the table: a cycle would keep a replaced
        #: design alive until a pass of the collector, which the window keeps off.
        self.source_index = weakref.ref(design.index)
        self.ends = ends if ends is not None else EndTable()
        self.ids: list[str] = []
        self.items: list[CatalogItem | None] = []
        pos: dict[str, int] = {}
        self.pos: Mapping[str, int] = pos
        self.codes_by_id: dict[str, _Codes] = {}
        self.mark = _mark(design)
        types = design.device_types
        for n, run in enumerate(chunks(list(design.index.devices.values()), chunk)):
            if n:
                yield
            for _rack, device in run:
                item = types.get(device.device_type)
                pos[device.id] = len(self.ids)
                self.ids.append(device.id)
                self.items.append(item)
                self.codes_by_id[device.id] = self.ends.codes(item)
        self.missing = len(self.ids)

    @classmethod
    def renumbered(cls, design: Design, old: DeviceTable) -> tuple[DeviceTable, np.ndarray]:
        """The table of ``design`` as it is now, sharing ``old``'s end codes, and each
        of ``old``'s numbers (its :attr:`missing` one last) → the new number.

        Why: compute_plane's kept link arrays are renumbered after every cabling edit
        (devices may have come and gone), and a full table numbers 30,000 devices at
        100,000 GPUs (~12 ms).  This one reads a device's item and end codes when first
        asked (:meth:`__getattr__`), and numbers the devices from the index's log of
        those that came and went since ``old`` (:meth:`_shifted`), else in C; a full
        one is the same table."""
        table = cls.__new__(cls)
        table.design = design
        table.source_index = weakref.ref(design.index)
        table.ends = old.ends
        table.mark = _mark(design)
        renumber = table._shifted(old)
        if renumber is None:
            ids = table.ids = list(design.index.devices)
            table.missing = len(ids)
            pos = table.pos = dict(zip(ids, range(len(ids)), strict=True))
            renumber = np.fromiter(
                map(pos.get, old.ids, repeat(table.missing)),
                dtype=np.int64,
                count=len(old.ids),
            )
        return table, np.append(renumber, table.missing)

    def _shifted(self, old: DeviceTable) -> np.ndarray | None:
        """``old``'s numbers → this table's (dropped devices: :attr:`missing`), with
        :attr:`pos` read through ``old``'s (:class:`_Shifted`), from the devices that
        came and went since ``old`` was numbered; None when the index's log does not
        reach back that far, or ``old`` was numbered from another index.  Sets
        :attr:`ids` and :attr:`missing`: ``old``'s ids less those that went, plus those
        that came, in the order they came, which is the index's order: the index logs
        every change of its devices' order once a mark is taken (a device filed, taken
        out, or first filed by a move), so the list is not read from it again (30,000
        ids, ~1.4 ms of every cabled node removed or put back at 100,000 GPUs, touching
        each id); only its length is compared.

        Why: a dict of 30,000 numbers took ~8 ms of every cabled node removed or put
        back at 100,000 GPUs (and as long again to look the old numbers up in it),
        where a node's removal shifts the numbers after it by one (a numpy pass)."""
        index = self.design.index
        source = getattr(old, "source_index", None)
        same = source is not None and source() is index
        log = None if old.mark is None or not same else index.devices_since(old.mark)
        if log is None:
            return None
        dropped: list[str] = []
        added: dict[str, None] = {}
        for device_id, came in log:
            if came:
                added[device_id] = None
            elif device_id in added:
                del added[device_id]
            else:
                dropped.append(device_id)
        old_pos = old.pos
        found = [old_pos.get(device_id) for device_id in dropped]
        if None in found or len(set(found)) != len(found):
            return None
        at = cast(list[int], found)
        places = sorted(at)
        expected = list(old.ids)
        for place in reversed(places):
            del expected[place]
        kept = len(expected)
        expected += added
        if len(expected) != len(index.devices):  # the log and the index disagree
            return None
        self.ids, self.missing = expected, len(expected)
        step = _steps(len(old.ids), places)
        extra = {device_id: kept + k for k, device_id in enumerate(added)}
        if isinstance(old_pos, _Shifted):
            base, through = old_pos.base, old_pos.through
            extra.update(
                (device_id, int(step[n])) for device_id, n in old_pos.extra.items() if step[n] >= 0
            )
            if places:  # (none went: every number stands, the old map is read as it is)
                through = np.where(through >= 0, step[through], -1)
        else:
            base, through = old_pos, step
        self.pos = _Shifted(base, through, extra, self.ids)
        renumber = step.copy()
        renumber[places] = self.missing
        for device_id, place in zip(dropped, at, strict=True):
            renumber[place] = extra.get(device_id, self.missing)
        return renumber

    def __getattr__(self, name: str) -> object:
        """``items`` and ``codes_by_id`` of a :meth:`renumbered` table, read in full
        when first asked (the compute plane's figures never ask)."""
        if name not in ("items", "codes_by_id") or "ids" not in self.__dict__:
            raise AttributeError(name)
        types = self.design.device_types
        devices = self.design.index.devices
        items = [types.get(devices[i][1].device_type) for i in self.ids]
        self.items = items
        self.codes_by_id = {
            i: self.ends.codes(item) for i, item in zip(self.ids, items, strict=True)
        }
        return self.__dict__[name]

    def item(self, device_id: str) -> CatalogItem | None:
        at = self.pos.get(device_id)
        return self.items[at] if at is not None else None

    def __len__(self) -> int:
        """Device numbers in use, the :attr:`missing` one included."""
        return self.missing + 1


@dataclass
class LinkArrays:
    """Links as arrays: device numbers and end codes of both ends, and the speed (Gb/s;
    the link's own, else :func:`workbench.model.ports.link_speed`'s rule, the slower
    port's; NaN when unknown)."""

    links: Sequence[Link]
    a: np.ndarray
    b: np.ndarray
    a_code: np.ndarray
    b_code: np.ndarray
    speed: np.ndarray
    #: Whether a row of :attr:`a` or :attr:`b` may name the table's
    #: :attr:`DeviceTable.missing` (a file's link to a device it lacks); None: not yet
    #: read.  False is exact: the compute plane's kept arrays carry it across edits
    #: (:func:`workbench.calc.design_hardware._kept_graph`), so a node put back at
    #: 100,000 GPUs does not read both 300,000-row columns to learn that none does.
    names_missing: bool | None = field(default=None, kw_only=True)

    def may_name_missing(self, missing: int) -> bool:
        """:attr:`names_missing`, read off the columns (and kept) when not yet known."""
        if self.names_missing is None:
            self.names_missing = bool((self.a == missing).any() or (self.b == missing).any())
        return self.names_missing


def _end_codes(devices: DeviceTable, links: Sequence[Link]) -> dict[str, _Codes]:
    """Device id → its item's end codes, for the ends of ``links`` the design holds."""
    found = devices.design.index.devices
    types = devices.design.device_types
    out: dict[str, _Codes] = {}
    for link in links:
        for end in (link.a_device, link.b_device):
            placed = found.get(end)
            if placed is not None and end in devices.pos:
                out[end] = devices.ends.codes(types.get(placed[1].device_type))
    return out


def _given_speeds(given: Sequence[object]) -> np.ndarray:
    """Typed link speeds as floats; NaN where none is given or the stored value is not a
    number (a hand-edited or foreign file), so such a link falls back to its ports' speed
    instead of failing every figure that counts links."""
    try:
        return np.array(given, dtype=float)
    except (TypeError, ValueError):
        return np.array(
            [
                v if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan
                for v in given
            ],
            dtype=float,
        )


def link_arrays(devices: DeviceTable, links: Sequence[Link], end_codes: bool = False) -> LinkArrays:
    """The :class:`LinkArrays` of ``links``; ``end_codes``: read the ends' codes from
    their devices' items here instead of the table's :attr:`DeviceTable.codes_by_id`
    (a few links added to kept arrays, whose table reads no device it is not asked)."""
    pos, missing = devices.pos, devices.missing
    unknown = devices.ends.unknown
    codes = devices.codes_by_id if not end_codes else _end_codes(devices, links)
    a = np.array([pos.get(link.a_device, missing) for link in links], dtype=np.int64)
    b = np.array([pos.get(link.b_device, missing) for link in links], dtype=np.int64)
    a_code = np.array(
        [codes.get(link.a_device, unknown)[link.a_port] for link in links], dtype=np.int64
    )
    b_code = np.array(
        [codes.get(link.b_device, unknown)[link.b_port] for link in links], dtype=np.int64
    )
    given = [link.speed_gbps for link in links]
    own = _given_speeds(given) if any(given) else np.full(len(links), math.nan)
    ends = devices.ends
    end_speed_, known = ends.column("speed"), ends.column("item")
    with np.errstate(invalid="ignore"):
        shared = np.fmin(end_speed_[a_code], end_speed_[b_code])
    shared[~(known[a_code] & known[b_code])] = math.nan
    speed = np.where(np.isnan(own), shared, own)
    return LinkArrays(links, a, b, a_code, b_code, speed)
