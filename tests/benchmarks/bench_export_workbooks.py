"""How fast the inventory and cable-schedule workbooks stream, next to raw openpyxl.

    .venv/bin/python tests/benchmarks/bench_export_workbooks.py [--gpus N]

Baseline: ``Workbook(write_only=True)`` appending the very same cell values (read back
from the exported workbook is too slow, so the rows are rebuilt by the exporter's own
code path without the sheet hygiene) - the floor for what openpyxl costs.  Memory is
how much the process's max RSS grew during the export (tracemalloc would slow the
export several times over and spoil the timing).
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from openpyxl import Workbook

from workbench.export import xlsx_common
from workbench.export.cables import write_cables
from workbench.export.inventory import write_inventory
from workbench.templates import build_template


def _rows_of(export, design, folder: Path) -> list[list[list[object]]]:
    """The rows an export writes, captured by swapping SheetWriter.append."""
    captured: list[list[list[object]]] = []
    original = xlsx_common.SheetWriter.append

    def record(self, values):
        if not captured or captured[-1] is not getattr(self, "_bench_rows", None):
            self._bench_rows = []
            captured.append(self._bench_rows)
        self._bench_rows.append(list(values))

    xlsx_common.SheetWriter.append = record
    try:
        export(design, folder / "capture.xlsx")
    finally:
        xlsx_common.SheetWriter.append = original
    return captured


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _raw(sheets: list[list[list[object]]], path: Path) -> None:
    wb = Workbook(write_only=True)
    for rows in sheets:
        ws = wb.create_sheet()
        for row in rows:
            ws.append(row)
    wb.save(path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=100_000)
    args = parser.parse_args()
    t = time.perf_counter()
    design = build_template("dgx-h100-superpod", gpus=args.gpus)
    print(f"design: {args.gpus} GPUs, {sum(len(r.devices) for r in design.iter_racks())} devices, "
          f"{len(design.links)} links, built in {time.perf_counter() - t:.1f} s")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, export in (("inventory", write_inventory), ("cables", write_cables)):
            before = _rss_mib()
            t = time.perf_counter()
            path = export(design, folder / f"{name}.xlsx")
            ours = time.perf_counter() - t
            peak = _rss_mib() - before
            sheets = _rows_of(export, design, folder)
            t = time.perf_counter()
            _raw(sheets, folder / f"{name}-raw.xlsx")
            raw = time.perf_counter() - t
            cells = sum(len(r) for rows in sheets for r in rows)
            print(f"{name}: {ours:.1f} s (raw openpyxl same cells {raw:.1f} s, ratio {ours / raw:.2f}x, "
                  f"{cells / 1e6:.1f} M cells), max RSS grew {peak:.0f} MiB, "
                  f"file {path.stat().st_size / 2**20:.1f} MiB")  # fmt: skip
            del sheets
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS {rss:.0f} MiB (includes the design and the captured rows)")


if __name__ == "__main__":
    main()
