"""Benchmark: the figures kept per rack, read after a drop at 100,000 GPUs.

Times what the storage rules and the summary read after each edit, without the
window (so on a loaded machine the difference is not lost in the noise of a frame):
a DGX H100 added to one rack, then ``storage_figures`` with the client totals and
the starved nodes, and ``cooling_pue``; the drop is undone untimed.  Run it with a
baseline tree first on ``PYTHONPATH`` to pair, e.g.::

    PYTHONPATH=/tmp/base .venv/bin/python tests/benchmarks/bench_kept_figures.py base
    PYTHONPATH=. .venv/bin/python tests/benchmarks/bench_kept_figures.py change

Prints min/median ms of 41 samples, the node count and the PUE (they must agree).
Not collected by pytest: timings are not unit-test assertions.
"""

from __future__ import annotations

import statistics
import sys
import time

from workbench.calc.storage_tiers import storage_figures
from workbench.calc.summary import cooling_pue
from workbench.catalog import load_catalog
from workbench.model import Device
from workbench.model.ops import AddDevice, apply
from workbench.model.placement import free_ranges
from workbench.rules.storage import starved_nodes
from workbench.templates import build_template

NODE = "nvidia-dgx-h100"


def main() -> int:
    label = sys.argv[1] if len(sys.argv) > 1 else "this tree"
    gpus = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    catalog = load_catalog(include_user=False)
    design = build_template("dgx-h100-superpod", gpus=gpus, catalog=catalog)
    racks = list(design.iter_racks())
    height = int(catalog[NODE].u_height)
    rack, run = next(
        (r, free)
        for r in racks[len(racks) // 3 :]
        for free in free_ranges(design, r)
        if len(free) >= height
    )
    storage_figures(design)
    cooling_pue(design)
    samples = []
    for i in range(41):
        device = Device(f"bench-{i}", f"bench-{i}", NODE, run[-1] - height + 1)
        undo = apply(design, AddDevice(rack.id, device)).inverse
        start = time.perf_counter()
        found = storage_figures(design)
        clients = found.clients
        _ = (clients.gbps, clients.gpus, clients.cabled, starved_nodes(found))
        pue = cooling_pue(design)
        samples.append((time.perf_counter() - start) * 1000.0)
        apply(design, undo)
    nodes = len(clients.nodes)
    print(
        f"{label}: {min(samples):.2f}/{statistics.median(samples):.2f} ms, {nodes} nodes, PUE {pue!r}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
