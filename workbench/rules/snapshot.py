"""The catalog snapshot rule: every rack and device type must be in the design itself.

A design carries a snapshot of every catalog item it uses, so it opens the same on a
laptop without that catalog (architecture, "Catalogs").  A type missing from the
snapshot has no figures: its power, weight and units count as nothing, so every budget
of its rack is understated.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.model import Rack
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding, Rule, Severity, rule


@rule(
    "CATALOG-MISSING",
    title="A type missing from the design's catalog snapshot",
    severity=Severity.ERROR,
    scope="rack",
    looks_at={"rack", "device", "design"},
    source="architecture.md, Catalogs: a design stores a snapshot of every item it uses",
)
def catalog_missing(ctx: RuleContext, me: Rule, rack: Rack) -> Iterator[Finding]:
    types = ctx.design.device_types
    if rack.rack_type not in types:
        yield me.finding(
            f"Rack {rack.name} is of type {rack.rack_type!r}, which this design's catalog "
            "snapshot lacks: its height, weight rating and cooling are unknown.",
            rack.id,
        )
    for device in rack.devices:
        if device.device_type not in types:
            yield me.finding(
                f"{device.name} in {rack.name} is of type {device.device_type!r}, which this "
                "design's catalog snapshot lacks: its power, weight and units count as zero.",
                device.id,
                rack.id,
            )
