"""FLOPs per token of a dense decoder-only transformer, counted the way papers count them.

Why not ``6·N``: the published utilisation figures count the attention matmuls and the
output layer too, and at long sequences that is several percent (a 405B model at 8K
tokens: +8 %).  A planner who compares a predicted MFU with a paper's needs the same
accounting.  Sources:

* Narayanan et al. 2021 (SC21, "Efficient Large-Scale Language Model Training on GPU
  Clusters Using Megatron-LM"), appendix: per iteration with full recomputation
  ``F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h))``.  Per token and layer that is four
  passes (forward, recomputed forward, two for backward) of ``24h² + 4sh`` plus the
  logits ``6hV`` (not recomputed).  Without recomputation it is three passes:
  ``72h² + 12sh`` per layer (Korthikanti et al. 2022 §6 use the same form for MFU).
* Chowdhery et al. 2022 (PaLM) Appendix B: model FLOPs per token ``6N + 12·L·H·Q·T``
  (H heads, Q head size, T sequence length): the attention term is counted over the full
  ``s × s`` score matrix, not halved for the causal mask.  We follow that convention.
* Generalised to today's architectures (per token, forward, one layer; h hidden,
  a heads, k KV heads, d head size, f FFN width):

  ===================  ==============================================
  Q and output proj    ``2·h·a·d + 2·a·d·h``
  K and V proj (GQA)   ``2 · 2·h·k·d``
  attention core       ``2·s·a·d`` (QKᵀ) + ``2·s·a·d`` (scores × V)
  MLP                  ``2·h·f`` per matrix: 3 matrices gated (SwiGLU), 2 plain
  logits (once)        ``2·h·V``
  ===================  ==============================================

  Backward is twice the forward, so model FLOPs = 3 × forward.

Hardware FLOPs (what the GPU executes, for HFU) add the recomputation:

* ``full``: one more forward of every layer (not the logits), Narayanan et al. 2021.
* ``selective``: one more forward of the attention core only (QKᵀ, softmax, × V),
  Korthikanti et al. 2022 §5 - ``4·s·a·d`` per layer.  (That paper's HFU counts
  ``12·s·a·d`` for it; we count the matmuls actually re-run.)
* FlashAttention (Dao 2022) recomputes ``QKᵀ`` inside its backward kernel: ``2·s·a·d``
  per layer.  Our choice: that is hardware work, so it counts toward HFU, never MFU.

MFU follows PaLM: model FLOPs only, recomputation excluded.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.calc.errors import InputError, choice, positive_int
from workbench.calc.explain import Explained, num
from workbench.calc.presets import ModelConfig

RECOMPUTE_MODES = ("none", "selective", "full")
_NARAYANAN = "Narayanan et al. 2021 (SC21) appendix, FLOP count 96·B·s·l·h²(1 + s/6h + V/16lh)"
_PALM = "Chowdhery et al. 2022 (PaLM) Appendix B: 6N + 12·L·H·Q·T per token"


@dataclass(frozen=True)
class Shape:
    """The architecture figures the FLOP count needs, all known."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    gated_mlp: bool

    @property
    def attn_width(self) -> int:
        """``a·d``: the width of Q and of the attention output (may differ from hidden)."""
        return self.heads * self.head_dim

    def matmul_params_per_layer(self) -> float:
        """Weights of one layer's matmuls: Q, K, V, O projections and the MLP."""
        h, ad, kd = self.hidden, self.attn_width, self.kv_heads * self.head_dim
        mlp = (3 if self.gated_mlp else 2) * h * self.ffn
        return float(2 * h * ad + 2 * h * kd + mlp)


