"""Work done in steps: a generator that yields between steps and returns its answer.

A window runs such work between events (the first check of a 100,000-GPU design, the
compute plane its estimate reads), so no step blocks input for long; a command line
runs the same generator to its end with :func:`drain`, so both give one answer.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TypeVar, cast

T = TypeVar("T")


def drain(steps: Generator[None, None, T]) -> T:
    """Run ``steps`` to the end; its return value."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return cast(T, done.value)
