"""Power and cooling conversions (domain brief §5)."""

from __future__ import annotations

import pytest

from workbench.calc import power
from workbench.calc.errors import InputError


def test_dgx_h100_heat_and_tons():
    # Domain brief §5: DGX H100 ≈ 10.2 kW max; 1 W = 3.412 BTU/h; 12,000 BTU/h per ton.
    assert power.btu_per_hour(10_200) == pytest.approx(34_802.4)
    assert power.cooling_tons(10_200) == pytest.approx(2.9, abs=0.001)


def test_facility_power_and_default_pue():
    assert power.facility_kw(1000, 1.2) == pytest.approx(1200)
    assert power.facility_kw(1000) == pytest.approx(1000 * power.DEFAULT_PUE)
    assert 1.0 < power.DEFAULT_PUE < 1.6
    with pytest.raises(InputError) as exc:
        power.facility_kw(1000, 0.9)
    assert exc.value.field == "pue"


def test_airflow_in_fahrenheit_and_celsius():
    # CFM = 3.16 · W / ΔT(°F): 10.2 kW at ΔT 20 °F → 1,611.6 CFM; 20 °F = 11.11 °C.
    assert power.airflow_cfm(10_200, 20, "F") == pytest.approx(1611.6)
    assert power.airflow_cfm(10_200, 20 / 1.8, "C") == pytest.approx(1611.6)
    assert power.airflow_m3h(10_200, 20, "F") == pytest.approx(1611.6 * 1.699)
    with pytest.raises(InputError) as exc:
        power.airflow_cfm(10_200, 20, "Rankine")
    assert exc.value.field == "delta_t_unit"


def test_liquid_flow():
    # q = ṁ·cp·ΔT: 100 kW at 10 K, cp 4.186 kJ/(kg·K), 1 kg/L → 100·60/41.86 = 143.3 L/min
    assert power.liquid_flow_l_per_min(100, 10) == pytest.approx(143.33, abs=0.01)
    assert power.liquid_flow_l_per_min(100, 18, "F") == pytest.approx(143.33, abs=0.01)
    assert power.liquid_flow_l_per_min(100, 10, density_kg_per_l=0.997) > 143.33


def test_energy_cost_and_co2():
    # 1 MW for a year at load factor 0.8 → 7,008 MWh; at 0.10 per kWh → 700,800;
    # at 0.5 kg CO₂/kWh → 3,504 t.
    mwh = power.annual_mwh(1000, 0.8)
    assert mwh == pytest.approx(7008)
    assert power.energy_cost(mwh, 0.10) == pytest.approx(700_800)
    assert power.co2_tonnes(mwh, 0.5) == pytest.approx(3504)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: power.btu_per_hour(-1), "watts"),
        (lambda: power.airflow_cfm(1000, 0, "C"), "delta_t"),
        (lambda: power.annual_mwh(100, 1.5), "load_factor"),
        (lambda: power.energy_cost(100, -0.1), "tariff_per_kwh"),
        (lambda: power.co2_tonnes(float("nan"), 0.5), "mwh"),
    ],
)
def test_bad_input_names_the_field(call, field):
    with pytest.raises(InputError) as exc:
        call()
    assert exc.value.field == field
