"""Synthetic designs for the calculator tests and benchmark, built from dataclasses.

Figures are from shared/data/hardware-reference.json: H100 SXM5 80GB (dense BF16 989.5,
FP8 1979, TF32 494.5, FP64 34 TFLOPS; 80 GB; 3.35 TB/s; NVIDIA H100 datasheet via
hpctech.co.jp / glennklockwood.com) and DGX H100 (8 GPUs, 10.2 kW max, 8U, 130.45 kg;
NVIDIA DGX H100/H200 User Guide).  The switch and rack figures are test values only.
"""

from __future__ import annotations

from workbench.catalog.item import CatalogItem
from workbench.model.design import Design, Device, Rack, Row, Site

H100 = CatalogItem(
    slug="nvidia-h100-sxm5-80gb",
    kind="gpu",
    manufacturer="NVIDIA",
    model="H100 SXM5 80GB",
    tflops={"fp64": 34, "fp32": 67, "tf32": 494.5, "fp16": 989.5, "bf16": 989.5, "fp8": 1979},
    hbm_gb=80,
    hbm_bw_tbs=3.35,
    nvlink_gbs=900,
    max_power_w=700,
)
DGX_H100 = CatalogItem(
    slug="nvidia-dgx-h100",
    kind="server",
    manufacturer="NVIDIA",
    model="DGX H100",
    u_height=8,
    weight=130.45,
    gpu="nvidia-h100-sxm5-80gb",
    gpu_count=8,
    max_power_w=10_200,
    typical_power_w=8_000,  # typical: a test value
)
SWITCH = CatalogItem(
    slug="test-switch",
    kind="switch",
    manufacturer="Test",
    model="Leaf",
    u_height=1,
    weight=14.8,
    max_power_w=1_000,
)
RACK_48U = CatalogItem(
    slug="test-rack-48u",
    kind="rack",
    manufacturer="Test",
    model="48U",
    u_height=48,
    props={"max_weight_kg": 1500},
)


def dgx_design(
    nodes: int, per_rack: int = 4, switches_per_rack: int = 1, limit_kw: float = 50.0
) -> Design:
    """``nodes`` DGX H100 servers, ``per_rack`` to a rack plus switches, in rows of 10 racks."""
    design = Design(name=f"{nodes} x DGX H100")
    for item in (H100, DGX_H100, SWITCH, RACK_48U):
        design.device_types[item.slug] = item
    site = Site(id="s1", name="Hall 1")
    design.sites.append(site)
    racks = -(-nodes // per_rack)
    placed = 0
    for r in range(racks):
        if r % 10 == 0:
            site.rows.append(Row(id=f"row{r // 10}", name=f"Row {r // 10}"))
        rack = Rack(
            id=f"r{r}",
            name=f"R{r:04d}",
            rack_type=RACK_48U.slug,
            cooling="rear-door",
            power_limit_kw=limit_kw,
        )
        for k in range(min(per_rack, nodes - placed)):
            rack.devices.append(
                Device(
                    id=f"n{placed}",
                    name=f"node{placed:05d}",
                    device_type=DGX_H100.slug,
                    position=1 + 8 * k,
                )
            )
            placed += 1
        for k in range(switches_per_rack):
            rack.devices.append(
                Device(id=f"sw{r}-{k}", name=f"sw{r}-{k}", device_type=SWITCH.slug, position=40 + k)
            )
        site.rows[-1].racks.append(rack)
    return design
