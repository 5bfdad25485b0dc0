"""The document's live figures: one summary, one set of rack loads, one result per workload.

Every view used to recompute what it shows on each ``Document.changed``: on one rename at
100,000 GPUs ``summarize`` ran three times and ``rack_loads`` twice, ~40 ms, well over
the one frame the product standard allows.  :class:`LiveFigures` computes each figure at
most once per change, lazily (on the first read after the change), and every view reads
the same object.

It is owned by the :class:`~workbench.ui.document.Document` and connected to its signals
before any view, so it is always invalidated before a view's slot reads it.  What a
change invalidates follows :class:`~workbench.ui.document.Change`:

* workloads only (added, removed or edited): those workloads' results; summary and rack
  loads stay (no summary figure depends on a workload);
* racks/devices without ``structure`` (rename, cooling): the loads of the touched racks
  only, and the summary only if a touched rack's device types differ from when the
  summary was computed (a rename or a cooling change moves no summary figure, a
  retyped device does).  Anything unexpected (a device no longer in the rack it was in,
  an unknown rack) is treated as "anything may differ";
* ``structure`` or a new design: everything.

Workload results are dropped whenever the summary is (they depend on its GPU counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from workbench.calc import summary as calc_summary
from workbench.calc import workload as calc_workload
from workbench.calc.summary import DesignSummary, RackLoad
from workbench.calc.workload import WorkloadResult
from workbench.model import Design, Device, Rack, Workload

if TYPE_CHECKING:  # the document imports this module; avoid the cycle at run time
    from workbench.ui.document import Change, Document


def _device_types(rack: Rack) -> tuple[str, ...]:
    """What the summary counts of one rack: its devices' types (order kept, cheap)."""
    return tuple([device.device_type for device in rack.devices])


class _Index:
    """Rack id → Rack and device id → rack id, valid until the structure changes.

    Built in one pass when first needed after a structure change, so an edit finds its
    rack (and a view its rack or device) without scanning ~33,000 devices.
    """

    def __init__(self, design: Design):
        self.racks: dict[str, Rack] = {}
        self.device_rack: dict[str, str] = {}
        for rack in design.iter_racks():
            self.racks[rack.id] = rack
            for device in rack.devices:
                self.device_rack[device.id] = rack.id


