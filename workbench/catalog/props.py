"""Kind-specific figures kept in an item's ``props`` mapping.

``props`` is open-ended (a user may record anything), but the names the calculators and
rules read are checked here so a typo in a figure fails at load time with its line,
instead of as a wrong total three screens later.  ``catalogs/README.md`` documents each.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from workbench.catalog.errors import shown_value
from workbench.catalog.vocabulary import COOLING_TYPES

if TYPE_CHECKING:  # only for the annotation: parse imports this module
    from workbench.catalog.parse import _Context

#: Props that must be non-negative numbers when present.
NUMERIC_PROPS: frozenset[str] = frozenset(
    {
        "host_ram_gb",
        # GPU memory as nvidia-smi reports it (MiB): the usable capacity for "fits".
        "hbm_total_mib",
        "reach_m",
        "length_m",
        "speed_gbps",
        "power_w",
        "ports",
        "max_weight_kg",
        "cooling_limit_kw",
        "width_mm",
        "depth_mm",
        "phases",
        "voltage",
        "breaker_a",
        "outlets",
        "capacity_kw",
        "capacity_tb",
        "read_gbs",
        "write_gbs",
        "drive_count",
        "throughput_tbps",
        "fp64_tensor_tflops",
    }
)

#: Props whose value must be one of a few words.
CHOICE_PROPS: dict[str, tuple[str, ...]] = {
    "cooling": tuple(COOLING_TYPES),
    "media": ("nvme", "ssd", "hdd", "hybrid"),
    "fiber": ("mmf", "smf", "copper"),
}

#: A PDU's stated capacity may differ from phases x volts x amps by this much (rounding,
#: or a vendor quoting kVA at a slightly different nominal voltage) before we warn.
PDU_CAPACITY_TOLERANCE = 0.05


def circuit_kw(phases: float, voltage: float, breaker_a: float) -> float:
    """The full rating of a circuit in kW, at unity power factor.

    Single phase: ``V x A``.  Three phase with ``voltage`` the line-to-line voltage
    (415 V in Europe/Asia, 208 V in North America): ``sqrt(3) x V x A``.  A 415 V 32 A
    three-phase feed is therefore 23.0 kW.  This is the breaker's full rating; the rules
    keep continuous load at 80 % of it (:mod:`workbench.rules.budgets`).
    """
    factor = math.sqrt(3) if phases == 3 else phases
    return factor * voltage * breaker_a / 1000.0


def pdu_capacity_kw(phases: float, voltage: float, breaker_a: float) -> float:
    """Nameplate power of a PDU feed in kW (:func:`circuit_kw`, to the watt x 10)."""
    return round(circuit_kw(phases, voltage, breaker_a), 2)


def check_props(ctx: _Context, kind: str, props: dict[str, Any]) -> dict[str, Any]:
    """Validate the known props and fill the PDU capacity when it can be computed.

    Each bad prop is recorded in ``ctx.errors`` and the others are still checked.
    """
    for name, value in props.items():
        path = ("props", name)
        with ctx.check():
            if not isinstance(name, str) or not name.strip():
                raise ctx.error(path, "a prop needs a name")
            if isinstance(value, float) and not math.isfinite(value):
                # NaN is not equal to itself: the item could never be read back the same.
                raise ctx.error(path, f"expected a finite number, got {value}")
            if name in NUMERIC_PROPS:
                props[name] = ctx.number(value, path)
            elif name in CHOICE_PROPS and value not in CHOICE_PROPS[name]:
                choices = ", ".join(CHOICE_PROPS[name])
                raise ctx.error(path, f"expected one of {choices}, got {shown_value(value)}")
    if ctx.failed(("props",)):
        return props  # the entry is rejected; derived checks would repeat the problem
    if "phases" in props and props["phases"] not in (1.0, 3.0):
        raise ctx.error(("props", "phases"), f"expected 1 or 3, got {props['phases']:g}")
    if kind == "pdu" and {"phases", "voltage", "breaker_a"} <= props.keys():
        computed = pdu_capacity_kw(props["phases"], props["voltage"], props["breaker_a"])
        stated = props.get("capacity_kw")
        if stated is None:
            props["capacity_kw"] = computed
        elif abs(stated - computed) > PDU_CAPACITY_TOLERANCE * computed:
            ctx.warn(
                ("props", "capacity_kw"),
                f"{stated:g} kW differs from phases x voltage x breaker ({computed:g} kW)",
            )
    return props
