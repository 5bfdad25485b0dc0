"""Benchmark: the storage figures and rules on a 100,000-GPU design with cabled planes.

The four storage rules re-run on every device, link and tier edit (a design rule cannot
know which node an edit touched matters), so after dragging one server on a
100,000-GPU design they must cost a few tens of milliseconds.  The design is built here
from dataclasses (the generator is another engineer's):

* 12,500 DGX H100 (100,000 GPUs), 4 to a rack; each node's 8 compute ports on 8 rail
  leaves (100,000 links) and every leaf's 32 uplinks to spines (about 100,000 links);
* each node's storage0/1 on a storage leaf at 200G (25,000 links); 256 all-flash nodes
  with 4 storage links each, in a hot tier of two pools (1,024 links);
* one training workload that names both pools.

Run: ``.venv/bin/python tests/benchmarks/bench_storage.py``
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from workbench.calc.storage_tiers import storage_figures
from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.model.design import (
    Design,
    Device,
    Link,
    Network,
    Rack,
    Row,
    Site,
    StorageTier,
    Workload,
)
from workbench.rules import REGISTRY, Checker
from workbench.rules.storage import STORAGE_RULES

NODE = "nvidia-dgx-h100"
LEAF = "nvidia-qm9700"
STORAGE_LEAF = "nvidia-sn4600"
PFS = "generic-allflash-pfs-node"
RACK = "generic-rack-48u-air"


def big_design(nodes: int = 12_500, appliances: int = 256) -> Design:
    catalog = load_catalog(include_user=False, strict=True)
    design = Design(name="100k storage bench")
    for slug in (NODE, LEAF, STORAGE_LEAF, PFS, RACK, "nvidia-h100-sxm5-80gb"):
        design.device_types[slug] = catalog[slug]
    design.networks += [
        Network("net-compute", "Compute", "compute"),
        Network("net-storage", "Storage", "storage", "ethernet", 200.0, 9000),
    ]
    serial = iter(range(10**9))
    racks: list[Rack] = []

    def device(name: str, slug: str, u: int) -> Device:
        return Device(f"d{next(serial):07d}", name, slug, u)

    def rack_of(devices: list[Device]) -> None:
        racks.append(Rack(f"r{len(racks):05d}", f"R{len(racks):05d}", RACK, devices=devices))

    hosts = [device(f"gpu-{n:05d}", NODE, 2 + 10 * (n % 4)) for n in range(nodes)]
    for start in range(0, nodes, 4):
        rack_of(hosts[start : start + 4])
    leaves = [device(f"leaf-{i}", LEAF, 2) for i in range(-(-nodes * 8 // 32))]
    spines = [device(f"spine-{i}", LEAF, 2) for i in range(len(leaves))]
    s_leaves = [
        device(f"sleaf-{i}", STORAGE_LEAF, 2) for i in range(-(-(nodes * 2 + appliances * 4) // 64))
    ]
    boxes = [device(f"pfs-{i:03d}", PFS, 2 + 2 * (i % 16)) for i in range(appliances)]
    for group in (leaves, spines, s_leaves, boxes):
        for start in range(0, len(group), 16):
            chunk = group[start : start + 16]
            for k, d in enumerate(chunk):
                d.position = 2 + 2 * k
            rack_of(chunk)
    links = design.links
    ids = iter(range(10**9))

    def link(a: Device, a_port: str, b: Device, b_port: str, net: str) -> None:
        links.append(Link(f"l{next(ids):07d}", a.id, a_port, b.id, b_port, net))

    for n, host in enumerate(hosts):
        for rail in range(8):
            k = n * 8 + rail
            link(host, f"compute{rail}", leaves[k // 32], f"p{k % 32 + 1}", "net-compute")
    for i, leaf in enumerate(leaves):
        for u in range(32):
            link(leaf, f"p{33 + u}", spines[(i + u) % len(spines)], f"p{u + 1}", "net-compute")
    port = iter(range(10**9))

    def storage_port() -> tuple[Device, str]:
        k = next(port)
        return s_leaves[k // 64], f"swp{k % 64 + 1}"

    for host in hosts:
        for p in range(2):
            link(host, f"storage{p}", *storage_port(), "net-storage")
    for box in boxes:
        for p in range(4):
            link(box, f"storage{p}", *storage_port(), "net-storage")
    half = appliances // 2
    design.storage_tiers = [
        StorageTier("tier-data", "Datasets", "hot", "Lustre", [b.id for b in boxes[:half]]),
        StorageTier("tier-ckpt", "Checkpoints", "hot", "Lustre", [b.id for b in boxes[half:]]),
    ]
    design.workloads = [
        Workload(
            "wl-1",
            "405B",
            model="llama3-405b",
            tp=8,
            pp=16,
            dataset_tier="tier-data",
            checkpoint_tier="tier-ckpt",
        )
    ]
    site = Site("site1", "Hall")
    design.sites.append(site)
    for r in range(0, len(racks), 20):
        site.rows.append(Row(f"row{r // 20:03d}", f"Row {r // 20 + 1}", racks[r : r + 20]))
    design.reindex()
    return design


def timed(func: Callable[[], Any], repeat: int = 5) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000, max(samples) * 1000


def main() -> int:
    start = time.perf_counter()
    design = big_design()
    took = time.perf_counter() - start
    print(
        f"built {len(design.links):,} links, {len(design.index.devices):,} devices in {took:.1f} s"
    )
    med, top = timed(lambda: storage_figures(design))
    print(f"storage_figures:                 median {med:6.1f} ms, max {top:6.1f} ms")
    rules = {rule_id: REGISTRY[rule_id] for rule_id in STORAGE_RULES}
    start = time.perf_counter()
    checker = Checker(design, rules=rules)
    print(f"storage rules, full check:       {(time.perf_counter() - start) * 1000:6.1f} ms")
    node = design.sites[0].rows[0].racks[0].devices[0]
    other = design.sites[0].rows[0].racks[1]

    def drag() -> None:
        applied = ops.apply(design, ops.MoveDevice(node.id, other.id, 44, "front"))
        checker.update(applied.change)
        checker.update(ops.apply(design, applied.inverse).change)

    med, top = timed(drag)
    print(f"drag a node and back (2 updates): median {med:6.1f} ms, max {top:6.1f} ms")
    print(f"findings: {len(checker.findings())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
