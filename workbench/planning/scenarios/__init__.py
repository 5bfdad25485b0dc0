"""Scenarios: variants of one design kept as sibling files, and the side-by-side table
that compares two to four of them.

Qt-free so ``workbench compare`` and the window's Scenarios panel print one table.
Every figure comes from its one home (:mod:`workbench.calc.summary`, the workload
estimate, the rules engine, the cost core); this package only lines them up.
"""

from workbench.planning.scenarios.figures import ScenarioFigures, figures_of
from workbench.planning.scenarios.files import scenario_path, sibling_scenarios
from workbench.planning.scenarios.table import (
    MAX_SCENARIOS,
    MIN_SCENARIOS,
    CompareRow,
    CompareTable,
    RunPoint,
    compare,
    run_points,
)

__all__ = [
    "MAX_SCENARIOS",
    "MIN_SCENARIOS",
    "CompareRow",
    "CompareTable",
    "RunPoint",
    "ScenarioFigures",
    "compare",
    "figures_of",
    "run_points",
    "scenario_path",
    "sibling_scenarios",
]
