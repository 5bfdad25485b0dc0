"""Work done in steps: a generator that yields between steps and returns its answer.

A window runs such work between events (the first check of a 100,000-GPU design, the
compute plane its estimate reads), so no step blocks input for long; a command line
runs the same generator to its end with :func:`drain`, so both give one answer.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TypeVar, cast

T = TypeVar("T")
S = TypeVar("S")
Y = TypeVar("Y")


def drain(steps: Generator[Y, None, T], each: Callable[[Y], object] | None = None) -> T:
    """Run ``steps`` to the end; its return value.  ``each`` is given every value the
    steps yield (a reader's count of rows so far, for its progress)."""
    while True:
        try:
            value = next(steps)
        except StopIteration as done:
            return cast(T, done.value)
        if each is not None:
            each(value)


def chunks(items: Sequence[S], step: int | None) -> Iterator[Sequence[S]]:
    """``items`` in runs of ``step`` (a step generator yields between runs), or whole
    and uncopied when ``step`` is 0 or None (the command line's one pass)."""
    if not step:
        yield items
        return
    for start in range(0, len(items), step):
        yield items[start : start + step]
