"""Node rules: one GPU model per node, and host memory that does not starve the GPUs.

Both read only the node's catalog item (a few dictionary lookups per node), so checking
the 12,500 nodes of a 100,000-GPU design stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.catalog.item import CatalogItem, fitted_gpus
from workbench.model import Design, Device
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.rules.sources import planning


def gpu_models(design: Design, item: CatalogItem) -> dict[str, int]:
    """GPU model → count fitted in one node of type ``item`` (:func:`fitted_gpus`)."""
    return fitted_gpus(item)


def _label(design: Design, slug: str) -> str:
    gpu = design.device_types.get(slug)
    return gpu.model if gpu is not None else slug


@rule(
    "NODE-MIXED-GPU",
    title="More than one GPU model in a node",
    severity=Severity.ERROR,
    scope="device",
    looks_at={"device", "design"},
    source=planning("do not mix GPU models inside a node or a partition"),
    per_type=True,
)
def node_mixed_gpu(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    item = ctx.design.device_types.get(device.device_type)
    if item is None or item.kind != "server":
        return
    fitted = gpu_models(ctx.design, item)
    if len(fitted) > 1:
        mix = ", ".join(f"{n} × {_label(ctx.design, slug)}" for slug, n in sorted(fitted.items()))
        yield me.finding(
            f"{device.name} ({item.model}) mixes GPU models: {mix}. Collective operations "
            "run at the pace of the slowest card, and the scheduler cannot treat the "
            "GPUs alike.",
            device.id,
        )


@rule(
    "NODE-HOST-RAM",
    title="Host memory below the node's GPU memory",
    severity=Severity.WARNING,
    scope="device",
    looks_at={"device", "design"},
    source=planning(
        "host RAM must not be starved: 512 GB-2 TB per 8-GPU node, never below the "
        "node's total GPU memory"
    ),
    per_type=True,
)
def node_host_ram(ctx: RuleContext, me: Rule, device: Device) -> Iterator[Finding]:
    item = ctx.design.device_types.get(device.device_type)
    if item is None or not item.gpu_count:
        return
    ram = item.props.get("host_ram_gb")
    gpu = ctx.design.device_types.get(item.gpu or "")
    hbm = gpu.hbm_gb if gpu is not None and gpu.hbm_gb else item.hbm_gb
    if not isinstance(ram, (int, float)) or not hbm:
        return  # the catalog does not give both figures: nothing to compare
    gpu_memory = item.gpu_count * float(hbm)
    if ram < gpu_memory:
        yield me.finding(
            f"{device.name} ({item.model}) has {ram:,.0f} GB of host memory for "
            f"{gpu_memory:,.0f} GB of GPU memory ({item.gpu_count} × {hbm:g} GB); data "
            "loaders and checkpoint staging will starve the GPUs.",
            device.id,
        )
