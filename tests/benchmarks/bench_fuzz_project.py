"""Benchmark: thousands of seeded corruptions of the sample project file, each opened.

    .venv/bin/python tests/benchmarks/bench_fuzz_project.py [--cases 3000] [--seed N]
        [--every-value] [--big FILE.dcwb]

The same cases and judge as ``tests/test_fuzz_project.py`` (which runs a few hundred in
the default test run), many more of them; ``--every-value`` adds every (table, column,
mutation) value edit and every snapshot edit once.  Every case asserts that nothing but
a ProjectFileError escapes ``open_design``, that the file is unchanged and nothing
appears beside it, and that what opens is the same design, or is reported by the rules,
or differs only where a user could have made the change.  Printed: cases and verdicts
(refused / same / flagged / quiet / known / skipped), verdicts per family, the refusal
messages seen most, time per case and the worst case.

``--big`` also times opening a large design with and without the value checks (best
of three each): ``python -m workbench new /tmp/big.dcwb --gpus 100000`` makes one.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz_cases import all_snapshot_cases, all_value_cases, make_cases  # noqa: E402
from test_fuzz_project import BASE_SEED, Outcome, baseline, run_cases  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=BASE_SEED + 1)
    parser.add_argument("--every-value", action="store_true")
    parser.add_argument("--big", type=Path, default=None)
    args = parser.parse_args()
    cases = make_cases(args.cases, args.seed)
    if args.every_value:
        cases += all_value_cases(args.seed) + all_snapshot_cases(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        base = baseline(work)
        start = time.perf_counter()
        results = run_cases(cases, work, base, keep_going=True)
        total = time.perf_counter() - start
    _report(results, total)
    if args.big is not None:
        _time_big(args.big)
    return 1 if any(o.verdict == "FAILED" for _, o in results) else 0


def _report(results: list[tuple[object, Outcome]], total: float) -> None:
    verdicts = collections.Counter(o.verdict for _, o in results)
    families: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for case, outcome in results:
        families[case.family][outcome.verdict] += 1  # type: ignore[attr-defined]
    ran = [(o.seconds, c) for c, o in results if o.verdict != "skipped"]
    worst_s, worst = max(ran, key=lambda pair: pair[0])
    print(f"{len(results):,} cases in {total:.1f} s ({len(ran) / total:.0f} opened per second)")
    print("  " + ", ".join(f"{k} {v:,}" for k, v in verdicts.most_common()))
    for family, counts in sorted(families.items()):
        print(f"  {family:<9} " + ", ".join(f"{k} {v:,}" for k, v in counts.most_common()))
    mean = sum(s for s, _ in ran) / len(ran)
    print(f"  per case: mean {mean * 1000:.1f} ms, worst {worst_s * 1000:.0f} ms ({worst.ident})")  # type: ignore[attr-defined]
    # Messages with their numbers and quoted values blanked, so like groups with like.
    reasons = collections.Counter(
        re.sub(r"'[^']*'|\d+(\.\d+)?", "…", o.message)[:90]
        for _, o in results
        if o.verdict == "refused"
    )
    print("  refusals, most common first:")
    for reason, n in reasons.most_common(8):
        print(f"    {n:5,}  {reason}")
    for _, outcome in results:
        if outcome.verdict == "FAILED":
            print(f"  FAILED {outcome.message[:200]}")
    flagged = collections.Counter(r for _, o in results for r in o.new_rules)
    print(
        "  rules that flagged accepted files: "
        + ", ".join(f"{r} {n}" for r, n in flagged.most_common())
    )


def _time_big(path: Path) -> None:
    from workbench.store import open_design, reader

    def best(runs: int = 3) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            open_design(path)
            times.append(time.perf_counter() - start)
        return min(times)

    checked = best()
    real = reader.check_values
    reader.check_values = lambda *a: None  # type: ignore[assignment]
    try:
        unchecked = best()
    finally:
        reader.check_values = real
    print(
        f"{path}: opens in {checked:.2f} s with the value checks, {unchecked:.2f} s "
        f"without: the checks add {checked - unchecked:.2f} s"
    )


if __name__ == "__main__":
    sys.exit(main())
