"""Every figure the Estimates view shows comes with its formula and substituted numbers.

The explanations live in calc (not in the window) so the command line, the report and
the window explain a figure the same way.
"""

from __future__ import annotations

import math

from calc_designs import dgx_design

from workbench.calc.compute import gpus_for_deadline, training_flops
from workbench.calc.workload import evaluate_workload
from workbench.model import Workload

TRAINING_KEYS = (
    "total_flops",
    "effective_pflops",
    "days",
    "gpu_hours",
    "tokens_per_s",
    "memory_gb_per_gpu",
)
INFERENCE_KEYS = (
    "weights_gb",
    "kv_bytes_per_token",
    "kv_cache_gib",
    "memory_gb_per_gpu",
    "max_concurrency",
    "decode_tokens_per_s",
    "decode_per_sequence",
)


def test_training_figures_are_all_explained() -> None:
    design = dgx_design(128)
    w = Workload(
        id="t",
        name="t",
        model="llama3-70b",
        tokens=15e12,
        mfu=0.4,
        tp=8,
        pp=4,
        recompute="selective",
    )
    result = evaluate_workload(design, w)
    assert not result.errors
    for key in TRAINING_KEYS:
        explained = result.explanations[key]
        assert explained.formula and explained.substituted and explained.source, key
    tokens = result.explanations["tokens_per_s"]
    assert tokens.value == result.tokens_per_s
    # 1,024 H100 × 989.5 TFLOPS × 0.4 = 405.3e15 FLOP/s over the model FLOPs per token
    # at 4,096 tokens: 6·N for the weights plus 12·L·s·(heads·head_dim) for attention
    # (PaLM Appendix B): 6·70.55e9 + 12·80·4096·8192 = 423.3e9 + 32.2e9 = 455.5e9, less
    # 6·V·h for the input embedding, which is a lookup (128256·8192·6 = 6.3e9): 449.2e9.
    assert tokens.substituted == "405.3e15 / 449.2e9"


def test_inference_figures_are_all_explained() -> None:
    design = dgx_design(2)
    w = Workload(
        id="i", name="i", kind="inference", model="llama2-7b", tp=1, context=4096, concurrency=8
    )
    result = evaluate_workload(design, w)
    assert not result.errors
    for key in INFERENCE_KEYS:
        assert key in result.explanations, key
    assert result.explanations["max_concurrency"].value == result.max_concurrency
    # Llama 2 7B, bf16: 2 bytes × 6.74e9 parameters = 13.48 GB of weights.
    assert math.isclose(result.explanations["weights_gb"].value, 13.48)


def test_deadline_explanation_shows_the_inverse() -> None:
    # Domain brief §1, second worked example: 10e9 params × 200e9 tokens = 1.2e22 FLOPs,
    # 30 days at 40 % MFU on A100s (312 TFLOPS dense BF16).
    sizing = gpus_for_deadline(training_flops(10e9, 200e9), 30, 312, 0.4, 8, 1)
    text = sizing.explanation.text()
    assert f"= {sizing.gpus_needed:,}" in text
    assert "30" in sizing.explanation.substituted and "0.4" in sizing.explanation.substituted
    assert sizing.explanation.value == sizing.nodes
