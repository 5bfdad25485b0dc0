"""Storage rules: the tiers must keep the GPUs fed, take checkpoints quickly, and keep
datasets and checkpoints apart (domain brief §3, §4).

* STORAGE-HOT-TIER: the tier each training job reads its dataset from (its
  ``dataset_tier``, by default the first hot tier) must read at least 50 GB/s for
  clusters above about 40 GPUs, each such tier on its own: a checkpoint-only tier's
  bandwidth feeds no input pipeline, so it no longer hides a slow dataset tier.  What counts is the *effective* read of
  :mod:`workbench.calc.storage_tiers`: the appliances, each limited by its storage-plane
  links once it is cabled, and all of them by the GPU nodes' storage NICs.  The template
  builder sizes its hot tier with :func:`hot_tier_required_gbs`; the rule checks any
  design against the same function.
* STORAGE-HOT-FLASH: a hot tier is all-flash; an appliance on HDD or hybrid media in
  it is a warning.
* STORAGE-UNCABLED: a tier whose appliances are not all cabled into the storage plane
  (the uncabled ones serve nothing, "0 of 4 cabled").
* STORAGE-CLIENT: the client side.  A GPU node needs storage bandwidth for its GPUs
  (the storage plane runs 100–200 Gb/s per 8-GPU node, so at least
  :data:`MIN_NODE_STORAGE_GBPS_PER_GPU` per GPU; "a node with a 25G storage NIC starves
  8 GPUs"), at any size, once the design has a storage tier.  And the nodes together should not carry less than a tier
  serves, or the tier's bandwidth is bought but out of reach; that comparison applies
  where storage bandwidth is planned at all, above the hot-tier rule's ~40 GPUs: below
  it a tier of two appliances (the least for redundancy) outruns one or two nodes by
  design, and nothing is to be fixed.
* STORAGE-CHECKPOINT: one checkpoint save (weights + optimizer state,
  :func:`workbench.calc.storage.checkpoint_bytes`) at the checkpoint tier's effective
  write bandwidth costs at most 5 % of the interval between saves.
* STORAGE-POOLS: a training job's dataset path and checkpoint path on separate pools;
  a tier id that names no tier is an error.

A workload's tiers default to the design's first hot tier (:func:`workload_tier`), its
checkpoint interval to :data:`DEFAULT_CHECKPOINT_INTERVAL_MIN`.  The figures are
computed once per check (``ctx.memo``) for all four rules: one pass over the storage
plane's links and one over the devices.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from workbench.calc.errors import InputError
from workbench.calc.storage import (
    MAX_CHECKPOINT_OVERHEAD,
    checkpoint_bytes,
    checkpoint_overhead,
    checkpoint_write_seconds,
    min_checkpoint_interval_s,
)
from workbench.calc.storage_clients import (
    BITS_PER_BYTE,
    MIN_NODE_STORAGE_GBPS_PER_GPU,
    NodeStorage,
    kept_bandwidth,
    kept_bandwidth_in_steps,
    kept_clients,
    kept_clients_in_steps,
    node_need_gbps,
)
from workbench.calc.storage_tiers import (
    StorageFigures,
    TierFigures,
    storage_figures,
    touches_storage,
)
from workbench.model import Change, Design, StorageTier, Workload
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.rules.sources import planning
from workbench.units import finite, format_quantity, short_number

#: Hot-tier read bandwidth floor and the cluster size above which it applies (brief §4).
#: It agrees with NVIDIA's DGX SuperPOD reference (RA-11333-001 V11, Table 6): one
#: scalable unit of 32 DGX H100 reads 15 / 40 / 125 GB/s (good / better / best), so
#: 50 GB/s sits above "better".
HOT_TIER_MIN_READ_GBS = 50.0
HOT_TIER_RULE_ABOVE_GPUS = 40
_SOURCE = planning("hot-tier read bandwidth of at least 50 GB/s for clusters above ~40 GPUs")

#: Minutes between checkpoint saves when the workload does not say (Workload's docstring).
DEFAULT_CHECKPOINT_INTERVAL_MIN = 60.0
#: How many objects a message names before "and N more".
NAMED = 3

#: The storage rules, in the order the storage panel lists them.
STORAGE_RULES: tuple[str, ...] = (
    "STORAGE-HOT-TIER",
    "STORAGE-HOT-FLASH",
    "STORAGE-UNCABLED",
    "STORAGE-CAPACITY",
    "STORAGE-METADATA",
    "STORAGE-GDS",
    "STORAGE-CHECKPOINT-BURST",
    "STORAGE-CLIENT",
    "STORAGE-CHECKPOINT",
    "STORAGE-POOLS",
)


def hot_tier_required_gbs(gpus: int) -> float:
    """The read bandwidth (GB/s) the hot tier must reach for ``gpus`` GPUs: 50 above 40
    GPUs, nothing below."""
    return HOT_TIER_MIN_READ_GBS if gpus > HOT_TIER_RULE_ABOVE_GPUS else 0.0


@dataclass(frozen=True)
class HotTier:
    """What the design's hot tiers read by their appliances' own figures, and from how
    many devices (the template builder's sizing; the rule uses :func:`hot_read`)."""

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


@dataclass(frozen=True)
class HotRead:
    """The effective read of every hot tier together, and what limits it."""

    #: min(Σ served read of the hot tiers, the clients), GB/s.
    read_gbs: float
    #: The appliances' own read, their storage-plane links, and the clients, GB/s.
    own_gbs: float
    link_gbs: float
    served_gbs: float
    client_gbs: float
    devices: int
    cabled: int
    tiers: tuple[str, ...]
    #: Appliances with storage-plane ports and no link (they serve nothing yet).
    uncabled: int = 0

    @property
    def limit(self) -> str:
        """What binds: "clients", "cabling", "storage links" or "appliances"."""
        if self.client_gbs < self.served_gbs - 1e-9:
            return "clients"
        if self.uncabled and self.served_gbs < self.own_gbs - 1e-9:
            return "cabling"
        if self.served_gbs < self.own_gbs - 1e-9:
            return "storage links"
        return "appliances"

    def limit_text(self, nodes: int) -> str:
        """The binding limit in words, with its number."""
        if self.limit == "clients":
            return (
                f"limited by the storage NICs of the {nodes:,} GPU nodes, "
                f"{self.client_gbs:,.1f} GB/s in all"
            )
        if self.limit == "cabling":
            return (
                f"{self.cabled:,} of {self.cabled + self.uncabled:,} appliances cabled into "
                "the storage plane; the others serve nothing until they are"
            )
        if self.limit == "storage links":
            return (
                f"limited by the appliances' storage-plane links: they read "
                f"{self.own_gbs:,.1f} GB/s, their links carry {self.link_gbs:,.1f} GB/s"
            )
        if not self.cabled:
            return "the appliances' own read; they are not cabled into the storage plane yet"
        return (
            f"the appliances' own read; their storage-plane links carry {self.link_gbs:,.1f} GB/s"
        )


def storage_moved(design: Design, change: Change) -> bool:
    """Whether ``change`` can move a storage verdict: the storage figures
    (:func:`~workbench.calc.storage_tiers.touches_storage`) or the design's own fields."""
    return change.design or touches_storage(design, change)


def figures(ctx: RuleContext) -> StorageFigures:
    """The design's storage figures, computed once per check for every storage rule."""
    found: StorageFigures = ctx.memo("storage-figures", "", lambda: storage_figures(ctx.design))
    return found


#: Racks whose storage clients :func:`figures_in_steps` reads per step (~4 ms).
STEP_RACKS = 250
#: Storage-plane links :func:`figures_in_steps` sums per step (~3 ms).
STEP_LINKS = 2000


def figures_in_steps(ctx: RuleContext) -> Iterator[None]:
    """:func:`figures` for the window's first check, a piece per step (the storage
    rules' ``warm_in_steps``): the summary, the storage plane's Gb/s per host, the
    clients rack by rack (kept by the index), then the tiers.  Why: in one go they
    were the longest step left of a 100,000-GPU design's first check (~35-80 ms)."""
    design = ctx.design
    yield
    ctx.summary  # noqa: B018 - read (and kept) before the storage figures read it
    yield from kept_bandwidth_in_steps(design, STEP_LINKS)
    yield
    bandwidth = kept_bandwidth(design)
    yield from kept_clients_in_steps(design, bandwidth, STEP_RACKS)
    yield
    kept_clients(design, bandwidth)
    yield
    figures(ctx)


def hot_read(found: StorageFigures, tier_ids: Sequence[str] | None = None) -> HotRead:
    """The tiers ``tier_ids`` (default: every hot tier) together, each appliance limited
    by its links (an uncabled one serves nothing), all of them by the clients."""
    if tier_ids is None:
        hot = [t for t in found.tiers if t.kind == "hot"]
    else:
        wanted = set(tier_ids)
        hot = [t for t in found.tiers if t.tier_id in wanted]
    served = sum(t.served_read_gbs for t in hot)
    client = found.clients.gbs
    return HotRead(
        read_gbs=min(served, client),
        own_gbs=sum(t.read_gbs for t in hot),
        link_gbs=sum(t.link_gbs for t in hot),
        served_gbs=served,
        client_gbs=client,
        devices=sum(t.devices for t in hot),
        cabled=sum(t.cabled_devices for t in hot),
        tiers=tuple(t.tier_id for t in hot),
        uncabled=sum(t.uncabled_devices for t in hot),
    )


def dataset_tiers(design: Design) -> tuple[str, ...]:
    """The tiers the training jobs read their datasets from (each job's
    ``dataset_tier``, else the design's first hot tier), in design order; with no
    training job, the first hot tier.  Checkpoint-only tiers are not among them: a
    checkpoint tier's write burst feeds no GPU's input pipeline."""
    wanted: set[str] = set()
    jobs = [w for w in design.workloads if w.kind == "training"]
    for job in jobs or [None]:  # type: ignore[list-item]
        tier = workload_tier(design, job.dataset_tier if job is not None else None)
        if tier is not None:
            wanted.add(tier.id)
    return tuple(t.id for t in design.storage_tiers if t.id in wanted)


def workload_tier(design: Design, tier_id: str | None) -> StorageTier | None:
    """The tier ``tier_id`` names, or for None the design's first hot tier; None when
    there is none (or the id names nothing: STORAGE-POOLS says so)."""
    for tier in design.storage_tiers:
        wanted = tier.id == tier_id if tier_id is not None else tier.tier == "hot"
        if wanted:
            return tier
    return None


def starved_nodes(found: StorageFigures) -> list[NodeStorage]:
    """GPU nodes whose storage bandwidth is below what their GPUs need
    (:func:`~workbench.calc.storage_clients.is_starved`; counted per rack between edits,
    so a design with none answers without reading 12,500 nodes)."""
    return list(found.clients.starved)


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:NAMED])
    more = len(names) - NAMED
    return f"{shown} and {more:,} more" if more > 0 else shown


