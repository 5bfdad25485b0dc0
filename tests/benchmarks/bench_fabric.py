"""Benchmark: generate, apply, analyse and undo a 100,000-GPU rail-optimized fabric.

Issue 8's target: generating and analysing a 3-tier rail-optimized compute fabric of
12,500 DGX H100 (100,000 GPUs) on NVIDIA Quantum-X800 Q3400-RA switches, about 300,000
links, in at most 2 s.  Also timed: the whole ``workbench new --gpus 100000`` build
(four planes, ~440,000 links).  Run by hand (not collected by pytest)::

    .venv/bin/python tests/benchmarks/bench_fabric.py [--gpus 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.model.index import index_problems
from workbench.planning.fabric.generator import FabricRequest, plan_fabric
from workbench.templates import build_template
from workbench.templates.builder import build_nodes


def _time(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--switch", default="nvidia-q3400-ra")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    catalog = load_catalog(include_user=False, strict=True)
    nodes = math.ceil(args.gpus / 8)
    design = build_nodes("nvidia-dgx-h100", nodes, catalog)
    request = FabricRequest(plane="compute", switch=args.switch, topology="rail")
    try:
        from workbench.calc.fabric.analysis import analyse_plane
    except ImportError:  # the analytics are another module's; time without them
        analyse_plane = None
    times: dict[str, list[float]] = {"plan": [], "apply": [], "analyse": [], "undo": []}
    links = 0
    for _ in range(args.repeat):
        seconds, plan = _time(lambda: plan_fabric(design, catalog, request))
        times["plan"].append(seconds)
        seconds, applied = _time(lambda plan=plan: ops.apply(design, plan.batch))
        times["apply"].append(seconds)
        links = len(design.links)
        if analyse_plane is not None:
            seconds, _report = _time(lambda: analyse_plane(design, "compute"))
            times["analyse"].append(seconds)
        seconds, _ = _time(lambda applied=applied: ops.apply(design, applied.inverse))
        times["undo"].append(seconds)
        assert not design.links and not index_problems(design)
    shape = plan.shape
    print(
        f"{nodes:,} nodes ({args.gpus:,} GPUs) on {args.switch}: {shape.topology}, "
        f"{shape.tiers} tiers, {shape.leaves:,} leaves, {shape.spines:,} spines, "
        f"{shape.cores:,} cores, {links:,} links"
    )
    for name, values in times.items():
        if values:
            print(
                f"  {name:8s} median {statistics.median(values):6.3f} s  (runs: "
                + ", ".join(f"{v:.3f}" for v in values)
                + ")"
            )
    both = statistics.median(times["plan"]) + (
        statistics.median(times["analyse"]) if times["analyse"] else 0.0
    )
    print(f"  generate + analyse: {both:.3f} s (target 2 s)")
    seconds, big = _time(lambda: build_template("dgx-h100-superpod", args.gpus, catalog))
    print(
        f"  build_template dgx-h100-superpod --gpus {args.gpus:,}: {seconds:.2f} s "
        f"({len(big.links):,} links on four planes)"
    )


if __name__ == "__main__":
    main()
