"""What the drawings mark: each rack's and each object's worst unwaived finding.

Read from the checker's tables, where a rack rule's findings are filed under their rack
and a device rule's under their device, so the rack of a finding costs at most one index
lookup (6,800 findings at 100,000 GPUs take ~3 ms).  The window keeps the answer per
findings version (:class:`~workbench.ui.shell.live_figures.LiveFigures`).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

from workbench.model.index import DesignIndex
from workbench.rules.engine import Checker
from workbench.rules.registry import Severity


def worst_marks(
    checker: Checker, waived: AbstractSet[tuple[str, str]], index: DesignIndex
) -> tuple[dict[str, Severity], dict[str, Severity]]:
    """(rack id → worst severity of the findings about it or anything in it, object id
    → worst severity of the findings naming it), waived findings left out."""
    racks: dict[str, Severity] = {}
    objects: dict[str, Severity] = {}
    for rule, filed_under, found in checker.filed():
        for finding in found:
            if waived and finding.key in waived:
                continue
            severity = finding.severity
            for object_id in finding.objects:
                if severity > objects.get(object_id, -1):
                    objects[object_id] = severity
            if rule.scope == "rack":
                rack_ids = [filed_under]
            else:
                rack_ids = [r.id for o in finding.objects if (r := index.rack_of(o))]
            for rack_id in rack_ids:
                if severity > racks.get(rack_id, -1):
                    racks[rack_id] = severity
    return racks, objects


__all__ = ["worst_marks"]
