"""Cable all four planes of a GPU cluster the usual way, with the fabric generator:
what the templates do, and what a "cable everything" action can do on any design.

* **Compute**: rail-optimized scalable units for 8-GPU servers (GPU ``i`` of every node
  to rail leaf ``i``), leaf-spine otherwise, non-blocking.  When the compute switch
  cannot build that at the size asked (a QM9700 fat tree ends at 65,536 ports), the
  large switch does, in scalable units of half its radix so its leaves are full; the
  answer says why, for the design's properties.
* **Storage**: ``storage_ports`` ports of every host on a non-blocking leaf-spine (two
  200G ports carry 50 GB/s, the read bandwidth of one all-flash node).  That meets
  NVIDIA's DGX SuperPOD reference architecture (RA-11333-001 V11, DGX H100, "Storage
  Fabric"): storage devices at a 1:1 port-to-uplink ratio, DGX H100 nodes oversubscribed
  near 4:3 at worst, and more than 40 GB/s of I/O per node; non-blocking for every host
  is the stricter of the two ratios, so appliances and nodes can share leaves
  (tests/test_storage_fabric_reference.py checks one and four scalable units).
* **Management and out-of-band**: one access switch per rack over at least two spines;
  in a hall with so many racks that this needs more than three tiers (12,500 racks of
  one server), neighbouring racks of a row share one, the fewest that fit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from workbench.model.design import Design
from workbench.model.requests import ItemSource
from workbench.planning.fabric.generator import build_fabric
from workbench.planning.fabric.ports import slots
from workbench.planning.fabric.request import FabricRequest
from workbench.planning.fabric.sizing import FabricError
from workbench.progress import Progress, parts_told

#: Racks per access switch tried, in order, when one per rack is too many.
ACCESS_SHARING: tuple[int, ...] = (1, 2, 4, 8)


@dataclass(frozen=True)
class ClusterFabrics:
    """The switch models of the four planes (see the module docstring)."""

    compute_switch: str
    storage_switch: str
    access_switch: str
    access_spine_switch: str | None = None
    storage_spine_switch: str | None = None
    large_compute_switch: str | None = None
    #: Rail-optimized compute fabric (8-GPU servers) rather than leaf-spine.
    rails: bool = True
    su_nodes: int = 32
    storage_ports: int = 2


def cable_cluster(
    design: Design,
    catalog: ItemSource,
    fabrics: ClusterFabrics,
    progress: Progress | None = None,
) -> dict[str, str]:
    """Generate and apply every plane; the notes to keep in the design's properties
    (why a large compute switch, why shared access switches).  FabricError, with the
    plane named, when one cannot be built; the planes done before it stay.
    ``progress(fraction, plane)`` is told before each plane (:data:`PLANE_STARTS`)."""
    tell = parts_told(progress, PLANE_STARTS)
    notes: dict[str, str] = {}
    tell("the compute fabric")
    _compute(design, catalog, fabrics, notes)
    storage = FabricRequest(
        plane="storage",
        switch=fabrics.storage_switch,
        spine_switch=fabrics.storage_spine_switch,
        ports_per_host=fabrics.storage_ports,
    )
    tell("the storage fabric")
    _generate(design, catalog, storage)
    for plane in ("management", "oob"):
        tell(f"the {plane} fabric")
        _access(design, catalog, fabrics, plane, notes)
    return notes


#: Where each plane's cabling starts, as a share of :func:`cable_cluster`'s time
#: (measured on ``workbench new --gpus 1000000``).
PLANE_STARTS = {
    "the compute fabric": 0.0,
    "the storage fabric": 0.42,
    "the management fabric": 0.61,
    "the oob fabric": 0.74,
}


def _generate(
    design: Design,
    catalog: ItemSource,
    request: FabricRequest,
    hosts_memo: dict[object, Any] | None = None,
) -> None:
    try:
        build_fabric(design, catalog, request, hosts_memo=hosts_memo)
    except FabricError as exc:
        raise FabricError(f"the {request.plane} fabric cannot be built: {exc}") from None


def _compute(
    design: Design, catalog: ItemSource, fabrics: ClusterFabrics, notes: dict[str, str]
) -> None:
    request = FabricRequest(
        plane="compute",
        switch=fabrics.compute_switch,
        topology="rail" if fabrics.rails else "auto",
        su_nodes=fabrics.su_nodes,
    )
    hosts: dict[object, Any] = {}  # read once for both tries, as in _access
    try:
        build_fabric(design, catalog, request, hosts_memo=hosts)
        return
    except FabricError as exc:
        if not fabrics.large_compute_switch:
            raise FabricError(f"the compute fabric cannot be built: {exc}") from None
        why = exc
    large = catalog[fabrics.large_compute_switch]
    speed = next((n.speed_gbps for n in design.networks if n.plane == "compute"), 400.0)
    half = len(slots(large, speed)) // 2
    bigger = dataclasses.replace(request, switch=large.slug, su_nodes=max(fabrics.su_nodes, half))
    _generate(design, catalog, bigger, hosts)
    notes["compute_switch"] = large.slug
    notes["compute_switch_reason"] = (
        f"{fabrics.compute_switch} cannot build it: {why} So {large.slug} is used, in "
        f"scalable units of {bigger.su_nodes} nodes (half its {2 * half} ports at {speed:g}G)."
    )


def _access(
    design: Design,
    catalog: ItemSource,
    fabrics: ClusterFabrics,
    plane: str,
    notes: dict[str, str],
) -> None:
    request = FabricRequest(
        plane=plane,
        switch=fabrics.access_switch,
        spine_switch=fabrics.access_spine_switch,
        topology="tor",
    )
    first: FabricError | None = None
    hosts: dict[object, Any] = {}  # read once for every try
    for share in ACCESS_SHARING:
        try:
            build_fabric(
                design,
                catalog,
                dataclasses.replace(request, racks_per_access_switch=share),
                hosts_memo=hosts,
            )
        except FabricError as exc:
            first = first or exc
            continue
        if share > 1:
            notes[f"{plane}_racks_per_access_switch"] = (
                f"{share}: one access switch per rack would not fit: {first}"
            )
        return
    raise FabricError(f"the {plane} fabric cannot be built: {first}")
