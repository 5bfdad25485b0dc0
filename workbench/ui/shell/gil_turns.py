"""Shorter turns of the interpreter lock while the window's work runs on a thread.

Why: the window hands some of its work after the first frame to a thread (loading the
check's modules, ``check_loading``; checking a design's links, ``link_reading``) so its
event loop keeps answering input.  But a thread holding the lock keeps it for a whole
switch interval (5 ms by default) once the main thread asks for it, and the main thread
asks once per call into Python: a repaint waited 20-30 ms.  While such a thread runs the
interval is 1 ms; both may run at once, so the interval is put back by the last to end.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: Seconds a thread may hold the lock while the main thread waits for it, as
#: :func:`sys.setswitchinterval`, while window work runs on a thread.
SWITCH_S = 0.001

_held: list[float] = []  # the interval to put back, once per ``shorter_turns`` entered


@contextmanager
def shorter_turns() -> Iterator[None]:
    """The switch interval at most :data:`SWITCH_S` inside, put back by the last out."""
    _held.append(sys.getswitchinterval())
    sys.setswitchinterval(min(_held[0], SWITCH_S))
    try:
        yield
    finally:
        first = _held[0]
        _held.pop()
        if not _held:
            sys.setswitchinterval(first)