def _bytes(size: float) -> str:
    return format_quantity(size / 1e12, "TB") if size >= 1e12 else format_quantity(size / 1e9, "GB")


def _seconds(seconds: float) -> str:
    """81.7 s, 3.5 min, 1.2 h."""
    if seconds >= 3600:
        return f"{short_number(seconds / 3600)} h"
    if seconds >= 120:
        return f"{short_number(seconds / 60)} min"
    return f"{short_number(seconds)} s"


@rule(
    "STORAGE-HOT-TIER",
    title="Hot tier too slow for the GPUs",
    severity=Severity.ERROR,
    scope="design",
    looks_at={"tier", "device", "link", "design"},
    depends=storage_moved,
    source=_SOURCE,
    warm_in_steps=figures_in_steps,
)
def storage_hot_tier(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    gpus = ctx.summary.gpus
    need = hot_tier_required_gbs(gpus)
    if not need:
        return
    found = figures(ctx)
    judged = dataset_tiers(design)
    if not judged:
        yield me.finding(
            f"{gpus:,} GPUs need at least {need:g} GB/s of hot-tier read bandwidth; "
            "the design has no hot tier.",
            "design",
        )
        return
    for tier_id in judged:
        read = hot_read(found, (tier_id,))
        if read.read_gbs >= need:
            continue
        figures_of = found.tier(tier_id)
        name = figures_of.name if figures_of is not None else tier_id
        cabled = f", {figures_of.cabled_text}" if figures_of is not None else ""
        yield me.finding(
            f"{gpus:,} GPUs need at least {need:g} GB/s of dataset read bandwidth; tier "
            f"{name}, which the training jobs read, gives {read.read_gbs:,.1f} GB/s from "
            f"{read.devices:,} devices{cabled} "
            f"({read.limit_text(found.clients.count)}).",
            tier_id,
        )


#: Media an all-flash tier is made of (the catalog's ``props.media``).
FLASH_MEDIA = frozenset({"nvme", "ssd"})


def _in_hot_tier(design: Design, ids: AbstractSet[str]) -> bool:
    """Whether one of ``ids`` is an appliance of a hot tier (whose name a finding of
    STORAGE-HOT-FLASH may quote)."""
    return any(
        not ids.isdisjoint(tier.device_ids) for tier in design.storage_tiers if tier.tier == "hot"
    )


@rule(
    "STORAGE-HOT-FLASH",
    title="Hot tier not all-flash",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"tier", "device", "design"},
    depends=storage_moved,
    renames=lambda design, ids: _in_hot_tier(design, ids),
    source=planning("the hot tier is an all-flash parallel file system (NVMe)"),
)
def storage_hot_flash(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    index, types = design.index, design.device_types
    for tier in design.storage_tiers:
        if tier.tier != "hot":
            continue
        spinning: list[str] = []
        media: set[str] = set()
        for device_id in tier.device_ids:
            found = index.devices.get(device_id)
            item = types.get(found[1].device_type) if found is not None else None
            kind = str(item.props.get("media", "")).lower() if item is not None else ""
            if kind and kind not in FLASH_MEDIA:
                spinning.append(found[1].name if found is not None else device_id)
                media.add(kind)
        if spinning:
            yield me.finding(
                f"Hot tier {tier.name} holds {len(spinning):,} appliance(s) on "
                f"{', '.join(sorted(media))} media ({_names(spinning)}): a hot tier feeds "
                "the GPUs' input pipelines and should be all-flash (NVMe); move them to a "
                "warm or cold tier.",
                tier.id,
            )


@rule(
    "STORAGE-UNCABLED",
    title="Storage appliances not cabled",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"tier", "device", "link", "design"},
    depends=storage_moved,
    source=planning("a tier serves only through its storage-plane links"),
    warm_in_steps=figures_in_steps,
)
def storage_uncabled(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    for tier in figures(ctx).tiers:
        if tier.uncabled_devices:
            yield me.finding(
                f"Tier {tier.name}: {tier.cabled_text} into the storage plane; the uncabled "
                f"appliances serve nothing ({tier.uncabled_read_gbs:,.1f} GB/s of read "
                "waits on their links).",
                tier.tier_id,
            )


@rule(
    "STORAGE-CLIENT",
    title="GPU nodes' storage NICs are the bottleneck",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"tier", "device", "link", "design"},
    depends=storage_moved,
    source=planning(
        "storage plane 100–200 Gb/s per node; a node with a 25G storage NIC starves 8 GPUs"
    ),
    warm_in_steps=figures_in_steps,
)
def storage_client(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    if not design.storage_tiers:
        return  # no shared storage planned: the nodes' storage NICs serve nothing yet
    found = figures(ctx)
    groups: dict[tuple[float, int], list[NodeStorage]] = defaultdict(list)
    for node in starved_nodes(found):
        groups[(node.gbps, node.gpus)].append(node)
    for (gbps, gpus), nodes in sorted(groups.items()):
        need = node_need_gbps(gpus)
        what = "GPU node has" if len(nodes) == 1 else "GPU nodes have"
        how = "storage-plane links" if nodes[0].cabled else "storage ports"
        yield me.finding(
            f"{len(nodes):,} {what} {short_number(gbps)} Gb/s of {how} for {gpus} GPUs each, "
            f"below the {short_number(need)} Gb/s they need "
            f"({MIN_NODE_STORAGE_GBPS_PER_GPU:g} Gb/s per GPU): "
            f"{_names([n.name for n in nodes])}. Fit faster storage NICs or cable more "
            "storage ports.",
            *(n.device_id for n in nodes),
        )
    clients = found.clients
    if not hot_tier_required_gbs(ctx.summary.gpus):
        return  # a small cluster: its tier outruns one or two nodes by design (see above)
    for tier in found.tiers:
        if not tier.devices or tier.client_gbs >= tier.served_read_gbs - 1e-9:
            continue
        speeds = {n.gbps for n in clients.nodes}
        if len(speeds) == 1:
            each = f"{clients.count:,} × {short_number(next(iter(speeds)))} Gb/s"
        else:
            each = f"{short_number(clients.gbps)} Gb/s"
        yield me.finding(
            f"Tier {tier.name}: its {tier.devices:,} appliances serve "
            f"{tier.served_read_gbs:,.1f} GB/s, but the storage NICs of the "
            f"{clients.count:,} GPU nodes carry {tier.client_gbs:,.1f} GB/s in all "
            f"({each} / {BITS_PER_BYTE:g}): the clients are the bottleneck.",
            tier.tier_id,
        )


#: A year of minutes: any longer "interval" is a typo, and keeps the seconds finite.
MAX_INTERVAL_MIN = 525_600.0


def interval_min(workload: Workload) -> float | None:
    value = workload.checkpoint_interval_min
    if value is None:
        return DEFAULT_CHECKPOINT_INTERVAL_MIN
    # Minutes are turned into seconds downstream: an interval whose seconds overflow
    # (1e308 minutes) is as unusable as a negative one, and must not raise there.
    return float(value) if finite(value) and 0 < value <= MAX_INTERVAL_MIN else None


@rule(
    "STORAGE-CHECKPOINT",
    title="Checkpoints take too long for their interval",
    severity=Severity.WARNING,
    scope="workload",
    looks_at={"workload", "tier", "device", "link", "design"},
    depends=storage_moved,
    source=planning("one checkpoint save should cost at most 5 % of the interval between saves")
    + "; checkpoint = weights + optimizer state (Rajbhandari et al. 2020, ZeRO §3.1)",
    warm_in_steps=figures_in_steps,
)
def storage_checkpoint(ctx: RuleContext, me: Rule, workload: Workload) -> Iterator[Finding]:
    if workload.kind != "training":
        return
    design = ctx.design
    interval = interval_min(workload)
    if interval is None:  # said whether or not a tier is chosen: the value itself is wrong
        yield me.finding(
            f"{workload.name}: the checkpoint interval {workload.checkpoint_interval_min!r} "
            "is not a number of minutes between 0 and a year; checkpoint time cannot be checked.",
            workload.id,
        )
        return
    tier = workload_tier(design, workload.checkpoint_tier)
    if tier is None:
        return  # no tier (STORAGE-HOT-TIER) or a bad id (STORAGE-POOLS)
    result = ctx.evaluate(workload)
    if result.model is None:
        return  # WORKLOAD-INPUT says why
    try:
        size = checkpoint_bytes(result.model.params, workload.precision)
    except InputError:
        return
    found = figures(ctx)
    tf = found.tier(tier.id)
    if tf is None:
        return
    write, limit = _job_write(tf, found, result.gpus)
    if write <= 0:
        yield me.finding(
            f"{workload.name} cannot save its {_bytes(size)} checkpoints: tier {tier.name} "
            "has no write bandwidth (no appliances with a write_gbs figure).",
            workload.id,
            tier.id,
        )
        return
    seconds = checkpoint_write_seconds(size, write)
    share = checkpoint_overhead(seconds, interval * 60)
    if share <= MAX_CHECKPOINT_OVERHEAD:
        return
    shortest = min_checkpoint_interval_s(seconds) / 60
    yield me.finding(
        f"{workload.name} saves a {_bytes(size)} checkpoint to tier {tier.name} in "
        f"{_seconds(seconds)} at {write:,.1f} GB/s ({limit}): {share:.1%} of its "
        f"{short_number(interval)} min interval, above {MAX_CHECKPOINT_OVERHEAD:.0%}. "
        f"Save every {short_number(shortest)} min or less often, or add write "
        "bandwidth.",
        workload.id,
        tier.id,
    )


def _job_write(tf: TierFigures, found: StorageFigures, gpus: int | None) -> tuple[float, str]:
    """The job's checkpoint write bandwidth and what limits it: the tier's appliances
    (each limited by its links) and the storage NICs of the job's share of the nodes."""
    total = found.clients.gpus
    share = min(1.0, gpus / total) if gpus and total else 1.0
    clients = tf.client_gbs * share
    if clients < tf.served_write_gbs - 1e-9:
        return clients, "limited by the job's GPU nodes' storage NICs"
    if tf.served_write_gbs < tf.write_gbs - 1e-9:
        return tf.served_write_gbs, "limited by the appliances' storage-plane links"
    return tf.served_write_gbs, "the appliances' write bandwidth"


@rule(
    "STORAGE-POOLS",
    title="Dataset and checkpoints on the same pool",
    severity=Severity.WARNING,
    worst=Severity.ERROR,  # a tier id the design does not have
    scope="workload",
    looks_at={"workload", "tier"},
    source=planning("dataset path and checkpoint path on separate pools"),
)
def storage_pools(ctx: RuleContext, me: Rule, workload: Workload) -> Iterator[Finding]:
    design = ctx.design
    known = {t.id for t in design.storage_tiers}
    bad = False
    for label, tier_id in (
        ("dataset", workload.dataset_tier),
        ("checkpoint", workload.checkpoint_tier),
    ):
        if tier_id is not None and tier_id not in known:
            bad = True
            listed = ", ".join(sorted(known)) or "none"
            yield me.finding(
                f"{workload.name}: its {label} tier {tier_id!r} is not a storage tier of the "
                f"design (tiers: {listed}).",
                workload.id,
                severity=Severity.ERROR,
            )
    if bad or workload.kind != "training":
        return
    dataset = workload_tier(design, workload.dataset_tier)
    checkpoint = workload_tier(design, workload.checkpoint_tier)
    if dataset is None or dataset is not checkpoint:
        return
    how = "" if workload.dataset_tier or workload.checkpoint_tier else " (both by default)"
    yield me.finding(
        f"{workload.name} reads its dataset from and writes its checkpoints to the same "
        f"pool, tier {dataset.name}{how}: a checkpoint burst then competes with the data "
        "loaders. Put them on separate pools (the workload's dataset and checkpoint tiers).",
        workload.id,
        dataset.id,
    )
