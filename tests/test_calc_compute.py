"""Compute calculators against the domain brief's worked examples (§1)."""

from __future__ import annotations

import math

import pytest

from workbench.calc import compute
from workbench.calc.errors import InputError
from workbench.calc.explain import Explained, num


def test_seed_worked_example_175b_on_1024_a100():
    # Seed article 000 / domain brief §1: 6·175e9·200e9 = 2.1e23 FLOPs; 1,024 GPUs at
    # 312 TFLOPS (A100 dense BF16), MFU 40 %.  The seed's own script
    # (estimate_training_days, printing days:.2f) evaluates to 19.02 days; its prose rounds
    # the per-GPU effective rate 124.8 → 125 TFLOPS and gets 1.28e17 FLOP/s → 18.99 days.
    flops = compute.training_flops(175e9, 200e9)
    assert flops == pytest.approx(2.1e23)
    rate = compute.effective_flops_per_s(1024, 312, 0.4)
    assert rate == pytest.approx(1.277952e17)
    seconds = compute.training_seconds(flops, 1024, 312, 0.4)
    assert seconds == pytest.approx(1.643e6, rel=1e-3)
    assert round(compute.training_days(flops, 1024, 312, 0.4), 2) == 19.02


def test_seed_prose_rounding_gives_18_99_days():
    # The 18.99 in the issue is the seed prose's arithmetic: 125 TFLOPS effective per GPU
    # (peak 312.5 at MFU 0.4), 1.28e17 FLOP/s, 2.1e23 / 1.28e17 = 1.64e6 s.
    days = compute.training_days(2.1e23, 1024, 312.5, 0.4)
    assert round(days, 2) == 18.99


def test_second_worked_example_10b_chinchilla_in_30_days():
    # Domain brief §1: 10e9 params × 200e9 tokens → 1.2e22 FLOPs; 30 days needs
    # ≈ 4.6 PFLOP/s effective, ≈ 11.6 PFLOP/s physical at 40 % MFU.
    flops = compute.training_flops(10e9, 200e9)
    assert flops == pytest.approx(1.2e22)
    rate = compute.required_effective_flops_per_s(flops, 30)
    assert rate / 1e15 == pytest.approx(4.63, abs=0.005)
    sizing = compute.gpus_for_deadline(flops, 30, 312, 0.4)
    assert sizing.effective_pflops_needed == pytest.approx(4.63, abs=0.005)
    assert sizing.physical_pflops_needed == pytest.approx(11.57, abs=0.01)
    # 11.574 PFLOP/s physical / 0.312 PFLOP/s per A100 = 37.1 → 38 GPUs → 5 nodes of 8.
    assert sizing.gpus_needed == 38
    assert sizing.nodes == 5 and sizing.gpus_provisioned == 40
    # and 38 GPUs really do finish within 30 days, 37 do not
    assert (
        compute.training_days(flops, 38, 312, 0.4)
        <= 30
        < compute.training_days(flops, 37, 312, 0.4)
    )


def test_deadline_rounds_nodes_up_to_scalable_units():
    # 1,000 GPUs → 125 nodes → with 32-node SUs (DGX SuperPOD) 4 SUs = 128 nodes.
    flops = compute.training_flops(175e9, 200e9)
    days = compute.training_days(flops, 1000, 312, 0.4)
    sizing = compute.gpus_for_deadline(flops, days, 312, 0.4, gpus_per_node=8, nodes_per_su=32)
    assert sizing.gpus_needed == 1000
    assert (sizing.scalable_units, sizing.nodes, sizing.gpus_provisioned) == (4, 128, 1024)


def test_full_recompute_is_8nd_and_selective_stays_6nd():
    assert compute.training_flops(1e9, 1e9, "full") == pytest.approx(8e18)
    assert compute.training_flops(1e9, 1e9, "selective") == pytest.approx(6e18)


