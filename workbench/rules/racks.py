"""Rack rules: room (overlap, depth, outside the rack) and budgets (power, cooling, weight).

The budget verdicts are functions here so that the rack drawing's bars, the inspector's
bars, the power-per-rack plot and the RACK-* findings read one rule: :func:`over_budget`
decides "over", :func:`budget_state` adds "near" (little headroom left) for the amber
colour.  Geometry comes from :mod:`workbench.model.placement`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from workbench.calc.summary import RackLoad
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model import Design, Device, Rack
from workbench.model.placement import clashes, out_of_rack, rack_height, units_label
from workbench.rules.engine import Finding, Rule, RuleContext, Severity, rule
from workbench.rules.sources import planning
from workbench.units import format_kw, format_limit, short_number

#: Above this share of a limit a budget is "near" it: little headroom for transients and
#: for the failover of one feed (planning practice: keep continuous load well below the
#: rating).
NEAR_FRACTION = 0.8


class BudgetState(enum.Enum):
    OK = "ok"
    NEAR = "near"
    OVER = "over"
    UNKNOWN = "unknown"


def over_budget(used: Any, limit: Any) -> Any:
    """True where ``used`` exceeds a positive ``limit``; works on numbers and on numpy
    arrays alike (the power plot asks for 3,500 racks at once).  No limit, no verdict."""
    return (limit > 0) & (used > limit)


def budget_state(used: float, limit: float | None) -> BudgetState:
    """OK, NEAR (above :data:`NEAR_FRACTION`), OVER, or UNKNOWN without a limit."""
    if limit is None or not limit > 0:
        return BudgetState.UNKNOWN
    if over_budget(used, limit):
        return BudgetState.OVER
    return BudgetState.NEAR if used > NEAR_FRACTION * limit else BudgetState.OK


def cooling_limit_kw(design: Design, rack: Rack) -> float | None:
    """The heat ``rack`` can shed: its catalog type's ``cooling_limit_kw`` when that type
    is built for the rack's cooling, else the cooling type's planning limit; None for a
    cooling type the workbench does not know."""
    item = design.device_types.get(rack.rack_type)
    if item is not None and item.props.get("cooling") == rack.cooling:
        stated = item.props.get("cooling_limit_kw")
        if isinstance(stated, (int, float)) and stated > 0:
            return float(stated)
    cooling = COOLING_TYPES.get(rack.cooling)
    return cooling.limit_kw if cooling is not None else None


@dataclass(frozen=True)
class Budget:
    """One budget of a rack: what is used against what is allowed."""

    used: float
    limit: float | None
    unit: str

    @property
    def state(self) -> BudgetState:
        return budget_state(self.used, self.limit)

    @property
    def fraction(self) -> float:
        """used / limit (0 without a limit)."""
        return self.used / self.limit if self.limit else 0.0


@dataclass(frozen=True)
class RackBudgets:
    power: Budget
    cooling: Budget
    space: Budget
    weight: Budget


def rack_budgets(design: Design, rack: Rack, load: RackLoad) -> RackBudgets:
    """The four budgets of ``rack`` given its ``load`` (from the live figures)."""
    return RackBudgets(
        power=Budget(load.kw_max, load.limit_kw, "kW"),
        cooling=Budget(load.kw_max, cooling_limit_kw(design, rack), "kW"),
        space=Budget(load.u_used, load.u_total, "U"),
        weight=Budget(load.weight_kg, load.max_weight_kg, "kg"),
    )


def _budgets(ctx: RuleContext, rack: Rack) -> RackBudgets:
    return ctx.memo("budgets", rack.id, lambda: rack_budgets(ctx.design, rack, ctx.load(rack)))


_BRIEF_5 = planning("a budget per rack for power, heat, weight and U")


def _height(design: Design, device: Device) -> float:
    item = design.device_types.get(device.device_type)
    return float(item.u_height) if item is not None else 0.0


def _at(design: Design, device: Device) -> str:
    return f"{device.name} at {units_label(device.position, _height(design, device))}"


def _clashes_by_device(
    ctx: RuleContext, rack: Rack, same_face: bool
) -> dict[str, tuple[Device, list[Device]]]:
    """Each device that meets earlier ones (same face, or across faces), with them: one
    finding per device, however many it overlaps."""
    pairs = ctx.memo("clashes", rack.id, lambda: clashes(ctx.design, rack))
    grouped: dict[str, tuple[Device, list[Device]]] = {}
    for a, b in pairs:
        if (a.face == b.face) is same_face:
            grouped.setdefault(b.id, (b, []))[1].append(a)
    return grouped


@rule(
    "RACK-OVERLAP",
    title="Devices share rack units",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device"},
    source="NetBox rack elevations: a unit holds one device per face",
)
def rack_overlap(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    for device, others in _clashes_by_device(ctx, rack, same_face=True).values():
        names = " and ".join(_at(ctx.design, o) for o in others)
        yield me.finding(
            f"{rack.name}: {_at(ctx.design, device)} overlaps {names} on the {device.face}.",
            device.id,
            *(o.id for o in others),
            rack.id,
        )


@rule(
    "RACK-DEPTH",
    title="A full-depth device clashes with the other face",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device"},
    source="NetBox is_full_depth: a full-depth device blocks its units on both faces",
)
def rack_depth(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    for device, others in _clashes_by_device(ctx, rack, same_face=False).values():
        names = " and ".join(f"{_at(ctx.design, o)} on the {o.face}" for o in others)
        yield me.finding(
            f"{rack.name}: {_at(ctx.design, device)} on the {device.face} meets {names}; "
            "a full-depth device fills both faces.",
            device.id,
            *(o.id for o in others),
            rack.id,
        )


@rule(
    "RACK-OUTSIDE",
    title="A device lies outside its rack",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device"},
    source="rack height from the rack's catalog type (NetBox u_height)",
)
def rack_outside(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    top = rack_height(ctx.design, rack)
    for device in out_of_rack(ctx.design, rack):
        yield me.finding(
            f"{rack.name}: {_at(ctx.design, device)} is outside the rack's U1–U{top}.",
            device.id,
            rack.id,
        )
    for device in rack.devices:
        if device.position is None and _height(ctx.design, device) > 0:
            yield me.finding(
                f"{rack.name}: {device.name} ({short_number(_height(ctx.design, device))}U) "
                "has no rack unit; give it a position.",
                device.id,
                rack.id,
            )


@rule(
    "RACK-POWER",
    title="Rack over its power budget",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device", "design"},
    source=f"{_BRIEF_5}; maximum draw as budgeted for breakers (DGX H100 10.2 kW)",
)
def rack_power(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    budget = _budgets(ctx, rack).power
    if budget.state is BudgetState.OVER:
        yield me.finding(
            f"{rack.name} needs {format_kw(budget.used)} at maximum draw, power budget "
            f"{format_limit(budget.limit, 'kW')}.",
            rack.id,
        )


@rule(
    "RACK-COOLING",
    title="Rack over the limit of its cooling",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device", "design"},
    source=COOLING_TYPES["air"].source,
)
def rack_cooling(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    budget = _budgets(ctx, rack).cooling
    if budget.limit is None:
        known = ", ".join(COOLING_TYPES)
        yield me.finding(
            f"{rack.name} has cooling {rack.cooling!r}, which the workbench does not know "
            f"(use {known}); its heat limit is unknown.",
            rack.id,
            severity=Severity.WARNING,
        )
    elif budget.state is BudgetState.OVER:
        label = COOLING_TYPES[rack.cooling].label.lower()
        yield me.finding(
            f"{rack.name} needs {format_kw(budget.used)}, {label} limit "
            f"{format_limit(budget.limit, 'kW')}.",
            rack.id,
        )


@rule(
    "RACK-WEIGHT",
    title="Rack over its weight rating",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device", "design"},
    source=f"{_BRIEF_5}; the rack type's max_weight_kg (static load rating)",
)
def rack_weight(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    budget = _budgets(ctx, rack).weight
    if budget.state is BudgetState.OVER:
        yield me.finding(
            f"{rack.name} holds {budget.used:,.0f} kg of devices, rated for "
            f"{format_limit(budget.limit, 'kg')}.",
            rack.id,
        )
