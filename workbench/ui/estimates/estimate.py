"""What the Estimates view shows for one workload, gathered from the calculators.

This module is the view's only door into :mod:`workbench.calc`: it takes the
``evaluate_workload`` result and the ``rack_loads`` from the document's shared live
figures, calls the days-vs-GPUs curve and the deadline inverse, and turns their results
into display rows (label, formatted value, the calculator's ``Explained``).  It does no
arithmetic of its own beyond unit scaling for display, so the numbers on screen are the
numbers the command line and the report print.

A training job's figures lead with the MFU the days use and where it came from
("predicted" by :mod:`workbench.calc.step_time` from the design and the layout, or
"given" by the user), and its step time is split into the five terms of the step-time
model for the stacked bar, each with the calculator's explanation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from workbench.calc.compute import gpus_for_deadline
from workbench.calc.errors import InputError
from workbench.calc.explain import Explained, num
from workbench.calc.memory import DEFAULT_HEADROOM, GB
from workbench.calc.stack_profiles import GENERIC, PROFILES
from workbench.calc.step_time import DEFAULT_GOODPUT, DEFAULT_NIC_GBPS
from workbench.calc.summary import RackLoad
from workbench.calc.training_estimate import (
    curve_days,
    low_mfu_warning,
    predicted_gpus_for_deadline,
)
from workbench.calc.workload import WorkloadResult, training_days_curve
from workbench.catalog.item import is_gpu_server
from workbench.model import Design, Workload
from workbench.render.rack_geometry import as_text
from workbench.ui.estimates.fields import ParseError, parse_quantity
from workbench.units import finite, format_count
from workbench.units import format_quantity as fmt

#: MFU values of the curve band (domain brief §1: 30-50 % for training).
CURVE_MFUS: tuple[float, ...] = (0.3, 0.4, 0.5)
#: Nodes per scalable unit by default: NVIDIA DGX SuperPOD reference architectures build
#: in SUs of 32 nodes (the deadline answer rounds nodes up to whole SUs).
DEFAULT_NODES_PER_SU = 32
#: The step-time model's terms (calc.step_time.TERMS) as the stacked bar names them.
STEP_TERMS: tuple[tuple[str, str], ...] = (
    ("compute", "Compute"),
    ("tp_comm", "TP communication"),
    ("cp_comm", "CP communication"),
    ("pipeline_bubble", "Pipeline bubble"),
    ("p2p", "Pipeline sends"),
    ("dp_exposed", "Exposed DP communication"),
)


@dataclass(frozen=True)
class Figure:
    """One row of the results panel."""

    key: str
    label: str
    text: str
    explained: Explained | None = None
    #: Terms the explanation is made of, shown under it (the step time's five).
    parts: tuple[tuple[str, Explained], ...] = ()


@dataclass
class Estimate:
    """Everything the panel and the plots need for one workload."""

    workload_id: str
    kind: str
    figures: list[Figure] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    memory_gb: dict[str, float | None] = field(default_factory=dict)
    hbm_gb: float | None = None
    usable_gb: float | None = None
    fits: bool | None = None
    fit_text: str = ""
    memory_note: str = ""
    curve_gpus: np.ndarray | None = None
    curve_days: dict[float, np.ndarray] = field(default_factory=dict)
    #: Days the step-time model predicts at each curve GPU count (NaN: the layout does
    #: not fit that count), None without a prediction.
    curve_predicted: np.ndarray | None = None
    point: tuple[float, float] | None = None
    curve_note: str = ""
    #: Seconds per step-time term (STEP_TERMS order), the terms as figures (for
    #: explain), and the bar's title; empty without a prediction.
    step_s: dict[str, float] = field(default_factory=dict)
    step_terms: list[Figure] = field(default_factory=list)
    step_title: str = ""
    step_note: str = ""
    #: Placeholder text of the blank form boxes: the defaults the calculators used.
    hints: dict[str, str] = field(default_factory=dict)
    deadline: Explained | None = None
    deadline_text: str = "—"
    deadline_error: bool = False
    #: Which deadline box the error is about ("deadline_days", "nodes_per_su"), or "".
    deadline_field: str = ""

    def figure(self, key: str) -> Figure | None:
        """The figure called ``key`` (``deadline`` included), or None."""
        if key == "deadline":
            return Figure(
                "deadline", "GPUs to finish by the deadline", self.deadline_text, self.deadline
            )
        for figure in (*self.figures, *self.step_terms):
            if figure.key == key:
                return figure
        return None


def estimate(
    design: Design,
    workload: Workload,
    result: WorkloadResult,
    deadline_days: str = "",
    nodes_per_su: str = "",
) -> Estimate:
    """Gather ``workload``'s figures on ``design`` for display (never raises for bad input).

    ``result`` is the workload's ``evaluate_workload`` result from the document's shared
    live figures, so the view never evaluates a workload twice.
    """
    out = Estimate(workload_id=workload.id, kind=workload.kind)
    out.errors = [(getattr(e, "field", ""), getattr(e, "reason", str(e))) for e in result.errors]
    out.warnings = list(result.warnings)
    out.hbm_gb = result.hbm_gb if finite(result.hbm_gb) else None
    gpu_item = design.device_types.get(result.gpu_slug) if result.gpu_slug else None
    gpu_name = gpu_item.model if gpu_item is not None else (result.gpu_slug or "")
    if finite(result.gpus):
        out.figures.append(Figure("gpus", "GPUs", f"{result.gpus:,} × {gpu_name}".strip(" ×")))
    if workload.kind == "training":
        _training_figures(out, result, workload)
        _step(out, result)
        _hints(out, result, workload)
        _curve(out, result, workload)
        _deadline(out, result, workload, design, deadline_days, nodes_per_su)
    else:
        _inference_figures(out, result, workload)
        out.curve_note = "Training time applies to training jobs"
    return out


def _add(
    out: Estimate,
    result: WorkloadResult,
    key: str,
    label: str,
    value: float | None,
    unit: str,
    explained: Explained | None = None,
) -> None:
    """One figure row; the calculator's explanation under ``key`` unless one is given."""
    explained = explained or result.explanations.get(key)
    if not finite(value):
        explained = None
    out.figures.append(Figure(key, label, fmt(value, unit), explained))


