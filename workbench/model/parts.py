"""The parts a design is made of: sites, rows, racks, devices, links, workloads and the rest.

Plain dataclasses with no behaviour beyond their own fields.  They live apart from
:class:`workbench.model.design.Design` so that modules which only name the parts (the id
index, the keep-lists) import this leaf instead of the whole design, and no import
circle runs back through ``design.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from workbench.catalog.vocabulary import COOLING_TYPES

#: Cooling types and their default kW limits, derived from the one table of cooling
#: types (:data:`workbench.catalog.vocabulary.COOLING_TYPES`).
COOLING_LIMITS_KW: dict[str, float] = {k: c.limit_kw for k, c in COOLING_TYPES.items()}


@dataclass(slots=True)
class Device:
    """One piece of equipment placed in a rack (slotted: a 1,000,000-GPU design holds
    hundreds of thousands).

    ``position`` is the lowest rack unit the device occupies (1-based, as NetBox counts);
    ``None`` means not mounted in U (a 0U PDU, or not yet placed).
    """

    id: str
    name: str
    device_type: str
    position: int | None = None
    face: str = "front"
    serial: str = ""
    asset_tag: str = ""
    software_stack: str | None = None
    notes: str = ""
    #: What the device does when that differs from its catalog item's role (an SN5600
    #: bought as a storage switch); empty means "the catalog's role".
    role: str = ""


#: Which way a rack's front faces on the hall plan (north is up).
FACINGS: tuple[str, ...] = ("north", "east", "south", "west")


@dataclass(frozen=True)
class Feed:
    """One power feed of a rack: the circuit the A or B side PDUs hang on."""

    voltage: float
    phases: int
    breaker_a: float


#: The feed a rack added in the window starts with (a common 415 V three-phase 32 A
#: circuit); the planner sets the real ones in the inspector.
DEFAULT_FEED = Feed(415.0, 3, 32.0)


@dataclass
class Rack:
    """A rack: its catalog type, cooling and power budget, feeds, floor place and devices.

    ``None`` in a budget field means "not set here": the cooling limit then comes from
    the cooling type (or the rack type built for it), the weight rating from the rack
    type, and a feed is unknown (its budget is not checked).  Floor positions are the
    rack's front-left corner on the hall plan in mm (None: laid out automatically).
    """

    id: str
    name: str
    rack_type: str
    cooling: str = "air"
    power_limit_kw: float = 12.0
    devices: list[Device] = field(default_factory=list)
    cooling_limit_kw: float | None = None
    max_weight_kg: float | None = None
    feed_a_voltage: float | None = None
    feed_a_phases: int | None = None
    feed_a_breaker_a: float | None = None
    feed_b_voltage: float | None = None
    feed_b_phases: int | None = None
    feed_b_breaker_a: float | None = None
    floor_x_mm: float | None = None
    floor_y_mm: float | None = None
    facing: str = "south"

    def feed(self, side: str) -> Feed | None:
        """Feed ``"a"`` or ``"b"``, or None while any of its three figures is unset."""
        voltage, phases, amps = (getattr(self, f"feed_{side}_{k}") for k in FEED_FIELDS)
        if voltage is None or phases is None or amps is None:
            return None
        return Feed(voltage, phases, amps)

    def set_feed(self, side: str, feed: Feed | None) -> None:
        """Put ``feed`` (None: unknown) on side ``"a"`` or ``"b"``."""
        values = (None, None, None) if feed is None else (feed.voltage, feed.phases, feed.breaker_a)
        for key, value in zip(FEED_FIELDS, values, strict=True):
            setattr(self, f"feed_{side}_{key}", value)


#: The figures of a feed, as the ``Rack.feed_<side>_<figure>`` fields name them.
FEED_FIELDS: tuple[str, ...] = ("voltage", "phases", "breaker_a")


@dataclass
class Row:
    """A row of racks in a hall."""

    id: str
    name: str
    racks: list[Rack] = field(default_factory=list)


@dataclass
class Site:
    """A site (a hall or building) holding rows."""

    id: str
    name: str
    rows: list[Row] = field(default_factory=list)


#: The four planes of a GPU cluster (domain brief §3), in the order views list them:
#: gradient traffic, dataset and checkpoint traffic, in-band management, BMC.
PLANES: tuple[str, ...] = ("compute", "storage", "management", "oob")


@dataclass
class Network:
    """A network on one plane, e.g. the NDR InfiniBand compute fabric.

    ``speed_gbps`` is the plane's link speed per host port (what the generator asks
    for by default), ``mtu`` what every port of the plane must agree on, and ``vlan``
    and ``subnet`` (CIDR text, "" when not planned yet) what the IP plan allocates.
    """

    id: str
    name: str
    plane: str = "compute"
    technology: str = "infiniband"
    speed_gbps: float = 400.0
    mtu: int = 4096
    vlan: int | None = None
    subnet: str = ""


@dataclass(slots=True)
class Link:
    """A cable between two device interfaces, on one network (slotted: 48 bytes less
    each, 0.2 GB over the 4.4 million links of a 1,000,000-GPU design).

    A port name may carry a breakout lane, ``p1/2``: the second lane group of switch
    port ``p1`` split into slower ports (see :mod:`workbench.model.ports`).
    ``speed_gbps`` None means "the speed both ports share"; ``cable_type`` None means
    "chosen by length" (DAC, AOC or optics, :mod:`workbench.calc.cabling`), otherwise a
    media class the user picked; ``length_m`` None means "measured from the hall plan".
    """

    id: str
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    network: str | None = None
    cable_type: str | None = None
    length_m: float | None = None
    speed_gbps: float | None = None


@dataclass
class StorageTier:
    """A storage tier (hot/warm/cold) made of storage devices."""

    id: str
    name: str
    tier: str = "hot"
    filesystem: str = ""
    device_ids: list[str] = field(default_factory=list)
    #: Dedicated metadata servers (seeds 000 and 004: small files load the metadata
    #: service before the bandwidth; above ~40 GPUs deploy it apart); None: not said.
    metadata_servers: int | None = None
    #: Small-file (metadata) operations per second the tier serves; None: not said.
    small_file_iops: float | None = None
    #: The dataset the jobs read from it, TB, and how many jobs read their own copy or
    #: version at once: the capacity to plan is their product (seed 001).
    dataset_tb: float | None = None
    concurrent_jobs: int | None = None
    #: Whether the GPU nodes read this tier with GPUDirect Storage (cuFile/nvidia-fs:
    #: NVMe or the storage NIC to GPU memory, past the CPU's bounce buffer and page
    #: cache; seed 004: without it the read rate can halve); None: not said.
    gpudirect_storage: bool | None = None


@dataclass
class Team:
    """A team sharing the cluster: a Slurm QOS and account, a Kubernetes namespace and
    GPU quota.  Its limit is ``gpus`` (a count) or ``share`` (a fraction of the
    cluster's GPUs), one of the two; ``priority`` orders the teams' jobs (Slurm's QOS
    ``Priority``, higher first)."""

    id: str
    name: str
    gpus: int | None = None
    share: float | None = None
    priority: int = 1


#: The kinds of :class:`Workload`: the calculators' one vocabulary, kept here, beside
#: the record, so the store's value checks read it without loading the calculators.
WORKLOAD_KINDS: tuple[str, ...] = ("training", "inference")


@dataclass
class Workload:
    """A training job or an inference service the design is sized for.

    One flat record for both kinds keeps the project file and the forms simple; the
    fields that do not apply to a kind are ignored by the calculators.  ``model`` is a
    preset name (``llama3-70b`` ...) or ``custom``, in which case ``params`` (and
    optionally ``model_config``) describe the model.  ``gpus``/``gpu_type`` of ``None``
    mean "all GPUs of the design" and "the design's GPU model".
    """

    id: str
    name: str
    kind: str = "training"
    model: str = "llama3-70b"
    params: float | None = None
    model_config: dict[str, Any] | None = None
    tokens: float = 15e12
    precision: str = "bf16"
    #: The model FLOPs utilisation the user states; None: predicted from the design
    #: (GPUs, NVLink, NICs, fabric) and the layout by :mod:`workbench.calc.step_time`.
    mfu: float | None = None
    recompute: str = "none"
    tp: int = 8
    pp: int = 1
    zero: int = 1
    micro_batch: int = 1
    seq_len: int = 4096
    gpus: int | None = None
    gpu_type: str | None = None
    context: int = 4096
    concurrency: int = 1
    kv_precision: str = "bf16"
    #: The business window for a training job, in days; the rules warn when the
    #: estimate runs past it.  None: no target set.
    target_days: float | None = None
    #: Storage tiers (ids) the job reads its dataset from and writes checkpoints to;
    #: None: the design's first hot tier.  The rules want two separate pools.
    dataset_tier: str | None = None
    checkpoint_tier: str | None = None
    #: Minutes between checkpoint saves; None: the rules' default (one hour).
    checkpoint_interval_min: float | None = None
    #: Sequences per optimizer step; None: the step-time model's default (about 4M
    #: tokens, rounded to whole micro-batches on every data-parallel rank).
    global_batch: int | None = None
    #: Virtual pipeline stages per GPU (interleaved 1F1B); 1: plain 1F1B.
    virtual_stages: int = 1
    #: Megatron sequence parallelism alongside tensor parallelism (Korthikanti 2022).
    sequence_parallel: bool = True
    #: FlashAttention: attention scores are never stored (Dao et al. 2022).
    flash_attention: bool = True
    #: Share of the run's wall-clock time spent training (restarts, evaluation and
    #: checkpoints take the rest); None: the step-time model's documented default.
    goodput: float | None = None
    #: Compute-NIC line rate per GPU in Gb/s overriding the node's; None: the design's.
    nic_gbps: float | None = None
    #: Context-parallel size: GPUs that share each sequence (ring attention); 1: none.
    cp: int = 1
    #: Gradient precision: "bf16" (DeepSpeed ZeRO) or "fp32" main gradients (Megatron);
    #: None: the default of calc/job_layout.py (fp32).
    grad_precision: str | None = None
    #: The software stack the job runs on (framework name or profile key of
    #: calc/stack_profiles.py, e.g. "megatron-core"); empty: the generic profile.
    framework: str = ""
    #: A measured step time (seconds) of this job on the cluster: the stack's kernel
    #: efficiency is fitted to it and every other layout and size predicted from it.
    measured_step_s: float | None = None
    #: Plan at a pessimistic 30 % MFU until the cluster is benchmarked (the seeds'
    #: advice); a stated MFU still wins.
    plan_at_30: bool = False


@dataclass
class SoftwareStack:
    """A named baseline of versions (driver, CUDA, NCCL, kernel, firmware ...)."""

    id: str
    name: str
    components: dict[str, str] = field(default_factory=dict)
    revision: int = 1


@dataclass
class Waiver:
    """A finding the team has looked at and accepted, with the reason.

    It names the rule and the object the finding is about, so it keeps applying while the
    finding stays, whatever its numbers become, and stops mattering once the object goes.
    """

    rule: str
    object_id: str
    note: str
    #: When it was made (ISO 8601 text), for the review record.
    created_at: str = ""
