"""Per-plane fabric figures: tiers, oversubscription, bisection bandwidth, hop count,
ports used and free, hosts, failures, MTU and cables.

Everything is read from the links, through :func:`workbench.calc.fabric.planes.plane_structure`
(hosts and switch tiers) and :mod:`workbench.model.ports` (port speeds and lanes).  The
formulas, and why each is exact or a bound:

* **Oversubscription** of a tier is the Gb/s its switches have towards the tier below
  (hosts, for leaves) over the Gb/s they have towards the tier above (domain brief §3):
  a leaf with 32 × 200G down and 16 × 400G up is 6,400 / 6,400 = 1:1, non-blocking.
  The top tier has nothing above it and no ratio.
* **Bisection bandwidth**: split the hosts into two halves; whatever crosses the cut
  goes up through some tier and back down.  Half of the hosts' own bandwidth, and half
  of each tier's uplink bandwidth, are therefore upper bounds on what can cross, and
  the smallest of them is the answer for a symmetric fat tree (every switch of a tier
  alike, uplinks spread evenly), where a cut through the middle of every tier is the
  minimum cut.  For an uneven fabric it stays an upper bound: a worse cut may exist.
* **Maximum hop count** is the number of switches on the longest shortest path between
  two hosts.  It is computed exactly with networkx on the collapsed graph (see
  :mod:`workbench.calc.fabric.graph`) while that graph is small, and otherwise taken as
  2 × depth − 1 (up to the top tier and down again), which is exact for a Clos in one
  piece (the pieces are counted in numpy, :meth:`~workbench.calc.fabric.graph.
  PlaneGraph.islands`) and never quadratic.
* **Failures**: :mod:`workbench.calc.fabric.failure`.
* **MTU**: every network of a plane at one MTU, InfiniBand at 4096 and RoCE at 9000
  (domain brief §3).
* **Cables**: :mod:`workbench.calc.cabling`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress

import numpy as np

from workbench.calc.cabling import CableCounts, count_cables
from workbench.calc.fabric.failure import (
    JSON_IDS,
    FailureImpact,
    layer_name,
    worst_single_failures,
)
from workbench.calc.fabric.graph import CollapsedGraph, PlaneGraph, plane_graph
from workbench.calc.fabric.planes import PlaneStructure, plane_structures, tier_name
from workbench.calc.fabric.ports import SwitchPorts, switch_ports, uncabled_hosts
from workbench.calc.fabric.tables import DeviceTable, LinkArrays, numbers
from workbench.model.design import PLANES, Design, Link, Network

#: The MTU each fabric technology runs at (domain brief §3: "MTU must match on both
#: ends (IB 4096, RoCE 9000)").
EXPECTED_MTU: dict[str, int] = {"infiniband": 4096, "roce": 9000}
MTU_SOURCE = (
    "domain brief §3: RoCE needs lossless Ethernet and the MTU must match on both ends "
    "(InfiniBand 4096, RoCEv2 9000)"
)
#: Exact hop counts are computed while (host groups) × (graph size) stays below this;
#: beyond it the closed form is used (see the module docstring).
EXACT_HOPS_BUDGET = 2_000_000


# -- tiers and oversubscription ----------------------------------------------------------


@dataclass(frozen=True)
class TierFigures:
    """One switch tier's bandwidth towards the tier below and the tier above."""

    tier: int
    switches: int
    down_gbps: float
    up_gbps: float
    #: Σ down / Σ up; None for the top tier (nothing above) or a tier with no uplinks.
    ratio: float | None
    #: The most oversubscribed switch of the tier that has uplinks, and its ratio.
    worst_switch: str | None
    worst_ratio: float | None
    #: Switches of this tier, below the top, with no uplink at all.
    no_uplink: int

    @property
    def name(self) -> str:
        return tier_name(self.tier)

    def to_json(self) -> dict[str, object]:
        return {
            "tier": self.name,
            "switches": self.switches,
            "down_gbps": round(self.down_gbps, 3),
            "up_gbps": round(self.up_gbps, 3),
            "ratio": _round(self.ratio),
            "worst_switch": self.worst_switch,
            "worst_ratio": _round(self.worst_ratio),
            "switches_without_uplinks": self.no_uplink,
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def tier_figures(graph: PlaneGraph) -> list[TierFigures]:
    """Every switch tier's figures, leaves first."""
    out = []
    depth = graph.depth
    # Every switch numbered at once, in the structure's order (each tier's switches
    # then in the order switches_in gives them).
    tiers = graph.structure.tiers
    every = list(tiers)
    numbered = graph.switch_numbers
    if numbered is None or len(numbered) != len(every):
        numbered = numbers(graph.devices, every)
    levels = np.fromiter(tiers.values(), np.int64, len(every))
    for tier in range(1, depth + 1):
        # A link may name a switch the design no longer holds (a damaged or foreign
        # file): it has no row in the device table, so it has no figures either.
        chosen = (levels == tier) & (numbered >= 0)
        switches = list(compress(every, chosen.tolist()))
        at = numbered[chosen]
        down, up = graph.down[at], graph.up[at]
        with_up = np.flatnonzero(up > 0)
        worst_switch = worst_ratio = None
        if len(with_up):
            ratios = down[with_up] / up[with_up]
            k = int(np.argmax(ratios))
            worst_switch, worst_ratio = switches[int(with_up[k])], float(ratios[k])
        total_down, total_up = float(down.sum()), float(up.sum())
        out.append(
            TierFigures(
                tier,
                len(switches),
                total_down,
                total_up,
                total_down / total_up if tier < depth and total_up > 0 else None,
                worst_switch,
                worst_ratio,
                int(len(switches) - len(with_up)) if tier < depth else 0,
            )
        )
    return out


def oversubscription(graph: PlaneGraph | Sequence[TierFigures]) -> dict[str, float]:
    """Tier name → Σ down / Σ up, for every tier below the top that has uplinks (from
    the plane's graph, or its :func:`tier_figures` when the caller has them)."""
    tiers = tier_figures(graph) if isinstance(graph, PlaneGraph) else graph
    return {t.name: t.ratio for t in tiers if t.ratio is not None}


def bisection_gbps(graph: PlaneGraph) -> float:
    """Half of the smallest of the hosts' bandwidth and each tier's uplink bandwidth
    (exact for a symmetric fat tree, an upper bound otherwise: module docstring)."""
    layers = [graph.layer_gbps.get(layer, 0.0) for layer in range(1, graph.depth + 1)]
    return min(layers, default=0.0) / 2


# -- hops and islands --------------------------------------------------------------------


@dataclass(frozen=True)
class HopCount:
    """The most switches between two hosts, and how it was found."""

    hops: int | None
    exact: bool
    #: Connected pieces of the plane that hold hosts (1 for a whole fabric).
    islands: int


def max_hops(graph: PlaneGraph, groups: dict[frozenset[str], list[str]] | None = None) -> HopCount:
    """The maximum hop count (see the module docstring); None with fewer than two hosts,
    with hosts in separate islands, or for a large plane that is not a Clos."""
    groups = graph.host_groups() if groups is None else groups
    hosts = sum(len(m) for m in groups.values())
    if hosts < 2:
        return HopCount(None, True, 1 if hosts else 0)
    size = len(graph.structure.tiers) + graph.uplink_pairs() + sum(len(g) for g in groups)
    if len(groups) * size > EXACT_HOPS_BUDGET:
        # The closed form holds for a Clos in one piece: links inside a tier (or to
        # switches no host reaches) may make paths longer, so then there is no answer.
        islands = graph.islands()
        clos = graph.depth > 0 and islands == 1 and not graph.peers()
        return HopCount(2 * graph.depth - 1 if clos else None, False, islands)
    built = CollapsedGraph(graph, groups)
    islands = len(built.islands())
    return HopCount(built.farthest() if islands == 1 else None, True, islands)


# -- MTU ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MtuProblem:
    """A network whose MTU disagrees with its plane or its technology."""

    network_id: str
    message: str


def plane_networks(design: Design, plane: str) -> list[Network]:
    return [n for n in design.networks if n.plane == plane]


def mtu_problems(design: Design, plane: str) -> list[MtuProblem]:
    """Networks of ``plane`` at an MTU their technology does not run at, and, when the
    plane's networks disagree, every network off the most common MTU (the smaller one
    on a tie: every port of the plane can carry it)."""
    networks = plane_networks(design, plane)
    problems = []
    for network in networks:
        want = EXPECTED_MTU.get(network.technology)
        if want is not None and network.mtu != want:
            problems.append(
                MtuProblem(
                    network.id,
                    f"{network.name} ({network.technology}) has MTU {network.mtu}; "
                    f"{network.technology} planes run at {want}.",
                )
            )
    mtus = [n.mtu for n in networks]
    if len(set(mtus)) > 1:
        common = max(set(mtus), key=lambda m: (mtus.count(m), -m))
        listed = ", ".join(f"{n.name} {n.mtu}" for n in networks)
        for network in networks:
            if network.mtu != common:
                problems.append(
                    MtuProblem(
                        network.id,
                        f"The {plane} plane's networks disagree on the MTU ({listed}); "
                        f"{network.name} is off the plane's {common}.",
                    )
                )
    return problems


# -- the report --------------------------------------------------------------------------


@dataclass
class PlaneReport:
    """Every figure of one plane (see the module docstring); :meth:`to_json` for
    ``report --json`` and ``workbench fabric --json``.

    JSON keys: ``plane``, ``networks`` (ids), ``tiers`` (depth), ``leaf_switches``,
    ``spine_switches``, ``core_switches``, ``switches_by_tier``, ``hosts``,
    ``uncabled_hosts`` (count) and ``uncabled_host_ids``, ``links``,
    ``links_by_layer``, ``oversubscription`` (tier name → ratio), ``tier_figures``,
    ``host_tbps``, ``bisection_tbps``, ``max_hops``, ``max_hops_exact``, ``islands``,
    ``ports`` (totals and ``per_switch``), ``failures`` (``worst_leaf``,
    ``worst_spine``), ``mtu`` (``values``, ``consistent``, ``problems``), ``cables``
    (:meth:`~workbench.calc.cabling.CableCounts.to_json`) and ``unknown_speed_links``.
    Id lists stop at :data:`~workbench.calc.fabric.failure.JSON_IDS`; counts are whole.
    """

    plane: str
    networks: list[Network]
    depth: int
    switches_by_tier: dict[int, int]
    hosts: int
    uncabled_hosts: list[str]
    links: int
    links_by_layer: dict[int, int]
    tiers: list[TierFigures]
    host_gbps: float
    bisection_gbps: float
    hops: HopCount
    ports: list[SwitchPorts]
    worst_failures: dict[int, FailureImpact]
    mtu: list[MtuProblem]
    cables: CableCounts | None = None
    unknown_speed_links: int = 0
    names: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def oversubscription(self) -> dict[str, float]:
        return {t.name: t.ratio for t in self.tiers if t.ratio is not None}

    @property
    def bisection_tbps(self) -> float:
        return self.bisection_gbps / 1000

    def switches(self, tier: int) -> int:
        return self.switches_by_tier.get(tier, 0)

    def to_json(self) -> dict[str, object]:
        totals = {
            "ports": sum(p.ports for p in self.ports),
            "used": sum(p.used for p in self.ports),
            "free": sum(p.free for p in self.ports),
            "free_lanes": sum(p.free_lanes for p in self.ports),
        }
        failures = {
            key: (impact.to_json(self.names) if impact is not None else None)
            for key, impact in (
                ("worst_leaf", self.worst_failures.get(1)),
                ("worst_spine", self.worst_failures.get(2)),
            )
        }
        mtus = sorted({n.mtu for n in self.networks})
        return {
            "plane": self.plane,
            "networks": [n.id for n in self.networks],
            "tiers": self.depth,
            "leaf_switches": self.switches(1),
            "spine_switches": self.switches(2),
            "core_switches": self.switches(3),
            "switches_by_tier": {tier_name(t): n for t, n in sorted(self.switches_by_tier.items())},
            "hosts": self.hosts,
            "uncabled_hosts": len(self.uncabled_hosts),
            "uncabled_host_ids": self.uncabled_hosts[:JSON_IDS],
            "links": self.links,
            "links_by_layer": {
                layer_name(k) if k else "other": n for k, n in sorted(self.links_by_layer.items())
            },
            "oversubscription": {k: round(v, 4) for k, v in self.oversubscription.items()},
            "tier_figures": [t.to_json() for t in self.tiers],
            "host_tbps": round(self.host_gbps / 1000, 4),
            "bisection_tbps": round(self.bisection_tbps, 4),
            "max_hops": self.hops.hops,
            "max_hops_exact": self.hops.exact,
            "islands": self.hops.islands,
            "ports": {**totals, "per_switch": [p.to_json() for p in self.ports]},
            "failures": failures,
            "mtu": {
                "values": mtus,
                "consistent": len(mtus) <= 1,
                "problems": [p.message for p in self.mtu],
            },
            "cables": self.cables.to_json() if self.cables is not None else None,
            "unknown_speed_links": self.unknown_speed_links,
        }


def analyse_plane(
    design: Design,
    plane: str,
    *,
    structure: PlaneStructure | None = None,
    devices: DeviceTable | None = None,
    cables: bool = True,
    others: Iterable[Link] | None = None,
    arrays: LinkArrays | None = None,
) -> PlaneReport:
    """Every figure of ``plane``; ``structure``, ``devices`` and ``arrays`` (from
    :func:`~workbench.calc.fabric.planes.plane_structures`,
    :class:`~workbench.calc.fabric.tables.DeviceTable` and
    :func:`~workbench.calc.fabric.tables.link_arrays` of the structure's links in
    that table) save recomputing them, as do ``others``, the links of the other planes
    (for the ports their switches share); ``cables=False`` leaves the cable counts
    out."""
    devices = devices if devices is not None else DeviceTable(design)
    if structure is None:
        structure = plane_structures(design, [plane])[plane]
    graph = plane_graph(design, plane, structure, devices, arrays)
    groups = graph.host_groups()
    by_tier: dict[int, int] = {}
    for tier in structure.tiers.values():
        by_tier[tier] = by_tier.get(tier, 0) + 1
    index = design.index
    names = {s: found[1].name for s in structure.tiers if (found := index.devices.get(s))}
    counts = None
    if cables:
        counts = count_cables(design, structure.links, devices=devices, arrays=graph.arrays)
    return PlaneReport(
        plane=plane,
        networks=plane_networks(design, plane),
        depth=structure.depth,
        switches_by_tier=by_tier,
        hosts=len(structure.hosts),
        uncabled_hosts=uncabled_hosts(design, structure, devices),
        links=len(structure.links),
        links_by_layer=dict(graph.layer_links),
        tiers=tier_figures(graph),
        host_gbps=graph.layer_gbps.get(1, 0.0),
        bisection_gbps=bisection_gbps(graph),
        hops=max_hops(graph, groups),
        ports=switch_ports(design, graph, others),
        worst_failures=worst_single_failures(graph),
        mtu=mtu_problems(design, plane),
        cables=counts,
        unknown_speed_links=graph.unknown_speed,
        names=names,
    )


def fabric_report(design: Design, planes: Iterable[str] = PLANES) -> dict[str, dict[str, object]]:
    """Plane → :meth:`PlaneReport.to_json`, for every plane with a network or a link."""
    structures = plane_structures(design, PLANES)
    devices = DeviceTable(design)
    with_network = {n.plane for n in design.networks}
    # Links on no plane at all share switches too: rare, so found only when there are any.
    unplaced: list[Link] = []
    if sum(len(s.links) for s in structures.values()) != len(design.links):
        placed = {id(link) for s in structures.values() for link in s.links}
        unplaced = [link for link in design.links if id(link) not in placed]
    out: dict[str, dict[str, object]] = {}
    for plane in planes:
        structure = structures[plane]
        if not structure.links and plane not in with_network:
            continue
        others = [link for p, s in structures.items() if p != plane for link in s.links]
        report = analyse_plane(
            design, plane, structure=structure, devices=devices, others=others + unplaced
        )
        out[plane] = report.to_json()
    return out
