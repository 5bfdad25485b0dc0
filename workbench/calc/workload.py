"""Evaluate a design's workload (a training job or an inference service), with explanations.

``evaluate_workload`` never raises on bad input: a half-filled form gets a result whose
``errors`` lists :class:`InputError` values (each naming its field) and whose figures
are ``None`` where they could not be computed; whatever does not depend on the bad
field is still filled in.  Each figure has an :class:`Explained` entry (formula,
numbers substituted, source) under the same key in ``explanations``.

The GPU is ``workload.gpu_type`` (a GPU slug, or a server slug whose GPU is used) or the
design's most common GPU; the GPU count is ``workload.gpus`` or, when ``None``, the number
of GPUs of that model in the design.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.calc import compute, inference, memory, training_estimate
from workbench.calc.design_hardware import FabricFigures, fabric_figures
from workbench.calc.errors import InputError, fraction, positive, positive_int
from workbench.calc.explain import Explained, num
from workbench.calc.presets import ModelConfig, resolve_model
from workbench.calc.step_time import Hardware, Layout, StepPrediction
from workbench.calc.summary import DesignSummary, summarize
from workbench.catalog.item import CatalogItem
from workbench.model.design import Design, Workload
from workbench.model.parts import WORKLOAD_KINDS

KINDS = WORKLOAD_KINDS
_KV = "NVIDIA Technical Blog 'Mastering LLM Techniques: Inference Optimization' (GQA: kv_heads)"


@dataclass
class WorkloadResult:
    """Figures for one workload; ``None`` where an input error prevented them."""

    workload_id: str
    kind: str
    model: ModelConfig | None = None
    gpu_slug: str | None = None
    gpus: int | None = None
    peak_tflops_per_gpu: float | None = None
    hbm_gb: float | None = None
    # training
    total_flops: float | None = None
    effective_pflops: float | None = None
    seconds: float | None = None
    days: float | None = None
    gpu_hours: float | None = None
    tokens_per_s: float | None = None
    dp: int | None = None
    memory: memory.MemoryBreakdown | None = None
    #: The MFU the days use, whether the user gave it or the design predicted it.
    mfu: float | None = None
    mfu_source: str | None = None
    hfu: float | None = None
    goodput: float | None = None
    compute_days: float | None = None
    global_batch: int | None = None
    #: The job's own global batch (sequences) before rounding to this size's DP ranks:
    #: what the curve and the deadline answer keep at every other size.
    job_batch: int | None = None
    #: The software-stack profile the prediction used (calc/stack_profiles.py), the
    #: step-time keywords it set (kernel efficiency, overlap), and the low/high band of
    #: the days and GPU-hours from the profile's spread.
    stack_profile: str | None = None
    step_keywords: dict[str, Any] | None = None
    days_range: tuple[float, float] | None = None
    gpu_hours_range: tuple[float, float] | None = None
    step_time_s: float | None = None
    step_breakdown_s: dict[str, float] | None = None
    step: StepPrediction | None = None
    layout: Layout | None = None
    hardware: Hardware | None = None
    hbm_usable_gb: float | None = None
    hbm_source: str = ""
    # inference
    weights_gb: float | None = None
    kv_bytes_per_token: float | None = None
    kv_cache_bytes: float | None = None
    kv_cache_gib: float | None = None
    inference_gb_per_gpu: float | None = None
    max_concurrency: int | None = None
    decode_tokens_per_s: float | None = None
    decode_tokens_per_s_per_sequence: float | None = None
    explanations: dict[str, Explained] = field(default_factory=dict)
    errors: list[InputError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def memory_gb_per_gpu(self) -> float | None:
        """Training: per-GPU total in GB (1e9); inference: weights + KV per GPU."""
        if self.memory is not None:
            return self.memory.total_bytes / memory.GB
        return self.inference_gb_per_gpu

    @property
    def fits(self) -> bool | None:
        """Memory verdict against usable HBM; None when unknown."""
        if self.memory is not None:
            return self.memory.fits
        if self.inference_gb_per_gpu is not None and self.hbm_gb:
            return self.inference_gb_per_gpu <= self.hbm_gb * (1 - memory.DEFAULT_HEADROOM)
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping, units in the keys."""
        out: dict[str, Any] = {
            "id": self.workload_id,
            "kind": self.kind,
            "model": self.model.name if self.model else None,
            "gpu": self.gpu_slug,
            "gpus": self.gpus,
            "peak_tflops_per_gpu": self.peak_tflops_per_gpu,
            "memory_gb_per_gpu": self.memory_gb_per_gpu,
            "fits": self.fits,
            "errors": [str(e) for e in self.errors],
            "warnings": list(self.warnings),
        }
        if self.kind == "training":
            out.update(
                total_flops=self.total_flops,
                effective_pflops=self.effective_pflops,
                days=self.days,
                gpu_hours=self.gpu_hours,
                tokens_per_s=self.tokens_per_s,
                dp=self.dp,
                mfu=self.mfu,
                hfu=self.hfu,
                mfu_source=self.mfu_source,
                step_time_s=self.step_time_s,
                step_breakdown_s=self.step_breakdown_s,
                global_batch=self.global_batch,
                job_global_batch=self.job_batch,
                stack_profile=self.stack_profile,
                kernel_efficiency=(self.step_keywords or {}).get("kernel_efficiency"),
                days_range=None if self.days_range is None else list(self.days_range),
                gpu_hours_range=None
                if self.gpu_hours_range is None
                else list(self.gpu_hours_range),
                goodput=self.goodput,
                compute_days=self.compute_days,
                hbm_usable_gb=self.hbm_usable_gb,
                memory_breakdown_gb=self.memory.gb() if self.memory else None,
            )
        else:
            out.update(
                weights_gb=self.weights_gb,
                kv_cache_bytes_per_token=self.kv_bytes_per_token,
                kv_cache_gib=self.kv_cache_gib,
                max_concurrency=self.max_concurrency,
                decode_tokens_per_s=self.decode_tokens_per_s,
            )
        return out


