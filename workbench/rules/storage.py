"""Storage rules: the hot tier must keep the GPUs fed.

Planning practice: the hot tier, an all-flash parallel file
system, must read at least 50 GB/s for clusters above about 40 GPUs.  The template
builder sizes its hot tier with :func:`hot_tier_required_gbs` and the STORAGE-HOT-TIER
rule checks any design against the same function.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from workbench.model import Design
from workbench.rules.engine import Finding, Rule, RuleContext, Severity, rule
from workbench.rules.sources import planning

#: Hot-tier read bandwidth floor and the cluster size above which it applies (brief §4).
HOT_TIER_MIN_READ_GBS = 50.0
HOT_TIER_RULE_ABOVE_GPUS = 40
_SOURCE = planning("hot-tier read bandwidth of at least 50 GB/s for clusters above ~40 GPUs")


def hot_tier_required_gbs(gpus: int) -> float:
    """The read bandwidth (GB/s) the hot tier must reach for ``gpus`` GPUs: 50 above 40
    GPUs, nothing below."""
    return HOT_TIER_MIN_READ_GBS if gpus > HOT_TIER_RULE_ABOVE_GPUS else 0.0


@dataclass(frozen=True)
class HotTier:
    """What the design's hot tiers read, and from how many devices."""

    read_gbs: float
    devices: int
    tiers: tuple[str, ...]


def hot_tier(design: Design) -> HotTier:
    """Sum of the ``read_gbs`` of every device in the design's hot tiers."""
    read = 0.0
    count = 0
    tiers = []
    index = design.index
    for tier in design.storage_tiers:
        if tier.tier != "hot":
            continue
        tiers.append(tier.id)
        for device_id in tier.device_ids:
            found = index.devices.get(device_id)
            if found is None:
                continue
            item = design.device_types.get(found[1].device_type)
            value = item.props.get("read_gbs") if item is not None else None
            if isinstance(value, (int, float)) and value > 0:
                read += float(value)
                count += 1
    return HotTier(read, count, tuple(tiers))


@rule(
    "STORAGE-HOT-TIER",
    title="Hot tier too slow for the GPUs",
    severity=Severity.ERROR,
    scope="design",
    looks_at={"tier", "device", "design"},
    source=_SOURCE,
)
def storage_hot_tier(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    gpus = ctx.summary.gpus
    need = hot_tier_required_gbs(gpus)
    if not need:
        return
    tier = hot_tier(design)
    if tier.read_gbs >= need:
        return
    objects: tuple[str, ...] = ()
    if not tier.tiers:
        where = "the design has no hot tier"
    else:
        where = f"the hot tier reads {tier.read_gbs:,.1f} GB/s from {tier.devices} devices"
        objects = tier.tiers
    yield me.finding(
        f"{gpus:,} GPUs need at least {need:g} GB/s of hot-tier read bandwidth; {where}.",
        *(objects or ("design",)),
    )
