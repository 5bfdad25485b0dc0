"""Communication: ring all-reduce time, the bus bandwidth it runs at, and overlap.

Sources:

* nccl-tests ``doc/PERFORMANCE.md`` (github.com/NVIDIA/nccl-tests): for all-reduce
  ``busbw = algbw · 2(n−1)/n`` with ``algbw = S/t``, so a bandwidth-optimal ring moves
  ``2(n−1)/n · S`` bytes per GPU and takes ``t = 2(n−1)/n · S / busbw`` (latency terms
  left out: they matter for small messages, not for gradient buckets of GBs).
* Bus bandwidth: inside one NVLink/NVSwitch node a GPU sends at half its quoted
  bidirectional NVLink figure (H100: 900 GB/s bidirectional, 450 GB/s per direction;
  NCCL maintainer in nccl-tests issue #212: "450 GB/s line rate", ~370 GB/s achieved
  for ring).  Across nodes a ring is limited by the slowest link, the compute-plane NIC
  of each GPU rail (400 Gb/s = 50 GB/s).  ``efficiency`` scales the line rate to what
  NCCL achieves (0.8 ≈ 370/450) - an assumption the user can change.
* Domain brief §3: data-parallel traffic ≈ 2 × gradient bytes per step; a 70B fp16
  model → ~280 GB per step, ~2.2 Tb/s to stay hidden within 1 s of compute.

Overlap model (stated assumption): gradient buckets are all-reduced while the backward
pass continues (PyTorch DDP bucketing, Li et al. VLDB 2020), so up to
``overlap_fraction`` of the compute time can hide communication; only the rest is
exposed and lengthens the step.  ``overlap_fraction = 1`` is the domain brief's reading
(hide within the whole step's compute); 2/3 is the backward share of 6·N·D.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.calc.errors import fraction, non_negative, positive, positive_int

DEFAULT_COLLECTIVE_EFFICIENCY = 0.8


def ring_allreduce_bytes_per_gpu(message_bytes: float, n: int) -> float:
    """Bytes each GPU sends in a ring all-reduce: ``2(n−1)/n · S`` (nccl-tests PERFORMANCE.md)."""
    s = non_negative("message_bytes", message_bytes)
    ranks = positive_int("n", n, 10_000_000)
    return 2.0 * (ranks - 1) / ranks * s


def ring_allreduce_seconds(message_bytes: float, n: int, busbw_gbs: float) -> float:
    """All-reduce time ``2(n−1)/n · S / busbw`` with bus bandwidth in GB/s (1e9 bytes/s)."""
    bw = positive("busbw_gbs", busbw_gbs, 1e6) * 1e9
    return ring_allreduce_bytes_per_gpu(message_bytes, n) / bw


@dataclass(frozen=True)
class BusBandwidth:
    """The bus bandwidth a collective over ``n`` GPUs runs at, and which link sets it."""

    busbw_gbs: float
    link: str  # "nvlink" or "nic"


def bus_bandwidth_gbs(
    n: int,
    gpus_per_node: int,
    nvlink_gbs: float | None,
    nic_gbps_per_gpu: float,
    efficiency: float = DEFAULT_COLLECTIVE_EFFICIENCY,
) -> BusBandwidth:
    """NVLink inside a node (n ≤ gpus_per_node), the per-GPU compute NIC between nodes.

    ``nvlink_gbs`` is the catalog's bidirectional figure in GB/s (halved per direction);
    ``nic_gbps_per_gpu`` the compute-plane NIC line rate per GPU in Gb/s (÷ 8 → GB/s).
    """
    ranks = positive_int("n", n, 10_000_000)
    per_node = positive_int("gpus_per_node", gpus_per_node, 1024)
    eff = fraction("efficiency", efficiency)
    if ranks <= per_node and nvlink_gbs:
        return BusBandwidth(positive("nvlink_gbs", nvlink_gbs, 1e6) / 2.0 * eff, "nvlink")
    return BusBandwidth(positive("nic_gbps", nic_gbps_per_gpu, 1e5) / 8.0 * eff, "nic")


def bandwidth_to_hide_gbps(bytes_per_step: float, window_s: float) -> float:
    """Line rate in Gb/s needed to move ``bytes_per_step`` within ``window_s``: bytes·8/s/1e9.

    Domain brief §3: 280 GB in 1 s → 2,240 Gb/s ≈ 2.2 Tb/s.
    """
    return (
        non_negative("bytes_per_step", bytes_per_step) * 8.0 / positive("window_s", window_s) / 1e9
    )


@dataclass(frozen=True)
class StepComm:
    """Gradient all-reduce of one training step against its compute time."""

    bytes_per_gpu: float
    comm_s: float
    compute_s: float
    exposed_s: float
    step_s: float
    share_of_step: float
    hidden: bool


def allreduce_step(
    gradient_bytes: float,
    n: int,
    busbw_gbs: float,
    compute_s: float,
    overlap_fraction: float = 1.0,
) -> StepComm:
    """Ring all-reduce of ``gradient_bytes`` over ``n`` data-parallel GPUs versus compute.

    ``exposed = max(0, comm − overlap_fraction · compute)``; ``step = compute + exposed``;
    share of step = exposed / step; hidden when nothing is exposed.
    """
    comm = ring_allreduce_seconds(gradient_bytes, n, busbw_gbs)
    compute = positive("compute_s", compute_s)
    overlap = fraction("overlap_fraction", overlap_fraction, allow_zero=True)
    exposed = max(0.0, comm - overlap * compute)
    step = compute + exposed
    return StepComm(
        bytes_per_gpu=ring_allreduce_bytes_per_gpu(gradient_bytes, n),
        comm_s=comm,
        compute_s=compute,
        exposed_s=exposed,
        step_s=step,
        share_of_step=exposed / step,
        hidden=exposed == 0.0,
    )
