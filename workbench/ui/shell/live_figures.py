"""The document's live figures: summary, rack loads, workload results and rule findings.

Every view reads these instead of computing its own, and each is brought up to date at
most once per change, lazily (on the first read after it) and incrementally from what the
:class:`~workbench.model.Change` names, so an edit of one device on a 100,000-GPU design
costs the racks it touched, not the hall:

* summary: device counts per catalog type are kept rack by rack; a change recounts only
  the racks it names and the summary is rebuilt from the counts (one step per type);
* rack loads: only the named racks are recomputed, added ones computed, removed ones
  dropped; the order is renewed when racks came, went or moved;
* workload results: dropped when their workload changed, when the device counts or the
  design's catalog types moved (the training prediction reads the node type and its
  NICs), or when the cabling did (it reads the compute fabric);
* fabric figures: the compute plane's oversubscription and leaf size for the step-time
  model (~0.2-0.8 s at 100,000 GPUs), kept until the cabling changes: the design
  index's ``fabric_version``, or a change naming links, networks or catalog types.
  A newly loaded design's first check builds the plane in steps before its rules, and
  until then the status strip shows its estimate as pending (:meth:`estimate_is_cheap`);
  once the check is done, also in steps, what the first edit would build in one go
  (:meth:`_warm_steps`; :attr:`LiveFigures.settled` after it);
* findings: the rules engine's :class:`~workbench.rules.Checker` re-runs only the rules
  that look at what changed (see :mod:`workbench.rules.engine`).

It is owned by the :class:`~workbench.ui.shell.document.Document` and connected to its signals
before any view, so it is always invalidated before a view's slot reads it.
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from itertools import chain
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from workbench.calc import summary as calc_summary
from workbench.calc.steps import chunks
from workbench.calc.summary import DesignSummary, LoadCache, RackLoad
from workbench.model import Change, Design, Device, Rack, Workload
from workbench.render.safe_figures import counts_only, safe_rack_load
from workbench.ui.shell.check_loading import CHECK_MODULES, import_steps, plane_ready

if TYPE_CHECKING:
    # Loaded on first use, after the first frame: the rules, the workload estimates and
    # the compute plane bring numpy and the fabric analysis (~0.2 s of CPU here), which
    # nothing in the first frame reads (the estimate is pending, the check held until
    # then; see tests/test_ui_cold_start.py).
    from workbench.calc.design_hardware import FabricFigures
    from workbench.calc.workload import WorkloadResult
    from workbench.rules.engine import Checker
    from workbench.rules.registry import Finding, Severity


def _device_types(rack: Rack) -> tuple[str, ...]:
    """What the summary counts of one rack: its devices' types (order kept, cheap).

    A type that is not text (a script's mistake) is counted under its repr, so the
    counts stay a plain mapping of strings."""
    return tuple(
        [t if isinstance(t, str) else repr(t) for t in (d.device_type for d in rack.devices)]
    )


class FiguresOwner(Protocol):
    """What the figures read of their owner (the
    :class:`~workbench.ui.shell.document.Document`, which imports this module: naming
    the shape instead of the class keeps the two files out of an import circle)."""

    @property
    def design(self) -> Design: ...

    @property
    def links_pending(self) -> bool: ...

    def links_read(self) -> bool: ...


class LiveFigures(QObject):
    """Shared, lazily and incrementally recomputed figures of the document's design.

    ``findingsReady`` is emitted when the first full check of a newly loaded design has
    run: that check (seconds at 1,000,000 GPUs) is put off until the window has painted
    (:meth:`hold_checks`), then runs in slices of :attr:`SLICE_MS` between events, its
    progress in ``checkProgress``, so a big design appears at once, answers input, and
    its findings follow (:meth:`check_soon`).  Whoever reads the findings before the
    slices are done gets them at once (the rest of the check runs then).
    """

    findingsReady = Signal()
    #: Percent of the first full check done (it runs in slices after the first paint).
    checkProgress = Signal(int)
    #: The window has painted its first frame: figures put off until then may be read.
    released = Signal()
    #: The warm-up after the first check is done (:attr:`settled`).
    warmed = Signal()

    #: Milliseconds of checking per slice: input and repaints get the rest.  A slice
    #: ends after the step that passes it, so a block of input is this plus one step
    #: (steps are sized to ~1-5 ms at 100,000 GPUs: :attr:`STEP_OBJECTS`,
    #: :attr:`STEP_LINKS`, and each rule's own).
    SLICE_MS = 4
    #: Objects (racks, devices) a rule checks per step of the first check.
    STEP_OBJECTS = 250
    #: Racks whose loads are read per step before the first check's rules.
    STEP_RACKS = 400
    #: Links read per step of the compute plane's build in the first check.
    STEP_LINKS = 2_000
    #: Seconds between two progress signals of the first check (a repaint each).
    PROGRESS_S = 0.1
    #: Racks' loads read one by one before the table of all is (see :meth:`rack_load`).
    EARLY_LOADS = 256
    #: Links (or devices) read per step of the warm-up (:meth:`_warm_steps`), ~1-2 ms.
    STEP_WARM = 2_000
    #: Milliseconds between two looks at the thread that loads the check's modules
    #: (:func:`~workbench.ui.shell.check_loading.import_steps`): the event loop waits
    #: meanwhile, free for input.
    IMPORT_POLL_MS = 5

    def __init__(self, document: FiguresOwner, parent: QObject | None = None):
        super().__init__(parent)
        self._document = document
        #: How many times each figure was computed (for tests and profiling).
        self.computed = {
            "summary": 0,
            "rack_loads": 0,
            "rack_load": 0,
            "workload": 0,
            "fabric": 0,
            "counts": 0,
            "check": 0,
        }
        #: Starts the next slice of the first check once the events waiting are done
        #: (see :meth:`_check_slice`).
        self._next_slice = QTimer(self)
        self._next_slice.setSingleShot(True)
        self._next_slice.setInterval(0)
        self._next_slice.timeout.connect(self._check_slice)
        #: The same, a while later: the check's modules are still loading.
        self._import_poll = QTimer(self)
        self._import_poll.setSingleShot(True)
        self._import_poll.setInterval(self.IMPORT_POLL_MS)
        self._import_poll.timeout.connect(self._check_slice)
        #: The modules of :data:`CHECK_MODULES` still to load, while the first check
        #: waits for them (None: loaded, or not begun).  Kept when the design is
        #: replaced: what they load serves every design.
        self._importing: Iterator[bool] | None = None
        self._reset()

    def _reset(self) -> None:
        self._summary: DesignSummary | None = None
        #: rack id → its device types, and their total per type (None: not counted yet)
        self._rack_types: dict[str, tuple[str, ...]] = {}
        self._counts: Counter[str] | None = None
        self._loads: dict[str, RackLoad] | None = None
        #: Racks' loads read one by one while :attr:`_loads` is None (see
        #: :meth:`rack_load`), valid while :attr:`_edits` is :attr:`_early_at`.
        self._early_loads: dict[str, RackLoad | None] = {}
        self._early_at = getattr(self, "_edits", 0)
        self._stale_racks: set[str] = set()
        self._reorder = False
        self._loads_version = getattr(self, "_loads_version", 0) + 1
        self._load_cache = LoadCache()
        self._results: dict[str, tuple[Workload, WorkloadResult]] = {}
        #: The GPU totals (:meth:`_gpu_totals`) the results are for, and the results of
        #: the totals before the last edit that moved them: its undo brings those totals
        #: back, and with them those results (nothing else they read moved meanwhile,
        #: or :meth:`_forget_results` dropped them).
        self._results_totals: tuple[tuple[str, int], ...] | None = None
        self._results_before: (
            tuple[tuple[tuple[str, int], ...], dict[str, tuple[Workload, WorkloadResult]]] | None
        ) = None
        #: The compute plane's figures and the (index, fabric_version) they were read at.
        self._fabric: FabricFigures | None = None
        self._fabric_key: tuple[object, int] | None = None
        self._checker: Checker | None = None
        #: The first full check while it runs in slices: the checker and its steps.
        self._slicing: tuple[Checker, Iterator[float]] | None = None
        #: The warm-up's steps while they run in slices after the first check
        #: (:meth:`_warm_steps`), None before and after.
        self._warming: Iterator[float] | None = None
        #: The percent of the first check last shown (progress only ever grows), and when.
        self._shown_percent = -1
        self._shown_at = -math.inf
        #: Edits seen (:meth:`on_changed`), so steps that read figures ahead can tell
        #: whether the design moved under them.
        self._edits = getattr(self, "_edits", 0)
        self._pending: Change | None = None
        self._marks: tuple[dict[str, Severity], dict[str, Severity]] | None = None
        self._marks_version = -1
        self._waivers_moved = False
        self._check_scheduled = False
        self._held = getattr(self, "_held", False)
        self._owed = False

    # -- reading -------------------------------------------------------------------
    @property
    def design(self) -> Design:
        return self._document.design

    @property
    def summary(self) -> DesignSummary:
        """``calc.summary.summarize`` of the current design."""
        if self._summary is None:
            if self._counts is None:
                self._count_all()
            assert self._counts is not None
            try:
                self._summary = calc_summary.summary_from_counts(
                    self.design, len(self._rack_types), self._counts
                )
            except Exception:  # noqa: BLE001 - the status strip must show something
                # Figures no calculator expects (a script's item with "lots" of watts):
                # the counts still hold, the figures read as zero; the rules say why.
                self._summary = counts_only(len(self._rack_types), self._counts)
            self.computed["summary"] += 1
        return self._summary

    @property
    def rack_loads(self) -> Mapping[str, RackLoad]:
        """``calc.summary.rack_loads`` of the current design, in site/row/rack order."""
        if self._loads is None:
            self._loads = {
                rack.id: safe_rack_load(self.design, rack, self._load_cache)
                for rack in self.design.iter_racks()
            }
            self.computed["rack_loads"] += 1
            self._stale_racks.clear()
            self._reorder = False
            self._loads_version += 1
        elif self._stale_racks or self._reorder:
            self._refresh_stale_loads()
        return MappingProxyType(self._loads)

    @property
    def rack_loads_version(self) -> int:
        """Grows whenever any rack's load differs from before; equal → nothing to redraw."""
        self.rack_loads  # noqa: B018 - bring the loads (and so the version) up to date
        return self._loads_version

    def rack_load(self, rack_id: str) -> RackLoad | None:
        """One rack's load, or None for an unknown rack.

        Until every rack's load is read (the first check reads them in steps after the
        first frame, :meth:`_load_steps`), the rack asked for is read on its own and
        kept until the next edit: the first frame draws a few of a 100,000-GPU hall's
        3,478 racks, and reading all of them for it was ~0.1 s of CPU before it.  A
        reader of more racks than :attr:`EARLY_LOADS` (a hall zoomed out, the rules
        after an edit stopped the steps) gets the table, kept from edit to edit."""
        if self._loads is not None or len(self._early_loads) >= self.EARLY_LOADS:
            return self.rack_loads.get(rack_id)
        if self._early_at != self._edits:
            self._early_loads.clear()
            self._early_at = self._edits
        if rack_id not in self._early_loads:
            placed = self.design.index.racks.get(rack_id)
            self._early_loads[rack_id] = (
                None if placed is None else safe_rack_load(self.design, placed[1], self._load_cache)
            )
            self.computed["rack_load"] += 1
        return self._early_loads[rack_id]

    def workload(self, workload_id: str) -> WorkloadResult:
        """``evaluate_workload`` of that workload, with the shared summary.

        Raises KeyError when the design has no workload with this id.
        """
        workload = self.design.find_workload(workload_id)
        if workload is None:
            raise KeyError(workload_id)
        # Only a training job reads the fabric; reading it first lets a moved fabric
        # drop every result before the cache is consulted.
        fabric = self.fabric if workload.kind == "training" else None
        cached = self._results.get(workload_id)
        # Commands replace a Workload on edit, so a different object is a changed one
        # even if a change forgot to name it.
        if cached is not None and cached[0] is workload:
            return cached[1]
        from workbench.calc.workload import evaluate_workload

        result = evaluate_workload(self.design, workload, self.summary, fabric)
        self.computed["workload"] += 1
        self._results[workload_id] = (workload, result)
        return result

    @property
    def fabric(self) -> FabricFigures:
        """``design_hardware.fabric_figures`` of the design, kept until the cabling moves.

        Only links, networks (a plane's role) and catalog items (what is a host) decide
        the compute plane; device field edits, renames and moves cannot, and a removed
        device names its links in the change.  The index's ``fabric_version`` is also
        compared, so an edit whose change forgot its links is still seen.
        """
        index = self.design.index
        key = self._fabric_key
        if (
            self._fabric is None
            or key is None
            or key[0] is not index
            or key[1] != index.fabric_version
        ):
            from workbench.calc.design_hardware import fabric_figures

            self._fabric = fabric_figures(self.design)
            self._fabric_key = (index, index.fabric_version)
            self.computed["fabric"] += 1
            self._forget_results()  # every training prediction read the old figures
        return self._fabric

    @property
    def checker(self) -> Checker:
        """The design's rule findings, current (see :mod:`workbench.rules`).  Wanted
        while the design's links are still being read, the links are read first: run on
        a design without them, the rules found every port uncabled (12,507 findings at
        100,000 GPUs, shown until the real check replaced them)."""
        if self._checker is None and self._document.links_pending:
            self._document.links_read()  # its end resets these figures (Document._links_in)
        if self._checker is None:
            if self._slicing is None:
                self._start_check()
            assert self._slicing is not None
            for _fraction in self._slicing[1]:
                pass  # the findings are wanted now: run the rest of the check
            self._finish_check(announce_later=True)
        assert self._checker is not None
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._checker.update(pending)
        return self._checker

    @property
    def settled(self) -> bool:
        """True once the first check is done and so is the warm-up after it
        (:meth:`_warm_steps`): what a first edit finds built."""
        return self._checker is not None and self._warming is None

    @property
    def checked(self) -> bool:
        """True once the rules have run on the current design (see :meth:`check_soon`)."""
        return self._checker is not None

    def check_soon(self) -> None:
        """Run the first full check after the pending events (the first paint), in
        slices, then emit ``findingsReady``; views show "checking" meanwhile."""
        if self._checker is not None or self._check_scheduled or self._slicing is not None:
            return
        self._check_scheduled = True
        QTimer.singleShot(0, self._check_now)

    def hold_checks(self) -> None:
        """Put the first full check off until :meth:`release_checks` (the window calls
        this before it is shown and releases after its first paint)."""
        self._held = True

    def release_checks(self) -> None:
        """Let a held first check start (see :meth:`hold_checks`)."""
        was_held, self._held = self._held, False
        if self._owed:
            self._owed = False
            self.check_soon()
        if was_held:
            self.released.emit()

    @property
    def held(self) -> bool:
        """True until the window's first frame (see :meth:`hold_checks`)."""
        return self._held

    def estimate_is_cheap(self, workload: Workload) -> bool:
        """Whether :meth:`workload` can answer without building the compute fabric
        (half a second on a 100,000-GPU design): what the status strip asks until the
        first check is done, so the window is drawn, and then answers input, while the
        fabric is built in steps with the check."""
        if workload.kind != "training" or plane_ready(self.design):
            return True
        index = self.design.index
        key = self._fabric_key
        return (
            self._fabric is not None
            and key is not None
            and key[0] is index
            and key[1] == index.fabric_version
        )

    def _check_now(self) -> None:
        self._check_scheduled = False
        if self._checker is not None or self._slicing is not None:
            return
        if self._held or self._document.links_pending:  # links: see Document.links_read
            self._owed = True
            return
        if self._importing is None and not all(m in sys.modules for m in CHECK_MODULES):
            self._importing = import_steps()
        if self._importing is not None:
            self._next_slice.start()  # the check starts once they are loaded
            return
        self._start_check()
        self._check_slice()

    def _start_check(self) -> None:
        from workbench.rules.context import RuleContext
        from workbench.rules.engine import Checker

        context = RuleContext(
            self.design,
            summary=lambda: self.summary,
            load=lambda rack: self.rack_load(rack.id),
            evaluate=lambda workload: self.workload(workload.id),
        )
        checker = Checker(self.design, context, check_now=False)
        steps = checker.recheck_in_steps(self.STEP_OBJECTS)
        steps = chain(
            self._load_steps(),
            self._summary_steps(),
            self._plane_steps(),
            steps,
        )
        self._slicing = (checker, steps)
        self._shown_percent, self._shown_at = -1, -math.inf
        self.computed["check"] += 1

    def _load_steps(self) -> Iterator[float]:
        """Every rack's load read in steps before the rules (nothing done yet, as
        progress), unless read already: RACK-POWER and the rack budget rules read them
        all, and the first read computed them in one go (~50 ms at 100,000 GPUs after
        File > Open, where no view had read them yet).  An edit meanwhile drops what
        the steps read (the next reader computes them at once, as ever)."""
        if self._loads is not None:
            return
        racks = list(self.design.iter_racks())
        edits = self._edits
        loads: dict[str, RackLoad] = {}
        for start in range(0, len(racks), self.STEP_RACKS):
            yield 0.0
            for rack in racks[start : start + self.STEP_RACKS]:
                loads[rack.id] = safe_rack_load(self.design, rack, self._load_cache)
        if self._loads is None and self._edits == edits:
            self._loads = loads
            self.computed["rack_loads"] += 1
            self._stale_racks.clear()
            self._reorder = False
            self._loads_version += 1

    def _summary_steps(self) -> Iterator[float]:
        """The summary read in steps before the rules (nothing done yet, as progress):
        the device counts and the racks' draws (the PUE), unless read already.  Why:
        the first rule to read it (a storage rule) computed both in one step of
        ~30 ms at 100,000 GPUs."""
        if self._summary is not None:
            return
        if self._counts is None:
            yield from self._count_in_steps(self.STEP_RACKS)
        try:
            for _step in calc_summary.design_pue_in_steps(self.design, self.STEP_RACKS):
                yield 0.0
        except Exception:  # noqa: BLE001 - odd figures: the summary below copes with them
            pass
        yield 0.0
        self.summary  # noqa: B018 - from the counts and the kept draws, at once

    def _plane_steps(self) -> Iterator[float]:
        """The compute plane built in steps before the rules run (nothing done yet, as
        progress): the training estimate and the workload rules read it, and built in
        one go it blocked input for half a second right after a 100,000-GPU design's
        first frame.  What it builds is kept by the design's index, where they find it."""
        from workbench.calc.design_hardware import compute_plane_in_steps

        for _step in compute_plane_in_steps(self.design, self.STEP_LINKS):
            yield 0.0

    def _warm_steps(self) -> Iterator[float]:
        """What the first edit after opening a design would otherwise build in one go,
        built in slices once the first check is done (:attr:`settled` then): the link
        tables (the inspector's port counts of the first node clicked), where each link
        stands in the design's list and the planes' replay state (the first removal of
        a cabled node), the device and host name counts and the next device id (the
        first drop, the first removal): 0.5-1 s at 100,000 GPUs in one block.  Each is
        kept only if the design did not move under it (an edit before they are done
        builds what it needs, as before).  After the check, not before its rules: the
        findings and the estimate came ~0.9 s (CPU) later while these ran first."""
        from workbench.calc.fabric.plane_edits import kept_in_steps

        index, edits = self.design.index, self._edits

        def unmoved() -> bool:
            return self._edits == edits

        for _step in chain(
            index.link_tables_in_steps(self.STEP_WARM),
            index.link_positions_in_steps(self.STEP_WARM * 2),
            index.names_in_steps(self.STEP_WARM // 4, unmoved),  # ~4 us a name
            index.first_number_in_steps("device", self.STEP_WARM * 2, unmoved),
            kept_in_steps(self.design, self.STEP_WARM * 2),
        ):
            yield 0.0

    def _check_slice(self) -> None:
        """Check for :attr:`SLICE_MS`, then yield to the event loop (or finish).

        The next slice is a zero-interval timer, not a posted call
        (``QTimer.singleShot(0, …)``): the event loop sends posted events before it
        reads input and timers, so a key press that came during one slice waited for
        the next one too (two slices, 20-40 ms at 100,000 GPUs); a zero timer runs once
        what is waiting has been handled."""
        deadline = time.perf_counter() + self.SLICE_MS / 1000.0
        if self._importing is not None:
            for waiting in self._importing:
                if waiting:  # loading on its thread: look again later
                    self._import_poll.start()
                    return
                if time.perf_counter() >= deadline:
                    self._next_slice.start()
                    return
            self._importing = None
            if self._checker is None and self._slicing is None and not self._held:
                self._start_check()  # the modules are in: the check's first slice next
                self._next_slice.start()
                return
        slicing = self._slicing
        if slicing is None:  # checked (or dropped with its design): the warm-up's turn
            warming = self._warming
            if warming is None:
                return
            for _step in warming:
                if time.perf_counter() >= deadline:
                    self._next_slice.start()
                    return
            self._warming = None
            self.warmed.emit()
            return
        fraction = 0.0
        for fraction in slicing[1]:
            if (now := time.perf_counter()) >= deadline:
                percent = int(fraction * 100)
                # The strip repaints on news only, and at most every PROGRESS_S: a
                # repaint per percent was ~2 ms each, ~0.2 s of a 100,000-GPU check.
                if percent > self._shown_percent and now >= self._shown_at + self.PROGRESS_S:
                    self._shown_percent, self._shown_at = percent, now
                    self.checkProgress.emit(percent)
                self._next_slice.start()
                return
        self._finish_check()

    def _finish_check(self, announce_later: bool = False) -> None:
        """The slices are done: the checker is current (edits made meanwhile applied).
        ``announce_later``: a reader forced the end of the check, so the views hear of
        it after that reader is done, not from inside it."""
        assert self._slicing is not None
        self._checker = self._slicing[0]
        self._slicing = None
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._checker.update(pending)
        self._warming = self._warm_steps()
        self._next_slice.start()
        if announce_later:
            QTimer.singleShot(0, self._announce)
        else:
            self._announce()

    def _announce(self) -> None:
        if self._checker is not None:
            self.checkProgress.emit(100)
            self.findingsReady.emit()

    def findings(self) -> list[Finding]:
        return self.checker.findings()

    def waived(self) -> set[tuple[str, str]]:
        """(rule, object) of every waiver, to tell waived findings apart."""
        from workbench.rules.full_check import waived_keys

        return waived_keys(self.design)

    def rack_mark(self, rack_id: str) -> Severity | None:
        """The worst unwaived finding about a rack or anything in it (what the rack
        drawing marks), or None when it has none (or the design is not checked yet)."""
        return self.rack_marks().get(rack_id)

    def rack_marks(self) -> Mapping[str, Severity]:
        """:meth:`rack_mark` of every marked rack, by rack id (none before the first
        check): what a view redraws when the first check is done, read in one go
        rather than asked rack by rack (~10 ms for 3,500 racks at 100,000 GPUs)."""
        if self._checker is None:
            self.check_soon()
            return {}
        return MappingProxyType(self._current_marks()[0])

    def object_mark(self, object_id: str) -> Severity | None:
        """The worst unwaived finding naming ``object_id`` itself (a device the drawing
        outlines), or None."""
        if self._checker is None:
            return None
        return self._current_marks()[1].get(object_id)

    def _current_marks(self) -> tuple[dict[str, Severity], dict[str, Severity]]:
        """(rack id → worst severity, object id → worst severity), kept per findings
        version (:func:`~workbench.rules.marks.worst_marks`)."""
        checker = self.checker
        fresh = self._marks_version == checker.version and not self._waivers_moved
        if self._marks is not None and fresh:
            return self._marks
        from workbench.rules.marks import worst_marks

        self._marks = worst_marks(checker, self.waived(), self.design.index)
        self._marks_version, self._waivers_moved = checker.version, False
        return self._marks

    def find_rack(self, rack_id: str) -> Rack | None:
        """``Design.find_rack`` (through the model's id index)."""
        return self.design.find_rack(rack_id)

    def find_device(self, device_id: str) -> tuple[Rack, Device] | None:
        """``Design.find_device`` (through the model's id index)."""
        return self.design.find_device(device_id)

    # -- invalidation --------------------------------------------------------------
    def invalidate(self) -> None:
        """Forget everything: the next read recomputes from the model (also what a newly
        loaded design needs)."""
        self._reset()

    def on_changed(self, change: Change) -> None:
        """Bring forward what ``change`` can have moved (see the module docstring)."""
        self._edits += 1
        if change.everything:
            self.invalidate()
            return
        if self._checker is not None or self._slicing is not None:
            self._pending = change if self._pending is None else self._pending | change
        if self._slicing is not None:
            # What was checked already is re-checked from the pending change when the
            # slices are done; the rule under way starts its pass again.
            self._slicing[0].edited(change)
        if change.waivers:
            self._waivers_moved = True
        for workload_id in change.workloads:
            self._results.pop(workload_id, None)
            self._results_before = None
        if change.design:
            self._summary = None  # the PUE (say) moved; counts and loads did not
            self._forget_results()
        if change.links or change.networks or change.types:
            # The compute fabric (and so every training prediction) may have moved.
            self._fabric = None
            self._forget_results()
        if change.types:
            for slug in change.types:
                self._load_cache.per_type.pop(slug, None)
                self._load_cache.rack_types.pop(slug, None)
            self._summary = None
            self._forget_results()
        racks = set(change.racks)
        index = self.design.index
        for device_id in change.devices:
            rack = index.rack_of(device_id)
            if rack is not None:
                racks.add(rack.id)
        if racks and self._counts is not None:
            self._recount(racks)
        if (
            change.racks
            and self._summary is not None
            and calc_summary.design_pue(self.design) != self._summary.pue
        ):
            # A rack's cooling type moves the PUE derived from cooling (a few ms at
            # 100,000 GPUs); a rename or a limit does not, and keeps the summary.
            self._summary = None
        if self._loads is not None:
            self._stale_racks.update(racks)
            self._reorder = self._reorder or change.layout

    # -- helpers -------------------------------------------------------------------
    def _count_all(self) -> None:
        for _step in self._count_in_steps(None):
            pass

    def _count_in_steps(self, chunk: int | None) -> Iterator[float]:
        """Every rack's device types counted, ``chunk`` racks per step (None: in one),
        kept unless an edit came meanwhile (the next reader then counts in one go)."""
        edits = self._edits
        racks = list(self.design.iter_racks())
        rack_types: dict[str, tuple[str, ...]] = {}
        counts: Counter[str] = Counter()
        for run in chunks(racks, chunk):
            if chunk:
                yield 0.0
            for rack in run:
                types = rack_types[rack.id] = _device_types(rack)
                counts.update(types)
        if self._counts is None and self._edits == edits:
            self._rack_types, self._counts = rack_types, counts
            self._results_totals = self._gpu_totals()
            self.computed["counts"] += 1

    def _recount(self, rack_ids: set[str]) -> None:
        """Update the per-type counts from the named racks; drop the summary if they moved."""
        assert self._counts is not None
        index = self.design.index
        #: Net change of the totals per type: a device moved between two of the racks
        #: leaves its type's total (and so the summary and every estimate) as it was.
        net: Counter[str] = Counter()
        racks_before = len(self._rack_types)
        for rack_id in rack_ids:
            old = self._rack_types.pop(rack_id, None)
            placed = index.racks.get(rack_id)
            new = _device_types(placed[1]) if placed is not None else None
            if new is not None:
                self._rack_types[rack_id] = new
            if old == new:
                continue
            if old:
                net.subtract(old)
            if new:
                net.update(new)
        moved = {slug for slug, n in net.items() if n}
        self._counts.update({slug: net[slug] for slug in moved})
        if len(self._rack_types) != racks_before:
            self._summary = None  # the summary counts racks too
        if moved:
            self._summary = None
            # A workload reads the GPUs and GPU servers of the summary, not its watts:
            # a switch dropped into a rack leaves every estimate as it was.
            types = self.design.device_types
            if any((item := types.get(slug)) is None or item.gpu_count for slug in moved):
                self._results_for(self._gpu_totals())

    def _gpu_totals(self) -> tuple[tuple[str, int], ...]:
        """How many devices of each GPU-bearing type (or unknown type) the design has:
        what the workload results read of the counts."""
        assert self._counts is not None
        types = self.design.device_types
        return tuple(
            sorted(
                (slug, n)
                for slug, n in self._counts.items()
                if n and ((item := types.get(slug)) is None or item.gpu_count)
            )
        )

    def _results_for(self, totals: tuple[tuple[str, int], ...]) -> None:
        """The GPU totals are now ``totals``: keep the results so far for an undo, and
        take back those kept when they were for ``totals`` (an undo or a redo)."""
        kept = self._results_before
        self._results_before = (
            (self._results_totals, self._results)
            if self._results_totals is not None and self._results
            else None
        )
        self._results = kept[1] if kept is not None and kept[0] == totals else {}
        self._results_totals = totals

    def _forget_results(self) -> None:
        """Something the workload results read other than the GPU totals moved: every
        result goes, the ones kept for an undo too."""
        self._results.clear()
        self._results_before = None

    def _refresh_stale_loads(self) -> None:
        assert self._loads is not None
        index = self.design.index
        changed = False
        for rack_id in self._stale_racks:
            placed = index.racks.get(rack_id)
            if placed is None:
                changed = self._loads.pop(rack_id, None) is not None or changed
                continue
            load = safe_rack_load(self.design, placed[1], self._load_cache)
            self.computed["rack_load"] += 1
            changed = changed or load != self._loads.get(rack_id)
            self._loads[rack_id] = load
        self._stale_racks.clear()
        if self._reorder:
            old = self._loads
            self._loads = {
                rack.id: old.get(rack.id) or safe_rack_load(self.design, rack, self._load_cache)
                for rack in self.design.iter_racks()
            }
            changed = changed or list(old) != list(self._loads)
            self._reorder = False
        if changed:
            self._loads_version += 1
