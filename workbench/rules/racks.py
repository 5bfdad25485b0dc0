"""Rack rules: room (overlap, depth, outside the rack) and budgets (power, cooling,
weight, feeds).

The verdicts come from :mod:`workbench.rules.budgets` (what every view reads too) and
the geometry from :mod:`workbench.model.placement`; these functions only turn them into
findings.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model import Design, Device, Feed, Rack
from workbench.model.placement import clashes, out_of_rack, rack_height, units_label
from workbench.rules.budgets import BudgetState, RackBudgets, feed_limit_kw, rack_budgets
from workbench.rules.context import RuleContext
from workbench.rules.cooling import cooling_remedy, device_cooling_problem
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.rules.sources import planning
from workbench.units import format_kw, format_limit, short_number


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
            f"{format_limit(budget.limit, 'kW')}: {cooling_remedy(rack, budget.used)}.",
            rack.id,
        )


@rule(
    "DEVICE-COOLING",
    title="A liquid-cooled device in a rack without liquid cooling",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device", "design"},
    source=f"{COOLING_TYPES['liquid'].source}; the catalog item's props.cooling",
)
def device_cooling(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    for device in rack.devices:
        problem = device_cooling_problem(ctx.design.device_types.get(device.device_type), rack)
        if problem is not None:
            yield me.finding(f"{device.name}: {problem}", device.id, rack.id)


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


def feed_text(feed: Feed) -> str:
    """ "415 V three-phase 32 A"."""
    phases = "three-phase" if feed.phases == 3 else "single-phase"
    return f"{short_number(feed.voltage)} V {phases} {short_number(feed.breaker_a)} A"


@rule(
    "RACK-FEED",
    title="A feed cannot carry the rack alone",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device", "design"},
    source=planning(
        "A/B power feeds, each able to carry the whole rack on failover, with "
        "continuous load well below the breaker rating"
    )
    + "; continuous load at 80 % of the breaker (NEC 210.20(A))",
)
def rack_feed(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    budgets = _budgets(ctx, rack)
    if budgets.failover.state is not BudgetState.OVER:
        return
    sides = [(side, rack.feed(side)) for side in ("a", "b")]
    weak_side, weak = min(
        ((s, f) for s, f in sides if f is not None), key=lambda sf: feed_limit_kw(sf[1]) or 0
    )
    other = "B" if weak_side == "a" else "A"
    yield me.finding(
        f"{rack.name} draws {format_kw(budgets.power.used)}: if feed {other} fails, feed "
        f"{weak_side.upper()} ({feed_text(weak)}, {format_kw(budgets.failover.limit)} at 80 %) "
        "must carry it all.",
        rack.id,
    )
