"""Auto layout: the fastest TP/PP/recompute/ZeRO split of a training job that fits memory.

Why: a new training job should start from a layout that runs on the design's GPUs, and
a planner wants to see what the alternatives would cost.  The search is bounded so it
answers within milliseconds on a 100,000-GPU design:

* tp: divisors of the node's GPU count that divide the heads (and, when the design
  gives a compute NIC, twice the node: TP across nodes is slow but sometimes the only
  fit); pp: divisors of gpus/tp up to the layer count (stages may differ by a layer),
  at most :data:`MAX_PP`; micro-batch 1, 2, 4 and virtual stages 1, 2, 4 where the
  batch and the layers allow.
* Time first, memory second: every candidate's step time comes from one
  :func:`step_time.step_parts` per (tp, pp, recompute, ZeRO-3 or not), scaled exactly
  to each micro-batch and virtual-stage count (per-micro-batch terms grow with b, the
  sends with v).  ZeRO 0, 1 and 2 take the same time in the model (same bytes), so a
  candidate is checked at ZeRO 2, the least memory of the three, and reported at the
  lowest stage that still fits.
* Candidates are then checked for memory (:func:`memory.training_memory` against
  ``hbm_usable_bytes`` with the usual headroom) fastest first, at most
  :data:`MAX_MEMORY_CHECKS` of them, so the answer is the fastest layout that fits
  among those; only the winners get a full :func:`step_time.predict_step`.  When none
  of those fits, the most memory-saving form of each (tp, pp) is tried.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from workbench.calc import flops as fl
from workbench.calc import memory
from workbench.calc import step_time as st
from workbench.calc.errors import positive, positive_int
from workbench.calc.job_layout import DEFAULT_GRAD_PRECISION
from workbench.calc.presets import ModelConfig

MAX_PP = 128
MICRO_BATCHES = (1, 2, 4)
VIRTUAL_STAGES = (1, 2, 4)
MAX_MEMORY_CHECKS = 48
RECOMPUTE = ("none", "selective", "full")


class Candidate(NamedTuple):
    """One layout weighed: its prediction (None when it does not fit), memory, why."""

    layout: st.Layout
    prediction: st.StepPrediction | None
    memory: memory.MemoryBreakdown
    reason: str


@dataclass(frozen=True)
class LayoutChoice:
    """The fastest layout that fits (``best``; None when none fits) and the others."""

    best: Candidate | None
    alternatives: list[Candidate]
    searched: int  # layouts whose step time was estimated
    memory_checked: int  # of those, layouts checked against memory


def _divisors(n: int, limit: int) -> list[int]:
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted({x for d in small for x in (d, n // d) if x <= limit})


def _memory(
    model: ModelConfig,
    shape: fl.Shape,
    lay: st.Layout,
    precision: str,
    hbm: float,
    headroom: float,
    grad_precision: str = DEFAULT_GRAD_PRECISION,
) -> memory.MemoryBreakdown:
    return memory.training_memory(
        model.params,
        precision,
        lay.zero,
        lay.dp,
        lay.tp,
        lay.pp,
        layers=shape.layers,
        hidden=shape.hidden,
        heads=shape.heads,
        seq_len=lay.seq_len,
        micro_batch=lay.micro_batch,
        recompute=lay.recompute,
        sequence_parallel=lay.sequence_parallel,
        headroom=headroom,
        flash_attention=lay.flash_attention,
        vocab=shape.vocab,
        virtual_stages=lay.virtual_stages,
        ffn=shape.ffn,
        kv_heads=shape.kv_heads,
        hbm_usable_bytes=hbm,
        gated_mlp=shape.gated_mlp,
        microbatches=lay.micro_batches,
        cp=lay.cp,
        grad_precision=grad_precision,
    )


def _tp_options(shape: fl.Shape, hardware: st.Hardware, gpus: int) -> list[int]:
    node = hardware.gpus_per_node
    options = [t for t in _divisors(node, node) if shape.heads % t == 0 and gpus % t == 0]
    wide = 2 * node
    if hardware.nic_gbps_per_gpu and shape.heads % wide == 0 and gpus % wide == 0:
        options.append(wide)
    return options


def auto_layout(
    model: ModelConfig,
    hardware: st.Hardware,
    gpus: int,
    precision: str,
    seq_len: int,
    global_batch: int,
    hbm_usable_bytes: float,
    *,
    headroom: float = memory.DEFAULT_HEADROOM,
    flash_attention: bool = True,
    keep: int = 5,
    grad_precision: str = DEFAULT_GRAD_PRECISION,
    stack: Mapping[str, Any] | None = None,
) -> LayoutChoice:
    """The fastest layout of ``gpus`` that fits, and up to ``keep`` alternatives: the
    next fastest that fit, then faster ones that did not fit, each with its reason.

    Sequence parallelism is on whenever tp > 1 (it never costs time in the model and
    saves activation memory).
    """
    n = positive_int("gpus", gpus, 10_000_000)
    batch = positive_int("global_batch", global_batch, 100_000_000)
    hbm = positive("hbm_usable_bytes", hbm_usable_bytes, 1e14)
    shape = fl.shape_of(model, "auto layout")
    # The job's stack profile (stack_profiles.StackProfile.keywords): its efficiency and
    # the communication it overlaps decide which layout is fastest too.
    keywords = dict(stack or {})
    k = keywords.get("kernel_efficiency") or st.DEFAULT_KERNEL_EFFICIENCY
    c = keywords.get("collective_efficiency") or st.DEFAULT_COLLECTIVE_EFFICIENCY
    overlap = keywords.get("overlap") or st.NO_OVERLAP

    def check(lay: st.Layout) -> memory.MemoryBreakdown:
        return _memory(model, shape, lay, precision, hbm, headroom, grad_precision)

    timed: list[tuple[float, st.Layout, int, int]] = []  # (time, base, mb, v)
    groups: dict[tuple[int, int], tuple[st.Layout, memory.MemoryBreakdown]] = {}
    checked = 0
    for tp in _tp_options(shape, hardware, n):
        for pp in _divisors(n // tp, min(shape.layers, MAX_PP)):
            dp = n // (tp * pp)
            if batch % dp:
                continue
            zeros = (2, 3) if dp > 1 else (0,)
            common = st.Layout(
                tp=tp, pp=pp, dp=dp, global_batch=dp, seq_len=seq_len,
                sequence_parallel=tp > 1, flash_attention=flash_attention,
            )  # fmt: skip
            # The (tp, pp) group's most memory-saving form must fit, or the group is out.
            saving = replace(common, global_batch=batch, recompute="full", zero=zeros[-1])
            checked += 1
            saving_mem = check(saving)
            if saving_mem.fits is False:
                continue
            groups[(tp, pp)] = (saving, saving_mem)
            for recompute in RECOMPUTE:
                for zero in zeros:
                    base = replace(common, recompute=recompute, zero=zero)
                    parts = st.step_parts(model, base, hardware)
                    for mb in MICRO_BATCHES:
                        if batch % (dp * mb):
                            continue
                        for v in VIRTUAL_STAGES:
                            if v > 1 and (pp == 1 or v > shape.layers // pp):
                                continue
                            time = parts.step_time(
                                k, c, batch_scale=mb, virtual_stages=v,
                                micro_batches=batch // (dp * mb), overlap=overlap,
                            )  # fmt: skip
                            timed.append((time, base, mb, v))
    if not groups:
        return LayoutChoice(None, [], len(timed), checked)
    by_group: dict[tuple[int, int], list[tuple[float, st.Layout]]] = {}
    for t, b, mb, v in sorted(timed, key=lambda x: x[0]):
        lay = replace(b, global_batch=batch, micro_batch=mb, virtual_stages=v)
        by_group.setdefault((b.tp, b.pp), []).append((t, lay))
    fits, misses, walked = _walk(by_group, groups, check, keep)
    fits = [_lowest_zero(t, lay, mem, check) for t, lay, mem in fits]
    return _choice(
        model, hardware, precision, fits, misses, keep, len(timed), checked + walked, keywords
    )


def _walk(by_group, groups, check, keep):
    """Per (tp, pp) group, fastest group first: check its layouts fastest first,
    skipping any that needs at least the memory of one that did not fit, until the
    group's first fit (its most saving form is known to fit).  Stop after ``keep`` + 1
    groups have a fit or MAX_MEMORY_CHECKS checks; each group gives one alternative."""
    fits: list[tuple[float, st.Layout, memory.MemoryBreakdown]] = []
    misses: list[tuple[float, st.Layout, memory.MemoryBreakdown]] = []
    checked = 0
    for key, options in sorted(by_group.items(), key=lambda kv: kv[1][0][0]):
        if len(fits) > keep or checked >= MAX_MEMORY_CHECKS:
            break
        known_misses: list[st.Layout] = []
        found = None
        for time, lay in options:
            if checked >= MAX_MEMORY_CHECKS:
                break
            if any(_needs_more(lay, miss) for miss in known_misses):
                continue
            checked += 1
            mem = check(lay)
            if mem.fits is False:
                known_misses.append(lay)
                if not fits and len(misses) < keep:
                    misses.append((time, lay, mem))
                continue
            found = (time, lay, mem)
            break
        if found is None:  # ran out of checks: the group's saving form fits
            lay, mem = groups[key]
            found = next(((t, x, mem) for t, x in options if x == lay), None)
        if found is not None:
            fits.append(found)
    fits.sort(key=lambda x: x[0])
    return fits, misses, checked


def _needs_more(lay: st.Layout, miss: st.Layout) -> bool:
    """True when ``lay`` needs at least the memory of ``miss``: same TP and PP, no
    smaller micro-batch or virtual-stage count, no more recomputation, no higher ZeRO."""
    return (
        lay.tp == miss.tp
        and lay.pp == miss.pp
        and lay.micro_batch >= miss.micro_batch
        and lay.virtual_stages >= miss.virtual_stages
        and RECOMPUTE.index(lay.recompute) <= RECOMPUTE.index(miss.recompute)
        and lay.zero <= miss.zero
    )


def _lowest_zero(time, lay, mem, check):
    """Report a ZeRO-2 winner at ZeRO 0 or 1 when that fits too (same time, simpler)."""
    if lay.zero != 2:
        return time, lay, mem
    for zero in (0, 1):
        lower = replace(lay, zero=zero)
        lower_mem = check(lower)
        if lower_mem.fits is not False:
            return time, lower, lower_mem
    return time, lay, mem


def _describe(lay: st.Layout) -> str:
    v = f" v{lay.virtual_stages}" if lay.virtual_stages > 1 else ""
    return (
        f"TP {lay.tp} PP {lay.pp}{v} DP {lay.dp}, micro-batch {lay.micro_batch}, "
        f"recompute {lay.recompute}, ZeRO {lay.zero}"
    )


def _choice(
    model, hardware, precision, fits, misses, keep, searched, checked, keywords=None
) -> LayoutChoice:
    def full(lay: st.Layout) -> st.StepPrediction:
        return st.predict_step(model, lay, hardware, precision, **(keywords or {}))

    best = None
    alternatives: list[Candidate] = []
    if fits:
        t0, lay, mem = fits[0]
        best = Candidate(lay, full(lay), mem, f"fastest that fits: {_describe(lay)}")
        for time, lay, mem in fits[1 : 1 + keep]:
            reason = f"fits, {100 * (time / t0 - 1):+.1f} % step time: {_describe(lay)}"
            alternatives.append(Candidate(lay, full(lay), mem, reason))
    for _time, lay, mem in misses[: max(1, keep - len(alternatives))]:
        usable = mem.usable_bytes or 0.0
        reason = (
            f"faster but does not fit: {mem.total_bytes / 1e9:.1f} GB per GPU > "
            f"{usable / 1e9:.1f} GB usable: {_describe(lay)}"
        )
        alternatives.append(Candidate(lay, None, mem, reason))
    return LayoutChoice(best, alternatives, searched, checked)
