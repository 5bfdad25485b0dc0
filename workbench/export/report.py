"""The design report: the figures ``workbench report`` prints, as one JSON-ready mapping.

It lives in ``export`` because it is something the design hands to other people and
tools (a CI job checking a budget, a spreadsheet, a ticket); the figures themselves come
from :mod:`workbench.calc`, so the window, the report and later the workbooks agree.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from workbench.calc.costs import cost_inputs_of, design_costs
from workbench.calc.design_hardware import fabric_figures
from workbench.calc.errors import InputError, positive
from workbench.calc.fabric.analysis import fabric_report
from workbench.calc.storage_tiers import storage_report
from workbench.calc.summary import rack_loads, summarize
from workbench.calc.workload import evaluate_workload
from workbench.model import Design
from workbench.progress import Progress, parts_told
from workbench.rules.budgets import BudgetState, rack_budgets


def design_report(
    design: Design,
    pue: float | None = None,
    schema_version: int | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Key figures of ``design``: counts, power, heat, peak PFLOPS, every workload, each
    rack's budgets, each network plane's fabric (``fabric``: plane → figures), each
    storage tier (``storage``: tier id → figures) and the costs (``cost``:
    :meth:`workbench.calc.costs.CostSummary.to_dict`).

    ``pue`` overrides the design's own PUE; it must be at least 1 (a PUE below 1 would
    mean the facility makes energy).

    ``progress(fraction, part)`` is told before each part, where it starts in the whole
    at 1,000,000 GPUs (:data:`_PARTS`), where the report takes ~30 s.
    """
    tell = parts_told(progress, _PARTS)
    if pue is not None:
        pue = positive("pue", pue)
        if pue < 1.0:
            raise InputError("pue", f"must be at least 1.0, got {pue}")
    if schema_version is None:
        from workbench.store import SCHEMA_VERSION

        schema_version = SCHEMA_VERSION
    tell("totals")
    summary = summarize(design, pue=pue)
    report: dict[str, Any] = {"name": design.name, "schema_version": schema_version}
    report.update(summary.to_dict())
    workloads = []
    # The compute plane's figures once for every job (half a second at 100,000 GPUs).
    tell("compute fabric")
    fabric = fabric_figures(design) if design.workloads else None
    tell("workloads")
    for workload in design.workloads:
        result = evaluate_workload(design, workload, summary=summary, fabric=fabric)
        entry = {"name": workload.name}
        entry.update(result.to_dict())
        workloads.append(entry)
    report["workloads"] = workloads
    tell("rack budgets")
    report["rack_budgets"] = rack_budget_rows(design)
    tell("fabric planes")
    report["fabric"] = fabric_report(design)
    tell("storage tiers")
    report["storage"] = {tier["tier_id"]: tier for tier in storage_report(design)}
    tell("costs")
    # A --pue given here wins over the stored cost inputs too, so the energy line and
    # the facility kW printed beside it use the same PUE.
    inputs = cost_inputs_of(design)
    if pue is not None:
        inputs = replace(inputs, pue=pue)
    costs = design_costs(design, inputs=inputs, summary=summary, fabric=fabric)
    report["cost"] = costs.to_dict()
    return report


#: The report's parts in order and where each starts, as a share of the whole
#: (measured on a 1,000,000-GPU design from ``workbench new``: 24.7 s in all).
_PARTS: dict[str, float] = {
    "totals": 0.0,  # 2.0 s
    "compute fabric": 0.08,  # 5.2 s
    "workloads": 0.29,
    "rack budgets": 0.30,  # 1.0 s
    "fabric planes": 0.34,  # 11.1 s: every plane's tiers and oversubscription
    "storage tiers": 0.79,  # 0.6 s
    "costs": 0.81,  # 4.8 s
}


def rack_budget_rows(design: Design) -> list[dict[str, Any]]:
    """One entry per rack, in site/row/rack order: its budgets as the rules judge them
    (``over`` names the budgets exceeded; ``feed_kw_limit`` is what the weaker feed may
    carry alone, ``failover_ok`` whether it carries the whole rack; None: unknown).

    ``unknown_power_devices`` counts the rack's devices of unknown power: while it is
    above 0 the kW figures are lower bounds and ``power_known`` is False, so a reader
    of the JSON cannot mistake a missing figure for 0 W."""
    index = design.index
    rows = []
    for rack_id, load in rack_loads(design).items():
        rack = design.find_rack(rack_id)
        assert rack is not None
        row = index.row_of_rack(rack_id)
        b = rack_budgets(design, rack, load)
        failover = b.failover.state
        rows.append(
            {
                "id": rack.id,
                "name": rack.name,
                "row": row.name if row is not None else None,
                "u_used": load.u_used,
                "u_total": load.u_total,
                "power_kw_max": load.kw_max,
                "power_kw_typical": load.kw_typical,
                "power_kw_limit": b.power.limit,
                "unknown_power_devices": load.unknown_power_devices,
                "power_known": load.power_known,
                "heat_kw": load.kw_max,
                "heat_btu_h": b.heat_btu_h,
                "weight_kg": load.weight_kg,
                "weight_max_kg": b.weight.limit,
                "cooling": rack.cooling,
                "cooling_kw_limit": b.cooling.limit,
                "feed_kw_limit": b.failover.limit,
                "failover_ok": None
                if failover is BudgetState.UNKNOWN
                else failover is not BudgetState.OVER,
                "over": b.over(),
            }
        )
    return rows
