"""The layout a training job should start from: the layout search run on the design.

Why here and not in the window: "+ Training job", "Auto layout…" and the templates'
sample jobs all start a job from the fastest TP / PP / recompute / ZeRO split that fits
the design's GPUs (:func:`workbench.calc.layout_search.auto_layout`), with its inputs
gathered the way the estimate gathers them (the GPU, its usable HBM, the node and
fabric figures of :mod:`workbench.calc.training_estimate`).  The hardware is read
afresh rather than from the job's result, because a job whose current layout cannot
run (TP 3 on 8-GPU nodes) has no predicted step, and that is when a planner asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.calc import compute, memory
from workbench.calc.design_hardware import FabricFigures
from workbench.calc.errors import InputError
from workbench.calc.job_layout import batch_at, job_batch
from workbench.calc.layout_search import Candidate, LayoutChoice, auto_layout
from workbench.calc.presets import resolve_model
from workbench.calc.summary import DesignSummary
from workbench.calc.training_estimate import grad_precision_of, hardware, stack_keywords
from workbench.calc.workload import resolve_gpu
from workbench.model import Design, Workload
from workbench.units import format_count


@dataclass(frozen=True)
class Proposal:
    """What the search answered for one job: the choice, the batch it searched at, the
    GPUs, and a one-line summary (or the reason it could not search)."""

    choice: LayoutChoice | None
    global_batch: int | None
    gpus: int | None
    summary: str


def propose(
    design: Design, workload: Workload, summary: DesignSummary, fabric: FabricFigures
) -> Proposal:
    """Run the layout search for ``workload`` on ``design`` (never raises for bad input)."""
    try:
        model = resolve_model(workload.model, workload.params, workload.model_config)
        gpu = resolve_gpu(design, workload.gpu_type, summary)
        gpus = workload.gpus or summary.gpu_models.get(gpu.slug) or summary.gpus
        if not gpus:
            raise InputError("gpus", "the design has no GPUs of this model")
        peak = compute.peak_tflops(gpu, workload.precision)
        hw, _notes = hardware(design, workload, gpu, peak, fabric)
        usable, _source = memory.usable_hbm_bytes(gpu)
        seq = workload.seq_len
        nominal = job_batch(model, seq, workload.global_batch)
        batches = [nominal]
        if workload.global_batch is None:
            # The default batch grows to one sequence per DP rank: on a big design the
            # family's batch does not divide over the ranks, so try it at TP = node.
            batches.append(batch_at(nominal, max(1, gpus // hw.gpus_per_node), 1))
        choice, batch = None, batches[0]
        for batch in dict.fromkeys(batches):
            choice = auto_layout(
                model,
                hw,
                gpus,
                workload.precision,
                seq,
                batch,
                usable,
                grad_precision=grad_precision_of(workload),
                stack=stack_keywords(design, workload, model, hw, gpus),
            )
            if choice.best is not None:
                break
    except InputError as exc:
        return Proposal(None, None, None, f"No layout search: {exc}")
    assert choice is not None
    weighed = (
        f"Weighed {format_count(choice.searched, 'layout')} of {gpus:,} × "
        f"{gpu.model or gpu.slug} at a global batch of {batch:,} sequences "
        f"({choice.memory_checked:,} checked against {usable / 1e9:.1f} GB of HBM)."
    )
    if choice.best is None:
        weighed += " None fits: more GPUs, a smaller model or a shorter sequence are needed."
    return Proposal(choice, batch, gpus, weighed)


def layout_changes(candidate: Candidate, workload: Workload, batch: int | None) -> dict:
    """The Workload fields that put ``candidate``'s layout in place.

    The global batch stays blank (the default) when the default for the new layout is
    the batch the search used; otherwise the searched batch is written, so the job runs
    as the dialog showed it."""
    lay = candidate.layout
    changes: dict[str, object] = {
        "tp": lay.tp,
        "pp": lay.pp,
        "virtual_stages": lay.virtual_stages,
        "micro_batch": lay.micro_batch,
        "recompute": lay.recompute,
        "zero": lay.zero,
    }
    if lay.tp > 1:
        changes["sequence_parallel"] = lay.sequence_parallel
    if workload.global_batch is None and batch is not None:
        model = resolve_model(workload.model, workload.params, workload.model_config)
        default = batch_at(job_batch(model, lay.seq_len, None), lay.dp, lay.micro_batch)
        if default != batch:
            changes["global_batch"] = batch
    elif batch is not None and workload.global_batch != batch:
        changes["global_batch"] = batch
    return changes
