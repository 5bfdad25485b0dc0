"""Progress on standard error for the steps of a command that can take a while.

A command on a 1,000,000-GPU campus opens, checks and writes for tens of seconds; a
silent terminal for that long reads as a hang.  :func:`step` says what it is doing once
a step has run for :data:`AFTER_S` seconds, and how long it took when it ends, so
commands on small designs stay as quiet as before.  Standard output (what ``--json``
prints) is never touched.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: A step that runs longer than this says so.
AFTER_S = 2.0


@contextmanager
def step(label: str, after_s: float = AFTER_S, *, quiet: bool = False) -> Iterator[None]:
    """Run the body; if it is still running after ``after_s`` seconds, print
    ``workbench: LABEL…`` to standard error, and ``… done in N s`` at its end.
    ``quiet`` (a command's ``--quiet``, "print nothing on success") says nothing."""
    if quiet:
        yield
        return
    start = time.perf_counter()
    said = threading.Event()

    def say() -> None:
        said.set()
        print(f"workbench: {label}…", file=sys.stderr, flush=True)

    timer = threading.Timer(after_s, say)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if said.is_set():
            took = time.perf_counter() - start
            print(f"workbench: {label}: done in {took:,.1f} s", file=sys.stderr, flush=True)
