"""Benchmark: thousands of seeded corruptions of real catalog files, loaded and imported.

    .venv/bin/python tests/benchmarks/bench_fuzz_catalog.py [--cases 3000] [--seed N]

The same cases and checks as ``tests/test_fuzz_catalog.py`` (which runs 300 of them in
the default test run), many more of them.  Every case asserts that nothing but a
CatalogError escapes the loader and the importer, that the file is unchanged, and that
what loads re-validates from its snapshot.  Printed: cases per second, the worst case's
time (and what it was), times per kind of corruption, and memory: the peak traced by
``tracemalloc`` while re-running the slowest cases, and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_fuzz_catalog import BASE_SEED, check_case, make_case, make_cases  # noqa: E402

from workbench.catalog import load_catalog  # noqa: E402

#: Slowest cases re-run under tracemalloc (tracing slows every case about fivefold).
TRACED = 10


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=BASE_SEED + 1)
    args = parser.parse_args()
    known = load_catalog(include_user=False).items
    timings: list[tuple[float, int, str]] = []  # not the cases: some are megabytes
    by_kind: dict[str, list[float]] = defaultdict(list)
    loaded = imported = 0
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        start = time.perf_counter()
        for case in make_cases(args.cases, args.seed):
            outcome = check_case(case, work, known)
            timings.append((outcome.seconds, case.number, case.label))
            kind = case.mutations[0] if len(case.mutations) == 1 else "combined"
            by_kind[kind].append(outcome.seconds)
            loaded += bool(outcome.items)
            imported += outcome.imported
        total = time.perf_counter() - start
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        timings.sort(key=lambda pair: pair[0], reverse=True)
        peaks = []
        for _, number, label in timings[:TRACED]:
            case = make_case(number, args.seed)
            tracemalloc.start()
            check_case(case, work, known, limit=60.0)
            peaks.append((tracemalloc.get_traced_memory()[1], label))
            tracemalloc.stop()
    worst_seconds, _, worst_label = timings[0]
    peak_bytes, peak_label = max(peaks, key=lambda pair: pair[0])
    print(f"{args.cases} cases in {total:.1f} s: {args.cases / total:.0f} cases/s")
    print(f"  files that loaded items: {loaded}, imported: {imported}")
    print(f"  worst case: {worst_seconds * 1000:.0f} ms CPU ({worst_label})")
    print(f"  median case: {statistics.median(t for t, _, _ in timings) * 1000:.1f} ms CPU")
    print(f"  peak traced memory of the {TRACED} slowest cases: {peak_bytes / 1e6:.1f} MB")
    print(f"    ({peak_label})")
    print(f"  process peak RSS over all cases (before tracing): {rss_mb:.0f} MB")
    print("  by corruption: cases, median ms, worst ms")
    for kind, seconds in sorted(by_kind.items()):
        median, worst = statistics.median(seconds) * 1000, max(seconds) * 1000
        print(f"    {kind:<15} {len(seconds):>5} {median:>8.1f} {worst:>8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