def _percent(value: float | None) -> str:
    return f"{value * 100:.1f} %" if finite(value) else "—"


def _training_figures(out: Estimate, r: WorkloadResult, w: Workload) -> None:
    _add(out, r, "total_flops", "Training compute", r.total_flops, "FLOPs")
    mfu_explained = r.explanations.get("mfu") if finite(r.mfu) else None
    source = f" ({r.mfu_source})" if r.mfu_source and finite(r.mfu) else ""
    step = r.explanations.get("step_time") if finite(r.step_time_s) else None
    terms: tuple[tuple[str, Explained], ...] = tuple(
        (label, r.explanations[key]) for key, label in STEP_TERMS if key in r.explanations
    )
    # A predicted MFU is the step's: its explanation goes on to the step and its terms.
    why: tuple[tuple[str, Explained], ...] = ()
    if step is not None and r.mfu_source == "predicted":
        why = (("Step time", step), *terms)
    out.figures.append(Figure("mfu", "MFU", _percent(r.mfu) + source, mfu_explained, why))
    out.figures.append(Figure("hfu", "HFU (with recompute)", _percent(r.hfu), _hfu_explained(r)))
    out.figures.append(
        Figure("step_time", "Step time", fmt(r.step_time_s, "s"), step, terms if step else ())
    )
    _add(out, r, "effective_pflops", "Effective rate", r.effective_pflops, "PFLOP/s")
    _add(out, r, "days", "Training time", r.days, "days")
    if r.days_range is not None:
        out.figures.append(Figure("days_range", "Range", _range_text(r), _range_explained(r)))
    _add(out, r, "gpu_hours", "GPU-hours", r.gpu_hours, "GPU·h")
    if r.stack_profile is not None:
        out.figures.append(Figure("stack", "Software stack", _stack_text(r), _stack_explained(r)))
    _add(out, r, "tokens_per_s", "Throughput", r.tokens_per_s, "tokens/s")
    breakdown = r.memory
    if breakdown is None:
        _add(out, r, "memory_gb_per_gpu", "Memory per GPU", None, "GB")
        out.memory_note = "Memory not computed: see the errors"
        return
    parts = breakdown.gb()
    out.memory_gb = {
        key: parts.get(key) for key in ("weights", "gradients", "optimizer", "activations")
    }
    total = parts["total"]
    _add(out, r, "memory_gb_per_gpu", "Memory per GPU", total, "GB")
    usable = breakdown.usable_bytes
    out.usable_gb = None if usable is None else usable / GB
    if breakdown.hbm_bytes is not None:
        # The capacity the verdict is judged against (nvidia-smi's memory.total where
        # the catalog cites it: 81,559 MiB = 85.5 GB on an "80 GB" H100), not the label.
        out.hbm_gb = breakdown.hbm_bytes / GB
    out.fits = breakdown.fits
    out.fit_text = _fit_text(total, out.hbm_gb, out.usable_gb, breakdown.headroom)
    if parts["activations"] is None:
        out.fit_text += " (activations not estimated)"


