"""A figure together with how it was obtained, for the window's explain view.

Planners defend budgets with these numbers, so every design-level result carries an
:class:`Explained`: the value and its unit, the formula in symbols, the same formula with
the numbers substituted, and where the formula comes from.  ``str()`` gives the one line
a reviewer checks by hand, e.g.::

    days = 6·N·D / (gpus·peak·MFU) / 86400 = 6·175e9·200e9 / (1024·312e12·0.4) / 86400 = 19.02 days
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def num(value: float, digits: int = 4) -> str:
    """A compact, human-checkable number in engineering notation (exponent a multiple of
    3): ``175e9``, ``312e12``, ``0.4``, ``1024``, ``127.8e15``."""
    if value is None or not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e6:
        if float(value).is_integer():
            return str(int(value))
        return f"{value:.{digits}g}"
    exponent = int(math.floor(math.log10(magnitude) / 3) * 3)
    mantissa = value / 10**exponent
    text = f"{mantissa:.{digits}g}"
    if "e" in text or abs(float(text)) >= 1000:  # rounding carried over, e.g. 999.99e9
        exponent += 3
        text = f"{mantissa / 1000:.{digits}g}"
    return f"{text}e{exponent}"


@dataclass(frozen=True)
class Explained:
    """A value, its unit, the formula, the substituted formula and the formula's source."""

    value: float
    unit: str
    formula: str
    substituted: str
    source: str = ""

    def text(self, digits: int = 4) -> str:
        """``formula = substituted = value unit``."""
        return (
            f"{self.formula} = {self.substituted} = {num(self.value, digits)} {self.unit}".rstrip()
        )

    def __str__(self) -> str:
        return self.text()

    def to_dict(self) -> dict[str, object]:
        """Plain mapping for JSON exports."""
        return {
            "value": self.value,
            "unit": self.unit,
            "formula": self.formula,
            "substituted": self.substituted,
            "source": self.source,
        }
