"""The training job a template design starts with: the largest one the rules accept.

A template scales from 8 to 100,000 GPUs, and one fixed job cannot suit every size: Llama
3 70B with TP 8 · PP 4 needs the GPUs in multiples of 32 and does not fit on one node at
all.  So the builder offers candidates, from the job a planner of a large cluster would
size first down to a 7B model, each with the usual layouts, and keeps the first one the
workload rules pass with no error (it reads their verdict; it has no copy of them).
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.model import Design, Workload
from workbench.rules import REGISTRY, Severity, check_design

#: (preset, display name, tokens) from the preferred job down.  15T tokens is Llama 3's
#: published pre-training budget; 2T is Llama 2's (Touvron et al. 2023, Table 1).
_MODELS: tuple[tuple[str, str, float], ...] = (
    ("llama3-70b", "Llama 3 70B pre-training", 15e12),
    ("llama3-8b", "Llama 3 8B pre-training", 15e12),
    ("llama2-7b", "Llama 2 7B pre-training", 2e12),
)
#: (tp, pp, ZeRO stage, recompute), most usual first.
_LAYOUTS: tuple[tuple[int, int, int, str], ...] = (
    (8, 4, 1, "selective"),
    (8, 2, 1, "selective"),
    (8, 1, 1, "selective"),
    (4, 1, 1, "selective"),
    (8, 1, 3, "full"),
    (4, 1, 3, "full"),
    (2, 1, 3, "full"),
    (1, 1, 3, "full"),
)


def _candidates(gpus_per_node: int) -> Iterator[Workload]:
    for model, name, tokens in _MODELS:
        for tp, pp, zero, recompute in _LAYOUTS:
            if tp > max(gpus_per_node, 1):
                continue  # tensor parallelism stays on one node's NVLink (domain brief §2)
            yield Workload(
                id="wl-1",
                name=name,
                kind="training",
                model=model,
                tokens=tokens,
                precision="bf16",
                mfu=None,  # predicted from the design
                tp=tp,
                pp=pp,
                zero=zero,
                recompute=recompute,
            )


def choose_workload(design: Design, gpus_per_node: int) -> Workload:
    """The first candidate job with no error from the workload rules on ``design``.

    Only the rules that can give an error are asked: a warning rule's figures (the
    checkpoint rule weighs every rack's storage, ~1.6 s at 1,000,000 GPUs) cannot
    change the choice."""
    rules = [
        r for r in REGISTRY.values() if r.scope == "workload" and r.most_severe is Severity.ERROR
    ]
    fallback: Workload | None = None
    for workload in _candidates(gpus_per_node):
        fallback = fallback or workload
        design.workloads = [workload]
        design.reindex()
        found = check_design(design, rules=rules)
        if not any(f.severity is Severity.ERROR for f in found):
            return workload
    assert fallback is not None
    return fallback
