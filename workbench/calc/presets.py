"""Model presets and custom models.

Every preset carries its full architecture (layers, hidden, heads, KV heads, head size,
FFN width, vocabulary, context, gated MLP or not).  Where ``shared/data/
hardware-reference.json`` (``model_configs``) has the model, its figures and source text
are used; the others cite their paper (LLaMA-1 65B, the Megatron-LM 2021 sizes).  Each
preset keeps its source string so an export or the explain view can show where a figure
comes from.

A custom model is either ``N`` alone (then only what ``N`` determines can be computed:
FLOPs, training time, model-state memory, checkpoint size; activations and KV cache
need the architecture and are refused with an :class:`InputError`) or a full
configuration mapping, validated field by field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from workbench.calc.errors import MAX_PARAMS, InputError, positive, positive_int

_LLAMA2 = (
    "HF config.json meta-llama/Llama-2-*-hf (huggingface.co/meta-llama/Llama-2-7b/blob/main/"
    "config.json) as copied in public repos; Llama 2 model card (GQA only for 70B; 4k context) "
    "- via hardware-reference.json"
)
_LLAMA31 = (
    "github.com/meta-llama/llama-models models/llama3_1/api/sku_list.py model_args; HF configs "
    "agree - via hardware-reference.json. max_context is Llama 3.1's 131072 (Llama 3: 8192)"
)


@dataclass(frozen=True)
class Architecture:
    """What activations and the KV cache need, all known (``require_architecture``)."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int