class LiveFigures(QObject):
    """Shared, lazily recomputed figures of the document's design (read-only to views)."""

    def __init__(self, document: Document):
        super().__init__(document)
        self._document = document
        self._summary: DesignSummary | None = None
        #: Rack id → device types when ``_summary`` was computed (decides whether an
        #: edit of that rack can have moved a summary figure).
        self._summary_types: dict[str, tuple[str, ...]] = {}
        self._loads: dict[str, RackLoad] | None = None
        self._stale_racks: set[str] = set()
        self._loads_version = 0
        self._index: _Index | None = None
        self._results: dict[str, tuple[Workload, WorkloadResult]] = {}
        #: How many times each figure was computed (for tests and profiling).
        self.computed = {"summary": 0, "rack_loads": 0, "rack_load": 0, "workload": 0}

    # -- reading -------------------------------------------------------------------
    @property
    def design(self) -> Design:
        return self._document.design

    @property
    def summary(self) -> DesignSummary:
        """``calc.summary.summarize`` of the current design."""
        if self._summary is None:
            self._summary = calc_summary.summarize(self.design)
            self.computed["summary"] += 1
            index = self._ensure_index()
            self._summary_types = {rid: _device_types(r) for rid, r in index.racks.items()}
        return self._summary

    @property
    def rack_loads(self) -> Mapping[str, RackLoad]:
        """``calc.summary.rack_loads`` of the current design, in site/row/rack order."""
        if self._loads is None:
            self._loads = calc_summary.rack_loads(self.design)
            self.computed["rack_loads"] += 1
            self._stale_racks.clear()
            self._loads_version += 1
        elif self._stale_racks:
            self._refresh_stale_loads()
        return MappingProxyType(self._loads)

    @property
    def rack_loads_version(self) -> int:
        """Grows whenever any rack's load differs from before; equal → nothing to redraw."""
        self.rack_loads  # noqa: B018 - bring the loads (and so the version) up to date
        return self._loads_version

    def rack_load(self, rack_id: str) -> RackLoad | None:
        """One rack's load, or None for an unknown rack."""
        return self.rack_loads.get(rack_id)

    def workload(self, workload_id: str) -> WorkloadResult:
        """``evaluate_workload`` of that workload, with the shared summary.

        Raises KeyError when the design has no workload with this id.
        """
        workload = next((w for w in self.design.workloads if w.id == workload_id), None)
        if workload is None:
            raise KeyError(workload_id)
        cached = self._results.get(workload_id)
        # Commands replace a Workload on edit, so a different object is a changed one
        # even if a change forgot to name it.
        if cached is not None and cached[0] is workload:
            return cached[1]
        result = calc_workload.evaluate_workload(self.design, workload, self.summary)
        self.computed["workload"] += 1
        self._results[workload_id] = (workload, result)
        return result

    def find_rack(self, rack_id: str) -> Rack | None:
        """``Design.find_rack`` through the structure index: O(1) instead of a scan of
        ~3,500 racks (the rack view asks once per rack it builds or paints)."""
        index = self._ensure_index()
        rack = index.racks.get(rack_id)
        if rack is None and rack_id not in index.device_rack:
            return self.design.find_rack(rack_id)  # unknown to the index: ask the model
        return rack

    def find_device(self, device_id: str) -> tuple[Rack, Device] | None:
        """``Design.find_device`` through the structure index (no scan of ~33,000
        devices; a rack's id, as the inspector tries first, is answered at once)."""
        index = self._ensure_index()
        rack_id = index.device_rack.get(device_id)
        if rack_id is None:
            if device_id in index.racks:
                return None
            return self.design.find_device(device_id)  # unknown to the index: ask the model
        rack = index.racks[rack_id]
        device = next((d for d in rack.devices if d.id == device_id), None)
        if device is None:  # moved without a structure change: trust the model
            return self.design.find_device(device_id)
        return rack, device

    # -- invalidation --------------------------------------------------------------
    def invalidate(self) -> None:
        """Forget everything: the next read recomputes from the model (also what a newly
        loaded design needs)."""
        self._summary = None
        self._summary_types = {}
        self._loads = None
        self._stale_racks.clear()
        self._index = None
        self._results.clear()

    def on_changed(self, change: Change) -> None:
        """Drop what ``change`` can have moved (see the module docstring)."""
        if change.needs_rebuild:
            self.invalidate()
            return
        for workload_id in change.workloads:
            self._results.pop(workload_id, None)
        if not change.racks and not change.devices:
            return
        touched = self._touched_racks(change)
        if touched is None:
            self.invalidate()
            return
        if self._summary is not None and any(
            _device_types(rack) != self._summary_types.get(rid) for rid, rack in touched
        ):
            self._summary = None
            self._results.clear()
        if self._loads is not None:
            self._stale_racks.update(rid for rid, _rack in touched)

    def _touched_racks(self, change: Change) -> list[tuple[str, Rack]] | None:
        """(id, rack) of every rack the change touched; None when in doubt."""
        if self._summary is None and self._loads is None:
            return []  # nothing cached that could go stale
        index = self._ensure_index()
        ids = set(change.racks)
        for device_id in change.devices:
            rack_id = index.device_rack.get(device_id)
            rack = index.racks.get(rack_id) if rack_id is not None else None
            if rack is None or not any(d.id == device_id for d in rack.devices):
                return None  # moved or removed without a structure change: recompute
            ids.add(rack_id)
        touched = []
        for rack_id in ids:
            rack = index.racks.get(rack_id)
            if rack is None:
                return None
            touched.append((rack_id, rack))
        return touched

    # -- helpers -------------------------------------------------------------------
    def _ensure_index(self) -> _Index:
        if self._index is None:
            self._index = _Index(self.design)
        return self._index

    def _refresh_stale_loads(self) -> None:
        assert self._loads is not None
        index = self._ensure_index()
        changed = False
        for rack_id in self._stale_racks:
            load = calc_summary.rack_load(self.design, index.racks[rack_id])
            self.computed["rack_load"] += 1
            changed = changed or load != self._loads.get(rack_id)
            self._loads[rack_id] = load
        self._stale_racks.clear()
        if changed:
            self._loads_version += 1
