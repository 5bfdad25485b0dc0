"""Properties of the step-time model (hypothesis)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as sst

from workbench.calc import presets
from workbench.calc import step_time as st

MODEL = presets.get_preset("llama3-70b")
FAST = settings(max_examples=40, deadline=None)


def hardware(nic: float, oversub: float = 1.0) -> st.Hardware:
    return st.Hardware(
        peak_tflops=989, gpus_per_node=8, nvlink_gbs=900, nic_gbps_per_gpu=nic,
        oversubscription=oversub, hbm_tbs=3.35,
    )  # fmt: skip


layouts = sst.builds(
    lambda tp, pp, dp, mb, per_dp, rec, zero: st.Layout(
        tp=tp,
        pp=pp,
        dp=dp,
        micro_batch=mb,
        global_batch=dp * mb * per_dp,
        seq_len=4096,
        recompute=rec,
        zero=zero if dp > 1 else 0,
        sequence_parallel=tp > 1,
    ),  # fmt: skip
    sst.sampled_from([1, 2, 4, 8]),
    sst.sampled_from([1, 2, 4, 8]),
    sst.integers(1, 64),
    sst.sampled_from([1, 2]),
    sst.integers(1, 16),
    sst.sampled_from(["none", "selective", "full"]),
    sst.integers(0, 3),
)


@FAST
@given(layouts, sst.integers(2, 8))
def test_more_gpus_never_lengthen_the_run_at_fixed_per_gpu_batch(lay, factor):
    """Scale dp (and the global batch with it): the run over the same tokens is no longer."""
    hw = hardware(400)
    tokens = 1e12
    small = st.predict_step(MODEL, lay, hw, "bf16")
    big = replace(lay, dp=lay.dp * factor, global_batch=lay.global_batch * factor)
    large = st.predict_step(MODEL, big, hw, "bf16")
    assert st.run_seconds(large, tokens) <= st.run_seconds(small, tokens) * (1 + 1e-9)


@FAST
@given(layouts, sst.floats(50, 800), sst.floats(1.0, 4.0), sst.floats(1.0, 8.0))
def test_a_faster_nic_never_slows_the_step(lay, nic, factor, oversub):
    slow = st.predict_step(MODEL, lay, hardware(nic, oversub), "bf16")
    fast = st.predict_step(MODEL, lay, hardware(nic * factor, oversub), "bf16")
    assert fast.step_time_s <= slow.step_time_s * (1 + 1e-9)


@FAST
@given(
    sst.sampled_from([2, 4, 8, 16]),
    sst.integers(1, 64),
    sst.sampled_from([1, 2, 4]),
    sst.sampled_from([1, 2, 5]),
)
def test_more_virtual_stages_never_enlarge_the_bubble(pp, m, v, more):
    hw = hardware(400)
    base = st.Layout(tp=8, pp=pp, dp=1, global_batch=m, seq_len=4096, virtual_stages=v)
    if v * more > MODEL.layers // pp:
        return
    a = st.predict_step(MODEL, base, hw, "bf16").breakdown_s["pipeline_bubble"]
    b = st.predict_step(MODEL, replace(base, virtual_stages=v * more), hw, "bf16")
    assert b.breakdown_s["pipeline_bubble"] <= a * (1 + 1e-9)
