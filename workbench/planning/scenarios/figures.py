"""The figures of one scenario that the comparison table lines up.

Each figure is taken from its one home: counts, kW and PFLOPS from
:func:`workbench.calc.summary.summarize`, findings from the rules engine, and
capex, opex, cost per GPU-hour and each training job's days and cost per run from the
cost core (:func:`workbench.calc.costs.design_costs`, which evaluates every job with
:func:`workbench.calc.workload.evaluate_workload`).  Computing them costs seconds on a
100,000-GPU design (reading the file, the rules and the fabric figures), so
:func:`figures_of_file` keeps them per file version, in memory and in the user's cache
folder (:mod:`~workbench.planning.scenarios.figures_cache`): the table is then built
from the cache, in this process and the next.  What saves a scenario (``workbench
scenario``, the wizard, Save as Scenario) already holds the design, and for a variant its
rule findings, so :func:`keep_figures_of_saved` computes the saved file's figures from
memory and keeps them under the file's bytes: the first comparison after making
variants reads none of them again.  ``workbench scenario`` keeps its base file's
figures the same way from the design it read, and the window its open design's while
the document is unmodified (:mod:`workbench.ui.scenarios.open_figures`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.calc.summary import summarize
from workbench.model.design import Design
from workbench.planning.scenarios import figures_cache
from workbench.planning.scenarios.files import scenario_label
from workbench.rules.context import RuleContext
from workbench.rules.full_check import check_design, count, waived_keys
from workbench.rules.registry import Finding
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

    @classmethod
    def from_dict(cls, data: object, name: str) -> ScenarioFigures:
        """The figures :meth:`to_dict` gave, named ``name`` (the kept copy of a file's
        figures, :mod:`~workbench.planning.scenarios.figures_cache`); ValueError when any
        value is missing or of the wrong type, so a damaged copy is never shown."""
        got = _Fields(data)
        findings = _Fields(got.take("findings", dict))
        jobs: dict[str, JobFigures] = {}
        for job, value in got.take("jobs", dict).items():
            one = _Fields(value)
            jobs[job] = JobFigures(days=one.number("days", True), cost=one.number("cost", True))
        categories = _Fields(got.take("capex_by_category", dict))
        return cls(
            name=name,
            gpus=got.integer("gpus"),
            peak_pflops=got.number("peak_pflops"),
            it_kw=got.number("it_kw"),
            facility_kw=got.number("facility_kw"),
            racks=got.integer("racks"),
            cables=got.integer("cables"),
            errors=findings.integer("errors"),
            warnings=findings.integer("warnings"),
            infos=findings.integer("info"),
            jobs=jobs,
            capex=got.number("capex", True),
            opex_per_year=got.number("opex_per_year", True),
            cost_per_gpu_hour=got.number("cost_per_gpu_hour", True),
            currency=got.take("currency", str),
            capex_by_category={k: categories.number(k) for k in categories.data},
            unpriced_lines=got.integer("unpriced_lines"),
        )


class _Fields:
    """Typed reads of one JSON object for :meth:`ScenarioFigures.from_dict`."""

    def __init__(self, data: object):
        if not isinstance(data, dict):
            raise ValueError("not a mapping")
        self.data = data

    def take(self, key: str, kind: type) -> Any:
        value = self.data.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{key}: not a {kind.__name__}")
        return value

    def integer(self, key: str) -> int:
        return int(self.take(key, int))

    def number(self, key: str, optional: bool = False) -> Any:
        value = self.data.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ValueError(f"{key}: not a number")
        return value


#: How many files' figures are kept (a few scenarios of a few designs).
CACHE_FILES = 16

#: Figures per file, keyed by what changes when the file is rewritten.
_FILE_CACHE: dict[Path, tuple[tuple[int, int], ScenarioFigures]] = {}


def figures_of(design: Design, name: str | None = None) -> ScenarioFigures:
    """The figures of ``design`` (seconds at 100,000 GPUs: the rules and the fabric)."""
    return _compute(design, name or design.name)


def figures_of_file(
    path: Path, catalog: SlugLookup | None = None, *, disk_cache: bool = True
) -> ScenarioFigures:
    """The figures of the design in ``path``, computed once per version of the file:
    in this process per modification time and size, and across runs per content in the
    user's cache folder (:mod:`~workbench.planning.scenarios.figures_cache`; not with
    ``disk_cache`` False), so the Scenarios panel and a repeated ``workbench compare``
    build the table without reading the design again.  ProjectFileError when it cannot
    be read."""
    return figures_of_file_noting(path, catalog, disk_cache=disk_cache)[0]


def figures_of_file_noting(
    path: Path, catalog: SlugLookup | None = None, *, disk_cache: bool = True
) -> tuple[ScenarioFigures, bool]:
    """:func:`figures_of_file`, and whether the figures came from the user's cache
    folder (what ``workbench compare`` says it did)."""
    path = Path(path).resolve()
    stat = path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    hit = _FILE_CACHE.get(path)
    if hit is not None and hit[0] == key:
        return hit[1], False
    name = scenario_label(path)
    kept = figures_cache.entry_key(path, catalog) if disk_cache else None
    figures = _kept_figures(kept, name) if kept is not None else None
    from_disk = figures is not None
    if figures is None:
        figures = _compute(open_design(path, catalog=catalog), name)
        if kept is not None:
            figures_cache.store(kept, figures.to_dict())
    _remember(path, key, figures)
    return figures, from_disk


def _remember(path: Path, version: tuple[int, int], figures: ScenarioFigures) -> None:
    """Keep ``figures`` in this process for ``path`` at ``version`` (mtime, size)."""
    if path not in _FILE_CACHE and len(_FILE_CACHE) >= CACHE_FILES:
        _FILE_CACHE.pop(next(iter(_FILE_CACHE)))  # the oldest entry
    _FILE_CACHE[path] = (version, figures)


def file_version(path: Path) -> tuple[int, int] | None:
    """``path``'s (modification time in ns, size): what this process keeps a file's
    figures per, and what the window notes when it reads or writes its design's file;
    None when the file cannot be looked at."""
    try:
        stat = Path(path).stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def keep_figures_of_saved(
    design: Design,
    path: Path,
    catalog: SlugLookup | None = None,
    *,
    findings: list[Finding] | None = None,
    context: RuleContext | None = None,
    read: str | None = None,
    version: tuple[int, int] | None = None,
) -> ScenarioFigures | None:
    """Compute the figures of ``design``, just saved as ``path`` and unchanged since,
    and keep them as :func:`figures_of_file` would have kept the figures it read from
    the file: in the user's cache folder under the file's bytes and ``catalog`` (the one
    ``workbench compare`` and the Scenarios panel look missing items up in), and in this
    process.  ``findings``: every finding of the rules on ``design`` as it is (what a
    variant was checked with), so the rules are not run twice; ``context``: the rule
    context they were found with (its summary and fabric figures are reused).  The
    figures are the ones reading the file back gives (a test holds them equal).  None,
    and nothing kept, when the file's figures cannot be cached (an unlisted catalog, a
    file that cannot be read back).

    A design read from ``path`` rather than written to it is as good, as long as the
    file still holds what was read: ``read``, the
    :func:`~workbench.planning.scenarios.figures_cache.file_digest` of the bytes it was
    read from (``workbench scenario``'s base file), is compared with the file's bytes
    now; ``version``, the file's :func:`file_version` when the design was read from or
    written to it (the window's open design), must be the file's before and after its
    bytes are hashed.  Either way nothing is kept when the file was rewritten since.
    Figures already kept for the file's version (this process) or bytes (the cache
    folder) are returned as they are, and nothing is computed."""
    path = Path(path).resolve()
    before = file_version(path)
    if before is None or (version is not None and before != version):
        return None
    hit = _FILE_CACHE.get(path)
    if hit is not None and hit[0] == before:
        return hit[1]
    name = scenario_label(path)
    key = figures_cache.entry_key(path, catalog, read=read)
    if key is None or (version is not None and file_version(path) != version):
        return None
    figures = _kept_figures(key, name)
    if figures is None:
        figures = _compute(design, name, context, findings)
        figures_cache.store(key, figures.to_dict())
    _remember(path, before, figures)
    return figures


def _kept_figures(key: str, name: str) -> ScenarioFigures | None:
    """The figures kept on disk under ``key``; None when absent or damaged."""
    data = figures_cache.load(key)
    if data is None:
        return None
    try:
        return ScenarioFigures.from_dict(data, name)
    except (ValueError, TypeError):
        return None


def _compute(
    design: Design,
    name: str,
    ctx: RuleContext | None = None,
    findings: list[Finding] | None = None,
) -> ScenarioFigures:
    """The figures of ``design``; ``findings`` (with the ``ctx`` they were found in,
    when given) are the rules' findings already in hand."""
    if ctx is None:
        summary = summarize(design)
        ctx = RuleContext(design, summary=lambda: summary)
    else:
        summary = ctx.summary
    if findings is None:
        findings = check_design(design, ctx)
    counts = count(findings, waived_keys(design))
    # The cost core evaluates every training job once (days, then the run's cost), so
    # the days come from its runs rather than from a second evaluation here; the
    # compute plane's figures the rules already read are handed on, not recomputed.
    training = any(w.kind == "training" for w in design.workloads)
    # Imported here: the cost core evaluates every job (numpy, the step-time model),
    # and the window imports this module for its File actions before its first frame.
    from workbench.calc.costs import design_costs

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
