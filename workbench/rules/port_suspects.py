"""The devices FABRIC-PORT can have findings on, for a whole design at once.

FABRIC-PORT is a device rule so that an edit re-checks only the devices at a link's
ends; but a full check then asks it about every device, walking each one's links in
Python (1.6-2.5 s of a 100,000-GPU design's 30,000 devices and 440,000 links, the
largest share of ``workbench check`` and of a scenario's figures).  Here the same three
questions are asked of every link at once with numpy, over the link arrays of
:mod:`workbench.calc.fabric.tables`, and only the devices that may fail one are handed to
the rule, which still writes every finding:

* an end on a port the device's catalog item lacks (either end, on its own device);
* a link whose two ports cannot be cabled at its speed (:func:`link_problem`, asked
  once per distinct pair of ends and speed; on the ``a`` end's device);
* a physical port with more than one link that is not the distinct lanes of one split
  (a whole port twice, whole and split, or one lane twice).

The answer may name more devices than have findings, never fewer; where the data is odd
enough that it cannot say (a link speed that is not a number, a device id used twice),
it answers None and every device is asked, as before.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator, Sequence

import numpy as np

from workbench.calc.fabric.tables import DeviceTable, link_arrays
from workbench.calc.steps import drain
from workbench.model import Design
from workbench.model.design import Link
from workbench.model.ports import link_problem

#: Python types a stored link speed may have for the arrays to read it as the rule does.
_PLAIN_SPEEDS = frozenset({int, float, type(None)})

#: Lane numbers above this are left to the rule (they would overflow the port keys).
_MAX_LANE = 1_000_000


#: Links read per step by :func:`port_suspects_in_steps` (~3 ms at 100,000 GPUs).
STEP_LINKS = 2_000


def port_suspects(design: Design) -> set[str] | None:
    """Ids of the devices FABRIC-PORT may find something on (see the module docstring);
    None when every device must be asked."""
    return drain(port_suspects_in_steps(design, chunk=None))


def port_suspects_in_steps(
    design: Design, chunk: int | None
) -> Generator[None, None, set[str] | None]:
    """:func:`port_suspects`, yielding after every ``chunk`` links (None: all in one
    step; FABRIC-PORT passes :data:`STEP_LINKS`), its answer the generator's return
    value.

    Why: the one pass takes half a second at 100,000 GPUs, and the window's first check
    runs it between events, where it blocked input that long.  The suspects are a union
    over the links: a missing port or an unfit pair is a fact of one link, so each chunk
    adds its own; a port taken twice is a fact of two links that may be in different
    chunks, so each chunk keeps its ends' port keys and the repeats are found once all
    are read (two sorts of integer arrays)."""
    index = design.index
    if sum(1 for _ in design.iter_devices()) != len(index.devices):
        return None  # a device id used twice: the rule sees devices the index does not
    # The design's list, not the index's table: a check that asks the rule about no
    # device then never builds the link index (0.3 s at 100,000 GPUs).  Were two links
    # to share an id, the rule would see the last; both are read here, so the answer
    # only grows.
    links = design.links
    if not links:
        return set()
    devices = yield from DeviceTable.in_steps(design, max(1, chunk // 4) if chunk else 0)
    step = max(1, chunk) if chunk is not None else len(links)
    flagged: list[np.ndarray] = []
    ends = _EndsByDevice(devices.missing + 1, 2 * len(links) if chunk else 0)
    for start in range(0, len(links), step):
        yield
        run = links[start : start + step]
        given = [link.speed_gbps for link in run]
        if not {type(v) for v in given} <= _PLAIN_SPEEDS:
            return None  # a speed of another type: the rule compares it as it is
        found = _chunk_suspects(devices, run, given)
        if found is None:
            return None
        flagged.append(found[0])
        ends.add(*found[1])
    yield
    facts = devices.ends.facts
    exists = np.array([f.port is not None for f in facts], dtype=bool)
    lanes = [f.lane for f in facts]
    if any(lane is not None and not 0 <= lane <= _MAX_LANE for lane in lanes):
        return None
    physical = np.array([f.physical_id for f in facts], dtype=np.int64)
    # 0 for the whole port, lane + 1 for a breakout lane.
    lane_no = np.array([0 if lane is None else lane + 1 for lane in lanes], dtype=np.int64)
    for device, code in ends.parts():
        yield
        flagged.append(_doubled_ports(devices, device, code, exists, physical, lane_no))
    yield
    # A set of the numbers, not np.unique: numpy 2.4 hashes there (and its first call
    # imports numpy.ma, ~11 ms of the window's first check).
    numbers = set(np.concatenate(flagged).tolist())
    ids = devices.ids
    suspects = {ids[n] for n in numbers if n < devices.missing}
    if suspects and chunk:
        # The rule reads each suspect's links through the index's link tables: built
        # here in steps, not in one (0.15-0.3 s) when it asks about the first suspect.
        yield from index.link_tables_in_steps(chunk)
    return suspects


def _chunk_suspects(
    devices: DeviceTable, links: Sequence[Link], given: list[float | None]
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None:
    """(device numbers a missing port or an unfit pair of ``links`` flags, (device
    numbers, end codes) of every end of them), or None when every device must be asked."""
    arrays = link_arrays(devices, links)
    own = np.array([math.nan if v is None else v for v in given], dtype=float)
    if int(np.isnan(own).sum()) != given.count(None):
        return None  # a speed stored as NaN: the rule compares it as it is
    facts = devices.ends.facts
    exists = np.array([f.port is not None for f in facts], dtype=bool)
    known = np.array([f.item is not None for f in facts], dtype=bool)
    a, b, a_code, b_code = arrays.a, arrays.b, arrays.a_code, arrays.b_code
    flagged = np.concatenate(
        [
            a[known[a_code] & ~exists[a_code]],  # a port the item lacks, at either end
            b[known[b_code] & ~exists[b_code]],
            a[_unfit(devices, a_code, b_code, own, exists)],
        ]
    )
    return flagged, (np.concatenate([a, b]), np.concatenate([a_code, b_code]))


def _unfit(
    devices: DeviceTable,
    a_code: np.ndarray,
    b_code: np.ndarray,
    own: np.ndarray,
    exists: np.ndarray,
) -> np.ndarray:
    """Mask of the links whose ports exist but :func:`link_problem` refuses (or raises
    on), asked once per distinct (a end, b end, speed)."""
    both = exists[a_code] & exists[b_code]
    where = np.flatnonzero(both)
    bad = np.zeros(len(a_code), dtype=bool)
    if not len(where):
        return bad
    speeds, speed_no = np.unique(own[where], return_inverse=True)
    # Ends that differ only in the port's name (p1 and p2 of one switch) get one verdict,
    # as in the rule: it depends on the items, the port types, the lanes and the speed.
    facts = devices.ends.facts
    kinds: dict[tuple[object, ...], int] = {}
    kind_of = np.array(
        [
            kinds.setdefault(
                (f.item.slug if f.item else "", f.port.kind.type if f.port else "", f.lane),
                len(kinds),
            )
            for f in facts
        ],
        dtype=np.int64,
    )
    a_kind, b_kind = kind_of[a_code[where]], kind_of[b_code[where]]
    key = (a_kind * len(kinds) + b_kind) * len(speeds) + speed_no.reshape(-1)
    combos, first, which = np.unique(key, return_index=True, return_inverse=True)
    refused = np.zeros(len(combos), dtype=bool)
    for number, at in enumerate(first.tolist()):
        link_at = int(where[at])
        a_end, b_end = facts[int(a_code[link_at])], facts[int(b_code[link_at])]
        speed = float(own[link_at])
        assert a_end.item is not None and b_end.item is not None
        try:
            problem = link_problem(
                a_end.item,
                a_end.name,
                b_end.item,
                b_end.name,
                None if math.isnan(speed) else speed,
            )
        except Exception:  # noqa: BLE001 - the rule reports it, on this device
            problem = "raised"
        refused[number] = problem is not None
    bad[where] = refused[which.reshape(-1)]
    return bad


class _EndsByDevice:
    """Every link end's (device number, end code), filed by ranges of device numbers as
    the link chunks are read, so that the ports taken twice are found a few ranges per
    step.  A port's ends are all on its device, so all in one range: a range's repeats
    are the design's.  Why: the one sort of the ~880,000 ends of a 100,000-GPU design
    (and the passes around it) were steps of 13-23 ms of the window's first check.

    The ranges are narrow (about :data:`ENDS_PER_STEP` / 8 ends each on average) and
    joined into steps of about :data:`ENDS_PER_STEP` ends by how many each holds: the
    switches, numbered together, hold most of the ends."""

    def __init__(self, numbers: int, ends: int):
        """``numbers``: the device numbers (0 to ``numbers`` - 1); ``ends``: about how
        many ends will come (0: one range, for the one-pass answer)."""
        self.numbers = max(1, numbers)
        self.ranges = max(1, min(ends * 8 // ENDS_PER_STEP, self.numbers))
        self.filed: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(self.ranges)]
        self.sizes = [0] * self.ranges

    def add(self, device: np.ndarray, code: np.ndarray) -> None:
        """File a chunk's ends (device numbers, end codes, row for row)."""
        if self.ranges == 1:
            self.filed[0].append((device, code))
            return
        where = device * self.ranges // self.numbers
        order = np.argsort(where, kind="stable")
        counts = np.bincount(where, minlength=self.ranges)
        device, code = device[order], code[order]
        starts = np.cumsum(counts) - counts
        for at in np.flatnonzero(counts).tolist():
            start, size = int(starts[at]), int(counts[at])
            self.filed[at].append((device[start : start + size], code[start : start + size]))
            self.sizes[at] += size

    def parts(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The ends, a few neighbouring ranges at a time (about :data:`ENDS_PER_STEP`
        ends, at least one range): (device numbers, end codes)."""
        group: list[tuple[np.ndarray, np.ndarray]] = []
        size = 0
        for at, filed in enumerate(self.filed):
            if group and size + self.sizes[at] > ENDS_PER_STEP:
                yield _joined(group)
                group, size = [], 0
            group.extend(filed)
            size += self.sizes[at]
        if group:
            yield _joined(group)


def _joined(filed: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([d for d, _c in filed]), np.concatenate([c for _d, c in filed])


#: Link ends whose doubled ports :func:`port_suspects_in_steps` finds per step (~3 ms).
ENDS_PER_STEP = 50_000


def _doubled_ports(
    devices: DeviceTable,
    device: np.ndarray,
    code: np.ndarray,
    exists: np.ndarray,
    physical: np.ndarray,
    lane_no: np.ndarray,
) -> np.ndarray:
    """Device numbers with a physical port taken by more than one link other than as
    distinct lanes of one split (what ``_doubled`` in the rule words), from link ends'
    device numbers and end codes (every end of the ports they are on); ``physical`` and
    ``lane_no``: each end code's physical port number and lane (0: the whole port).

    One sort serves both questions: the port keys of the sorted lane keys are sorted
    too, and the whole-port ends on a shared port are looked up in the few shared ports
    by binary search (a second sort and ``np.isin``'s were ~2/3 of the pass)."""
    real = exists[code]
    device, code = device[real], code[real]
    if not len(code):
        return device
    port_key = device * devices.ends.physical_ports + physical[code]
    lane_key = port_key * (_MAX_LANE + 2) + lane_no[code]
    ordered = np.sort(lane_key)
    repeated_lane = _repeats(ordered)  # one lane (or the whole port) twice
    shared_ports = _repeats(ordered // (_MAX_LANE + 2))  # sorted (repeats kept)
    whole = np.flatnonzero(lane_no[code] == 0)
    whole_and_more = whole[_members(port_key[whole], shared_ports)]
    ports = devices.ends.physical_ports
    return np.concatenate([repeated_lane // (_MAX_LANE + 2) // ports, device[whole_and_more]])


def _repeats(ordered: np.ndarray) -> np.ndarray:
    """The values that occur more than once in the sorted ``ordered``."""
    return ordered[1:][ordered[1:] == ordered[:-1]]


def _members(keys: np.ndarray, among: np.ndarray) -> np.ndarray:
    """Mask of ``keys`` found in the sorted ``among`` (a value may repeat there: the
    search finds its first place).  No ``np.unique``: its hashing took ~0.2 s on the
    ~400,000 repeated port keys of a 100,000-GPU design's breakout lanes."""
    if not len(among):
        return np.zeros(len(keys), dtype=bool)
    at = np.searchsorted(among, keys)
    at[at == len(among)] = 0
    return among[at] == keys
