"""``workbench estimate``: training time, memory and KV cache from the command line.

Examples::

    workbench estimate --params 175e9 --tokens 200e9 --gpu-tflops 312 --gpus 1024 --mfu 0.4 --json
    workbench estimate --model llama3-70b --tokens 15e12 --gpu nvidia-h100-sxm5-80gb --gpus 1024 \\
        --memory --tp 8 --pp 4 --zero 1 --json
    workbench estimate --model llama2-7b --context 4096 --kv --json

Bad input becomes one line naming the flag, with exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from typing import Any

from workbench.calc import compute, inference, memory, step_time
from workbench.calc.errors import InputError, positive, positive_int
from workbench.calc.presets import PRESETS, ModelConfig, custom_model, get_preset
from workbench.cli import estimate_training
from workbench.cli.errors import CliError
from workbench.cli.estimate_training import GpuChoice

EXIT_BAD_INPUT = 2


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``estimate`` subcommand."""
    p = subparsers.add_parser(
        "estimate",
        help="estimate training time, per-GPU memory or KV cache",
        description="Capacity estimates. Training: --tokens with --params or --model, "
        "--gpus, --mfu and --gpu SLUG or --gpu-tflops; compute is C = 6ND (Kaplan et al. "
        "2020, 'Scaling Laws for Neural Language Models'), 8ND with full recomputation, "
        "at GPUs x dense peak x MFU (Chowdhery et al. 2022, PaLM, Appendix B). "
        "Memory: --memory; model state and ZeRO sharding after Rajbhandari et al. 2020 "
        "('ZeRO: Memory Optimizations Toward Training Trillion Parameter Models'), "
        "activations after Korthikanti et al. 2022. KV cache: --kv with --model and "
        "--context; 2 x layers x KV heads x head size x bytes per token.",
    )
    model = p.add_mutually_exclusive_group()
    model.add_argument("--params", type=float, help="model parameters N, e.g. 175e9")
    model.add_argument("--model", choices=sorted(PRESETS), help="model preset")
    p.add_argument("--tokens", type=float, help="training tokens D, e.g. 200e9")
    gpu = p.add_mutually_exclusive_group()
    gpu.add_argument("--gpu", metavar="SLUG", help="GPU or GPU-server catalog slug")
    gpu.add_argument("--gpu-tflops", type=float, help="dense TFLOPS per GPU at --precision")
    p.add_argument("--gpus", type=float, help="number of GPUs")
    p.add_argument(
        "--mfu",
        type=float,
        default=None,
        help="model FLOPs utilisation 0-1; default: predicted from the GPU, its node's "
        "NVLink and NICs, the fabric and the layout",
    )
    p.add_argument("--precision", default="bf16", help="training precision (default bf16)")
    p.add_argument(
        "--recompute",
        nargs="?",
        const="full",
        default="none",
        choices=("none", "selective", "full"),
        help="activation recomputation; bare --recompute means full (8ND)",
    )
    p.add_argument("--memory", action="store_true", help="add per-GPU training memory")
    p.add_argument("--tp", type=float, default=1, help="tensor-parallel size (default 1)")
    p.add_argument("--pp", type=float, default=1, help="pipeline-parallel size (default 1)")
    p.add_argument("--dp", type=float, help="data-parallel size (default gpus/(tp*pp))")
    p.add_argument("--zero", type=float, default=0, help="ZeRO stage 0-3 (3 = FSDP full_shard)")
    p.add_argument("--seq-len", type=float, default=4096, help="sequence length in tokens")
    p.add_argument("--micro-batch", type=float, default=1, help="micro-batch size")
    p.add_argument("--hbm-gb", type=float, help="HBM per GPU in GB (instead of --gpu)")
    p.add_argument(
        "--headroom",
        type=float,
        default=memory.DEFAULT_HEADROOM,
        help="share of HBM kept free (default 0.1)",
    )
    p.add_argument("--kv", action="store_true", help="report the KV cache (needs --model)")
    p.add_argument("--context", type=float, default=None, help="context length in tokens")
    p.add_argument("--concurrency", type=float, default=1, help="concurrent sequences")
    p.add_argument("--kv-precision", default="bf16", help="KV cache precision (default bf16)")
    estimate_training.add_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def run(args: argparse.Namespace) -> int:
    """Compute what the flags ask for and print it."""
    try:
        result = estimate(args)
    except InputError as exc:
        raise CliError(f"{_flag(exc.field)}: {exc.reason}", EXIT_BAD_INPUT) from None
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(_table(result))
    return 0