def shape_of(model: ModelConfig, purpose: str = "the FLOP count") -> Shape:
    """The model's :class:`Shape`; defaults stated: FFN ``4h`` (GPT), vocabulary required.

    ``gated_mlp`` ``None`` (not stated) is decided by the parameter count: whichever
    MLP form puts the architecture's N closer to the model's stated N.
    """
    arch = model.require_architecture(purpose)
    if model.vocab is None:
        raise InputError("vocab", f"{purpose} needs the vocabulary size of {model.name!r}")
    ffn = model.ffn if model.ffn is not None else 4 * arch.hidden
    gated = getattr(model, "gated_mlp", None)
    base = dict(
        layers=arch.layers,
        hidden=arch.hidden,
        heads=arch.heads,
        kv_heads=arch.kv_heads,
        head_dim=arch.head_dim,
        ffn=ffn,
        vocab=model.vocab,
    )
    if gated is None:
        plain, swiglu = Shape(**base, gated_mlp=False), Shape(**base, gated_mlp=True)
        n_plain = parameter_count(plain, tied_embeddings=False)
        n_gated = parameter_count(swiglu, tied_embeddings=False)
        gated = abs(n_gated - model.params) < abs(n_plain - model.params)
    return Shape(**base, gated_mlp=bool(gated))


def parameter_count(shape: Shape, tied_embeddings: bool = False) -> float:
    """N from the architecture: layers' matmuls and norms, embedding, output layer.

    Biases and learned position embeddings are left out (under 0.1 % at these sizes).
    """
    per_layer = shape.matmul_params_per_layer() + 2 * shape.hidden  # two norms
    embedding = float(shape.vocab) * shape.hidden
    output = 0.0 if tied_embeddings else embedding
    return shape.layers * per_layer + embedding + output + shape.hidden  # final norm


@dataclass(frozen=True)
class FlopsPerToken:
    """FLOPs per token, forward only, split the way recomputation needs."""

    dense: float  # all layers' projections and MLP, forward
    attention: float  # all layers' attention core (QKᵀ and × V), forward
    logits: float  # output layer, forward

    @property
    def forward(self) -> float:
        return self.dense + self.attention + self.logits


def forward_flops_per_token(shape: Shape, seq_len: int) -> FlopsPerToken:
    """Forward FLOPs per token at sequence length ``seq_len`` (table in the module doc)."""
    s = positive_int("seq_len", seq_len, 10_000_000)
    return FlopsPerToken(
        dense=shape.layers * 2.0 * shape.matmul_params_per_layer(),
        attention=shape.layers * 4.0 * s * shape.attn_width,
        logits=2.0 * shape.hidden * shape.vocab,
    )


def model_flops_per_token(shape: Shape, seq_len: int) -> float:
    """Model FLOPs per token (forward + backward = 3 × forward), PaLM's MFU numerator."""
    return 3.0 * forward_flops_per_token(shape, seq_len).forward


def recompute_flops_per_token(
    shape: Shape, seq_len: int, recompute: str = "none", flash_attention: bool = True
) -> float:
    """Extra FLOPs per token the GPU runs beyond the model FLOPs (module doc)."""
    choice("recompute", recompute, RECOMPUTE_MODES)
    fwd = forward_flops_per_token(shape, seq_len)
    extra = 0.0
    if recompute == "full":
        extra += fwd.dense + fwd.attention
    elif recompute == "selective":
        extra += fwd.attention
    if flash_attention:
        extra += fwd.attention / 2.0  # QKᵀ again inside the backward kernel
    return extra


def hardware_flops_per_token(
    shape: Shape, seq_len: int, recompute: str = "none", flash_attention: bool = True
) -> float:
    """Model FLOPs plus recomputation: the HFU numerator."""
    return model_flops_per_token(shape, seq_len) + recompute_flops_per_token(
        shape, seq_len, recompute, flash_attention
    )


def explain_model_flops(shape: Shape, seq_len: int) -> Explained:
    """The model-FLOPs figure with its numbers, for the explain view."""
    f = forward_flops_per_token(shape, seq_len)
    mlp = "3" if shape.gated_mlp else "2"
    return Explained(
        3.0 * f.forward,
        "FLOP/token",
        "3·(L·2·(2h·a·d + 2h·k·d + m·h·f) + L·4·s·a·d + 2·h·V), m = 3 gated MLP / 2 plain",
        f"3·({shape.layers}·2·(2·{shape.hidden}·{shape.attn_width} + 2·{shape.hidden}·"
        f"{shape.kv_heads * shape.head_dim} + {mlp}·{shape.hidden}·{shape.ffn}) + "
        f"{shape.layers}·4·{seq_len}·{shape.attn_width} + 2·{shape.hidden}·{shape.vocab})",
        f"{_NARAYANAN}; {_PALM}; generalised to GQA and gated MLPs",
    )