def resolve_gpu(design: Design, slug: str | None, summary: DesignSummary) -> CatalogItem:
    """The GPU item for ``slug`` (GPU or server slug) or the design's most common GPU."""
    wanted = slug or summary.main_gpu
    if not wanted:
        raise InputError("gpu_type", "the design has no GPUs; add GPU servers or choose a GPU")
    item = design.device_types.get(wanted)
    if item is None:
        raise InputError("gpu_type", f"{wanted!r} is not in this design's device types")
    if item.kind != "gpu" and item.gpu:
        gpu = design.device_types.get(item.gpu)
        if gpu is not None:
            return gpu
    if not item.tflops and not item.hbm_gb:
        raise InputError("gpu_type", f"{wanted!r} has no GPU figures (TFLOPS, HBM)")
    return item


def _attempt(result: WorkloadResult, func, *args, **kwargs):
    """Call ``func``; record an InputError in ``result.errors`` and return None instead."""
    try:
        return func(*args, **kwargs)
    except InputError as exc:
        result.errors.append(exc)
        return None


def evaluate_workload(
    design: Design,
    workload: Workload,
    summary: DesignSummary | None = None,
    fabric: FabricFigures | None = None,
) -> WorkloadResult:
    """Every figure of ``workload`` on ``design``; input problems go to ``.errors``.

    ``fabric`` is the compute plane's figures when the caller keeps them (they take
    half a second on a 100,000-GPU design); computed here otherwise.
    """
    result = WorkloadResult(workload_id=workload.id, kind=workload.kind)
    if workload.kind not in KINDS:
        result.errors.append(
            InputError("kind", f"must be training or inference, got {workload.kind!r}")
        )
        return result
    summary = summary or summarize(design)
    result.model = _attempt(
        result, resolve_model, workload.model, workload.params, workload.model_config
    )
    gpu = _attempt(result, resolve_gpu, design, workload.gpu_type, summary)
    if gpu is not None:
        result.gpu_slug = gpu.slug
        result.hbm_gb = gpu.hbm_gb
    if workload.gpus is not None:
        result.gpus = _attempt(result, positive_int, "gpus", workload.gpus, compute.MAX_GPUS)
    elif gpu is not None:
        result.gpus = summary.gpu_models.get(gpu.slug) or summary.gpus or None
        if not result.gpus:
            result.errors.append(InputError("gpus", "the design has no GPUs of this model"))
    if workload.kind == "training":
        if fabric is None:
            fabric = fabric_figures(design)
        training_estimate.train(
            result, design, workload, gpu, fabric, _attempt, summary.gpu_servers
        )
    else:
        _inference(result, workload, gpu)
    return result


