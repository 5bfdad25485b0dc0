"""What rules read besides the object they check: :class:`RuleContext`.

Kept apart from the registry (:mod:`workbench.rules.registry`) and the runners so that
the figures a check reads (the summary, rack loads, the workloads' estimates, the
compute plane) have one home, which the window feeds with the figures it keeps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from workbench.calc.summary import DesignSummary, LoadCache, RackLoad, rack_load, summarize
from workbench.model import Design, Rack, Workload

if TYPE_CHECKING:
    # Read on first use (below): the step-time model and the compute plane load numpy
    # and the fabric analysis, which a window's first frame (its rack budgets, the
    # findings' types) does without (see tests/test_ui_cold_start.py).
    from workbench.calc.design_hardware import FabricFigures
    from workbench.calc.workload import WorkloadResult


class RuleContext:
    """What rules read besides the object: the design, its summary and rack loads.

    The window passes the figures it already keeps (so a check after an edit reuses the
    summary and loads every view shows); the command line lets them be computed here.
    """

    def __init__(
        self,
        design: Design,
        summary: Callable[[], DesignSummary] | None = None,
        load: Callable[[Rack], RackLoad | None] | None = None,
        evaluate: Callable[[Workload], WorkloadResult] | None = None,
        fabric: Callable[[], FabricFigures] | None = None,
    ):
        self.design = design
        self._summary_source = summary
        self._fabric_source = fabric
        self._summary: DesignSummary | None = None
        self._load_source = load
        self._evaluate_source = evaluate
        self._results: dict[str, tuple[Workload, WorkloadResult]] = {}
        self._loads = LoadCache()
        #: Anything a rule computes once per object per check (``memo``).
        self._memo: dict[tuple[str, str], Any] = {}
        #: What a rule reads off the catalog snapshot alone (``by_types``).
        self._by_types: dict[str, Any] = {}
        #: The compute plane's figures for the step-time model (half a second on a
        #: 100,000-GPU design), kept until links, devices, networks or types change.
        self._fabric: FabricFigures | None = None

    @property
    def summary(self) -> DesignSummary:
        if self._summary_source is not None:
            return self._summary_source()
        if self._summary is None:
            self._summary = summarize(self.design)
        return self._summary

    def forget(self, types: bool = False, only_workloads: bool = False) -> None:
        """Drop what was computed here (after the design changed); ``types`` also drops
        the per-type figures (the catalog snapshot changed).  ``only_workloads``: the
        change touched jobs and nothing else, so the design's own figures (the summary,
        storage figures in ``memo``, the fabric) still hold and only the jobs' estimates
        are dropped - a TP edit on a 100,000-GPU design then re-runs no storage maths."""
        self._results.clear()
        if only_workloads:
            return
        self._summary = None
        self._memo.clear()
        self._fabric = None
        if types:
            self._loads = LoadCache()
            self._by_types.clear()

    @property
    def fabric(self) -> FabricFigures:
        """The compute plane as the step-time model reads it (computed once, unless the
        caller keeps it: the window's live figures)."""
        if self._fabric_source is not None:
            return self._fabric_source()
        if self._fabric is None:
            from workbench.calc.design_hardware import fabric_figures

            self._fabric = fabric_figures(self.design)
        return self._fabric

    def evaluate(self, workload: Workload) -> WorkloadResult:
        """The workload's estimate (computed once per check for all workload rules)."""
        if self._evaluate_source is not None:
            return self._evaluate_source(workload)
        cached = self._results.get(workload.id)
        if cached is not None and cached[0] is workload:
            return cached[1]
        from workbench.calc.workload import evaluate_workload

        result = evaluate_workload(self.design, workload, self.summary, self.fabric)
        self._results[workload.id] = (workload, result)
        return result

    def memo(self, what: str, object_id: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per check for (``what``, ``object_id``): several rules of a
        rack read the same budgets.  A ``what`` starting with ``names:`` is read off
        the devices' names and places (who holds a host name first), which every edit
        may move, a rename too: it is forgotten before each re-check."""
        key = (what, object_id)
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def by_types(self, what: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per catalog snapshot under ``what``: kept across edits, and
        dropped only with the per-type figures (``forget(types=True)``, which every
        change of the design's catalog items asks for).  Why: FABRIC-PORT's port-name
        tables were built again after every edit, ~380 port names read per node put
        back at 100,000 GPUs.  A reader keyed by item must still check that the item it
        holds is the design's (a snapshot replaced behind the checker's back)."""
        found = self._by_types.get(what)
        if found is None:
            found = self._by_types[what] = compute()
        return found

    def forget_names(self) -> None:
        """Drop what ``memo`` keeps under a ``names:`` key (see :meth:`memo`)."""
        for key in [k for k in self._memo if k[0].startswith("names:")]:
            del self._memo[key]

    def load(self, rack: Rack) -> RackLoad:
        if self._load_source is not None:
            found = self._load_source(rack)
            if found is not None:
                return found
        return rack_load(self.design, rack, self._loads)
