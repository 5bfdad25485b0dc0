"""What a switch failure costs a plane: bandwidth lost per layer, hosts cut off, hosts
degraded.

Two ways to ask, one answer shape (:class:`FailureImpact`):

* :func:`failure_impact` removes any set of switches and looks at what is left with
  networkx: the connected components of the collapsed graph (parallel links as one
  edge, hosts cabled to the same switches as one node; see
  :mod:`workbench.calc.fabric.graph`).  A host is *cut off* when it was in the plane's
  main island (the component holding most hosts) before the failure and is not after:
  it can no longer reach the rest of the plane.  When the failure splits the plane into
  islands of equal size, none of them is "the rest" and every host is cut off.  A host
  is *degraded* when it keeps a path but lost a port.
* :func:`worst_single_failures` ranks every leaf and every spine by a closed form, one
  pass over the plane's per-switch figures (O(links) in all), so the plane report can
  name the worst single leaf and spine of a 100,000-GPU fabric.  A leaf's failure cuts
  off the hosts cabled to it alone; a spine's cuts off the hosts whose every leaf has
  that spine as its only uplink.  That is exact for a Clos, where leaves carry no
  transit traffic and a spine is the only way up from a leaf cabled to it alone.

Bandwidth lost is per layer (layer 1 host–leaf, 2 leaf–spine, 3 spine–core): the Gb/s of
the links that went down, as a share of the layer's Gb/s.  The headline figure is the
worst layer the failed switches sit in: one of two spines down is 50 % of the
leaf–spine bandwidth.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from workbench.calc.errors import InputError
from workbench.calc.fabric.graph import CollapsedGraph, PlaneGraph, plane_graph
from workbench.calc.fabric.planes import tier_name
from workbench.model.design import Design

#: How many host ids a JSON answer lists (the counts are always whole).
JSON_IDS = 50


def layer_name(layer: int) -> str:
    """``host-leaf``, ``leaf-spine``, ``spine-core``: the two tiers a layer joins."""
    below = "host" if layer == 1 else tier_name(layer - 1)
    return f"{below}-{tier_name(layer)}"


@dataclass(frozen=True)
class LayerLoss:
    """Bandwidth one layer loses."""

    layer: int
    lost_gbps: float
    total_gbps: float

    @property
    def lost_pct(self) -> float:
        return 100.0 * self.lost_gbps / self.total_gbps if self.total_gbps > 0 else 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "layer": layer_name(self.layer),
            "lost_gbps": round(self.lost_gbps, 3),
            "total_gbps": round(self.total_gbps, 3),
            "lost_pct": round(self.lost_pct, 3),
        }


@dataclass(frozen=True)
class FailureImpact:
    """What losing ``switches`` costs the plane (see the module docstring)."""

    plane: str
    switches: tuple[str, ...]
    #: The tiers the failed switches sit in (1 leaf, 2 spine ...).
    tiers: tuple[int, ...]
    layers: tuple[LayerLoss, ...]
    hosts_cut_off: tuple[str, ...]
    hosts_degraded: tuple[str, ...]
    #: "graph" (networkx components) or "closed form" (the per-switch ranking).
    method: str = "graph"

    @property
    def bandwidth_lost_pct(self) -> float:
        """The worst share lost in any layer the failed switches sit in."""
        return max((loss.lost_pct for loss in self.layers), default=0.0)

    def to_json(self, names: dict[str, str] | None = None) -> dict[str, object]:
        """Plain JSON; ``names`` (device id → name) adds the switches' names."""
        out: dict[str, object] = {
            "switches": list(self.switches),
            "tiers": [tier_name(t) for t in self.tiers],
            "bandwidth_lost_pct": round(self.bandwidth_lost_pct, 3),
            "layers": [loss.to_json() for loss in self.layers],
            "hosts_cut_off": len(self.hosts_cut_off),
            "hosts_degraded": len(self.hosts_degraded),
            "hosts_cut_off_ids": sorted(self.hosts_cut_off)[:JSON_IDS],
            "hosts_degraded_ids": sorted(self.hosts_degraded)[:JSON_IDS],
            "method": self.method,
        }
        if names is not None:
            out["names"] = [names.get(s, s) for s in self.switches]
        return out


def _layer_losses(graph: PlaneGraph, lost: dict[int, float]) -> tuple[LayerLoss, ...]:
    return tuple(
        LayerLoss(layer, lost[layer], graph.layer_gbps.get(layer, 0.0))
        for layer in sorted(lost)
        if layer > 0
    )


def _own_losses(graph: PlaneGraph, switch: str) -> dict[int, float]:
    """Layer → Gb/s of one switch's links down and up."""
    tier = graph.structure.tiers[switch]
    lost = {tier: graph.down_gbps(switch)}
    up = graph.up_gbps(switch)
    if up > 0:
        lost[tier + 1] = up
    return lost