def test_gpu_hours_and_tokens_per_second():
    flops = compute.training_flops(175e9, 200e9)
    s = compute.training_seconds(flops, 1024, 312, 0.4)
    assert compute.gpu_hours(1024, s) == pytest.approx(1024 * s / 3600)
    tps = compute.tokens_per_second(1024, 312, 0.4, 175e9)
    # 200e9 tokens at that rate take exactly the training time
    assert 200e9 / tps == pytest.approx(s)


def test_peak_per_precision_from_gpu_items():
    from calc_designs import H100

    assert compute.peak_tflops(H100, "bf16") == 989.5
    with pytest.raises(InputError) as exc:
        compute.peak_tflops(H100, "fp4")
    assert exc.value.field == "precision" and "fp4" in str(exc.value)
    totals = compute.peak_pflops([(H100, 1024)])
    assert totals["bf16"] == pytest.approx(1024 * 989.5 / 1000)
    assert totals["fp8"] == pytest.approx(1024 * 1979 / 1000)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: compute.training_flops(-1, 1e9), "params"),
        (lambda: compute.training_flops(math.nan, 1e9), "params"),
        (lambda: compute.training_flops(1e9, 0), "tokens"),
        (lambda: compute.training_flops(1e9, 1e9, "half"), "recompute"),
        (lambda: compute.training_flops(1e20, 1e9), "params"),
        (lambda: compute.effective_flops_per_s(1024, 312, 1.2), "mfu"),
        (lambda: compute.effective_flops_per_s(1024, 312, 0), "mfu"),
        (lambda: compute.effective_flops_per_s(0, 312, 0.4), "gpus"),
        (lambda: compute.effective_flops_per_s(10.5, 312, 0.4), "gpus"),
        (lambda: compute.effective_flops_per_s(8, math.inf, 0.4), "gpu_tflops"),
        (lambda: compute.effective_flops_per_s(8, None, 0.4), "gpu_tflops"),
        (lambda: compute.gpus_for_deadline(1e22, -3, 312, 0.4), "deadline_days"),
        (lambda: compute.gpus_for_deadline(1e22, 30, 312, 0.4, nodes_per_su=0), "nodes_per_su"),
    ],
)
def test_bad_input_names_the_field(call, field):
    with pytest.raises(InputError) as exc:
        call()
    assert exc.value.field == field
    assert str(exc.value).startswith(field)
    assert isinstance(exc.value, ValueError)


def test_explained_renders_formula_substitution_and_value():
    e = Explained(
        19.019,
        "days",
        "days = 6·N·D / (gpus·peak·MFU) / 86400",
        "6·175e9·200e9 / (1024·312e12·0.4) / 86400",
        "Kaplan et al. 2020",
    )
    assert str(e) == (
        "days = 6·N·D / (gpus·peak·MFU) / 86400 = "
        "6·175e9·200e9 / (1024·312e12·0.4) / 86400 = 19.02 days"
    )
    assert num(175e9) == "175e9" and num(1024) == "1024" and num(0.4) == "0.4"
    assert num(312e12) == "312e12" and num(1.277952e17) == "127.8e15" and num(2.5e-5) == "25e-6"


def test_deadline_with_goodput_asks_for_the_rate_of_the_training_share():
    # At goodput 0.9 only 27 of the 30 days train: the same 1.2e22 FLOPs need 4.63/0.9
    # = 5.14 PFLOP/s effective, 12.86 physical at 40 % MFU → 41.2 → 42 A100s.
    flops = compute.training_flops(10e9, 200e9)
    sizing = compute.gpus_for_deadline(flops, 30, 312, 0.4, goodput=0.9)
    assert sizing.effective_pflops_needed == pytest.approx(4.63 / 0.9, abs=0.01)
    assert sizing.gpus_needed == 42
    assert compute.training_days(flops, 42, 312, 0.4) / 0.9 <= 30
    assert compute.training_days(flops, 41, 312, 0.4) / 0.9 > 30
