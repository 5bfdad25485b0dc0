"""The side-by-side table of two to four scenarios, with the best and worst marked.

One row per figure, one column per scenario.  Each row says which direction is better
(fewer errors, lower cost per GPU-hour, more PFLOPS) so the table can mark the best and
the worst column; rows where more is neither better nor worse (kW, racks, cables: they
follow the design's size) mark only that the values differ.  Training jobs are matched
across scenarios by name; a job one scenario lacks is an empty cell, not 0 days.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.planning.scenarios.figures import ScenarioFigures

MIN_SCENARIOS = 2
MAX_SCENARIOS = 4

#: Which way a row is better: "lower", "higher" or "" (no better, only different).
LOWER, HIGHER, NEUTRAL = "lower", "higher", ""


@dataclass(frozen=True)
class CompareRow:
    """One figure across the scenarios; ``best``/``worst`` are the column indices that
    hold the row's best and worst value (every column of a tie, so two scenarios with
    the same peak PFLOPS are both marked best), empty where no value is better."""

    label: str
    unit: str
    values: tuple[float | None, ...]
    better: str = NEUTRAL
    best: tuple[int, ...] = ()
    worst: tuple[int, ...] = ()
    differs: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "unit": self.unit,
            "values": list(self.values),
            "better": self.better or None,
            "best": list(self.best),
            "worst": list(self.worst),
            "differs": self.differs,
        }


@dataclass(frozen=True)
class CompareTable:
    """The comparison: scenario names (columns), rows, and the figures they came from."""

    names: tuple[str, ...]
    rows: tuple[CompareRow, ...]
    scenarios: tuple[ScenarioFigures, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenarios": [s.to_dict() for s in self.scenarios],
            "columns": list(self.names),
            "rows": [r.to_dict() for r in self.rows],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class RunPoint:
    """One training run of one scenario, a point of "cost per run against days"."""

    scenario: int  # the column of the table
    job: str
    days: float
    cost: float


def run_points(table: CompareTable) -> list[RunPoint]:
    """Each scenario's training runs with both days and a cost, scenario by scenario:
    the points the window's plot and the PDF page draw (a run without a cost, or
    without a prediction, has no place on the plot and is left out, not put at 0)."""
    return [
        RunPoint(n, name, float(job.days), float(job.cost))
        for n, s in enumerate(table.scenarios)
        for name, job in s.jobs.items()
        if job.days is not None and job.cost is not None
    ]


def _row(label: str, unit: str, values: Sequence[float | None], better: str) -> CompareRow:
    known = [(v, i) for i, v in enumerate(values) if v is not None]
    differs = len({v for v, _ in known}) > 1 or (0 < len(known) < len(values))
    best: tuple[int, ...] = ()
    worst: tuple[int, ...] = ()
    if better and len({v for v, _ in known}) > 1:
        low = min(v for v, _ in known)
        high = max(v for v, _ in known)
        lows = tuple(i for v, i in known if v == low)
        highs = tuple(i for v, i in known if v == high)
        best, worst = (lows, highs) if better == LOWER else (highs, lows)
    return CompareRow(label, unit, tuple(values), better, best, worst, differs)


def compare(scenarios: Sequence[ScenarioFigures]) -> CompareTable:
    """The table of ``scenarios`` (2 to 4); ValueError for any other number."""
    if not MIN_SCENARIOS <= len(scenarios) <= MAX_SCENARIOS:
        raise ValueError(
            f"compare {MIN_SCENARIOS} to {MAX_SCENARIOS} scenarios, got {len(scenarios)}"
        )
    money = next((s.currency for s in scenarios if s.currency), "")

    def col(attr: str) -> list[float | None]:
        return [getattr(s, attr) for s in scenarios]

    rows = [
        _row("GPUs", "", col("gpus"), NEUTRAL),
        _row("Peak BF16", "PFLOPS", col("peak_pflops"), HIGHER),
        _row("IT power", "kW", col("it_kw"), NEUTRAL),
        _row("Facility power", "kW", col("facility_kw"), NEUTRAL),
        _row("Racks", "", col("racks"), NEUTRAL),
        _row("Cables", "", col("cables"), NEUTRAL),
        _row("Capex", money, col("capex"), LOWER),
        _row("Opex per year", money, col("opex_per_year"), LOWER),
        _row("Cost per GPU-hour", money, col("cost_per_gpu_hour"), LOWER),
    ]
    jobs: list[str] = []
    for s in scenarios:
        jobs.extend(j for j in s.jobs if j not in jobs)
    for job in jobs:
        figures = [s.jobs.get(job) for s in scenarios]
        rows.append(
            _row(f"{job}: training", "days", [f.days if f else None for f in figures], LOWER)
        )
        rows.append(
            _row(f"{job}: run cost", money, [f.cost if f else None for f in figures], LOWER)
        )
    rows += [
        _row("Rule errors", "", col("errors"), LOWER),
        _row("Rule warnings", "", col("warnings"), LOWER),
        _row("Rule notes", "", col("infos"), NEUTRAL),
    ]
    notes = tuple(
        f"{s.name}: {s.unpriced_lines} BOM lines have no price, so its capex is a lower bound"
        for s in scenarios
        if s.unpriced_lines
    )
    return CompareTable(tuple(s.name for s in scenarios), tuple(rows), tuple(scenarios), notes)
