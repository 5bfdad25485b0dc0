"""A training job's layout and global batch: the one home of the job-to-layout rules.

Why its own module: the window's estimate, ``workbench estimate`` and the layout search
each turned a job (or the command line's flags) into a :class:`step_time.Layout`, with
different checks; "sequence parallelism only when TP > 1" was written three times.  Every
caller now goes through :func:`job_layout`.

The global batch is the *job's*, not the hall's.  A job that does not state one gets its
model family's published batch in tokens (:func:`published_batch_tokens`), divided by
the sequence length: the same number of sequences whatever the design's size.  At a
given data-parallel degree the step must hold whole micro-batches on every rank, so the
batch is rounded there (:func:`batch_at`) - and a size with more ranks than the batch has
micro-batches runs one per rank, a larger batch than the job's, which the estimate says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.calc import step_time
from workbench.calc.errors import InputError, positive_int
from workbench.calc.presets import ModelConfig

#: Tokens per optimizer step of the 70B-and-up Llama family: 4M (2**22), the batch
#: Llama 2 trained with at every size (Touvron et al. 2023, §2.2) and Llama 3 405B
#: started with (Dubey et al. 2024, §3.4.1); LLaMA-1 65B also 4M (Touvron et al. 2023a
#: Table 2) and BLOOM 2048 × 2048 (Le Scao et al. 2022 §3.5).
DEFAULT_GLOBAL_BATCH_TOKENS = 2**22
#: The gradient precision of a job that does not name one: Megatron's fp32 main gradients
#: (memory.GRADIENT_PRECISIONS), the stack most published runs used.
DEFAULT_GRAD_PRECISION = "fp32"

#: GPT-3's batch by size (Brown et al. 2020, Table 2.1): (fewer parameters than, tokens).
#: From 20B up, 3.2M (GPT-3 175B) for GPT-3 and Megatron shapes.
_GPT3_BATCH: tuple[tuple[float, float], ...] = ((1.0e9, 0.5e6), (2.0e9, 1.0e6), (20e9, 2.0e6))
_GPT3_SOURCE = "GPT-3's batch for its size (Brown et al. 2020, Table 2.1)"
#: Families whose published batch is 4M tokens at every size they trained, by preset prefix.
_FAMILY_4M: dict[str, str] = {
    "llama1": "LLaMA: 4M tokens (Touvron et al. 2023, Table 2)",
    "llama2": "Llama 2: 4M tokens (Touvron et al. 2023, §2.2)",
    "llama3": "Llama 3: 4M tokens at the start (Dubey et al. 2024, §3.4.1)",
    "bloom": "BLOOM: 2,048 × 2,048 tokens (Le Scao et al. 2022, §3.5)",
}


def published_batch_tokens(model: ModelConfig) -> tuple[float, str]:
    """Tokens per step the model's family published, and where that comes from.

    A Llama or BLOOM preset: 4M.  Below 20B parameters, GPT-3's batch for that size;
    from 20B, 3.2M for GPT-3 and Megatron shapes (GPT-3 175B) and 4M for any other
    model (the 70B-class figure of the Llama family)."""
    name = model.name or ""
    for prefix, source in _FAMILY_4M.items():
        if name.startswith(prefix):
            return float(DEFAULT_GLOBAL_BATCH_TOKENS), source
    for below, tokens in _GPT3_BATCH:
        if model.params < below:
            return tokens, f"{_GPT3_SOURCE}: {tokens / 1e6:g}M below {below / 1e9:g}B"
    if name.startswith(("gpt3", "megatron")):
        return 3.2e6, _GPT3_SOURCE + ": 3.2M at 175B"
    return float(DEFAULT_GLOBAL_BATCH_TOKENS), "4M tokens: the 70B-class published batch (Llama)"


def job_batch(model: ModelConfig | None, seq_len: int, global_batch: int | None) -> int:
    """The job's global batch in sequences: its own, or its family's published tokens
    over the sequence length (at least one sequence).  Never depends on the design."""
    if global_batch is not None:
        return positive_int("global_batch", global_batch, 100_000_000)
    seq = positive_int("seq_len", seq_len, 10_000_000)
    tokens = DEFAULT_GLOBAL_BATCH_TOKENS if model is None else published_batch_tokens(model)[0]
    return max(1, round(tokens / seq))


def batch_at(batch: int, dp: int, micro_batch: int) -> int:
    """``batch`` rounded to whole micro-batches on every one of ``dp`` ranks (at least one
    per rank): the batch a layout of that many replicas actually runs."""
    share = dp * micro_batch
    return max(1, round(batch / share)) * share


def default_global_batch(seq_len: int, dp: int, micro_batch: int) -> int:
    """Sequences per step of a job of unknown family: about 4M tokens, in whole
    micro-batches on each DP rank."""
    return batch_at(job_batch(None, seq_len, None), dp, micro_batch)


@dataclass(frozen=True)
class JobLayout:
    """The layout a job runs at one size, and the job's own batch it was rounded from."""

    layout: step_time.Layout
    job_batch: int

    @property
    def batch_changed(self) -> bool:
        return self.layout.global_batch != self.job_batch


def zero_stage(zero: object) -> int:
    """A ZeRO stage 0-3 from a job field or a flag (8.0 is 8, 1.5 is refused)."""
    if isinstance(zero, bool) or not isinstance(zero, (int, float)):
        raise InputError("zero", f"ZeRO stage must be 0, 1, 2 or 3; got {zero!r}")
    if not math.isfinite(zero) or zero != int(zero) or int(zero) not in (0, 1, 2, 3):
        raise InputError("zero", f"ZeRO stage must be 0, 1, 2 or 3; got {zero!r}")
    return int(zero)


def job_layout(
    *,
    model: ModelConfig | None,
    tp: object,
    pp: object,
    dp: int,
    seq_len: object,
    micro_batch: object,
    global_batch: object | None,
    virtual_stages: object = 1,
    recompute: str = "none",
    zero: object = 0,
    sequence_parallel: bool = True,
    flash_attention: bool = True,
    cp: object = 1,
) -> JobLayout:
    """The layout of a job at data-parallel degree ``dp`` (InputError naming the field).

    Sequence parallelism applies only with tensor parallelism (it shards the TP group's
    activations; Korthikanti et al. 2022 §4.2.2).  An explicit global batch must divide
    into dp × micro-batch; the family default is rounded to it (:func:`batch_at`)."""
    t = positive_int("tp", tp, 1024)
    p = positive_int("pp", pp, 1024)
    c = positive_int("cp", cp, 1024)
    micro = positive_int("micro_batch", micro_batch, 100_000)
    seq = positive_int("seq_len", seq_len, 10_000_000)
    if seq % c:
        raise InputError("cp", f"context parallel {c} must divide the sequence length {seq}")
    explicit = global_batch is not None
    nominal = job_batch(
        model, seq, positive_int("global_batch", global_batch, 100_000_000) if explicit else None
    )
    batch = nominal if explicit else batch_at(nominal, dp, micro)
    layout = step_time.Layout(
        tp=t,
        pp=p,
        dp=dp,
        cp=c,
        virtual_stages=positive_int("virtual_stages", virtual_stages, 1024),
        micro_batch=micro,
        global_batch=batch,
        seq_len=seq,
        recompute=recompute,
        zero=zero_stage(zero),
        sequence_parallel=bool(sequence_parallel) and t > 1,
        flash_attention=bool(flash_attention),
    )
    return JobLayout(layout, nominal)