def _gpu_figures(
    args: argparse.Namespace,
) -> tuple[float | None, float | None, str | None, GpuChoice]:
    """(dense TFLOPS at --precision, usable HBM GB, slug, the items) from --gpu or
    --gpu-tflops/--hbm-gb."""
    if args.gpu is None:
        tflops = (
            None
            if args.gpu_tflops is None
            else positive("gpu_tflops", args.gpu_tflops, compute.MAX_TFLOPS_PER_GPU)
        )
        hbm = None if args.hbm_gb is None else positive("hbm_gb", args.hbm_gb, 100_000)
        return tflops, hbm, None, GpuChoice(None, None)
    from workbench.catalog import load_catalog  # lazy: only --gpu needs the catalog

    try:
        catalog = load_catalog()
        item = catalog.get(args.gpu)
    except Exception as exc:  # noqa: BLE001 - any catalog failure becomes one line
        raise CliError(
            f"--gpu: cannot use catalog item {args.gpu!r}: {exc}", EXIT_BAD_INPUT
        ) from None
    if item is None:
        raise CliError(f"--gpu: unknown catalog slug {args.gpu!r}", EXIT_BAD_INPUT)
    node = None
    if item.kind != "gpu" and item.gpu:
        node = item
        with contextlib.suppress(Exception):  # keep the server's own figures
            item = catalog.get(item.gpu) or item
    if not item.tflops:
        raise CliError(f"--gpu: {args.gpu!r} has no TFLOPS figures", EXIT_BAD_INPUT)
    tflops = compute.peak_tflops(item, args.precision)
    if args.hbm_gb is not None:
        hbm = args.hbm_gb
    elif item.hbm_gb or item.props.get("hbm_total_mib"):
        hbm = memory.usable_hbm_bytes(item)[0] / memory.GB
    else:
        hbm = None
    return tflops, hbm, item.slug, GpuChoice(item if item.kind == "gpu" else None, node)


def _model(args: argparse.Namespace) -> ModelConfig | None:
    custom = estimate_training.architecture_model(args)
    if custom is not None:
        return custom
    if args.model:
        return get_preset(args.model)
    if args.params is not None:
        return custom_model(args.params)
    return None


