"""A training job on the design: FLOPs, the predicted step, MFU, days and memory.

Why it is its own module: the days used to be FLOPs over a typed utilisation, so the
design never mattered.  Here the job's step is predicted from the design
(:mod:`workbench.calc.design_hardware` reads the node, NVLink, NICs and the compute
fabric; :mod:`workbench.calc.step_time` builds the step) unless the user states an MFU,
in which case that figure wins and says so (``mfu_source`` "given").

* FLOPs follow the published accounting when the architecture is known
  (:mod:`workbench.calc.flops`: attention, the output layer, gated MLPs, GQA); a model
  known only by N keeps ``6·N·D`` (``8·N·D`` with full recompute) and needs an MFU.
* Days are wall-clock for the whole run: compute time / goodput.  Goodput is the share
  of the run that trains (restarts, evaluation, checkpoints take the rest); its default
  is :data:`workbench.calc.step_time.DEFAULT_GOODPUT`.  ``compute_days`` leaves it out,
  which is the domain brief's ``C / rate``.
* The global batch is the job's (:mod:`workbench.calc.job_layout`): its own, or its
  model family's published batch, rounded to whole micro-batches on every DP rank.
* With a stated MFU the step time follows it: the predicted step's parts are scaled so
  they sum to the step that MFU implies.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from workbench.calc import compute, memory, stack_profiles, step_time
from workbench.calc import flops as fl
from workbench.calc.design_hardware import FabricFigures, node_figures
from workbench.calc.errors import InputError, fraction, positive, positive_int
from workbench.calc.explain import Explained, num
from workbench.calc.job_layout import (  # noqa: F401 - re-exported for callers
    DEFAULT_GLOBAL_BATCH_TOKENS,
    DEFAULT_GRAD_PRECISION,
    batch_at,
    default_global_batch,
    job_layout,
)
from workbench.calc.presets import ModelConfig
from workbench.catalog.item import CatalogItem
from workbench.model.design import Design, Workload

#: Where the default goodput comes from (step_time.DEFAULT_GOODPUT).
GOODPUT_SOURCE = (
    "default 0.90: Dubey et al. 2024 (Llama 3) §3.3.4, higher than 90 % effective "
    "training time on 16K H100"
)
#: How a result names an MFU set by the "plan at 30 %" toggle.
PLAN_SOURCE = "plan at 30 %"
_KAPLAN = "Kaplan et al. 2020 §2.1 (C = 6ND); 8ND with full recompute (Narayanan et al. 2021)"
_PALM = "Chowdhery et al. 2022 (PaLM) Appendix B: MFU = model FLOP/s / (gpus · peak)"

Attempt = Callable[..., Any]


def hardware(
    design: Design,
    w: Workload,
    gpu: CatalogItem,
    peak_tflops: float,
    fabric: FabricFigures,
    servers: Mapping[str, int] | None = None,
) -> tuple[step_time.Hardware, list[str]]:
    """The step-time model's view of the design, and what it had to assume."""
    nic = None if w.nic_gbps is None else positive("nic_gbps", w.nic_gbps, 1e5)
    node = node_figures(design, gpu, w.gpu_type, nic, servers)
    notes = list(node.missing)
    if fabric.oversubscription is None:
        notes.append("the design has no compute fabric: a non-blocking one is assumed")
    hw = step_time.Hardware(
        peak_tflops=peak_tflops,
        gpus_per_node=node.gpus_per_node,
        nvlink_gbs=node.nvlink_gbs,
        nic_gbps_per_gpu=node.nic_gbps_per_gpu,
        oversubscription=fabric.oversubscription or 1.0,
        gpus_per_leaf=fabric.gpus_per_leaf,
        hbm_tbs=gpu.hbm_bw_tbs,
        peak_source=gpu.sources.get("tflops", f"{gpu.slug} catalog entry"),
        nvlink_source=node.nvlink_source,
        nic_source=node.nic_source,
        fabric_source=fabric.source,
    )
    return hw, notes


