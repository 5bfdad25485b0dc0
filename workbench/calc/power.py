"""Power and cooling: facility power, heat, airflow, liquid flow, energy, cost and CO₂.

Sources and constants:

* Facility power = IT power × PUE (The Green Grid, "PUE: a comprehensive examination of
  the metric", WP#49).  Domain brief §5: target PUE < 1.2 with liquid cooling.
* 1 W = 3.412 BTU/h; 1 ton of refrigeration = 12,000 BTU/h (domain brief §5; ASHRAE).
* Airflow ``CFM = 3.16 · W / ΔT(°F)`` (domain brief §5; the sensible-heat equation
  q[BTU/h] = 1.08 · CFM · ΔT[°F] at sea-level air, 3.412 / 1.08 = 3.16).
  1 CFM = 1.699 m³/h (0.0283168 m³ × 60).  A temperature *difference* of 1 °C is 1.8 °F.
* Liquid flow: q = ṁ · cp · ΔT with water cp = 4.186 kJ/(kg·K), so
  ``L/min = kW · 60 / (4.186 · ΔT[K] · ρ[kg/L])``; ρ = 1 kg/L by default (0.997 at 25 °C).
* Energy: kW × 8,760 h × load factor; cost at a tariff per kWh; CO₂ at a grid emission
  factor in kg/kWh.
"""

from __future__ import annotations

from workbench.calc.errors import InputError, choice, fraction, non_negative, positive
from workbench.catalog.vocabulary import COOLING_TYPES

#: Default PUE when the design does not state one.  1.3 sits between a liquid-cooled
#: hall's < 1.2 target (domain brief §5) and the ~1.5-1.6 industry average for
#: air-cooled rooms (Uptime Institute global survey), i.e. a planning value for a
#: modern, mostly air-cooled GPU room; the user should replace it with the site's.  It is
#: the air-cooled figure of the one table of cooling types, so the two never differ.
DEFAULT_PUE = COOLING_TYPES["air"].pue
BTU_H_PER_W = 3.412
BTU_H_PER_TON = 12_000.0
CFM_PER_W_PER_F = 3.16
M3H_PER_CFM = 1.699
WATER_CP_KJ_PER_KG_K = 4.186
WATER_DENSITY_KG_PER_L = 1.0
#: Planning temperature rises for the heat figures of a rack until the site states its
#: own: 20 °F (about 11 °C) front-to-back through air-cooled servers, and 10 K across a
#: direct-liquid rack's coolant loop (a common design rise of CDU secondary loops).
#: Both are assumptions a planner replaces with the equipment's figures.
AIR_DELTA_T_F = 20.0
COOLANT_DELTA_T_K = 10.0
HOURS_PER_YEAR = 8_760.0
TEMPERATURE_UNITS = ("C", "F", "K")


def facility_kw(it_kw: float, pue: float = DEFAULT_PUE) -> float:
    """Facility power ``IT kW × PUE``; PUE must be in [1, 5]."""
    p = positive("pue", pue, 5.0)
    if p < 1.0:
        raise InputError("pue", f"PUE cannot be below 1, got {pue!r}")
    return non_negative("it_kw", it_kw) * p


def btu_per_hour(watts: float) -> float:
    """Heat in BTU/h: ``W × 3.412`` (DGX H100 10.2 kW → 34,802 BTU/h)."""
    return non_negative("watts", watts) * BTU_H_PER_W


def cooling_tons(watts: float) -> float:
    """Tons of cooling: ``BTU/h / 12,000`` (10.2 kW → 2.90 tons)."""
    return btu_per_hour(watts) / BTU_H_PER_TON


def delta_t_fahrenheit(delta_t: float, unit: str) -> float:
    """A temperature *difference* in °F: ΔT°F = 1.8 · ΔT°C = 1.8 · ΔT K."""
    d = positive("delta_t", delta_t, 200.0)
    return d if choice("delta_t_unit", unit, TEMPERATURE_UNITS) == "F" else d * 1.8


def delta_t_kelvin(delta_t: float, unit: str) -> float:
    """A temperature difference in K (= °C difference); °F differences divide by 1.8."""
    d = positive("delta_t", delta_t, 200.0)
    return d / 1.8 if choice("delta_t_unit", unit, TEMPERATURE_UNITS) == "F" else d


def airflow_cfm(watts: float, delta_t: float, unit: str) -> float:
    """Air needed to carry ``watts`` away at a supply-to-exhaust rise ``delta_t`` (unit
    "C", "K" or "F"): ``CFM = 3.16 · W / ΔT(°F)``."""
    return CFM_PER_W_PER_F * non_negative("watts", watts) / delta_t_fahrenheit(delta_t, unit)


def airflow_m3h(watts: float, delta_t: float, unit: str) -> float:
    """The same airflow in m³/h (1 CFM = 1.699 m³/h)."""
    return airflow_cfm(watts, delta_t, unit) * M3H_PER_CFM


def liquid_flow_l_per_min(
    kw: float, delta_t: float, unit: str = "C", density_kg_per_l: float = WATER_DENSITY_KG_PER_L
) -> float:
    """Coolant flow for ``kw`` at a rise ``delta_t``: ``L/min = kW·60 / (4.186·ΔT·ρ)``."""
    rho = positive("density_kg_per_l", density_kg_per_l, 3.0)
    return (
        non_negative("kw", kw) * 60.0 / (WATER_CP_KJ_PER_KG_K * delta_t_kelvin(delta_t, unit) * rho)
    )


def annual_mwh(kw: float, load_factor: float = 1.0) -> float:
    """Energy per year in MWh: ``kW × 8,760 h × load factor / 1,000``."""
    return non_negative("kw", kw) * HOURS_PER_YEAR * fraction("load_factor", load_factor) / 1000.0


def energy_cost(mwh: float, tariff_per_kwh: float) -> float:
    """Energy cost in the tariff's currency: ``MWh × 1,000 × tariff per kWh``."""
    return non_negative("mwh", mwh) * 1000.0 * non_negative("tariff_per_kwh", tariff_per_kwh, 100.0)


def co2_tonnes(mwh: float, grid_kg_per_kwh: float) -> float:
    """CO₂ in tonnes: ``MWh × 1,000 kWh × kg/kWh / 1,000 = MWh × kg/kWh``."""
    return non_negative("mwh", mwh) * non_negative("grid_kg_per_kwh", grid_kg_per_kwh, 5.0)


def rack_heat_text(kw: float, cooling: str) -> str:
    """How a rack's heat reads: BTU/h always, plus what carries it away: coolant in
    L/min for direct liquid cooling, air in CFM otherwise (at the planning rises above)."""
    text = f"{btu_per_hour(kw * 1000.0):,.0f} BTU/h"
    if cooling == "liquid":
        flow = liquid_flow_l_per_min(kw, COOLANT_DELTA_T_K, "K")
        return f"{text} · {flow:,.1f} L/min of coolant at ΔT {COOLANT_DELTA_T_K:g} K"
    cfm = airflow_cfm(kw * 1000.0, AIR_DELTA_T_F, "F")
    return f"{text} · {cfm:,.0f} CFM of air at ΔT {AIR_DELTA_T_F:g} °F"
