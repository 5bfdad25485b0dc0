"""Storage rules on a tier's planning figures (issue 24; the seeds' own rules):

* STORAGE-CAPACITY: a tier holding a dataset that ``concurrent_jobs`` jobs read at once
  needs at least dataset × jobs of usable capacity — "what planning must work out is
  training-set size × concurrent jobs, not the total capacity alone" (seed 001).
* STORAGE-METADATA: above ~40 GPUs the tier the training jobs read needs its own
  metadata servers — "the metadata servers are deployed separately with CPU reserved,
  because dense small-file reads overwhelm the metadata nodes first" (seed 000); "the
  metadata operations become the bottleneck before the bandwidth" (seed 004).  A tier
  that does not state any is a warning until it does.
* STORAGE-GDS: above ~40 GPUs the tier the training jobs read should be read with
  GPUDirect Storage — "GPU Direct Storage bypasses the CPU and page cache ... if GDS does
  not take effect, it falls back to plain POSIX reads and the throughput can drop by
  half" (seed 004, which lists GDS with prefetching as the cure for data starvation).
  A note (information) while the tier says no or does not say.

* STORAGE-CHECKPOINT-BURST: training jobs saving to one tier can save at the same
  moment — "if several training jobs trigger a checkpoint at once and the storage cannot
  take it, the cluster 'waits on IO': GPUs idle, jobs stalled" (seed 000).  Their saves
  together at the tier's write bandwidth must stay within 5 % of the shortest interval
  among them (STORAGE-CHECKPOINT's mark, for one job alone).

The figures are the tier's own fields (:class:`workbench.model.StorageTier`), set with
``workbench tiers set`` or the model edit :class:`~workbench.model.net_ops.SetTierFields`.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.calc.errors import InputError
from workbench.calc.presets import resolve_model
from workbench.calc.storage import (
    MAX_CHECKPOINT_OVERHEAD,
    checkpoint_bytes,
    checkpoint_overhead,
    checkpoint_write_seconds,
)
from workbench.model import Design, StorageTier
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.rules.sources import planning
from workbench.rules.storage import (
    HOT_TIER_RULE_ABOVE_GPUS,
    NAMED,
    dataset_tiers,
    figures,
    interval_min,
    storage_moved,
    workload_tier,
)
from workbench.units import short_number


def _judged_dataset_tiers(ctx: RuleContext, design: Design) -> tuple[int, list[StorageTier]]:
    """The design's GPU count and the dataset tiers the seeds' planning rules judge: none
    at or below the hot-tier threshold, where one node's local disks can feed the jobs."""
    gpus = ctx.summary.gpus
    if gpus <= HOT_TIER_RULE_ABOVE_GPUS:
        return gpus, []
    wanted = set(dataset_tiers(design))
    return gpus, [tier for tier in design.storage_tiers if tier.id in wanted]


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
    gpus, tiers = _judged_dataset_tiers(ctx, design)
    for tier in tiers:
        if not tier.metadata_servers:
            yield me.finding(
                f"Tier {tier.name} feeds {gpus:,} GPUs' datasets but states no dedicated "
                "metadata servers: small files load the metadata service before the "
                "bandwidth; deploy them apart and state how many (and the small-file IOPS "
                "they serve).",
                tier.id,
            )


@rule(
    "STORAGE-GDS",
    title="Dataset tier not read with GPUDirect Storage",
    severity=Severity.INFO,
    scope="design",
    looks_at={"tier", "device", "link", "design"},
    depends=storage_moved,
    source=planning(
        "GPUDirect Storage: without it reads fall back to POSIX through the CPU and the "
        "throughput can halve (seed 004)"
    ),
)
def storage_gds(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    gpus, tiers = _judged_dataset_tiers(ctx, design)
    for tier in tiers:
        if tier.gpudirect_storage:
            continue
        said = (
            "is read without GPUDirect Storage"
            if tier.gpudirect_storage is False
            else "does not say if it is read with GPUDirect Storage"
        )
        yield me.finding(
            f"Tier {tier.name} feeds {gpus:,} GPUs' datasets and {said}: without it reads "
            "go through the CPU and page cache and can reach half the rate; plan GDS "
            "(nvidia-fs, GPU and NIC or NVMe under one PCIe switch) or size the tier for it.",
            tier.id,
        )


@rule(
    "STORAGE-CHECKPOINT-BURST",
    title="Training jobs' checkpoints saved at once overload their tier",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"workload", "tier", "device", "link", "design"},
    depends=lambda design, change: bool(change.workloads) or storage_moved(design, change),
    source=planning("several jobs' checkpoints at once: the tier takes them together (seed 000)"),
)
def storage_checkpoint_burst(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    by_tier: dict[str, list[tuple[str, str, float, float]]] = {}
    for job in design.workloads:
        if job.kind != "training":
            continue
        tier = workload_tier(design, job.checkpoint_tier)
        interval = interval_min(job)
        if tier is None or interval is None:
            continue
        try:
            # The model alone (no estimate): a checkpoint's size is its parameters'.
            model = resolve_model(job.model, job.params, job.model_config)
            size = checkpoint_bytes(model.params, job.precision)
        except (InputError, KeyError, ValueError, TypeError):
            continue  # WORKLOAD-INPUT says what is wrong with the job
        by_tier.setdefault(tier.id, []).append((job.id, job.name, size, interval))
    found = figures(ctx)
    for tier_id, jobs in by_tier.items():
        tf = found.tier(tier_id)
        if len(jobs) < 2 or tf is None:
            continue
        write = min(tf.served_write_gbs, tf.client_gbs)
        total = sum(size for _i, _n, size, _m in jobs)
        shortest = min(minutes for _i, _n, _s, minutes in jobs)
        if write <= 0:
            continue
        seconds = checkpoint_write_seconds(total, write)
        share = checkpoint_overhead(seconds, shortest * 60)
        if share <= MAX_CHECKPOINT_OVERHEAD:
            continue
        names = [name for _i, name, _s, _m in jobs]
        shown = ", ".join(names[:NAMED]) + (
            f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
        )
        yield me.finding(
            f"Tier {tf.name}: {len(jobs)} jobs ({shown}) saving {total / 1e12:,.2f} TB of "
            f"checkpoints at once take {short_number(seconds)} s at {write:,.1f} GB/s, "
            f"{share:.1%} of the shortest interval ({short_number(shortest)} min), above "
            f"{MAX_CHECKPOINT_OVERHEAD:.0%}: stagger their saves or add write bandwidth.",
            tier_id,
            *(job_id for job_id, _n, _s, _m in jobs),
        )