def _range_text(r: WorkloadResult) -> str:
    """Low-high days from the stack profile's spread (or ±5 % calibrated)."""
    low, high = r.days_range or (0.0, 0.0)
    return f"{low:,.0f} – {high:,.0f} days"


def _stack_text(r: WorkloadResult) -> str:
    """The profile the prediction used and its kernel efficiency (calibrated or fitted)."""
    profile = PROFILES.get(r.stack_profile or "", GENERIC)
    k = (r.step_keywords or {}).get("kernel_efficiency", profile.kernel_efficiency)
    how = "calibrated" if k != profile.kernel_efficiency else "fitted"
    return f"{profile.key}, k {k:.3f} ({how})"


def _range_explained(r: WorkloadResult) -> Explained:
    low, high = r.days_range or (0.0, 0.0)
    band = (low / r.days - 1, high / r.days - 1) if r.days else (0.0, 0.0)
    return Explained(
        high,
        "days",
        "days × (1 + the profile's low and high error on its fitted runs); ±5 % when "
        "calibrated on a measured step",
        f"{r.days:,.2f} × (1 {band[0]:+.1%}, 1 {band[1]:+.1%}) = {low:,.1f} – {high:,.1f}"
        + (
            f"; GPU-hours {r.gpu_hours_range[0]:,.0f} – {r.gpu_hours_range[1]:,.0f}"
            if r.gpu_hours_range
            else ""
        ),
        "calc/stack_profiles.py spread; tests/test_stack_profiles.py held-out check",
    )


def _stack_explained(r: WorkloadResult) -> Explained:
    profile = PROFILES.get(r.stack_profile or "", GENERIC)
    k = (r.step_keywords or {}).get("kernel_efficiency", profile.kernel_efficiency)
    o = profile.overlap
    return Explained(
        k,
        "",
        "kernel efficiency of the stack (share of dense peak the matmuls reach); "
        "overlapped communication",
        f"{k:.3f}; TP hidden {o.tp:.0%}, P2P {o.p2p:.0%}, CP {o.cp:.0%}, DP with the "
        f"backward {'yes' if o.dp else 'no'}",
        f"{profile.name}: {profile.source}; fitted on {', '.join(profile.fitted_on)}; overlap: "
        f"{profile.overlap_source}",
    )


def _fit_text(total: float | None, hbm: float | None, usable: float | None, headroom: float) -> str:
    if not finite(total) or hbm is None or usable is None:
        return "HBM of the GPU unknown"
    return (
        f"{fmt(total, 'GB')} per GPU against {fmt(usable, 'GB')} usable "
        f"({fmt(hbm, 'GB')} HBM less {headroom:.0%} headroom)"
    )


def _hfu_explained(r: WorkloadResult) -> Explained | None:
    """The HFU's explanation: the step-time model's when it predicted the MFU; for a
    given MFU, ``MFU · hardware / model FLOPs per token`` with the calculator's figures
    (what ``train`` computes; the step's own "hfu" entry is the predicted one)."""
    if not finite(r.hfu):
        return None
    if r.mfu_source == "predicted":
        return r.explanations.get("hfu")
    if r.step is None or not finite(r.mfu):
        return None
    return Explained(
        r.hfu,
        "",
        "HFU = MFU · hardware FLOPs per token / model FLOPs per token",
        f"{num(r.mfu)} · {num(r.step.hardware_flops_per_token)} / "
        f"{num(r.step.model_flops_per_token)} (the MFU you gave)",
        "Chowdhery et al. 2022 (PaLM) Appendix B (HFU counts recomputation)",
    )


def _step(out: Estimate, r: WorkloadResult) -> None:
    """The stacked bar's seconds and the terms' explanations."""
    if r.step_breakdown_s is None or not finite(r.step_time_s):
        out.step_note = (
            "No step-time prediction: the model needs its layers, hidden size, heads, "
            "FFN width and vocabulary"
            if r.model is not None and not (r.model.has_architecture and r.model.vocab)
            else "No step-time prediction: fix the inputs marked in red"
        )
        return
    for key, label in STEP_TERMS:
        seconds = r.step_breakdown_s.get(key, 0.0)
        out.step_s[key] = seconds if finite(seconds) else 0.0
        out.step_terms.append(Figure(key, label, fmt(seconds, "s"), r.explanations.get(key)))
    out.step_title = f"Step time {fmt(r.step_time_s, 's')}"
    lay = r.layout
    if lay is not None:
        chunks = f" × {lay.virtual_stages}" if lay.virtual_stages > 1 else ""
        out.step_title += (
            f"  ·  TP {lay.tp} · PP {lay.pp}{chunks} · DP {lay.dp:,}  ·  "
            f"{format_count(lay.micro_batches, 'micro-batch', 'micro-batches')} "
            f"of {lay.micro_batch} per step"
        )


