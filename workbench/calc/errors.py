"""Bad input for the calculators: one exception type that names the field.

Every calculator validates its arguments before it computes, so a negative count, a
NaN from a half-typed form or an absurd figure (MFU above 1, a parallelism product that
does not divide the GPU count, a ZeRO stage of 5) becomes an :class:`InputError` whose
``field`` the window highlights and whose message the command line prints, never a
traceback or a NaN on screen.  Field names match the command-line flags with dashes
turned into underscores (``seq_len`` is ``--seq-len``).
"""

from __future__ import annotations

import math
from numbers import Real

#: Upper bounds beyond which an input is taken to be a typo, not a plan.  Generous: the
#: largest published dense models are ~1e12 parameters, the largest clusters ~1e5-1e6 GPUs.
MAX_PARAMS = 1e15
MAX_TOKENS = 1e16
MAX_GPUS = 10_000_000


class InputError(ValueError):
    """An input a calculator cannot use; ``field`` names it, the message says why."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.reason = message
        super().__init__(f"{field}: {message}")


def number(field: str, value: object) -> float:
    """``value`` as a finite float, or InputError naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, Real):
        if value is None:
            raise InputError(field, "is required")
        raise InputError(field, f"must be a number, got {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise InputError(field, f"must be a finite number, got {value!r}")
    return result


def positive(field: str, value: object, maximum: float | None = None) -> float:
    """A finite number > 0 (and ≤ ``maximum`` when given)."""
    result = number(field, value)
    if result <= 0:
        raise InputError(field, f"must be greater than 0, got {value!r}")
    if maximum is not None and result > maximum:
        raise InputError(field, f"{value!r} is implausibly large (limit {maximum:g})")
    return result


def non_negative(field: str, value: object, maximum: float | None = None) -> float:
    """A finite number ≥ 0 (and ≤ ``maximum`` when given)."""
    result = number(field, value)
    if result < 0:
        raise InputError(field, f"must not be negative, got {value!r}")
    if maximum is not None and result > maximum:
        raise InputError(field, f"{value!r} is implausibly large (limit {maximum:g})")
    return result


def fraction(field: str, value: object, *, allow_zero: bool = False) -> float:
    """A number in (0, 1] (or [0, 1] with ``allow_zero``): MFU, load factor, headroom."""
    result = number(field, value)
    low_ok = result >= 0 if allow_zero else result > 0
    if not low_ok or result > 1:
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise InputError(field, f"must be a fraction in {interval}, got {value!r}")
    return result


def positive_int(field: str, value: object, maximum: int | None = None) -> int:
    """A whole number ≥ 1 (floats like 8.0 are accepted, 8.5 is not)."""
    result = number(field, value)
    if result != int(result):
        raise InputError(field, f"must be a whole number, got {value!r}")
    if result < 1:
        raise InputError(field, f"must be at least 1, got {value!r}")
    if maximum is not None and result > maximum:
        raise InputError(field, f"{value!r} is implausibly large (limit {maximum})")
    return int(result)


def choice(field: str, value: object, options: tuple | dict) -> str:
    """``value`` if it is one of ``options``; the message lists them."""
    if value not in options:
        listed = ", ".join(str(o) for o in options)
        raise InputError(field, f"must be one of {listed}; got {value!r}")
    return value  # type: ignore[return-value]
