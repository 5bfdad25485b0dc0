"""Figures of racks the calculators cannot read, for views that must show them anyway.

A design built by a script or an importer can hold anything its dataclasses can: a
power limit of "lots", a cooling limit of "x", a name that is bytes.  The calculators
(:mod:`workbench.calc`, :mod:`workbench.rules`) may raise on such values, and a view
that raises in a slot or a paint event loses its drawing (or, in PySide 6.11, can take
the process down while the error is reported).  The views therefore ask these helpers:
each tries the calculator on the rack as it is (no cost on the normal path) and only
when that raises reads it again from :func:`plain_rack`, where odd values are unknown.
The design itself is never changed; the rules report the odd values.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from typing import Any

from workbench.calc import summary as calc_summary
from workbench.calc.summary import DesignSummary, LoadCache, RackLoad
from workbench.model import Design, Rack
from workbench.rules.budgets import RackBudgets, rack_budgets
from workbench.units import finite

#: Rack fields the calculators read as numbers; :func:`plain_rack` makes odd ones unknown.
_NUMBER_FIELDS: tuple[str, ...] = (
    "cooling_limit_kw",
    "max_weight_kg",
    "feed_a_voltage",
    "feed_a_phases",
    "feed_a_breaker_a",
    "feed_b_voltage",
    "feed_b_phases",
    "feed_b_breaker_a",
    "floor_x_mm",
    "floor_y_mm",
)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ("" if value is None else repr(value))


def plain_rack(rack: Rack) -> Rack:
    """A copy of ``rack`` (its device list shared) that the calculators can read: every
    number field that holds no finite number (text, NaN, infinity) reads as unknown
    (None; NaN for the power limit, which has no "unset"), and names and kinds that are
    not text read as their repr.  Only for the views' fallback when a calculator raised
    on the rack itself; the design is never changed."""

    def number(value: object) -> float | None:
        return float(value) if finite(value) else None

    values: dict[str, Any] = {name: number(getattr(rack, name)) for name in _NUMBER_FIELDS}
    limit = rack.power_limit_kw
    return replace(
        rack,
        id=_text(rack.id),
        name=_text(rack.name),
        rack_type=_text(rack.rack_type),
        cooling=_text(rack.cooling),
        facing=_text(rack.facing),
        power_limit_kw=float(limit) if finite(limit) else math.nan,
        **values,
    )


def safe_rack_budgets(design: Design, rack: Rack, load: RackLoad) -> RackBudgets | None:
    """``rules.budgets.rack_budgets``, never raising: read from :func:`plain_rack` when
    the rack itself makes it raise (a cooling limit of "x"), None when even that fails
    (the drawing then shows no budget bars)."""
    try:
        return rack_budgets(design, rack, load)
    except Exception:  # noqa: BLE001 - a view must show whatever the design holds
        pass
    try:
        return rack_budgets(design, plain_rack(rack), load)
    except Exception:  # noqa: BLE001
        return None


def safe_rack_load(design: Design, rack: Rack, cache: LoadCache) -> RackLoad:
    """``calc.summary.rack_load``, never raising: the views draw every rack from it.

    A design built by a script can hold a power limit of "lots"; ``rack_load`` raises
    on it.  Then the load is computed again with the odd limit read as unknown (NaN:
    no budget state, "?" in the figures), and should that fail too, the rack shows
    nothing used of nothing, rather than the window losing every rack drawing.  The
    rules report the odd value itself.
    """
    try:
        return calc_summary.rack_load(design, rack, cache)
    except Exception:  # noqa: BLE001 - a view must show whatever the design holds
        pass
    plain = plain_rack(rack)
    try:
        return calc_summary.rack_load(design, plain, LoadCache())
    except Exception:  # noqa: BLE001
        return RackLoad(plain.id, plain.name, 0.0, 0.0, 0.0, 42.0, 0.0, math.nan, None, 0)


def safe_rack_loads(design: Design) -> dict[str, RackLoad]:
    """``calc.summary.rack_loads`` through :func:`safe_rack_load` (printing, exports)."""
    cache = LoadCache()
    return {rack.id: safe_rack_load(design, rack, cache) for rack in design.iter_racks()}


def counts_only(racks: int, counts: Counter[str]) -> DesignSummary:
    """A summary holding only the rack and device counts (when the figures cannot be
    computed from what the design holds)."""
    return DesignSummary(
        racks=racks,
        devices=sum(n for n in counts.values() if n > 0),
        gpus=0,
        it_kw=0.0,
        typical_kw=0.0,
        peak_pflops={},
        gpu_models={},
        hbm_tb=0.0,
        pue=1.0,
        facility_kw=0.0,
        heat_btu_h=0.0,
        cooling_tons=0.0,
    )


def per_mille(fraction: float) -> int:
    """A budget's share as a 0..1000 bar value (0 when it is no number: NaN, a limit
    that is no number)."""
    return int(max(0.0, min(fraction, 1.0)) * 1000) if finite(fraction) else 0
