"""What a design costs to build and to run, per GPU-hour and per training run.

API (used by the scenarios, the report, the CLI and the window):

* :class:`CostInputs` (frozen; :mod:`workbench.model.cost_inputs`): tariff, PUE
  override, maintenance / installation / spares percentages, space, staffing,
  amortisation years, utilisation, currency.  A design's stored inputs:
  ``cost_inputs_of(design)``; they change with the edit
  :class:`workbench.model.cost_ops.SetCostInputs`.
* ``design_costs(design, catalog=None, inputs=None) -> CostSummary``; ``inputs`` None
  reads the design's stored inputs.  Prices come from the design's catalog snapshot
  (``design.device_types``), exactly as the BOM's do, so a design's figures never depend
  on the catalog installed on the laptop; ``catalog`` is accepted for callers that hold
  one and is not read.
* :class:`CostSummary`: ``capex_by_category`` (compute, network, optics_cables,
  storage, racks_power, spares, installation), ``capex_total``, ``unpriced_lines``
  (count) and ``unpriced`` (their names), ``opex_by_item`` (energy, maintenance, space,
  staffing), ``opex_per_year``, ``cost_per_gpu_hour``, ``cost_per_gpu_hour_ex_energy``,
  ``runs`` (:class:`RunCost`: name, days, gpus, cost, energy_cost), ``to_dict()``.

Formulas (one home each):

* Capex: the BOM's lines (:func:`workbench.calc.bom_lines.bom_lines`), quantity × unit
  price per category; spares ``ROUNDUP(quantity × % / 100) × price``; installation =
  installation % × (hardware + spares).  A line without a price, or priced in another
  currency than the inputs', adds nothing and is *counted* in ``unpriced_lines`` and
  named in ``unpriced``: the capex is then a lower bound, never a silent zero.
* Energy per year = typical IT kW (:func:`workbench.calc.summary.summarize`) × PUE ×
  8,760 h × tariff (:func:`workbench.calc.power.annual_mwh`,
  :func:`workbench.calc.power.energy_cost`); PUE is the input's override or the design's
  (:func:`workbench.calc.summary.design_pue`).
* Opex per year = energy + maintenance % × capex + space per rack position × racks +
  staffing.
* Cost per GPU-hour = (capex / amortisation years + opex per year) / (GPUs × 8,760 ×
  utilisation): everything, energy included.
* Cost per training run: the energy is *not* taken from the GPU-hour figure, so it is
  never counted twice: ``cost = days × 24 × GPUs × cost_per_gpu_hour_ex_energy +
  energy_cost``, where the ex-energy rate leaves the energy out of the opex and
  ``energy_cost = typical IT kW × gpus / all GPUs × PUE × days × 24 h × tariff`` (the
  job's share of the design's draw while it runs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from workbench.calc.bom_lines import CATEGORIES, DEFAULT_SPARES_PCT, bom_lines, spare_quantity
from workbench.calc.design_hardware import FabricFigures, fabric_figures
from workbench.calc.power import HOURS_PER_YEAR, annual_mwh, energy_cost
from workbench.calc.summary import DesignSummary, summarize
from workbench.calc.workload import WorkloadResult, evaluate_workload
from workbench.model import Design, Workload
from workbench.model.cost_inputs import CostInputs, cost_inputs_of

__all__ = ["CostInputs", "CostSummary", "RunCost", "cost_inputs_of", "design_costs"]

#: Capex categories in the order a table shows them (the BOM's, then spares and
#: installation).
CAPEX_CATEGORIES: tuple[str, ...] = (*CATEGORIES, "spares", "installation")
OPEX_ITEMS: tuple[str, ...] = ("energy", "maintenance", "space", "staffing")
#: What a person reads for each capex category and opex item (tables, plots, the PDF).
COST_LABELS: dict[str, str] = {
    **CATEGORIES,
    "spares": "Spares",
    "installation": "Installation",
    "energy": "Energy",
    "maintenance": "Maintenance and support",
    "space": "Space",
    "staffing": "Staffing",
}


@dataclass(frozen=True)
class RunCost:
    """One training job's run: wall-clock days, GPUs, all-in cost and its energy part."""

    name: str
    days: float | None
    gpus: int | None
    #: None when the days are unknown (the job's errors say why).
    cost: float | None
    energy_cost: float | None


