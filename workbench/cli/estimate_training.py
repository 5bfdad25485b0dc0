"""The training part of ``workbench estimate``: FLOPs, predicted step time, MFU, days.

Why apart from :mod:`workbench.cli.estimate_cmd`: the flags of a full architecture and
a parallel layout are many, and the predicted estimate must use exactly the functions
the window and ``workbench report`` use (:mod:`workbench.calc.step_time`,
:mod:`workbench.calc.flops`, :func:`workbench.calc.training_estimate.run_time`), so
this module only turns flags into their inputs and their results into JSON.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Any

from workbench.calc import compute, step_time
from workbench.calc import flops as fl
from workbench.calc.design_hardware import figures_of
from workbench.calc.errors import InputError, fraction, positive, positive_int
from workbench.calc.job_layout import DEFAULT_GRAD_PRECISION, JobLayout, job_layout
from workbench.calc.memory import GRADIENT_PRECISIONS
from workbench.calc.presets import ModelConfig, model_from_config
from workbench.calc.stack_profiles import CALIBRATED_SPREAD, PLANNING_MFU, calibrate, profile_for
from workbench.calc.training_estimate import PLAN_SOURCE, low_mfu_warning, run_time, step_at_mfu
from workbench.catalog.item import CatalogItem
from workbench.cli.errors import CliError

EXIT_BAD_INPUT = 2
#: Architecture flags and the model-config field each fills.
ARCH_FLAGS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The architecture, layout and hardware flags of the training estimate."""
    arch = p.add_argument_group("architecture (instead of --model)")
    arch.add_argument("--layers", type=float, help="transformer layers")
    arch.add_argument("--hidden", type=float, help="hidden size")
    arch.add_argument("--heads", type=float, help="attention heads")
    arch.add_argument("--kv-heads", type=float, help="key/value heads (GQA; default --heads)")
    arch.add_argument("--ffn", type=float, help="MLP width (default 4 x hidden)")
    arch.add_argument("--vocab", type=float, help="vocabulary size (default 32000)")
    arch.add_argument(
        "--gated-mlp", action="store_true", help="SwiGLU/gated MLP (three FFN matrices)"
    )
    lay = p.add_argument_group("layout and run")
    lay.add_argument(
        "--global-batch",
        type=float,
        help="sequences per optimizer step (default: the model family's published batch, "
        "4M tokens for Llama)",
    )
    lay.add_argument(
        "--virtual-stages", type=float, default=1, help="interleaved pipeline chunks per GPU"
    )
    lay.add_argument(
        "--cp", type=float, default=1, help="context-parallel size: GPUs sharing a sequence"
    )
    lay.add_argument(
        "--grad-precision",
        choices=sorted(GRADIENT_PRECISIONS),
        default=DEFAULT_GRAD_PRECISION,
        help="gradient precision: bf16 as DeepSpeed ZeRO (16 bytes/param), fp32 main "
        f"gradients as Megatron (18 bytes/param; default {DEFAULT_GRAD_PRECISION})",
    )
    lay.add_argument(
        "--sequence-parallel",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="Megatron sequence parallelism with TP (default on)",
    )
    lay.add_argument(
        "--flash-attention",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="FlashAttention: scores never stored (default on)",
    )
    lay.add_argument(
        "--goodput",
        type=float,
        default=step_time.DEFAULT_GOODPUT,
        help=f"share of wall-clock that trains (default {step_time.DEFAULT_GOODPUT:g})",
    )
    stack = p.add_argument_group("software stack and calibration")
    stack.add_argument(
        "--stack",
        help="framework or profile: megatron-lm, deepspeed, megatron-core, nemo, "
        "torchtitan, or a profile key (default: the generic profile)",
    )
    stack.add_argument(
        "--measured-step",
        type=float,
        help="a measured step time in seconds of this job on your cluster: fits the "
        "stack's kernel efficiency, then predicts from it",
    )
    stack.add_argument(
        "--plan-at-30",
        action="store_true",
        help="plan at a pessimistic 30 %% MFU until the cluster is benchmarked",
    )
    hw = p.add_argument_group("hardware (beyond --gpu)")
    hw.add_argument(
        "--nic-gbps", type=float, help="compute NIC Gb/s per GPU (overrides the node's)"
    )
    hw.add_argument(
        "--oversubscription",
        type=float,
        default=1.0,
        help="compute fabric oversubscription between full-bandwidth groups, e.g. 7 for "
        "1:7 between pods (default 1, non-blocking)",
    )
    hw.add_argument(
        "--pod-gpus",
        type=float,
        help="GPUs in one full-bandwidth group (a leaf or a pod); a data-parallel ring "
        "crosses the oversubscribed uplinks only between groups (default: any two nodes)",
    )


