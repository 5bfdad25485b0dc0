"""The cost inputs of a design: tariff, PUE override, percentages, space, staff, years.

They are design-level settings, stored like the PUE and the floor settings: text in
``Design.properties`` under the ``cost.`` keys below (no schema change: properties are
saved and loaded as they are).  A key that is absent means "the default"; a stored
value that does not read (hand-edited file) also falls back to the default, so a bad
value never stops a design from opening, while the edit that sets values
(:class:`workbench.model.cost_ops.SetCostInputs`) refuses anything out of bounds.

Defaults are planning assumptions to be replaced with the site's figures; none is a
quote.  Their reasons:

* ``currency`` USD: the shipped catalog's unit prices are USD planning estimates
  (``catalogs/*``, ``sources.unit_price``).
* ``tariff_per_kwh`` 0.10: an industrial electricity tariff in the 0.05-0.15 USD/kWh
  range most sites pay; the seeds name power and cooling as a running cost, without a
  figure.
* ``pue`` None: the design's own PUE (:func:`workbench.calc.summary.design_pue`, the
  one home: ``properties["pue"]``, else the racks' cooling types' planning PUE).  A
  value here overrides it for the cost figures; domain brief §5 targets < 1.2 for
  liquid-cooled halls (rule COST-PUE-LIQUID).
* ``maintenance_pct`` 8 % of capex per year: vendor support and maintenance contracts
  are commonly quoted at 5-10 % of the hardware price per year ("operations" in the
  seeds' list of cost items).
* ``installation_pct`` 3 % of hardware: racking, cabling and commissioning labour.
* ``spares_pct`` None: the BOM's per-category spares
  (:data:`workbench.calc.bom_lines.DEFAULT_SPARES_PCT`); a number applies to every
  category.
* ``space_per_rack_year`` 6,000 per rack position per year: hall space without power
  (the seeds' "space" item), about 500 a month.
* ``staffing_per_year`` 0: optional; most budgets carry staff elsewhere.
* ``amortisation_years`` 4: GPU servers are commonly depreciated over 3-5 years.
* ``utilisation`` 0.8: the share of GPU-hours sold or used; cost per GPU-hour divides by
  the used hours only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from workbench.model.design import Design
from workbench.model.errors import EditError

#: ``Design.properties`` key prefix of the cost inputs.
PREFIX = "cost."


@dataclass(frozen=True)
class CostInputs:
    """Design-level cost inputs (see the module docstring for units and defaults)."""

    currency: str = "USD"
    #: Currency per kWh.
    tariff_per_kwh: float = 0.10
    #: None: the design's PUE.
    pue: float | None = None
    #: Percent of capex per year.
    maintenance_pct: float = 8.0
    #: Percent of the hardware (with spares).
    installation_pct: float = 3.0
    #: Percent of every category's quantities; None: the BOM's per-category spares.
    spares_pct: float | None = None
    #: Currency per rack position per year.
    space_per_rack_year: float = 6_000.0
    #: Currency per year.
    staffing_per_year: float = 0.0
    amortisation_years: float = 4.0
    #: Share of the GPU-hours used, above 0 and at most 1.
    utilisation: float = 0.8


#: Field → (lowest, highest, unit text, whether None is allowed); one table for the
#: form, the command line and the edit's checks.
BOUNDS: dict[str, tuple[float, float, str, bool]] = {
    "tariff_per_kwh": (0.0, 100.0, "per kWh", False),
    "pue": (1.0, 5.0, "", True),
    "maintenance_pct": (0.0, 100.0, "% of capex per year", False),
    "installation_pct": (0.0, 100.0, "% of hardware", False),
    "spares_pct": (0.0, 100.0, "% of quantities", True),
    "space_per_rack_year": (0.0, 1e9, "per rack position per year", False),
    "staffing_per_year": (0.0, 1e12, "per year", False),
    "amortisation_years": (0.5, 30.0, "years", False),
    "utilisation": (0.01, 1.0, "share of hours", False),
}
FIELDS: tuple[str, ...] = tuple(f.name for f in fields(CostInputs))


def check_cost_value(name: str, value: Any) -> Any:
    """``value`` for cost input ``name`` as CostInputs holds it, or EditError saying why."""
    if name == "currency":
        text = str(value).strip().upper() if value is not None else ""
        if not (3 <= len(text) <= 4 and text.isalpha()):
            raise EditError(f"A currency is a 3-letter code such as USD or CNY, not {value!r}.")
        return text
    if name not in BOUNDS:
        raise EditError(f"There is no cost input {name!r} (known: {', '.join(FIELDS)}).")
    low, high, unit, optional = BOUNDS[name]
    if value is None or value == "":
        if optional:
            return None
        raise EditError(f"The cost input {name} needs a number ({unit}).")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise EditError(f"The cost input {name} is a number, not {value!r}.") from None
    if isinstance(value, bool) or not math.isfinite(number) or not low <= number <= high:
        raise EditError(
            f"The cost input {name} is {low:g} to {high:g}{' ' + unit if unit else ''}, "
            f"not {value!r}."
        )
    return number


def as_text(value: Any) -> str | None:
    """How a checked value is stored in ``properties`` (None: the key is removed)."""
    if value is None:
        return None
    return value if isinstance(value, str) else repr(float(value))


def cost_inputs_of(design: Design) -> CostInputs:
    """The design's stored cost inputs; absent or unreadable values are the defaults."""
    defaults = CostInputs()
    values: dict[str, Any] = {}
    for name in FIELDS:
        text = design.properties.get(PREFIX + name)
        if text is None:
            continue
        try:
            values[name] = check_cost_value(name, text)
        except EditError:
            continue  # a hand-edited value that does not read: the default stands
    return CostInputs(**{name: values.get(name, getattr(defaults, name)) for name in FIELDS})


def stored_values(design: Design, names: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    """The stored text of each cost input in ``names`` (None where absent)."""
    return tuple((name, design.properties.get(PREFIX + name)) for name in names)
