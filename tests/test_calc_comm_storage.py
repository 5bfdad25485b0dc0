"""Communication (nccl-tests PERFORMANCE.md) and storage rules (domain brief §3-4)."""

from __future__ import annotations

import pytest

from workbench.calc import comm, storage
from workbench.calc.errors import InputError


def test_70b_fp16_gradients_need_2_2_tbps_to_hide_in_1_s():
    # Domain brief §3: 70B fp16 → 140 GB of gradients, ~280 GB moved per step (2 × bytes),
    # ~2.2 Tb/s to stay hidden behind 1 s of compute.
    grads = 70e9 * 2
    moved = comm.ring_allreduce_bytes_per_gpu(grads, 1024)
    assert moved == pytest.approx(2 * (1023 / 1024) * 140e9)
    assert moved / 1e9 == pytest.approx(280, rel=0.002)
    assert comm.bandwidth_to_hide_gbps(2 * grads, 1.0) == pytest.approx(2240)
    assert comm.bandwidth_to_hide_gbps(moved, 1.0) / 1000 == pytest.approx(2.2, abs=0.05)


def test_ring_allreduce_time_matches_nccl_tests_definition():
    # nccl-tests PERFORMANCE.md: busbw = algbw · 2(n−1)/n, algbw = S/t.
    s, n, busbw = 1e9, 8, 370.0
    t = comm.ring_allreduce_seconds(s, n, busbw)
    algbw = s / t / 1e9
    assert algbw * 2 * (n - 1) / n == pytest.approx(busbw)
    assert comm.ring_allreduce_seconds(s, 1, busbw) == 0.0  # one rank: nothing to reduce


def test_bus_bandwidth_nvlink_inside_node_nic_between():
    # H100: 900 GB/s NVLink bidirectional → 450 GB/s line rate per direction (nccl-tests
    # issue #212), × 0.8 efficiency ≈ 360 GB/s (measured ring ≈ 370).  Across nodes: a
    # 400 Gb/s NDR rail per GPU = 50 GB/s line rate.
    inside = comm.bus_bandwidth_gbs(8, 8, 900, 400, efficiency=1.0)
    assert (inside.busbw_gbs, inside.link) == (450.0, "nvlink")
    across = comm.bus_bandwidth_gbs(16, 8, 900, 400, efficiency=1.0)
    assert (across.busbw_gbs, across.link) == (50.0, "nic")
    assert comm.bus_bandwidth_gbs(8, 8, 900, 400).busbw_gbs == pytest.approx(360)
    # a PCIe card with no NVLink uses the NIC even inside the node
    assert comm.bus_bandwidth_gbs(4, 8, None, 200, efficiency=1.0).link == "nic"


def test_overlap_model():
    # 140 GB over 1024 GPUs at 50 GB/s busbw: 2·1023/1024·140e9 / 50e9 = 5.59 s.
    step = comm.allreduce_step(140e9, 1024, 50, compute_s=1.0)
    assert step.comm_s == pytest.approx(5.594, abs=0.001)
    assert not step.hidden and step.exposed_s == pytest.approx(step.comm_s - 1.0)
    assert step.share_of_step == pytest.approx(step.exposed_s / step.step_s)
    hidden = comm.allreduce_step(1e9, 64, 50, compute_s=1.0)
    assert hidden.hidden and hidden.share_of_step == 0.0 and hidden.step_s == 1.0
    none = comm.allreduce_step(1e9, 64, 50, compute_s=1.0, overlap_fraction=0.0)
    assert none.exposed_s == pytest.approx(none.comm_s)


def test_checkpoint_size_write_time_and_interval():
    # 175B mixed-precision Adam: (2 + 12) bytes × 175e9 = 2.45 TB ("hundreds of GB to TB",
    # domain brief §4; ZeRO §3.1 byte counts).
    size = storage.checkpoint_bytes(175e9)
    assert size == pytest.approx(2.45e12)
    assert storage.checkpoint_bytes(175e9, include_optimizer=False) == pytest.approx(350e9)
    write = storage.checkpoint_write_seconds(size, 50)  # 50 GB/s hot tier
    assert write == pytest.approx(49.0)
    # ≤ 5 % of training time → interval ≥ 20 × the write time = 980 s
    interval = storage.min_checkpoint_interval_s(write)
    assert interval == pytest.approx(980.0)
    assert write / interval == pytest.approx(0.05)


def test_dataset_bandwidth():
    assert storage.dataset_read_gbs(1e6, 4) == pytest.approx(0.004)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: comm.ring_allreduce_seconds(1e9, 0, 50), "n"),
        (lambda: comm.ring_allreduce_seconds(1e9, 8, -1), "busbw_gbs"),
        (
            lambda: comm.allreduce_step(1e9, 8, 50, compute_s=1, overlap_fraction=1.5),
            "overlap_fraction",
        ),
        (lambda: comm.bus_bandwidth_gbs(8, 8, 900, 400, efficiency=0), "efficiency"),
        (lambda: storage.checkpoint_write_seconds(1e12, 0), "write_gbs"),
        (lambda: storage.min_checkpoint_interval_s(10, max_overhead=2), "max_overhead"),
        (lambda: storage.checkpoint_bytes(175e9, "int3"), "precision"),
    ],
)
def test_bad_input_names_the_field(call, field):
    with pytest.raises(InputError) as exc:
        call()
    assert exc.value.field == field
