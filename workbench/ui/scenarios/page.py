"""The comparison table as the one-page PDF's figures, and writing it.

The bridge between the planning layer's table and the render layer's page, which sit
on the same layer and so do not import each other; the window's PDF… button and
``workbench compare --pdf`` both write through here (QtGui only, no widgets).
"""

from __future__ import annotations

from pathlib import Path

from workbench.planning.scenarios import CompareTable, run_points
from workbench.planning.scenarios.text import page_rows
from workbench.render.compare_page import (
    ComparePage,
    CompareRowText,
    CompareRun,
    write_compare_pdf,
)


def compare_page(table: CompareTable) -> ComparePage:
    """The page of ``table``: its rows as printed, each scenario's capex bars, and the
    training runs of the cost-per-run scatter (the window plot's points)."""
    money = next((s.currency for s in table.scenarios if s.currency), "")
    return ComparePage(
        title="Scenario comparison: " + " vs ".join(table.names),
        names=table.names,
        rows=tuple(CompareRowText(*row) for row in page_rows(table)),
        bars=tuple(dict(s.capex_by_category) for s in table.scenarios),
        runs=tuple(CompareRun(p.scenario, p.job, p.days, p.cost) for p in run_points(table)),
        money=money,
        notes=table.notes,
    )


def write_table_pdf(table: CompareTable, path: Path) -> None:
    """Write the one-page PDF of ``table`` to ``path`` atomically (OSError on failure)."""
    write_compare_pdf(path, compare_page(table))
