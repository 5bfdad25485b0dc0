"""Software-stack profiles: the kernel efficiency and the overlapped communication of
the framework a training job runs on, each fitted on named published runs.

Why: one kernel efficiency for every stack was the largest error of the step-time
model (issue 25): DeepSpeed-era stacks on A100 need 0.49-0.53 of peak, current Megatron
Core on H100 0.68-0.70, and current stacks hide the tensor-parallel collectives that
the 2021 Megatron-LM exposed.  A job names its framework and precision; the profile
gives the three things the step-time model takes (:func:`step_time.predict_step`'s
``kernel_efficiency``, ``collective_efficiency`` and ``overlap``), and the spread of
its fit (low/high) for the range of the days.

What is fitted and what is stated: the kernel efficiency of each profile is fitted on
the runs its ``fitted_on`` names (:func:`fit_profile`, the same loss as
:mod:`workbench.calc.published_runs`); which communication a stack overlaps is a
documented property of that stack version (its ``overlap_source``), not fitted.  The
collective efficiency stays comm.py's NCCL-derived 0.8.  ``tests/test_stack_profiles.py``
refits every profile and checks the constants below, and computes the held-out errors.

A measured step time of the job's own cluster replaces the profile's kernel efficiency
(:func:`calibrate`): the one figure solved so that the model gives that step, then used
for every other layout and size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.calc import step_time as st
from workbench.calc.errors import InputError, positive
from workbench.calc.presets import ModelConfig


@dataclass(frozen=True)
class StackProfile:
    """One framework (and version range) at one precision."""

    key: str
    name: str
    precision: str
    kernel_efficiency: float
    overlap: st.Overlap
    #: Keys of the published runs the kernel efficiency was fitted on.
    fitted_on: tuple[str, ...]
    source: str
    overlap_source: str
    #: The profile's error on its runs, (most negative, most positive) predicted/measured
    #: − 1, widened to at least ±5 %: the low/high band of the days.
    spread: tuple[float, float] = (-0.10, 0.10)
    collective_efficiency: float = st.DEFAULT_COLLECTIVE_EFFICIENCY
    #: Frameworks (lower-case names as the version matrix spells them) that map here.
    frameworks: tuple[str, ...] = field(default=())
    generic: bool = False

    def keywords(self) -> dict[str, Any]:
        """The keywords of :func:`step_time.predict_step` this profile sets."""
        return {
            "kernel_efficiency": self.kernel_efficiency,
            "collective_efficiency": self.collective_efficiency,
            "overlap": self.overlap,
        }


#: The band of a prediction calibrated on a measured step of the same stack and cluster:
#: the ±5 % the held-out calibration checks reach (tests/test_stack_profiles.py).
CALIBRATED_SPREAD = (-0.05, 0.05)
#: The seeds' advice: plan at a pessimistic 30 % MFU until the cluster is benchmarked.
PLANNING_MFU = 0.30

_NCCL = "the collective efficiency is comm.py's 0.8 (NCCL maintainers' busbw figures)"

GENERIC = StackProfile(
    key="generic",
    name="Generic (no stack named)",
    precision="any",
    kernel_efficiency=st.DEFAULT_KERNEL_EFFICIENCY,
    overlap=st.NO_OVERLAP,
    fitted_on=("published_runs.runs(): 22 A100/H100 runs of Megatron-LM, BLOOM, LLaMA, Llama 3",),
    source="published_runs.fit_kernel_efficiency on all 22 runs (leave-one-out 7.0 % mean)",
    overlap_source="nothing hidden but the DP reduction behind the last backward",
    spread=(-0.134, 0.134),
    generic=True,
)

MEGATRON_LM_2021 = StackProfile(
    key="megatron-lm-2021",
    name="Megatron-LM (2021-2022, A100)",
    precision="bf16",
    kernel_efficiency=0.676,
    overlap=st.Overlap(tp=0.0, p2p=0.0, dp=False),
    fitted_on=tuple(
        f"korthikanti-{k}-{r}" for k in ("22b", "175b", "530b", "1t") for r in ("selective", "full")
    ),
    source="Korthikanti et al. 2022 Table 5 (8 runs)",
    overlap_source="Megatron-LM of Narayanan et al. 2021: TP all-reduces on the critical "
    "path, gradients all-reduced after the pipeline flush",
    spread=(-0.106, 0.104),
    frameworks=("megatron-lm",),
)

MEGATRON_DEEPSPEED = StackProfile(
    key="megatron-deepspeed",
    name="Megatron-DeepSpeed / DeepSpeed (2021-2022, A100)",
    precision="bf16",
    kernel_efficiency=0.534,
    overlap=st.Overlap(tp=0.0, p2p=0.0, dp=False),
    fitted_on=("mt-nlg-530b-2240",),
    source="Smith et al. 2022 (MT-NLG) §3: 280 DGX A100 nodes, 60.1 s/iteration",
    overlap_source="DeepSpeed pipeline engine: TP collectives and the ZeRO-1 gradient "
    "reduction after the last micro-batch, not overlapped",
    spread=(-0.05, 0.05),
    frameworks=("deepspeed", "megatron-deepspeed", "gpt-neox"),
)

MEGATRON_CORE_FP8 = StackProfile(
    key="megatron-core-fp8",
    name="Megatron Core / NeMo (2024-2026, H100, FP8)",
    precision="fp8",
    kernel_efficiency=0.474,
    overlap=st.Overlap(tp=0.8, p2p=1.0, cp=1.0, dp=True),
    fitted_on=("nemo-25.09-llama3-8b-8", "nemo-25.09-llama3-70b-64", "nemo-25.09-llama3-405b-1024"),
    source="NVIDIA Megatron-Bridge performance summary, NeMo 25.09 DGX-H100 rows (3 runs)",
    overlap_source="Megatron Core: tp_comm_overlap (userbuffers; 0.8 of the TP traffic "
    "hidden, stated), overlapped P2P of the interleaved schedule, ring-attention CP, "
    "overlap_grad_reduce",
    spread=(-0.05, 0.05),
    frameworks=("megatron-core", "nemo", "megatron-bridge"),
)

MEGATRON_CORE_BF16 = replace(
    MEGATRON_CORE_FP8,
    key="megatron-core-bf16",
    name="Megatron Core / NeMo and Meta's Llama 3 stack (2024-, H100, BF16)",
    precision="bf16",
    kernel_efficiency=0.521,
    fitted_on=("llama3-405b-8192",),
    source="Llama 3 paper (Dubey et al. 2024) Table 4: 8,192 H100, 430 TFLOPS/GPU",
    frameworks=("megatron-core", "nemo", "megatron-bridge"),
)

TORCHTITAN_FSDP = StackProfile(
    key="torchtitan-fsdp",
    name="PyTorch FSDP2 / TorchTitan (2024-, A100, BF16)",
    precision="bf16",
    kernel_efficiency=0.668,
    overlap=st.Overlap(tp=0.0, p2p=0.0, dp=True, dp_forward=True),
    fitted_on=("torchtitan-llama3-llama3-8b-selective-1", "torchtitan-llama3-llama3-70b-full-1"),
    source="pytorch/torchtitan docs/performance.md, Llama 3 8B and 70B on 64 A100 (2 runs; "
    "interconnect not published, DGX A100 assumed)",
    overlap_source="FSDP2 prefetch: parameter all-gathers and gradient reduce-scatters "
    "overlap the forward and the backward pass",
    spread=(-0.054, 0.057),
    frameworks=("torchtitan", "pytorch-fsdp", "fsdp"),
)

#: Every profile, the generic one first.
PROFILES: dict[str, StackProfile] = {
    p.key: p
    for p in (
        GENERIC,
        MEGATRON_LM_2021,
        MEGATRON_DEEPSPEED,
        MEGATRON_CORE_BF16,
        MEGATRON_CORE_FP8,
        TORCHTITAN_FSDP,
    )
}


def profile_for(framework: str | None, precision: str = "bf16") -> tuple[StackProfile, str]:
    """The profile of ``framework`` (a profile key or a framework name, any case) at
    ``precision``, and a note when it fell back to the generic one (said so)."""
    # "Megatron-Core 0.9.0" or "nemo:24.09": the name before the version. A name of
    # blanks only (a hand-edited file) names no stack, like an empty one.
    words = str(framework or "").strip().lower().replace(":", " ").split()
    if not words:
        return GENERIC, "no software stack named: the generic profile"
    name = words[0]
    if name in PROFILES:
        return PROFILES[name], ""
    want = "fp8" if str(precision).lower().startswith("fp8") else "bf16"
    for prof in PROFILES.values():
        if name in prof.frameworks and prof.precision == want:
            return prof, ""
    for prof in PROFILES.values():
        if name in prof.frameworks:
            return prof, f"{framework}: no {want} profile, {prof.name} used"
    return GENERIC, f"{framework}: no profile for this stack, the generic profile used"


#: Frameworks a design's software stack may name that have no fitted profile (the
#: generic profile is used, and the estimate says so).
UNFITTED_FRAMEWORKS: tuple[str, ...] = ("colossal-ai",)


def known_frameworks() -> tuple[str, ...]:
    """Every framework name a job or a design's software stack may give."""
    names = [n for p in PROFILES.values() for n in p.frameworks]
    return tuple(dict.fromkeys([*names, *UNFITTED_FRAMEWORKS]))