def estimate(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON-ready result; raises InputError/CliError on bad input."""
    if args.tokens is None and not args.memory and not args.kv:
        raise CliError("give --tokens for a training estimate, --memory, or --kv", EXIT_BAD_INPUT)
    model = _model(args)
    if model is None:
        raise CliError("--params: give --params N or --model PRESET", EXIT_BAD_INPUT)
    out: dict[str, Any] = {"model": model.name, "params": model.params}
    if args.tokens is not None or args.memory:
        tflops, hbm_gb, slug, choice = _gpu_figures(args)
        gpus = None if args.gpus is None else positive_int("gpus", args.gpus, compute.MAX_GPUS)
        if slug:
            out["gpu"] = slug
        if choice.node is not None:
            out["node"] = choice.node.slug
        dp = _dp(args, gpus)
        job = estimate_training.layout(args, model, dp)
        if args.tokens is not None:
            out.update(estimate_training.training(args, model, tflops, gpus, job, choice))
        if args.memory or (args.tokens is not None and model.has_architecture):
            out.update(_memory(args, model, hbm_gb, job.layout))
    if args.kv:
        out.update(_kv(args, model))
    return out


def _dp(args: argparse.Namespace, gpus: int | None) -> int:
    """The data-parallel degree: --dp, or gpus / (tp·cp·pp)."""
    tp = positive_int("tp", args.tp, 1024)
    pp = positive_int("pp", args.pp, 1024)
    cp = positive_int("cp", args.cp, 1024)
    if args.dp is not None:
        dp = positive_int("dp", args.dp, compute.MAX_GPUS)
        if gpus is not None and tp * pp * cp * dp != gpus:
            raise InputError("dp", f"tp·cp·pp·dp = {tp * pp * cp * dp} but --gpus is {gpus}")
        return dp
    if gpus is not None:
        return memory.data_parallel(gpus, tp * cp, pp)
    return 1


def _memory(
    args: argparse.Namespace, model: ModelConfig, hbm_gb: float | None, lay: step_time.Layout
) -> dict[str, Any]:
    """Per-GPU memory of the job's layout: the same micro-batches in flight (from the
    global batch), sequence parallelism and gradient precision as the layout search."""
    arch = model.has_architecture
    breakdown = memory.training_memory(
        model.params,
        args.precision,
        lay.zero,
        lay.dp,
        lay.tp,
        lay.pp,
        layers=model.layers if arch else None,
        hidden=model.hidden,
        heads=model.heads,
        seq_len=lay.seq_len,
        micro_batch=lay.micro_batch,
        recompute=lay.recompute,
        sequence_parallel=lay.sequence_parallel,
        hbm_gb=hbm_gb,
        headroom=args.headroom,
        flash_attention=lay.flash_attention,
        vocab=model.vocab,
        virtual_stages=lay.virtual_stages,
        ffn=model.ffn,
        kv_heads=model.kv_heads,
        gated_mlp=model.gated_mlp,
        microbatches=lay.micro_batches,
        cp=lay.cp,
        grad_precision=args.grad_precision,
    )
    return {
        "tp": lay.tp,
        "pp": lay.pp,
        "cp": lay.cp,
        "dp": lay.dp,
        "zero": lay.zero,
        "grad_precision": args.grad_precision,
        "seq_len": lay.seq_len,
        "micro_batch": lay.micro_batch,
        "global_batch": lay.global_batch,
        "memory_gb_per_gpu": breakdown.total_bytes / memory.GB,
        "memory_breakdown_gb": breakdown.gb(),
        "hbm_gb": hbm_gb,
        "usable_hbm_gb": None
        if breakdown.usable_bytes is None
        else breakdown.usable_bytes / memory.GB,
        "headroom": breakdown.headroom,
        "fits": breakdown.fits,
    }


def _kv(args, model: ModelConfig) -> dict[str, Any]:
    arch = model.require_architecture("the KV cache")
    context = args.context if args.context is not None else model.max_context
    if context is None:
        raise InputError("context", "give the context length in tokens")
    per_token = inference.kv_bytes_per_token(
        arch.layers, arch.kv_heads, arch.head_dim, args.kv_precision
    )
    total = inference.kv_cache_bytes(per_token, context, args.concurrency)
    return {
        "context": positive_int("context", context),
        "concurrency": positive_int("concurrency", args.concurrency),
        "kv_precision": args.kv_precision,
        "kv_cache_bytes_per_token": per_token,
        "kv_cache_bytes": total,
        "kv_cache_gib": inference.gib(total),
        "kv_cache_gb": total / memory.GB,
    }


_LABELS: dict[str, str] = {
    "model": "Model",
    "params": "Parameters N",
    "gpu": "GPU",
    "tokens": "Training tokens D",
    "gpus": "GPUs",
    "gpu_tflops": "Peak per GPU (dense TFLOPS)",
    "mfu": "MFU (fraction)",
    "hfu": "HFU (fraction, recompute included)",
    "mfu_source": "MFU given or predicted",
    "node": "GPU server",
    "global_batch": "Global batch (sequences)",
    "job_global_batch": "Job's global batch (sequences, before rounding)",
    "cp": "Context parallel (GPUs per sequence)",
    "grad_precision": "Gradient precision",
    "stack_profile": "Software stack profile",
    "kernel_efficiency": "Kernel efficiency (share of dense peak)",
    "calibrated_from_step_s": "Calibrated on a measured step (s)",
    "days_range": "Training time range (days, low-high)",
    "gpu_hours_range": "GPU-hours range (low-high)",
    "step_time_s": "Step time (s)",
    "goodput": "Goodput (share of wall-clock training)",
    "compute_days": "Compute time (days, goodput excluded)",
    "model_flops_per_token": "Model FLOPs per token",
    "hardware_flops_per_token": "Hardware FLOPs per token",
    "precision": "Precision",
    "recompute": "Activation recompute",
    "training_seconds": "Training time (s)",
    "tp": "Tensor parallel (GPUs)",
    "pp": "Pipeline parallel (stages)",
    "dp": "Data parallel (replicas)",
    "zero": "ZeRO stage",
    "seq_len": "Sequence length (tokens)",
    "micro_batch": "Micro-batch (sequences)",
    "hbm_gb": "HBM per GPU (GB)",
    "headroom": "HBM headroom kept free (fraction)",
    "context": "Context (tokens)",
    "concurrency": "Concurrent sequences",
    "kv_precision": "KV precision",
    "kv_cache_bytes": "KV cache total (bytes)",
    "kv_cache_gb": "KV cache total (GB)",
    "total_flops": "Training compute (FLOPs)",
    "effective_pflops": "Effective rate (PFLOP/s)",
    "days": "Training time (days)",
    "gpu_hours": "GPU-hours",
    "tokens_per_s": "Throughput (tokens/s)",
    "memory_gb_per_gpu": "Memory per GPU (GB)",
    "usable_hbm_gb": "Usable HBM per GPU (GB)",
    "fits": "Fits in HBM",
    "kv_cache_bytes_per_token": "KV cache per token (bytes)",
    "kv_cache_gib": "KV cache total (GiB)",
}


def _table(result: dict[str, Any]) -> str:
    """Readable two-column table with units in the labels."""
    rows: list[tuple[str, str]] = []
    for key, value in result.items():
        if key == "memory_breakdown_gb":
            for part, gb in value.items():
                rows.append((f"  {part} (GB/GPU)", "unknown" if gb is None else f"{gb:,.2f}"))
            continue
        if key == "step_breakdown_s":
            for part, seconds in value.items():
                rows.append((f"  {part.replace('_', ' ')} (s)", f"{seconds:,.3f}"))
            continue
        if key == "warnings":
            rows.extend(("Note", text) for text in value)
            continue
        if key.endswith("_range"):
            rows.append((_LABELS.get(key, key), f"{value[0]:,.1f} - {value[1]:,.1f}"))
            continue
        label = _LABELS.get(key, key)
        if isinstance(value, bool) or value is None:
            text = {True: "yes", False: "no", None: "unknown"}[value]
        elif isinstance(value, float):
            text = f"{value:.4g}" if abs(value) >= 1e7 else f"{value:,.2f}"
        else:
            text = str(value)
        rows.append((label, text))
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {text}" for label, text in rows)