@dataclass(frozen=True)
class ModelConfig:
    """A dense decoder-only transformer.  ``None`` marks a figure that is not known."""

    name: str
    params: float
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    ffn: int | None = None
    vocab: int | None = None
    max_context: int | None = None
    source: str = ""
    gated_mlp: bool | None = None

    @property
    def has_architecture(self) -> bool:
        """True when layers, hidden size and heads are known (activations, KV cache)."""
        return None not in (self.layers, self.hidden, self.heads, self.kv_heads, self.head_dim)

    def require_architecture(self, purpose: str) -> Architecture:
        """The known architecture; InputError naming the model when ``purpose`` needs it
        and the config does not give it."""
        layers, hidden, heads = self.layers, self.hidden, self.heads
        kv_heads, head_dim = self.kv_heads, self.head_dim
        if (
            layers is None
            or hidden is None
            or heads is None
            or kv_heads is None
            or head_dim is None
        ):
            raise InputError(
                "model",
                f"{purpose} needs layers, hidden, heads, kv_heads and head_dim; "
                f"{self.name!r} only gives the parameter count",
            )
        return Architecture(layers, hidden, heads, kv_heads, head_dim)

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping (the Workload.model_config form)."""
        return {
            "params": self.params,
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "head_dim": self.head_dim,
            "ffn": self.ffn,
            "vocab": self.vocab,
            "max_context": self.max_context,
            "gated_mlp": self.gated_mlp,
        }


def _dense(
    name: str,
    params: float,
    shape: tuple[int, int, int, int, int, int, int],
    source: str,
    *,
    gated: bool,
) -> ModelConfig:
    """A preset from ``(layers, hidden, heads, kv_heads, ffn, vocab, max_context)``;
    ``head_dim`` is ``hidden / heads`` for every preset here."""
    layers, hidden, heads, kv_heads, ffn, vocab, context = shape
    return ModelConfig(
        name,
        params,
        layers,
        hidden,
        heads,
        kv_heads,
        hidden // heads,
        ffn,
        vocab,
        context,
        source,
        gated_mlp=gated,
    )


_GPT3 = (
    "Brown et al. 2020 Table 2.1 (96 layers, d_model 12288, 96 heads, d_head 128, ctx 2048; "
    "ffn 4·d_model, GeLU, not gated) - via hardware-reference.json"
)
_LLAMA1 = (
    "Touvron et al. 2023, LLaMA, Table 2 (65.2B: dim 8192, 64 heads, 80 layers; ctx 2048; "
    "SwiGLU) and §2.2; ffn 22016 and vocab 32000 as in the released checkpoint's config"
)
_BLOOM = (
    "BLOOM paper via reading card (70 layers, hidden 14,336, 112 heads, vocab 250,680, seq 2048) "
    "- via hardware-reference.json; BigScience 2022 (arXiv 2211.05100): ffn 4h GeLU, not gated, "
    "176,247M parameters; the embedding matrix is padded to 250,880 rows (bigscience/bloom "
    "config.json vocab_size), the figure used here"
)
_MEGATRON = (
    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters "
    "Using Megatron-LM, Table 1 (heads, hidden, layers; vocab 51,200, seq 2048, ffn 4h, "
    "GPT-style, not gated)"
)
_MEGATRON_175B = (
    "Narayanan et al. 2021 Table 2 (the GPT-3 175B shape: 96 heads, hidden 12288, 96 layers) "
    "with Megatron-LM's vocabulary 51,200 and seq 2048"
)

#: Narayanan et al. 2021 Table 1: (slug, billions of parameters as printed, heads, hidden,
#: layers).  Slugs round to the nearest billion from 10B up ("530b", "1t" as the paper says).
_MEGATRON_TABLE: tuple[tuple[str, float, int, int, int], ...] = (
    ("megatron-1.7b", 1.7, 24, 2304, 24),
    ("megatron-3.6b", 3.6, 32, 3072, 30),
    ("megatron-7.5b", 7.5, 32, 4096, 36),
    ("megatron-18b", 18.4, 48, 6144, 40),
    ("megatron-39b", 39.1, 64, 8192, 48),
    ("megatron-76b", 76.1, 80, 10240, 60),
    ("megatron-146b", 145.6, 96, 12288, 80),
    ("megatron-310b", 310.1, 128, 16384, 96),
    ("megatron-530b", 529.6, 128, 20480, 105),
    ("megatron-1t", 1008.0, 160, 25600, 128),
)

PRESETS: dict[str, ModelConfig] = {
    "llama1-65b": _dense(
        "llama1-65b", 65.2e9, (80, 8192, 64, 64, 22016, 32000, 2048), _LLAMA1, gated=True
    ),
    "llama2-7b": _dense(
        "llama2-7b", 6.74e9, (32, 4096, 32, 32, 11008, 32000, 4096), _LLAMA2, gated=True
    ),
    "llama2-13b": _dense(
        "llama2-13b", 13.0e9, (40, 5120, 40, 40, 13824, 32000, 4096), _LLAMA2, gated=True
    ),
    "llama2-70b": _dense(
        "llama2-70b", 68.98e9, (80, 8192, 64, 8, 28672, 32000, 4096), _LLAMA2, gated=True
    ),
    "llama3-8b": _dense(
        "llama3-8b", 8_030_261_248, (32, 4096, 32, 8, 14336, 128256, 131072), _LLAMA31, gated=True
    ),
    "llama3-70b": _dense(
        "llama3-70b",
        70_553_706_496,
        (80, 8192, 64, 8, 28672, 128256, 131072),
        _LLAMA31,
        gated=True,
    ),
    "llama3-405b": _dense(
        "llama3-405b",
        405e9,
        (126, 16384, 128, 8, 53248, 128256, 131072),
        _LLAMA31 + "; Llama 3 paper Table 3 (126 layers, 16,384 dim, 128 heads, 8 KV heads)",
        gated=True,
    ),
    "gpt3-175b": _dense(
        "gpt3-175b", 174.6e9, (96, 12288, 96, 96, 49152, 50257, 2048), _GPT3, gated=False
    ),
    "bloom-176b": _dense(
        "bloom-176b", 176_247e6, (70, 14336, 112, 112, 57344, 250880, 2048), _BLOOM, gated=False
    ),
    "megatron-175b": _dense(
        "megatron-175b",
        174.6e9,
        (96, 12288, 96, 96, 49152, 51200, 2048),
        _MEGATRON_175B,
        gated=False,
    ),
}
for _slug, _billions, _heads, _hidden, _layers in _MEGATRON_TABLE:
    PRESETS[_slug] = _dense(
        _slug,
        _billions * 1e9,
        (_layers, _hidden, _heads, _heads, 4 * _hidden, 51200, 2048),
        _MEGATRON,
        gated=False,
    )

#: Display names for the presets whose slug does not spell them (``preset_title`` in the
#: window handles ``llama3-70b`` style names itself).
PRESET_TITLES: dict[str, str] = {
    "llama1-65b": "LLaMA 65B",
    "bloom-176b": "BLOOM 176B",
    "megatron-175b": "Megatron-LM 175B",
    **{slug: f"Megatron-LM {billions:g}B" for slug, billions, *_ in _MEGATRON_TABLE},
}


def layer_params(
    hidden: int, heads: int, kv_heads: int, ffn: int, gated_mlp: bool, head_dim: int | None = None
) -> int:
    """Weights of one decoder layer, from its shape.

    Attention: Q and the output projection are ``hidden × heads·head_dim`` each, K and V
    ``hidden × kv_heads·head_dim`` each (grouped-query attention, Ainslie et al. 2023).
    MLP: two ``hidden × ffn`` matrices, three when gated (SwiGLU: gate, up, down;
    Shazeer 2020).  Plus two norm weight vectors.  Biases (GPT-3, BLOOM: about 13·hidden)
    are left out: under 0.01 % of a layer.  GPT-3 175B: 12·h² per layer → 96 layers give
    173.9B, plus the 0.62B embedding = Brown et al.'s 174.6B.
    """
    d = head_dim if head_dim is not None else hidden // heads
    attention = hidden * d * (2 * heads + 2 * kv_heads)
    mlp = (3 if gated_mlp else 2) * hidden * ffn
    return attention + mlp + 2 * hidden


_INT_FIELDS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "max_context")


def get_preset(name: str) -> ModelConfig:
    """The preset called ``name``; InputError("model") lists the known names otherwise."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise InputError("model", f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None


