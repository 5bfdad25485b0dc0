"""Activation memory of a training step: per layer, per pipeline stage, per schedule.

Split from :mod:`workbench.calc.memory` (which imports these back and documents the
sources in full): Korthikanti et al. 2022 Table 2 per layer, with grouped-query
attention, gated MLPs, sequence parallelism and FlashAttention (Dao et al. 2022); the
1F1B and interleaved schedules' micro-batches in flight (Korthikanti §4.2, Narayanan
et al. 2021 §2.2.2); uneven stages (Dubey et al. 2024 §3.3.2); the embedding and
output layer on the first and last stages (Korthikanti §4.3).
"""

from __future__ import annotations

from workbench.calc.errors import InputError, choice, positive_int

RECOMPUTE_MODES = ("none", "selective", "full")


def activation_bytes_per_layer(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tp: int = 1,
    recompute: str = "none",
    sequence_parallel: bool = False,
    *,
    flash_attention: bool = True,
    kv_heads: int | None = None,
    ffn: int | None = None,
    gated_mlp: bool | None = None,
) -> float:
    """Activation bytes of one transformer layer on one GPU (Korthikanti et al. 2022,
    Table 2, generalised to GQA and the MLP width; module docstring)."""
    s = positive_int("seq_len", seq_len, 10_000_000)
    b = positive_int("micro_batch", micro_batch, 100_000)
    h = positive_int("hidden", hidden, 1_000_000)
    a = positive_int("heads", heads, 100_000)
    t = positive_int("tp", tp, 1024)
    choice("recompute", recompute, RECOMPUTE_MODES)
    sbh = float(s) * b * h
    if recompute == "full":
        return 2.0 * sbh / (t if sequence_parallel else 1)
    kv = a if kv_heads is None else positive_int("kv_heads", kv_heads, 100_000)
    if ffn is None:
        mlp = 16.0  # Korthikanti's 4h GeLU MLP
    else:
        width = positive_int("ffn", ffn, 10_000_000) / h
        mlp = (6.0 if gated_mlp else 4.0) * width
    sharded = 4.0 + 4.0 * kv / a + mlp  # Q + attention output, K + V, the MLP: 24 for MHA/4h
    scores = 0.0 if flash_attention or recompute == "selective" else 5.0 * a * s / h
    if sequence_parallel or t == 1:
        return sbh * (10.0 + sharded + scores) / t
    return sbh * (10.0 + (sharded + scores) / t)


def stage_layer_counts(layers: int, pp: int) -> tuple[int, ...]:
    """Transformer layers on each pipeline stage: ``layers // pp`` each, the remainder to
    the middle stages first, then the last, then the first (module docstring).

    >>> stage_layer_counts(126, 16)[:3], stage_layer_counts(70, 12)[-2:]
    ((7, 8, 8), (6, 5))
    """
    n_layers = positive_int("layers", layers, 100_000)
    p = positive_int("pp", pp, 1024)
    if p > n_layers:
        raise InputError("pp", f"{p} pipeline stages for {n_layers} layers: a stage would be empty")
    base, extra = divmod(n_layers, p)
    counts = [base] * p
    for stage in [*range(1, p - 1), p - 1, 0][:extra]:
        counts[stage] += 1
    return tuple(counts)


def pipeline_chunks(
    counts: tuple[int, ...], virtual_stages: int, cap: int | None, cap_field: str
) -> tuple[int, int | None]:
    """Checked virtual-stage count and in-flight cap (named ``cap_field``) for these stages."""
    v = positive_int("virtual_stages", virtual_stages, 1024)
    if v > 1 and len(counts) == 1:
        raise InputError("virtual_stages", f"{v} virtual stages need pipeline parallelism (pp ≥ 2)")
    if v > min(counts):
        raise InputError("virtual_stages", f"{v} virtual stages on a {min(counts)}-layer stage")
    return v, None if cap is None else positive_int(cap_field, cap, 1_000_000)