def failure_impact(
    design: Design,
    plane: str,
    switch_ids: Iterable[str],
    graph: PlaneGraph | None = None,
) -> FailureImpact:
    """What removing every switch of ``switch_ids`` costs ``plane``.

    ``graph`` (:func:`~workbench.calc.fabric.graph.plane_graph`) saves rebuilding it when
    several failures are asked in a row.  An id that is not a switch of the plane is an
    :class:`~workbench.calc.errors.InputError` naming it.
    """
    graph = graph if graph is not None else plane_graph(design, plane)
    tiers = graph.structure.tiers
    removed = tuple(dict.fromkeys(switch_ids))
    if not removed:
        raise InputError("switch_ids", "name at least one switch to fail")
    for switch in removed:
        if switch not in tiers:
            known = design.index.devices.get(switch)
            what = f"{known[1].name!r} ({switch})" if known else repr(switch)
            raise InputError("switch_ids", f"{what} is not a switch of the {plane} plane")
    # Every layered link with an end on a failed switch is down, counted once.
    at = np.array([graph.devices.pos[s] for s in removed], dtype=np.int64)
    down = (np.isin(graph.lower, at) | np.isin(graph.upper, at)) & (graph.layer > 0)
    sums = np.bincount(graph.layer[down], weights=graph.gbps[down])
    lost = {t: 0.0 for s in removed for t in _own_losses(graph, s)}
    lost.update({k: float(v) for k, v in enumerate(sums.tolist()) if k > 0 and v > 0})
    gone = set(removed)
    built = CollapsedGraph(graph)
    before = _main_island(built.islands())
    built.remove(removed)
    after = _main_island(built.islands())
    cut = before - after
    degraded = {
        host
        for host, switches in graph.host_switches.items()
        if switches & gone and host not in cut
    }
    return FailureImpact(
        plane,
        removed,
        tuple(sorted({tiers[s] for s in removed})),
        _layer_losses(graph, lost),
        tuple(sorted(cut)),
        tuple(sorted(degraded)),
    )


def _main_island(islands: list[list[str]]) -> set[str]:
    """The hosts of the largest island; empty when two islands tie for largest (the
    plane fell apart into equal pieces: none of them is "the rest")."""
    if not islands or (len(islands) > 1 and len(islands[1]) == len(islands[0])):
        return set()
    return set(islands[0])


def worst_single_failures(graph: PlaneGraph) -> dict[int, FailureImpact]:
    """Tier (1 leaf, 2 spine) → the single switch of that tier whose failure costs the
    most: most hosts cut off, then most bandwidth lost, then most hosts degraded (the
    closed form of the module docstring; tiers without switches are left out).

    Read off the hosts' switch numbers (:attr:`PlaneGraph.host_rows`), not a set of
    ids per host: those were ~0.1 s of ``workbench fabric`` at 100,000 GPUs."""
    tiers = graph.structure.tiers
    rows = graph.host_rows
    ids, pos, size = graph.devices.ids, graph.devices.pos, graph.devices.missing + 1
    # Hosts per switch; a host on one switch only is cut off when it fails.
    touching = np.bincount(rows.switches, minlength=size)
    single_homed = np.bincount(rows.switches[rows.starts[rows.degree == 1]], minlength=size)
    # A leaf whose only way up is one spine is stranded when that spine fails; a host is
    # cut off when every leaf it has is stranded by the same spine.
    sole = np.full(size, -1, dtype=np.int64)
    for leaf, spine in graph.sole_uplinks().items():
        sole[pos.get(leaf, size - 1)] = pos.get(spine, size - 1)
    stranding = np.zeros(size, dtype=np.int64)
    stranded_by = np.zeros(0, dtype=np.int64)  # per host: the spine that strands it, or -1
    if len(rows.hosts):
        above = sole[rows.switches]
        low = np.minimum.reduceat(above, rows.starts)
        same = (low == np.maximum.reduceat(above, rows.starts)) & (low >= 0)
        stranding = np.bincount(low[same], minlength=size)
        stranded_by = np.where(same, low, -1)
    single = np.where(rows.degree == 1, rows.switches[rows.starts], -1)  # per host
    worst: dict[int, FailureImpact] = {}
    switches = list(tiers)
    numbers = np.fromiter(map(pos.__getitem__, switches), np.int64, len(switches))
    of_tier = np.fromiter(tiers.values(), np.int64, len(switches))
    for tier, counts, cut_of in ((1, single_homed, single), (2, stranding, stranded_by)):
        chosen = _costliest(graph, tier, numbers[of_tier == tier], counts, touching)
        if chosen is None:
            continue
        switch, number = ids[chosen], chosen
        cut_hosts = tuple(sorted(ids[h] for h in rows.hosts[cut_of == number].tolist()))
        degraded_hosts: tuple[str, ...] = ()
        if tier == 1:
            shared = (rows.switches == number) & (np.repeat(rows.degree, rows.degree) > 1)
            degraded_hosts = tuple(sorted(ids[h] for h in rows.pair_hosts[shared].tolist()))
        worst[tier] = FailureImpact(
            graph.plane,
            (switch,),
            (tiers[switch],),
            _layer_losses(graph, _own_losses(graph, switch)),
            cut_hosts,
            degraded_hosts,
            method="closed form",
        )
    return worst


def _costliest(
    graph: PlaneGraph, tier: int, numbers: np.ndarray, cut: np.ndarray, touching: np.ndarray
) -> int | None:
    """The number of the switch of ``tier`` (``numbers``, in the structure's order)
    whose failure costs the most: most hosts cut off (``cut`` per device), then the
    largest share of a layer lost (its own links down and up, as
    :func:`_own_losses` and :attr:`LayerLoss.lost_pct` count them), then most hosts
    degraded; the first such.  None without switches.

    Why in numpy: a loss per switch in Python was ~20 ms at 100,000 GPUs (4,216)."""
    if not len(numbers):
        return None
    cuts = cut[numbers]
    degraded = touching[numbers] - cuts if tier == 1 else np.zeros(len(numbers), np.int64)
    pct = np.zeros(len(numbers))
    for layer, lost in ((tier, graph.down[numbers]), (tier + 1, graph.up[numbers])):
        total = graph.layer_gbps.get(layer, 0.0)
        if total > 0:  # (no link up is a loss of 0 Gb/s: 0 %, as no loss there)
            pct = np.maximum(pct, 100.0 * lost / total)
    best = cuts == cuts.max()
    best &= pct == pct[best].max()
    best &= degraded == degraded[best].max()
    return int(numbers[np.flatnonzero(best)[0]])
