"""Where opening a saved design stands against its floor, in main-thread CPU seconds.

    .venv/bin/python tests/benchmarks/bench_open_floor.py PATH [--runs N]

Four timings, interleaved run by run in one process (the machine's load hits them
alike), each its min and median and its ratio to ``raw`` paired run by run:

  * ``raw``: plain sqlite3 fetching every row of every table of the file into tuples
    (``bench_store.raw_read``, the figure the open's goal of 1.5x is set against);
  * ``fetch``: the reader's own fetch alone: the file's bytes into memory
    (``header.load``) and every table's rows fetched the way the reader does, in
    ``reader._CHUNK`` rows at a time, and dropped;
  * ``fetch+links``: that, plus the links (nine in ten of a design's rows) regrouped
    into columns and made into :class:`Link` objects, kept: the least any open must
    do, with no sharing of repeated values and no value checks;
  * ``open``: :func:`open_design` as the window and the CLI call it.

Main-thread CPU (``time.thread_time``): the open's integrity check runs in a thread of
its own beside the reading, on a second core.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from workbench.model.parts import Link
from workbench.store import binding, header, open_design, reader

sys.path.insert(0, str(Path(__file__).parent))
from bench_store import raw_read  # noqa: E402 - the raw read bench_store pairs with


def fetch(path: Path, make_links: bool) -> list[Link]:
    """Every row fetched as the reader fetches them; the links made into objects too
    when ``make_links`` (returned, so freeing them is not timed)."""
    kept: list[Link] = []
    conn = header.load(path)
    tables = binding.TREE + binding.LISTS
    with binding.collector_paused():
        for b in tables:
            cursor = conn.execute(reader._select_sql(b.table, b.columns))
            while rows := cursor.fetchmany(reader._CHUNK):
                if make_links and b.table == "links":
                    columns = list(zip(*rows, strict=True))
                    kept.extend(map(Link, *columns[1:]))
        done = {b.table for b in tables}
        names = conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
        for (name,) in names:
            if name not in done:
                conn.execute(f'SELECT * FROM "{name}"').fetchall()
    conn.close()
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    path: Path = args.path
    steps: dict[str, Callable[[], object]] = {
        "raw": lambda: raw_read(path),
        "fetch": lambda: fetch(path, False),
        "fetch+links": lambda: fetch(path, True),
        "open": lambda: open_design(path),
    }
    seconds: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.runs):
        for name, step in steps.items():
            gc.collect()
            start = time.thread_time()
            made = step()
            seconds[name].append(time.thread_time() - start)
            del made  # freed outside the timing
    raws = seconds["raw"]
    for name, times in seconds.items():
        ratios = [t / r for t, r in zip(times, raws, strict=True)]
        print(
            f"{name:12s} CPU min/med {min(times):.3f}/{statistics.median(times):.3f} s"
            f"  /raw min/med {min(ratios):.2f}/{statistics.median(ratios):.2f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