def layout_of(
    w: Workload, gpus: int, tp: int, pp: int, dp: int, model: ModelConfig | None = None
) -> step_time.Layout:
    """The job's layout (InputError naming the field when it cannot run)."""
    return job_layout_of(w, dp, model).layout


def job_layout_of(w: Workload, dp: int, model: ModelConfig | None = None):  # noqa: ANN201
    """The job's :class:`job_layout.JobLayout` at ``dp`` replicas (one home of the rules)."""
    return job_layout(
        model=model,
        tp=w.tp,
        pp=w.pp,
        cp=getattr(w, "cp", 1),
        dp=dp,
        seq_len=w.seq_len,
        micro_batch=w.micro_batch,
        global_batch=w.global_batch,
        virtual_stages=w.virtual_stages,
        recompute=w.recompute,
        zero=w.zero,
        sequence_parallel=bool(w.sequence_parallel),
        flash_attention=bool(w.flash_attention),
    )


def grad_precision_of(w: Workload) -> str:
    """The job's gradient precision: its own setting, else :data:`DEFAULT_GRAD_PRECISION`."""
    return getattr(w, "grad_precision", None) or DEFAULT_GRAD_PRECISION


def flops_per_token(model: ModelConfig, w: Workload) -> tuple[float, float, Explained]:
    """(model FLOPs, hardware FLOPs) per token and the explanation of the first.

    The published accounting when the architecture is known, else 6·N (8·N with full
    recompute for the hardware figure)."""
    if model.has_architecture and model.ffn and model.vocab:
        shape = fl.shape_of(model)
        model_f = fl.model_flops_per_token(shape, w.seq_len)
        hardware_f = fl.hardware_flops_per_token(
            shape, w.seq_len, w.recompute, flash_attention=bool(w.flash_attention)
        )
        return model_f, hardware_f, fl.explain_model_flops(shape, w.seq_len)
    factor = compute.RECOMPUTE_FLOPS_FACTOR.get(w.recompute, 6.0)
    n = positive("params", model.params, compute.MAX_PARAMS)
    explained = Explained(6 * n, "FLOPs/token", "6·N", f"6·{num(n)}", _KAPLAN)
    return 6 * n, factor * n, explained


def train(
    result: Any,
    design: Design,
    w: Workload,
    gpu: CatalogItem | None,
    fabric: FabricFigures,
    attempt: Attempt,
    servers: Mapping[str, int] | None = None,
) -> None:
    """Fill ``result`` (a WorkloadResult) for a training job; problems go to its errors.
    ``servers`` is the summary's GPU-server counts (the node type without a device walk)."""
    model, gpus = result.model, result.gpus
    if gpu is not None:
        result.peak_tflops_per_gpu = attempt(result, compute.peak_tflops, gpu, w.precision)
    given = None if w.mfu is None else attempt(result, fraction, "mfu", w.mfu)
    planning = w.mfu is None and bool(getattr(w, "plan_at_30", False))
    if planning:
        given = stack_profiles.PLANNING_MFU
    goodput = step_time.DEFAULT_GOODPUT if w.goodput is None else w.goodput
    result.goodput = attempt(result, fraction, "goodput", goodput)
    peak = result.peak_tflops_per_gpu
    per_token = hw_per_token = tokens = None
    if model is not None:
        found = attempt(result, flops_per_token, model, w)
        if found is not None:
            per_token, hw_per_token, explained = found
            result.explanations["model_flops_per_token"] = explained
            tokens = attempt(result, positive, "tokens", w.tokens, compute.MAX_TOKENS)
        if found is not None and tokens is not None and per_token is not None:
            result.total_flops = per_token * tokens
            result.explanations["total_flops"] = Explained(
                result.total_flops,
                "FLOPs",
                "C = model FLOPs per token · D",
                f"{num(per_token)}·{num(w.tokens)}",
                explained.source,
            )
    layout = _layout(result, w, attempt)
    if gpu is not None and peak and gpus and layout is not None and model is not None:
        _predict(result, design, w, gpu, peak, fabric, layout, attempt, servers)
    if given is not None:
        result.mfu, result.mfu_source = given, PLAN_SOURCE if planning else "given"
        _step_at_given_mfu(result, layout, per_token, given)
        if hw_per_token is not None and per_token:
            result.hfu = given * hw_per_token / per_token
            result.explanations["hfu"] = Explained(
                result.hfu,
                "",
                "HFU = MFU · hardware FLOPs per token / model FLOPs per token",
                f"{num(given)}·{num(hw_per_token)} / {num(per_token)}",
                "PaLM Appendix B: HFU counts the recomputed FLOPs, MFU does not",
            )
    elif (
        result.step is not None and w.mfu is None and not planning
    ):  # a bad typed MFU is an error, not "predict"
        result.mfu, result.mfu_source = result.step.mfu, "predicted"
        result.hfu = result.step.hfu
    elif w.mfu is None and model is not None and not model.has_architecture:
        result.errors.append(
            InputError(
                "mfu",
                "give an MFU, or the model's layers, hidden size and heads so the "
                "design can predict it",
            )
        )
    _days(result, per_token)
    _memory(result, w, gpu, layout, attempt)


