"""Storage: checkpoint size and cadence, dataset read bandwidth, the hot-tier rule.

Domain brief §4 (from the seed articles):

* A checkpoint is the weights plus the optimizer state (175B → hundreds of GB to TB per
  save).  With mixed-precision Adam that is 2 + 12 = 14 bytes per parameter (ZeRO,
  Rajbhandari et al. SC20 §3.1: 2Ψ weights, KΨ = 12Ψ fp32 master/momentum/variance);
  gradients are not saved.
* One save should cost ≤ 5 % of the interval between saves, so the interval is at least
  ``write_time / 0.05`` (= 20 × the write time).
* The hot tier must feed the GPUs: ≥ 50 GB/s of read bandwidth for clusters above ~40
  GPUs.  That is a rule, so it lives in :mod:`workbench.rules.storage`.
* Dataset read bandwidth = training tokens/s × stored bytes per token.
"""

from __future__ import annotations

from workbench.calc.errors import MAX_PARAMS, choice, fraction, positive
from workbench.calc.memory import ADAM_STATE_BYTES, GB

#: Share of training time one checkpoint save may take (domain brief §4).
MAX_CHECKPOINT_OVERHEAD = 0.05
#: Bytes per stored token of a pre-tokenised dataset: int32 ids (uint16 suffices for
#: vocabularies under 65,536, e.g. Megatron's indexed datasets; Llama 3's 128k needs 4).
DEFAULT_BYTES_PER_TOKEN = 4.0


def checkpoint_bytes(
    params: float, precision: str = "bf16", include_optimizer: bool = True
) -> float:
    """Checkpoint size: ``N · (weight bytes + optimizer bytes)`` - 14 bytes/param for
    mixed-precision Adam (175e9 → 2.45 TB), 2 bytes/param for weights only."""
    n = positive("params", params, MAX_PARAMS)
    weights, _gradients, optimizer = ADAM_STATE_BYTES[
        choice("precision", precision, ADAM_STATE_BYTES)
    ]
    return n * (weights + (optimizer if include_optimizer else 0.0))


def checkpoint_write_seconds(size_bytes: float, write_gbs: float) -> float:
    """Seconds to write a checkpoint at the hot tier's aggregate write bandwidth (GB/s)."""
    return positive("checkpoint_bytes", size_bytes) / (positive("write_gbs", write_gbs, 1e6) * GB)


def min_checkpoint_interval_s(
    write_s: float, max_overhead: float = MAX_CHECKPOINT_OVERHEAD
) -> float:
    """Shortest interval between saves keeping saves ≤ ``max_overhead`` of training time:
    ``interval ≥ write_time / max_overhead`` (5 % → 20 × the write time)."""
    return positive("write_s", write_s) / fraction("max_overhead", max_overhead)


def checkpoint_overhead(write_s: float, interval_s: float) -> float:
    """Share of training time spent saving: ``write_time / interval`` (a 36 s save every
    hour is 0.01, 1 %; the rule wants at most :data:`MAX_CHECKPOINT_OVERHEAD`)."""
    return positive("write_s", write_s) / positive("interval_s", interval_s)


def dataset_read_gbs(
    tokens_per_s: float, bytes_per_token: float = DEFAULT_BYTES_PER_TOKEN
) -> float:
    """Read bandwidth in GB/s to stream the dataset: ``tokens/s · bytes/token / 1e9``."""
    return (
        positive("tokens_per_s", tokens_per_s)
        * positive("bytes_per_token", bytes_per_token, 1e6)
        / GB
    )
