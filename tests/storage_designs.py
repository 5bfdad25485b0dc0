"""Small designs with storage tiers and a cabled storage plane, for the storage tests
(imported as a plain module, like ``store_designs``).

Every figure comes from the shipped catalog:

* ``nvidia-dgx-h100``: 8 GPUs, storage0..3 are 400G QSFP112 (DGX H100 user guide: two
  dual-port ConnectX-7 for storage and in-band), so an uncabled node counts 1,600 Gb/s;
* ``generic-allflash-pfs-node``: 24 × 15.36 TB = 368.64 TB raw, 50 GB/s read, 30 GB/s
  write (planning estimates of the catalog), storage0..3 400G QSFP112;
* ``nvidia-sn4600``: 64 × 200G QSFP56 (swp1..swp64), so a 400G host port cabled to it
  runs at 200G.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.catalog import Catalog
from workbench.catalog.item import CatalogItem, Interface
from workbench.model import Design, Device, Link, Network, Rack, Row, Site, StorageTier, Workload

DGX = "nvidia-dgx-h100"
PFS = "generic-allflash-pfs-node"
OBJ = "generic-object-storage-node"
HDD = "generic-hdd-enclosure-84"
SWITCH = "nvidia-sn4600"
GPU_RACK = "generic-rack-48u-rdhx"
RACK = "generic-rack-42u-air"

#: A node with one 25G SFP28 storage NIC (brief §4: "a node with a 25G storage NIC
#: starves 8 GPUs"); otherwise figures of nothing else matter here.
SLOW_NODE = CatalogItem(
    slug="node-25g-storage",
    kind="server",
    manufacturer="Test",
    model="8-GPU node with a 25G storage NIC",
    u_height=4,
    gpu="nvidia-h100-sxm5-80gb",
    gpu_count=8,
    max_power_w=6000,
    weight=60.0,
    interfaces=(
        Interface("compute0", "400gbase-x-osfp"),
        Interface("storage0", "25gbase-x-sfp28"),
        Interface("mgmt0", "10gbase-t"),
    ),
)


def storage_design(
    catalog: Catalog,
    *,
    nodes: int = 2,
    node_slug: str = DGX,
    appliances: int = 2,
    appliance_slug: str = PFS,
    appliance_links: int = 0,
    node_links: int = 0,
    tiers: Sequence[StorageTier] | None = None,
    workloads: Sequence[Workload] = (),
    extra: Sequence[CatalogItem] = (),
) -> Design:
    """``nodes`` GPU nodes (three to a rear-door rack), ``appliances`` storage appliances
    in a storage rack and one SN4600 storage switch; each appliance cabled with
    ``appliance_links`` and each node with ``node_links`` storage links (200G on the
    SN4600), on network ``net-storage``.  Default tiers: one hot tier of every appliance.
    """
    design = Design(name="storage test")
    for slug in (DGX, PFS, OBJ, HDD, SWITCH, GPU_RACK, RACK, "nvidia-h100-sxm5-80gb"):
        design.device_types[slug] = catalog[slug]
    for item in (SLOW_NODE, *extra):
        design.device_types[item.slug] = item
    design.networks.append(Network("net-storage", "Storage", "storage", "ethernet", 200.0, 9000))
    node_item = design.device_types[node_slug]
    height = int(node_item.u_height)
    gpu_nodes = [
        Device(f"gpu-{n}", f"gpu-{n:02d}", node_slug, 1 + height * (n % 3)) for n in range(nodes)
    ]
    racks = [
        Rack(
            f"rg{k}",
            f"G{k + 1:02d}",
            GPU_RACK,
            cooling="rear-door",
            power_limit_kw=50.0,
            devices=gpu_nodes[k * 3 : k * 3 + 3],
        )
        for k in range((nodes + 2) // 3)
    ]
    app_item = design.device_types[appliance_slug]
    step = int(app_item.u_height)
    boxes = [
        Device(f"st-{n}", f"st-{n:02d}", appliance_slug, 1 + step * n) for n in range(appliances)
    ]
    racks.append(Rack("rs", "S01", RACK, power_limit_kw=30.0, devices=boxes))
    switch = Device("sw-1", "stor-leaf-01", SWITCH, 40)
    racks.append(Rack("rn", "N01", RACK, devices=[switch]))
    design.sites = [Site("site", "Hall", [Row("row", "Row A", racks)])]
    ports = iter(range(1, 65))
    for hosts, count in ((boxes, appliance_links), (gpu_nodes, node_links)):
        for host in hosts:
            for k in range(count):
                design.links.append(
                    Link(
                        f"l-{host.id}-{k}",
                        host.id,
                        f"storage{k}",
                        switch.id,
                        f"swp{next(ports)}",
                        "net-storage",
                    )
                )
    if tiers is None:
        tiers = [StorageTier("tier-hot", "Hot", "hot", "Lustre", [b.id for b in boxes])]
    design.storage_tiers = list(tiers)
    design.workloads = list(workloads)
    design.reindex()
    return design
