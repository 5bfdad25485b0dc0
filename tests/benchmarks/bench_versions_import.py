"""Benchmark: importing a folder of node reports (plan, apply, re-import, revert).

Generates, in a temporary folder, one sub-folder per node holding four reports made
from the samples in ``tests/data/node_reports`` (``nvidia-smi -q -x`` of an 8-GPU node
with per-node serials, ``uname -r``, ``ibstat``, ``dmidecode -t bios``), and a design
with a device of each node's name.  Then times:

- the first import's plan (every value a first report) and its apply;
- a second plan after 1% of the nodes moved to a new kernel (the summary's "changed");
- reverting the first import.

The files were just written, so they are in the page cache: the figure is parsing and
bookkeeping, not a cold disk.

    .venv/bin/python tests/benchmarks/bench_versions_import.py [--nodes 12500] [--csv]

Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from workbench.model.design import Design, Device, Rack, Row, Site
from workbench.versions.importer import apply_import, plan_import, revert_import

DATA = Path(__file__).resolve().parent.parent / "data" / "node_reports"
NODES_PER_RACK = 4
SERIAL_STEM = "16540230112"  # the samples' serials are this plus two digits


def node_names(count: int) -> list[str]:
    return [
        f"gpu-r{i // NODES_PER_RACK + 1:04d}-u{i % NODES_PER_RACK * 4 + 2:02d}"
        for i in range(count)
    ]


def make_design(names: list[str]) -> Design:
    racks = []
    for start in range(0, len(names), NODES_PER_RACK):
        number = start // NODES_PER_RACK + 1
        devices = [
            Device(f"d{start + i + 1:06d}", name, "gpu-server")
            for i, name in enumerate(names[start : start + NODES_PER_RACK])
        ]
        racks.append(Rack(f"r{number:05d}", f"R{number:04d}", "rack-42u", devices=devices))
    return Design(sites=[Site("site1", "Hall 1", [Row("row001", "A", racks)])])


def write_folder(folder: Path, names: list[str], csv: bool) -> int:
    """The reports folder; returns the bytes written."""
    smi_name = "nvidia-smi.csv" if csv else "nvidia-smi-q-h100.xml"
    smi = (DATA / smi_name).read_text()
    others = {
        "uname-r.txt": (DATA / "uname-r.txt").read_text(),
        "ibstat.txt": (DATA / "ibstat.txt").read_text(),
        "dmidecode.txt": (DATA / "dmidecode-bios.txt").read_text(),
    }
    total = 0
    for i, name in enumerate(names):
        node = folder / name
        node.mkdir()
        text = smi.replace(SERIAL_STEM, f"{16_541_000_000 + i:011d}")
        (node / ("smi.csv" if csv else "smi.xml")).write_text(text)
        total += len(text)
        for file_name, content in others.items():
            (node / file_name).write_text(content)
            total += len(content)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=12_500)
    parser.add_argument("--csv", action="store_true", help="nvidia-smi CSV instead of XML")
    args = parser.parse_args()
    names = node_names(args.nodes)
    design = make_design(names)
    with tempfile.TemporaryDirectory(prefix="bench-versions-") as tmp:
        folder = Path(tmp) / "reports"
        folder.mkdir()
        start = time.perf_counter()
        size = write_folder(folder, names, args.csv)
        print(
            f"wrote {args.nodes:,} nodes × 4 files ({size / 1e6:.0f} MB) "
            f"in {time.perf_counter() - start:.1f} s"
        )

        start, cpu = time.perf_counter(), time.process_time()
        first = plan_import(design, folder, who="bench", when="2026-05-05T09:30:00Z")
        print(
            f"plan, first import: {time.perf_counter() - start:.2f} s "
            f"(CPU {time.process_time() - cpu:.2f} s; {len(first.observations):,} observations)"
        )
        for line in first.summary.lines(limit=3):
            print("   ", line)
        start = time.perf_counter()
        applied = apply_import(design, first)
        print(f"apply: {(time.perf_counter() - start) * 1000:.0f} ms ({applied.count:,})")

        for name in names[::100]:  # 1% of the nodes
            (folder / name / "uname-r.txt").write_text("6.8.0-49-generic\n")
        start, cpu = time.perf_counter(), time.process_time()
        second = plan_import(design, folder, who="bench", when="2026-06-05T09:30:00Z")
        print(
            f"plan, second import: {time.perf_counter() - start:.2f} s "
            f"(CPU {time.process_time() - cpu:.2f} s; "
            f"{len(second.summary.changed):,} changed, {second.summary.unchanged:,} unchanged)"
        )
        start = time.perf_counter()
        revert_import(design, applied)
        print(f"revert: {(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