def custom_model(params: float, name: str = "custom") -> ModelConfig:
    """A model known only by its parameter count N (no architecture is invented)."""
    return ModelConfig(name=name, params=positive("params", params, MAX_PARAMS))


def model_from_config(config: Mapping[str, Any], name: str = "custom") -> ModelConfig:
    """Validate a full config mapping (keys as :meth:`ModelConfig.to_dict`).

    ``params`` is required; architecture fields are optional but, when given, must be
    whole numbers ≥ 1 and consistent: ``kv_heads`` divides ``heads`` (GQA groups) and
    ``head_dim`` defaults to ``hidden / heads`` when both are given.
    """
    if not isinstance(config, Mapping):
        raise InputError("model_config", "must be a mapping of field names to numbers")
    unknown = set(config) - set(_INT_FIELDS) - {"params", "name", "source", "gated_mlp"}
    if unknown:
        raise InputError("model_config", f"unknown field(s): {', '.join(sorted(unknown))}")
    params = positive("params", config.get("params"), MAX_PARAMS)
    values: dict[str, int | None] = {}
    for key in _INT_FIELDS:
        raw = config.get(key)
        values[key] = None if raw is None else positive_int(key, raw, 10_000_000)
    if values["head_dim"] is None and values["hidden"] and values["heads"]:
        if values["hidden"] % values["heads"]:
            raise InputError(
                "heads", f"{values['heads']} heads do not divide hidden {values['hidden']}"
            )
        values["head_dim"] = values["hidden"] // values["heads"]
    gated = config.get("gated_mlp")
    if gated is not None and not isinstance(gated, bool):
        raise InputError("gated_mlp", f"must be true or false, not {gated!r}")
    if values["kv_heads"] is None and values["heads"] is not None:
        values["kv_heads"] = values["heads"]  # multi-head attention unless stated (no GQA)
    if values["heads"] and values["kv_heads"] and values["heads"] % values["kv_heads"]:
        raise InputError("kv_heads", f"{values['kv_heads']} must divide heads {values['heads']}")
    model = ModelConfig(
        name=str(config.get("name", name)),
        params=params,
        layers=values["layers"],
        hidden=values["hidden"],
        heads=values["heads"],
        kv_heads=values["kv_heads"],
        head_dim=values["head_dim"],
        ffn=values["ffn"],
        vocab=values["vocab"],
        max_context=values["max_context"],
        gated_mlp=gated,
    )
    return replace(model, source=str(config.get("source", "user-supplied configuration")))


def resolve_model(
    model: str | None, params: float | None = None, config: Mapping[str, Any] | None = None
) -> ModelConfig:
    """The Workload's model: a preset name, or ``custom`` with a config or N alone."""
    if model and model != "custom":
        return get_preset(model)
    if config:
        merged = dict(config)
        if params is not None and merged.get("params") is None:
            merged["params"] = params
        return model_from_config(merged)
    if params is None:
        raise InputError("params", "give a parameter count or choose a preset model")
    return custom_model(params)