def _inference(result: WorkloadResult, w: Workload, gpu: CatalogItem | None) -> None:
    model = result.model
    if model is None:
        return
    weights = _attempt(result, inference.weights_bytes, model.params, w.precision)
    if weights is not None:
        result.weights_gb = weights / memory.GB
        result.explanations["weights_gb"] = Explained(
            result.weights_gb,
            "GB",
            "weights = N · bytes per parameter / 1e9",
            f"{num(model.params)}·{num(memory.BYTES_PER_ELEMENT[w.precision])} / 1e9",
            "one copy of the weights in the serving precision",
        )
    try:
        arch = model.require_architecture("the KV cache")
        per_token = inference.kv_bytes_per_token(
            arch.layers, arch.kv_heads, arch.head_dim, w.kv_precision
        )
        total = inference.kv_cache_bytes(per_token, w.context, w.concurrency)
    except InputError as exc:
        result.errors.append(exc)
        return
    if model.max_context and w.context > model.max_context:
        result.warnings.append(
            f"context {w.context} exceeds the model's {model.max_context} tokens"
        )
    result.kv_bytes_per_token, result.kv_cache_bytes = per_token, total
    result.kv_cache_gib = inference.gib(total)
    result.explanations["kv_bytes_per_token"] = Explained(
        per_token,
        "bytes/token",
        "2·layers·kv_heads·head_dim·bytes",
        f"2·{model.layers}·{model.kv_heads}·{model.head_dim}·{num(memory.BYTES_PER_ELEMENT[w.kv_precision])}",
        _KV,
    )
    result.explanations["kv_cache_gib"] = Explained(
        result.kv_cache_gib,
        "GiB",
        "KV = bytes/token · context · concurrency / 2^30",
        f"{num(per_token)}·{w.context}·{w.concurrency} / 2^30",
        _KV,
    )
    tp = _attempt(result, positive_int, "tp", w.tp, 1024)
    if weights is None or tp is None or gpu is None:
        return
    result.inference_gb_per_gpu = (weights + total) / tp / memory.GB
    result.explanations["memory_gb_per_gpu"] = Explained(
        result.inference_gb_per_gpu,
        "GB",
        "M = (weights + KV) / tp / 1e9",
        f"({num(weights)} + {num(total)}) / {tp} / 1e9",
        "weights and KV heads are sharded across the tensor-parallel GPUs",
    )
    if gpu.hbm_gb:
        result.max_concurrency = _attempt(
            result,
            inference.max_concurrent_sequences,
            gpu.hbm_gb,
            weights,
            per_token,
            w.context,
            tp,
        )
        if result.max_concurrency is not None:
            result.explanations["max_concurrency"] = Explained(
                float(result.max_concurrency),
                "sequences",
                "floor((tp·HBM·(1 − headroom) − weights) / (KV per token · context))",
                f"floor(({tp}·{num(gpu.hbm_gb * memory.GB)}·{num(1 - memory.DEFAULT_HEADROOM)} − "
                f"{num(weights)}) / ({num(per_token)}·{w.context}))",
                _KV,
            )
    if gpu.hbm_bw_tbs:
        bound = _attempt(
            result,
            inference.decode_bound,
            gpu.hbm_bw_tbs,
            weights,
            per_token * w.context,
            w.concurrency,
            tp,
        )
        if bound is not None:
            result.decode_tokens_per_s = bound.tokens_per_s
            result.decode_tokens_per_s_per_sequence = bound.tokens_per_s_per_sequence
            result.explanations["decode_tokens_per_s"] = Explained(
                bound.tokens_per_s,
                "tokens/s",
                "tokens/s ≤ tp·HBM_bw·batch / (weights + batch·KV_seq)",
                f"{tp}·{num(gpu.hbm_bw_tbs * 1e12)}·{w.concurrency} / ({num(weights)} + "
                f"{w.concurrency}·{num(per_token * w.context)})",
                "decode is HBM-bandwidth bound (NVIDIA inference-optimization blog; Pope et al. 2022)",
            )
            result.explanations["decode_per_sequence"] = Explained(
                bound.tokens_per_s_per_sequence,
                "tokens/s",
                "per sequence = decode bound / concurrent sequences",
                f"{num(bound.tokens_per_s)} / {w.concurrency}",
                "each decode step emits one token per sequence in the batch",
            )


def training_days_curve(
    workload: Workload,
    gpu_counts: Sequence[int],
    peak_tflops: float,
    mfus: Sequence[float] = (0.3, 0.4, 0.5),
    total_flops: float | None = None,
    goodput: float = 1.0,
) -> dict[float, list[float]]:
    """Training days against GPU count for each MFU (the Estimates plot's band), vectorised.

    ``days = C / (gpus · peak · MFU) / goodput / 86400`` for every (MFU, gpus) pair;
    ``total_flops`` is the evaluated job's C (the published accounting), else 6·N·D.
    """
    if total_flops is None:
        model = resolve_model(workload.model, workload.params, workload.model_config)
        flops = compute.training_flops(model.params, workload.tokens, workload.recompute)
    else:
        flops = positive("total_flops", total_flops)
    flops /= fraction("goodput", goodput)
    peak = positive("gpu_tflops", peak_tflops, compute.MAX_TFLOPS_PER_GPU) * 1e12
    counts = np.asarray(
        [positive_int("gpus", g, compute.MAX_GPUS) for g in gpu_counts], dtype=float
    )
    mfu_arr = np.asarray([fraction("mfu", m) for m in mfus], dtype=float)
    days = flops / (mfu_arr[:, None] * counts[None, :] * peak) / compute.SECONDS_PER_DAY
    return {float(m): row.tolist() for m, row in zip(mfu_arr, days, strict=True)}
