"""Model presets and custom models.

The configurations are copied from ``shared/data/hardware-reference.json``
(``model_configs``), which cites the model cards / papers; each preset keeps that source
string so an export or the explain view can show where a figure comes from.

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
        }


PRESETS: dict[str, ModelConfig] = {
    "llama2-7b": ModelConfig(
        "llama2-7b", 6.74e9, 32, 4096, 32, 32, 128, 11008, 32000, 4096, _LLAMA2
    ),
    "llama2-13b": ModelConfig(
        "llama2-13b", 13.0e9, 40, 5120, 40, 40, 128, 13824, 32000, 4096, _LLAMA2
    ),
    "llama2-70b": ModelConfig(
        "llama2-70b", 68.98e9, 80, 8192, 64, 8, 128, 28672, 32000, 4096, _LLAMA2
    ),
    "llama3-8b": ModelConfig(
        "llama3-8b", 8_030_261_248, 32, 4096, 32, 8, 128, 14336, 128256, 131072, _LLAMA31
    ),
    "llama3-70b": ModelConfig(
        "llama3-70b", 70_553_706_496, 80, 8192, 64, 8, 128, 28672, 128256, 131072, _LLAMA31
    ),
    "llama3-405b": ModelConfig(
        "llama3-405b",
        405e9,
        126,
        16384,
        128,
        8,
        128,
        53248,
        128256,
        131072,
        _LLAMA31 + "; Llama 3 paper Table 3 (126 layers, 16,384 dim, 128 heads, 8 KV heads)",
    ),
    "gpt3-175b": ModelConfig(
        "gpt3-175b",
        174.6e9,
        96,
        12288,
        96,
        96,
        128,
        49152,
        50257,
        2048,
        "Brown et al. 2020 Table 2.1 (96 layers, d_model 12288, 96 heads, d_head 128, ctx 2048) "
        "- via hardware-reference.json",
    ),
}

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
    unknown = set(config) - set(_INT_FIELDS) - {"params", "name", "source"}
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