def _hints(out: Estimate, r: WorkloadResult, w: Workload) -> None:
    """What each blank box stands for, from the calculator's result."""
    hints = out.hints
    if r.step is not None and finite(r.step.mfu):
        hints["mfu"] = f"predicted {r.step.mfu * 100:.0f} %"
    elif r.model is not None and not r.model.has_architecture:
        hints["mfu"] = "type one: N alone cannot predict it"
    else:
        hints["mfu"] = "predicted from the design"
    goodput = r.goodput if w.goodput is None and finite(r.goodput) else DEFAULT_GOODPUT
    hints["goodput"] = f"default {goodput * 100:g}"
    hw = r.hardware
    if hw is not None and hw.nic_gbps_per_gpu and w.nic_gbps is None:
        hints["nic_gbps"] = f"node: {hw.nic_gbps_per_gpu:g}"
    else:
        hints["nic_gbps"] = f"node's (default {DEFAULT_NIC_GBPS:g})"
    if r.global_batch and r.layout is not None:
        job = r.job_batch or r.global_batch
        tokens = job * r.layout.seq_len
        hints["global_batch"] = f"default {job:,} ({tokens / 1e6:.3g}M tokens)"
        if r.global_batch != job:  # rounded to whole micro-batches on every DP rank
            hints["global_batch"] += f", runs {r.global_batch:,} here"
    else:
        hints["global_batch"] = "the model family's published batch"
    hints["gpus"] = f"all {r.gpus:,} in the design" if r.gpus else "all GPUs in the design"


def _inference_figures(out: Estimate, r: WorkloadResult, w: Workload) -> None:
    _add(out, r, "weights_gb", "Weights (all GPUs)", r.weights_gb, "GB")
    _add(out, r, "kv_bytes_per_token", "KV cache per token", r.kv_bytes_per_token, "bytes")
    _add(out, r, "kv_cache_gib", "KV cache, all sequences", r.kv_cache_gib, "GiB")
    _add(out, r, "memory_gb_per_gpu", "Memory per GPU", r.inference_gb_per_gpu, "GB")
    _add(out, r, "max_concurrency", "Max concurrent sequences", r.max_concurrency, "sequences")
    _add(out, r, "decode_tokens_per_s", "Decode bound", r.decode_tokens_per_s, "tokens/s")
    if finite(r.decode_tokens_per_s_per_sequence) and finite(r.decode_tokens_per_s):
        _add(
            out,
            r,
            "decode_per_sequence",
            "Decode bound per sequence",
            r.decode_tokens_per_s_per_sequence,
            "tokens/s",
        )
    tp = w.tp if isinstance(w.tp, int) and w.tp > 0 else None
    if finite(r.weights_gb) and tp:
        kv_gb = (r.kv_cache_bytes or 0.0) / GB
        out.memory_gb = {"weights": r.weights_gb / tp, "kv_cache": kv_gb / tp}
        out.usable_gb = None if out.hbm_gb is None else out.hbm_gb * (1 - DEFAULT_HEADROOM)
        out.fits = r.fits
        out.fit_text = _fit_text(
            r.inference_gb_per_gpu, out.hbm_gb, out.usable_gb, DEFAULT_HEADROOM
        )
    else:
        out.memory_note = "Memory not computed: see the errors"


def curve_gpu_counts(design_gpus: int | None, step: int = 8) -> np.ndarray:
    """GPU counts for the days curve: log-spaced whole nodes from one node to well past
    the design (at least 100,000 GPUs), including the design's own count."""
    top = max(100_000, 16 * (design_gpus or 0))
    counts = np.unique(np.round(np.geomspace(step, top, 64) / step).astype(int) * step)
    if design_gpus:
        counts = np.unique(np.append(counts, design_gpus))
    return counts[counts > 0]


