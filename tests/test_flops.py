"""FLOPs per token against the published accounting (workbench.calc.flops)."""

from __future__ import annotations

import pytest

from workbench.calc import flops, presets
from workbench.calc.errors import InputError


@pytest.mark.parametrize("name", ["llama3-405b", "llama2-70b", "gpt3-175b"])
def test_parameter_count_from_architecture_matches_preset(name):
    model = presets.get_preset(name)
    shape = flops.shape_of(model)
    n = flops.parameter_count(shape, tied_embeddings=(name == "gpt3-175b"))
    assert n == pytest.approx(model.params, rel=0.01), (name, n, model.params)


def test_gated_mlp_inferred_from_n_when_not_stated():
    # Llama 2 70B without the flag: 3 FFN matrices put N at 68.98e9, 2 would give 50e9.
    model = presets.get_preset("llama2-70b")
    unflagged = presets.ModelConfig(**{**model.__dict__, "gated_mlp": None})
    assert flops.shape_of(unflagged).gated_mlp is True
    gpt = presets.get_preset("gpt3-175b")
    assert (
        flops.shape_of(presets.ModelConfig(**{**gpt.__dict__, "gated_mlp": None})).gated_mlp
        is False
    )


def _gpt(layers, hidden, heads, vocab=51200):
    return flops.Shape(layers, hidden, heads, heads, hidden // heads, 4 * hidden, vocab, False)


def test_megatron_formulas_exactly():
    # Narayanan et al. 2021 appendix: with full recompute F = 96·B·s·l·h²(1 + s/6h + V/16lh);
    # without, 72·B·s·l·h²(1 + s/6h + V/12lh) (logits 6hV both times).  GPT-3 shape.
    n_layers, h, s, v = 96, 12288, 2048, 51200
    shape = _gpt(n_layers, h, 96, v)
    per_seq_hw = flops.hardware_flops_per_token(shape, s, "full", flash_attention=False) * s
    assert per_seq_hw == pytest.approx(
        96 * s * n_layers * h**2 * (1 + s / (6 * h) + v / (16 * n_layers * h))
    )
    per_seq_model = flops.model_flops_per_token(shape, s) * s
    assert per_seq_model == pytest.approx(
        72 * s * n_layers * h**2 * (1 + s / (6 * h) + v / (12 * n_layers * h))
    )


def test_palm_attention_term():
    # PaLM Appendix B: 6N + 12·L·H·Q·T; our non-logit part is 6·(layer matmul params).
    shape = flops.shape_of(presets.get_preset("llama3-405b"))
    s = 8192
    f = flops.forward_flops_per_token(shape, s)
    assert 3 * f.attention == pytest.approx(12 * 126 * 128 * 128 * s)
    assert 3 * f.dense == pytest.approx(6 * 126 * shape.matmul_params_per_layer())
    # At 8K tokens attention adds ~8 % to 6N for the 405B model (issue 12).
    share = 3 * f.attention / flops.model_flops_per_token(shape, s)
    assert 0.07 < share < 0.09


def test_gqa_and_gated_mlp_change_the_count():
    mha = flops.Shape(80, 8192, 64, 64, 128, 28672, 32000, True)
    gqa = flops.Shape(80, 8192, 64, 8, 128, 28672, 32000, True)
    # K and V projections shrink from 2·h·h to 2·h·(8·128) each way: 2·2·h·(h − 1024) FLOPs.
    saved = (
        flops.forward_flops_per_token(mha, 4096).dense
        - flops.forward_flops_per_token(gqa, 4096).dense
    )
    assert saved == pytest.approx(80 * 2 * 2 * 8192 * (8192 - 1024))
    plain = flops.Shape(80, 8192, 64, 8, 128, 28672, 32000, False)
    extra = (
        flops.forward_flops_per_token(gqa, 4096).dense
        - flops.forward_flops_per_token(plain, 4096).dense
    )
    assert extra == pytest.approx(80 * 2 * 8192 * 28672)


def test_recompute_and_flash_count_in_hfu_only():
    shape = _gpt(48, 6144, 64)
    s = 2048
    model = flops.model_flops_per_token(shape, s)
    fwd = flops.forward_flops_per_token(shape, s)
    none = flops.hardware_flops_per_token(shape, s, "none", flash_attention=False)
    selective = flops.hardware_flops_per_token(shape, s, "selective", flash_attention=False)
    full = flops.hardware_flops_per_token(shape, s, "full", flash_attention=False)
    flash = flops.hardware_flops_per_token(shape, s, "none", flash_attention=True)
    assert none == model
    assert selective - model == pytest.approx(fwd.attention)  # 4·s·a·d per layer
    assert full - model == pytest.approx(fwd.dense + fwd.attention)  # logits not recomputed
    assert flash - model == pytest.approx(fwd.attention / 2)  # QKᵀ again in the backward


def test_missing_architecture_is_named():
    with pytest.raises(InputError) as err:
        flops.shape_of(presets.custom_model(7e9))
    assert err.value.field == "model"
    no_vocab = presets.ModelConfig("x", 1e9, 24, 2048, 16, 16, 128, 8192, None)
    with pytest.raises(InputError) as err:
        flops.shape_of(no_vocab)
    assert err.value.field == "vocab"


def test_activation_bytes_match_korthikanti_table_2():
    # Korthikanti et al. 2022 Table 2: TP only s·b·h·(10 + 24/t + 5as/(ht)); with SP /t.
    shape = _gpt(1, 6144, 64)
    s, b, t = 2048, 4, 8
    sbh = s * b * 6144
    tp_only = flops.activation_bytes_per_layer(shape, s, b, t, False, False)
    assert tp_only == pytest.approx(sbh * (10 + 24 / t + 5 * 64 * s / (6144 * t)))
    with_sp = flops.activation_bytes_per_layer(shape, s, b, t, True, False)
    assert with_sp == pytest.approx(sbh * (34 + 5 * 64 * s / 6144) / t)
    assert flops.activation_bytes_per_layer(shape, s, b, t, True, True) == pytest.approx(
        sbh * 34 / t
    )