def edge_bytes(
    seq_len: int, micro_batch: int, hidden: int, tp: int, sp: bool, vocab: int | None
) -> tuple[float, float]:
    """(embedding dropout mask per in-flight micro-batch, output layer) activation bytes;
    zero when the vocabulary is unknown (Korthikanti §4.3, module docstring)."""
    if vocab is None:
        return 0.0, 0.0
    sb, shard = float(seq_len) * micro_batch, tp if sp else 1
    rows = positive_int("vocab", vocab, 10_000_000)
    return sb * hidden / shard, 4.0 * sb * hidden / shard + 4.0 * sb * rows / tp


def stage_activations(
    stage: int,
    counts: tuple[int, ...],
    per_layer: float,
    virtual: int,
    cap: int | None,
    edges: tuple[float, float],
) -> float:
    """Stage ``stage``'s in-flight activations: 1F1B keeps ``pp − stage`` micro-batches;
    interleaved ``2·(pp−stage−1) + (v−1)·pp + 1`` chunks of L_stage/v layers."""
    pp = len(counts)
    micro = 1 if pp == 1 else pp - stage if cap is None else min(pp - stage, cap)
    chunks = float(micro)
    if virtual > 1:
        warm = 2 * (pp - stage - 1) + (virtual - 1) * pp + 1
        chunks = (warm if cap is None else min(warm, cap * virtual)) / virtual
    total = per_layer * counts[stage] * chunks
    if stage == 0:
        total += edges[0] * micro
    if stage == pp - 1:
        total += edges[1]  # one micro-batch: the last stage runs backward at once
    return total


def activation_bytes(
    layers: int,
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tp: int = 1,
    pp: int = 1,
    recompute: str = "none",
    sequence_parallel: bool = False,
    in_flight_microbatches: int | None = None,
    *,
    flash_attention: bool = True,
    virtual_stages: int = 1,
    kv_heads: int | None = None,
    ffn: int | None = None,
    gated_mlp: bool | None = None,
    vocab: int | None = None,
) -> float:
    """Activation bytes on the busiest pipeline stage (the most of any stage).

    1F1B: stage i holds ``pp − i`` micro-batches of its layers, the first stage L
    layers' worth whatever pp is (Korthikanti §4.2); ``in_flight_microbatches`` caps that
    (1: one micro-batch per stage; or a step's micro-batch count when it is below pp).
    """
    counts = stage_layer_counts(layers, pp)
    per_layer = activation_bytes_per_layer(
        seq_len,
        micro_batch,
        hidden,
        heads,
        tp,
        recompute,
        sequence_parallel,
        flash_attention=flash_attention,
        kv_heads=kv_heads,
        ffn=ffn,
        gated_mlp=gated_mlp,
    )
    virtual, cap = pipeline_chunks(
        counts, virtual_stages, in_flight_microbatches, "in_flight_microbatches"
    )
    edges = edge_bytes(seq_len, micro_batch, hidden, tp, sequence_parallel, vocab)
    return max(
        stage_activations(i, counts, per_layer, virtual, cap, edges) for i in range(len(counts))
    )


def activation_notes(
    known: bool, flash: bool, recompute: str, pp: int, virtual: int, vocab: int | None
) -> list[str]:
    if not known:
        return ["activations unknown: the model is given without layers, hidden and heads"]
    notes = [
        "FlashAttention: no 5·a·s/h score term (Dao et al. 2022)"
        if flash
        else f"attention scores stored (5·a·s/h, Korthikanti Table 2), recompute {recompute}"
    ]
    if pp > 1:
        notes.append(
            f"1F1B: stage i keeps pp − i = up to {pp} micro-batches in flight"
            if virtual == 1
            else f"interleaved, v = {virtual}: first stage L·(1 + (pp−1)/(pp·v)) layers' worth"
        )
    if vocab is None:
        notes.append("embedding and output-layer activations left out (vocabulary unknown)")
    return notes
