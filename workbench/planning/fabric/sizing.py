"""How many switches a fabric needs: closed forms for folded Clos (fat-tree) networks.

Pure arithmetic on port counts, no design: the generator
(:mod:`workbench.planning.fabric.generator`) turns a switch model into port counts with
:mod:`workbench.model.ports` and asks here for the shape; the command line and the
dialog's preview show the same shape.

A switch's **radix** ``k`` is how many ports it offers at the link speed, a port that
breaks out into ``n`` slower ports counting ``n`` times (an 800G Quantum-X800 port is
two 400G ports).  A **leaf** has ``d`` ports down to hosts and ``u = ceil(d / o)`` up,
``o`` being the oversubscription (1 = non-blocking), with ``d + u ≤ k`` when uplinks
and downlinks share one pool of ports, so 1:1 gives ``d = u = k/2``.  Spines and cores
are never oversubscribed: whatever a tier receives from below it passes on whole.

* **2 tiers**: ``L`` leaves and ``S`` spines, ``S`` the smallest number at least
  ``ceil(L·u / k)`` that divides ``u``, so every leaf has ``u / S`` parallel links to
  every spine.  It works while ``L ≤ k`` (a spine needs a port per leaf), which gives
  ``k · d`` host ports: ``k²/2`` at 1:1.
* **3 tiers**: pods of up to ``k/2`` leaves, each with ``u`` spines (one link from each
  leaf of the pod to each spine of the pod); a spine has ``k/2`` ports down and as many
  up.  The cores form ``u`` groups: spine ``j`` of every pod is cabled to the cores of
  group ``j``, round robin, ``C`` cores per group with ``C`` the smallest number at
  least ``ceil(P · k/2 / k)`` that divides ``k/2``.  At most ``k`` pods: ``k³/4`` host
  ports at 1:1.
* **Rail-optimized**: scalable units (SU) of ``n`` nodes with ``r`` rails (host ports
  per node on the plane); port ``i`` of every node of an SU goes to rail leaf ``i`` of
  that SU, so a leaf has ``d = n`` downlinks, and a partial last SU still gets all its
  ``r`` leaves (NVIDIA's reference architectures build whole SUs).  A pod holds whole
  SUs: ``floor(k/2 / r)`` of them.
* **Top of rack** (management, out-of-band): one access switch per rack, its uplinks
  on dedicated faster ports; at least two spines, for redundancy.

A spine of a partial last pod gets as many uplinks as it has downlinks, rounded up to a
multiple of the cores per group, so it still reaches every core of its group evenly.

A request no fabric of the switch can meet raises :class:`FabricError` saying why and
what would work, with the numbers (a bigger switch, an oversubscription, four tiers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from workbench.planning.fabric.advice import (
    leaf_fits,
    ratio,
    smallest_radix,
    too_big_leaf_spine,
    too_big_rail,
)
from workbench.planning.fabric.formulas import (
    MIN_TOR_SPINES,
    FabricError,
    Radix,
    SwitchOption,
    ceil_div,
    cores_per_group,
    leaf_split,
    smallest_divisor_at_least,
    spines_for,
    uplinks_for,
)

__all__ = [
    "MIN_TOR_SPINES",
    "FabricError",
    "FabricShape",
    "Radix",
    "SwitchOption",
    "ceil_div",
    "cores_per_group",
    "leaf_split",
    "size_leaf_spine",
    "size_rail",
    "size_tor",
    "smallest_divisor_at_least",
    "spines_for",
    "uplinks_for",
]


@dataclass(frozen=True)
class FabricShape:
    """What a fabric is made of, tier by tier (all counts per switch are the design's,
    a partial last SU or pod uses fewer)."""

    topology: str
    tiers: int
    host_ports: int
    leaves: int
    spines: int
    cores: int
    #: Ports per leaf down to hosts and up to spines.
    leaf_down: int
    leaf_up: int
    #: Ports per spine down to leaves and up to cores (0 in 2 tiers).
    spine_down: int
    spine_up: int
    #: Ports per core down to spines (0 below 3 tiers).
    core_down: int = 0
    pods: int = 0
    pod_leaves: int = 0
    spines_per_pod: int = 0
    cores_per_group: int = 0
    #: Scalable units, nodes per SU and rails (rail-optimized fabrics only).
    sus: int = 0
    su_nodes: int = 0
    rails: int = 0
    host_gbps: float = 0.0
    uplink_gbps: float = 0.0
    #: Oversubscription per tier that has uplinks: ``{"leaf": 1.0, "spine": 1.0}``.
    oversubscription: dict[str, float] = field(default_factory=dict)
    #: Links between leaves and spines, and between spines and cores.
    leaf_spine_links: int = 0
    spine_core_links: int = 0

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores

    @property
    def links(self) -> int:
        return self.host_ports + self.leaf_spine_links + self.spine_core_links

    def to_json(self) -> dict[str, object]:
        out = asdict(self)
        out["switches"], out["links"] = self.switches, self.links
        return out


# -- the sizes -------------------------------------------------------------------------


def size_leaf_spine(
    host_ports: int,
    leaf: Radix,
    spine_ports: int,
    oversubscription: float = 1.0,
    tiers: int | None = None,
    *,
    spine_name: str = "",
    options: Sequence[SwitchOption] = (),
) -> FabricShape:
    """A 2- or 3-tier leaf-spine fabric for ``host_ports`` (``tiers`` None: 2 while
    they fit, else 3)."""
    _check(host_ports, oversubscription)
    d_max, _u = leaf.leaf(oversubscription)
    if d_max < 1:
        raise FabricError(f"{leaf.name} has no port left for hosts at {ratio(oversubscription)}.")
    leaves = ceil_div(host_ports, d_max)
    d = ceil_div(host_ports, leaves)
    u = _uplinks(leaf, d, oversubscription)
    base: dict[str, Any] = dict(
        topology="3-tier" if tiers == 3 else "2-tier",
        host_ports=host_ports,
        leaves=leaves,
        leaf_down=d,
        leaf_up=u,
        host_gbps=leaf.speed_gbps,
        uplink_gbps=leaf.up_gbps,
    )
    spine_name = spine_name or leaf.name
    if tiers in (None, 2):
        shape = _try_two_tier(base, leaf, spine_ports, oversubscription)
        if shape is not None:
            return shape
        if tiers == 2:
            raise FabricError(
                f"{host_ports:,} host ports need {leaves:,} leaves of {d} downlinks; a 2-tier "
                f"fabric of {spine_ports}-port spines ({spine_name}) reaches at most "
                f"{spine_ports} leaves ({spine_ports * d_max:,} host ports at "
                f"{ratio(oversubscription)}). Use 3 tiers, or spines with at least "
                f"{leaves} ports."
            )
    pod_leaves = spine_ports // 2
    pods = ceil_div(leaves, pod_leaves)
    cores = cores_per_group(pods, pod_leaves, spine_ports)
    if cores is None:
        raise FabricError(
            too_big_leaf_spine(host_ports, leaf, spine_ports, oversubscription, spine_name, options)
        )
    base["topology"] = "3-tier"
    return _three_tier(base, pods, pod_leaves, cores, oversubscription, leaves)


def _try_two_tier(
    base: dict[str, Any], leaf: Radix, spine_ports: int, oversubscription: float
) -> FabricShape | None:
    """The 2-tier shape of ``base`` (leaves, downlinks, uplinks), its uplinks balanced so
    the spine count divides them, or None when no spine count of ``spine_ports`` ports
    fits.  One home for the leaf-spine and rail-optimized sizings."""
    leaves, d = base["leaves"], base["leaf_down"]
    u = base["leaf_up"] = balanced_uplinks(leaves, base["leaf_up"], _room(leaf, d), spine_ports)
    spines = spines_for(leaves, u, spine_ports)
    return None if spines is None else _two_tier(base, spines, oversubscription)


def size_rail(
    nodes: int,
    rails: int,
    su_nodes: int,
    leaf: Radix,
    spine_ports: int,
    oversubscription: float = 1.0,
    tiers: int | None = None,
    *,
    spine_name: str = "",
    options: Sequence[SwitchOption] = (),
) -> FabricShape:
    """A rail-optimized fabric: SUs of ``su_nodes`` nodes, ``rails`` leaves per SU."""
    _check(nodes, oversubscription)
    if rails < 1 or su_nodes < 1:
        raise FabricError("A rail-optimized fabric needs at least one rail and one node per SU.")
    d = su_nodes
    u = _uplinks(leaf, d, oversubscription)
    leaf_fits(leaf, d, u, oversubscription, f"A rail leaf of a {su_nodes}-node SU")
    sus = ceil_div(nodes, su_nodes)
    leaves = sus * rails
    base: dict[str, Any] = dict(
        topology="rail",
        host_ports=nodes * rails,
        leaves=leaves,
        leaf_down=d,
        leaf_up=u,
        sus=sus,
        su_nodes=su_nodes,
        rails=rails,
        host_gbps=leaf.speed_gbps,
        uplink_gbps=leaf.up_gbps,
    )
    spine_name = spine_name or leaf.name
    if tiers in (None, 2):
        shape = _try_two_tier(base, leaf, spine_ports, oversubscription)
        if shape is not None:
            return shape
        if tiers == 2:
            most = spine_ports // rails
            raise FabricError(
                f"{sus} SUs of {rails} rails need {leaves:,} leaves; a 2-tier fabric of "
                f"{spine_ports}-port spines ({spine_name}) reaches at most {spine_ports} "
                f"leaves ({most} SUs, {most * su_nodes:,} nodes). Use 3 tiers."
            )
    per_pod = (spine_ports // 2) // rails
    if per_pod < 1:
        raise FabricError(
            f"A pod holds whole SUs: {rails} rails need spines with at least {2 * rails} "
            f"ports; {spine_name} has {spine_ports} at {leaf.up_gbps:g}G."
        )
    pod_leaves = per_pod * rails
    pods = ceil_div(sus, per_pod)
    cores = cores_per_group(pods, pod_leaves, spine_ports)
    if cores is None:
        raise FabricError(
            too_big_rail(nodes, rails, su_nodes, leaf, spine_ports, oversubscription, options)
        )
    return _three_tier(base, pods, pod_leaves, cores, oversubscription, leaves)


def size_tor(
    leaves: int,
    hosts_per_leaf: int,
    leaf: Radix,
    spine_ports: int,
    oversubscription: float = 3.0,
    tiers: int | None = None,
    *,
    spine_name: str = "",
) -> FabricShape:
    """Access switches (one or more per rack) with at least two uplinks each, over at
    least :data:`MIN_TOR_SPINES` spines; 3 tiers once the spines run out of ports."""
    _check(leaves, oversubscription)
    spine_name = spine_name or leaf.name
    d = hosts_per_leaf
    u = max(MIN_TOR_SPINES, _uplinks(leaf, d, oversubscription))
    leaf_fits(leaf, d, u, oversubscription, f"An access switch with {d} hosts")
    base: dict[str, Any] = dict(
        topology="tor",
        host_ports=0,
        leaves=leaves,
        leaf_down=d,
        leaf_up=u,
        host_gbps=leaf.speed_gbps,
        uplink_gbps=leaf.up_gbps,
    )
    if tiers in (None, 2):
        spines = spines_for(leaves, u, spine_ports, minimum=MIN_TOR_SPINES)
        if spines is not None:
            return _two_tier(base, spines, oversubscription)
        if tiers == 2:
            raise FabricError(
                f"{leaves:,} access switches with {u} uplinks each need more than a 2-tier "
                f"fabric of {spine_ports}-port spines ({spine_name}) reaches "
                f"({spine_ports} leaves). Use 3 tiers."
            )
    pod_leaves = spine_ports // 2
    pods = ceil_div(leaves, pod_leaves)
    cores = cores_per_group(pods, pod_leaves, spine_ports) if pod_leaves else None
    if cores is None:
        most = spine_ports * pod_leaves
        need = smallest_radix(lambda k: k * (k // 2) >= leaves)
        raise FabricError(
            f"{leaves:,} access switches need more than a 3-tier fabric of "
            f"{spine_ports}-port spines ({spine_name}, {leaf.up_gbps:g}G) reaches "
            f"({spine_ports} pods × {pod_leaves} = {most:,} access switches). Use a spine "
            f"switch with at least {need} ports at {leaf.up_gbps:g}G, or 4 tiers (not "
            "generated here)."
        )
    return _three_tier(base, pods, pod_leaves, cores, oversubscription, leaves)


# -- pieces ----------------------------------------------------------------------------


def _check(count: int, oversubscription: float) -> None:
    if count < 1:
        raise FabricError("A fabric needs at least one host port to connect.")
    if not (math.isfinite(oversubscription) and 1.0 <= oversubscription <= 64.0):
        raise FabricError(
            f"Oversubscription is downlink over uplink bandwidth, from 1 (non-blocking) to "
            f"64; {oversubscription:g} is not."
        )


def _room(leaf: Radix, d: int) -> int:
    """The most uplinks a leaf with ``d`` downlinks can have."""
    return leaf.uplinks if leaf.uplinks is not None else leaf.ports - d


def balanced_uplinks(leaves: int, uplinks: int, room: int, spine_ports: int) -> int:
    """The uplinks per leaf, from ``uplinks`` (what the oversubscription needs) up to
    ``room``, that need the fewest spines (ties: the fewest uplinks).

    Every leaf reaches every spine with the same number of links, so the spines must
    divide the uplinks: with 31 uplinks (prime) that is 31 spines of which each uses 18
    of its 64 ports; the storage plane of the 1,024-GPU sample was sized so (18 leaves,
    31 spines).  One more uplink on the leaves' spare ports (33 = 3 × 11) needs 11
    spines, as a compute plane's 32 uplinks need 16: the spine count follows from the
    ports to carry, ceil(leaves × uplinks / spine ports), not from the uplinks' factors.
    """
    best, fewest = uplinks, spines_for(leaves, uplinks, spine_ports)
    for candidate in range(uplinks + 1, max(uplinks, room) + 1):
        spines = spines_for(leaves, candidate, spine_ports)
        if spines is not None and (fewest is None or spines < fewest):
            best, fewest = candidate, spines
    return best


def _uplinks(leaf: Radix, d: int, oversubscription: float) -> int:
    return uplinks_for(d, oversubscription, leaf.speed_gbps, leaf.up_gbps)


def _two_tier(base: dict[str, Any], spines: int, oversubscription: float) -> FabricShape:
    leaves, u = base["leaves"], base["leaf_up"]
    over = base["leaf_down"] * base["host_gbps"] / (u * base["uplink_gbps"])
    return FabricShape(
        tiers=2,
        spines=spines,
        cores=0,
        spine_down=leaves * (u // spines),
        spine_up=0,
        spines_per_pod=spines,
        pods=1,
        pod_leaves=leaves,
        oversubscription={"leaf": round(over, 4)},
        leaf_spine_links=leaves * u,
        **base,
    )


def _three_tier(
    base: dict[str, Any],
    pods: int,
    pod_leaves: int,
    cores: int,
    oversubscription: float,
    leaves: int,
) -> FabricShape:
    u = base["leaf_up"]
    full, last = divmod(leaves, pod_leaves)
    ups = [pod_leaves] * full + ([ceil_div(last, cores) * cores] if last else [])
    over = base["leaf_down"] * base["host_gbps"] / (u * base["uplink_gbps"])
    return FabricShape(
        tiers=3,
        spines=pods * u,
        cores=u * cores,
        spine_down=pod_leaves,
        spine_up=pod_leaves,
        core_down=pods * (pod_leaves // cores),
        pods=pods,
        pod_leaves=pod_leaves,
        spines_per_pod=u,
        cores_per_group=cores,
        oversubscription={"leaf": round(over, 4), "spine": 1.0},
        leaf_spine_links=leaves * u,
        spine_core_links=u * sum(ups),
        **base,
    )
