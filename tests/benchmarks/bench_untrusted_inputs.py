"""Benchmark: how fast hostile inputs are refused, and how fast the catalog loads.

These were wall-clock assertions inside unit tests (one failed twice under load on a
2-core machine, issue 19); the unit tests now check *that* each input is refused, and
where, and this script measures *how fast*.  Run as
``.venv/bin/python tests/benchmarks/bench_untrusted_inputs.py``; each line prints the
seconds taken and the target it should stay under.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbench.catalog import limits, load_catalog, load_file
from workbench.versions.reports import ReportError, read_report

HEAD = "manufacturer: Example\nmodel: Node\nslug: example-node\nu_height: 1\nmax_power_w: 100\n"
BILLION_LAUGHS = (
    "manufacturer: Example\nmodel: Bomb\nslug: example-bomb\nprops:\n"
    '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"  {chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n"
        for i in range(8)
    )
)
ENTITY_BOMB = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{"&lol;" * 10}">' for i in range(1, 9))
    + "]>\n<nvidia_smi_log>&lol8;</nvidia_smi_log>\n"
)


def timed(what: str, target_s: float, run: Callable[[], object]) -> None:
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    verdict = "ok" if seconds < target_s else "SLOW"
    print(f"{what:<44} {seconds:8.3f} s  (target < {target_s:g} s) {verdict}")


def _refuse_report() -> None:
    try:
        read_report(ENTITY_BOMB.encode(), "bomb.xml")
    except ReportError:
        return
    raise SystemExit("the entity bomb was not refused")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files = {
            "bomb.yaml": BILLION_LAUGHS,
            "deep.yaml": HEAD + "props: " + "[" * 5000 + "]" * 5000 + "\n",
            "dense.yaml": HEAD
            + "props: {x: ["
            + ",".join(["0"] * limits.MAX_VALUES_PER_FILE)
            + "]}\n",
        }
        for name, text in files.items():
            (root / name).write_text(text)
        timed("billion laughs refused", 0.5, lambda: load_file(root / "bomb.yaml"))
        timed("5,000 levels of nesting refused", 0.5, lambda: load_file(root / "deep.yaml"))
        timed("too many values refused", 2.0, lambda: load_file(root / "dense.yaml"))
    timed("XML entity bomb refused", 1.0, _refuse_report)
    timed("shipped catalog loaded", 1.0, lambda: load_catalog(include_user=False))


if __name__ == "__main__":
    main()
