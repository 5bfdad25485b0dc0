"""The figures of one scenario that the comparison table lines up.

Each figure is taken from its one home: counts, kW and PFLOPS from
:func:`workbench.calc.summary.summarize`, findings from the rules engine, and
capex, opex, cost per GPU-hour and each training job's days and cost per run from the
cost core (:func:`workbench.calc.costs.design_costs`, which evaluates every job with
:func:`workbench.calc.workload.evaluate_workload`).  Computing them costs seconds on a
100,000-GPU design (the rules and the fabric figures), so :func:`figures_of_file` keeps
them per file version: the table is then built from the cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.calc.costs import design_costs
from workbench.calc.summary import summarize
from workbench.model.design import Design
from workbench.planning.scenarios.files import scenario_label
from workbench.rules.engine import RuleContext, check_design, count, waived_keys
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
    #: From :func:`workbench.calc.costs.design_costs`; a lower bound while
    #: ``unpriced_lines`` is above 0 (the table's notes say so).
    capex: float | None = None
    opex_per_year: float | None = None
    cost_per_gpu_hour: float | None = None
    currency: str = ""
    #: Capex by category, for the cost-breakdown plot (empty without costs).
    capex_by_category: dict[str, float] = field(default_factory=dict)
    unpriced_lines: int = 0

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
            "jobs": {name: {"days": job.days, "cost": job.cost} for name, job in self.jobs.items()},
        }


#: How many files' figures are kept (a few scenarios of a few designs).
CACHE_FILES = 16

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
    if len(_FILE_CACHE) >= CACHE_FILES:
        _FILE_CACHE.pop(next(iter(_FILE_CACHE)))  # the oldest entry
    _FILE_CACHE[path] = (key, figures)
    return figures


def _compute(design: Design, name: str) -> ScenarioFigures:
    summary = summarize(design)
    ctx = RuleContext(design, summary=lambda: summary)
    counts = count(check_design(design, ctx), waived_keys(design))
    # The cost core evaluates every training job once (days, then the run's cost), so
    # the days come from its runs rather than from a second evaluation here; the
    # compute plane's figures the rules already read are handed on, not recomputed.
    training = any(w.kind == "training" for w in design.workloads)
    costs = design_costs(design, fabric=ctx.fabric if training else None)
    jobs = {run.name: JobFigures(days=run.days, cost=run.cost) for run in costs.runs}
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
        capex=costs.capex_total,
        opex_per_year=costs.opex_per_year,
        cost_per_gpu_hour=costs.cost_per_gpu_hour,
        currency=costs.currency,
        capex_by_category=dict(costs.capex_by_category),
        unpriced_lines=costs.unpriced_lines,
    )