def design_framework(stacks: Sequence[Any]) -> tuple[str, str] | None:
    """The framework a design's software stacks name (a component whose name is a known
    framework, e.g. ``megatron-core: 0.9.0`` in the version matrix), and a note saying
    where it came from; None when none names one."""
    known = set(known_frameworks())
    for stack in stacks:
        for component, version in (getattr(stack, "components", None) or {}).items():
            name = str(component).strip().lower()
            if name in known:
                return (
                    name,
                    f"software stack from the design's {stack.name!r}: {component} {version}",
                )
    return None


def _loss_power() -> int:
    from workbench.calc.published_runs import LOSS_POWER

    return LOSS_POWER


def _golden(loss, lo: float, hi: float, rounds: int = 40) -> float:  # noqa: ANN001
    from workbench.calc.published_runs import _golden as golden

    return golden(loss, lo, hi, rounds)


def fit_profile(profile: StackProfile, runs: Sequence) -> float:  # noqa: ANN001
    """The kernel efficiency minimising Σ |log error|^p over ``runs`` with the profile's
    overlap and collective efficiency (golden-section search on [0.2, 1])."""
    pieces = [(st.step_parts(r.model, r.layout, r.hardware), r.target_step_s) for r in runs]
    p, c, o = _loss_power(), profile.collective_efficiency, profile.overlap

    def loss(k: float) -> float:
        return sum(abs(math.log(x.step_time(k, c, overlap=o) / t)) ** p for x, t in pieces)

    return _golden(loss, 0.2, 1.0)


