"""The figures of one scenario that the comparison table lines up.

Each figure is taken from its one home: counts, kW and PFLOPS from
:func:`workbench.calc.summary.summarize`, training days from
:func:`workbench.calc.workload.evaluate_workload`, findings from the rules engine, and
capex, opex and cost per GPU-hour and per run from the cost core
(:mod:`workbench.calc.costs`) when it is installed.  Computing them costs seconds on a
100,000-GPU design (the rules and the fabric figures), so :func:`figures_of_file` keeps
them per file version: the table is then built from the cache.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.calc.design_hardware import fabric_figures
from workbench.calc.summary import summarize
from workbench.calc.workload import evaluate_workload
from workbench.model.design import Design
from workbench.planning.scenarios.files import scenario_label
from workbench.rules.engine import check_design, count, waived_keys
from workbench.store import open_design
from workbench.store.reader import SlugLookup

#: The precision the table quotes peak PFLOPS in (what training runs at).
PEAK_PRECISION = "bf16"


@dataclass(frozen=True)
class JobFigures:
    """One training job of a scenario: its predicted days and, with costs, its cost."""

    days: float | None
    cost: float | None = None


@dataclass(frozen=True)
class ScenarioFigures:
    """Headline figures of one scenario; ``None`` where a figure cannot be had."""

    name: str
    gpus: int
    peak_pflops: float
    it_kw: float
    facility_kw: float
    racks: int
    cables: int
    errors: int
    warnings: int
    infos: int
    #: Training jobs by name (the table matches jobs across scenarios by name).
    jobs: dict[str, JobFigures] = field(default_factory=dict)
    #: ``None`` while the cost core is not installed (``costs_note`` says so).
    capex: float | None = None
    opex_per_year: float | None = None
    cost_per_gpu_hour: float | None = None
    currency: str = ""
    #: Capex by category, for the cost-breakdown plot (empty without costs).
    capex_by_category: dict[str, float] = field(default_factory=dict)
    unpriced_lines: int = 0
    costs_note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping of every figure."""
        return {
            "name": self.name,
            "gpus": self.gpus,
            "peak_pflops": self.peak_pflops,
            "it_kw": self.it_kw,
            "facility_kw": self.facility_kw,
            "racks": self.racks,
            "cables": self.cables,
            "findings": {"errors": self.errors, "warnings": self.warnings, "info": self.infos},
            "capex": self.capex,
            "opex_per_year": self.opex_per_year,
            "cost_per_gpu_hour": self.cost_per_gpu_hour,
            "currency": self.currency,
            "capex_by_category": dict(self.capex_by_category),
            "unpriced_lines": self.unpriced_lines,
            "costs_note": self.costs_note,
            "jobs": {name: {"days": job.days, "cost": job.cost} for name, job in self.jobs.items()},
        }


COSTS_MISSING = "costs not available (the cost core is not installed)"

#: Figures per file, keyed by what changes when the file is rewritten.
_FILE_CACHE: dict[Path, tuple[tuple[int, int], ScenarioFigures]] = {}


def figures_of(design: Design, name: str | None = None) -> ScenarioFigures:
    """The figures of ``design`` (seconds at 100,000 GPUs: the rules and the fabric)."""
    return _compute(design, name or design.name)


def figures_of_file(path: Path, catalog: SlugLookup | None = None) -> ScenarioFigures:
    """The figures of the design in ``path``, computed once per version of the file
    (its modification time and size): the Scenarios panel and a repeated comparison
    then build the table from the cache.  ProjectFileError when it cannot be read."""
    path = Path(path).resolve()
    stat = path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    hit = _FILE_CACHE.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    figures = _compute(open_design(path, catalog=catalog), scenario_label(path))
    _FILE_CACHE[path] = (key, figures)
    return figures


def _compute(design: Design, name: str) -> ScenarioFigures:
    summary = summarize(design)
    counts = count(check_design(design), waived_keys(design))
    training = [w for w in design.workloads if w.kind == "training"]
    fabric = fabric_figures(design) if training else None
    days: dict[str, float | None] = {}
    for workload in training:
        result = evaluate_workload(design, workload, summary=summary, fabric=fabric)
        days[workload.name] = result.days
    costs = _costs(design)
    jobs = {job: JobFigures(days=d, cost=costs.get("runs", {}).get(job)) for job, d in days.items()}
    return ScenarioFigures(
        name=name,
        gpus=summary.gpus,
        peak_pflops=summary.peak_pflops.get(PEAK_PRECISION, 0.0),
        it_kw=summary.it_kw,
        facility_kw=summary.facility_kw,
        racks=summary.racks,
        cables=len(design.links),
        errors=counts.errors,
        warnings=counts.warnings,
        infos=counts.infos,
        jobs=jobs,
        capex=costs.get("capex"),
        opex_per_year=costs.get("opex"),
        cost_per_gpu_hour=costs.get("per_gpu_hour"),
        currency=costs.get("currency", ""),
        capex_by_category=costs.get("by_category", {}),
        unpriced_lines=costs.get("unpriced", 0),
        costs_note=costs.get("note", ""),
    )


def _costs(design: Design) -> dict[str, Any]:
    """The cost core's figures of ``design``, or a note saying why there are none.

    The cost core (``workbench.calc.costs``) is built apart from this package; until it
    is installed every cost figure is None and the note says costs are not available,
    so no table shows a silent 0.
    """
    try:
        costs = importlib.import_module("workbench.calc.costs")
    except ModuleNotFoundError:
        return {"note": COSTS_MISSING}
    summary = costs.design_costs(design, None)
    runs = {}
    for run in getattr(summary, "runs", ()) or ():
        runs[getattr(run, "name", "")] = getattr(run, "cost", None)
    unpriced = getattr(summary, "unpriced_lines", 0)
    return {
        "capex": getattr(summary, "capex_total", None),
        "opex": getattr(summary, "opex_per_year", None),
        "per_gpu_hour": getattr(summary, "cost_per_gpu_hour", None),
        "currency": getattr(summary, "currency", ""),
        "by_category": dict(getattr(summary, "capex_by_category", {}) or {}),
        "unpriced": len(unpriced) if isinstance(unpriced, (list, tuple)) else int(unpriced or 0),
        "runs": runs,
    }
