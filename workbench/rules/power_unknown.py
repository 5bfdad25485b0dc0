"""RACK-POWER-UNKNOWN: a rack holding a device whose power nobody knows; RACK-PDU: a
rack holding equipment with no PDU to power it.

A device type imported without a power figure (most of the NetBox library's files have
none) used to count as 0 W, so a rack with a 10 kW server could pass its power,
cooling and feed budgets.  Its power is now unknown (see :mod:`workbench.calc.summary`),
and every rack holding such a device is flagged, naming the types, until a figure is
entered (in the inspector or the catalog overlay) with its source.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from workbench.catalog.item import power_unknown
from workbench.model import Rack
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.rules.sources import planning


@rule(
    "RACK-POWER-UNKNOWN",
    title="Rack holds devices of unknown power",
    severity=Severity.WARNING,
    scope="rack",
    looks_at={"rack", "device"},
    source=planning("a budget per rack for power, heat, weight and U")
    + "; NetBox device types often carry no power figure (maximum_draw is a supply rating)",
)
def rack_power_unknown(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    load = ctx.load(rack)
    if load.unknown_power_devices <= 0:
        return
    types: Counter[str] = Counter()
    for device in rack.devices:
        item = ctx.design.device_types.get(device.device_type)
        if power_unknown(item):  # a type missing from the design included
            types[device.device_type] += 1
    named = ", ".join(f"{count} x {slug}" for slug, count in sorted(types.items()))
    yield me.finding(
        f"{rack.name}: power of {load.unknown_power_devices} device(s) is unknown ({named}); "
        f"the {load.kw_max:,.1f} kW shown leaves them out, so the power, cooling and feed "
        "budgets cannot be checked: enter each type's max_power_w with its source",
        rack.id,
    )


@rule(
    "RACK-PDU",
    title="Rack holds equipment but no PDU",
    severity=Severity.WARNING,
    scope="rack",
    looks_at={"rack", "device"},
    source=planning("two PDUs per rack, one on each feed (A/B), sized to the rack's budget"),
)
def rack_pdu(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    types = ctx.design.device_types
    equipment = 0
    for device in rack.devices:
        item = types.get(device.device_type)
        if item is None:
            continue  # CATALOG-MISSING says so; what it is, nobody knows yet
        if item.kind == "pdu":
            return
        elif item.kind not in ("infrastructure", "rack"):
            equipment += 1
    if equipment:
        yield me.finding(
            f"{rack.name}: {equipment} device(s) and no PDU to power them; add an A- and a "
            f"B-side PDU sized to its {rack.power_limit_kw:g} kW budget (the BOM counts "
            "none for this rack)",
            rack.id,
        )
