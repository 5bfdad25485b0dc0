"""Model presets carry their full architecture with a source (issue 12), and the gated-MLP
field other calculators build on."""

from __future__ import annotations

import pytest

from workbench.calc.errors import InputError
from workbench.calc.presets import (
    PRESET_TITLES,
    PRESETS,
    ModelConfig,
    get_preset,
    layer_params,
    model_from_config,
)

ARCH = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "max_context")


def test_gated_mlp_is_the_last_field_and_round_trips():
    # positional construction written before the field existed still works
    old = ModelConfig("m", 1e9, 2, 64, 2, 2, 32, 256, 100, 128, "src")
    assert old.gated_mlp is None and old.source == "src"
    for name, preset in PRESETS.items():
        again = model_from_config(preset.to_dict(), name=name)
        assert again.gated_mlp is preset.gated_mlp
        assert [getattr(again, f) for f in ARCH] == [getattr(preset, f) for f in ARCH]
    assert model_from_config({"params": 1e9, "gated_mlp": False}).gated_mlp is False
    for bad in ("yes", 1, 0.0):
        with pytest.raises(InputError) as exc:
            model_from_config({"params": 1e9, "gated_mlp": bad})
        assert exc.value.field == "gated_mlp"


def test_every_preset_has_a_full_sourced_architecture():
    for name, m in PRESETS.items():
        assert m.source and m.has_architecture and m.gated_mlp is not None, name
        assert None not in [getattr(m, f) for f in ARCH], name
        assert m.heads % m.kv_heads == 0 and m.heads * m.head_dim == m.hidden, name
        # SwiGLU for the Llama family (Touvron et al. 2023), GeLU elsewhere
        assert m.gated_mlp is name.startswith("llama"), name
    assert set(PRESET_TITLES) <= set(PRESETS)


@pytest.mark.parametrize(
    ("slug", "shape"),
    [
        # Touvron et al. 2023 Table 2: 80 layers, dim 8192, 64 heads; ffn 22016, ctx 2048
        ("llama1-65b", (80, 8192, 64, 64, 22016, 32000, 2048)),
        # BigScience 2022: 70 layers, 14336 hidden, 112 heads, ffn 4h, 250880 rows, ctx 2048
        ("bloom-176b", (70, 14336, 112, 112, 57344, 250880, 2048)),
        ("gpt3-175b", (96, 12288, 96, 96, 49152, 50257, 2048)),  # Brown et al. 2020 Table 2.1
        # Narayanan et al. 2021 Table 1 rows (heads, hidden, layers), vocab 51200, seq 2048
        ("megatron-1.7b", (24, 2304, 24, 24, 9216, 51200, 2048)),
        ("megatron-39b", (48, 8192, 64, 64, 32768, 51200, 2048)),
        ("megatron-530b", (105, 20480, 128, 128, 81920, 51200, 2048)),
        ("megatron-1t", (128, 25600, 160, 160, 102400, 51200, 2048)),
    ],
)
def test_published_shapes(slug, shape):
    m = get_preset(slug)
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.ffn, m.vocab, m.max_context) == shape


def test_megatron_sizes_match_the_paper_formula():
    # Narayanan et al. 2021 §5.1: P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)); Table 1
    # prints it to one decimal (1.7, 3.6, 7.5, 18.4, 39.1, 76.1, 145.6, 310.1, 529.6, 1008.0).
    megatron = [m for name, m in PRESETS.items() if name.startswith("megatron-")]
    assert len(megatron) == 11  # the ten Table 1 sizes and the Table 2 175B
    for m in megatron:
        h, n_layers = m.hidden, m.layers
        formula = 12 * n_layers * h**2 * (1 + 13 / (12 * h) + (51200 + 2048) / (12 * n_layers * h))
        assert abs(formula - m.params) <= 0.05e9, m.name


def test_architecture_counts_agree_with_the_stated_size():
    # layer_params × layers + the embedding (and an untied output layer for Llama) lands
    # within 0.25 % of N from 10B up (1.7B-7.5B also count Megatron's position embedding
    # and the table's rounding: within 3.5 %).
    for name, m in PRESETS.items():
        per_layer = layer_params(m.hidden, m.heads, m.kv_heads, m.ffn, m.gated_mlp, m.head_dim)
        embeddings = m.vocab * m.hidden * (2 if m.gated_mlp else 1)
        error = abs(m.layers * per_layer + embeddings - m.params) / m.params
        assert error < (0.0025 if m.params >= 10e9 else 0.035), (name, error)
    # GPT-3 175B by hand: 96 × 12·12288² = 173.95e9, + 50257 × 12288 = 174.57e9
    assert layer_params(12288, 96, 96, 49152, False) == 12 * 12288**2 + 2 * 12288
