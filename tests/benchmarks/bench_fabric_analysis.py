"""Benchmark: the fabric analytics, cable counts and fabric rules on a 100,000-GPU fabric.

Issue 8 asks that generating and analysing a 100,000-GPU 3-tier rail-optimized fabric
take at most 2 s, so ``analyse_plane`` must stay well under a second.  The fabric is
built here directly from dataclasses (not by the generator, which another engineer
writes), as a fat tree of 64-port switches:

* 12,500 DGX H100 nodes (100,000 GPUs), 4 to a rack; scalable units of 32 nodes, GPU
  *i* of every node of a unit on rail leaf *i* of the unit (8 leaves per unit);
* every leaf: 32 × 400G down, 32 × 400G up, one uplink to each of the 32 spines of its
  pod (4 units = 32 leaves per pod); every spine 32 down, 32 up to its core group;
* 3,128 leaves, 3,136 spines, 1,568 cores: 100,000 + 100,096 + 100,352 ≈ 300,000 links.

With ``--template`` it also times the report and the checks on ``workbench new --gpus
100000`` (the template's four planes, ~440,000 links, built by the fabric generator).

Run: ``.venv/bin/python tests/benchmarks/bench_fabric_analysis.py [--template]``
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from workbench.catalog import load_catalog
from workbench.model import floor
from workbench.model.design import Design, Device, Link, Network, Rack, Row, Site

NODE = "nvidia-dgx-h100"
SWITCH = "nvidia-qm9700"
RACK = "generic-rack-48u-air"
SU_NODES = 32
RAILS = 8
RADIX = 64


def rail_fabric(nodes: int, *, place: bool = True) -> Design:
    """A 3-tier rail-optimized fat tree of ``nodes`` DGX H100 on QM9700 (see above)."""
    catalog = load_catalog(include_user=False, strict=True)
    design = Design(name=f"{nodes * RAILS:,} GPU rail fabric")
    for slug in (NODE, SWITCH, RACK):
        design.device_types[slug] = catalog[slug]
    design.networks.append(Network("net-compute", "Compute fabric", "compute"))
    site = Site("site1", "Hall 1")
    design.sites.append(site)
    racks: list[Rack] = []

    def rack_with(devices: list[Device]) -> None:
        rack = Rack(f"r{len(racks):05d}", f"R{len(racks):05d}", RACK, devices=devices)
        racks.append(rack)

    serial = iter(range(10**9))

    def device(name: str, slug: str, u: int) -> Device:
        return Device(f"d{next(serial):06d}", name, slug, u)

    hosts = [device(f"gpu-{n:05d}", NODE, 2 + 10 * (n % 4)) for n in range(nodes)]
    for start in range(0, nodes, 4):
        rack_with(hosts[start : start + 4])
    units = -(-nodes // SU_NODES)
    half = RADIX // 2
    leaves = [device(f"leaf-{i:05d}", SWITCH, 0) for i in range(units * RAILS)]
    pods = -(-len(leaves) // half)
    spines = [device(f"spine-{i:05d}", SWITCH, 0) for i in range(pods * half)]
    per_group = -(-pods * half // RADIX)  # cores per core group: pods × 32 uplinks / 64
    cores = [device(f"core-{i:05d}", SWITCH, 0) for i in range(half * per_group)]
    for group in (leaves, spines, cores):
        for start in range(0, len(group), 16):
            chunk = group[start : start + 16]
            for k, switch in enumerate(chunk):
                switch.position = 2 + 2 * k
            rack_with(chunk)
    links = design.links
    ids = iter(range(10**9))

    def link(a: Device, a_port: str, b: Device, b_port: str) -> None:
        links.append(Link(f"l{next(ids):07d}", a.id, a_port, b.id, b_port, "net-compute"))

    for n, host in enumerate(hosts):
        unit, slot = divmod(n, SU_NODES)
        for rail in range(RAILS):
            link(host, f"compute{rail}", leaves[unit * RAILS + rail], f"p{slot + 1}")
    for i, leaf in enumerate(leaves):
        pod = i // half
        for u in range(half):
            link(leaf, f"p{half + u + 1}", spines[pod * half + u], f"p{i % half + 1}")
    for i, spine in enumerate(spines):
        pod, j = divmod(i, half)
        for u in range(half):
            slot = pod * half + u
            core = cores[j * per_group + slot % per_group]
            link(spine, f"p{half + u + 1}", core, f"p{slot // per_group + 1}")
    for r in range(0, len(racks), 20):
        site.rows.append(Row(f"row{r // 20:03d}", f"Row {r // 20 + 1}", racks[r : r + 20]))
    design.reindex()
    if place:
        floor.lay_out(design)
    return design


def timed(func: Callable[[], Any], repeat: int = 5) -> tuple[float, float, Any]:
    """(median, max) seconds over ``repeat`` calls, and the last result."""
    samples = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), max(samples), result


def main() -> int:
    from workbench.calc.cabling import count_cables
    from workbench.calc.fabric.analysis import analyse_plane, fabric_report
    from workbench.calc.fabric.failure import failure_impact
    from workbench.calc.fabric.graph import plane_graph
    from workbench.calc.fabric.planes import plane_structure
    from workbench.calc.fabric.tables import DeviceTable
    from workbench.model import ops
    from workbench.rules import REGISTRY, Checker, check_design

    start = time.perf_counter()
    design = rail_fabric(12_500)
    design.index  # noqa: B018 - built once, as a loaded design has it
    print(f"built {len(design.links):,} links in {time.perf_counter() - start:.2f} s")

    def show(label: str, func: Callable[[], Any], repeat: int = 5) -> Any:
        med, top, result = timed(func, repeat)
        print(f"  {label:<44} median {med * 1000:7.0f} ms   max {top * 1000:7.0f} ms")
        return result

    print("analytics (compute plane):")
    structure = show(
        "plane_structure (calc/fabric/planes.py)", lambda: plane_structure(design, "compute")
    )
    devices = show("DeviceTable", lambda: DeviceTable(design))
    graph = show("plane_graph", lambda: plane_graph(design, "compute", structure, devices))
    show(
        "count_cables (300k links)",
        lambda: count_cables(design, structure.links, devices=devices, arrays=graph.arrays),
    )
    show(
        "analyse_plane, given the structure",
        lambda: analyse_plane(design, "compute", structure=structure),
    )
    show("analyse_plane without cables", lambda: analyse_plane(design, "compute", cables=False))
    report = show("analyse_plane (all of it)", lambda: analyse_plane(design, "compute"))
    show("... and to_json", report.to_json)
    show("fabric_report (every plane)", lambda: fabric_report(design), repeat=3)
    spine = structure.switches_in(2)[0]
    show(
        "failure_impact (one spine, graph given)",
        lambda: failure_impact(design, "compute", [spine], graph),
    )
    figures = report.to_json()
    print(
        f"  -> {figures['leaf_switches']:,} leaves, {figures['spine_switches']:,} spines, "
        f"{figures['core_switches']:,} cores, oversubscription {figures['oversubscription']}, "
        f"bisection {figures['bisection_tbps']:,.0f} Tb/s, max hops {figures['max_hops']}, "
        f"cables {figures['cables']['by_media']}"
    )

    print("rules:")
    for rule_id in ("FABRIC-PORT", "FABRIC-MTU", "FABRIC-UNCABLED", "FABRIC-OVERSUB"):
        show(
            f"{rule_id} (full check)",
            lambda r=REGISTRY[rule_id]: check_design(design, rules=[r]),
            3,
        )
    show("check_design, every rule (workbench check)", lambda: check_design(design), 3)
    checker = Checker(design)
    leaf = structure.switches_in(1)[0]
    host = next(iter(structure.hosts))

    def add_and_undo() -> None:
        applied = ops.apply(design, ops.AddLink(_probe(host, leaf)))
        checker.update(applied.change)
        checker.update(ops.apply(design, applied.inverse).change)

    show("Checker.update: add a link and undo it", add_and_undo, 3)
    first = next(iter(design.iter_racks()))
    device = first.devices[0]

    def move_and_back() -> None:
        applied = ops.apply(
            design, ops.MoveDevice(device.id, first.id, device.position + 1, device.face)
        )
        checker.update(applied.change)
        checker.update(ops.apply(design, applied.inverse).change)

    show("Checker.update: move a server and back", move_and_back, 3)
    if "--template" in sys.argv:
        template(show)
    return 0


def template(show: Callable[..., Any]) -> None:
    """The report and checks on the 100,000-GPU template design (four planes)."""
    from workbench.calc.fabric.analysis import analyse_plane, fabric_report
    from workbench.rules import REGISTRY, check_design
    from workbench.templates import build_template

    start = time.perf_counter()
    design = build_template("dgx-h100-superpod", gpus=100_000)
    print(f"template: {len(design.links):,} links built in {time.perf_counter() - start:.1f} s")
    for plane in ("compute", "storage", "management", "oob"):
        show(f"analyse_plane {plane}", lambda p=plane: analyse_plane(design, p), 3)
    report = show("fabric_report (four planes)", lambda: fabric_report(design), 3)
    for plane, figures in report.items():
        print(
            f"  -> {plane}: {figures['tiers']} tiers, {figures['links']:,} links, "
            f"oversubscription {figures['oversubscription']}, "
            f"bisection {figures['bisection_tbps']:,.1f} Tb/s, hops {figures['max_hops']}"
        )
    for rule_id in ("FABRIC-PORT", "FABRIC-UNCABLED", "FABRIC-OVERSUB"):
        show(
            f"{rule_id} (full check)",
            lambda r=REGISTRY[rule_id]: check_design(design, rules=[r]),
            3,
        )
    show("check_design, every rule (workbench check)", lambda: check_design(design), 3)


def _probe(host: str, leaf: str) -> Link:
    """A hand-drawn link on ports already taken (what the rules then report)."""
    return Link("l-probe", host, "compute0", leaf, "p1", "net-compute")


if __name__ == "__main__":
    sys.exit(main())