def architecture_model(args: argparse.Namespace) -> ModelConfig | None:
    """A custom model from the architecture flags (None when none is given)."""
    given = {f: getattr(args, f) for f in ARCH_FLAGS if getattr(args, f) is not None}
    if not given and not args.gated_mlp:
        return None
    if args.model:
        raise InputError("layers", "give either --model or the architecture flags, not both")
    missing = [f for f in ("layers", "hidden", "heads") if f not in given]
    if missing:
        raise InputError(missing[0], "the architecture needs --layers, --hidden and --heads")
    config: dict[str, Any] = {}
    for name, value in given.items():
        if not math.isfinite(value) or value != int(value):
            raise InputError(name, f"must be a whole number, got {value:g}")
        config[name] = int(value)
    config.setdefault("ffn", 4 * config["hidden"])
    config.setdefault("vocab", 32_000)
    config["gated_mlp"] = bool(args.gated_mlp)
    shape_model = model_from_config({**config, "params": 1.0})
    counted = fl.parameter_count(fl.shape_of(shape_model))
    config["params"] = counted if args.params is None else args.params
    return model_from_config(config, name="custom")


@dataclass(frozen=True)
class GpuChoice:
    """What --gpu named: the GPU item and the server type it sits in (if a server)."""

    gpu: CatalogItem | None
    node: CatalogItem | None


def hardware(
    args: argparse.Namespace, tflops: float, choice: GpuChoice
) -> tuple[step_time.Hardware, list[str]]:
    """The step-time model's hardware from --gpu (a server gives NVLink and NICs)."""
    nic = None if args.nic_gbps is None else positive("nic_gbps", args.nic_gbps, 1e5)
    notes: list[str] = []
    if choice.gpu is not None:
        figures = figures_of(choice.gpu, choice.node, nic)
        notes.extend(figures.missing)
        per_node, nvlink, nic_gbps = (
            figures.gpus_per_node,
            figures.nvlink_gbs,
            figures.nic_gbps_per_gpu,
        )
    else:
        per_node, nvlink, nic_gbps = 8, None, nic
        notes.append("--gpu-tflops gives no NVLink or node size: 8 GPUs per node, TP over the NIC")
    return (
        step_time.Hardware(
            peak_tflops=tflops,
            gpus_per_node=per_node,
            nvlink_gbs=nvlink,
            nic_gbps_per_gpu=nic_gbps,
            oversubscription=positive("oversubscription", args.oversubscription, 1000),
            gpus_per_leaf=None
            if args.pod_gpus is None
            else positive_int("pod_gpus", args.pod_gpus, 10_000_000),
            hbm_tbs=choice.gpu.hbm_bw_tbs if choice.gpu is not None else None,
        ),
        notes,
    )


def layout(args: argparse.Namespace, model: ModelConfig | None, dp: int) -> JobLayout:
    """The layout from the flags through the one job-to-layout rule
    (:func:`workbench.calc.job_layout.job_layout`; InputError naming the flag)."""
    return job_layout(
        model=model,
        tp=args.tp,
        pp=args.pp,
        cp=args.cp,
        dp=dp,
        seq_len=args.seq_len,
        micro_batch=args.micro_batch,
        global_batch=args.global_batch,
        virtual_stages=args.virtual_stages,
        recompute=args.recompute,
        zero=args.zero,
        sequence_parallel=bool(args.sequence_parallel),
        flash_attention=bool(args.flash_attention),
    )


