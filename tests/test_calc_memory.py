"""Training memory: ZeRO §3.1 bytes per parameter, sharding, Korthikanti activations."""

from __future__ import annotations

import math

import pytest

from workbench.calc import memory
from workbench.calc.errors import InputError


def test_mixed_precision_adam_is_16_bytes_per_param():
    # Rajbhandari et al. (ZeRO, SC20) §3.1: 2Ψ + 2Ψ + KΨ with K = 12 → 16Ψ bytes.
    state = memory.model_state_bytes(1.0e9, "bf16")
    assert (state.weights_bytes, state.gradients_bytes, state.optimizer_bytes) == (2e9, 2e9, 12e9)
    assert state.total_bytes / 1e9 == 16.0
    # ZeRO §3.1 example: a 7.5B model needs 120 GB of model state.
    assert memory.model_state_bytes(7.5e9).total_bytes == pytest.approx(120e9)


def test_65b_example_from_the_seed():
    # Seed 000 / domain brief §2: 65B → 130 GB fp16 weights and ~520 GB of fp32 Adam
    # states.  520 GB = 65e9 × 8 bytes (fp32 momentum + variance); the ZeRO accounting
    # adds the 4-byte fp32 master copy, K = 12 → 780 GB, and 2-byte gradients → 1,040 GB.
    state = memory.model_state_bytes(65e9, "fp16")
    assert state.weights_bytes == pytest.approx(130e9)
    # fp32 Adam's momentum + variance (8 bytes/param, the fp32 optimizer entry) = 520 GB
    assert memory.model_state_bytes(65e9, "fp32").optimizer_bytes == pytest.approx(520e9)
    assert state.optimizer_bytes == pytest.approx(780e9)
    assert state.total_bytes == pytest.approx(1040e9)
    # "dozens of 80 GB GPUs just to hold it": 1,040 GB / 72 GB usable → 15 at the least
    assert memory.gpus_to_hold_state(65e9, "fp16", 80) == 15


def test_zero_stages_divide_optimizer_then_gradients_then_weights():
    n, dp = 8e9, 64
    s0 = memory.model_state_bytes(n, zero=0, dp=dp)
    s1 = memory.model_state_bytes(n, zero=1, dp=dp)
    s2 = memory.model_state_bytes(n, zero=2, dp=dp)
    s3 = memory.model_state_bytes(n, zero=3, dp=dp)
    assert (
        s1.optimizer_bytes == s0.optimizer_bytes / dp and s1.gradients_bytes == s0.gradients_bytes
    )
    assert s2.gradients_bytes == s0.gradients_bytes / dp and s2.weights_bytes == s0.weights_bytes
    assert s3.weights_bytes == s0.weights_bytes / dp
    # ZeRO §5 / Figure 1: Ψ = 7.5B, N_d = 64: P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.88 GB
    assert memory.model_state_bytes(7.5e9, zero=1, dp=64).total_bytes / 1e9 == pytest.approx(
        31.4, abs=0.05
    )
    assert memory.model_state_bytes(7.5e9, zero=2, dp=64).total_bytes / 1e9 == pytest.approx(
        16.6, abs=0.05
    )
    assert memory.model_state_bytes(7.5e9, zero=3, dp=64).total_bytes / 1e9 == pytest.approx(
        1.88, abs=0.01
    )


def test_tensor_and_pipeline_parallel_divide_all_state():
    full = memory.model_state_bytes(70e9).total_bytes
    assert memory.model_state_bytes(70e9, tp=8, pp=4).total_bytes == pytest.approx(full / 32)


def test_korthikanti_activation_formulas():
    # Korthikanti et al. 2022 Table 2, GPT-3 175B: s=2048, b=1, h=12288, a=96, t=8, with the
    # attention scores stored (flash_attention=False: the paper's accounting).
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    sbh = s * b * h
    per_layer = memory.activation_bytes_per_layer

    def stored(**kw):
        return per_layer(s, b, h, a, flash_attention=False, **kw)

    no_par = stored()
    assert no_par == pytest.approx(sbh * (34 + 5 * a * s / h))
    tp_only = stored(tp=t)
    assert tp_only == pytest.approx(sbh * (10 + 24 / t + 5 * a * s / (h * t)))
    tp_sp = stored(tp=t, sequence_parallel=True)
    assert tp_sp == pytest.approx(no_par / t)
    selective = stored(tp=t, recompute="selective")
    assert selective == pytest.approx(sbh * (10 + 24 / t))
    sel_sp = stored(tp=t, recompute="selective", sequence_parallel=True)
    assert sel_sp == pytest.approx(sbh * 34 / t)
    assert stored(tp=t, recompute="full") == 2 * sbh
    # 5as/h = 80 for GPT-3: the attention term dominates 34 without recompute
    assert 5 * a * s / h == 80
    # FlashAttention (Dao et al. 2022), the default, never stores the scores: "none" costs
    # what selective recompute does, 10 + 24/t = 13 sbh at t = 8 (2048·12288·13 = 0.327 GB)
    assert per_layer(s, b, h, a, tp=t) == pytest.approx(sbh * 13) == selective
    assert per_layer(s, b, h, a) == pytest.approx(sbh * 34)


