"""Storage rules on a tier's planning figures (issue 24; the seeds' own rules):

* STORAGE-CAPACITY: a tier holding a dataset that ``concurrent_jobs`` jobs read at once
  needs at least dataset × jobs of usable capacity — "what planning must work out is
  training-set size × concurrent jobs, not the total capacity alone" (seed 001).
* STORAGE-METADATA: above ~40 GPUs the tier the training jobs read needs its own
  metadata servers — "the metadata servers are deployed separately with CPU reserved,
  because dense small-file reads overwhelm the metadata nodes first" (seed 000); "the
  metadata operations become the bottleneck before the bandwidth" (seed 004).  A tier
  that does not state any is a warning until it does.

The figures are the tier's own fields (:class:`workbench.model.StorageTier`), set with
``workbench tiers set`` or the model edit :class:`~workbench.model.net_ops.SetTierFields`.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.model import Design
from workbench.rules.engine import Finding, Rule, RuleContext, Severity, rule
from workbench.rules.sources import planning
from workbench.rules.storage import (
    HOT_TIER_RULE_ABOVE_GPUS,
    dataset_tiers,
    figures,
    storage_moved,
)


@rule(
    "STORAGE-CAPACITY",
    title="Tier smaller than its datasets × concurrent jobs",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"tier", "device", "link", "design"},
    depends=storage_moved,
    source=planning("capacity = training-set size × concurrent jobs (seed 001)"),
)
def storage_capacity(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    found = figures(ctx)
    for tier in design.storage_tiers:
        if not tier.dataset_tb or not tier.concurrent_jobs:
            continue
        need = tier.dataset_tb * tier.concurrent_jobs
        figures_of = found.tier(tier.id)
        usable = figures_of.usable_tb if figures_of is not None else 0.0
        if usable + 1e-9 < need:
            yield me.finding(
                f"Tier {tier.name}: {tier.concurrent_jobs:,} concurrent jobs × "
                f"{tier.dataset_tb:,.1f} TB of dataset need {need:,.1f} TB; the tier holds "
                f"{usable:,.1f} TB usable.",
                tier.id,
            )


@rule(
    "STORAGE-METADATA",
    title="Dataset tier without dedicated metadata servers",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"tier", "device", "link", "design"},
    depends=storage_moved,
    source=planning(
        "above ~40 GPUs deploy the metadata servers apart; small files load them first "
        "(seeds 000, 004)"
    ),
)
def storage_metadata(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    gpus = ctx.summary.gpus
    if gpus <= HOT_TIER_RULE_ABOVE_GPUS:
        return
    wanted = set(dataset_tiers(design))
    for tier in design.storage_tiers:
        if tier.id in wanted and not tier.metadata_servers:
            yield me.finding(
                f"Tier {tier.name} feeds {gpus:,} GPUs' datasets but states no dedicated "
                "metadata servers: small files load the metadata service before the "
                "bandwidth; deploy them apart and state how many (and the small-file IOPS "
                "they serve).",
                tier.id,
            )
