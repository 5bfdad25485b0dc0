"""COST-PUE-LIQUID: a liquid-cooled design planned at a PUE of 1.2 or more.

Domain brief §5 (from the planning guides): facility power = IT power × PUE, with a
target PUE below 1.2 for liquid-cooled halls.  A design whose racks are direct liquid
cooled but whose cost figures (the Costs form's PUE, or else the design's PUE) plan at
1.2 or more either misses that target or carries a PUE that is not the site's; either
way the energy line of the opex is worth a second look.  Only a PUE somebody typed is
judged: the PUE derived from the racks' cooling types (calc.summary.design_pue) is a
planning figure, not the site's, so it is never judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from workbench.calc.summary import stated_design_pue
from workbench.model import Design
from workbench.model.cost_inputs import cost_inputs_of
from workbench.rules.context import RuleContext
from workbench.rules.registry import Finding, Rule, Severity, rule
from workbench.rules.sources import planning

#: The PUE target of a liquid-cooled hall (domain brief §5).
LIQUID_PUE_TARGET = 1.2


def stated_pue(design: Design) -> tuple[float, str] | None:
    """The PUE the cost figures use when somebody typed one, and where it was typed."""
    override = cost_inputs_of(design).pue
    if override is not None:
        return override, "the Costs form's PUE"
    typed = stated_design_pue(design)
    return None if typed is None else (typed, "the design's PUE")


@rule(
    "COST-PUE-LIQUID",
    title="Liquid-cooled design planned at PUE 1.2 or more",
    severity=Severity.WARNING,
    scope="design",
    looks_at={"design", "rack"},
    source=planning("facility power = IT power × PUE; target PUE < 1.2 with liquid cooling"),
)
def cost_pue_liquid(ctx: RuleContext, me: Rule, design: Design) -> Iterator[Finding]:
    stated = stated_pue(design)
    if stated is None or stated[0] < LIQUID_PUE_TARGET:
        return
    liquid = sum(1 for rack in design.iter_racks() if rack.cooling == "liquid")
    if not liquid:
        return
    pue, where = stated
    yield me.finding(
        f"{liquid:,} rack(s) are direct liquid cooled but {where} is {pue:g}; liquid-cooled "
        f"halls target a PUE below {LIQUID_PUE_TARGET:g}: check the site's figure, since "
        "the energy cost scales with it",
        "design",
    )
