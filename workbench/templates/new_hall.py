"""A new design from the New hall dialog (File ▸ New): one site, one hall of rows of
identical racks with their cooling, power budget and A/B feeds set, ready for drops;
or a template's design under the names the planner gave.

It sits with the templates (above ``planning``) because it builds whole designs and may
start from a template.  The racks come from :func:`workbench.model.hall_edits.add_row` (the rows and racks the
Hall menu adds, named A01, A02 ... B01), so a hall built here and one built by hand
agree; this module only sets what the dialog asked for on top.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model import Design, ops
from workbench.model.design import Feed
from workbench.model.errors import EditError
from workbench.model.hall_edits import add_row
from workbench.model.names import clean_name
from workbench.model.rack_fields import default_cooling_limit_kw
from workbench.model.requests import ItemSource
from workbench.planning.rack_pdus import fit_pdus
from workbench.templates.builder import build_template

#: Bounds a hall asked for in the dialog must keep (a 100,000-GPU design has about
#: 1,600 racks; a typing slip of 10,000 rows should be refused, not built).
MAX_ROWS = 200
MAX_RACKS_PER_ROW = 200


@dataclass(frozen=True)
class HallSpec:
    """What the New hall dialog asks for."""

    site: str = "Site 1"
    hall: str = "Hall 1"
    rows: int = 1
    racks_per_row: int = 2
    rack_type: str = "generic-rack-42u-air"
    cooling: str = "air"
    #: Heat the cooling removes, kW; None takes the cooling type's planning limit.
    cooling_limit_kw: float | None = None
    breaker_a: float = 32.0
    voltage: float = 415.0
    phases: int = 3
    #: A template to start from instead of empty rows (its racks are kept as built).
    template: str | None = None


def _problem(spec: HallSpec) -> str | None:
    if not 1 <= spec.rows <= MAX_ROWS:
        return f"A hall holds 1 to {MAX_ROWS} rows, not {spec.rows}."
    if not 1 <= spec.racks_per_row <= MAX_RACKS_PER_ROW:
        return f"A row holds 1 to {MAX_RACKS_PER_ROW} racks, not {spec.racks_per_row}."
    if spec.cooling not in COOLING_TYPES:
        return f"Unknown cooling {spec.cooling!r}; use {', '.join(COOLING_TYPES)}."
    if spec.cooling_limit_kw is not None and not spec.cooling_limit_kw > 0:
        return "The cooling limit must be more than 0 kW."
    if not spec.breaker_a > 0 or not spec.voltage > 0 or spec.phases not in (1, 3):
        return "A feed needs a breaker above 0 A, a voltage above 0 V and 1 or 3 phases."
    return None


def new_hall(spec: HallSpec, catalog: ItemSource | None) -> Design:
    """The design the dialog describes; EditError (one line) when it cannot be built."""
    site_name = clean_name(spec.site, "design")
    hall_name = clean_name(spec.hall, "site")
    if spec.template:
        design = build_template(spec.template)
        design.name = site_name
        if design.sites:
            design.sites[0].name = hall_name
        return design
    problem = _problem(spec)
    if problem is not None:
        raise EditError(problem)
    design = Design(name=site_name)
    for _ in range(spec.rows):
        ops.apply(
            design,
            add_row(design, catalog=catalog, rack_type=spec.rack_type, count=spec.racks_per_row),
        )
    design.sites[0].name = hall_name
    default = default_cooling_limit_kw(design, spec.rack_type, spec.cooling)
    limit = spec.cooling_limit_kw or default or COOLING_TYPES[spec.cooling].limit_kw
    feed = Feed(float(spec.voltage), int(spec.phases), float(spec.breaker_a))
    for rack in design.iter_racks():
        rack.cooling = spec.cooling
        design.index.rack_changed(rack.id)  # figures kept per rack read its cooling
        rack.cooling_limit_kw = spec.cooling_limit_kw
        rack.power_limit_kw = limit
        rack.set_feed("a", feed)
        rack.set_feed("b", feed)
    # Each rack's A/B PDUs, sized to the budget just set (the one home: rack_pdus).
    ops.apply(design, fit_pdus(design, catalog, list(design.iter_racks())))
    return design


__all__ = ["MAX_RACKS_PER_ROW", "MAX_ROWS", "HallSpec", "new_hall"]
