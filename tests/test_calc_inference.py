"""Inference: KV cache (GQA-aware), concurrency, decode bound, MIG; presets."""

from __future__ import annotations

import pytest

from workbench.calc import inference
from workbench.calc.errors import InputError
from workbench.calc.presets import PRESETS, custom_model, get_preset, model_from_config


def test_llama2_7b_kv_cache_is_2_gib_at_4096_tokens():
    # NVIDIA blog "Mastering LLM Techniques: Inference Optimization" (hardware-reference
    # memory_rules.kv_source): Llama 2 7B, batch 1, 4,096 tokens, 16-bit ≈ 2 GB.
    m = get_preset("llama2-7b")
    per_token = inference.kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim, "bf16")
    assert per_token == 2 * 32 * 32 * 128 * 2 == 524_288
    total = inference.kv_cache_bytes(per_token, 4096)
    assert total == 2_147_483_648
    assert inference.gib(total) == 2.0


def test_gqa_uses_kv_heads():
    # Llama 2 70B: 64 query heads but 8 KV heads → 2·80·8·128·2 = 327,680 bytes/token,
    # 8× less than multi-head attention would need.
    m = get_preset("llama2-70b")
    per_token = inference.kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim)
    assert per_token == 327_680
    assert inference.kv_bytes_per_token(m.layers, m.heads, m.head_dim) == 8 * per_token
    assert inference.kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim, "fp8") == per_token / 2


def test_max_concurrency_and_decode_bound():
    # Llama 2 7B bf16 (13.48 GB weights) on one 80 GB GPU, 10 % headroom, 4,096 tokens:
    # (72e9 − 13.48e9) / 2 GiB = 27.25 → 27 sequences.
    m = get_preset("llama2-7b")
    weights = inference.weights_bytes(m.params, "bf16")
    assert weights == pytest.approx(13.48e9)
    n = inference.max_concurrent_sequences(80, weights, 524_288, 4096)
    assert n == 27
    # TP=2 doubles the HBM: (144e9 − 13.48e9) / 2^31 = 60.8 → 60
    assert inference.max_concurrent_sequences(80, weights, 524_288, 4096, tp=2) == 60
    # weights larger than HBM → 0, not a negative number
    assert inference.max_concurrent_sequences(80, 140e9, 524_288, 4096) == 0
    # H100 3.35 TB/s, batch 1: 3.35e12 / (13.48e9 + 2^31) = 212.7 tokens/s upper bound
    bound = inference.decode_bound(3.35, weights, 2**31, batch=1)
    assert bound.tokens_per_s == pytest.approx(3.35e12 / (13.48e9 + 2**31))
    assert bound.seconds_per_token == pytest.approx(1 / bound.tokens_per_s)
    batched = inference.decode_bound(3.35, weights, 2**31, batch=8)
    assert batched.tokens_per_s > bound.tokens_per_s > batched.tokens_per_s_per_sequence


def test_mig_profiles_match_the_user_guide_table():
    # NVIDIA MIG User Guide, A100/H100 80 GB: 1g.10gb ×7, 2g.20gb ×3, 3g.40gb ×2,
    # 4g.40gb ×1, 7g.80gb ×1, 1g.20gb ×4; H200 141 GB: 1g.18gb ×7.
    expected = {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}
    for profile, count in expected.items():
        assert inference.mig_fit(80, profile).instances == count, profile
    assert inference.mig_fit(141, "1g.18gb").instances == 7
    assert inference.mig_fit(40, "1g.5gb").instances == 7
    # Llama 2 7B in fp8 (6.74 GB) fits a 10 GB slice with 10 % headroom; bf16 (13.5 GB) does not
    assert inference.mig_fit(80, "1g.10gb", model_bytes=6.74e9).model_fits is True
    assert inference.mig_fit(80, "1g.10gb", model_bytes=13.48e9).model_fits is False
    with pytest.raises(InputError) as exc:
        inference.mig_fit(80, "10gb")
    assert exc.value.field == "mig_profile"


def test_presets_are_named_and_sourced():
    # the original seven; issue 12's additions are checked in tests/test_presets.py
    assert set(PRESETS) >= {
        "llama2-7b",
        "llama2-13b",
        "llama2-70b",
        "llama3-8b",
        "llama3-70b",
        "llama3-405b",
        "gpt3-175b",
    }
    for name, m in PRESETS.items():
        assert m.name == name and m.source and m.has_architecture
        assert m.heads * m.head_dim == m.hidden  # holds for every preset
    # hardware-reference.json: Llama 3.1 405B 126 layers, 16,384 dim, 8 KV heads
    m = get_preset("llama3-405b")
    assert (m.layers, m.hidden, m.kv_heads, m.ffn) == (126, 16384, 8, 53248)
    assert get_preset("gpt3-175b").params == 174.6e9
    with pytest.raises(InputError) as exc:
        get_preset("llama9")
    assert exc.value.field == "model" and "llama2-7b" in str(exc.value)


def test_custom_models():
    n_only = custom_model(13e9)
    assert not n_only.has_architecture
    with pytest.raises(InputError) as exc:
        n_only.require_architecture("the KV cache")
    assert exc.value.field == "model"
    cfg = model_from_config({"params": 1.3e9, "layers": 24, "hidden": 2048, "heads": 16})
    assert cfg.head_dim == 128 and cfg.kv_heads == 16
    for bad, field in [
        ({"params": 1e9, "layers": 0}, "layers"),
        ({"params": 1e9, "heads": 32, "kv_heads": 5}, "kv_heads"),
        ({"layers": 4}, "params"),
        ({"params": 1e9, "hidden": 100, "heads": 3}, "heads"),
        ({"params": 1e9, "depth": 3}, "model_config"),
    ]:
        with pytest.raises(InputError) as exc:
            model_from_config(bad)
        assert exc.value.field == field


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: inference.kv_bytes_per_token(32, 0, 128), "kv_heads"),
        (lambda: inference.kv_bytes_per_token(32, 8, 128, "fp7"), "kv_precision"),
        (lambda: inference.kv_cache_bytes(524288, -4096), "context"),
        (lambda: inference.kv_cache_bytes(524288, 4096, 0), "concurrency"),
        (lambda: inference.decode_bound(0, 13e9), "hbm_bw_tbs"),
        (lambda: inference.max_concurrent_sequences(float("nan"), 13e9, 524288, 4096), "hbm_gb"),
    ],
)
def test_bad_inference_input_names_the_field(call, field):
    with pytest.raises(InputError) as exc:
        call()
    assert exc.value.field == field
