"""Benchmark: NetBox bulk-import files of a 100,000-GPU design (issue 13, performance).

Run: ``.venv/bin/python tests/benchmarks/bench_netbox_export.py [GPUS]``
Prints the build, export and read-back times, the peak memory (tracemalloc, of the
export alone) and the size of each file.
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from workbench.netbox import read_netbox, write_netbox
from workbench.templates import build_template


def main() -> int:
    gpus = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    start = time.perf_counter()
    design = build_template("dgx-h100-superpod", gpus=gpus)
    print(f"build: {time.perf_counter() - start:.1f} s, {len(design.links)} links")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "netbox"
        tracemalloc.start()
        start = time.perf_counter()
        written = write_netbox(design, folder)
        seconds = time.perf_counter() - start
        _now, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"export: {seconds:.1f} s, peak {peak / 2**20:.0f} MiB traced")
        for path in written:
            print(f"  {path.name}: {path.stat().st_size / 2**20:.1f} MiB")
        start = time.perf_counter()
        back = read_netbox(folder)
        print(f"read back: {time.perf_counter() - start:.1f} s, {len(back.links)} links")
        assert len(back.links) == len(design.links)
    return 0


if __name__ == "__main__":
    sys.exit(main())