def step_at_mfu(
    predicted_breakdown: Mapping[str, float],
    layout: step_time.Layout,
    per_token: float,
    peak_tflops: float,
    mfu: float,
) -> tuple[float, dict[str, float]]:
    """The step a stated MFU implies, ``batch·seq·model FLOPs per token / (gpus·peak·MFU)``,
    and the predicted parts scaled to sum to it (their shares kept): the one rule the
    window and ``workbench estimate`` use when the user gives the MFU."""
    tokens = layout.global_batch * layout.seq_len
    step = tokens * per_token / (layout.gpus * peak_tflops * 1e12 * mfu)
    total = sum(predicted_breakdown.values())
    scale = step / total if total > 0 else 0.0
    return step, {k: v * scale for k, v in predicted_breakdown.items()}


def _step_at_given_mfu(
    result: Any, layout: step_time.Layout | None, per_token: float | None, mfu: float
) -> None:
    if layout is None or not per_token or not result.peak_tflops_per_gpu:
        return
    step, parts = step_at_mfu(
        result.step_breakdown_s or {}, layout, per_token, result.peak_tflops_per_gpu, mfu
    )
    result.step_time_s = step
    result.step_breakdown_s = parts or None
    result.explanations["step_time"] = Explained(
        step,
        "s",
        "step = global batch · seq · model FLOPs per token / (gpus · peak · MFU)",
        f"{layout.global_batch}·{layout.seq_len}·{num(per_token)} / "
        f"({layout.gpus}·{num(result.peak_tflops_per_gpu * 1e12)}·{num(mfu)})",
        f"{_PALM}; the MFU you gave (the predicted parts scaled to it)",
    )


def _layout(result: Any, w: Workload, attempt: Attempt) -> step_time.Layout | None:
    tp = attempt(result, positive_int, "tp", w.tp, 1024)
    pp = attempt(result, positive_int, "pp", w.pp, 1024)
    cp = attempt(result, positive_int, "cp", getattr(w, "cp", 1), 1024)
    if tp is None or pp is None or cp is None:
        return None
    gpus = result.gpus
    if not gpus:
        result.dp = 1
        return None
    dp = attempt(result, memory.data_parallel, gpus, tp * cp, pp)
    if dp is None:
        return None
    result.dp = dp
    found = attempt(result, job_layout_of, w, dp, result.model)
    if found is None:
        return None
    layout = found.layout
    result.layout = layout
    result.global_batch = layout.global_batch
    result.job_batch = found.job_batch
    if layout.global_batch > found.job_batch * 1.5:
        result.warnings.append(
            f"global batch: the job's {found.job_batch:,} sequences cannot give each of the "
            f"{dp:,} data-parallel replicas a micro-batch of {layout.micro_batch}; this size "
            f"runs {layout.global_batch:,} per step, a larger batch than the job's"
        )
    return layout


