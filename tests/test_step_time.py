"""Step-time terms against worked examples (workbench.calc.step_time)."""

from __future__ import annotations

import pytest

from workbench.calc import comm, presets
from workbench.calc import step_time as st
from workbench.calc.errors import InputError

GPT = presets.ModelConfig(
    "gpt-test", 12 * 8 * 4096**2, 8, 4096, 32, 32, 128, 16384, 51200, 2048, "", False
)
A100 = st.Hardware(peak_tflops=312, gpus_per_node=8, nvlink_gbs=600, nic_gbps_per_gpu=200)


def parts(**kw):
    layout = st.Layout(**{"global_batch": 64, "seq_len": 2048, "flash_attention": False, **kw})
    return st.step_parts(GPT, layout, A100), layout


def test_breakdown_has_exactly_the_five_terms_and_sums():
    p = st.predict_step(
        GPT, st.Layout(tp=2, pp=2, dp=2, global_batch=64, seq_len=2048), A100, "bf16"
    )
    assert list(p.breakdown_s) == list(st.TERMS)
    assert st.TERMS == ("compute", "tp_comm", "cp_comm", "pipeline_bubble", "p2p", "dp_exposed")
    assert sum(p.breakdown_s.values()) == pytest.approx(p.step_time_s)
    for key in (*st.TERMS, "model_flops_per_token", "hardware_flops_per_token", "mfu", "hfu"):
        assert p.explanations[key].formula and p.explanations[key].source, key
    # PaLM MFU definition: model FLOPs · tokens/s / (gpus · peak).
    assert p.mfu == pytest.approx(p.model_flops_per_token * p.tokens_per_s / (8 * 312e12))
    assert p.hfu >= p.mfu


def test_compute_term_is_flops_over_peak_times_efficiency():
    # tp = pp = dp = 1, no HBM figure: compute = m · hardware FLOP/token · b·s / (peak · k).
    part, lay = parts()
    p = st.predict_step(GPT, lay, A100, "bf16", kernel_efficiency=0.5)
    expected = 64 * p.hardware_flops_per_token * 2048 / (312e12 * 0.5)
    assert p.breakdown_s["compute"] == pytest.approx(expected)
    assert p.step_time_s == pytest.approx(expected)
    assert any("hbm_tbs" in w for w in p.warnings)


def test_tp_comm_worked_example():
    # Shoeybi et al. 2019: 4 all-reduces of s·b·h·2 B per layer (fwd + bwd).  tp 8 on a
    # DGX A100: busbw = 600/2 · 0.8 = 240 GB/s; ring 2·7/8 · 2048·4096·2 B = 29.36 MB
    # → 0.1223 ms each; 8 layers · 4 · 64 micro-batches = 2048 of them = 0.2505 s.
    p = st.predict_step(GPT, st.Layout(tp=8, global_batch=64, seq_len=2048), A100, "bf16")
    each = 2 * 7 / 8 * 2048 * 4096 * 2 / 240e9
    assert p.breakdown_s["tp_comm"] == pytest.approx(2048 * each)
    # Full recompute re-runs the forward's 2 all-reduces: 6 per layer.
    full = st.predict_step(
        GPT, st.Layout(tp=8, global_batch=64, seq_len=2048, recompute="full"), A100, "bf16"
    )
    assert full.breakdown_s["tp_comm"] == pytest.approx(1.5 * p.breakdown_s["tp_comm"])


def test_tp_across_nodes_uses_the_nic_and_needs_one():
    wide = st.Layout(tp=16, global_batch=64, seq_len=2048)
    model = presets.ModelConfig("m", 1e9, 8, 4096, 32, 32, 128, 16384, 51200, 2048, "", False)
    p = st.predict_step(model, wide, A100, "bf16")
    assert p.breakdown_s["tp_comm"] == pytest.approx(
        64 * 8 * 4 * comm.ring_allreduce_seconds(2048 * 4096 * 2, 16, 200 / 8 * 0.8)
    )
    no_nic = st.Hardware(peak_tflops=312, gpus_per_node=8, nvlink_gbs=600)
    with pytest.raises(InputError) as err:
        st.predict_step(model, wide, no_nic, "bf16")
    assert err.value.field == "tp"


def test_pipeline_bubble_1f1b_and_interleaved():
    # Narayanan et al. 2021 §2.2: bubble = (p − 1)/(m·v) of the ideal time.
    one, lay = parts(pp=4)
    ideal = one.breakdown(0.6, 0.8)
    m = lay.micro_batches
    per_mb = (ideal["compute"] + ideal["tp_comm"] + ideal["p2p"]) / m
    assert ideal["pipeline_bubble"] == pytest.approx(3 / m * m * per_mb)
    inter, _ = parts(pp=4, virtual_stages=2)
    b = inter.breakdown(0.6, 0.8)
    per_mb_v = (b["compute"] + b["tp_comm"] + b["p2p"]) / m
    assert b["pipeline_bubble"] == pytest.approx(3 / 2 * per_mb_v)