def _curve(out: Estimate, r: WorkloadResult, w: Workload) -> None:
    if not (finite(r.peak_tflops_per_gpu) and finite(r.total_flops)):
        out.curve_note = "No curve: fix the inputs marked in red"
        return
    if finite(r.gpus) and finite(r.days):
        out.point = (float(r.gpus), float(r.days))
    counts = curve_gpu_counts(r.gpus)
    listed = counts.tolist()
    try:
        curves = training_days_curve(
            w,
            listed,
            r.peak_tflops_per_gpu,
            CURVE_MFUS,
            total_flops=r.total_flops,
            goodput=r.goodput or 1.0,
        )
        predicted = curve_days(r, w, listed)
    except InputError as exc:
        out.curve_note = f"No curve: {exc}"
        return
    out.curve_gpus = counts.astype(float)
    out.curve_days = {mfu: np.asarray(days, dtype=float) for mfu, days in curves.items()}
    if any(d is not None for d in predicted):
        out.curve_predicted = np.array([np.nan if d is None else d for d in predicted], dtype=float)


def _gpus_per_node(design: Design, gpu_slug: str | None) -> int:
    """GPUs per server of the design's servers carrying this GPU (8 when unknown)."""
    for item in design.device_types.values():
        if is_gpu_server(item) and (gpu_slug in (None, item.gpu, item.slug)):
            return int(item.gpu_count)
    return 8


#: How the deadline box's inputs are named on screen (the calculators use field names).
DEADLINE_LABELS: dict[str, str] = {"deadline_days": "Deadline (days)", "nodes_per_su": "SU (nodes)"}


def _deadline(
    out: Estimate, r: WorkloadResult, w: Workload, design: Design, days_text: str, su_text: str
) -> None:
    if not days_text.strip():
        out.deadline_text = "Type a number of days."
        return
    if not (finite(r.total_flops) and finite(r.peak_tflops_per_gpu)):
        out.deadline_text = "Fix the inputs marked in red first."
        out.deadline_error = True
        return
    per_node = _gpus_per_node(design, r.gpu_slug)
    field_name = "deadline_days"
    try:
        days = parse_quantity(days_text)
        field_name = "nodes_per_su"
        per_su = parse_quantity(su_text) if su_text.strip() else DEFAULT_NODES_PER_SU
        if per_su != int(per_su):
            raise ParseError(f"must be a whole number of nodes, got {su_text.strip()}")
        per_su = int(per_su)
        field_name = ""
        if not finite(r.mfu):
            raise InputError("mfu", "no MFU to size by")
        sizing = None
        if r.mfu_source == "predicted":  # the MFU moves with the size: ask the model
            sizing = predicted_gpus_for_deadline(r, w, days, per_node, per_su)
        if sizing is None:
            sizing = gpus_for_deadline(
                r.total_flops,
                days,
                r.peak_tflops_per_gpu,
                r.mfu,
                per_node,
                per_su,
                goodput=r.goodput or 1.0,
            )
    except (InputError, ParseError) as exc:
        field_name = getattr(exc, "field", field_name) or "deadline_days"
        if field_name in DEADLINE_LABELS:
            out.deadline_field = field_name
            out.deadline_text = f"{DEADLINE_LABELS[field_name]}: {getattr(exc, 'reason', str(exc))}"
        else:  # a workload input (MFU above 100 %): the form already marks it in red
            out.deadline_text = "Fix the inputs marked in red first."
        out.deadline_error = True
        return
    out.deadline_text = (
        f"{format_count(sizing.gpus_needed, 'GPU')} → {format_count(sizing.nodes, 'node')} "
        f"({sizing.scalable_units:,} SU × {format_count(per_su, 'node')} = "
        f"{format_count(sizing.gpus_provisioned, 'GPU')})\n"
        f"needs {fmt(sizing.effective_pflops_needed, 'PFLOP/s')} effective, "
        f"{fmt(sizing.physical_pflops_needed, 'PFLOP/s')} peak"
    )
    warning = sizing.warning or low_mfu_warning(r.mfu)
    if warning:
        out.deadline_text += f"\nWarning: {warning}"
    out.deadline = sizing.explanation


def rack_power(
    loads: Mapping[str, RackLoad],
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Rack names and typical / maximum / limit kW arrays, in the order of ``loads``.

    ``loads`` are the document's shared ``rack_loads`` (site/row/rack order).  Names
    that are not text read as their repr and figures that are no finite number as NaN
    (not drawn): pyqtgraph raises while painting a tick that is bytes or a bar that is
    infinitely tall, and an exception in a paint event can end the process in PySide.
    """
    rows = list(loads.values())
    names = [as_text(load.name) for load in rows]
    count = len(rows)

    def figures(values: Iterable[object]) -> np.ndarray:
        return np.fromiter(
            (float(v) if finite(v) else np.nan for v in values),
            dtype=np.float64,
            count=count,
        )

    typical = figures(load.kw_typical for load in rows)
    maximum = figures(load.kw_max for load in rows)
    limit = figures(load.limit_kw for load in rows)
    return names, typical, maximum, limit
