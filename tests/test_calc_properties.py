"""Hypothesis properties of the calculators (issue 3, Tests)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from workbench.calc import compute, memory
from workbench.calc.errors import InputError

params = st.floats(1e6, 2e12)
tokens = st.floats(1e6, 1e15)
gpus = st.integers(1, 200_000)
tflops = st.floats(1.0, 10_000.0)
mfu = st.floats(0.01, 1.0)


@given(params, tokens, gpus, st.integers(1, 1000), tflops, mfu)
def test_more_gpus_never_more_days(n, d, g, extra, peak, m):
    c = compute.training_flops(n, d)
    assert compute.training_days(c, g + extra, peak, m) <= compute.training_days(c, g, peak, m)


@given(params, tokens, gpus, tflops, mfu)
def test_doubling_tokens_doubles_days(n, d, g, peak, m):
    one = compute.training_days(compute.training_flops(n, d), g, peak, m)
    two = compute.training_days(compute.training_flops(n, 2 * d), g, peak, m)
    assert math.isclose(two, 2 * one, rel_tol=1e-12)


@given(
    params,
    st.sampled_from(["fp32", "bf16", "fp16", "fp8"]),
    st.integers(1, 4096),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1, 2, 4]),
)
def test_raising_zero_stage_never_raises_memory(n, precision, dp, tp, pp):
    totals = [
        memory.training_memory(
            n, precision, zero, dp, tp, pp, layers=32, hidden=4096, heads=32
        ).total_bytes
        for zero in (0, 1, 2, 3)
    ]
    assert all(b <= a for a, b in zip(totals, totals[1:], strict=False))


@given(params, tokens, tflops, mfu, st.floats(0.5, 3650))
def test_deadline_sizing_meets_the_deadline(n, d, peak, m, days):
    c = compute.training_flops(n, d)
    try:
        sizing = compute.gpus_for_deadline(c, days, peak, m)
    except InputError as exc:  # more than MAX_GPUS: an unreachable deadline, said so
        assert exc.field == "deadline_days"
        assert c / (days * 86400 * peak * 1e12 * m) > compute.MAX_GPUS
        return
    assert compute.training_days(c, sizing.gpus_needed, peak, m) <= days * (1 + 1e-9)
    if sizing.gpus_needed > 1:
        assert compute.training_days(c, sizing.gpus_needed - 1, peak, m) > days * (1 - 1e-9)


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.none(), st.text(max_size=3)))
def test_any_bad_mfu_raises_input_error_never_nan(value):
    try:
        rate = compute.effective_flops_per_s(8, 312, value)
    except InputError as exc:
        assert exc.field == "mfu"
    else:
        assert math.isfinite(rate) and rate > 0
