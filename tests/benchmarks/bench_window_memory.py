"""Benchmark: memory left behind by opening and closing main windows (issue 9).

Each round opens a window over the design, shows every tab (the plots, the fabric and
the floor plan get built), selects a rack, makes one edit, closes the window, deletes
it and collects.  A closed window used to keep ~3 MB over the sample design and ~9 MB
at 16,384 GPUs; with nothing leaking, the resident size stays flat after the first
few rounds (caches of fonts, styles and imports fill once).

Reports the resident set size (RSS, from /proc) and the bytes Python itself holds
(tracemalloc) before, after the warm-up rounds and at the end, and the growth per
window over the rounds after warm-up.

Run offscreen: ``.venv/bin/python tests/benchmarks/bench_window_memory.py
[--windows N] [--warmup N] [--sizes sample 16384]`` (not collected by pytest).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QEvent, QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.catalog import load_catalog  # noqa: E402
from workbench.model import Design  # noqa: E402
from workbench.templates import build_template, sample_design  # noqa: E402
from workbench.ui.commands import rename_rack  # noqa: E402
from workbench.ui.shell.document import Document  # noqa: E402
from workbench.ui.shell.main_window import MainWindow  # noqa: E402

TEMPLATE = "dgx-h100-superpod"
MB = 1024 * 1024


def rss_bytes() -> int:
    """The process's resident set size now (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def flush(app: QApplication) -> None:
    for _ in range(2):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()
        gc.collect()


def one_window(app: QApplication, design: Design, catalog, settings_path: Path) -> None:
    """Open, use and close one window over ``design``."""
    settings = QSettings(str(settings_path), QSettings.Format.IniFormat)
    window = MainWindow(Document(design), catalog=catalog, settings=settings)
    window.file_actions.autosave_timer.stop()
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        app.processEvents()
    window.tabs.setCurrentIndex(0)
    document = window.document
    rack = next(document.design.iter_racks())
    document.select(rack.id)
    document.push(rename_rack(document, rack.id, f"{rack.name}-x"))
    app.processEvents()
    document.undo()  # the shared design goes back as it was for the next round
    document.undo_stack.setClean()  # close without the "save changes?" question
    window.close()
    window.deleteLater()
    del window, document
    flush(app)


def bench(app: QApplication, label: str, design: Design, catalog, windows: int, warmup: int):
    """(label, rss0, rss_warm, rss_end, py0, py_warm, py_end, seconds per window)."""
    with tempfile.TemporaryDirectory() as tmp:
        settings_path = Path(tmp) / "settings.ini"
        flush(app)
        rss0, py0 = rss_bytes(), tracemalloc.get_traced_memory()[0]
        for _ in range(warmup):
            one_window(app, design, catalog, settings_path)
        rss_warm, py_warm = rss_bytes(), tracemalloc.get_traced_memory()[0]
        start = time.perf_counter()
        for i in range(windows - warmup):
            one_window(app, design, catalog, settings_path)
            if (i + 1) % 10 == 0:
                print(f"  {label}: {warmup + i + 1} windows, RSS {rss_bytes() / MB:.0f} MB")
        seconds = (time.perf_counter() - start) / max(windows - warmup, 1)
        rss_end, py_end = rss_bytes(), tracemalloc.get_traced_memory()[0]
    return label, rss0, rss_warm, rss_end, py0, py_warm, py_end, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--sizes", nargs="+", default=["sample", "16384"])
    parser.add_argument(
        "--no-tracemalloc", action="store_true", help="RSS only (tracemalloc slows ~2x)"
    )
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    catalog = load_catalog(include_user=False)
    if not args.no_tracemalloc:
        tracemalloc.start()
    rows = []
    with tempfile.TemporaryDirectory() as state:
        os.environ["XDG_STATE_HOME"] = state  # autosave and recent files stay out of $HOME
        for size in args.sizes:
            if size == "sample":
                design, label = sample_design(), "sample design"
            else:
                gpus = int(size)
                design, label = (
                    build_template(TEMPLATE, gpus=gpus, catalog=catalog),
                    f"{gpus:,} GPUs",
                )
            rows.append(bench(app, label, design, catalog, args.windows, args.warmup))
    after = args.windows - args.warmup
    print(
        f"\n{'design':16s}{'RSS start':>11s}{'after warm-up':>15s}{'end':>9s}"
        f"{'per window':>13s}{'Python per window':>19s}{'s/window':>10s}"
    )
    for label, rss0, rss_w, rss_e, _py0, py_w, py_e, seconds in rows:
        per = (rss_e - rss_w) / max(after, 1) / MB
        py_per = (py_e - py_w) / max(after, 1) / 1024
        print(
            f"{label:16s}{rss0 / MB:9.0f}MB{rss_w / MB:13.0f}MB{rss_e / MB:7.0f}MB"
            f"{per:11.2f}MB{py_per:15.1f} kB{seconds:10.2f}"
        )
    print(f"({args.warmup} warm-up windows, then {after} measured; growth is over those)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