@dataclass(frozen=True)
class CostSummary:
    """Capex, opex and the unit costs of a design, in ``currency``."""

    currency: str
    inputs: CostInputs
    capex_by_category: dict[str, float]
    capex_total: float
    unpriced_lines: int
    #: Names of the unpriced lines ("item (quantity)").
    unpriced: tuple[str, ...]
    opex_by_item: dict[str, float]
    opex_per_year: float
    gpus: int
    racks: int
    pue: float
    typical_kw: float
    cost_per_gpu_hour: float | None
    cost_per_gpu_hour_ex_energy: float | None
    runs: list[RunCost] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when every BOM line has a price, so the capex is a whole sum."""
        return self.unpriced_lines == 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (``report --json`` under ``cost``)."""
        out = {k: v for k, v in asdict(self).items() if k not in ("inputs", "runs")}
        out["inputs"] = asdict(self.inputs)
        out["unpriced"] = list(self.unpriced)
        out["complete"] = self.complete
        out["runs"] = [asdict(r) for r in self.runs]
        return out


def _capex(design: Design, inputs: CostInputs) -> tuple[dict[str, float], list[str]]:
    by_cat = dict.fromkeys(CAPEX_CATEGORIES, 0.0)
    unpriced: list[str] = []
    for key, lines in bom_lines(design).items():
        pct = DEFAULT_SPARES_PCT[key] if inputs.spares_pct is None else inputs.spares_pct
        for line in lines:
            if line.unit_price is None or line.currency != inputs.currency:
                unpriced.append(f"{line.item} ({line.quantity:,})")
                continue
            by_cat[key] += line.quantity * line.unit_price
            if line.spares:
                by_cat["spares"] += spare_quantity(line.quantity, pct) * line.unit_price
    hardware = sum(by_cat.values())
    by_cat["installation"] = hardware * inputs.installation_pct / 100.0
    return by_cat, unpriced


def design_costs(
    design: Design,
    catalog: object | None = None,
    inputs: CostInputs | None = None,
    summary: DesignSummary | None = None,
    fabric: FabricFigures | None = None,
    evaluate: Callable[[Workload], WorkloadResult] | None = None,
) -> CostSummary:
    """The cost figures of ``design`` (see the module docstring for every formula).

    ``summary``, ``fabric`` and ``evaluate`` (a workload → its result) are figures a
    caller already holds (the report, the window's live figures), passed on so they
    are not computed twice."""
    inputs = cost_inputs_of(design) if inputs is None else inputs
    summary = summarize(design, pue=inputs.pue) if summary is None else summary
    pue = summary.pue if inputs.pue is None else inputs.pue
    capex, unpriced = _capex(design, inputs)
    capex_total = sum(capex.values())
    energy = energy_cost(annual_mwh(summary.typical_kw * pue), inputs.tariff_per_kwh)
    opex = {
        "energy": energy,
        "maintenance": capex_total * inputs.maintenance_pct / 100.0,
        "space": summary.racks * inputs.space_per_rack_year,
        "staffing": inputs.staffing_per_year,
    }
    opex_total = sum(opex.values())
    used_hours = summary.gpus * HOURS_PER_YEAR * inputs.utilisation
    per_year = capex_total / inputs.amortisation_years
    cph = (per_year + opex_total) / used_hours if used_hours else None
    cph_ex = (per_year + opex_total - energy) / used_hours if used_hours else None
    runs = _runs(design, summary, inputs, pue, cph_ex, fabric, evaluate)
    return CostSummary(
        currency=inputs.currency,
        inputs=inputs,
        capex_by_category=capex,
        capex_total=capex_total,
        unpriced_lines=len(unpriced),
        unpriced=tuple(unpriced),
        opex_by_item=opex,
        opex_per_year=opex_total,
        gpus=summary.gpus,
        racks=summary.racks,
        pue=pue,
        typical_kw=summary.typical_kw,
        cost_per_gpu_hour=cph,
        cost_per_gpu_hour_ex_energy=cph_ex,
        runs=runs,
    )


def _runs(
    design: Design,
    summary: DesignSummary,
    inputs: CostInputs,
    pue: float,
    cph_ex: float | None,
    fabric: FabricFigures | None,
    evaluate: Callable[[Workload], WorkloadResult] | None,
) -> list[RunCost]:
    runs: list[RunCost] = []
    training = [w for w in design.workloads if w.kind == "training"]
    if not training:
        return runs
    if evaluate is None:
        found = fabric_figures(design) if fabric is None else fabric

        def evaluate(w: Workload) -> WorkloadResult:
            return evaluate_workload(design, w, summary=summary, fabric=found)

    for w in training:
        result = evaluate(w)
        days, gpus = result.days, result.gpus
        if days is None or not gpus or cph_ex is None or not summary.gpus:
            runs.append(RunCost(w.name, days, gpus, None, None))
            continue
        hours = days * 24.0
        kw = summary.typical_kw * gpus / summary.gpus * pue
        energy = kw * hours * inputs.tariff_per_kwh
        runs.append(RunCost(w.name, days, gpus, hours * gpus * cph_ex + energy, energy))
    return runs
