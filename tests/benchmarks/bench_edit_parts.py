"""Benchmark: where an everyday edit's time goes, part by part, in the window as shipped.

``bench_edits.py`` says how long an edit takes; this says what it is made of, so the
largest part is the one worked on: the CPU time of the main thread spent in each of a
few functions (the rules' update and the compute plane inside it, the Checks view's
refresh, the inspector, the status strip, the rack and Checks tree paints, the model's
edit), per edit, as the median edit's share.  The parts nest (the rules' update runs
inside the first view that asks for findings), so they do not add up to the whole.

Each function is wrapped for the run (a thread-clock read before and after); the window,
the edits and their timing are ``bench_edits``' own.

    .venv/bin/python tests/benchmarks/bench_edit_parts.py [--gpus 100000] [--rounds 30]
        [--edits remove drop]

Not collected by the default pytest run: timings are not unit-test assertions.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_edits as edits  # noqa: E402

#: (module, attribute path) of each part timed.
PARTS: tuple[tuple[str, str], ...] = (
    ("workbench.rules.engine", "Checker.update"),
    ("workbench.calc.design_hardware", "_compute_plane"),
    ("workbench.calc.fabric.planes", "plane_structures"),
    ("workbench.calc.workload", "evaluate_workload"),
    ("workbench.ui.checks.view", "ChecksView.refresh"),
    ("workbench.ui.shell.inspector", "Inspector.refresh"),
    ("workbench.ui.shell.summary_strip", "SummaryStrip.refresh"),
    ("workbench.ui.racks.scene", "RackItem.paint"),
    ("workbench.ui.checks.tree", "FindingsTree.paintEvent"),
    ("workbench.ui.commands", "EditCommand._attempt"),
)

#: Seconds spent per (edit, part) while the edit named in ``_now`` runs.
_SPENT: defaultdict[tuple[str, str], float] = defaultdict(float)
_NOW: list[str | None] = [None]


def _wrap(module: str, path: str) -> None:
    """Replace ``module.path`` by a wrapper that adds its CPU time to :data:`_SPENT`.
    Done before the window is built, so Qt calls the wrapped Python overrides."""
    owner = importlib.import_module(module)
    *outer, name = path.split(".")
    for part in outer:
        owner = getattr(owner, part)
    inner: Callable = getattr(owner, name)

    def timed(*args, **kwargs):
        edit = _NOW[0]
        if edit is None:
            return inner(*args, **kwargs)
        start = time.thread_time()
        try:
            return inner(*args, **kwargs)
        finally:
            _SPENT[(edit, path)] += time.thread_time() - start

    setattr(owner, name, timed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--edits", nargs="+", default=["remove", "drop"])
    args = parser.parse_args()
    for module, path in PARTS:
        _wrap(module, path)
    edits.CLOCK = time.thread_time
    app = edits.QApplication.instance() or edits.QApplication(sys.argv[:1])
    edits.draw_text_unshaped()
    catalog = edits.load_catalog(include_user=False)
    totals: defaultdict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = tmp
        window = edits.open_window(app, catalog, Path(tmp), args.gpus)
        actions = edits.Edits(app, window, catalog)
        for _ in range(args.rounds):
            for edit in args.edits:
                for name, action in ((edit, getattr(actions, edit)()), (f"undo {edit}", None)):
                    _NOW[0] = name
                    totals[name].append(edits.timed(app, action or actions.undo))
                    _NOW[0] = None
        edits.close_window(app, window)
    print(f"{args.gpus:,} GPUs, {args.rounds} rounds, CPU time of the main thread")
    for name, samples in totals.items():
        print(f"\n{name}: median {statistics.median(samples):.1f} ms")
        parts = sorted(
            ((path, spent) for (edit, path), spent in _SPENT.items() if edit == name),
            key=lambda pair: -pair[1],
        )
        for path, spent in parts:
            print(f"  {1000 * spent / args.rounds:7.2f} ms  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
