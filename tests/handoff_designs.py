"""Designs the handoff tests share: a cluster with two GPU models."""

from __future__ import annotations

from workbench.catalog.loader import load_catalog
from workbench.model.design import Design, Device, Rack
from workbench.model.ops import AddDevice, AddDeviceType, AddRack, apply
from workbench.templates import build_template


def mixed_h100_a100(a100_nodes: int = 4) -> Design:
    """A 256-GPU DGX H100 SuperPOD (32 nodes) plus one rack of DGX A100 nodes, not on
    the compute fabric (a second generation bought later)."""
    design = build_template("dgx-h100-superpod", gpus=256)
    catalog = load_catalog(include_user=False)
    item = catalog.get("nvidia-dgx-a100")
    assert item is not None and item.gpu
    for needed in (catalog.get(item.gpu), item):
        assert needed is not None
        apply(design, AddDeviceType(needed))
    row = design.sites[0].rows[-1]
    rack = Rack("rack-a100", "a100-rack", next(iter(r.rack_type for r in row.racks)))
    apply(design, AddRack(row.id, rack))
    for i in range(a100_nodes):
        device = Device(f"dev-a100-{i}", f"gpu-a100-{i}", item.slug, position=1 + 6 * i)
        apply(design, AddDevice(rack.id, device))
    return design
