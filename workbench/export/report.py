"""The design report: the figures ``workbench report`` prints, as one JSON-ready mapping.

It lives in ``export`` because it is something the design hands to other people and
tools (a CI job checking a budget, a spreadsheet, a ticket); the figures themselves come
from :mod:`workbench.calc`, so the window, the report and later the workbooks agree.
"""

from __future__ import annotations

from typing import Any

from workbench.calc.errors import InputError, positive
from workbench.calc.summary import summarize
from workbench.calc.workload import evaluate_workload
from workbench.model import Design


def design_report(
    design: Design, pue: float | None = None, schema_version: int | None = None
) -> dict[str, Any]:
    """Key figures of ``design``: counts, power, heat, peak PFLOPS and every workload.

    ``pue`` overrides the design's own PUE; it must be at least 1 (a PUE below 1 would
    mean the facility makes energy).
    """
    if pue is not None:
        pue = positive("pue", pue)
        if pue < 1.0:
            raise InputError("pue", f"must be at least 1.0, got {pue}")
    if schema_version is None:
        from workbench.store import SCHEMA_VERSION

        schema_version = SCHEMA_VERSION
    summary = summarize(design, pue=pue)
    report: dict[str, Any] = {"name": design.name, "schema_version": schema_version}
    report.update(summary.to_dict())
    workloads = []
    for workload in design.workloads:
        result = evaluate_workload(design, workload, summary=summary)
        entry = {"name": workload.name}
        entry.update(result.to_dict())
        workloads.append(entry)
    report["workloads"] = workloads
    return report
