"""Benchmark: the version checks on a 100,000-GPU design with every node reporting.

The DGX H100 SuperPOD template at 100,000 GPUs (12,500 GPU nodes among ~30,000
devices), one baseline of all 14 layers assigned to the GPU nodes by one glob, and one
import per node with one observation per layer plus the GPU model and count (16 per
node, 200,000 in all); every 50th node reports an older driver and kernel, so the
drift and driver rules have findings to make.

Measured: ``effective_versions`` (what the Versions view reads), the full version check
the first time (which indexes the observations) and again (the index reused), an edit
of one device (one node re-checked), and a version-matrix change (every node
re-checked).  The full check must stay well under one second.

Run: ``.venv/bin/python tests/benchmarks/bench_versions.py``
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from workbench.model import Change, Design
from workbench.model.versions import Assignment, Baseline, BaselineRevision, Observation
from workbench.rules import REGISTRY, Checker, check_design
from workbench.templates import build_template
from workbench.versions.matrix import effective_versions

STACK = {
    "framework": "2.4.0+cu124",
    "framework_cuda": "12.4",
    "cuda": "12.4.1",
    "cudnn": "9.1.0",
    "nccl": "2.21.5",
    "container_runtime": "1.7.13",
    "container_toolkit": "1.15.0",
    "driver": "550.54.15",
    "kernel": "5.15.0-105-generic",
    "os": "Ubuntu 22.04.4 LTS",
    "nic_firmware": "28.39.1002",
    "vbios": "96.00.74.00.01",
    "bmc": "1.10.2",
    "bios": "1.7.2",
}


def big_design() -> tuple[Design, int]:
    design = build_template("dgx-h100-superpod", gpus=100_000)
    design.versions.baselines.append(
        Baseline("b1", "H100 training", [BaselineRevision(1, dict(STACK), author="bench")])
    )
    design.versions.assignments.append(Assignment("a1", "b1", "gpu*"))
    observations = design.versions.observations
    nodes = 0
    for _rack, device in design.iter_devices():
        if not device.name.startswith("gpu"):
            continue
        nodes += 1
        values = dict(STACK, gpu_model="NVIDIA H100 80GB HBM3", gpu_count="8")
        if nodes % 50 == 0:
            values.update(driver="535.104.05", kernel="5.15.0-112-generic")
        import_id = f"imp{nodes}"
        source = f"reports/{device.name}.txt"
        for line, (layer, value) in enumerate(values.items(), start=1):
            observations.append(
                Observation(
                    f"o{len(observations)}",
                    device.name,
                    layer,
                    value,
                    source,
                    line,
                    "2026-03-01T00:00:00Z",
                    "bench",
                    import_id,
                )
            )
    return design, nodes


def timed(func: Callable[[], Any], repeat: int = 5) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000, max(samples) * 1000


def main() -> int:
    start = time.perf_counter()
    design, nodes = big_design()
    print(
        f"built {nodes:,} GPU nodes, {len(design.index.devices):,} devices, "
        f"{len(design.versions.observations):,} observations in "
        f"{time.perf_counter() - start:.1f} s"
    )
    rules = [r for r in REGISTRY.values() if r.id.startswith("VERSION-")]
    start = time.perf_counter()
    found = check_design(design, rules=rules)
    first = (time.perf_counter() - start) * 1000
    print(f"version rules, first full check:  {first:6.1f} ms ({len(found):,} findings)")
    med, top = timed(lambda: check_design(design, rules=rules))
    print(f"version rules, full check again:  median {med:6.1f} ms, max {top:6.1f} ms")
    med, top = timed(lambda: effective_versions(design))
    print(f"effective_versions:               median {med:6.1f} ms, max {top:6.1f} ms")
    checker = Checker(design, rules={r.id: r for r in rules})
    device = next(d for _r, d in design.iter_devices() if d.name.startswith("gpu"))

    def edit_one() -> None:
        device.notes = "edited" if device.notes != "edited" else ""
        checker.update(Change(devices=frozenset({device.id})))

    med, top = timed(edit_one)
    print(f"edit one node (1 update):         median {med:6.1f} ms, max {top:6.1f} ms")
    med, top = timed(lambda: checker.update(Change(versions=True)))
    print(f"version matrix changed (update):  median {med:6.1f} ms, max {top:6.1f} ms")
    counts: dict[str, int] = {}
    for finding in checker.findings():
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    print(f"findings: {counts}")
    return 0 if first < 1000 else 1


if __name__ == "__main__":
    sys.exit(main())
