"""The storage plane the templates generate, checked against NVIDIA's reference.

NVIDIA DGX SuperPOD: Next Generation Scalable Infrastructure for AI Leadership,
reference architecture RA-11333-001 V11 (DGX H100), "Storage Fabric": "The storage
devices are connected at a 1:1 port to uplink ratio. The DGX H100 system connections
are slightly oversubscribed with a ratio near 4:3", and "the I/O per-node for the DGX
SuperPOD must exceed 40 GBps" (its Table 6 gives 40 GB/s as the best single-node read).
The reference builds that fabric of MQM9700 (InfiniBand); the template's is Ethernet
(SN4600 leaves, SN5600 spines), and the ratios are the same rule on either.

One scalable unit (32 DGX H100, 256 GPUs) and four (128, 1,024 GPUs), with the
appliances the template sizes for them (the hot tier's all-flash nodes, the warm
tier's object nodes, the head nodes), each leaf's bandwidth summed from its links.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import pytest

from workbench.model import Design
from workbench.planning.fabric.ports import slots
from workbench.templates.builder import build_template

#: RA-11333-001 V11, Storage Fabric: storage devices 1:1, DGX H100 nodes near 4:3.
APPLIANCE_RATIO = 1.0
NODE_RATIO = 4 / 3
#: RA-11333-001 V11: per-node storage I/O must exceed 40 GB/s.
NODE_IO_GBS = 40.0
NODE = "nvidia-dgx-h100"


@dataclass
class Leaf:
    """One storage switch's links: Gb/s to GPU nodes, to other hosts (appliances, head
    nodes) and up to other switches; how many go up; every device at the other end."""

    gbps: Counter[str] = field(default_factory=Counter)
    peers: set[str] = field(default_factory=set)

    @property
    def node_gbps(self) -> float:
        return self.gbps["node"]

    @property
    def appliance_gbps(self) -> float:
        return self.gbps["appliance"]

    @property
    def up_gbps(self) -> float:
        return self.gbps["up"]

    @property
    def up_links(self) -> int:
        return int(self.gbps["up links"])


def _storage_switches(design: Design) -> tuple[dict[str, Leaf], dict[str, str], Counter[str]]:
    """Each storage switch's bandwidth by what is on the other end; each device's
    catalog slug; each GPU node's storage Gb/s."""
    nets = {n.id for n in design.networks if n.plane == "storage"}
    slug = {d.id: d.device_type for _, d in design.iter_devices()}
    role = {d.id: d.role for _, d in design.iter_devices()}
    switches = {i: Leaf() for i, r in role.items() if r == "storage-switch"}
    node_gbps: Counter[str] = Counter()
    for link in design.links:
        if link.network not in nets:
            continue
        speed = float(link.speed_gbps or 0.0)
        assert speed > 0, f"storage link {link.id} has no speed"
        for a, b in ((link.a_device, link.b_device), (link.b_device, link.a_device)):
            if a not in switches:
                if slug[a] == NODE:
                    node_gbps[a] += speed
                continue
            leaf = switches[a]
            leaf.peers.add(b)
            if b in switches:
                leaf.gbps["up"] += speed
                leaf.gbps["up links"] += 1
            else:
                leaf.gbps["node" if slug[b] == NODE else "appliance"] += speed
    return switches, slug, node_gbps


@pytest.mark.parametrize("gpus", [256, 1024])
def test_storage_plane_meets_the_superpod_reference(gpus: int) -> None:
    design = build_template("dgx-h100-superpod", gpus)
    switches, slug, node_gbps = _storage_switches(design)
    nodes = sum(1 for s in slug.values() if s == NODE)
    assert nodes == gpus // 8
    appliances = {d for tier in design.storage_tiers for d in tier.device_ids}
    assert appliances, "the template sizes storage tiers"

    leaves = {i: s for i, s in switches.items() if s.node_gbps or s.appliance_gbps}
    spines = {i: s for i, s in switches.items() if i not in leaves}
    assert leaves and spines

    # Every GPU node reaches storage above the reference's 40 GB/s.
    assert set(node_gbps) == {i for i, s in slug.items() if s == NODE}
    assert min(node_gbps.values()) / 8 > NODE_IO_GBS

    # Every appliance of the tiers is cabled to the plane.
    cabled = set().union(*(s.peers for s in leaves.values()))
    assert appliances <= cabled

    for leaf_id, leaf in leaves.items():
        # Appliance ports 1:1 with uplinks; node ports may take the rest at up to 4:3.
        need = leaf.appliance_gbps / APPLIANCE_RATIO + leaf.node_gbps / NODE_RATIO
        assert leaf.up_gbps >= need, (leaf_id, leaf)
        if leaf.appliance_gbps:
            assert leaf.up_gbps >= leaf.appliance_gbps, (leaf_id, leaf)
        # Every leaf reaches every spine, with the same number of links.
        assert leaf.peers >= set(spines), leaf_id

    # Switch counts: no more leaves than full non-blocking leaves need, and no fewer
    # than the 4:3 ratio would allow; spines only as many as carry the uplinks.
    leaf_item = design.device_types[slug[next(iter(leaves))]]
    spine_item = design.device_types[slug[next(iter(spines))]]
    speed = next(n.speed_gbps for n in design.networks if n.plane == "storage")
    ports = len(slots(leaf_item, speed))
    host_ports = sum(round((s.node_gbps + s.appliance_gbps) / speed) for s in leaves.values())
    assert math.ceil(host_ports / (ports * NODE_RATIO / (1 + NODE_RATIO))) <= len(leaves)
    assert len(leaves) <= math.ceil(host_ports / (ports // 2))
    uplinks = sum(s.up_links for s in leaves.values())
    spine_ports = len(slots(spine_item, speed))
    assert len(spines) == math.ceil(uplinks / spine_ports)
    for spine_id, spine in spines.items():
        assert spine.up_links <= spine_ports, spine_id
