"""The closed forms a fat tree is sized with, on plain port counts (see
:mod:`workbench.planning.fabric.sizing` for the fabric they describe).

* a leaf's uplinks: ``u = ceil(d · s_down / (o · s_up))``;
* the most downlinks a leaf of ``k`` shared ports has: the largest ``d`` with
  ``d + ceil(d / o) ≤ k`` (1:1 → k/2);
* spines of 2 tiers: the smallest ``S ≥ ceil(L·u / k)`` dividing ``u``;
* cores per group of 3 tiers: the smallest ``C ≥ ceil(P·PL / k)`` dividing ``PL``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.model.errors import EditError

#: Floating-point slack for ``ceil(d / o)`` with ``o`` typed by a person (3.27).
EPS = 1e-9
#: The largest radix the "a switch with at least K ports" search tries.
MAX_RADIX = 8192
#: Spines a top-of-rack fabric has at least: two, so losing one keeps every rack up.
MIN_TOR_SPINES = 2


class FabricError(EditError):
    """A fabric request that cannot be built, with why and what would work."""


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for positive integers, without floating point."""
    return -(-a // b)


def uplinks_for(down: int, oversubscription: float, down_gbps: float, up_gbps: float) -> int:
    """Uplinks a leaf with ``down`` host ports needs: ``ceil(d·s_down / (o·s_up))``."""
    if down <= 0:
        return 0
    return max(1, math.ceil(down * down_gbps / (oversubscription * up_gbps) - EPS))


def leaf_split(ports: int, oversubscription: float) -> tuple[int, int]:
    """(d, u) for a leaf whose uplinks and downlinks share ``ports``: the most
    downlinks with ``d + ceil(d / o) ≤ ports`` (1:1 → k/2 and k/2)."""
    d = max(0, math.floor(ports * oversubscription / (oversubscription + 1) + EPS))
    while d > 0 and d + uplinks_for(d, oversubscription, 1, 1) > ports:
        d -= 1
    while d + 1 + uplinks_for(d + 1, oversubscription, 1, 1) <= ports:
        d += 1
    return d, uplinks_for(d, oversubscription, 1, 1)


def smallest_divisor_at_least(n: int, low: int) -> int | None:
    """The smallest divisor of ``n`` that is at least ``low`` (None when above ``n``)."""
    low = max(1, low)
    for candidate in range(low, n + 1):
        if n % candidate == 0:
            return candidate
    return None


def spines_for(leaves: int, uplinks: int, spine_ports: int, minimum: int = 1) -> int | None:
    """Spines of a 2-tier fabric: the smallest ``S ≥ ceil(L·u / k)`` dividing ``u``
    (None when even ``S = u`` lacks ports: more leaves than a spine has ports)."""
    if leaves <= 0 or uplinks <= 0:
        return None
    spines = smallest_divisor_at_least(
        uplinks, max(minimum, ceil_div(leaves * uplinks, spine_ports))
    )
    if spines is None or leaves * (uplinks // spines) > spine_ports:
        return None
    return spines


def cores_per_group(pods: int, pod_leaves: int, core_ports: int) -> int | None:
    """Cores in each group of a 3-tier fabric: the smallest ``C ≥ ceil(P·PL / k)``
    dividing ``PL`` (each spine has ``PL / C`` links to every core of its group)."""
    if pods <= 0 or pod_leaves <= 0:
        return None
    cores = smallest_divisor_at_least(pod_leaves, ceil_div(pods * pod_leaves, core_ports))
    if cores is None or pods * (pod_leaves // cores) > core_ports:
        return None
    return cores


@dataclass(frozen=True)
class Radix:
    """The ports a switch model offers one fabric.

    ``ports`` run at ``speed_gbps`` (breakout lanes counted one each).  ``uplinks`` is
    None when the uplinks come out of the same pool (a 64-port spine-leaf switch), else
    the dedicated uplink ports at ``uplink_gbps`` (the four 100G ports of a 48-port
    access switch).
    """

    ports: int
    speed_gbps: float
    uplinks: int | None = None
    uplink_gbps: float | None = None
    #: How a message names the model: ``nvidia-qm9700``.
    name: str = "the switch"

    @property
    def up_gbps(self) -> float:
        return (
            self.uplink_gbps if self.uplinks is not None and self.uplink_gbps else self.speed_gbps
        )

    def leaf(self, oversubscription: float) -> tuple[int, int]:
        """The most (downlinks, uplinks) a leaf of this model has at ``oversubscription``."""
        if self.uplinks is None:
            return leaf_split(self.ports, oversubscription)
        d = self.ports
        return d, min(self.uplinks, uplinks_for(d, oversubscription, self.speed_gbps, self.up_gbps))


@dataclass(frozen=True)
class SwitchOption:
    """A catalog switch a message may suggest, with its radix at the fabric's speed."""

    slug: str
    ports: int
    note: str = ""
