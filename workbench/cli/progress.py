"""Progress on standard error for the steps of a command that can take a while.

A command on a 1,000,000-GPU campus opens, checks and writes for tens of seconds, a
NetBox export for two minutes; a silent terminal for that long reads as a hang.
:func:`step` says what it is doing once a step has run for :data:`AFTER_S` seconds,
how far it has got every :data:`EVERY_S` seconds after that (where the work reports
it), and how long it took when it ends, so commands on small designs stay as quiet as
before.  Standard output (what ``--json`` prints) is never touched.

How far: the step hands the work a callback, ``tell(fraction, label)``, the same
shape as the exports' :data:`workbench.export.output.Progress`, so every writer that
drives the window's progress dialog drives this too.  The callback only keeps the
latest figure; a timer thread prints it, so a writer that reports every row costs
nothing more on a small design.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: A step that runs longer than this says so.
AFTER_S = 2.0

#: Once a step has said it started, how often it says how far it has got (when that moved).
EVERY_S = 5.0


class Told:
    """The latest progress the work of a step reported: ``tell(fraction, label)``.

    Called from the work's thread, read by the step's timer thread: the figure and its
    label are kept as one tuple, so the reader never sees one without the other.  The
    timer thread notes what it has said (``said``, set once the step has announced
    itself; ``shown``, the figure it printed last), which a test waits on rather than
    on the clock."""

    __slots__ = ("latest", "said", "shown")

    def __init__(self) -> None:
        self.latest: tuple[float, str] | None = None
        self.said = threading.Event()
        self.shown: tuple[float, str] | None = None

    def __call__(self, fraction: float, label: str = "") -> None:
        self.latest = (fraction, label)

    def pages(self, done: int, total: int) -> None:
        """``tell`` in the shape of the printing's progress (pages drawn of all)."""
        self((done / total) if total else 0.0, f"page {min(done + 1, total):,} of {total:,}")


def _how_far(label: str, latest: tuple[float, str]) -> str:
    """``workbench: LABEL: 43 % (what)``; never 100 % before the step has ended."""
    fraction, what = latest
    percent = min(99, max(0, int(fraction * 100)))
    return f"workbench: {label}: {percent} %" + (f" ({what})" if what else "")


@contextmanager
def step(
    label: str,
    after_s: float | None = None,
    *,
    quiet: bool = False,
    every_s: float | None = None,
) -> Iterator[Told]:
    """Run the body, which may report how far it got through the :class:`Told` it is
    given; if it is still running after ``after_s`` seconds, print ``workbench:
    LABEL…`` to standard error, then ``LABEL: N % (what)`` every ``every_s`` seconds
    while the figure moves, and ``… done in N s`` at its end.  ``quiet`` (a command's
    ``--quiet``, "print nothing on success") says nothing.  Without ``after_s`` and
    ``every_s``, :data:`AFTER_S` and :data:`EVERY_S` as they are when the step starts."""
    told = Told()
    wait_first = AFTER_S if after_s is None else after_s
    wait_next = EVERY_S if every_s is None else every_s
    if quiet:
        yield told
        return
    start = time.perf_counter()
    ended = threading.Event()

    def watch() -> None:
        if ended.wait(wait_first):
            return
        print(f"workbench: {label}…", file=sys.stderr, flush=True)
        told.said.set()
        while not ended.wait(wait_next):
            latest = told.latest
            # A work that says it is whole has ended but for its return: "done" follows.
            if latest is not None and latest != told.shown and latest[0] < 1.0:
                print(_how_far(label, latest), file=sys.stderr, flush=True)
                told.shown = latest

    watcher = threading.Thread(target=watch, name=f"progress: {label}", daemon=True)
    watcher.start()
    try:
        yield told
    finally:
        ended.set()
        watcher.join()
        if told.said.is_set():
            took = time.perf_counter() - start
            print(f"workbench: {label}: done in {took:,.1f} s", file=sys.stderr, flush=True)
