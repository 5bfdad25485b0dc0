"""Training step time from the design: GPUs, NVLink, NICs, fabric and the parallel layout.

Why: dividing FLOPs by a typed utilisation makes the fabric and the layout irrelevant to
the days.  This model builds the step from its parts so a change of node type, NIC,
oversubscription or TP/PP moves the days for the reason it should.  Per step
(Narayanan et al. 2021, SC21, §2-3; one pipeline replica is representative):

* ``compute``  m micro-batches × hardware FLOPs of the heaviest pipeline stage / TP /
  (peak · kernel efficiency).  m = global_batch / (dp · micro_batch).  Uneven stages are
  allowed; the heaviest has ceil(L/pp) layers, and the last stage also the logits.
* ``tp_comm``  per layer 2 all-reduces forward + 2 backward (+2 more with full
  recompute) of s·b·h 16-bit activations (Shoeybi et al. 2019 §3; with sequence
  parallelism a reduce-scatter + all-gather moving the same bytes, Korthikanti et al.
  2022 §4.2.2), ring time ``2(t−1)/t·S/busbw`` over NVLink, or the NIC when tp exceeds
  the node; not overlapped with compute (Megatron-LM of these papers).
* ``p2p``  per micro-batch one activation send forward and one gradient send backward
  per stage boundary, ×v for the interleaved schedule, of s·b·h·2/t bytes (the
  scatter/gather optimisation, Narayanan et al. 2021 §4.1), over NVLink when the whole
  pipeline replica is inside one node, else the NIC.
* ``pipeline_bubble``  (pp − 1)/(m·v) of the ideal time (Narayanan et al. 2021 §2.2:
  1F1B for v = 1, interleaved with v model chunks per GPU).
* ``dp_exposed``  the gradient all-reduce across dp (ZeRO ≥ 1 / distributed optimizer:
  reduce-scatter + all-gather, the same ``2(n−1)/n`` bytes; ZeRO-3 adds a parameter
  all-gather, 1.5×) through :func:`comm.allreduce_step`, hidden behind the backward pass
  of the last micro-batch (gradient buckets are complete only after it, Li et al. VLDB
  2020); the rest is exposed.  Over the NIC at bus bandwidth, divided by the compute
  fabric's oversubscription when the DP group spans more than one leaf (stated
  assumption: a ring is as slow as its slowest hop, and in an oversubscribed fabric the
  leaf uplink is that hop; unknown leaf size → any DP group that crosses nodes).

Memory-bound work (element-wise ops, norms, softmax; the Adam update) runs at the HBM
bandwidth: Korthikanti et al.'s activation bytes per layer times the passes that touch
them (flops.memory_traffic_bytes_per_layer), and 28 bytes per parameter per step.  It
is what makes a small hidden size slower per FLOP, and an H100 (989 TFLOPS over
3.35 TB/s) relatively slower than an A100 (312 over 2.04): counted bytes, not fitted.

The two global constants: ``DEFAULT_KERNEL_EFFICIENCY`` (share of dense peak the
matmuls reach), fitted once on all published runs together with leave-one-out checking
(``published_runs.fit_kernel_efficiency`` / ``leave_one_out``: 22 runs, LOO error mean
7.0 %, worst 13.4 %), and ``DEFAULT_COLLECTIVE_EFFICIENCY``, comm.py's NCCL-derived 0.8
(fitting it too gives 0.79).  Nothing is tuned per model or per run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from workbench.calc import comm
from workbench.calc import flops as fl
from workbench.calc.errors import InputError, choice, fraction, positive, positive_int
from workbench.calc.explain import Explained
from workbench.calc.presets import ModelConfig

#: Share of the dense peak the matmuls of a training step reach.  Fitted by
#: ``published_runs.fit_kernel_efficiency`` on the 22 runs of published_runs.py (A100 and
#: H100, 1.7B-1T): 0.661; leave-one-out mean error 7.0 %, worst 13.4 %.
DEFAULT_KERNEL_EFFICIENCY = 0.661
#: Share of the NVLink/NIC line rate a ring collective reaches: comm.py's 0.8 (NCCL
#: maintainers: ~370 of 450 GB/s on H100 NVLink); a joint fit on the runs gives 0.79.
DEFAULT_COLLECTIVE_EFFICIENCY = comm.DEFAULT_COLLECTIVE_EFFICIENCY
#: Fraction of wall-clock time that trains (restarts, evaluation, checkpoints lost):
#: Llama 3 paper (Dubey et al. 2024) §3.3.4 reports "higher than 90% effective training
#: time" over a 54-day snapshot on 16K H100.  An input, not a fitted constant.
DEFAULT_GOODPUT = 0.90
#: NIC figure used when the design has none but the layout needs one (a warning says so):
#: 400 Gb/s per GPU, one ConnectX-7 NDR port per GPU as in DGX H100.
DEFAULT_NIC_GBPS = 400.0
#: Bytes per activation element sent by TP and pipeline communication (16-bit).
ACTIVATION_BYTES = 2.0
#: Gradient bytes per parameter reduced across DP (16-bit gradients, as memory.py).
GRADIENT_BYTES = 2.0

TERMS = ("compute", "tp_comm", "cp_comm", "pipeline_bubble", "p2p", "dp_exposed")


@dataclass(frozen=True)
class Overlap:
    """Which communication a software stack hides behind compute (a stack profile's).

    ``tp`` and ``p2p`` are the shares of the tensor-parallel collectives and pipeline
    sends hidden (Megatron Core's userbuffer TP overlap, its overlapped P2P); ``cp`` the
    share of the context-parallel KV exchange hidden behind attention (ring attention
    overlaps it by design); ``dp`` whether the gradient reduction overlaps the backward
    pass of the last micro-batch (bucketed, as PyTorch DDP / Megatron Core
    ``overlap_grad_reduce``) or waits for the whole backward (Megatron-LM 2021).
    The default is the generic profile: nothing hidden but the DP reduction."""

    tp: float = 0.0
    p2p: float = 0.0
    cp: float = 0.0
    dp: bool = True
    #: FSDP-style prefetch: the sharded parameters' all-gathers and the gradient
    #: reduce-scatters overlap the forward pass as well as the backward (PyTorch FSDP,
    #: TorchTitan), so the whole micro-batch's compute can hide them.
    dp_forward: bool = False

    def __post_init__(self) -> None:
        for name in ("tp", "p2p", "cp"):
            value = getattr(self, name)
            if isinstance(value, bool) or not 0.0 <= value <= 1.0:
                raise InputError(f"overlap_{name}", f"must be a share 0-1, got {value!r}")


NO_OVERLAP = Overlap()
_NARAYANAN = "Narayanan et al. 2021 (SC21) §2.2-§4.1"
_MEGATRON = "Shoeybi et al. 2019 §3 (2 all-reduces per layer each way)"


@dataclass(frozen=True, kw_only=True)
class Layout:
    """How one training job is split over its GPUs (all sizes in sequences)."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    #: Context parallelism: each sequence split over ``cp`` GPUs (ring attention).
    cp: int = 1
    virtual_stages: int = 1
    micro_batch: int = 1
    global_batch: int
    seq_len: int
    recompute: str = "none"
    zero: int = 0
    sequence_parallel: bool = False
    flash_attention: bool = True

    def __post_init__(self) -> None:
        positive_int("tp", self.tp, 1024)
        positive_int("pp", self.pp, 1024)
        positive_int("dp", self.dp, 10_000_000)
        positive_int("cp", self.cp, 1024)
        positive_int("virtual_stages", self.virtual_stages, 1024)
        positive_int("micro_batch", self.micro_batch, 100_000)
        positive_int("global_batch", self.global_batch, 100_000_000)
        positive_int("seq_len", self.seq_len, 10_000_000)
        if self.seq_len % self.cp:
            raise InputError(
                "cp", f"context parallel {self.cp} must divide the sequence length {self.seq_len}"
            )
        choice("recompute", self.recompute, fl.RECOMPUTE_MODES)
        if isinstance(self.zero, bool) or self.zero not in (0, 1, 2, 3):
            raise InputError("zero", f"ZeRO stage must be 0, 1, 2 or 3; got {self.zero!r}")
        if self.virtual_stages > 1 and self.pp == 1:
            raise InputError("virtual_stages", "interleaving needs pipeline stages (pp > 1)")
        if self.global_batch % (self.dp * self.micro_batch):
            raise InputError(
                "global_batch",
                f"{self.global_batch} sequences do not divide into dp {self.dp} × "
                f"micro_batch {self.micro_batch}",
            )

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.cp * self.dp

    @property
    def micro_batches(self) -> int:
        """m = global_batch / (dp · micro_batch): micro-batches per replica per step."""
        return self.global_batch // (self.dp * self.micro_batch)


@dataclass(frozen=True, kw_only=True)
class Hardware:
    """What the design says about one GPU and its links (per GPU unless stated)."""

    peak_tflops: float
    gpus_per_node: int
    nvlink_gbs: float | None = None  # catalog bidirectional GB/s
    nic_gbps_per_gpu: float | None = None  # compute-plane NIC line rate, Gb/s
    oversubscription: float = 1.0  # compute fabric, 1.0 = non-blocking
    gpus_per_leaf: int | None = None  # GPUs below one leaf at full bandwidth
    hbm_tbs: float | None = None  # HBM bandwidth, TB/s (catalog hbm_bw_tbs)
    peak_source: str = ""
    nvlink_source: str = ""
    nic_source: str = ""
    fabric_source: str = ""

    def __post_init__(self) -> None:
        positive("peak_tflops", self.peak_tflops, 100_000)
        positive_int("gpus_per_node", self.gpus_per_node, 1024)
        if self.nvlink_gbs is not None:
            positive("nvlink_gbs", self.nvlink_gbs, 1e6)
        if self.nic_gbps_per_gpu is not None:
            positive("nic_gbps", self.nic_gbps_per_gpu, 1e5)
        if positive("oversubscription", self.oversubscription, 1000) < 1.0:
            raise InputError(
                "oversubscription", f"must be at least 1.0, got {self.oversubscription}"
            )
        if self.gpus_per_leaf is not None:
            positive_int("gpus_per_leaf", self.gpus_per_leaf, 10_000_000)
        if self.hbm_tbs is not None:
            positive("hbm_tbs", self.hbm_tbs, 1000)


@dataclass(frozen=True)
class StepPrediction:
    """One training step, its parts (seconds, summing to the step) and utilisation."""

    step_time_s: float
    breakdown_s: dict[str, float]
    mfu: float
    hfu: float
    model_flops_per_token: float
    hardware_flops_per_token: float
    tokens_per_s: float
    explanations: dict[str, Explained]
    warnings: tuple[str, ...] = field(default=())


def _stage_layers(layers: int, pp: int) -> tuple[int, int]:
    """(layers on the heaviest stage, layers on the last stage), stages differing by at
    most one layer and the last one given the fewer when they differ (it has the logits)."""
    heaviest = math.ceil(layers / pp)
    last = layers // pp if layers % pp else heaviest
    return heaviest, last


def _link(
    hw: Hardware, in_node: bool, eff: float, warnings: list[str], what: str
) -> tuple[float, str]:
    """(GB/s per GPU one way at collective efficiency, link name) for traffic of ``what``."""
    if in_node and hw.nvlink_gbs:
        return hw.nvlink_gbs / 2.0 * eff, "NVLink"
    nic = hw.nic_gbps_per_gpu
    if nic is None:
        nic = DEFAULT_NIC_GBPS
        warnings.append(
            f"nic_gbps: the design gives no compute NIC per GPU; {what} assumed at "
            f"{DEFAULT_NIC_GBPS:g} Gb/s"
        )
    return nic / 8.0 * eff, "NIC"


def _uplink_share(hw: Hardware, lay: Layout) -> float:
    """Share of the NIC rate a DP ring keeps when it crosses oversubscribed leaf uplinks.

    Stated assumption: replicas are placed whole under a leaf, so each DP ring has
    ``k = gpus_per_leaf // (tp·pp)`` consecutive members per leaf and only one of every
    ``k`` ring hops leaves it; the leaf's uplinks (its GPUs' rate / oversubscription)
    then carry ``1/k`` of the GPUs' traffic, and the ring slows by
    ``min(1, k / oversubscription)``.  Unknown leaf size → k = 1: the full
    oversubscription applies whenever the job spans more than one node.
    """
    if hw.oversubscription <= 1.0 or lay.gpus <= hw.gpus_per_node:
        return 1.0
    if hw.gpus_per_leaf is not None and lay.gpus <= hw.gpus_per_leaf:
        return 1.0
    k = max(1, (hw.gpus_per_leaf or 1) // (lay.tp * lay.pp))
    return min(1.0, k / hw.oversubscription)


@dataclass(frozen=True)
class StepParts:
    """The step's pieces at kernel and collective efficiency 1, so the two constants
    can be applied (and fitted) without recomputing the model: every time below scales
    as 1/efficiency except the memory-bound parts, which run at the HBM bandwidth."""

    micro_batches: int
    pp: int
    virtual_stages: int
    flops_s: float  # per micro-batch, heaviest stage, at kernel efficiency 1
    memory_s: float  # per micro-batch, memory-bound work at HBM bandwidth
    optimizer_s: float  # per step, Adam update at HBM bandwidth
    tp_s: float  # per micro-batch, at collective efficiency 1
    p2p_s: float  # per micro-batch, at collective efficiency 1
    cp_s: float  # per micro-batch, context-parallel KV exchange at collective efficiency 1
    dp_comm_s: float  # per step, at collective efficiency 1
    dp_gradient_bytes: float  # reduced per GPU per step (×1.5 for ZeRO-3)
    backward_share: float  # of a micro-batch's compute that is backward
    model_flops_per_token: float
    hardware_flops_per_token: float
    stage_flops_per_token: float
    tokens_per_micro_batch: float
    heaviest_layers: int
    collectives_per_layer: int
    activation_bytes: float
    tp_link: str
    p2p_link: str
    dp_busbw_gbs: float  # at collective efficiency 1, after the oversubscription share
    warnings: tuple[str, ...]

    def breakdown(
        self,
        kernel_efficiency: float,
        collective_efficiency: float,
        *,
        batch_scale: float = 1.0,
        virtual_stages: int | None = None,
        micro_batches: int | None = None,
        overlap: Overlap = NO_OVERLAP,
    ) -> dict[str, float]:
        """Seconds per term (:data:`TERMS`) at the two efficiencies; they sum to the step.

        ``dp_exposed`` is comm.allreduce_step's ``max(0, comm − overlap · compute)``
        with the backward of the last micro-batch as the overlapping compute (none when
        the stack does not overlap it).  ``overlap`` hides the shares of TP, CP and
        pipeline communication the stack overlaps.  The keywords re-evaluate the same job
        at another micro-batch (``batch_scale`` × the one these parts were computed at)
        and virtual-stage count, exactly: the per-micro-batch terms grow with the
        micro-batch, the sends with v.
        """
        k, c = kernel_efficiency, collective_efficiency
        m = self.micro_batches if micro_batches is None else micro_batches
        v = self.virtual_stages if virtual_stages is None else virtual_stages
        g = batch_scale
        compute = (self.flops_s / k + self.memory_s) * g
        tp = self.tp_s / c * g * (1.0 - overlap.tp)
        cp = self.cp_s / c * g * (1.0 - overlap.cp)
        p2p = self.p2p_s / c * g * v / self.virtual_stages * (1.0 - overlap.p2p)
        per_mb = compute + tp + cp + p2p
        hidden_by = self.hiding_compute(compute, overlap)
        return {
            "compute": m * compute + self.optimizer_s,
            "tp_comm": m * tp,
            "cp_comm": m * cp,
            "pipeline_bubble": (self.pp - 1) / v * per_mb,
            "p2p": m * p2p,
            "dp_exposed": max(0.0, self.dp_comm_s / c - hidden_by),
        }

    def hiding_compute(self, compute: float, overlap: Overlap) -> float:
        """Seconds of one micro-batch's compute the DP communication can hide behind:
        its backward pass, all of it with FSDP prefetch, none without overlap."""
        if not overlap.dp:
            return 0.0
        return compute if overlap.dp_forward else self.backward_share * compute

    def step_time(
        self, kernel_efficiency: float, collective_efficiency: float, **rescale: Any
    ) -> float:
        """The step in seconds at the two efficiencies (``rescale``: see breakdown)."""
        return sum(self.breakdown(kernel_efficiency, collective_efficiency, **rescale).values())


def step_parts(model: ModelConfig, layout: Layout, hardware: Hardware) -> StepParts:
    """Work out every term of the step at efficiency 1 (module doc for the formulas)."""
    shape = fl.shape_of(model, "the step-time prediction")
    lay, hw = layout, hardware
    if lay.pp > shape.layers:
        raise InputError("pp", f"{lay.pp} pipeline stages exceed the {shape.layers} layers")
    heaviest, last = _stage_layers(shape.layers, lay.pp)
    if lay.virtual_stages > shape.layers // lay.pp:
        raise InputError(
            "virtual_stages",
            f"{lay.virtual_stages} chunks exceed the {shape.layers // lay.pp} layers of the "
            "lightest stage",
        )
    if lay.tp > hw.gpus_per_node and hw.nic_gbps_per_gpu is None:
        raise InputError(
            "tp", f"tp {lay.tp} spans nodes of {hw.gpus_per_node} GPUs and no NIC figure is given"
        )
    warnings: list[str] = []
    s, b, h, v = lay.seq_len, lay.micro_batch, shape.hidden, lay.virtual_stages
    peak = hw.peak_tflops * 1e12
    tokens_mb = float(b * s)
    # Context parallelism: each of cp GPUs holds s/cp of every sequence and does 1/cp of
    # its work (causal load balancing, Megatron Core's CP), so the per-GPU tokens are
    # b·s/cp; FLOPs per token stay those of the whole sequence.
    cp = lay.cp
    tokens_gpu = tokens_mb / cp

    # FLOPs per token: per layer (hardware, with recompute) and the logits.
    fwd = fl.forward_flops_per_token(shape, s)
    model_fpt = 3.0 * fwd.forward
    extra = fl.recompute_flops_per_token(shape, s, lay.recompute, lay.flash_attention)
    hw_fpt = model_fpt + extra
    logits_fpt = 3.0 * fwd.logits
    layer_fpt = (hw_fpt - logits_fpt) / shape.layers
    if lay.pp == 1:
        stage_fpt = shape.layers * layer_fpt + logits_fpt
    else:
        stage_fpt = max(heaviest * layer_fpt, last * layer_fpt + logits_fpt)
    flops_s = stage_fpt * tokens_gpu / lay.tp / peak

    # Memory-bound work: element-wise traffic per micro-batch, the optimizer per step.
    layer_params = shape.matmul_params_per_layer()
    embed = float(shape.vocab) * h
    if lay.pp == 1:
        stage_params = shape.layers * layer_params + 2 * embed
    else:
        stage_params = max(heaviest * layer_params + embed, last * layer_params + embed)
    memory_s = optimizer_s = 0.0
    if hw.hbm_tbs:
        hbm = hw.hbm_tbs * 1e12
        traffic = heaviest * fl.memory_traffic_bytes_per_layer(
            shape, s // cp, b, lay.tp, lay.recompute, lay.sequence_parallel, lay.flash_attention
        )
        memory_s = traffic / hbm
        shard = lay.dp * cp if lay.zero >= 1 else 1
        optimizer_s = stage_params / lay.tp / shard * fl.OPTIMIZER_BYTES_PER_PARAM / hbm
    else:
        warnings.append("hbm_tbs: the GPU gives no HBM bandwidth; memory-bound work not counted")

    # Tensor-parallel collectives on the heaviest stage.
    tp_s, tp_link = 0.0, "none"
    act_bytes = tokens_gpu * h * ACTIVATION_BYTES
    colls = 6 if lay.recompute == "full" else 4
    if lay.tp > 1:
        line = comm.bus_bandwidth_gbs(
            lay.tp, hw.gpus_per_node, hw.nvlink_gbs, hw.nic_gbps_per_gpu or DEFAULT_NIC_GBPS, 1.0
        )
        tp_link = line.link
        tp_s = heaviest * colls * comm.ring_allreduce_seconds(act_bytes, lay.tp, line.busbw_gbs)

    # Context parallelism: ring attention passes each layer's K and V blocks (s/cp tokens,
    # kv_heads/tp heads) round the cp ranks, cp − 1 hops forward, and K, V and their
    # gradients backward (3× in all; Liu et al. 2023, Ring Attention; Megatron Core CP).
    cp_s = 0.0
    if cp > 1:
        kv_bytes = 2.0 * tokens_gpu * shape.kv_heads * shape.head_dim / lay.tp * ACTIVATION_BYTES
        in_node = lay.tp * cp <= hw.gpus_per_node
        bw, _ = _link(hw, in_node, 1.0, warnings, "context-parallel KV exchange")
        cp_s = heaviest * 3.0 * (cp - 1) * kv_bytes / (bw * 1e9)

    # Pipeline sends: forward activation + backward gradient per micro-batch and chunk.
    p2p_s, p2p_link = 0.0, "none"
    if lay.pp > 1:
        in_node = lay.tp * lay.cp * lay.pp <= hw.gpus_per_node
        bw, p2p_link = _link(hw, in_node, 1.0, warnings, "pipeline sends")
        p2p_s = 2.0 * v * (act_bytes / lay.tp) / (bw * 1e9)

    # Data-parallel gradient reduction (ZeRO-3 adds a parameter all-gather: 1.5×), over
    # the dp·cp ranks that hold the same weights.
    dp_comm_s, dp_bw, grad_bytes = 0.0, 0.0, 0.0
    if lay.dp * cp > 1:
        grad_bytes = stage_params / lay.tp * GRADIENT_BYTES * (1.5 if lay.zero == 3 else 1.0)
        bw, _ = _link(hw, lay.gpus <= hw.gpus_per_node, 1.0, warnings, "the DP gradient reduction")
        dp_bw = bw * _uplink_share(hw, lay)
        dp_comm_s = comm.ring_allreduce_seconds(grad_bytes, lay.dp * cp, dp_bw)
    backward_share = (2.0 * fwd.forward + extra) / (3.0 * fwd.forward + extra)
    return StepParts(
        micro_batches=lay.micro_batches,
        pp=lay.pp,
        virtual_stages=v,
        flops_s=flops_s,
        memory_s=memory_s,
        optimizer_s=optimizer_s,
        tp_s=tp_s,
        p2p_s=p2p_s,
        cp_s=cp_s,
        dp_comm_s=dp_comm_s,
        dp_gradient_bytes=grad_bytes,
        backward_share=backward_share,
        model_flops_per_token=model_fpt,
        hardware_flops_per_token=hw_fpt,
        stage_flops_per_token=stage_fpt,
        tokens_per_micro_batch=tokens_gpu,
        heaviest_layers=heaviest,
        collectives_per_layer=colls,
        activation_bytes=act_bytes,
        tp_link=tp_link,
        p2p_link=p2p_link,
        dp_busbw_gbs=dp_bw,
        warnings=tuple(dict.fromkeys(warnings)),
    )


def predict_step(
    model: ModelConfig,
    layout: Layout,
    hardware: Hardware,
    precision: str,
    *,
    kernel_efficiency: float | None = None,
    collective_efficiency: float | None = None,
    overlap: Overlap = NO_OVERLAP,
    explain: bool = True,
) -> StepPrediction:
    """Predict one training step of ``model`` split as ``layout`` on ``hardware``.

    ``precision`` names the precision ``hardware.peak_tflops`` is quoted at (it labels
    the explanations); the two efficiencies default to the fitted global constants and
    ``overlap`` to the generic profile (a stack profile, calc/stack_profiles.py, gives
    all three).
    ``explain=False`` leaves the explanations out (a curve of sixty predictions needs
    only their times).
    """
    # Imported here: the explanations read this module's types and helpers.
    from workbench.calc import step_explain

    if not isinstance(precision, str) or not precision:
        raise InputError("precision", f"must name a precision, got {precision!r}")
    k = fraction("kernel_efficiency", kernel_efficiency or DEFAULT_KERNEL_EFFICIENCY)
    c = fraction("collective_efficiency", collective_efficiency or DEFAULT_COLLECTIVE_EFFICIENCY)
    parts = step_parts(model, layout, hardware)
    breakdown = parts.breakdown(k, c, overlap=overlap)
    if layout.dp * layout.cp > 1 and overlap.dp:  # the same figure through comm.py
        compute = parts.flops_s / k + parts.memory_s
        breakdown["dp_exposed"] = comm.allreduce_step(
            parts.dp_gradient_bytes,
            layout.dp * layout.cp,
            parts.dp_busbw_gbs * c,
            max(parts.hiding_compute(compute, overlap), 1e-12),
        ).exposed_s
    step = sum(breakdown.values())
    tokens_per_s = layout.global_batch * layout.seq_len / step
    rate = layout.gpus * hardware.peak_tflops * 1e12
    return StepPrediction(
        step_time_s=step,
        breakdown_s=breakdown,
        mfu=parts.model_flops_per_token * tokens_per_s / rate,
        hfu=parts.hardware_flops_per_token * tokens_per_s / rate,
        model_flops_per_token=parts.model_flops_per_token,
        hardware_flops_per_token=parts.hardware_flops_per_token,
        tokens_per_s=tokens_per_s,
        explanations=step_explain.explain_step(
            model, layout, hardware, precision, parts, breakdown, k, c
        )
        if explain
        else {},
        warnings=parts.warnings,
    )


def run_seconds(step: StepPrediction, tokens: float, goodput: float = DEFAULT_GOODPUT) -> float:
    """Wall-clock seconds to train on ``tokens``: tokens / tokens_per_s / goodput.

    ``goodput`` is the share of wall-clock time spent training (see DEFAULT_GOODPUT).
    """
    d = positive("tokens", tokens, 1e16)
    return d / step.tokens_per_s / fraction("goodput", goodput)