def _predict(
    result: Any,
    design: Design,
    w: Workload,
    gpu: CatalogItem,
    peak: float,
    fabric: FabricFigures,
    layout: step_time.Layout,
    attempt: Attempt,
    servers: Mapping[str, int] | None,
) -> None:
    model = result.model
    if not (model.has_architecture and model.ffn and model.vocab):
        if w.mfu is None:
            result.warnings.append(
                "MFU not predicted: the step-time model needs layers, hidden, heads, "
                "FFN width and vocabulary"
            )
        return
    found = attempt(result, hardware, design, w, gpu, peak, fabric, servers)
    if found is None:
        return
    hw, notes = found
    result.hardware = hw
    result.warnings.extend(notes)
    framework, where = job_framework(design, w)
    if where:
        result.warnings.append(where)
    profile, note = stack_profiles.profile_for(framework, w.precision)
    keywords = profile.keywords()
    result.stack_profile = profile.key
    measured = getattr(w, "measured_step_s", None)
    if measured is not None:
        k = attempt(result, stack_profiles.calibrate, model, layout, hw, profile, measured)
        if k is not None:
            keywords["kernel_efficiency"] = k
    elif note and framework:
        result.warnings.append(note)
    result.step_keywords = keywords
    step = attempt(result, step_time.predict_step, model, layout, hw, w.precision, **keywords)
    if step is None:
        return
    result.step = step
    result.step_time_s = step.step_time_s
    result.step_breakdown_s = dict(step.breakdown_s)
    result.warnings.extend(step.warnings)
    for key, explained in step.explanations.items():
        result.explanations.setdefault(key, explained)


def job_framework(design: Design, w: Workload) -> tuple[str, str]:
    """The job's framework, or the one the design's software stacks name (and a note
    saying so); empty when neither names one."""
    framework = getattr(w, "framework", "") or ""
    if framework:
        return framework, ""
    found = stack_profiles.design_framework(design.software_stacks)
    return found if found is not None else ("", "")


def stack_keywords(
    design: Design,
    w: Workload,
    model: ModelConfig | None = None,
    hw: step_time.Hardware | None = None,
    gpus: int | None = None,
) -> dict[str, Any]:
    """The step-time keywords of the job's stack profile, with the kernel efficiency
    calibrated on the job's measured step when there is one (and the model, hardware
    and GPUs to place the job's own layout are given): the calibration is the stack's
    on this cluster, so every other layout is weighed with it."""
    framework, _where = job_framework(design, w)
    profile = stack_profiles.profile_for(framework, w.precision)[0]
    keywords = profile.keywords()
    measured = getattr(w, "measured_step_s", None)
    if measured is None or model is None or hw is None or not gpus:
        return keywords
    try:
        per_replica = positive_int("tp", w.tp, 1024) * positive_int("pp", w.pp, 1024)
        dp = memory.data_parallel(gpus, per_replica * positive_int("cp", w.cp, 1024), 1)
        layout = job_layout_of(w, dp, model).layout
        keywords["kernel_efficiency"] = stack_profiles.calibrate(
            model, layout, hw, profile, measured
        )
    except InputError:
        pass  # the job's own layout cannot run here: the profile's figure
    return keywords


