"""Training memory per GPU: model state (weights, gradients, optimizer) and activations,
sized on the heaviest pipeline stage and judged against the GPU's usable HBM.

Sources:

* Model state, Rajbhandari et al. 2020, "ZeRO" (SC20) §3.1: mixed-precision Adam keeps
  2Ψ (16-bit weights) + 2Ψ (16-bit gradients) + 12Ψ (fp32 master weights, momentum,
  variance) = 16Ψ bytes; pure fp32 is 4 + 4 + 8.  ZeRO §5: stage 1 partitions the
  optimizer state over the data-parallel degree, stage 2 also the gradients, stage 3
  also the weights (PyTorch FSDP ``FULL_SHARD`` = 3, ``SHARD_GRAD_OP`` = 2).
* Megatron-LM's distributed optimizer (Megatron Core developer guide, "Distributed
  Optimizer"): bytes per parameter ``4 + 16/d`` for fp16 parameters and gradients,
  ``6 + 12/d`` for 16-bit parameters with fp32 gradients (bf16: gradients are
  accumulated and reduced in an fp32 ``main_grad`` buffer that is not sharded), ``8 + 8/d``
  for fp32.  So with it the gradient buffer is 4 bytes, not 2 (bf16, fp8, fp4), or the
  fp32 main gradient is part of the sharded state (fp16: 16 instead of 12).
* Which of the two a job keeps is its gradient precision (``grad_precision``): "bf16"
  (DeepSpeed ZeRO: 16Ψ unsharded; the ZeRO paper's 7.5B on 64 GPUs gives 120 / 31.4 /
  16.6 / 1.9 GB at stages 0-3) or "fp32" (Megatron: 18Ψ unsharded, 6 + 12/d with the
  distributed optimizer), and the same table is sharded at every stage, so the two
  frameworks are never mixed in one figure.
* Tensor parallelism splits every layer's weights and the vocabulary-parallel embedding;
  pipeline parallelism splits the layers (Shoeybi et al. 2019; Narayanan et al. 2021).
* Activations, Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
  Transformer Models", Table 2, bytes per layer with 16-bit activations (s sequence,
  b micro-batch, h hidden, a heads, t tensor-parallel size):

  ====================================  ===================================
  no parallelism                        s·b·h·(34 + 5·a·s/h)
  tensor parallel                       s·b·h·(10 + 24/t + 5·a·s/(h·t))
  tensor + sequence parallel            s·b·h·(34 + 5·a·s/h) / t
  tensor parallel + selective recompute s·b·h·(10 + 24/t)
  tensor + sequence + selective         s·b·h·34 / t
  full recompute                        s·b·h·2   (only each layer's input)
  ====================================  ===================================

  The 24 that TP shards is Q, K, V and the attention output (8) plus the MLP's two 4h
  tensors (16); the 10 it does not is the layer-norm, QKV and MLP inputs and two dropout
  masks.  With grouped-query attention K and V are ``kv_heads/heads`` as wide (8 → 4 + 4g),
  and an MLP of width f keeps 4·f/h (GeLU: its input and output) or 6·f/h (SwiGLU: gate,
  up, and their product; Megatron's fused swiglu recomputes the SiLU) - used when ``ffn``
  is given.  Full recompute with sequence parallelism keeps the sharded input (2/t).
* FlashAttention (Dao et al. 2022, "FlashAttention: Fast and Memory-Efficient Exact
  Attention with IO-Awareness" §3.1) never stores the s×s scores, softmax or dropout
  output: the 5·a·s/h term vanishes (its log-sum-exp statistics, 4·a·s·b bytes, are
  under 0.1 % of a layer and left out).  It is on by default.
* Pipeline stages (1F1B): stage i holds ``pp − i`` micro-batches in flight, so the first
  holds L layers' worth (Korthikanti §4.2).  Interleaved (v virtual stages per GPU,
  Narayanan et al. 2021 §2.2.2): Megatron-LM's schedule warms up ``2·(pp−i−1) + (v−1)·pp``
  chunks, so stage i holds ``2·(pp−i−1) + (v−1)·pp + 1`` chunks of L_i/v layers; for the
  first stage that is L·(1 + (pp−1)/(pp·v)), Korthikanti §4.2's figure.
* Uneven stages: when pp does not divide L, the extra layers go to the middle stages
  first, then the last, then the first (Llama 3, Dubey et al. 2024 §3.3.2: 126 layers on
  16 stages with one layer fewer on the first and last).  The embedding (V·h) sits on the
  first stage and the output layer (V·h) on the last: its own matrix when untied, and
  Megatron-LM's copy of the tied embedding otherwise, so the last stage holds V·h either
  way.  Their activations (vocab known): the embedding's dropout mask, s·b·h bytes per
  in-flight micro-batch (Korthikanti §4.3: s·b·h·p/t with sequence parallelism), and the
  output layer's 4·s·b·h (its norm and input, /t with sequence parallelism) plus the
  fp32 logits 4·s·b·V/t (Korthikanti §4.3: 4·s·b·h/t·(1 + V/h)).  Every stage is sized
  and the heaviest decides.

The verdict keeps a ``headroom`` fraction of HBM free (CUDA context, NCCL buffers,
allocator fragmentation): 10 % by default, an assumption the user can change.  The HBM
is the catalog's ``props.hbm_total_mib`` (what ``nvidia-smi`` reports) where known
(:func:`usable_hbm_bytes`).  GB here is 1e9 bytes, GiB 2**30, MiB 2**20.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.calc.activations import (  # noqa: F401 - re-exported for callers
    RECOMPUTE_MODES,
    activation_bytes,
    activation_bytes_per_layer,
    activation_notes,
    edge_bytes,
    pipeline_chunks,
    stage_activations,
    stage_layer_counts,
)
from workbench.calc.errors import MAX_PARAMS, InputError, choice, fraction, positive, positive_int
from workbench.calc.presets import layer_params

GB = 1e9
GIB = 2**30
MIB = 2**20
DEFAULT_HEADROOM = 0.10

#: Bytes per element of a number format.
BYTES_PER_ELEMENT: dict[str, float] = {
    "fp64": 8,
    "fp32": 4,
    "tf32": 4,
    "fp16": 2,
    "bf16": 2,
    "fp8": 1,
    "fp4": 0.5,
    "int8": 1,
    "int4": 0.5,
}

#: Training model state in bytes per parameter: (weights, gradients, optimizer) for Adam.
#: 16-bit and lower precisions train in mixed precision (ZeRO §3.1: 2 + 2 + 12).  FP8/FP4
#: training (Transformer Engine) keeps 16-bit weights and fp32 master state, so the ZeRO
#: mixed-precision figure is used for them too - an assumption, stated.
ADAM_STATE_BYTES: dict[str, tuple[float, float, float]] = {
    "fp32": (4, 4, 8),
    "tf32": (4, 4, 8),
    "fp16": (2, 2, 12),
    "bf16": (2, 2, 12),
    "fp8": (2, 2, 12),
    "fp4": (2, 2, 12),
}

#: The same with Megatron-LM's fp32 main gradients (module docstring): bf16 and the
#: formats trained with bf16 weights keep an fp32 gradient buffer (2 + 4 + 12: 18 bytes
#: unsharded, 6 + 12/d with the distributed optimizer), fp16 keeps its fp32 main gradient
#: in the sharded state (2 + 2 + 16: 4 + 16/d).
FP32_GRADIENT_BYTES: dict[str, tuple[float, float, float]] = {
    "fp32": (4, 4, 8),
    "tf32": (4, 4, 8),
    "fp16": (2, 2, 16),
    "bf16": (2, 4, 12),
    "fp8": (2, 4, 12),
    "fp4": (2, 4, 12),
}
#: Kept for callers of the older name.
DISTRIBUTED_OPTIMIZER_BYTES = FP32_GRADIENT_BYTES

#: The job's gradient precision: "bf16" keeps 16-bit gradients (DeepSpeed ZeRO, the ZeRO
#: paper's 2 + 2 + 12), "fp32" keeps fp32 main gradients (Megatron-LM / Megatron Core).
GRADIENT_PRECISIONS: dict[str, str] = {
    "bf16": "16-bit gradients (DeepSpeed ZeRO: 2 + 2 + 12 bytes per parameter)",
    "fp32": "fp32 main gradients (Megatron: 2 + 4 + 12 bytes per parameter)",
}


def state_table(grad_precision: str) -> dict[str, tuple[float, float, float]]:
    """Bytes per parameter (weights, gradients, optimizer) for a gradient precision."""
    choice("grad_precision", grad_precision, GRADIENT_PRECISIONS)
    return ADAM_STATE_BYTES if grad_precision == "bf16" else FP32_GRADIENT_BYTES


ZERO_STAGES = (0, 1, 2, 3)


@dataclass(frozen=True)
class ModelState:
    """Per-GPU model state in bytes."""

    weights_bytes: float
    gradients_bytes: float
    optimizer_bytes: float

    @property
    def total_bytes(self) -> float:
        return self.weights_bytes + self.gradients_bytes + self.optimizer_bytes


def _zero_stage(zero: Any) -> int:
    if isinstance(zero, bool) or zero not in ZERO_STAGES:
        raise InputError("zero", f"ZeRO stage must be 0, 1, 2 or 3; got {zero!r}")
    return int(zero)


def model_state_bytes(
    params: float,
    precision: str = "bf16",
    zero: int = 0,
    dp: int = 1,
    tp: int = 1,
    pp: int = 1,
    *,
    grad_precision: str = "bf16",
) -> ModelState:
    """Weights, gradients and Adam state per GPU after TP·PP and ZeRO sharding.

    Per GPU: ``bytes_per_param · N / (tp·pp)``, then the optimizer (stage ≥ 1), the
    gradients (≥ 2) and the weights (3) are further divided by ``dp`` (ZeRO §5).
    ``grad_precision`` "bf16" counts ZeRO's bytes per parameter, "fp32" Megatron-LM's
    (fp32 main gradients), the same sharding rule at every stage.
    """
    n = positive("params", params, MAX_PARAMS)
    choice("precision", precision, ADAM_STATE_BYTES)
    stage = _zero_stage(zero)
    d = positive_int("dp", dp, 10_000_000)
    model_parallel = positive_int("tp", tp, 1024) * positive_int("pp", pp, 1024)
    w, g, o = state_table(grad_precision)[precision]
    per_gpu = n / model_parallel
    return ModelState(
        weights_bytes=w * per_gpu / (d if stage >= 3 else 1),
        gradients_bytes=g * per_gpu / (d if stage >= 2 else 1),
        optimizer_bytes=o * per_gpu / (d if stage >= 1 else 1),
    )


@dataclass(frozen=True)
class MemoryBreakdown:
    """Per-GPU training memory of the heaviest pipeline stage against the GPU's HBM;
    bytes, with GB (1e9) views.  ``stage`` is that stage's index (0 = first),
    ``stage_layers`` its transformer layers and ``stage_params`` the parameters it holds
    (all its TP ranks together); ``notes`` lists the assumptions applied, for Explain."""

    weights_bytes: float
    gradients_bytes: float
    optimizer_bytes: float
    activations_bytes: float | None
    hbm_bytes: float | None
    headroom: float = DEFAULT_HEADROOM
    stage: int = 0
    stage_layers: int | None = None
    stage_params: float | None = None
    grad_precision: str = "bf16"
    notes: tuple[str, ...] = ()

    @property
    def total_bytes(self) -> float:
        """Model state plus activations (activations counted as 0 when unknown)."""
        return (
            self.weights_bytes
            + self.gradients_bytes
            + self.optimizer_bytes
            + (self.activations_bytes or 0.0)
        )

    @property
    def usable_bytes(self) -> float | None:
        """HBM less the headroom fraction kept free."""
        return None if self.hbm_bytes is None else self.hbm_bytes * (1.0 - self.headroom)

    @property
    def fits(self) -> bool | None:
        """True/False against usable HBM; None when HBM is unknown, or when the
        activations are unknown and the model state alone still fits."""
        usable = self.usable_bytes
        if usable is None:
            return None
        if self.total_bytes > usable:
            return False
        return None if self.activations_bytes is None else True

    def gb(self) -> dict[str, float | None]:
        """Breakdown in GB (1e9 bytes), keys weights/gradients/optimizer/activations/total."""
        return {
            "weights": self.weights_bytes / GB,
            "gradients": self.gradients_bytes / GB,
            "optimizer": self.optimizer_bytes / GB,
            "activations": None if self.activations_bytes is None else self.activations_bytes / GB,
            "total": self.total_bytes / GB,
        }


def _stage_params(
    params: float,
    counts: tuple[int, ...],
    hidden: int | None,
    heads: int | None,
    kv_heads: int | None,
    ffn: int | None,
    gated_mlp: bool | None,
    vocab: int | None,
) -> tuple[list[float], str]:
    """Parameters held by each pipeline stage, and how they were counted.

    From the architecture when it is known (layers × :func:`layer_params`, the V·h
    embedding on the first stage and output layer on the last); otherwise N less the
    embedding spread evenly over the layers; N/pp when the layers are unknown.
    """
    if len(counts) == 1:
        return [params], "all N parameters on one stage"
    n_layers = sum(counts)
    embed = 0.0 if vocab is None or hidden is None else float(vocab) * hidden
    ends = "V·h embedding first, V·h output last" if embed else "embedding not placed (no vocab)"
    if hidden is not None and heads is not None and ffn is not None and gated_mlp is not None:
        per_layer = float(layer_params(hidden, heads, kv_heads or heads, ffn, gated_mlp))
        how = f"per layer from the architecture (GQA, gated MLP), {ends}"
    elif embed:
        if params <= embed:
            raise InputError(
                "params", f"{params:g} parameters cannot hold the {vocab}×{hidden} embedding"
            )
        per_layer = (params - embed) / n_layers
        how = f"(N − V·h)/L per layer, {ends}"
    else:
        per_layer = params / n_layers
        how = f"N/L per layer, {ends}"
    stages = [count * per_layer for count in counts]
    stages[0] += embed
    stages[-1] += embed
    return stages, f"{how}; layers per stage {_spread(counts)} (pp {len(counts)})"


def _spread(counts: tuple[int, ...]) -> str:
    low, high = min(counts), max(counts)
    return str(low) if low == high else f"{low}-{high}"


def training_memory(
    params: float,
    precision: str = "bf16",
    zero: int = 0,
    dp: int = 1,
    tp: int = 1,
    pp: int = 1,
    *,
    layers: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    seq_len: int = 4096,
    micro_batch: int = 1,
    recompute: str = "none",
    sequence_parallel: bool = False,
    hbm_gb: float | None = None,
    headroom: float = DEFAULT_HEADROOM,
    flash_attention: bool = True,
    vocab: int | None = None,
    virtual_stages: int = 1,
    grad_precision: str = "bf16",
    ffn: int | None = None,
    kv_heads: int | None = None,
    hbm_usable_bytes: float | None = None,
    gated_mlp: bool | None = None,
    microbatches: int | None = None,
    cp: int = 1,
) -> MemoryBreakdown:
    """Per-GPU memory of the heaviest pipeline stage and the verdict against the HBM.

    Activations are computed when ``layers``, ``hidden`` and ``heads`` are given, and are
    ``None`` (unknown) otherwise.  ``grad_precision`` is the job's gradient precision
    (:data:`GRADIENT_PRECISIONS`), applied alike at every ZeRO stage.  ``cp`` context-
    parallel ranks each hold ``seq_len/cp`` of a sequence's activations, and the sharded
    state is divided over dp·cp (Megatron shards it over the data- and context-parallel
    group).  ``hbm_usable_bytes`` (from
    :func:`usable_hbm_bytes`) replaces ``hbm_gb``·1e9 when given; the headroom applies to
    either.  ``microbatches`` (a step's micro-batches per pipeline) caps those in flight.
    """
    for name, value in (
        ("flash_attention", flash_attention),
        ("sequence_parallel", sequence_parallel),
    ):
        if not isinstance(value, bool):
            raise InputError(name, f"must be true or false, not {value!r}")
    if gated_mlp is not None and not isinstance(gated_mlp, bool):
        raise InputError("gated_mlp", f"must be true, false or unset, not {gated_mlp!r}")
    n = positive("params", params, MAX_PARAMS)
    stage_zero, d = _zero_stage(zero), positive_int("dp", dp, 10_000_000)
    state_table(grad_precision)
    c = positive_int("cp", cp, 1024)
    seq = positive_int("seq_len", seq_len, 10_000_000)
    if seq % c:
        raise InputError("cp", f"context parallel {c} must divide the sequence length {seq}")
    t, p = positive_int("tp", tp, 1024), positive_int("pp", pp, 1024)
    if positive_int("virtual_stages", virtual_stages, 1024) > 1 and p == 1:
        raise InputError("virtual_stages", f"{virtual_stages} virtual stages need pp ≥ 2")
    hidden = _optional_int("hidden", hidden, 1_000_000)
    heads = _optional_int("heads", heads, 100_000)
    kv = _optional_int("kv_heads", kv_heads, 100_000)
    if kv is not None and heads is not None and heads % kv:
        raise InputError("kv_heads", f"{kv} must divide heads {heads}")
    width = _optional_int("ffn", ffn, 10_000_000)
    rows = _optional_int("vocab", vocab, 10_000_000)
    counts = None if layers is None else stage_layer_counts(layers, p)
    if counts is None:
        params_by_stage, how = [n / p] * p, "N/pp per stage (layers unknown)"
    else:
        params_by_stage, how = _stage_params(n, counts, hidden, heads, kv, width, gated_mlp, rows)
    acts: list[float | None] = [None] * len(params_by_stage)
    if counts is not None and hidden is not None and heads is not None:
        per_layer = activation_bytes_per_layer(
            seq // c,
            micro_batch,
            hidden,
            heads,
            t,
            recompute,
            sequence_parallel,
            flash_attention=flash_attention,
            kv_heads=kv,
            ffn=width,
            gated_mlp=gated_mlp,
        )
        v, cap = pipeline_chunks(counts, virtual_stages, microbatches, "microbatches")
        edges = edge_bytes(seq // c, micro_batch, hidden, t, sequence_parallel, rows)
        acts = [stage_activations(i, counts, per_layer, v, cap, edges) for i in range(p)]
    states = [
        model_state_bytes(x, precision, stage_zero, d * c, t, 1, grad_precision=grad_precision)
        for x in params_by_stage
    ]
    stage = max(range(len(states)), key=lambda i: states[i].total_bytes + (acts[i] or 0.0))
    notes = [f"parameters: {how}"]
    notes += activation_notes(
        acts[0] is not None, flash_attention, recompute, p, virtual_stages, rows
    )
    notes.append(f"gradients: {GRADIENT_PRECISIONS[grad_precision]}")
    if c > 1:
        notes.append(f"context parallel {c}: seq/cp activations, state sharded over dp·cp")
    return MemoryBreakdown(
        weights_bytes=states[stage].weights_bytes,
        gradients_bytes=states[stage].gradients_bytes,
        optimizer_bytes=states[stage].optimizer_bytes,
        activations_bytes=acts[stage],
        hbm_bytes=_hbm_bytes(hbm_gb, hbm_usable_bytes),
        headroom=check_headroom(headroom),
        stage=stage,
        stage_layers=None if counts is None else counts[stage],
        stage_params=params_by_stage[stage],
        grad_precision=grad_precision,
        notes=tuple(notes),
    )


def _optional_int(field: str, value: Any, maximum: int) -> int | None:
    return None if value is None else positive_int(field, value, maximum)


def _hbm_bytes(hbm_gb: float | None, hbm_usable_bytes: float | None) -> float | None:
    from_gb = None if hbm_gb is None else positive("hbm_gb", hbm_gb, 100_000) * GB
    if hbm_usable_bytes is not None:
        return positive("hbm_usable_bytes", hbm_usable_bytes, 1e14)
    return from_gb


def usable_hbm_bytes(gpu_item: Any) -> tuple[float, str]:
    """The GPU's memory in bytes for the fits verdict, and where the figure comes from.

    ``props.hbm_total_mib`` is what ``nvidia-smi --query-gpu=memory.total`` reports
    (MiB, cited per GPU in the item's ``sources``): × 2**20.  Without it, the catalog's
    ``hbm_gb`` × 1e9, said to be the marketing figure.
    """
    props = getattr(gpu_item, "props", None) or {}
    sources = getattr(gpu_item, "sources", None) or {}
    name = f"{getattr(gpu_item, 'source_file', '') or 'catalog'}: {getattr(gpu_item, 'slug', '?')}"
    mib = props.get("hbm_total_mib")
    if mib is not None:
        if isinstance(mib, bool) or not isinstance(mib, (int, float)) or not 0 < mib < 1e8:
            raise InputError(
                "hbm_total_mib", f"{name}: must be a positive number of MiB, got {mib!r}"
            )
        cited = sources.get("hbm_total_mib", "no source given")
        return float(mib) * MIB, f"{mib:g} MiB × 2^20 (nvidia-smi memory.total; {cited})"
    hbm_gb = getattr(gpu_item, "hbm_gb", None)
    if hbm_gb is None:
        raise InputError("hbm_gb", f"{name}: no hbm_gb or props.hbm_total_mib to judge memory by")
    value = positive("hbm_gb", hbm_gb, 100_000)
    return value * GB, (
        f"{value:g} GB × 1e9: the marketing figure (no nvidia-smi memory.total, "
        "props.hbm_total_mib, in the catalog for this GPU)"
    )


def check_headroom(headroom: float) -> float:
    """A headroom fraction in [0, 1): the share of HBM kept free."""
    value = fraction("headroom", headroom, allow_zero=True)
    if value >= 1:
        raise InputError("headroom", "must be below 1 (a fraction of HBM kept free)")
    return value


def gpus_to_hold_state(
    params: float, precision: str = "bf16", hbm_gb: float = 80.0, headroom: float = DEFAULT_HEADROOM
) -> int:
    """Fewest GPUs whose usable HBM holds the fully sharded model state (ZeRO-3 floor).

    Domain brief §2: a 65B model needs 16 × 65e9 = 1,040 GB of state, i.e. at least 15
    80 GB GPUs with 10 % headroom, before activations.
    """
    state = model_state_bytes(params, precision).total_bytes
    usable = positive("hbm_gb", hbm_gb, 100_000) * GB * (1 - check_headroom(headroom))
    return int(-(-state // usable))


def data_parallel(gpus: int, tp: int, pp: int) -> int:
    """The data-parallel degree ``gpus / (tp·pp)``: the one check that a layout of
    tensor and pipeline parallelism tiles the GPUs (every replica needs tp·pp GPUs).

    >>> data_parallel(1024, 8, 4)
    32
    """
    if gpus % (tp * pp):
        raise InputError("tp", f"tp·pp = {tp * pp} does not divide the {gpus} GPUs")
    return gpus // (tp * pp)
