"""Stack profiles fitted on named runs and checked on runs they were not fitted on
(issue 25, "How to check it").  The run lists, their sources and the split are here;
nothing below is tuned on the held-out runs.

Per profile: the kernel efficiency is refitted on ``FIT`` and must equal the constant in
calc/stack_profiles.py; the held-out error is computed on ``HELD_OUT``.  Goal, without an
MFU: mean ≤ 8 %, worst ≤ 15 %.  With one measured step of the same stack and cluster
(:func:`stack_profiles.calibrate`), the other sizes of that cluster within 5 %.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from workbench.calc import heldout_runs, published_runs, stack_profiles
from workbench.calc.errors import InputError

RUNS = {
    r.key: r
    for r in [
        *published_runs.runs(),
        *published_runs.reference_runs(),
        *heldout_runs.nemo_h100_fp8(),
        *heldout_runs.torchtitan_a100(),
    ]
}

#: profile → (runs fitted on, runs held out).  Families: Megatron-LM fitted on
#: Korthikanti et al. 2022, held out on Narayanan et al. 2021 Table 1; Megatron-DeepSpeed
#: fitted on MT-NLG at 280 nodes, held out at 350/420 nodes and on BLOOM; Megatron Core
#: FP8 fitted on NeMo 25.09, held out on NeMo 25.11 and 26.02 (other containers, other
#: batches); BF16 H100 fitted on Llama 3 405B at 8,192 GPUs, held out at 16,384.
SPLIT = {
    "megatron-lm-2021": (
        [k for k in RUNS if k.startswith("korthikanti")],
        [k for k in RUNS if k.startswith("megatron-2021")],
    ),
    "megatron-deepspeed": (
        ["mt-nlg-530b-2240"],
        ["mt-nlg-530b-2800", "mt-nlg-530b-3360", "bloom-176b"],
    ),
    "megatron-core-fp8": (
        [k for k in RUNS if k.startswith("nemo-25.09")],
        [k for k in RUNS if k.startswith("nemo-") and not k.startswith("nemo-25.09")],
    ),
    "megatron-core-bf16": (["llama3-405b-8192"], ["llama3-405b-16384"]),
}
#: Runs whose layout is not published (assumed), reported apart with the generic profile.
ASSUMED_LAYOUT = ["llama1-65b"]
#: A profile fitted and checked on runs whose interconnect is not published (assumed):
#: TorchTitan FSDP2 fitted on its Llama 3 rows, checked on its Llama 2 rows; reported
#: apart, outside the goal.  Its 70B run at local batch 1 is off by +77 %: the model
#: makes the ZeRO-3 traffic exposed at 200 Gb/s per GPU, which that cluster evidently
#: beat; a measured step (calibration) is what such a job needs.
ASSUMED_SPLIT = {
    "torchtitan-fsdp": (
        [k for k in RUNS if k.startswith("torchtitan-llama3")],
        [k for k in RUNS if k.startswith("torchtitan-llama2")],
    )
}


def error(profile: stack_profiles.StackProfile, key: str, k: float | None = None) -> float:
    run = RUNS[key]
    return stack_profiles.predicted_step_s(profile, run, k) / run.target_step_s - 1.0


@pytest.mark.parametrize("key", sorted({**SPLIT, **ASSUMED_SPLIT}))
def test_each_profile_is_its_fit_on_the_named_runs(key: str) -> None:
    profile = stack_profiles.PROFILES[key]
    fit, _held = {**SPLIT, **ASSUMED_SPLIT}[key]
    assert set(profile.fitted_on) == set(fit)
    refit = stack_profiles.fit_profile(profile, [RUNS[k] for k in fit])
    assert profile.kernel_efficiency == pytest.approx(refit, abs=0.002)
    # The spread is at least the profile's error on its own runs (and ±5 %).
    errors = [error(profile, k) for k in fit]
    assert profile.spread[0] <= min(errors) + 1e-3 and profile.spread[1] >= max(errors) - 1e-3


def held_out_errors() -> dict[str, dict[str, float]]:
    return {
        key: {k: error(stack_profiles.PROFILES[key], k) for k in held}
        for key, (_fit, held) in SPLIT.items()
    }


def test_held_out_error_meets_the_goal_without_an_mfu() -> None:
    errors = [e for per in held_out_errors().values() for e in per.values()]
    mean = sum(abs(e) for e in errors) / len(errors)
    worst = max(abs(e) for e in errors)
    assert len(errors) == 19
    assert mean <= 0.08 and worst <= 0.15, (mean, worst)
    for key, per in held_out_errors().items():  # and per profile
        assert max(abs(e) for e in per.values()) <= 0.15, key


def test_the_profiles_beat_the_generic_constant_on_the_held_out_runs() -> None:
    for key, (_fit, held) in SPLIT.items():
        own = sum(abs(error(stack_profiles.PROFILES[key], k)) for k in held)
        generic = sum(abs(error(stack_profiles.GENERIC, k)) for k in held)
        assert own <= generic, key


def test_the_assumed_interconnect_profile_is_reported_apart() -> None:
    (key,) = ASSUMED_SPLIT
    _fit, held = ASSUMED_SPLIT[key]
    errors = {k: error(stack_profiles.PROFILES[key], k) for k in held}
    assert all(RUNS[k].assumed for k in held)
    # What it reaches (not a goal: the interconnect is assumed).
    assert errors["torchtitan-llama2-llama2-13b-none-2"] == pytest.approx(0.015, abs=0.01)
    assert errors["torchtitan-llama2-llama2-70b-selective-1"] == pytest.approx(0.77, abs=0.02)
    own = sum(abs(e) for e in errors.values())
    assert own < sum(abs(error(stack_profiles.GENERIC, k)) for k in held)


def test_assumed_layouts_are_reported_apart() -> None:
    for key in ASSUMED_LAYOUT:
        assert RUNS[key].assumed  # the layout is marked assumed in the run
        assert abs(error(stack_profiles.GENERIC, key)) <= 0.15


#: (profile, measured run, other sizes of the same stack and cluster)
CALIBRATED = [
    ("megatron-deepspeed", "mt-nlg-530b-2240", ["mt-nlg-530b-2800", "mt-nlg-530b-3360"]),
    ("megatron-deepspeed", "mt-nlg-530b-3360", ["mt-nlg-530b-2240", "mt-nlg-530b-2800"]),
    ("megatron-core-bf16", "llama3-405b-8192", ["llama3-405b-16384"]),
    ("megatron-core-bf16", "llama3-405b-16384", ["llama3-405b-8192"]),
    (
        "megatron-core-fp8",
        "nemo-25.09-llama3-70b-64",
        ["nemo-25.09-llama3-8b-8", "nemo-25.09-llama3-405b-1024"],
    ),
    (
        "megatron-core-fp8",
        "nemo-25.09-llama3-405b-1024",
        ["nemo-25.09-llama3-8b-8", "nemo-25.09-llama3-70b-64"],
    ),
]


@pytest.mark.parametrize(("key", "measured", "others"), CALIBRATED)
def test_one_measured_step_predicts_other_sizes_within_5_percent(key, measured, others) -> None:
    profile = stack_profiles.PROFILES[key]
    run = RUNS[measured]
    k = stack_profiles.calibrate(run.model, run.layout, run.hardware, profile, run.target_step_s)
    assert error(profile, measured, k) == pytest.approx(0.0, abs=1e-6)
    for other in others:
        assert abs(error(profile, other, k)) <= 0.05, other


def test_one_measured_size_of_megatron_lm_2021_predicts_the_other_models() -> None:
    # Narayanan et al. 2021 Table 1 is other *models* (1.7B-1T) as well as other sizes:
    # calibrated on the 1.7B run, the other nine are within 7 % (1T: +6.8 %), mean 2.7 %;
    # reported, above the 5 % the same job at other sizes reaches.
    profile = stack_profiles.PROFILES["megatron-lm-2021"]
    run = RUNS["megatron-2021-1.7b"]
    k = stack_profiles.calibrate(run.model, run.layout, run.hardware, profile, run.target_step_s)
    others = [key for key in RUNS if key.startswith("megatron-2021") and key != run.key]
    errors = [abs(error(profile, key, k)) for key in others]
    assert max(errors) <= 0.07 and sum(errors) / len(errors) <= 0.03


def test_unknown_stacks_fall_back_to_the_generic_profile_and_say_so() -> None:
    assert stack_profiles.profile_for(None)[0].generic
    profile, note = stack_profiles.profile_for("Colossal-AI 0.4")
    assert profile.generic and "generic" in note
    assert stack_profiles.profile_for("NeMo", "fp8")[0].key == "megatron-core-fp8"
    assert stack_profiles.profile_for("megatron-core", "bf16")[0].key == "megatron-core-bf16"
    assert stack_profiles.profile_for("DeepSpeed", "bf16")[0].key == "megatron-deepspeed"
    assert stack_profiles.profile_for("TorchTitan")[0].key == "torchtitan-fsdp"
    assert stack_profiles.profile_for("Megatron-Core 0.9.0")[0].key == "megatron-core-bf16"


def test_an_impossible_measured_step_names_the_field() -> None:
    run = RUNS["llama3-405b-8192"]
    profile = stack_profiles.PROFILES["megatron-core-bf16"]
    with pytest.raises(InputError) as raised:
        stack_profiles.calibrate(run.model, run.layout, run.hardware, profile, 0.01)
    assert raised.value.field == "measured_step"


def test_context_parallelism_splits_the_sequence_work() -> None:
    run = RUNS["nemo-25.09-llama3-405b-1024"]
    profile = stack_profiles.PROFILES["megatron-core-fp8"]
    no_cp = replace(run.layout, cp=1, dp=run.layout.dp * 2)
    with_cp = stack_profiles.predicted_step_s(profile, run)
    without = stack_profiles.predicted_step_s(profile, replace(run, layout=no_cp))
    # Same GPUs and batch: CP 2 trades DP for sequence splitting, the step stays close.
    assert with_cp == pytest.approx(without, rel=0.15)
    assert run.layout.gpus == no_cp.gpus == 1024


def test_a_stack_name_of_blanks_takes_the_generic_profile() -> None:
    """A hand-edited file may hold a framework of spaces: no stack, not an IndexError."""
    from workbench.calc import stack_profiles

    profile, note = stack_profiles.profile_for("   ")
    assert profile is stack_profiles.GENERIC and "generic" in note