def training(
    args: argparse.Namespace,
    model: ModelConfig,
    tflops: float | None,
    gpus: int | None,
    job: JobLayout | None,
    choice: GpuChoice,
) -> dict[str, Any]:
    """The training figures: predicted from the hardware and layout; with --mfu the
    days, throughput and the step time follow the stated MFU."""
    if tflops is None:
        raise CliError(
            "--gpu: give --gpu SLUG or --gpu-tflops for a training estimate", EXIT_BAD_INPUT
        )
    if gpus is None or job is None:
        raise CliError("--gpus: give the number of GPUs", EXIT_BAD_INPUT)
    goodput = fraction("goodput", args.goodput)
    tokens = positive("tokens", args.tokens, compute.MAX_TOKENS)
    out: dict[str, Any] = {"tokens": tokens, "gpus": gpus, "gpu_tflops": tflops}
    known = model.has_architecture and model.ffn and model.vocab
    lay = job.layout
    prediction = None
    spread = (0.0, 0.0)
    if known:
        shape = fl.shape_of(model)
        per_token = fl.model_flops_per_token(shape, lay.seq_len)
        hw_per_token = fl.hardware_flops_per_token(
            shape, lay.seq_len, lay.recompute, flash_attention=lay.flash_attention
        )
        hw, notes = hardware(args, tflops, choice)
        if lay.tp > hw.gpus_per_node and hw.nic_gbps_per_gpu is None:
            raise InputError(
                "tp",
                f"{lay.tp} spans more than one {hw.gpus_per_node}-GPU node and no NIC figure "
                "is known: give --nic-gbps or a GPU server with --gpu",
            )
        profile, note = profile_for(args.stack, args.precision)
        keywords = profile.keywords()
        out["stack_profile"] = profile.key
        spread = profile.spread
        if args.measured_step is not None:
            k = calibrate(model, lay, hw, profile, args.measured_step)
            keywords["kernel_efficiency"] = k
            out["kernel_efficiency"] = k
            out["calibrated_from_step_s"] = args.measured_step
            spread = CALIBRATED_SPREAD
        else:
            out["kernel_efficiency"] = profile.kernel_efficiency
        prediction = step_time.predict_step(model, lay, hw, args.precision, **keywords)
        out["warnings"] = [*notes, *([note] if note else []), *prediction.warnings]
        out["global_batch"] = lay.global_batch
        out["job_global_batch"] = job.job_batch
        out["step_time_s"] = prediction.step_time_s
        out["step_breakdown_s"] = dict(prediction.breakdown_s)
    else:
        per_token = 6.0 * model.params
        hw_per_token = compute.RECOMPUTE_FLOPS_FACTOR[args.recompute] * model.params
    if args.plan_at_30 and args.mfu is None:
        args.mfu = PLANNING_MFU
    if args.mfu is not None:
        mfu = fraction("mfu", args.mfu)
        source = PLAN_SOURCE if args.plan_at_30 else "given"
        if prediction is not None:
            step, parts = step_at_mfu(prediction.breakdown_s, lay, per_token, tflops, mfu)
            out["step_time_s"], out["step_breakdown_s"] = step, parts
    elif prediction is not None:
        mfu, source = prediction.mfu, "predicted"
    else:
        raise InputError(
            "mfu",
            "give --mfu, or the architecture (--model or --layers/--hidden/--heads) so it "
            "can be predicted",
        )
    total = per_token * tokens
    compute_s, wall_s, gpu_hours = run_time(total, gpus, tflops, mfu, goodput)
    out.update(
        mfu=mfu,
        hfu=mfu * hw_per_token / per_token,
        mfu_source=source,
        precision=args.precision,
        recompute=args.recompute,
        model_flops_per_token=per_token,
        hardware_flops_per_token=hw_per_token,
        total_flops=total,
        effective_pflops=compute.effective_flops_per_s(gpus, tflops, mfu) / 1e15,
        goodput=goodput,
        compute_days=compute_s / compute.SECONDS_PER_DAY,
        training_seconds=wall_s,
        days=wall_s / compute.SECONDS_PER_DAY,
        gpu_hours=gpu_hours,
        tokens_per_s=compute.effective_flops_per_s(gpus, tflops, mfu) / per_token,
    )
    if prediction is not None and source == "predicted":
        out["days_range"] = [out["days"] * (1 + spread[0]), out["days"] * (1 + spread[1])]
        out["gpu_hours_range"] = [gpu_hours * (1 + spread[0]), gpu_hours * (1 + spread[1])]
    warning = low_mfu_warning(mfu)
    if warning:
        out.setdefault("warnings", []).append(f"MFU: {warning}")
    return out
