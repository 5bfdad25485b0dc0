"""Workload rules: does the job fit, does its layout tile the GPUs, does it finish in time,
and does it stay on one GPU model.

Every figure comes from :func:`workbench.calc.workload.evaluate_workload` (through the
rule context, so the window reuses the result its Estimates view shows); the rules only
turn its verdicts into findings.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.calc.memory import GB
from workbench.model import Workload
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.rules.sources import planning
from workbench.units import finite, format_quantity

#: Input fields that describe the parallel layout (their errors are WORKLOAD-PARALLEL).
LAYOUT_FIELDS: frozenset[str] = frozenset({"tp", "pp", "dp"})


@rule(
    "WORKLOAD-INPUT",
    title="A workload input the calculators cannot use",
    severity=Severity.ERROR,
    scope="workload",
    looks_at={"workload", "device", "design"},
    source="calculator input checks (calc/errors.py)",
)
def workload_input(ctx: RuleContext, me: Rule, workload: Workload) -> Iterator[Finding]:
    result = ctx.evaluate(workload)
    for error in result.errors:
        if error.field not in LAYOUT_FIELDS:
            yield me.finding(f"{workload.name}: {error.field}: {error.reason}.", workload.id)


@rule(
    "WORKLOAD-PARALLEL",
    title="TP·PP does not divide the GPUs",
    severity=Severity.ERROR,
    scope="workload",
    looks_at={"workload", "device", "design"},
    source="Narayanan et al. 2021 (Megatron-LM, SC21) §2: gpus = tp · pp · dp",
)
def workload_parallel(ctx: RuleContext, me: Rule, workload: Workload) -> Iterator[Finding]:
    result = ctx.evaluate(workload)
    for error in result.errors:
        if error.field in LAYOUT_FIELDS:
            yield me.finding(f"{workload.name}: {error.reason}.", workload.id)


@rule(
    "WORKLOAD-MEMORY",
    title="The job does not fit in GPU memory",
    severity=Severity.ERROR,
    scope="workload",
    looks_at={"workload", "device", "design"},
    source="Rajbhandari et al. 2020 (ZeRO) §3.1 (16 bytes/parameter with Adam); "
    "Korthikanti et al. 2022 (activations)",
)
def workload_memory(ctx: RuleContext, me: Rule, workload: Workload) -> Iterator[Finding]:
    result = ctx.evaluate(workload)
    if result.fits is not False:
        return
    need = result.memory_gb_per_gpu
    usable = None
    if result.memory is not None and result.memory.usable_bytes is not None:
        usable = result.memory.usable_bytes / GB
    elif result.hbm_gb:
        usable = result.hbm_gb * (1 - (result.memory.headroom if result.memory else 0.1))
    layout = (
        f"TP {workload.tp}, PP {workload.pp}, ZeRO-{workload.zero}"
        if workload.kind == "training"
        else f"TP {workload.tp}"
    )
    yield me.finding(
        f"{workload.name} needs {format_quantity(need, 'GB')} per GPU with {layout}; "
        f"{format_quantity(usable, 'GB')} of {format_quantity(result.hbm_gb, 'GB')} HBM is "
        "usable. Raise TP, PP or the ZeRO stage, recompute activations, or use GPUs with "
        "more memory.",
        workload.id,
    )


@rule(
    "WORKLOAD-DEADLINE",
    title="Training runs past its target window",
    severity=Severity.WARNING,
    scope="workload",
    looks_at={"workload", "device", "design"},
    source=planning(
        "if the time does not fit the business window, add GPUs, raise MFU or shrink "
        "the model or data"
    ),
)
def workload_deadline(ctx: RuleContext, me: Rule, workload: Workload) -> Iterator[Finding]:
    target = workload.target_days
    if workload.kind != "training" or target is None:
        return
    if not finite(target) or not target > 0:
        yield me.finding(
            f"{workload.name}: the target {target!r} is not a number of days above 0; "
            "the deadline cannot be checked.",
            workload.id,
        )
        return
    result = ctx.evaluate(workload)
    if result.days is None or result.days <= target:
        return
    yield me.finding(
        f"{workload.name} takes {format_quantity(result.days, 'days')} on "
        f"{result.gpus:,} GPUs, past its target of {format_quantity(target, 'days')}.",
        workload.id,
    )


@rule(
    "WORKLOAD-MIXED-GPU",
    title="A workload spans GPU models",
    severity=Severity.ERROR,
    scope="workload",
    looks_at={"workload", "device", "design"},
    source=planning("do not mix GPU models inside a node or a partition"),
)
def workload_mixed_gpu(ctx: RuleContext, me: Rule, workload: Workload) -> Iterator[Finding]:
    models = ctx.summary.gpu_models
    if len(models) < 2:
        return
    result = ctx.evaluate(workload)
    slug = result.gpu_slug
    if slug is None:
        return
    of_model = models.get(slug, 0)
    mix = ", ".join(f"{n:,} × {s}" for s, n in sorted(models.items()))
    if workload.gpus is not None and workload.gpus > of_model:
        yield me.finding(
            f"{workload.name} asks for {workload.gpus:,} GPUs, but the design has only "
            f"{of_model:,} {slug}; the rest would be other models ({mix}).",
            workload.id,
        )
    elif workload.gpu_type is None:
        yield me.finding(
            f"{workload.name} names no GPU model while the design mixes {mix}; it is "
            f"planned on the {of_model:,} {slug}. Choose its GPU model.",
            workload.id,
            severity=Severity.WARNING,
        )
