"""Cable lengths from the hall plan, and the cable and optics each link needs.

**Length.**  Every rack stands on the hall plan (``Rack.floor_x_mm``/``floor_y_mm``,
:func:`workbench.model.floor.footprint`); a device sits at its U position, its ports
taken at its middle.  A link inside one rack runs vertically between its two devices,
in the rack's cable manager.  A link between racks goes up from its device to the
overhead tray above its rack, along the tray (the Manhattan distance between the two
racks' centres: trays run along and across rows, never diagonally) and down to the other
device.  Slack is added for dressing, bends and the service loop at each end
(:data:`SLACK_FRACTION`, :data:`SLACK_PER_END_M`, :data:`IN_RACK_SLACK_PER_END_M`), and
the result is rounded **up** to a stocked length (:data:`STOCK_LENGTHS_M`).

Racks without a floor position are placed as the plan's "Place racks" would place them
(:func:`workbench.model.floor.lay_out` on a copy of the hall without its devices), so a
design nobody laid out yet gets the lengths of the plan it will get.  A device with no U
position is taken at mid-rack.  Two ends in different sites (halls) are not measured:
such a link needs its own ``length_m``.  A link's own ``length_m`` replaces the
measurement; its ``cable_type`` (one of :data:`workbench.model.ports.MEDIA`) replaces
the choice of media.

**Media and parts** are chosen by :mod:`workbench.calc.fabric.media` (DAC, then AOC,
then multimode, then single-mode optics, by reach).  Optics take one module at each
end (fibre patch cords are not catalog items; they are counted by media and length).  A
breakout lane's end shares the split port's module, one module at the port's full
speed, counted once per split port.  A copper breakout takes one splitter harness per
split port (a catalog cable with ``props.breakout_lanes``, such as NVIDIA's MCP7Y00 800G
twin-port OSFP to 2 × 400G OSFP) when one of its speeds, cages and length is stocked,
the longest its lanes need; so does a twin-port cage (a QM9700's) whose ports run on
copper to hosts, its plug being one.  Otherwise, and for AOC, one cable per lane.

The per-link work is numpy over :mod:`workbench.calc.fabric.graph`'s arrays; parts are
chosen once per distinct (speed, length, cages, media, lanes) combination.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from workbench.calc.fabric.media import Choice, PartChooser, design_parts
from workbench.calc.fabric.planes import link_plane
from workbench.calc.fabric.tables import (
    DeviceTable,
    LinkArrays,
    coded,
    coded_gather,
    distinct,
    link_arrays,
)
from workbench.catalog.item import CatalogItem
from workbench.model import floor
from workbench.model.design import Design, Link, Row, Site
from workbench.model.placement import rack_height
from workbench.model.ports import MEDIA

#: One rack unit, EIA-310: 1.75 in.
RACK_UNIT_M = 0.04445
#: Planning assumption: the overhead ladder tray runs about 300 mm above the rack tops.
TRAY_ABOVE_RACK_M = 0.3
#: Planning assumption: 10 % of the run for bends and dressing ...
SLACK_FRACTION = 0.10
#: ... plus a service loop at each end of a run through the tray (0.5 m), or a short
#: loop into the vertical cable manager for a run inside one rack (0.25 m).
SLACK_PER_END_M = 0.5
IN_RACK_SLACK_PER_END_M = 0.25
#: Planning assumption: the lengths DAC, AOC and fibre patch cords are commonly stocked
#: in (m); a longer run is cut to order in :data:`LONG_RUN_STEP_M` steps.
STOCK_LENGTHS_M: tuple[float, ...] = (
    0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0,
    50.0, 70.0, 100.0, 150.0, 200.0, 300.0, 500.0,
)  # fmt: skip
LONG_RUN_STEP_M = 100.0


def stocked_lengths(raw_m: np.ndarray) -> np.ndarray:
    """The shortest stocked length at least each ``raw_m`` long (NaN stays NaN)."""
    stock = np.asarray(STOCK_LENGTHS_M)
    at = np.searchsorted(stock, raw_m - 1e-9, side="left")
    beyond = np.ceil(raw_m / LONG_RUN_STEP_M - 1e-9) * LONG_RUN_STEP_M
    return np.where(at < len(stock), stock[np.minimum(at, len(stock) - 1)], beyond)


def stocked_length(raw_m: float) -> float:
    """:func:`stocked_lengths` of one run."""
    return float(stocked_lengths(np.array([raw_m], dtype=float))[0])


# -- geometry --------------------------------------------------------------------------------


@dataclass
class Spots:
    """Per device number (:class:`~workbench.calc.fabric.graph.DeviceTable`): its site and
    rack (numbered; −1 for none), its rack's centre on the plan and top (m), and its
    middle above the rack floor (m)."""

    site: np.ndarray
    rack: np.ndarray
    x: np.ndarray
    y: np.ndarray
    top: np.ndarray
    height: np.ndarray


def _laid_out(design: Design) -> dict[str, tuple[float, float, str]]:
    """Rack id → (x, y, facing) as :func:`floor.lay_out` would place the racks without a
    position, worked out on a copy of the hall without devices (the design is untouched)."""
    if all(floor.is_placed(r) for r in design.iter_racks()):
        return {}
    shadow = Design(device_types=design.device_types, properties=dict(design.properties))
    for site in design.sites:
        rows = [Row(r.id, r.name, [replace(k, devices=[]) for k in r.racks]) for r in site.rows]
        shadow.sites.append(Site(site.id, site.name, rows))
    placed = set(floor.lay_out(shadow))
    return {
        r.id: (r.floor_x_mm or 0.0, r.floor_y_mm or 0.0, r.facing)
        for r in shadow.iter_racks()
        if r.id in placed
    }


def spots(design: Design, devices: DeviceTable) -> Spots:
    """Where every device's ports are (see :class:`Spots` and the module docstring)."""
    n = len(devices)
    out = Spots(
        np.full(n, -1, dtype=np.int64),
        np.full(n, -1, dtype=np.int64),
        np.full(n, math.nan),
        np.full(n, math.nan),
        np.full(n, math.nan),
        np.full(n, math.nan),
    )
    laid = _laid_out(design)
    sizes: dict[str, tuple[float, float]] = {}
    pos, items = devices.pos, devices.items
    # Per rack (numbered from 1) its site, centre and top; per device placed its number,
    # its rack and its height: set as whole columns at the end (a 100,000-GPU design's
    # 105,000 devices set one numpy element at a time took ~0.1 s).
    rack_site, rack_x, rack_y, rack_top = [-1], [math.nan], [math.nan], [math.nan]
    at_of: list[int] = []
    rack_of: list[int] = []
    height_of: list[float] = []
    racks = 0
    for s, site in enumerate(design.sites):
        for row in site.rows:
            for rack in row.racks:
                racks += 1
                if rack.id in laid:
                    x, y, facing = laid[rack.id]
                    rack = replace(rack, floor_x_mm=x, floor_y_mm=y, facing=facing)
                rect = floor.footprint(design, rack, sizes)
                cx, cy = rect.center if rect is not None else (0.0, 0.0)
                top = rack_height(design, rack) * RACK_UNIT_M
                rack_site.append(s)
                rack_x.append(cx / 1000.0)
                rack_y.append(cy / 1000.0)
                rack_top.append(top)
                for device in rack.devices:
                    at = pos.get(device.id)
                    if at is None:
                        continue
                    at_of.append(at)
                    rack_of.append(racks)
                    if device.position is None:
                        height_of.append(top / 2)
                    else:
                        item = items[at]
                        u = float(item.u_height) if item is not None else 1.0
                        height_of.append((device.position - 1 + u / 2) * RACK_UNIT_M)
    at_ = np.array(at_of, dtype=np.int64)
    rack_ = np.array(rack_of, dtype=np.int64)
    out.site[at_] = np.array(rack_site, dtype=np.int64)[rack_]
    out.rack[at_] = rack_
    out.x[at_] = np.array(rack_x)[rack_]
    out.y[at_] = np.array(rack_y)[rack_]
    out.top[at_] = np.array(rack_top)[rack_]
    out.height[at_] = np.array(height_of, dtype=float)
    return out


