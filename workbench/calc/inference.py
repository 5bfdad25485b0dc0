"""Inference: weights, KV cache, concurrency, the decode-speed bound and MIG slices.

Sources:

* KV cache per token ``2 · layers · kv_heads · head_dim · bytes`` (a K and a V vector
  per layer): NVIDIA Technical Blog, "Mastering LLM Techniques: Inference Optimization"
  (Llama 2 7B, batch 1, 4,096 tokens, fp16 ≈ 2 GB), with ``kv_heads`` for grouped-query
  attention as vLLM / Hugging Face size it (hardware-reference.json ``memory_rules``).
* Decode is memory-bound: each step reads every weight once plus each sequence's KV
  cache, so tokens/s ≤ HBM bandwidth / bytes read per step (same NVIDIA blog, "memory
  bandwidth bound"; Pope et al. 2022 "Efficiently Scaling Transformer Inference" §2).
  Compute, kernel efficiency and communication only lower this bound.
* MIG: NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles": A100/H100 have 7
  compute slices and 8 memory slices (an 80 GB card offers 7 × 1g.10gb, 3 × 2g.20gb,
  2 × 3g.40gb, 1 × 4g.40gb, 1 × 7g.80gb).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from workbench.calc.errors import (
    MAX_PARAMS,
    InputError,
    choice,
    non_negative,
    positive,
    positive_int,
)
from workbench.calc.memory import BYTES_PER_ELEMENT, DEFAULT_HEADROOM, GB, GIB, check_headroom

MAX_CONTEXT = 100_000_000


def kv_bytes_per_token(
    layers: int, kv_heads: int, head_dim: int, kv_precision: str = "bf16"
) -> float:
    """KV cache bytes per token: ``2 · layers · kv_heads · head_dim · bytes_per_element``.

    Llama 2 7B in bf16: 2·32·32·128·2 = 524,288 bytes/token; × 4,096 tokens = 2 GiB.
    """
    L = positive_int("layers", layers, 100_000)
    kvh = positive_int("kv_heads", kv_heads, 100_000)
    d = positive_int("head_dim", head_dim, 100_000)
    element = BYTES_PER_ELEMENT[choice("kv_precision", kv_precision, BYTES_PER_ELEMENT)]
    return 2.0 * L * kvh * d * element


def kv_cache_bytes(bytes_per_token: float, context_tokens: int, concurrency: int = 1) -> float:
    """KV cache for ``concurrency`` sequences of ``context_tokens`` each."""
    per_token = positive("kv_bytes_per_token", bytes_per_token)
    return (
        per_token
        * positive_int("context", context_tokens, MAX_CONTEXT)
        * positive_int("concurrency", concurrency, 10_000_000)
    )


def weights_bytes(params: float, precision: str = "bf16") -> float:
    """Inference weights: ``N · bytes_per_element`` (fp16/bf16 2, fp8/int8 1, fp4/int4 0.5)."""
    n = positive("params", params, MAX_PARAMS)
    return n * BYTES_PER_ELEMENT[choice("precision", precision, BYTES_PER_ELEMENT)]


def max_concurrent_sequences(
    hbm_gb_per_gpu: float,
    weights: float,
    bytes_per_token: float,
    context_tokens: int,
    tp: int = 1,
    headroom: float = DEFAULT_HEADROOM,
) -> int:
    """Largest number of sequences of ``context_tokens`` whose KV cache fits beside the weights.

    ``floor((tp · HBM · (1 − headroom) − weights) / (kv_per_token · context))``, 0 when the
    weights alone do not fit.  TP shards both weights and KV heads across ``tp`` GPUs.
    """
    usable = positive("hbm_gb", hbm_gb_per_gpu, 100_000) * GB * positive_int("tp", tp, 1024)
    usable *= 1.0 - check_headroom(headroom)
    per_sequence = positive("kv_bytes_per_token", bytes_per_token) * positive_int(
        "context", context_tokens, MAX_CONTEXT
    )
    free = usable - non_negative("weights_bytes", weights)
    return max(0, math.floor(free / per_sequence))


@dataclass(frozen=True)
class DecodeBound:
    """Upper bound on decode speed set by HBM bandwidth."""

    bytes_per_step: float
    steps_per_s: float
    tokens_per_s: float
    tokens_per_s_per_sequence: float
    seconds_per_token: float


def decode_bound(
    hbm_bw_tbs: float,
    weights: float,
    kv_bytes_per_sequence: float = 0.0,
    batch: int = 1,
    tp: int = 1,
) -> DecodeBound:
    """Decode tokens/s bound: ``tp · bandwidth / (weights + batch · kv_per_sequence)`` steps/s,
    one token per sequence per step (bandwidth in TB/s = 1e12 bytes/s per GPU)."""
    bw = positive("hbm_bw_tbs", hbm_bw_tbs, 1_000) * 1e12 * positive_int("tp", tp, 1024)
    b = positive_int("concurrency", batch, 10_000_000)
    step = positive("weights_bytes", weights) + b * non_negative("kv_bytes", kv_bytes_per_sequence)
    steps = bw / step
    return DecodeBound(
        bytes_per_step=step,
        steps_per_s=steps,
        tokens_per_s=steps * b,
        tokens_per_s_per_sequence=steps,
        seconds_per_token=1.0 / steps,
    )


# -- MIG ---------------------------------------------------------------------------
MIG_COMPUTE_SLICES = 7
MIG_MEMORY_SLICES = 8
_PROFILE = re.compile(r"^(\d)g\.(\d+(?:\.\d+)?)gb$")


@dataclass(frozen=True)
class MigFit:
    """How many instances of a MIG profile a card offers, and whether a model fits one."""

    profile: str
    slice_gb: float
    instances: int
    model_fits: bool | None


def parse_mig_profile(profile: str) -> tuple[int, float]:
    """``"1g.10gb"`` → (1 compute slice, 10.0 GB)."""
    match = _PROFILE.match(str(profile).strip().lower())
    if not match or not 1 <= int(match.group(1)) <= MIG_COMPUTE_SLICES:
        raise InputError("mig_profile", f"expected a profile like 1g.10gb, got {profile!r}")
    return int(match.group(1)), float(match.group(2))


def mig_fit(
    card_hbm_gb: float,
    profile: str,
    model_bytes: float | None = None,
    headroom: float = DEFAULT_HEADROOM,
) -> MigFit:
    """Instances of ``profile`` on a card of ``card_hbm_gb``, and whether ``model_bytes`` fits one.

    A profile of g compute slices and m memory slices (m = its GB / (card GB / 8),
    rounded, as NVIDIA's profile names round) gives ``min(7 // g, 8 // m)`` instances,
    which reproduces the MIG User Guide table (80 GB: 1g.10gb ×7, 2g.20gb ×3, 3g.40gb ×2).
    """
    card = positive("hbm_gb", card_hbm_gb, 100_000)
    compute, slice_gb = parse_mig_profile(profile)
    memory_slices = max(1, round(slice_gb / (card / MIG_MEMORY_SLICES)))
    if memory_slices > MIG_MEMORY_SLICES:
        instances = 0
    else:
        instances = min(MIG_COMPUTE_SLICES // compute, MIG_MEMORY_SLICES // memory_slices)
    fits = None
    if model_bytes is not None:
        need = positive("model_bytes", model_bytes)
        fits = instances > 0 and need <= slice_gb * GB * (1.0 - check_headroom(headroom))
    return MigFit(profile=profile, slice_gb=slice_gb, instances=instances, model_fits=fits)


def gib(n_bytes: float) -> float:
    """Bytes to GiB (2**30), the unit the KV-cache figures are usually quoted in."""
    return n_bytes / GIB