def explain_hardware_flops(
    shape: Shape, seq_len: int, recompute: str, flash_attention: bool
) -> Explained:
    """Hardware FLOPs = model FLOPs + recomputation, with the numbers."""
    model = model_flops_per_token(shape, seq_len)
    extra = recompute_flops_per_token(shape, seq_len, recompute, flash_attention)
    parts = {"full": "one forward of every layer", "selective": "attention core forward"}
    what = parts.get(recompute, "no recompute")
    flash = "; + QKᵀ in FlashAttention's backward" if flash_attention else ""
    return Explained(
        model + extra,
        "FLOP/token",
        f"model FLOPs + recompute ({what}{flash})",
        f"{num(model)} + {num(extra)}",
        "Narayanan et al. 2021 (full: 4 passes instead of 3); Korthikanti et al. 2022 §5 "
        "(selective); Dao 2022 FlashAttention backward recomputes QKᵀ (counted in HFU only)",
    )


#: Bytes of HBM traffic per byte of activations a layer produces: written and read in
#: the forward pass, read again and its gradient written and read in the backward pass.
#: A count of passes (not fitted); full recompute runs the forward twice (+2).
TRAFFIC_PASSES = {"none": 4.0, "selective": 4.0, "full": 6.0}
#: Adam update, bytes per parameter: read fp32 weight, gradient, momentum, variance
#: (4 + 2 + 4 + 4) and write fp32 weight, momentum, variance and the 16-bit copy
#: (4 + 4 + 4 + 2) - ZeRO §3.1's 2 + 2 + 12 state, each byte touched once or twice.
OPTIMIZER_BYTES_PER_PARAM = 28.0


def activation_bytes_per_layer(
    shape: Shape,
    seq_len: int,
    micro_batch: int,
    tp: int,
    sequence_parallel: bool,
    flash_attention: bool,
) -> float:
    """Activation bytes one layer writes on one GPU in the forward pass.

    Korthikanti et al. 2022 Table 2, ``s·b·h·(10 + 24/t + 5·a·s/(h·t))`` (16-bit),
    generalised: the 24 is Q 2 + K, V ``4·k·d/h`` + attention output 2 + MLP ``4·f/h``
    (plain) or ``6·f/h`` (gated: gate, up and their product); sequence parallelism
    splits the 10 too; FlashAttention never writes the ``5·a·s/h`` score tensors.
    """
    sbh = float(seq_len) * micro_batch * shape.hidden
    f_h = shape.ffn / shape.hidden
    split = 2 + 4 * shape.kv_heads * shape.head_dim / shape.hidden + 2
    split += (6 if shape.gated_mlp else 4) * f_h
    replicated = 10.0 / tp if sequence_parallel else 10.0
    scores = 0.0 if flash_attention else 5.0 * shape.heads * seq_len / shape.hidden
    return sbh * (replicated + (split + scores) / tp)


def memory_traffic_bytes_per_layer(
    shape: Shape,
    seq_len: int,
    micro_batch: int,
    tp: int,
    recompute: str,
    sequence_parallel: bool,
    flash_attention: bool,
) -> float:
    """HBM bytes of the memory-bound (element-wise, softmax, norm) work of one layer and
    micro-batch on one GPU: activation bytes × :data:`TRAFFIC_PASSES`; selective
    recompute re-runs the score tensors' forward (+2 × their bytes)."""
    acts = activation_bytes_per_layer(
        shape, seq_len, micro_batch, tp, sequence_parallel, flash_attention
    )
    traffic = acts * TRAFFIC_PASSES[recompute]
    if recompute == "selective" and not flash_attention:
        scores = float(seq_len) * micro_batch * 5.0 * shape.heads * seq_len / tp
        traffic += 2.0 * scores
    return traffic
