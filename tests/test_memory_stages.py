"""Training memory for issue 12: uneven pipeline stages, the embedding and output layer,
interleaving, FlashAttention, GQA / gated MLPs, the distributed optimizer and usable HBM.

Every expected figure below is worked by hand from the cited formula, not read back
from the code.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from workbench.calc import memory
from workbench.calc.errors import InputError
from workbench.calc.presets import get_preset, layer_params
from workbench.catalog import load_catalog

MIB = 2**20


@pytest.fixture(scope="module")
def gpus():
    return {
        item.slug: item for item in load_catalog(include_user=False, strict=True).by_kind("gpu")
    }


def test_uneven_stages_follow_the_published_layouts():
    # Llama 3 (Dubey et al. 2024 §3.3.2): 126 layers on 16 stages, one layer fewer on the
    # first and the last: 7 + 14 × 8 + 7.
    assert memory.stage_layer_counts(126, 16) == (7,) + (8,) * 14 + (7,)
    # BLOOM-176B: 70 layers on 12 stages → 5 + 10 × 6 + 5
    assert memory.stage_layer_counts(70, 12) == (5,) + (6,) * 10 + (5,)
    assert memory.stage_layer_counts(96, 8) == (12,) * 8
    # a remainder smaller than the middle goes to the middle stages, in order
    assert memory.stage_layer_counts(17, 4) == (4, 5, 4, 4)
    assert memory.stage_layer_counts(5, 2) == (2, 3)  # no middle: the last stage
    with pytest.raises(InputError) as exc:
        memory.stage_layer_counts(8, 9)
    assert exc.value.field == "pp"


def test_llama3_405b_on_16_stages_sizes_the_heaviest():
    m = get_preset("llama3-405b")
    r = memory.training_memory(
        m.params,
        "bf16",
        1,
        128,
        8,
        16,
        layers=m.layers,
        hidden=m.hidden,
        heads=m.heads,
        kv_heads=m.kv_heads,
        ffn=m.ffn,
        vocab=m.vocab,
        gated_mlp=True,
        seq_len=8192,
        recompute="full",
        sequence_parallel=True,
        grad_precision="fp32",
    )
    # One layer: 16384·128·(2·128 + 2·8) + 3·16384·53248 + 2·16384 = 3,187,703,808 weights.
    per_layer = layer_params(16384, 128, 8, 53248, True)
    assert per_layer == 3_187_703_808
    # Stage 0 holds 7 layers + the 128256 × 16384 embedding = 24.42e9; stage 1 holds 8
    # layers = 25.50e9 and, with 15 micro-batches in flight × 8 layers = 120 layer inputs
    # of 2·s·b·h/t = 2·8192·16384/8 = 33,554,432 bytes (full recompute, sequence parallel),
    # as much activation memory as stage 0 (7 × 16 = 112 layers + the 16 embedding masks
    # of s·b·h/t = 16,777,216 bytes): stage 1 is the heaviest.
    assert (r.stage, r.stage_layers) == (1, 8)
    assert r.stage_params == 8 * per_layer == 25_501_630_464
    assert r.weights_bytes == pytest.approx(2 * 25_501_630_464 / 8)
    assert r.gradients_bytes == pytest.approx(4 * 25_501_630_464 / 8)  # fp32 buffer
    assert r.optimizer_bytes == pytest.approx(12 * 25_501_630_464 / 8 / 128)
    assert r.activations_bytes == pytest.approx(120 * 33_554_432)
    assert r.grad_precision == "fp32"


def test_bloom_176b_layout_fits_an_a100_80gb(gpus):
    # BigScience 2022: BLOOM-176B ran TP 4 × PP 12 × DP 8 on A100 80GB, 70 layers on 12
    # stages, bf16, ZeRO-1.  Full recompute and micro-batch 2 at seq 2048 assumed here.
    m = get_preset("bloom-176b")
    hbm, _ = memory.usable_hbm_bytes(gpus["nvidia-a100-sxm4-80gb"])
    r = memory.training_memory(
        m.params,
        "bf16",
        1,
        8,
        4,
        12,
        layers=70,
        hidden=14336,
        heads=112,
        ffn=57344,
        vocab=250880,
        gated_mlp=False,
        seq_len=2048,
        micro_batch=2,
        recompute="full",
        hbm_usable_bytes=hbm,
        grad_precision="fp32",  # Megatron-DeepSpeed's fp32 gradient accumulation
    )
    # Stage 0: 5 layers × (12·14336² + 2·14336 = 2,466,279,424) + 250880·14336 embedding
    # = 15,928,012,800 parameters; /4 TP × (2 + 4 + 12/8) bytes = 29,865,024,000 bytes.
    # Activations: 5 layers × 12 in flight × 2·s·b·h (117,440,512) + 12 embedding masks of
    # s·b·h (58,720,256) = 7,751,073,792.  Total 37.6 GB < 0.9 × 81920 MiB = 77.3 GB.
    assert (r.stage, r.stage_layers) == (0, 5)
    assert r.stage_params == 15_928_012_800
    assert r.total_bytes == pytest.approx(29_865_024_000 + 7_751_073_792)
    assert r.hbm_bytes == 81920 * MIB and r.fits is True


def test_korthikanti_530b_and_1t_first_stage():
    # Korthikanti et al. 2022 (Table 3 configurations, t = 8, s = 2048, b = 1), sequence
    # parallelism + selective recompute: 34·s·b·h/t per layer, and the first 1F1B stage
    # holds L layers' worth (§4.2).  530B: h 20480, 105 layers on pp 35 →
    # 34·2048·20480/8 = 178,257,920 bytes × 105 = 18.72 GB.  1T: h 25600, 128 layers on
    # pp 64 → 222,822,400 × 128 = 28.52 GB.
    for slug, pp, per_layer in (
        ("megatron-530b", 35, 178_257_920),
        ("megatron-1t", 64, 222_822_400),
    ):
        m = get_preset(slug)
        acts = memory.activation_bytes(
            m.layers,
            2048,
            1,
            m.hidden,
            m.heads,
            tp=8,
            pp=pp,
            recompute="selective",
            sequence_parallel=True,
        )
        assert acts == pytest.approx(per_layer * m.layers), slug
    # the same 530B layer with the scores stored and no sequence parallelism (Table 2 row
    # "tensor parallel"): 2048·20480·(10 + 24/8 + 5·128·2048/(20480·8)) = 2048·20480·21
    stored = memory.activation_bytes_per_layer(2048, 1, 20480, 128, 8, flash_attention=False)
    assert stored == pytest.approx(2048 * 20480 * 21)


def test_interleaved_schedule_first_stage_factor():
    # Korthikanti §4.2: with v model chunks per GPU the first stage holds
    # L·(1 + (pp−1)/(pp·v)) layers' worth: 32·(1 + 3/8) = 44 at pp 4, v 2; 38 at v 4.
    args = (32, 2048, 1, 4096, 32)
    per_layer = memory.activation_bytes_per_layer(2048, 1, 4096, 32)
    assert memory.activation_bytes(*args, pp=4) == pytest.approx(32 * per_layer)
    assert memory.activation_bytes(*args, pp=4, virtual_stages=2) == pytest.approx(44 * per_layer)
    assert memory.activation_bytes(*args, pp=4, virtual_stages=4) == pytest.approx(38 * per_layer)
    for kwargs in ({"pp": 1, "virtual_stages": 2}, {"pp": 4, "virtual_stages": 9}):
        with pytest.raises(InputError) as exc:
            memory.activation_bytes(*args, **kwargs)
        assert exc.value.field == "virtual_stages"


def test_embedding_and_output_layer_activations():
    # Korthikanti §4.3, GPT-3 175B shape, V = 51200, t = 8, sequence parallel: the output
    # layer keeps 4·s·b·h/t·(1 + V/h) = 12,582,912 · (1 + 51200/12288) = 65,011,712 bytes;
    # the first stage one s·b·h/t = 3,145,728-byte embedding mask per in-flight micro-batch.
    shape = {"tp": 8, "sequence_parallel": True, "recompute": "selective"}
    plain = memory.activation_bytes(96, 2048, 1, 12288, 96, pp=8, **shape)
    per_layer = plain / 96
    with_vocab = memory.activation_bytes(96, 2048, 1, 12288, 96, pp=8, vocab=51200, **shape)
    assert with_vocab == pytest.approx(plain + 8 * 3_145_728)  # first stage, 8 in flight
    last = memory.activation_bytes(
        96, 2048, 1, 12288, 96, pp=8, vocab=51200, in_flight_microbatches=1, **shape
    )
    assert last == pytest.approx(12 * per_layer + 65_011_712)  # every stage 1 in flight
    one = memory.activation_bytes(96, 2048, 1, 12288, 96, vocab=51200, **shape)
    assert one == pytest.approx(plain + 3_145_728 + 65_011_712)  # pp 1: both ends


def test_gqa_and_gated_mlp_activation_terms():
    s, b, h = 8192, 1, 16384
    sbh = s * b * h
    # Llama 3 405B, t 8, sequence parallel: 10 + 4 + 4·(8/128) + 6·(53248/16384) = 33.75
    llama = memory.activation_bytes_per_layer(
        s, b, h, 128, 8, sequence_parallel=True, kv_heads=8, ffn=53248, gated_mlp=True
    )
    assert llama == pytest.approx(sbh * 33.75 / 8)
    # multi-head attention with a 4h GeLU MLP is exactly Korthikanti's 34
    mha = memory.activation_bytes_per_layer(s, b, h, 128, 8, kv_heads=128, ffn=4 * h)
    assert mha == pytest.approx(memory.activation_bytes_per_layer(s, b, h, 128, 8))
    assert mha == pytest.approx(sbh * (10 + 24 / 8))


def test_stage_parameters_come_from_the_architecture():
    m = get_preset("llama3-70b")
    common = dict(layers=80, hidden=8192, heads=64, recompute="full", seq_len=4096)
    # Old callers (no vocabulary, no FFN width): N/pp per stage, as before issue 12
    old = memory.training_memory(m.params, "bf16", 1, 32, 8, 4, **common)
    assert old.stage_params == pytest.approx(m.params / 4)
    assert old.weights_bytes == pytest.approx(2 * m.params / 32)
    # With the architecture: 20 × 855,654,400 (8192·128·(128 + 16) + 3·8192·28672 +
    # 2·8192) + the 128256 × 8192 embedding = 18,163,761,152 on the first stage, not N/4
    full = memory.training_memory(
        m.params, "bf16", 1, 32, 8, 4, kv_heads=8, ffn=28672, vocab=128256, gated_mlp=True, **common
    )
    assert layer_params(8192, 64, 8, 28672, True) == 855_654_400
    assert (full.stage, full.stage_params) == (0, 18_163_761_152)
    # vocabulary known, FFN unknown: (N − V·h)/L per layer, the embedding on the first stage
    partial = memory.training_memory(m.params, "bf16", 1, 32, 8, 4, vocab=128256, **common)
    embed = 128256 * 8192
    assert partial.stage_params == pytest.approx((m.params - embed) / 4 + embed)


def test_fp32_main_gradient_bytes_per_parameter():
    # Megatron Core developer guide, "Distributed Optimizer": bytes per parameter
    # 4 + 16/d (fp16 params and grads), 6 + 12/d (16-bit params, fp32 grads), 8 + 8/d
    # (fp32); at d = 1 the non-distributed column: 20, 18, 16.
    for precision, fixed, sharded in (("fp16", 4, 16), ("bf16", 6, 12), ("fp32", 8, 8)):
        for d in (1, 8):
            state = memory.model_state_bytes(1e9, precision, 1, d, grad_precision="fp32")
            assert state.total_bytes == pytest.approx((fixed + sharded / d) * 1e9), precision
    # The job's setting, the same at every stage: no switch of framework between stages.
    for zero, bf16, fp32 in ((0, 16, 18), (1, 4 + 12 / 8, 6 + 12 / 8), (3, 16 / 8, 18 / 8)):
        for grads, per_param in (("bf16", bf16), ("fp32", fp32)):
            r = memory.training_memory(1e9, zero=zero, dp=8, grad_precision=grads)
            assert r.total_bytes == pytest.approx(per_param * 1e9), (zero, grads)
            assert r.grad_precision == grads
    with pytest.raises(InputError) as exc:
        memory.training_memory(1e9, zero=0, dp=8, grad_precision="fp8")
    assert exc.value.field == "grad_precision"


def test_the_zero_paper_worked_example_with_bf16_gradients():
    # Rajbhandari et al. 2020 (ZeRO) Figure 1 / §5.3: 7.5B parameters, Adam in mixed
    # precision (K = 12), N_d = 64: 120 GB baseline, 31.4 GB with P_os, 16.6 GB with
    # P_os+g, 1.9 GB with P_os+g+p.
    expected = (120.0, 31.4, 16.6, 1.9)
    for zero, gb in enumerate(expected):
        state = memory.model_state_bytes(7.5e9, "bf16", zero, 64, grad_precision="bf16")
        assert state.total_bytes / 1e9 == pytest.approx(gb, abs=0.05), zero


def test_the_megatron_worked_example_with_fp32_main_gradients():
    # Megatron Core "Distributed Optimizer" table, bf16 parameters with fp32 gradients:
    # 18 bytes per parameter without it, 6 + 12/d with it; 7.5B on d = 64: 135 GB and
    # 45 + 1.41 = 46.4 GB.  ZeRO-2 and -3 shard the same table further (2 + 16/d, 18/d).
    expected = (135.0, 46.41, 16.88, 2.11)
    for zero, gb in enumerate(expected):
        state = memory.model_state_bytes(7.5e9, "bf16", zero, 64, grad_precision="fp32")
        assert state.total_bytes / 1e9 == pytest.approx(gb, abs=0.01), zero


def test_fits_is_judged_against_the_nvidia_smi_bytes(gpus):
    # H100 SXM5: 81559 MiB = 85,520,809,984 bytes (the figure modal-client #2797 quotes)
    hbm, source = memory.usable_hbm_bytes(gpus["nvidia-h100-sxm5-80gb"])
    assert hbm == 81559 * MIB == 85_520_809_984
    assert "81559 MiB" in source and "nccl" in source
    # 4.6e9 parameters × 16 bytes = 73.6 GB (+ 8 KiB of activations): above 0.9 × 80e9 =
    # 72 GB, below 0.9 × 85.52e9 = 76.97 GB
    job = dict(layers=1, hidden=64, heads=1, seq_len=64, recompute="full")
    assert memory.training_memory(4.6e9, hbm_gb=80, **job).fits is False
    real = memory.training_memory(4.6e9, hbm_gb=80, hbm_usable_bytes=hbm, **job)
    assert real.fits is True and real.usable_bytes == pytest.approx(0.9 * 85_520_809_984)


def test_usable_hbm_falls_back_to_the_marketing_figure():
    item = SimpleNamespace(slug="x-gpu", hbm_gb=80, props={}, sources={}, source_file="f.yaml")
    hbm, source = memory.usable_hbm_bytes(item)
    assert hbm == 80e9 and "marketing" in source
    for props, extra, field in (
        ({"hbm_total_mib": "lots"}, {}, "hbm_total_mib"),
        ({"hbm_total_mib": -1}, {}, "hbm_total_mib"),
        ({}, {"hbm_gb": None}, "hbm_gb"),
    ):
        bad = SimpleNamespace(**{**vars(item), "props": props, **extra})
        with pytest.raises(InputError) as exc:
            memory.usable_hbm_bytes(bad)
        assert exc.value.field == field and "f.yaml: x-gpu" in str(exc.value)


def test_catalog_gpus_cite_their_nvidia_smi_total(gpus):
    with_mib = {slug: g for slug, g in gpus.items() if "hbm_total_mib" in g.props}
    assert len(with_mib) >= 8
    for slug, gpu in with_mib.items():
        mib = gpu.props["hbm_total_mib"]
        assert mib == int(mib), slug  # nvidia-smi reports whole MiB
        assert f"{int(mib)}MiB" in gpu.sources["hbm_total_mib"].replace(" ", ""), slug
        # nvidia-smi's total is a little above the decimal marketing GB (by 0.6-7.4 %)
        assert 1.0 <= mib * MIB / (gpu.hbm_gb * 1e9) <= 1.08, slug


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"vocab": 0}, "vocab"),
        ({"ffn": -1}, "ffn"),
        ({"kv_heads": 5, "heads": 32}, "kv_heads"),
        ({"virtual_stages": 0}, "virtual_stages"),
        ({"virtual_stages": 2}, "virtual_stages"),  # pp 1
        ({"hbm_usable_bytes": 0}, "hbm_usable_bytes"),
        ({"flash_attention": "yes"}, "flash_attention"),
        ({"gated_mlp": "no"}, "gated_mlp"),
        ({"grad_precision": "fp16"}, "grad_precision"),
        ({"cp": 3, "seq_len": 4096}, "cp"),
        ({"layers": 4, "pp": 8}, "pp"),
        ({"layers": 32, "hidden": 4096, "heads": 32, "microbatches": 0}, "microbatches"),
        ({"layers": 32, "hidden": 4096, "vocab": 128256, "pp": 2}, "params"),  # N < V·h
    ],
)
def test_bad_new_memory_input_names_the_field(kwargs, field):
    params = 1e8 if field == "params" else 7e9
    with pytest.raises(InputError) as exc:
        memory.training_memory(params, **kwargs)
    assert exc.value.field == field
