"""Cost figures of the sample's H100 design and its B200 variant, against figures worked
out here by hand from the catalog's prices, the devices counted in the racks and the
stated inputs (not by calling the cost module's own helpers)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from workbench.calc.costs import CostInputs, design_costs
from workbench.calc.workload import evaluate_workload
from workbench.catalog.loader import load_catalog
from workbench.model.cost_inputs import cost_inputs_of
from workbench.model.cost_ops import SetCostInputs
from workbench.model.errors import EditError
from workbench.model.ops import apply
from workbench.templates import build_template, sample_design

#: Inputs stated for the hand figures (none of them the defaults).
INPUTS = CostInputs(
    tariff_per_kwh=0.12,
    pue=1.25,
    maintenance_pct=10.0,
    installation_pct=5.0,
    space_per_rack_year=10_000.0,
    staffing_per_year=500_000.0,
    amortisation_years=5.0,
    utilisation=0.9,
)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture(scope="module")
def h100(catalog):
    return sample_design(catalog)


@pytest.fixture(scope="module")
def b200(catalog):
    """The B200 variant of the sample: the DGX B200 template at the sample's 1,024 GPUs."""
    return build_template("dgx-b200-liquid", gpus=1024, catalog=catalog)


def _hand(design, catalog, server_slug: str, server_price: float) -> dict[str, float]:
    devices = Counter(d.device_type for _r, d in design.iter_devices())
    racks = sum(1 for _ in design.iter_racks())
    # Compute: every server-kind device at the catalog's unit price (GPU nodes and the
    # head nodes).
    servers = {s: n for s, n in devices.items() if catalog[s].kind == "server"}
    compute = sum(n * catalog[s].unit_price for s, n in servers.items())
    assert servers[server_slug] * 8 == 1024
    assert catalog[server_slug].unit_price == server_price
    compute_spares = sum(math.ceil(n * 2 / 100) * catalog[s].unit_price for s, n in servers.items())
    typical_w = 0.0
    for slug, n in devices.items():
        item = catalog[slug]
        w = item.typical_power_w if item.typical_power_w is not None else item.max_power_w
        typical_w += n * (w or 0.0)
    energy = typical_w / 1000 * 1.25 * 8760 * 0.12
    return {
        "compute": compute,
        "compute_spares": compute_spares,
        "energy": energy,
        "racks": racks,
        "typical_kw": typical_w / 1000,
    }


@pytest.mark.parametrize(
    ("which", "server", "price"),
    [("h100", "nvidia-dgx-h100", 375_000.0), ("b200", "nvidia-dgx-b200", 515_000.0)],
)
def test_costs_by_hand(request, catalog, which, server, price):
    design = request.getfixturevalue(which)
    hand = _hand(design, catalog, server, price)
    costs = design_costs(design, catalog, INPUTS)
    cap = costs.capex_by_category
    assert cap["compute"] == pytest.approx(hand["compute"])
    assert cap["spares"] >= hand["compute_spares"]
    hardware = sum(v for k, v in cap.items() if k != "installation")
    assert cap["installation"] == pytest.approx(hardware * 0.05)
    assert costs.capex_total == pytest.approx(hardware * 1.05)
    # Opex per year.
    opex = costs.opex_by_item
    assert costs.typical_kw == pytest.approx(hand["typical_kw"])
    assert opex["energy"] == pytest.approx(hand["energy"])
    assert opex["maintenance"] == pytest.approx(costs.capex_total * 0.10)
    assert opex["space"] == pytest.approx(hand["racks"] * 10_000.0)
    assert opex["staffing"] == 500_000.0
    opex_total = hand["energy"] + costs.capex_total * 0.10 + hand["racks"] * 10_000 + 500_000
    assert costs.opex_per_year == pytest.approx(opex_total)
    # Cost per GPU-hour, all in.
    used_hours = 1024 * 8760 * 0.9
    cph = (costs.capex_total / 5 + opex_total) / used_hours
    assert costs.cost_per_gpu_hour == pytest.approx(cph)
    # The training run: GPU-hours at the rate without energy, plus the run's energy.
    (job,) = [w for w in design.workloads if w.kind == "training"]
    result = evaluate_workload(design, job)
    (run,) = costs.runs
    assert run.name == job.name and run.gpus == result.gpus == 1024
    assert run.days == pytest.approx(result.days)
    hours = result.days * 24
    run_energy = hand["typical_kw"] * 1.25 * hours * 0.12
    rate_ex = (costs.capex_total / 5 + opex_total - hand["energy"]) / used_hours
    assert run.energy_cost == pytest.approx(run_energy)
    assert run.cost == pytest.approx(hours * 1024 * rate_ex + run_energy)


def test_b200_costs_more_to_build_and_trains_faster(h100, b200, catalog):
    a, b = design_costs(h100, catalog, INPUTS), design_costs(b200, catalog, INPUTS)
    assert b.capex_by_category["compute"] > a.capex_by_category["compute"]
    assert b.runs[0].days < a.runs[0].days


def test_unpriced_lines_are_counted_and_named(h100, catalog):
    costs = design_costs(h100, catalog, INPUTS)
    # Fibre patch cords are not catalog items: each stocked length is an unpriced line.
    assert costs.unpriced_lines == len(costs.unpriced) > 0
    assert all("patch cord" in name for name in costs.unpriced)
    assert not costs.complete
    # A line priced in another currency is not summed into USD either.
    other = design_costs(h100, catalog, CostInputs(currency="EUR"))
    assert other.capex_total == 0.0
    assert other.unpriced_lines > costs.unpriced_lines


def test_stored_inputs_edit_and_undo(catalog):
    design = sample_design(catalog)
    assert cost_inputs_of(design) == CostInputs()
    before = dict(design.properties)
    applied = apply(design, SetCostInputs((("tariff_per_kwh", 0.2), ("pue", "1.15"))))
    inputs = cost_inputs_of(design)
    assert inputs.tariff_per_kwh == 0.2 and inputs.pue == 1.15
    assert design_costs(design).inputs == inputs
    apply(design, applied.inverse)
    assert design.properties == before
    for bad in (("tariff_per_kwh", -1), ("pue", 0.9), ("utilisation", 0), ("currency", "1$")):
        with pytest.raises(EditError):
            apply(design, SetCostInputs((bad,)))
    assert design.properties == before


def test_a_bad_stored_value_reads_as_the_default(catalog):
    design = sample_design(catalog)
    design.properties["cost.tariff_per_kwh"] = "cheap"
    assert cost_inputs_of(design).tariff_per_kwh == CostInputs().tariff_per_kwh