def predicted_step_s(profile: StackProfile, run, kernel_efficiency: float | None = None) -> float:  # noqa: ANN001
    """The step the profile predicts for a published run (its efficiency, or the given)."""
    parts = st.step_parts(run.model, run.layout, run.hardware)
    k = profile.kernel_efficiency if kernel_efficiency is None else kernel_efficiency
    return parts.step_time(k, profile.collective_efficiency, overlap=profile.overlap)


def calibrate(
    model: ModelConfig,
    layout: st.Layout,
    hardware: st.Hardware,
    profile: StackProfile,
    measured_step_s: float,
) -> float:
    """The kernel efficiency at which the model gives ``measured_step_s`` for this job on
    this hardware with this stack's overlap (bisection: the step falls monotonically as
    the efficiency rises).  InputError("measured_step") when no efficiency in (0, 1]
    reaches it."""
    target = positive("measured_step", measured_step_s, 1e7)
    parts = st.step_parts(model, layout, hardware)
    c, o = profile.collective_efficiency, profile.overlap

    def step(k: float) -> float:
        return parts.step_time(k, c, overlap=o)

    lo, hi = 0.02, 1.0
    if step(hi) > target:
        raise InputError(
            "measured_step",
            f"{target:g} s is faster than this layout can run at the full dense peak "
            f"({step(hi):.3g} s): check the step time, the GPU count and the layout",
        )
    if step(lo) < target:
        raise InputError(
            "measured_step",
            f"{target:g} s implies under 2 % of peak for the matmuls: check the step time",
        )
    for _ in range(60):
        mid = (lo + hi) / 2
        if step(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
