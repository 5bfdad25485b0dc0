"""Compute: peak and effective FLOPS, training FLOPs, training time and its inverse.

Domain brief §1 ("work backwards from the workload").  Sources:

* ``C = 6·N·D`` (2·N·D forward + 4·N·D backward per token): Kaplan et al. 2020,
  "Scaling Laws for Neural Language Models" §2.1; the seed article uses it verbatim.
* Full activation recomputation repeats the forward pass, ``8·N·D``: Narayanan et al.
  2021 (SC21, "Efficient Large-Scale Language Model Training on GPU Clusters Using
  Megatron-LM"), FLOPs appendix: 96·B·s·l·h² with recomputation against 72·B·s·l·h²
  without, i.e. 4/3 × 6·N·D; Korthikanti et al. 2022 discuss the same overhead.
  Selective recomputation costs only a few percent extra (Korthikanti et al. report
  2-4 %), so it is counted as ``6·N·D`` here.
* Effective rate ``gpus · peak(precision, dense) · MFU``: Chowdhery et al. 2022, PaLM,
  Appendix B (model FLOPs utilization).  Peak must be the dense figure for the precision.

Units are in every name: ``*_tflops`` per GPU in 1e12 FLOP/s, ``*_pflops`` 1e15 FLOP/s,
``*_flops`` a count of floating-point operations, ``*_flops_per_s`` a rate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from workbench.calc.errors import (
    MAX_GPUS,
    MAX_PARAMS,
    MAX_TOKENS,
    InputError,
    fraction,
    positive,
    positive_int,
)
from workbench.calc.explain import Explained, num

SECONDS_PER_DAY = 86_400.0
SECONDS_PER_HOUR = 3_600.0
#: A GPU's dense TFLOPS above this is a typo (B200 FP4 dense is 9,000).
MAX_TFLOPS_PER_GPU = 100_000.0

#: Recomputation modes and the FLOPs multiple of N·D each implies (see module docstring).
RECOMPUTE_FLOPS_FACTOR: dict[str, float] = {"none": 6.0, "selective": 6.0, "full": 8.0}


class HasTflops(Protocol):
    """Anything with dense TFLOPS per precision, e.g. a GPU ``CatalogItem``."""

    tflops: dict[str, float]


def peak_tflops(gpu: HasTflops, precision: str) -> float:
    """Dense peak TFLOPS of one GPU at ``precision`` (from the item's datasheet figures)."""
    value = gpu.tflops.get(precision)
    if value is None:
        have = ", ".join(sorted(gpu.tflops)) or "none"
        raise InputError("precision", f"no dense {precision} TFLOPS for this GPU (has: {have})")
    return positive("precision", value, MAX_TFLOPS_PER_GPU)


def peak_pflops(gpus: Iterable[tuple[HasTflops, int]]) -> dict[str, float]:
    """Dense peak PFLOPS per precision of a set of GPUs given as (gpu item, count) pairs.

    A precision appears when at least one GPU type states it; the sum covers the GPUs
    that do.  PFLOPS = Σ count · TFLOPS / 1000.
    """
    totals: dict[str, float] = {}
    for gpu, count in gpus:
        for precision, tflops in gpu.tflops.items():
            if tflops:
                totals[precision] = totals.get(precision, 0.0) + count * float(tflops) / 1000.0
    return totals


def training_flops(params: float, tokens: float, recompute: str = "none") -> float:
    """Total training FLOPs: ``6·N·D``, or ``8·N·D`` with full activation recomputation."""
    n = positive("params", params, MAX_PARAMS)
    d = positive("tokens", tokens, MAX_TOKENS)
    factor = RECOMPUTE_FLOPS_FACTOR.get(recompute)
    if factor is None:
        raise InputError("recompute", f"must be one of none, selective, full; got {recompute!r}")
    return factor * n * d


def effective_flops_per_s(gpus: int, peak_tflops_per_gpu: float, mfu: float) -> float:
    """Sustained cluster rate in FLOP/s: ``gpus · peak · MFU`` (PaLM Appendix B)."""
    g = positive_int("gpus", gpus, MAX_GPUS)
    peak = positive("gpu_tflops", peak_tflops_per_gpu, MAX_TFLOPS_PER_GPU)
    return g * peak * 1e12 * fraction("mfu", mfu)


def training_seconds(
    total_flops: float, gpus: int, peak_tflops_per_gpu: float, mfu: float
) -> float:
    """Wall-clock seconds: ``C / (gpus · peak · MFU)``."""
    c = positive("total_flops", total_flops)
    return c / effective_flops_per_s(gpus, peak_tflops_per_gpu, mfu)


def training_days(total_flops: float, gpus: int, peak_tflops_per_gpu: float, mfu: float) -> float:
    """Training time in days: ``C / (gpus · peak · MFU) / 86400``.

    Seed worked example (domain brief §1): 6·175e9·200e9 = 2.1e23 FLOPs on 1,024 GPUs at
    312 TFLOPS and MFU 0.4 → 1.278e17 FLOP/s → 1.643e6 s → 19.02 days.  (The seed's prose
    rounds the rate to 1.28e17 first, which gives 18.99 days.)
    """
    return training_seconds(total_flops, gpus, peak_tflops_per_gpu, mfu) / SECONDS_PER_DAY


def gpu_hours(gpus: int, seconds: float) -> float:
    """GPU-hours: ``gpus · seconds / 3600`` (what a cloud or a chargeback model bills)."""
    return positive_int("gpus", gpus, MAX_GPUS) * positive("seconds", seconds) / SECONDS_PER_HOUR


def tokens_per_second(
    gpus: int, peak_tflops_per_gpu: float, mfu: float, params: float, recompute: str = "none"
) -> float:
    """Training throughput in tokens/s: effective FLOP/s divided by FLOPs per token (6·N or 8·N)."""
    per_token = training_flops(params, 1.0, recompute)
    return effective_flops_per_s(gpus, peak_tflops_per_gpu, mfu) / per_token


def required_effective_flops_per_s(total_flops: float, deadline_days: float) -> float:
    """Sustained FLOP/s needed to finish ``total_flops`` within ``deadline_days``: C / (days·86400).

    Second worked example (domain brief §1): 1.2e22 FLOPs in 30 days → 4.63e15 FLOP/s.
    """
    c = positive("total_flops", total_flops)
    return c / (positive("deadline_days", deadline_days, 36_500) * SECONDS_PER_DAY)


@dataclass(frozen=True)
class DeadlineSizing:
    """What a deadline asks for: rates, GPUs, and whole nodes / scalable units."""

    effective_pflops_needed: float
    physical_pflops_needed: float
    gpus_needed: int
    nodes: int
    scalable_units: int
    gpus_provisioned: int
    #: The inverse formula with the numbers substituted, for the explain view.
    explanation: Explained | None = None
    #: The MFU the answer relies on at that size, and a warning when it is implausibly low.
    mfu: float | None = None
    warning: str = ""


def gpus_for_deadline(
    total_flops: float,
    deadline_days: float,
    peak_tflops_per_gpu: float,
    mfu: float,
    gpus_per_node: int = 8,
    nodes_per_su: int = 1,
    goodput: float = 1.0,
) -> DeadlineSizing:
    """The inverse problem: GPUs (and nodes, scalable units) to finish by a deadline.

    ``gpus = ceil(C / (days·86400 · peak · MFU))``; nodes round up to whole scalable units
    of ``nodes_per_su`` nodes (DGX SuperPOD reference architectures build in SUs of 32
    nodes; 1 means no SU rounding).  Physical PFLOPS = effective / MFU.  ``goodput``
    (the share of wall-clock that trains) raises the rate needed: rate / goodput.
    """
    # Only ``goodput`` of the wall-clock trains (restarts, evaluation, checkpoints).
    rate = required_effective_flops_per_s(total_flops, deadline_days) / fraction("goodput", goodput)
    peak = positive("gpu_tflops", peak_tflops_per_gpu, MAX_TFLOPS_PER_GPU) * 1e12
    m = fraction("mfu", mfu)
    per_node = positive_int("gpus_per_node", gpus_per_node, 1024)
    per_su = positive_int("nodes_per_su", nodes_per_su, 100_000)
    gpus = max(1, math.ceil(rate / (peak * m) * (1 - 1e-12)))
    if gpus > MAX_GPUS:
        raise InputError(
            "deadline_days", f"would need {gpus:,} GPUs: the deadline is not reachable"
        )
    nodes = math.ceil(gpus / per_node)
    sus = math.ceil(nodes / per_su)
    explanation = Explained(
        float(sus * per_su),
        "nodes",
        "gpus = ceil(C / (days·86400·peak·MFU)); nodes = ceil(gpus / GPUs per node), "
        "rounded up to whole scalable units",
        f"gpus = ceil({num(total_flops)} / ({num(deadline_days)}·86400·{num(peak)}·{num(m)})) "
        f"= {gpus:,}; nodes = ceil({gpus:,} / {per_node}) = {nodes:,} → {sus:,} SU × {per_su} nodes",
        "inverse of the training-time formula (Kaplan et al. 2020; PaLM Appendix B); "
        "NVIDIA DGX SuperPOD reference architectures build in scalable units",
    )
    return DeadlineSizing(
        effective_pflops_needed=rate / 1e15,
        physical_pflops_needed=rate / m / 1e15,
        gpus_needed=gpus,
        nodes=sus * per_su,
        scalable_units=sus,
        gpus_provisioned=sus * per_su * per_node,
        explanation=explanation,
    )
