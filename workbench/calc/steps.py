"""Work done in steps: a generator that yields between steps and returns its answer.

A window runs such work between events (the first check of a 100,000-GPU design, the
compute plane its estimate reads), so no step blocks input for long; a command line
runs the same generator to its end with :func:`drain`, so both give one answer.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from typing import TypeVar, cast

T = TypeVar("T")
S = TypeVar("S")


def drain(steps: Generator[object, None, T]) -> T:
    """Run ``steps`` to the end (whatever they yield); its return value."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return cast(T, done.value)


def chunks(items: Sequence[S], step: int | None) -> Iterator[Sequence[S]]:
    """``items`` in runs of ``step`` (a step generator yields between runs), or whole
    and uncopied when ``step`` is 0 or None (the command line's one pass)."""
    if not step:
        yield items
        return
    for start in range(0, len(items), step):
        yield items[start : start + step]
