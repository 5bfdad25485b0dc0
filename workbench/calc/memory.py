"""Training memory per GPU: model state (weights, gradients, optimizer) and activations.

Sources:

* Model state, Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training
  Trillion Parameter Models" (SC20) §3.1: mixed-precision Adam keeps 2Ψ (fp16/bf16
  weights) + 2Ψ (fp16/bf16 gradients) + KΨ with K = 12 (fp32 master weights, momentum
  and variance, 4 bytes each) = 16Ψ bytes.  Pure fp32 training has no master copy:
  4 + 4 + 8 (momentum, variance) = 16 bytes as well, split differently.
* ZeRO stages (same paper §5): stage 1 partitions the optimizer state across the
  data-parallel degree N_d, stage 2 also the gradients, stage 3 also the weights.
  PyTorch FSDP ``FULL_SHARD`` is stage 3, ``SHARD_GRAD_OP`` stage 2.
* Tensor and pipeline parallelism split every layer's parameters (TP) and the layers
  (PP), so all model state divides by TP·PP (Shoeybi et al. 2019; Narayanan et al. 2021).
* Activations, Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
  Transformer Models", Table 2, bytes per transformer layer with 16-bit activations
  (s sequence length, b micro-batch, h hidden, a heads, t tensor-parallel size):

  ====================================  ===================================
  no parallelism                        s·b·h·(34 + 5·a·s/h)
  tensor parallel                       s·b·h·(10 + 24/t + 5·a·s/(h·t))
  tensor + sequence parallel            s·b·h·(34 + 5·a·s/h) / t
  tensor parallel + selective recompute s·b·h·(10 + 24/t)
  tensor + sequence + selective         s·b·h·34 / t
  full recompute                        s·b·h·2   (only each layer's input)
  ====================================  ===================================

  With pipeline parallelism and the 1F1B schedule the first stage holds activations of
  ``pp`` in-flight micro-batches for its L/pp layers, i.e. L layers' worth (paper §4.2),
  so the busiest GPU's activation memory does not shrink with pp.  Embedding and output
  (logits) activations are not included.

The verdict keeps a ``headroom`` fraction of HBM free (CUDA context, NCCL buffers,
allocator fragmentation): 10 % by default, an assumption the user can change.
GB here is 1e9 bytes, GiB 2**30.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.calc.errors import (
    MAX_PARAMS,
    InputError,
    choice,
    fraction,
    positive,
    positive_int,
)

GB = 1e9
GIB = 2**30
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

RECOMPUTE_MODES = ("none", "selective", "full")
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


def model_state_bytes(
    params: float, precision: str = "bf16", zero: int = 0, dp: int = 1, tp: int = 1, pp: int = 1
) -> ModelState:
    """Weights, gradients and Adam state per GPU after TP·PP and ZeRO sharding.

    Per GPU: ``bytes_per_param · N / (tp·pp)``, then the optimizer (stage ≥ 1), the
    gradients (≥ 2) and the weights (3) are further divided by ``dp`` (ZeRO §5).
    """
    n = positive("params", params, MAX_PARAMS)
    choice("precision", precision, ADAM_STATE_BYTES)
    if isinstance(zero, bool) or zero not in ZERO_STAGES:
        raise InputError("zero", f"ZeRO stage must be 0, 1, 2 or 3; got {zero!r}")
    d = positive_int("dp", dp, 10_000_000)
    model_parallel = positive_int("tp", tp, 1024) * positive_int("pp", pp, 1024)
    w, g, o = ADAM_STATE_BYTES[precision]
    per_gpu = n / model_parallel
    return ModelState(
        weights_bytes=w * per_gpu / (d if zero >= 3 else 1),
        gradients_bytes=g * per_gpu / (d if zero >= 2 else 1),
        optimizer_bytes=o * per_gpu / (d if zero >= 1 else 1),
    )


def activation_bytes_per_layer(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tp: int = 1,
    recompute: str = "none",
    sequence_parallel: bool = False,
) -> float:
    """Activation bytes of one transformer layer on one GPU (Korthikanti et al. 2022, Table 2)."""
    s = positive_int("seq_len", seq_len, 10_000_000)
    b = positive_int("micro_batch", micro_batch, 100_000)
    h = positive_int("hidden", hidden, 1_000_000)
    a = positive_int("heads", heads, 100_000)
    t = positive_int("tp", tp, 1024)
    choice("recompute", recompute, RECOMPUTE_MODES)
    sbh = float(s) * b * h
    attention = 5.0 * a * s / h  # the softmax / dropout / attention-score term
    if recompute == "full":
        return 2.0 * sbh
    if sequence_parallel or t == 1:
        core = 34.0 if recompute == "selective" else 34.0 + attention
        return sbh * core / t
    if recompute == "selective":
        return sbh * (10.0 + 24.0 / t)
    return sbh * (10.0 + 24.0 / t + attention / t)


def activation_bytes(
    layers: int,
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tp: int = 1,
    pp: int = 1,
    recompute: str = "none",
    sequence_parallel: bool = False,
    in_flight_microbatches: int | None = None,
) -> float:
    """Activation bytes on the busiest GPU (the first pipeline stage).

    ``per_layer · (L/pp) · in_flight``; ``in_flight`` defaults to ``pp`` (1F1B schedule,
    Korthikanti et al. §4.2), giving L layers' worth whatever pp is.  Pass 1 for a
    schedule that keeps one micro-batch in flight per stage.
    """
    L = positive_int("layers", layers, 100_000)
    p = positive_int("pp", pp, 1024)
    if L % p:
        raise InputError("pp", f"pipeline stages {p} must divide the {L} layers")
    in_flight = (
        p
        if in_flight_microbatches is None
        else positive_int("in_flight_microbatches", in_flight_microbatches, 100_000)
    )
    per_layer = activation_bytes_per_layer(
        seq_len, micro_batch, hidden, heads, tp, recompute, sequence_parallel
    )
    return per_layer * (L // p) * min(in_flight, p)


@dataclass(frozen=True)
class MemoryBreakdown:
    """Per-GPU training memory against the GPU's HBM; bytes, with GB (1e9) views."""

    weights_bytes: float
    gradients_bytes: float
    optimizer_bytes: float
    activations_bytes: float | None
    hbm_bytes: float | None
    headroom: float = DEFAULT_HEADROOM

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
) -> MemoryBreakdown:
    """Per-GPU memory of a training job and the verdict against ``hbm_gb`` (GB = 1e9).

    Activations are computed when ``layers``, ``hidden`` and ``heads`` are given, and are
    ``None`` (unknown) otherwise: a model known only by N has no activation estimate.
    """
    state = model_state_bytes(params, precision, zero, dp, tp, pp)
    acts = None
    if layers is not None and hidden is not None and heads is not None:
        acts = activation_bytes(
            layers, seq_len, micro_batch, hidden, heads, tp, pp, recompute, sequence_parallel
        )
    hbm = None if hbm_gb is None else positive("hbm_gb", hbm_gb, 100_000) * GB
    return MemoryBreakdown(
        weights_bytes=state.weights_bytes,
        gradients_bytes=state.gradients_bytes,
        optimizer_bytes=state.optimizer_bytes,
        activations_bytes=acts,
        hbm_bytes=hbm,
        headroom=check_headroom(headroom),
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