def _days(result: Any, per_token: float | None) -> None:
    gpus, peak, mfu = result.gpus, result.peak_tflops_per_gpu, result.mfu
    if not (gpus and peak and mfu and per_token):
        return
    rate = compute.effective_flops_per_s(gpus, peak, mfu)
    result.effective_pflops = rate / 1e15
    result.tokens_per_s = rate / per_token
    source = "the step-time model" if result.mfu_source == "predicted" else "the MFU you gave"
    result.explanations["effective_pflops"] = Explained(
        result.effective_pflops,
        "PFLOP/s",
        "rate = gpus·peak·MFU / 1e15",
        f"{gpus}·{num(peak * 1e12)}·{num(mfu)} / 1e15 (MFU from {source})",
        _PALM,
    )
    result.explanations["mfu"] = Explained(
        mfu,
        "",
        "MFU = model FLOPs per token · tokens/s / (gpus · peak)",
        f"{num(per_token)}·{num(result.tokens_per_s)} / ({gpus}·{num(peak * 1e12)})",
        f"{_PALM}; {source}",
    )
    result.explanations["tokens_per_s"] = Explained(
        result.tokens_per_s,
        "tokens/s",
        "tokens/s = rate / model FLOPs per token",
        f"{num(rate)} / {num(per_token)}",
        _PALM,
    )
    if result.total_flops is None or result.goodput is None:
        return
    compute_s, result.seconds, result.gpu_hours = run_time(
        result.total_flops, gpus, peak, mfu, result.goodput
    )
    result.compute_days = compute_s / compute.SECONDS_PER_DAY
    result.days = result.seconds / compute.SECONDS_PER_DAY
    if result.mfu_source == "predicted" and result.stack_profile is not None:
        low, high = _spread(result)
        result.days_range = (result.days * (1 + low), result.days * (1 + high))
        result.gpu_hours_range = (result.gpu_hours * (1 + low), result.gpu_hours * (1 + high))
    result.explanations["days"] = Explained(
        result.days,
        "days",
        "days = C / (gpus·peak·MFU) / goodput / 86400",
        f"{num(result.total_flops)} / ({gpus}·{num(peak * 1e12)}·{num(mfu)}) / "
        f"{num(result.goodput)} / 86400",
        f"{_PALM}; goodput: {GOODPUT_SOURCE}",
    )
    result.explanations["gpu_hours"] = Explained(
        result.gpu_hours,
        "GPU-hours",
        "GPU-hours = gpus · wall-clock seconds / 3600",
        f"{gpus}·{num(result.seconds)} / 3600",
        "definition; the wall-clock includes the goodput",
    )


def _spread(result: Any) -> tuple[float, float]:
    """The band of the days: ±5 % when calibrated on a measured step, else the profile's
    spread on the runs it was fitted on."""
    calibrated = (result.step_keywords or {}).get("kernel_efficiency")
    profile = stack_profiles.PROFILES.get(result.stack_profile or "", stack_profiles.GENERIC)
    if calibrated is not None and calibrated != profile.kernel_efficiency:
        return stack_profiles.CALIBRATED_SPREAD
    return profile.spread


def run_time(
    total_flops: float, gpus: int, peak_tflops: float, mfu: float, goodput: float
) -> tuple[float, float, float]:
    """(compute seconds ``C / (gpus·peak·MFU)``, wall-clock seconds ``/ goodput``,
    GPU-hours of the wall-clock): the one formula the window, report and CLI share."""
    compute_s = compute.training_seconds(total_flops, gpus, peak_tflops, mfu)
    wall = compute_s / fraction("goodput", goodput)
    return compute_s, wall, compute.gpu_hours(gpus, wall)


