"""One plane's links by layer, with the bandwidth on each side of every switch.

:mod:`workbench.calc.fabric.planes` says which devices are a plane's hosts and which tier each
switch is in; the analytics (:mod:`workbench.calc.fabric.analysis`), the failure analysis
(:mod:`workbench.calc.fabric.failure`) and the port counts
(:mod:`workbench.calc.fabric.ports`) also need every link's speed and which *layer* of
the Clos it belongs to.  Layer *k* is the set of links between tier *k* − 1 and tier *k*
(tier 0 being the hosts): layer 1 host–leaf, layer 2 leaf–spine, layer 3 spine–core.  A
link that joins no two adjacent tiers (two hosts back to back, two switches of one tier,
switches no host reaches) is in layer 0 and counts towards no oversubscription or
bisection figure.

The per-link work is numpy over :mod:`workbench.calc.fabric.tables`; every sum per
switch or per layer is a ``bincount``.  The graph algorithms run on a *collapsed*
graph: parallel links become one edge, and hosts cabled to exactly the same switches
become one node (the 32 nodes of a scalable unit share their 8 rail leaves), a few
thousand nodes in all.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

import numpy as np

from workbench.calc.fabric.planes import PlaneStructure, plane_structure
from workbench.calc.fabric.tables import (
    DeviceTable,
    LinkArrays,
    distinct,
    link_arrays,
    numbers,
)
from workbench.calc.steps import drain
from workbench.model.design import Design

#: Collapsed-graph node of a host group: ("hosts", group number).
HostGroup = tuple[str, int]

#: A graph's per-link rows (see :meth:`PlaneGraph.__getattr__`).
_ROWS = ("layer", "lower", "upper", "gbps")


@dataclass(frozen=True)
class HostRows:
    """Who each host of a plane is cabled to, as device numbers: the distinct (host,
    switch) pairs of its host links by host, then switch (``pair_hosts``,
    ``switches``); each host once (``hosts``, ascending), where its pairs start and
    how many there are."""

    hosts: np.ndarray
    starts: np.ndarray
    degree: np.ndarray
    pair_hosts: np.ndarray
    switches: np.ndarray


@dataclass
class PlaneGraph:
    """A plane's links by layer, bandwidth per switch and per layer, and who is cabled
    to whom.  Arrays indexed by link run parallel to ``arrays.links``; arrays indexed by
    device run over :class:`DeviceTable` numbers."""

    structure: PlaneStructure
    devices: DeviceTable
    arrays: LinkArrays
    #: Per link: its layer, its end nearer the hosts and the one farther (device
    #: numbers; the ``a`` and ``b`` ends for layer 0), and its speed with unknown as 0.
    layer: np.ndarray = field(repr=False)
    lower: np.ndarray = field(repr=False)
    upper: np.ndarray = field(repr=False)
    gbps: np.ndarray = field(repr=False)
    #: Per device: Gb/s towards the tier below (hosts, for a leaf) and the tier above.
    down: np.ndarray = field(repr=False)
    up: np.ndarray = field(repr=False)
    #: Per device: the tier of a switch of this plane, −1 for every other device.
    tier: np.ndarray = field(repr=False)
    layer_gbps: dict[int, float] = field(default_factory=dict)
    layer_links: dict[int, int] = field(default_factory=dict)
    #: Links whose speed could not be read (a port or catalog item the design lacks).
    unknown_speed: int = 0
    #: Each switch of ``structure.tiers``' number in ``devices``, in that dict's order
    #: (-1: the design lacks it), where the build had them: :func:`tier_figures` reads
    #: them instead of looking 2,000 ids up again.
    switch_numbers: np.ndarray | None = field(default=None, repr=False)

    def __getattr__(self, name: str) -> np.ndarray:
        """``layer``, ``lower``, ``upper`` and ``gbps`` of a replayed graph, read from
        its arrays and tiers when first asked (:func:`replayed_graph`): the figures the
        window reads after a cabling edit (:func:`~workbench.calc.fabric.analysis.
        tier_figures`) need the sums only, and a row's values read only its own ends."""
        if name not in _ROWS or "arrays" not in self.__dict__:
            raise AttributeError(name)
        arrays = self.arrays
        layer, lower, upper = _rows(
            self.tier, self.devices, arrays.a, arrays.b, arrays.a_code, arrays.b_code
        )
        gbps = np.where(np.isnan(arrays.speed), 0.0, arrays.speed)
        self.__dict__.update(layer=layer, lower=lower, upper=upper, gbps=gbps)
        return cast(np.ndarray, self.__dict__[name])

    @property
    def plane(self) -> str:
        return self.structure.plane

    @property
    def depth(self) -> int:
        return self.structure.depth

    def down_gbps(self, switch: str) -> float:
        return float(self.down[self.devices.pos[switch]])

    def up_gbps(self, switch: str) -> float:
        return float(self.up[self.devices.pos[switch]])

    def _pairs(self, layered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Distinct (lower, upper) device numbers of the links ``layered`` selects."""
        n = len(self.devices)
        keys = distinct(self.lower[layered] * n + self.upper[layered])
        return keys // n, keys % n

    @cached_property
    def host_switches(self) -> dict[str, set[str]]:
        """Host id → the switches it is cabled to."""
        ids = self.devices.ids
        out: dict[str, set[str]] = {}
        hosts, switches = self._pairs(self.layer == 1)
        for host, switch in zip(hosts.tolist(), switches.tolist(), strict=True):
            out.setdefault(ids[host], set()).add(ids[switch])
        return out

    @cached_property
    def uplinks(self) -> dict[str, set[str]]:
        """Switch id → the switches of the tier above it is cabled to."""
        ids = self.devices.ids
        out: dict[str, set[str]] = {}
        lows, highs = self._pairs(self.layer >= 2)
        for low, high in zip(lows.tolist(), highs.tolist(), strict=True):
            out.setdefault(ids[low], set()).add(ids[high])
        return out

    def uplink_pairs(self) -> int:
        """How many distinct (switch, switch above) pairs are cabled."""
        return len(self._pairs(self.layer >= 2)[0])

    def _peer_mask(self) -> np.ndarray:
        """Links of layer 0 between two switches of the plane (peer links of one tier,
        switches no host reaches): they join pieces of the plane like any other."""
        return (self.layer == 0) & (self.tier[self.lower] >= 0) & (self.tier[self.upper] >= 0)

    def peers(self) -> list[tuple[str, str]]:
        """Distinct pairs of switches joined by a layer-0 link."""
        ids = self.devices.ids
        a, b = self._pairs(self._peer_mask())
        return [(ids[x], ids[y]) for x, y in zip(a.tolist(), b.tolist(), strict=True)]

    def islands(self) -> int:
        """How many connected pieces of the plane hold hosts: the connected components
        networkx would find on the collapsed graph, by label propagation in numpy (each
        pass every node takes the smallest label of its neighbours, then labels jump to
        their label's label), which a Clos settles in a handful of passes."""
        cabled = (self.layer > 0) | self._peer_mask()
        u, v = self.lower[cabled], self.upper[cabled]
        hosts = distinct(self.lower[self.layer == 1])
        if len(hosts) == 0:
            return 0
        labels = np.arange(len(self.devices))
        while True:
            low = np.minimum(labels[u], labels[v])
            new = labels.copy()
            np.minimum.at(new, u, low)
            np.minimum.at(new, v, low)
            new = new[new]
            if np.array_equal(new, labels):
                return len(distinct(labels[hosts]))
            labels = new

    def sole_uplinks(self) -> dict[str, str]:
        """Switch id → the one switch above it, for switches with exactly one."""
        lows, highs = self._pairs(self.layer >= 2)
        counts = np.bincount(lows, minlength=len(self.devices))
        ids = self.devices.ids
        only = counts[lows] == 1
        return {
            ids[lo]: ids[hi]
            for lo, hi in zip(lows[only].tolist(), highs[only].tolist(), strict=True)
        }

    @cached_property
    def host_rows(self) -> HostRows:
        """The hosts' switches as device numbers (see :class:`HostRows`)."""
        hosts, switches = self._pairs(self.layer == 1)
        if not len(hosts):
            empty = np.zeros(0, dtype=np.int64)
            return HostRows(empty, empty, empty, empty, empty)
        starts = np.flatnonzero(np.concatenate([[True], hosts[1:] != hosts[:-1]]))
        degree = np.diff(np.append(starts, len(hosts)))
        return HostRows(hosts[starts], starts, degree, hosts, switches)

    def host_groups(self) -> dict[frozenset[str], list[str]]:
        """Hosts grouped by the exact set of switches they are cabled to, in the order
        of :attr:`host_switches` (each group where its first host is, hosts in turn).

        Why numbers: :attr:`host_switches` makes a set of ids per host (12,500 at
        100,000 GPUs, ~0.1 s of ``workbench fabric``); a host's distinct switch
        numbers, in order, name the same set."""
        rows = self.host_rows
        row = rows.switches.tolist()
        bounds = [*rows.starts.tolist(), len(row)]
        by_key: dict[tuple[int, ...], list[int]] = {}
        for host, start, end in zip(rows.hosts.tolist(), bounds, bounds[1:], strict=False):
            by_key.setdefault(tuple(row[start:end]), []).append(host)
        ids = self.devices.ids
        return {
            frozenset([ids[s] for s in key]): [ids[h] for h in hosts]
            for key, hosts in by_key.items()
        }


def plane_graph(
    design: Design,
    plane: str,
    structure: PlaneStructure | None = None,
    devices: DeviceTable | None = None,
    arrays: LinkArrays | None = None,
) -> PlaneGraph:
    """The :class:`PlaneGraph` of ``plane``; ``structure``, ``devices`` and ``arrays``
    (of ``structure.links``), when the caller has them, save recomputing them.  Not
    kept between calls: held for the process, a 1,000,000-GPU compute graph added
    260 MB to the peak of ``workbench report``."""
    return drain(plane_graph_in_steps(design, plane, structure, devices, arrays))


def plane_graph_in_steps(
    design: Design,
    plane: str,
    structure: PlaneStructure | None = None,
    devices: DeviceTable | None = None,
    arrays: LinkArrays | None = None,
) -> Generator[None, None, PlaneGraph]:
    """:func:`plane_graph` in steps, the graph its return value: its array passes over
    the 443,000 links of a 100,000-GPU compute plane were one ~18 ms step of the
    window's first check, then two of 7-14 ms; the rows are now read
    :data:`STEP_ROWS` links per step (a row reads only its own link's ends)."""
    structure = structure if structure is not None else plane_structure(design, plane)
    devices = devices if devices is not None else DeviceTable(design)
    arrays = arrays if arrays is not None else link_arrays(devices, structure.links)
    tier, switches = _tiers(structure, devices)
    parts = []
    for start in range(0, max(len(arrays.a), 1), STEP_ROWS):  # one run when no links
        yield
        end = start + STEP_ROWS
        parts.append(
            _rows(
                tier,
                devices,
                arrays.a[start:end],
                arrays.b[start:end],
                arrays.a_code[start:end],
                arrays.b_code[start:end],
            )
        )
    joined = []
    for column in range(3):  # layer, lower, upper: a step each
        yield
        joined.append(
            parts[0][column] if len(parts) == 1 else np.concatenate([p[column] for p in parts])
        )
    layer, lower, upper = joined
    yield
    gbps = np.where(np.isnan(arrays.speed), 0.0, arrays.speed)
    sums = yield from _sums_in_steps(len(devices), layer, lower, upper, gbps)
    return _graph(
        structure, devices, arrays, tier, (layer, lower, upper, gbps), sums, switches=switches
    )


#: Links whose rows :func:`plane_graph_in_steps` reads per step (~2-3 ms).
STEP_ROWS = 100_000


def _tiers(
    structure: PlaneStructure,
    devices: DeviceTable,
    old: GraphRows | None = None,
    renumber: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per device number: its tier in ``structure``, -1 for every other device; and
    each switch of ``structure.tiers``' number (-1: not in ``devices``), in its order.

    With ``old`` (rows read with the same tiers, in the same order) and ``renumber``
    (its numbers → ``devices``'), both are carried over from ``old``'s: a switch keeps
    its tier, a device gone (numbered :attr:`DeviceTable.missing`) has none.  Only when
    every switch had a number in ``old``'s table: a device that came since is then no
    switch of the tiers.  Why: looking 2,000 switch ids up through a renumbered table
    took ~1 ms of every cabled node removed or put back at 100,000 GPUs."""
    tiers = structure.tiers
    if (
        old is not None
        and renumber is not None
        and old.switch_numbers is not None
        and old.tier is not None
        and (old.tiers is tiers or list(old.tiers) == list(tiers))
        and (old.switch_numbers >= 0).all()
    ):
        missing = len(devices) - 1
        at = renumber[old.switch_numbers]
        at[at == missing] = -1
        tier = np.full(len(devices), -1, dtype=np.int64)
        tier[renumber] = old.tier
        tier[missing] = -1
        return tier, at
    tier = np.full(len(devices), -1, dtype=np.int64)
    at = numbers(devices, list(tiers))
    known = at >= 0
    tier[at[known]] = np.fromiter(tiers.values(), np.int64, len(tiers))[known]
    return tier, at


def _rows(
    tier: np.ndarray,
    devices: DeviceTable,
    a: np.ndarray,
    b: np.ndarray,
    a_code: np.ndarray,
    b_code: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each link's layer and its lower and upper end, from its ends' tiers and whether
    each end is a host end: a row's answer reads only its own ends."""
    host = devices.ends.column("host")
    a_host, b_host = host[a_code], host[b_code]
    one_host = a_host != b_host
    ta, tb = tier[a], tier[b]
    adjacent = ~a_host & ~b_host & (ta > 0) & (tb > 0) & (np.abs(ta - tb) == 1)
    layer = np.where(one_host, 1, np.where(adjacent, np.maximum(ta, tb), 0))
    a_lower = np.where(one_host, a_host, np.where(adjacent, ta < tb, True))
    return layer, np.where(a_lower, a, b), np.where(a_lower, b, a)


def _graph(
    structure: PlaneStructure,
    devices: DeviceTable,
    arrays: LinkArrays,
    tier: np.ndarray,
    rows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None,
    sums: GraphSums | None = None,
    switches: np.ndarray | None = None,
    unknown_speed: int | None = None,
) -> PlaneGraph:
    """The graph from its per-link rows (layer, lower, upper, gbps; None: read from
    ``arrays`` and ``tier`` when first asked, :meth:`PlaneGraph.__getattr__`) and the
    sums per switch and per layer: taken over the rows here, or ``sums`` where the
    caller has them (a replay brings the old ones forward, :func:`replayed_graph`),
    with its ``switches``' numbers and its ``unknown_speed`` count where the caller has
    them.  The one place a graph is put together."""
    if sums is None:
        assert rows is not None, "a graph's sums are taken over its rows"
        sums = _sums(len(devices), *rows)
    down, up, per_layer, counts = sums
    layer, lower, upper, gbps = rows if rows is not None else (np.zeros(0),) * 4
    graph = PlaneGraph(
        structure,
        devices,
        arrays,
        layer,
        lower,
        upper,
        gbps,
        down,
        up,
        tier,
        per_layer,
        counts,
        int(np.isnan(arrays.speed).sum()) if unknown_speed is None else unknown_speed,
        switches,
    )
    if rows is None:
        for name in _ROWS:  # read when first asked
            del graph.__dict__[name]
    return graph


#: A graph's sums: Gb/s per device towards the tier below and the tier above, and per
#: layer its Gb/s and its link count (only the layers that have links).
GraphSums = tuple[np.ndarray, np.ndarray, dict[int, float], dict[int, int]]


def _sums(
    n: int, layer: np.ndarray, lower: np.ndarray, upper: np.ndarray, gbps: np.ndarray
) -> GraphSums:
    """The sums of :data:`GraphSums` over every row (``n`` devices)."""
    return drain(_sums_in_steps(n, layer, lower, upper, gbps))


def _sums_in_steps(
    n: int, layer: np.ndarray, lower: np.ndarray, upper: np.ndarray, gbps: np.ndarray
) -> Generator[None, None, GraphSums]:
    """:func:`_sums`, a step each for the two sums per switch (~3-5 ms each over the
    443,000 links of a 100,000-GPU compute plane), the answer its return value."""
    layered = layer > 0
    down = np.bincount(upper[layered], weights=gbps[layered], minlength=n)
    yield
    above = layer >= 2
    up = np.bincount(lower[above], weights=gbps[above], minlength=n)
    yield
    per_layer = np.bincount(layer, weights=gbps) if len(layer) else np.zeros(1)
    counts = np.bincount(layer) if len(layer) else np.zeros(1, dtype=np.int64)
    return (
        down,
        up,
        {k: float(v) for k, v in enumerate(per_layer.tolist()) if counts[k]},
        {k: int(v) for k, v in enumerate(counts.tolist()) if v},
    )


@dataclass(frozen=True)
class GraphRows:
    """A graph's sums and the tiers they were read with, kept (by the window, beside
    the compute plane's link arrays) for :func:`replayed_graph`.  Not its per-link
    rows: a row's values read only its own ends (:func:`_rows`), so a replay reads the
    removed rows' from the kept link arrays and this ``tier``, and the rows of a
    replayed graph are read when first asked (:meth:`PlaneGraph.__getattr__`).  Why:
    splicing and renumbering four more 300,000-row columns took ~2 ms of every cabled
    node removed or put back at 100,000 GPUs."""

    tiers: dict[str, int]
    down: np.ndarray
    up: np.ndarray
    layer_gbps: dict[int, float]
    layer_links: dict[int, int]
    #: Every Gb/s a whole number (and the sums far below 2**53): sums are then exact
    #: in any order, so a replay may take rows out of them and add rows to them.
    whole: bool
    #: The graph's :attr:`PlaneGraph.tier`, :attr:`PlaneGraph.switch_numbers` and
    #: :attr:`PlaneGraph.unknown_speed`: a replay carries them over (see :func:`_tiers`).
    tier: np.ndarray
    switch_numbers: np.ndarray | None = None
    unknown_speed: int = 0

    @classmethod
    def of(cls, graph: PlaneGraph, whole: bool | None = None) -> GraphRows:
        if whole is None:
            gbps = graph.gbps
            whole = bool(np.all(gbps == np.rint(gbps))) and float(gbps.sum()) < 2.0**50
        return cls(
            graph.structure.tiers,
            graph.down,
            graph.up,
            graph.layer_gbps,
            graph.layer_links,
            whole,
            graph.tier,
            graph.switch_numbers,
            graph.unknown_speed,
        )


def replayed_graph(
    structure: PlaneStructure,
    devices: DeviceTable,
    arrays: LinkArrays,
    old: GraphRows,
    gone: LinkArrays,
    renumber: np.ndarray,
    inserted: Sequence[int],
    unknown_speed: int | None = None,
) -> tuple[PlaneGraph, GraphRows] | None:
    """The graph of ``arrays`` (the old graph's links with some rows taken out, whose
    old link arrays are ``gone``, renumbered by ``renumber``, and rows put in at
    ``inserted``, places in the new list), from ``old``'s sums where the tiers are the
    same: a row's layer and ends read only its own ends' tiers and host ends, so only
    the removed rows (from ``gone`` and ``old.tier``) and the new ones are read, and
    the graph's rows
    are read when first asked.  The sums per switch and per layer are ``old``'s less
    the removed rows and plus the new ones where every Gb/s is a whole number (exact in
    any order), else taken over every row as a full pass takes them: the same figures
    either way.  None when the tiers
    differ (the caller builds the graph in full).  ``unknown_speed``: the links of
    ``arrays`` whose speed is NaN, where the caller counted them from ``old``'s less
    the removed rows' and plus the new ones' (else counted over ``arrays.speed``).

    Why: the per-link passes over a 100,000-GPU compute plane's 300,000 links took
    ~11 ms of every cabled node removed or put back in the window."""
    if old.tiers != structure.tiers:
        return None
    tier, switches = _tiers(structure, devices, old, renumber)
    rows = np.asarray(inserted, dtype=np.int64)
    new_layer, new_lower, new_upper = _rows(
        tier, devices, arrays.a[rows], arrays.b[rows], arrays.a_code[rows], arrays.b_code[rows]
    )
    speed = arrays.speed[rows]
    new_gbps = np.where(np.isnan(speed), 0.0, speed)
    whole = old.whole and bool(np.all(new_gbps == np.rint(new_gbps)))
    if not whole:
        graph = _graph(structure, devices, arrays, tier, None, switches=switches)
        return graph, GraphRows.of(graph, False)
    n = len(devices)
    # Sums: the removed rows out (old numbers), carried to the new numbers, new rows in.
    out_rows = _rows(old.tier, devices, gone.a, gone.b, gone.a_code, gone.b_code)
    out = (*out_rows, np.where(np.isnan(gone.speed), 0.0, gone.speed))
    down, up = old.down.copy(), old.up.copy()
    _add_sums(down, up, *out, sign=-1.0)
    down = np.bincount(renumber, weights=down, minlength=n)
    up = np.bincount(renumber, weights=up, minlength=n)
    _add_sums(down, up, new_layer, new_lower, new_upper, new_gbps, sign=1.0)
    per_layer, counts = dict(old.layer_gbps), dict(old.layer_links)
    for sign, layers, values in ((-1, out[0], out[3]), (1, new_layer, new_gbps)):
        for k, value in zip(layers.tolist(), values.tolist(), strict=True):
            counts[k] = counts.get(k, 0) + sign
            per_layer[k] = per_layer.get(k, 0.0) + sign * value
    counts = {k: counts[k] for k in sorted(counts) if counts[k]}
    per_layer = {k: per_layer[k] for k in counts}
    sums = (down, up, per_layer, counts)
    graph = _graph(structure, devices, arrays, tier, None, sums, switches, unknown_speed)
    return graph, GraphRows.of(graph, True)


def _add_sums(
    down: np.ndarray,
    up: np.ndarray,
    layer: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    gbps: np.ndarray,
    sign: float,
) -> None:
    """Add (or with ``sign`` -1 take out) some rows' Gb/s to the sums per switch, as
    :func:`_sums` takes them: towards the tier below at the upper end of a layered
    row, towards the tier above at the lower end of a row of layer 2 or more."""
    layered, above = layer > 0, layer >= 2
    np.add.at(down, upper[layered], sign * gbps[layered])
    np.add.at(up, lower[above], sign * gbps[above])


def collapsed_edges(
    graph: PlaneGraph, groups: Iterable[frozenset[str]] | None = None
) -> Iterator[tuple[HostGroup | str, str]]:
    """The edges of the collapsed graph (see the module docstring): each host group to
    its switches, each switch to the switches above it and to its peers.  ``groups`` is
    :meth:`PlaneGraph.host_groups`' keys, in order (computed when not given)."""
    groups = graph.host_groups() if groups is None else groups
    for number, switches in enumerate(groups):
        node: HostGroup = ("hosts", number)
        for switch in switches:
            yield node, switch
    for low, highs in graph.uplinks.items():
        for high in highs:
            yield low, high
    yield from graph.peers()


def _networkx() -> Any:
    """networkx, imported on first use: it costs ~0.2 s of every start otherwise, and
    only the plane analysis (a panel or a command that asks for it) needs it."""
    import networkx  # type: ignore[import-untyped]

    return networkx


class CollapsedGraph:
    """The collapsed graph of a plane in networkx, and the questions asked of it."""

    def __init__(self, graph: PlaneGraph, groups: dict[frozenset[str], list[str]] | None = None):
        nx = _networkx()
        groups = graph.host_groups() if groups is None else groups
        #: Host group number → its hosts.
        self.members: list[list[str]] = list(groups.values())
        self.graph = nx.Graph()
        self.graph.add_edges_from(collapsed_edges(graph, groups))

    def remove(self, switches: Iterable[str]) -> None:
        """Take switches out (a failure)."""
        self.graph.remove_nodes_from(list(switches))

    def islands(self) -> list[list[str]]:
        """The hosts of each connected piece that holds hosts, largest first."""
        out = []
        for component in _networkx().connected_components(self.graph):
            hosts = [h for n in component if isinstance(n, tuple) for h in self.members[n[1]]]
            if hosts:
                out.append(hosts)
        out.sort(key=len, reverse=True)
        return out

    def farthest(self) -> int:
        """The most switches on a shortest path between two hosts of one island (0 with
        fewer than two hosts): a breadth-first search from every host group."""
        worst = 0
        for number, members in enumerate(self.members):
            node = ("hosts", number)
            if len(members) > 1:
                worst = max(worst, 1)  # two hosts on the same switches
            if node not in self.graph:
                continue
            lengths = _networkx().single_source_shortest_path_length(self.graph, node)
            for other, edges in lengths.items():
                if isinstance(other, tuple) and other != node:
                    # group → leaf → ... → leaf → group: one switch fewer than edges.
                    worst = max(worst, edges - 1)
        return worst
