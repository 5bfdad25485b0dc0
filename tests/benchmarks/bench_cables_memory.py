"""Memory the cable schedule export adds over the opened design (issue 21: ≤ 300 MB at
100,000 GPUs).

    .venv/bin/python tests/benchmarks/bench_cables_memory.py DESIGN.dcwb [--trace]

Prints the max RSS after opening the design, after the export, and their difference
(the export's own growth); with --trace, the tracemalloc peak during the export over
what was traced when it started (slower: every allocation is traced).  Run each mode
in its own process: max RSS only grows.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("design", type=Path)
    parser.add_argument("--trace", action="store_true")
    args = parser.parse_args()
    from workbench.export.cables import write_cables
    from workbench.store import open_design

    design = open_design(args.design)
    design = getattr(design, "design", design)
    gc.collect()
    opened = _maxrss_mib()
    with tempfile.TemporaryDirectory() as tmp:
        if args.trace:
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
        t = time.perf_counter()
        path = write_cables(design, Path(tmp) / "cables.xlsx")
        took = time.perf_counter() - t
        if args.trace:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"tracemalloc peak over start: {(peak - base) / 1e6:.0f} MB")
        size = path.stat().st_size / 2**20
    after = _maxrss_mib()
    print(f"opened {opened:.0f} MiB, after export {after:.0f} MiB, export adds "
          f"{after - opened:.0f} MiB ({(after - opened) * 1.048576:.0f} MB); "
          f"{took:.1f} s, file {size:.1f} MiB")  # fmt: skip
    sys.stdout.flush()


if __name__ == "__main__":
    main()