def _memory(
    result: Any,
    w: Workload,
    gpu: CatalogItem | None,
    layout: step_time.Layout | None,
    attempt: Attempt,
) -> None:
    model = result.model
    if model is None or result.dp is None:
        return
    tp = attempt(result, positive_int, "tp", w.tp, 1024)
    pp = attempt(result, positive_int, "pp", w.pp, 1024)
    if tp is None or pp is None:
        return
    arch = model.has_architecture
    if not arch:
        result.warnings.append(
            "activations not estimated: the model is given by its parameter count only"
        )
    usable = None
    if gpu is not None and (gpu.hbm_gb or gpu.props.get("hbm_total_mib")):
        usable, result.hbm_source = memory.usable_hbm_bytes(gpu)
        result.hbm_usable_gb = usable / memory.GB
    breakdown = attempt(
        result,
        memory.training_memory,
        model.params,
        w.precision,
        w.zero,
        result.dp,
        tp,
        pp,
        layers=model.layers if arch else None,
        hidden=model.hidden,
        heads=model.heads,
        seq_len=w.seq_len,
        micro_batch=w.micro_batch,
        recompute=w.recompute,
        sequence_parallel=layout.sequence_parallel if layout is not None else False,
        hbm_gb=gpu.hbm_gb if gpu is not None and gpu.hbm_gb else None,
        flash_attention=bool(w.flash_attention),
        vocab=model.vocab,
        virtual_stages=w.virtual_stages,
        ffn=model.ffn,
        kv_heads=model.kv_heads,
        hbm_usable_bytes=usable,
        gated_mlp=model.gated_mlp,
        microbatches=layout.micro_batches if layout is not None else None,
        cp=layout.cp if layout is not None else 1,
        grad_precision=grad_precision_of(w),
    )
    if breakdown is None:
        return
    result.memory = breakdown
    parts = breakdown.gb()
    notes = "; ".join(getattr(breakdown, "notes", ()) or ())
    result.explanations["memory_gb_per_gpu"] = Explained(
        parts["total"],
        "GB",
        "M = weights + gradients + optimizer of the heaviest stage (ZeRO over dp) + activations",
        f"{parts['weights']:.1f} + {parts['gradients']:.1f} + {parts['optimizer']:.1f} + "
        f"{(parts['activations'] or 0):.1f} (ZeRO-{w.zero}, tp {tp}, pp {pp}, dp {result.dp})"
        + (f"; {notes}" if notes else ""),
        "Rajbhandari et al. 2020 (ZeRO) §3.1, §5; Korthikanti et al. 2022 Table 2",
    )


#: Below this MFU a deadline answer is warned about: the seeds plan at 30 % until the
#: cluster is benchmarked, and a layout at under 20 % is mostly bubble or communication.
LOW_MFU = 0.20


def low_mfu_warning(mfu: float | None) -> str:
    """The deadline answer's warning when the MFU it relies on is below :data:`LOW_MFU`."""
    if mfu is None or mfu >= LOW_MFU:
        return ""
    return (
        f"the answer relies on an MFU of {mfu:.1%} at that size, below {LOW_MFU:.0%}: the "
        "layout spends most of the step in the pipeline bubble or communication; a "
        "larger batch, fewer pipeline stages or another layout would need fewer GPUs"
    )


def curve_days(result: Any, w: Workload, gpu_counts: list[int]) -> list[float | None]:
    """Predicted days at each GPU count, the layout and hardware of ``result`` kept and
    the *job's* global batch kept (rounded to whole micro-batches per DP rank at each
    count, never the batch rounded for the design's own size).  None where the count
    cannot hold the layout (not a multiple of tp·cp·pp)."""
    step, hw, layout = result.step, result.hardware, result.layout
    if step is None or hw is None or layout is None or result.total_flops is None:
        return [None] * len(gpu_counts)
    nominal = result.job_batch or layout.global_batch
    out: list[float | None] = []
    per_replica = layout.tp * layout.pp * layout.cp
    for count in gpu_counts:
        dp = count // per_replica
        if dp < 1 or count > compute.MAX_GPUS:
            out.append(None)
            continue
        try:
            lay = replace(layout, dp=dp, global_batch=batch_at(nominal, dp, layout.micro_batch))
            predicted = step_time.predict_step(
                result.model, lay, hw, w.precision, explain=False, **_efficiencies(result)
            )
        except InputError:
            out.append(None)
            continue
        rate = lay.gpus * hw.peak_tflops * 1e12 * predicted.mfu
        seconds = result.total_flops / rate / (result.goodput or 1.0)
        out.append(seconds / compute.SECONDS_PER_DAY if math.isfinite(seconds) else None)
    return out


