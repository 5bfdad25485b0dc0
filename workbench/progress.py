"""How far long work has got: the callback every layer hands down, and the two ways
work maps its parts onto one figure.

A command prints it on standard error (:mod:`workbench.cli.progress`), a window moves a
dialog's bar with it; the work itself (an open, a check, a build, a save, an export, an
as-built read) only calls it.  A leaf module, so the store, the rules, the as-built
matcher and the exports all take the one shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

#: ``progress(fraction, label)``: how far long work has got (0 to 1) and what it is on.
Progress = Callable[[float, str], object]


def parts_told(progress: Progress | None, starts: Mapping[str, float]) -> Callable[[str], None]:
    """``tell(part)``: ``progress(starts[part], part)``, or nothing without a listener.
    ``starts`` says where each part of the work begins, as a share of the whole (shares
    measured on the largest design the work meets)."""
    if progress is None:
        return lambda _part: None
    report = progress

    def tell(part: str) -> None:
        report(starts[part], part)

    return tell


def within(progress: Progress | None, first: float, last: float) -> Progress | None:
    """``progress`` for one part of some work, from ``first`` to ``last`` of the whole:
    what the part tells as 0..1 lands in between."""
    if progress is None:
        return None
    report = progress
    return lambda fraction, label: report(first + (last - first) * fraction, label)
