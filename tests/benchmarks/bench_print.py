"""How fast a hall prints, next to QPdfWriter emitting the same number of empty pages.

    .venv/bin/python tests/benchmarks/bench_print.py [--quick] [--gpus N]

The design is the DGX H100 SuperPOD template; 16,384 GPUs is 581 racks.  Timed, each
as the best of a few runs:

  * ``empty``: QPdfWriter at the same resolution writing as many blank pages (the floor
    of the PDF machinery itself);
  * ``rack pages``: ``write_pdf`` one rack per page, front and rear, A4 (what an
    installer prints for a row or a hall), including the atomic rename;
  * ``row pages``: one row per page, A3 landscape;
  * ``svg``: one SVG file per rack page.

The target is under 10 s for ~500 racks on a 2-core laptop.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtGui import QGuiApplication, QPainter, QPdfWriter  # noqa: E402

from workbench.render.print_export import PDF_DPI, write_pdf, write_svgs  # noqa: E402
from workbench.render.print_layout import PrintOptions  # noqa: E402
from workbench.templates import build_template  # noqa: E402

TARGET_S = 10.0


def best_of(runs: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def empty_pages(path: Path, pages: int) -> None:
    writer = QPdfWriter(str(path))
    writer.setResolution(PDF_DPI)
    painter = QPainter(writer)
    for _ in range(pages - 1):
        writer.newPage()
    painter.end()
    del writer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run each, no SVG")
    parser.add_argument("--gpus", type=int, default=16_384, help="GPUs (default 16,384)")
    args = parser.parse_args()
    app = QGuiApplication.instance() or QGuiApplication([])
    runs = 1 if args.quick else 3
    design = build_template("dgx-h100-superpod", gpus=args.gpus)
    racks = sum(1 for _ in design.iter_racks())
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, best of {runs}; "
        f"{args.gpus:,} GPUs, {racks:,} racks"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rack_pdf, row_pdf = folder / "racks.pdf", folder / "rows.pdf"
        pages: list[int] = []
        rack_s = best_of(runs, lambda: pages.append(write_pdf(rack_pdf, design, PrintOptions())))
        row_options = PrintOptions(paper="A3", landscape=True, per_page="row")
        row_pages: list[int] = []
        row_s = best_of(runs, lambda: row_pages.append(write_pdf(row_pdf, design, row_options)))
        empty_s = best_of(runs, lambda: empty_pages(folder / "empty.pdf", pages[-1]))
        print(f"{'job':<28} {'pages':>6} {'MB':>6} {'time':>8} {'per page':>9}")
        for name, n, path, seconds in (
            ("empty pages (QPdfWriter)", pages[-1], folder / "empty.pdf", empty_s),
            ("rack pages, A4 portrait", pages[-1], rack_pdf, rack_s),
            ("row pages, A3 landscape", row_pages[-1], row_pdf, row_s),
        ):
            mb = path.stat().st_size / 1e6
            print(f"{name:<28} {n:>6,} {mb:>6.1f} {seconds:>7.2f}s {seconds / n * 1000:>7.1f}ms")
        if not args.quick:
            svg_dir = folder / "svg"
            svg_s = best_of(1, lambda: write_svgs(svg_dir, design, PrintOptions()))
            n = len(list(svg_dir.glob("*.svg")))
            mb = sum(p.stat().st_size for p in svg_dir.glob("*.svg")) / 1e6
            print(
                f"{'svg, one file per rack':<28} {n:>6,} {mb:>6.1f} {svg_s:>7.2f}s "
                f"{svg_s / n * 1000:>7.1f}ms"
            )
        verdict = "within" if rack_s < TARGET_S else "OVER"
        print(
            f"rack pages {verdict} the {TARGET_S:.0f} s target; "
            f"{rack_s / max(empty_s, 1e-9):,.0f}× the empty-page floor"
        )
    del app


if __name__ == "__main__":
    main()