def _efficiencies(result: Any) -> dict[str, Any]:
    """The prediction keywords ``result``'s own step used (its stack profile)."""
    return dict(getattr(result, "step_keywords", None) or {})


def predicted_gpus_for_deadline(
    result: Any, w: Workload, deadline_days: float, gpus_per_node: int, nodes_per_su: int
) -> compute.DeadlineSizing | None:
    """The fewest whole scalable units whose *predicted* run ends within the deadline.

    The MFU-based inverse (:func:`workbench.calc.compute.gpus_for_deadline`) keeps one
    MFU at every size, but the predicted MFU falls as GPUs are added at a fixed global
    batch (fewer micro-batches per replica, a larger bubble), so the answer must come
    from the same predictions as the curve: :func:`curve_days` at multiples of one SU
    (and of the layout's tp·pp), doubling until the deadline is met, then bisecting.
    None when the job has no prediction (the caller falls back to the MFU inverse).
    """
    layout, hw = result.layout, result.hardware
    if result.step is None or layout is None or hw is None or result.total_flops is None:
        return None
    days_limit = positive("deadline_days", deadline_days, 36_500)
    per_node = positive_int("gpus_per_node", gpus_per_node, 1024)
    per_su = positive_int("nodes_per_su", nodes_per_su, 100_000)
    unit = math.lcm(per_node * per_su, layout.tp * layout.pp * layout.cp)

    def days_at(k: int) -> float | None:
        return curve_days(result, w, [k * unit])[0]

    k = 1
    while True:
        found = days_at(k)
        if found is not None and found <= days_limit:
            break
        if (2 * k) * unit > compute.MAX_GPUS:
            raise InputError(
                "deadline_days",
                f"not reachable: even {k * unit:,} GPUs take "
                f"{'too long' if found is None else f'{found:,.1f} days'} with this layout",
            )
        k *= 2
    low, high = k // 2 + 1, k  # the first k known to meet it is ``high``
    while low < high:
        mid = (low + high) // 2
        found = days_at(mid)
        if found is not None and found <= days_limit:
            high = mid
        else:
            low = mid + 1
    gpus = high * unit
    days = days_at(high) or days_limit
    rate = result.total_flops / (days_limit * compute.SECONDS_PER_DAY * (result.goodput or 1.0))
    mfu = (
        result.total_flops
        / (days * compute.SECONDS_PER_DAY * (result.goodput or 1.0))
        / (gpus * hw.peak_tflops * 1e12)
    )
    nodes = gpus // per_node
    warning = low_mfu_warning(mfu)
    explanation = Explained(
        float(nodes),
        "nodes",
        "the fewest whole SUs (and multiples of tp·pp) whose predicted days ≤ the deadline",
        f"{gpus:,} GPUs = {high} × {unit:,}: predicted {days:,.1f} days ≤ {days_limit:g} "
        f"(MFU {mfu:.1%} at that size, goodput {num(result.goodput or 1.0)})",
        "the step-time model at each size (calc/step_time.py), the global batch kept; "
        "NVIDIA DGX SuperPOD reference architectures build in scalable units"
        + (f"; warning: {warning}" if warning else ""),
    )
    return compute.DeadlineSizing(
        effective_pflops_needed=rate / 1e15,
        physical_pflops_needed=rate / mfu / 1e15,
        gpus_needed=gpus,
        nodes=nodes,
        scalable_units=nodes // per_su,
        gpus_provisioned=gpus,
        explanation=explanation,
        mfu=mfu,
        warning=warning,
    )
