"""What a fabric generation is asked for and what it answers: :class:`FabricRequest`
in, :class:`FabricPlan` out (see :mod:`workbench.planning.fabric.generator`).

Kept apart from the generator so the dialog and the command line can build and check a
request, and read a plan, without the machinery behind them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from workbench.calc.fabric.layered import PlaneLayers
from workbench.model import ops
from workbench.model.design import PLANES
from workbench.planning.fabric.sizing import FabricError, FabricShape

TOPOLOGIES: tuple[str, ...] = ("auto", "2-tier", "3-tier", "rail", "tor")
#: Name prefix and role of each plane's switches.
PLANE_PREFIX: dict[str, str] = {
    "compute": "cmp",
    "storage": "sto",
    "management": "mgt",
    "oob": "oob",
}
PLANE_ROLE: dict[str, str] = {
    "compute": "compute-switch",
    "storage": "storage-switch",
    "management": "management-switch",
    "oob": "management-switch",
}
#: Oversubscription when the request gives none: non-blocking for gradient and storage
#: traffic, 3:1 for management and BMC traffic (domain brief §3).  Storage at 1:1 is
#: within NVIDIA's DGX SuperPOD reference (RA-11333-001 V11, "Storage Fabric": storage
#: devices 1:1, DGX H100 nodes near 4:3).
DEFAULT_OVERSUBSCRIPTION: dict[str, float] = {
    "compute": 1.0,
    "storage": 1.0,
    "management": 3.0,
    "oob": 3.0,
}


@dataclass(frozen=True)
class FabricRequest:
    """What to generate (see the module docstring).  ``hosts`` None: every device with
    ports on the plane; ``speed_gbps`` None: the plane's network speed;
    ``oversubscription`` None: :data:`DEFAULT_OVERSUBSCRIPTION`; ``ports_per_host``
    None: all of a host's ports on the plane; ``network_id`` None: the plane's first
    network (one is added when it has none)."""

    plane: str
    switch: str
    spine_switch: str | None = None
    hosts: tuple[str, ...] | None = None
    speed_gbps: float | None = None
    oversubscription: float | None = None
    topology: str = "auto"
    su_nodes: int = 32
    ports_per_host: int | None = None
    network_id: str | None = None
    replace: bool = True
    #: Top of rack only: neighbouring racks of a row that share one access switch (1:
    #: every rack has its own; more for racks of one or two servers in a very large
    #: hall, where one switch per rack would need more than three tiers).
    racks_per_access_switch: int = 1


@dataclass(frozen=True)
class FabricCounts:
    switches: int = 0
    links: int = 0
    racks: int = 0


@dataclass(frozen=True)
class FabricPlan:
    """The edit, the fabric's shape, what it removes and adds, and lines for a preview."""

    batch: ops.Batch
    shape: FabricShape
    removed: FabricCounts
    added: FabricCounts
    notes: tuple[str, ...]
    network_id: str
    #: New switch ids by tier name (``leaf``, ``spine``, ``core``).
    devices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: The plane as built, for :func:`~workbench.calc.fabric.layered.layered_structure`:
    #: only for a kept edit after which the design's links are the new ones alone
    #: (a scratch design: ``workbench fabric``); else None.
    layers: PlaneLayers | None = None


def validated(request: FabricRequest) -> FabricRequest:
    """``request`` when its fields make sense, else FabricError naming the field."""
    if request.plane not in PLANES:
        raise FabricError(f"plane: one of {', '.join(PLANES)}, not {request.plane!r}.")
    if request.topology not in TOPOLOGIES:
        raise FabricError(f"topology: one of {', '.join(TOPOLOGIES)}, not {request.topology!r}.")
    if (
        isinstance(request.su_nodes, bool)
        or not isinstance(request.su_nodes, int)
        or request.su_nodes < 1
    ):
        raise FabricError(
            f"su_nodes: a whole number of nodes of at least 1, not {request.su_nodes!r}."
        )
    if not isinstance(request.racks_per_access_switch, int) or request.racks_per_access_switch < 1:
        raise FabricError(
            f"racks_per_access_switch: at least 1, not {request.racks_per_access_switch!r}."
        )
    if request.ports_per_host is not None and request.ports_per_host < 1:
        raise FabricError(f"ports_per_host: at least 1, not {request.ports_per_host}.")
    if request.speed_gbps is not None and not (
        isinstance(request.speed_gbps, (int, float))
        and math.isfinite(request.speed_gbps)
        and request.speed_gbps > 0
    ):
        raise FabricError(f"speed_gbps: a speed above 0 Gb/s, not {request.speed_gbps!r}.")
    if request.hosts is not None and not request.hosts:
        raise FabricError("hosts: name at least one device (or None for all).")
    return request


def describe(
    shape: FabricShape,
    network: str,
    hosts: int,
    speed: float,
    models: tuple[str, str],
    removed: FabricCounts,
    added: FabricCounts,
    rows_added: int = 0,
) -> list[str]:
    """Lines for a preview: what the fabric is and what applying it changes."""
    kind = {"rail": "Rail-optimized", "tor": "Top-of-rack"}.get(shape.topology, "Leaf-spine")
    leaf, spine = models
    lines = [
        f"{kind} {shape.tiers}-tier {network} for {hosts:,} hosts "
        f"({shape.host_ports:,} ports at {speed:g}G).",
        f"{shape.leaves:,} leaves of {leaf} ({shape.leaf_down} down, {shape.leaf_up} up at "
        f"{shape.uplink_gbps:g}G, {shape.oversubscription.get('leaf', 1.0):.3g}:1), "
        f"{shape.spines:,} spines and {shape.cores:,} cores of {spine}.",
    ]
    if shape.sus:
        lines.append(
            f"{shape.sus:,} scalable units of {shape.su_nodes} nodes, {shape.rails} rails."
        )
    if shape.tiers == 3:
        lines.append(f"{shape.pods:,} pods of up to {shape.pod_leaves} leaves.")
    lines.append(f"Adds {added.switches:,} switches and {added.links:,} links.")
    if removed.links or removed.switches:
        lines.append(
            f"Replaces the plane's {removed.links:,} links and {removed.switches:,} switches."
        )
    if added.racks:
        lines.append(f"Adds {added.racks} network racks in {rows_added} new rows.")
    return lines