#: Links measured at a time: each slice's dozen temporary arrays then stay a few MB
#: instead of ~100 bytes a link all at once (0.4 GB for a 1,000,000-GPU design).
_RUN_SLICE = 1 << 16


def run_lengths(where: Spots, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The measured run with slack between devices ``a[i]`` and ``b[i]`` (device
    numbers), m, before rounding; NaN across sites or off the racks."""
    if len(a) <= _RUN_SLICE:
        return _run_lengths(where, a, b)
    out = np.empty(len(a), dtype=float)
    for start in range(0, len(a), _RUN_SLICE):
        stop = start + _RUN_SLICE
        out[start:stop] = _run_lengths(where, a[start:stop], b[start:stop])
    return out


def _run_lengths(where: Spots, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ha, hb = where.height[a], where.height[b]
    inside = np.abs(ha - hb) * (1 + SLACK_FRACTION) + 2 * IN_RACK_SLACK_PER_END_M
    up = (where.top[a] - ha + TRAY_ABOVE_RACK_M) + (where.top[b] - hb + TRAY_ABOVE_RACK_M)
    along = np.abs(where.x[a] - where.x[b]) + np.abs(where.y[a] - where.y[b])
    across = (up + along) * (1 + SLACK_FRACTION) + 2 * SLACK_PER_END_M
    raw = np.where(where.rack[a] == where.rack[b], inside, across)
    return np.where((where.site[a] == where.site[b]) & (where.site[a] >= 0), raw, math.nan)


# -- links -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cable:
    """What one link needs.

    ``raw_m`` is the measured run with slack (or the link's own length), ``length_m``
    the stocked length bought; both None when the run could not be measured.
    ``optic_slug`` is the module each whole-port end takes and ``optics`` how many of
    it the link needs (2; 1 with one breakout end; 0 for copper, AOC and twisted pair);
    ``shared_optics`` names (device, physical port, module) for a breakout end, whose
    split port's one module its lanes share.
    """

    link_id: str
    speed_gbps: float | None
    raw_m: float | None
    length_m: float | None
    media: str
    cable_slug: str | None
    optic_slug: str | None
    optics: int = 0
    shared_optics: tuple[tuple[str, str, str], ...] = ()
    reason: str | None = None
    #: False when the length is the link's own ``length_m``.
    measured: bool = True


def _none(value: float) -> float | None:
    return None if math.isnan(value) else value


def ports_per_cage(item: CatalogItem | None) -> int:
    """How many logical ports one cage of ``item`` holds (``props.ports_per_cage``; 1
    when not given).  A Quantum-2 QM9700's 32 OSFP cages hold two NDR ports each and
    take twin-port 2x400G modules: one module serves both ports of its cage."""
    value = item.props.get("ports_per_cage") if item is not None else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        return 1
    return value


@dataclass
class _Cages:
    """Per end code: the ports its cage holds (1: a cage of its own), and for an end in
    a shared cage a number for (catalog item, cage) and the cage's label (``cage 1``)."""

    ways: np.ndarray
    key: np.ndarray
    labels: list[str]


def _cages(facts: Sequence[object]) -> _Cages:
    ways = np.ones(len(facts), dtype=np.int64)
    key = np.full(len(facts), -1, dtype=np.int64)
    labels = [""] * len(facts)
    numbers: dict[tuple[str, int], int] = {}
    order: dict[str, dict[str, int]] = {}
    for code, fact in enumerate(facts):
        item = getattr(fact, "item", None)
        k = ports_per_cage(item)
        if k < 2 or item is None or getattr(fact, "lane", None) is not None:
            continue
        data = order.get(item.slug)
        if data is None:
            names = [i.name for i in item.interfaces if not i.mgmt_only]
            data = order[item.slug] = {name: n for n, name in enumerate(names)}
        at = data.get(getattr(fact, "name", ""))
        if at is None:
            continue
        cage = at // k
        ways[code] = k
        key[code] = numbers.setdefault((item.slug, cage), len(numbers))
        labels[code] = f"cage {cage + 1}"
    return _Cages(ways, key, labels)


@dataclass
class _Runs:
    """Links measured in bulk: per link its raw and stocked length, and which distinct
    combination (:attr:`choices`) it falls in; per combination its choice, its stocked
    length, the modules its whole-port ends take, and the shared module of a split
    port at each breakout end (``a_module``, ``b_module``; None for none) and the
    splitter harness of a copper breakout end (``a_harness``, ``b_harness``)."""

    links: Sequence[Link]
    devices: DeviceTable
    arrays: LinkArrays
    raw: np.ndarray
    length: np.ndarray
    combo: np.ndarray
    counts: np.ndarray
    choices: list[Choice]
    optics: list[int]
    lengths: list[float | None]
    a_module: list[str | None]
    b_module: list[str | None]
    cages: _Cages | None = None
    a_harness: list[str | None] = field(default_factory=list)
    b_harness: list[str | None] = field(default_factory=list)
    #: Harness slug → its length, m.
    harness_m: dict[str, float] = field(default_factory=dict)

    def _unit(self, codes: np.ndarray) -> np.ndarray:
        """The shared unit of each end: its physical port, or (twin-port cage ends) its
        cage, numbered after the physical ports so the two never collide."""
        physical = self.devices.ends.column("physical")[codes]
        if self.cages is None:
            return physical
        key = self.cages.key[codes]
        return np.where(key >= 0, self.devices.ends.physical_ports + key, physical)

    def shared(self, i: int) -> tuple[tuple[str, str, str], ...]:
        """(device, physical port, module) of link ``i``'s breakout ends on optics."""
        number = self.combo[i]
        found = []
        link, facts = self.links[i], self.devices.ends.facts
        for device, code, module in (
            (link.a_device, self.arrays.a_code[i], self.a_module[number]),
            (link.b_device, self.arrays.b_code[i], self.b_module[number]),
        ):
            if module is not None:
                label = self.cages.labels[int(code)] if self.cages is not None else ""
                found.append((device, label or facts[int(code)].physical, module))
        return tuple(found)

    def shared_modules(self) -> Counter[str]:
        """Module slug → split ports that take one (each split port once, however many
        of its lanes are cabled)."""
        names, part, _port = self._split_ports(self.a_module, self.b_module)
        counts = np.bincount(part, minlength=len(names))
        return Counter({m: int(counts[i]) for i, m in enumerate(names) if counts[i]})

    def harnesses(self) -> Counter[str]:
        """Harness slug → split ports that take one: one harness serves all the port's
        lanes, the longest any of them needs (lanes of different lengths)."""
        names, part, port = self._split_ports(self.a_harness, self.b_harness)
        longest: dict[int, int] = {}
        for p, q in zip(part.tolist(), port.tolist(), strict=True):
            known = longest.get(q)
            if known is None or self.harness_m[names[p]] > self.harness_m[names[known]]:
                longest[q] = p
        return Counter(names[p] for p in longest.values())

    def _split_ports(
        self, a_part: list[str | None], b_part: list[str | None]
    ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The part slugs ``a_part`` and ``b_part`` name (per combination, at that end),
        and for every distinct (part, split port or twin-port cage) the part's index in
        them and a key of the port."""
        names = sorted({m for m in a_part + b_part if m is not None})
        if not names:
            return [], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        number = {m: i for i, m in enumerate(names)}
        a_mod = np.array([number.get(m, -1) if m else -1 for m in a_part], dtype=np.int64)
        b_mod = np.array([number.get(m, -1) if m else -1 for m in b_part], dtype=np.int64)
        ends = self.devices.ends
        width = ends.physical_ports + (len(self.cages.labels) if self.cages is not None else 0)
        mods = np.concatenate([a_mod[self.combo], b_mod[self.combo]])
        ports = np.concatenate(
            [
                self.arrays.a * width + self._unit(self.arrays.a_code),
                self.arrays.b * width + self._unit(self.arrays.b_code),
            ]
        )
        keep = mods >= 0
        span = len(self.devices) * width
        pairs = distinct(mods[keep] * span + ports[keep])
        return names, pairs // span, pairs % span


def _measure(
    design: Design,
    links: Sequence[Link],
    parts: Iterable[CatalogItem] | None,
    devices: DeviceTable | None,
    arrays: LinkArrays | None,
    where: Spots | None = None,
) -> _Runs:
    devices = devices if devices is not None else DeviceTable(design)
    arrays = arrays if arrays is not None else link_arrays(devices, links)
    chooser = PartChooser(design_parts(design) if parts is None else parts)
    given = [link.length_m for link in links]
    own = np.array(given, dtype=float) if any(given) else np.full(len(links), math.nan)
    if len(links):
        where = where if where is not None else spots(design, devices)
        measured = run_lengths(where, arrays.a, arrays.b)
    else:
        measured = own
    raw = np.where(np.isnan(own), measured, own)
    length = stocked_lengths(raw)
    ends = devices.ends
    cage, lane, port_speed = ends.column("cage"), ends.column("lane"), ends.column("port_speed")
    media_codes: dict[str | None, int] = {None: 0, **{m: i + 1 for i, m in enumerate(MEDIA)}}
    picked = [link.cable_type for link in links]
    if any(picked):
        codes = [media_codes.setdefault(kind, len(media_codes)) for kind in picked]
        forced = np.array(codes, dtype=np.int64)
    else:
        forced = np.zeros(len(links), dtype=np.int64)
    a_code, b_code = arrays.a_code, arrays.b_code
    cage_facts = _cages(ends.facts)
    # Per end code: the split port's speed at a breakout end, else -1.
    split_speed = np.where(lane, np.nan_to_num(port_speed, nan=0.0), -1.0)
    # One integer per distinct (speed, length, cages, media, the split port's speed at
    # each breakout end): the parts are chosen once per combination, not once per link.
    # Each column is coded only when its turn comes and dropped once coded: nine of
    # them at once held 72 bytes a link (0.3 GB for a 1,000,000-GPU design).  A column
    # read per end code is coded from the codes the links use (coded_gather).
    columns = (
        lambda: coded(np.nan_to_num(arrays.speed, nan=-1.0))[:2],
        lambda: coded(np.nan_to_num(length, nan=-1.0))[:2],
        lambda: coded_gather(cage, a_code),
        lambda: coded_gather(cage, b_code),
        lambda: coded(forced)[:2],
        lambda: coded_gather(split_speed, a_code),
        lambda: coded_gather(split_speed, b_code),
        lambda: coded_gather(cage_facts.ways, a_code),
        lambda: coded_gather(cage_facts.ways, b_code),
    )
    key = np.zeros(len(links), dtype=np.int64)
    values: list[np.ndarray] = []
    for column in columns:
        found, code = column()
        values.append(found)
        key *= max(len(found), 1)
        key += code
        del code
    combos, combo, counts = coded(key)
    # Back from each combination's integer to its column values.
    rows = []
    for number in combos.tolist():
        row = []
        for found in reversed(values):
            number, code = divmod(number, max(len(found), 1))
            row.append(float(found[code]))
        rows.append(tuple(reversed(row)))
    names = {code: name for name, code in media_codes.items()}
    runs = _Runs(links, devices, arrays, raw, length, combo, counts, [], [], [], [], [], cage_facts)
    runs.harness_m = {h.slug: h.length_m for h in chooser.harnesses}
    for speed, stock, ca, cb, media, a_split, b_split, a_ways, b_ways in rows:
        stocked = None if stock < 0 else stock
        cages = tuple(sorted({ends.cages[int(c)] for c in (ca, cb) if ends.cages[int(c)]}))
        choice = chooser.choose(None if speed < 0 else speed, stocked, cages, names[int(media)])
        harness = None
        # A stocked harness is copper, the first medium tried: it serves whatever a lane
        # alone would take, unless the link forces another medium.
        # A twin-port cage is split the same way: its ports are lanes of one plug.
        a_port = a_split if a_split > 0 else speed * a_ways if a_ways > 1 else 0.0
        b_port = b_split if b_split > 0 else speed * b_ways if b_ways > 1 else 0.0
        if names[int(media)] in (None, "dac") and speed > 0 and (a_port > 0) != (b_port > 0):
            harness = chooser.harness(max(a_port, b_port), speed, stocked, cages)
            if harness is not None:
                choice = Choice("dac", harness, None)
        runs.a_harness.append(harness if a_port > 0 else None)
        runs.b_harness.append(harness if b_port > 0 else None)
        runs.choices.append(choice)
        runs.lengths.append(stocked)
        whole_ends = int(a_split < 0) + int(b_split < 0)
        for split, ways, modules in (
            (a_split, a_ways, runs.a_module),
            (b_split, b_ways, runs.b_module),
        ):
            shared = None
            if choice.optic_slug is not None and split > 0:
                shared = chooser.module(choice.media, split, stocked)
            elif choice.optic_slug is not None and split < 0 and ways > 1 and speed > 0:
                # A twin-port cage: one module at the cage's full speed for its ports.
                need = stocked if stocked is not None else chooser.reach(choice.optic_slug)
                shared = chooser.module(choice.media, speed * ways, need, exact=True)
                if shared is not None:
                    whole_ends -= 1
            modules.append(shared)
        runs.optics.append(0 if choice.optic_slug is None else whole_ends)
    return runs


def measure_links(
    design: Design,
    link_ids: Iterable[str] | None = None,
    parts: Iterable[CatalogItem] | None = None,
) -> dict[str, Cable]:
    """Link id → :class:`Cable` for ``link_ids`` (default: every link), choosing from
    ``parts`` (default: :func:`design_parts`).  An unknown id is a KeyError naming it."""
    if link_ids is None:
        links: list[Link] = list(design.links)
    else:
        index = design.index.links
        links = []
        for link_id in link_ids:
            if link_id not in index:
                raise KeyError(f"no link with id {link_id!r}")
            links.append(index[link_id])
    runs = _measure(design, links, parts, None, None)
    return {link.id: _cable(runs, i, link) for i, link in enumerate(links)}


def iter_cables(
    design: Design, links: Sequence[Link], chunk: int = 20_000
) -> Iterator[tuple[Link, Cable]]:
    """(link, :class:`Cable`) for every one of ``links``, in order, measured ``chunk``
    links at a time: an export writing 300,000 rows holds one chunk of cables, not all
    of them (what the design-wide tables cost is paid once)."""
    devices = DeviceTable(design)
    parts = design_parts(design)
    where = spots(design, devices)
    for start in range(0, len(links), chunk):
        some = links[start : start + chunk]
        runs = _measure(design, some, parts, devices, None, where)
        for i, link in enumerate(some):
            yield link, _cable(runs, i, link)


def _cable(runs: _Runs, i: int, link: Link) -> Cable:
    choice = runs.choices[runs.combo[i]]
    return Cable(
        link.id,
        _none(float(runs.arrays.speed[i])),
        _none(float(runs.raw[i])),
        _none(float(runs.length[i])),
        choice.media,
        choice.cable_slug,
        choice.optic_slug,
        runs.optics[runs.combo[i]],
        runs.shared(i),
        choice.reason,
        link.length_m is None,
    )


# -- counts ----------------------------------------------------------------------------------


@dataclass
class CableCounts:
    """Cables and optics to buy, for the BOM and ``workbench fabric --json``."""

    links: int = 0
    by_media: Counter[str] = field(default_factory=Counter)
    #: (media, stocked length m) → runs; runs without a length under length None.
    by_length: Counter[tuple[str, float | None]] = field(default_factory=Counter)
    #: Catalog slug → how many to buy (cables per run, optics per module).
    parts: Counter[str] = field(default_factory=Counter)
    optics: int = 0
    #: (media, stocked length m) → runs whose medium reaches but whose length no stocked
    #: cable covers: ordered at that length, to be quoted.
    to_quote: Counter[tuple[str, float]] = field(default_factory=Counter)
    #: Runs with a reason (no part reaches, not measured ...), and the reasons seen.
    problems: int = 0
    reasons: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, object]:
        return {
            "links": self.links,
            "by_media": dict(sorted(self.by_media.items())),
            "by_length": [
                {"media": media, "length_m": length, "count": n}
                for (media, length), n in sorted(
                    self.by_length.items(),
                    key=lambda kv: (kv[0][0], math.inf if kv[0][1] is None else kv[0][1]),
                )
            ],
            "parts": dict(sorted(self.parts.items())),
            "optics": self.optics,
            "to_quote": [
                {"media": media, "length_m": length, "count": n}
                for (media, length), n in sorted(self.to_quote.items())
            ],
            "problems": self.problems,
            "reasons": [r for r, _n in self.reasons.most_common(10)],
        }


def count_cables(
    design: Design,
    links: Sequence[Link],
    parts: Iterable[CatalogItem] | None = None,
    *,
    devices: DeviceTable | None = None,
    arrays: LinkArrays | None = None,
) -> CableCounts:
    """:class:`CableCounts` of ``links`` (``devices`` and ``arrays``, the
    :mod:`~workbench.calc.fabric.graph` tables of these links, save rebuilding them)."""
    runs = _measure(design, links, parts, devices, arrays)
    counts = CableCounts()
    for number, (choice, optics) in enumerate(zip(runs.choices, runs.optics, strict=True)):
        n = int(runs.counts[number])
        counts.links += n
        counts.by_media[choice.media] += n
        counts.by_length[(choice.media, runs.lengths[number])] += n
        if choice.cable_slug is not None and not (runs.a_harness[number] or runs.b_harness[number]):
            counts.parts[choice.cable_slug] += n  # a harness is counted per split port below
        if choice.optic_slug is not None and optics:
            counts.parts[choice.optic_slug] += n * optics
            counts.optics += n * optics
        stocked = runs.lengths[number]
        if choice.quote and stocked is not None:
            counts.to_quote[(choice.media, stocked)] += n
        elif choice.reason is not None:
            counts.reasons[choice.reason] += n
    for module, n in runs.shared_modules().items():
        counts.parts[module] += n
        counts.optics += n
    for harness, n in runs.harnesses().items():
        counts.parts[harness] += n
    counts.problems = sum(counts.reasons.values())
    return counts


def cable_counts(
    design: Design, plane: str | None = None, parts: Iterable[CatalogItem] | None = None
) -> CableCounts:
    """:class:`CableCounts` of every link of ``plane`` (default: every link)."""
    if plane is None:
        return count_cables(design, design.links, parts)
    planes = {n.id: n.plane for n in design.networks}
    chosen = [link for link in design.links if link_plane(design, link, planes) == plane]
    return count_cables(design, chosen, parts)
