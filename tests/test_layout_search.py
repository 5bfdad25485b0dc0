"""Auto layout: the fastest split that fits memory (workbench.calc.layout_search)."""

from __future__ import annotations

import pytest

from workbench.calc import layout_search as ls
from workbench.calc import presets
from workbench.calc import step_time as st
from workbench.calc.errors import InputError

H100 = st.Hardware(
    peak_tflops=989, gpus_per_node=8, nvlink_gbs=900, nic_gbps_per_gpu=400, hbm_tbs=3.35
)
USABLE = 79.6e9  # H100 80GB as nvidia-smi reports it, roughly (memory.usable_hbm_bytes)


def test_best_fits_and_is_fastest_of_those_that_fit():
    choice = ls.auto_layout(presets.get_preset("llama2-70b"), H100, 64, "bf16", 4096, 512, USABLE)
    best = choice.best
    assert best is not None and best.memory.fits is True and best.prediction is not None
    assert best.layout.gpus == 64 and best.reason.startswith("fastest that fits")
    fitting = [a for a in choice.alternatives if a.prediction is not None]
    assert fitting, choice.alternatives
    for alt in fitting:
        assert alt.memory.fits is True
        assert alt.prediction.step_time_s >= best.prediction.step_time_s * (1 - 1e-9)
    for alt in choice.alternatives:
        assert alt.reason and (alt.prediction is not None or alt.memory.fits is False)


def test_naive_layout_does_not_fit_but_the_choice_does():
    # Issue 12: "+ Training job" at PP 1 with no recompute shows "Does not fit" at once.
    model = presets.get_preset("llama3-70b")
    naive = st.Layout(tp=8, pp=1, dp=8, global_batch=512, seq_len=8192)
    mem = ls._memory(model, ls.fl.shape_of(model), naive, "bf16", USABLE, 0.1)
    assert mem.fits is False
    choice = ls.auto_layout(model, H100, 64, "bf16", 8192, 512, USABLE)
    assert choice.best is not None and choice.best.memory.fits is True


def test_nothing_fits_gives_no_best():
    tiny = 4e9  # 4 GB GPUs cannot hold a 405B model on 8 of them
    choice = ls.auto_layout(presets.get_preset("llama3-405b"), H100, 8, "bf16", 8192, 64, tiny)
    assert choice.best is None


def test_batch_that_divides_no_layout_is_named():
    with pytest.raises(InputError) as err:
        ls.auto_layout(presets.get_preset("llama3-8b"), H100, 8, "bf16", 4096, 0, USABLE)
    assert err.value.field == "global_batch"


def test_large_design_is_fast():
    # Bounded search: 100,000 GPUs answer well within a window refresh (benchmark file
    # tests/benchmarks/bench_layout_search.py measures the 50 ms target).
    choice = ls.auto_layout(
        presets.get_preset("llama3-405b"), H100, 100_000, "bf16", 8192, 2000, USABLE
    )
    assert choice.best is not None