def test_pipeline_first_stage_holds_l_layers_worth():
    # 1F1B: pp in-flight micro-batches × L/pp layers = L layers (Korthikanti §4.2)
    one = memory.activation_bytes(96, 2048, 1, 12288, 96, tp=8, pp=1)
    assert memory.activation_bytes(96, 2048, 1, 12288, 96, tp=8, pp=8) == pytest.approx(one)
    single = memory.activation_bytes(96, 2048, 1, 12288, 96, tp=8, pp=8, in_flight_microbatches=1)
    assert single == pytest.approx(one / 8)
    # pp no longer has to divide the layers (issue 12): 96 on 7 stages is 13,14,14,14,14,14,13
    # and the first stage, 13 layers × 7 micro-batches = 91 layers' worth, is the busiest
    assert memory.activation_bytes(96, 2048, 1, 12288, 96, tp=8, pp=7) == pytest.approx(
        one * 91 / 96
    )
    with pytest.raises(InputError) as exc:  # but every stage needs a layer
        memory.activation_bytes(96, 2048, 1, 12288, 96, pp=97)
    assert exc.value.field == "pp"


def test_verdict_uses_headroom():
    # 7B bf16 full state = 112 GB: does not fit one 80 GB GPU, fits ZeRO-3 over 8.
    assert memory.training_memory(7e9, hbm_gb=80).fits is False
    # ZeRO's accounting (16Ψ / 8) with bf16 gradients; fp32 main gradients (Megatron) 18Ψ / 8
    sharded = memory.training_memory(7e9, zero=3, dp=8, hbm_gb=80, grad_precision="bf16")
    assert sharded.total_bytes == pytest.approx(14e9)
    megatron = memory.training_memory(7e9, zero=3, dp=8, grad_precision="fp32")
    assert megatron.total_bytes == pytest.approx(18 * 7e9 / 8)
    assert sharded.activations_bytes is None and sharded.fits is None  # activations unknown
    with_acts = memory.training_memory(
        7e9,
        zero=3,
        dp=8,
        layers=32,
        hidden=4096,
        heads=32,
        seq_len=4096,
        recompute="full",
        hbm_gb=80,
    )
    assert with_acts.fits is True
    assert with_acts.usable_bytes == pytest.approx(72e9)
    # exactly at the limit: headroom 0 fits 80 GB, 10 % headroom does not
    edge = memory.training_memory(5e9, hbm_gb=80, headroom=0.0)
    assert edge.total_bytes == 80e9 and edge.fits is None  # state fits, activations unknown
    assert memory.training_memory(5e9, hbm_gb=80).fits is False
    gb = with_acts.gb()
    assert set(gb) == {"weights", "gradients", "optimizer", "activations", "total"}
    assert gb["total"] == pytest.approx(sum(v for k, v in gb.items() if k != "total"))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"zero": 4}, "zero"),
        ({"zero": -1}, "zero"),
        ({"zero": True}, "zero"),
        ({"dp": 0}, "dp"),
        ({"tp": 2.5}, "tp"),
        ({"precision": "int3"}, "precision"),
        ({"hbm_gb": -80}, "hbm_gb"),
        ({"headroom": 1.0}, "headroom"),
        ({"headroom": math.nan}, "headroom"),
        ({"layers": 32, "hidden": 4096, "heads": 32, "seq_len": 0}, "seq_len"),
        ({"layers": 32, "hidden": 4096, "heads": 32, "recompute": "some"}, "recompute"),
    ],
)
def test_bad_memory_input_names_the_field(kwargs, field):
    with pytest.raises(InputError) as exc:
        memory.training_memory(7e9, **kwargs)
    assert exc.value.field == field
