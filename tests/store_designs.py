"""Designs and catalog entries shared by the store tests, the version samples and nothing else.

The catalog entries are mappings in the catalog's own format and are turned into items
by the catalog's parser, exactly as a design's snapshot is re-read on open, so a
round-trip test compares like with like.
"""

from __future__ import annotations

from typing import Any

from workbench.catalog import parse_item
from workbench.catalog.item import CatalogItem
from workbench.model.design import (
    Design,
    Device,
    Link,
    Network,
    Rack,
    Row,
    Site,
    SoftwareStack,
    StorageTier,
    Team,
    Waiver,
    Workload,
)

CATALOG_MAPPINGS: list[dict[str, Any]] = [
    {
        "slug": "rack-42u",
        "kind": "rack",
        "manufacturer": "Generic",
        "model": "42U rack",
        "u_height": 42,
        "props": {"max_weight_kg": 1360, "cooling": "air"},
    },
    {
        "slug": "h100-sxm",
        "kind": "gpu",
        "manufacturer": "NVIDIA",
        "model": "H100 SXM5 80GB",
        "hbm_gb": 80,
        "tflops": {"bf16": 989.4, "fp8": 1978.9},
        "max_power_w": 700,
    },
    {
        "slug": "dgx-h100",
        "kind": "server",
        "manufacturer": "NVIDIA",
        "model": "DGX H100",
        "u_height": 8,
        "gpu": "h100-sxm",
        "gpu_count": 8,
        "max_power_w": 10200,
        "typical_power_w": 8500,
        "weight": 130.45,
        "interfaces": [{"name": f"osfp{i}", "type": "400gbase-x-osfp"} for i in range(8)]
        + [{"name": "bmc", "type": "1000base-t", "mgmt_only": True}],
        "power-ports": [{"name": f"psu{i}", "maximum_draw": 3300} for i in range(6)],
        "sources": {"max_power_w": "DGX H100 user guide"},
        "comments": "Ünïcödé comment ✓",
    },
    {
        "slug": "mgmt-switch-48",
        "kind": "switch",
        "manufacturer": "Generic",
        "model": "48x1G management switch",
        "u_height": 1,
        "max_power_w": 150,
        "interfaces": [{"name": f"ge{i}", "type": "1000base-t"} for i in range(1, 49)],
    },
]


def snapshot() -> dict[str, CatalogItem]:
    """The test catalog, parsed as a design snapshot would be."""
    items = [parse_item(m, source_file="tests") for m in CATALOG_MAPPINGS]
    return {item.slug: item for item in items}


def one_rack_design(
    device_types: dict[str, CatalogItem],
    devices: list[Device],
    rack_type: str = "rack-42u",
    rack_name: str = "Rack 1",
) -> Design:
    """One site, one row and one rack (id ``k``) holding ``devices``."""
    rack = Rack("k", rack_name, rack_type, devices=devices)
    return Design(sites=[Site("s", "S", [Row("r", "R", [rack])])], device_types=device_types)


def small_design(name: str = "Small test design") -> Design:
    """Two racks, a few devices and one of every other kind of object, with unicode."""
    types = snapshot()
    racks = []
    for r in range(2):
        devices = [
            Device(
                f"d{r}-{i}",
                f"gpu-node-{r}{i} ✓",
                "dgx-h100",
                position=1 + 8 * i,
                serial=f"SN{r}{i}",
                software_stack="base" if i else None,
            )
            for i in range(2)
        ]
        devices.append(
            Device(
                f"m{r}",
                f"mgmt-{r}",
                "mgmt-switch-48",
                position=42,
                face="rear",
                notes="top of rack\nsecond line",
            )
        )
        racks.append(
            Rack(
                f"rack{r}",
                f"Rack Ω-{r}",
                "rack-42u",
                cooling="liquid",
                power_limit_kw=40.5,
                devices=devices,
            )
        )
    return Design(
        name=name,
        sites=[
            Site("s1", "Hall Ä", rows=[Row("row1", "Row 1", racks=racks), Row("row2", "Empty")])
        ],
        device_types=types,
        networks=[
            Network("n1", "compute IB"),
            Network(
                "n2",
                "mgmt",
                plane="management",
                technology="ethernet",
                speed_gbps=1.0,
                mtu=1500,
                vlan=10,
            ),
        ],
        links=[
            Link("l1", "d0-0", "bmc", "m0", "ge1", network="n2", cable_type=None, length_m=2.5),
            Link("l2", "d0-1", "osfp0", "d1-0", "osfp0"),
        ],
        storage_tiers=[StorageTier("t1", "hot", filesystem="lustre", device_ids=["d1-1"])],
        workloads=[
            Workload("w1", "pretrain"),
            Workload(
                "w2",
                "custom serve",
                kind="inference",
                model="custom",
                params=7.5e9,
                model_config={"layers": 32, "hidden": 4096, "moe": None, "tags": ["a", "ß"]},
                gpus=16,
                gpu_type="h100-sxm",
            ),
        ],
        software_stacks=[
            SoftwareStack(
                "base",
                "Base 2024.1",
                components={"driver": "550.54.15", "cuda": "12.4"},
                revision=3,
            )
        ],
        properties={"customer": "ACME ☃", "": "empty key"},
    )


def full_design(name: str = "Full test design") -> Design:
    """:func:`small_design` with a value in every field later schema versions added
    (device roles, a workload's target days, waivers), so no column is only ever empty."""
    design = small_design(name)
    for _, device in design.iter_devices():
        if device.name.startswith("mgmt-"):
            device.role = "storage-switch"
    design.workloads[0].target_days = 30.25
    design.waivers = [
        Waiver("RACK-POWER", "rack0", "signed off ✓\nby facilities", "2026-01-02T03:04:05+00:00"),
        Waiver("WORKLOAD-DEADLINE", "w1", ""),
    ]
    tier = design.storage_tiers[0]
    tier.metadata_servers, tier.small_file_iops = 4, 2.5e6
    tier.dataset_tb, tier.concurrent_jobs = 120.5, 3
    design.teams = [Team("team-1", "llm-pretrain", gpus=64, priority=10),
                    Team("team-2", "research", share=0.25)]  # fmt: skip
    return design