def test_p2p_worked_example():
    # tp 2 · pp 8 = 16 GPUs > one node → NIC 200 Gb/s · 0.8 = 20 GB/s; per micro-batch
    # 2 sends of s·b·h·2/t = 8.39 MB → 0.839 ms; 64 micro-batches = 53.7 ms (v = 1).
    p = st.predict_step(GPT, st.Layout(tp=2, pp=8, global_batch=64, seq_len=2048), A100, "bf16")
    assert p.breakdown_s["p2p"] == pytest.approx(64 * 2 * (2048 * 4096 * 2 / 2) / 20e9)


def test_dp_exposed_is_what_the_backward_cannot_hide():
    # dp 16 over the NIC at 20 GB/s; gradients 16-bit of the whole model (pp = 1).
    p = st.predict_step(GPT, st.Layout(dp=16, global_batch=16, seq_len=2048), A100, "bf16")
    part = st.step_parts(GPT, st.Layout(dp=16, global_batch=16, seq_len=2048), A100)
    grads = (8 * 12 * 4096**2 + 2 * 51200 * 4096) * 2.0
    assert part.dp_gradient_bytes == pytest.approx(grads)
    comm_s = comm.ring_allreduce_seconds(grads, 16, 20.0)
    window = part.backward_share * part.flops_s / st.DEFAULT_KERNEL_EFFICIENCY
    assert p.breakdown_s["dp_exposed"] == pytest.approx(max(0.0, comm_s - window))
    assert p.breakdown_s["dp_exposed"] > 0  # one micro-batch cannot hide 1.4 GB at 20 GB/s


def test_oversubscription_slows_dp_only_beyond_a_leaf():
    lay = st.Layout(dp=64, global_batch=64, seq_len=2048)
    base = st.predict_step(GPT, lay, A100, "bf16").breakdown_s["dp_exposed"]
    over = st.Hardware(
        peak_tflops=312, gpus_per_node=8, nvlink_gbs=600, nic_gbps_per_gpu=200, oversubscription=4.0
    )
    slow = st.predict_step(GPT, lay, over, "bf16").breakdown_s["dp_exposed"]
    assert slow > base
    in_leaf = st.Hardware(
        peak_tflops=312, gpus_per_node=8, nvlink_gbs=600, nic_gbps_per_gpu=200,
        oversubscription=4.0, gpus_per_leaf=64,
    )  # fmt: skip
    assert st.predict_step(GPT, lay, in_leaf, "bf16").breakdown_s["dp_exposed"] == base


def test_bad_layouts_name_their_field():
    with pytest.raises(InputError) as err:
        st.Layout(dp=3, micro_batch=2, global_batch=64, seq_len=2048)
    assert err.value.field == "global_batch"
    with pytest.raises(InputError) as err:
        st.Layout(virtual_stages=2, global_batch=64, seq_len=2048)
    assert err.value.field == "virtual_stages"
    with pytest.raises(InputError) as err:
        st.Layout(zero=4, global_batch=64, seq_len=2048)
    assert err.value.field == "zero"
    with pytest.raises(InputError) as err:
        st.Hardware(peak_tflops=312, gpus_per_node=8, oversubscription=0.5)
    assert err.value.field == "oversubscription"
    with pytest.raises(InputError) as err:
        st.predict_step(GPT, st.Layout(pp=9, global_batch=64, seq_len=2048), A100, "bf16")
    assert err.value.field == "pp"


def test_uneven_stages_allowed_and_sized_on_the_heaviest():
    # 126 layers on 16 stages (Llama 3): heaviest stage ceil(126/16) = 8 layers.
    model = presets.get_preset("llama3-405b")
    lay = st.Layout(tp=8, pp=16, dp=1, global_batch=16, seq_len=8192)
    part = st.step_parts(model, lay, A100)
    assert part.heaviest_layers == 8


def test_missing_nic_uses_documented_default_and_says_so():
    hw = st.Hardware(peak_tflops=312, gpus_per_node=8, nvlink_gbs=600)
    p = st.predict_step(GPT, st.Layout(dp=16, global_batch=16, seq_len=2048), hw, "bf16")
    assert any("nic_gbps" in w and "400" in w for w in p.warnings)


def test_run_seconds_applies_goodput():
    p = st.predict_step(GPT, st.Layout(global_batch=64, seq_len=2048), A100, "bf16")
    assert st.run_seconds(p, 1e9) == pytest.approx(1e9 / p.tokens_per_s / 0.9)
    assert st.run_seconds(p, 1e9, goodput=1.0) == pytest.approx(1e9 / p.tokens_per_s)
    with pytest.raises(InputError) as err:
        st.run_seconds(p, 1e9, goodput=1.5)
    assert err.value.field == "goodput"
