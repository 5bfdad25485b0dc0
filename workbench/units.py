"""How quantities read: the one place that turns numbers with units into text.

The status strip, the inspector, the rack drawing, the Estimates panel, rule messages
and the command line all print power, counts and rack units; written once here, a rack
reads "20.4 kW" in the Checks view exactly as under the rack drawing.  No Qt, so the
command line and exports use it too.
"""

from __future__ import annotations

import math
from typing import TypeGuard


def finite(value: object) -> TypeGuard[float]:
    """True for a real, finite number (never print NaN or inf)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def format_count(n: int, unit: str, plural: str | None = None) -> str:
    """'1,024 GPUs', '1 rack', '2 errors'."""
    word = unit if n == 1 else (plural or unit + "s")
    return f"{n:,} {word}"


def format_flops(pflops: float) -> str:
    """PFLOPS below 1,000, EF (exaFLOPS) from 1,000 PF up: '989.4 PF', '1.01 EF'."""
    if pflops >= 1000:
        return f"{pflops / 1000:,.2f} EF"
    if pflops >= 100:
        return f"{pflops:,.0f} PF"
    return f"{pflops:,.1f} PF"


def format_power(kw: float) -> str:
    """kW below 1,000, MW from 1,000 kW up: '40.8 kW', '1.31 MW'."""
    if kw >= 1000:
        return f"{kw / 1000:,.2f} MW"
    return f"{kw:,.1f} kW"


def format_kw(kw: float | None, digits: int = 1) -> str:
    """A rack-sized power figure: '20.4 kW', '10.20 kW' (digits=2), '—' when unknown."""
    if not finite(kw):
        return "—"
    assert kw is not None
    return f"{kw:,.{digits}f} kW"


def short_number(value: float | None) -> str:
    """Whole numbers without decimals, others with one: '42', '12.5', '?' when unknown."""
    if not finite(value):
        return "?"
    assert value is not None
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


def format_limit(value: float | None, unit: str) -> str:
    """A budget limit as typed: '12 kW', '1,500 kg', '42 U'."""
    return f"{short_number(value)} {unit}"


def format_quantity(value: float | None, unit: str = "", digits: int = 3) -> str:
    """A readable figure: thousands separators for big counts, 3 significant digits else;
    days with one decimal (hours below a tenth of a day); '—' when unknown."""
    if not finite(value):
        return "—"
    assert value is not None
    magnitude = abs(value)
    if unit == "days":
        # One decimal, as the status strip and the plot label print it; a job shorter
        # than a tenth of a day reads better in hours than as "0.0 days".
        return f"{value:,.1f} days" if magnitude >= 0.1 else format_quantity(value * 24, "hours")
    if magnitude >= 1e15 and unit in ("FLOPs", "FLOP"):
        text = f"{value:.3e}".replace("e+", "e")
    elif magnitude >= 100:
        text = f"{value:,.0f}"
    elif magnitude >= 1:
        text = (
            f"{value:,.{max(digits - 1, 0)}f}".rstrip("0").rstrip(".")
            if magnitude < 10
            else f"{value:,.1f}"
        )
    elif magnitude == 0:
        text = "0"
    else:
        text = f"{value:.{digits}g}"
    return f"{text} {unit}".strip()


def format_capacity(tb: float | None) -> str:
    """'294.9 TB', '1.77 PB'."""
    if tb is not None and tb >= 1000:
        return format_quantity(tb / 1000, "PB")
    return format_quantity(tb, "TB")


def format_gbs(gbs: float | None) -> str:
    """'50 GB/s', '1.6 TB/s' (GB/s in bytes)."""
    if gbs is not None and gbs >= 1000:
        return format_quantity(gbs / 1000, "TB/s")
    return format_quantity(gbs, "GB/s")
