"""The rules engine: registered rules, their findings, and incremental re-checking.

A rule is a small function registered with :func:`rule`: an id (``RACK-POWER``), a
severity, the *scope* it is called for (each rack, each device, each workload, or the
design once), the kinds of object whose change can move its verdict (``looks_at``) and
the source of the rule (a planning document, a datasheet, a paper).  It yields
:class:`Finding` values whose messages carry the numbers.

:class:`Checker` keeps the findings of one design and, after an edit, re-runs only the
rules that look at what the :class:`~workbench.model.change.Change` names, for only the
objects concerned: moving one server re-checks its two racks, not 3,500.  A rule of the
whole design may say more precisely what it depends on (``depends``: the storage rules
read only storage appliances, GPU nodes, tiers and links, so a switch dropped into a rack
does not re-read the storage plane), and a rename or a new serial (``Change.labels``)
re-runs a design-wide rule only when one of its findings names the object, since no
verdict depends on a name, only the words of the finding.  A rule that
raises on odd data becomes one internal-error finding naming the rule and the object;
it never hides the other findings.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from workbench.calc.design_hardware import FabricFigures, fabric_figures
from workbench.calc.summary import DesignSummary, LoadCache, RackLoad, rack_load, summarize
from workbench.calc.workload import WorkloadResult, evaluate_workload
from workbench.model import Change, Design, Device, Rack, Workload
from workbench.model.index import DesignIndex

#: What a rule can be called for.
SCOPES: tuple[str, ...] = ("rack", "device", "workload", "design")

#: What a rule can look at (a change to one of these re-runs it).
KINDS: frozenset[str] = frozenset(
    {"rack", "device", "workload", "tier", "design", "link", "network", "versions"}
)

#: Id of the findings that report a rule which raised.
INTERNAL_ERROR = "INTERNAL-ERROR"

#: How often an edit may restart one rule's pass in :meth:`Checker.recheck_in_steps`
#: before the pass runs to its end in one step.
RESTARTS_IN_STEPS = 3


class Severity(enum.IntEnum):
    """How bad a finding is; ordered, so ``severity >= Severity.WARNING`` filters."""

    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        """``"error"``, ``"warning"`` or ``"info"`` (any case) as a Severity."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(
                f"unknown severity {text!r}; use one of {', '.join(s.label for s in cls)}"
            ) from None


@dataclass(frozen=True)
class Finding:
    """One thing a rule found: ``objects[0]`` is what it is about (what a double-click
    selects, what a waiver names); the others are involved (the second of two
    overlapping devices)."""

    rule: str
    severity: Severity
    message: str
    objects: tuple[str, ...]

    @property
    def object_id(self) -> str:
        return self.objects[0] if self.objects else ""

    @property
    def key(self) -> tuple[str, str]:
        """(rule, object): what a waiver names."""
        return self.rule, self.object_id


#: A rule's suspects in steps: yields between steps, returns what ``suspects`` returns.
SuspectSteps = Callable[["RuleContext"], Generator[None, None, AbstractSet[str] | None]]


@dataclass(frozen=True)
class Rule:
    """A registered rule (see the module docstring)."""

    id: str
    title: str
    severity: Severity
    scope: str
    looks_at: frozenset[str]
    source: str
    check: Callable[..., Iterable[Finding]]
    #: A device rule whose verdict depends only on the device's catalog type: a full
    #: check asks it once per type and skips the other devices of a type that passes.
    per_type: bool = False
    #: For a design or workload rule: whether a change of the kinds it looks at can
    #: move its verdict on the whole design (None: every such change can); a workload
    #: rule still re-runs on the workloads a change names.
    depends: Callable[[Design, Change], bool] | None = None
    #: For a full check of a rack or device rule: the ids of the only objects that can
    #: have findings, worked out for the whole design at once (None: it cannot say, so
    #: every object is asked).  The rule itself still writes every finding; this only
    #: spares asking it about 30,000 devices one by one when a few numpy passes over the
    #: links show that all but a handful are clean.
    suspects: Callable[[RuleContext], AbstractSet[str] | None] | None = None
    #: For a rack or device rule whose verdict also reads one design-wide fact (is
    #: there a compute fabric at all?): whether a change can move that fact, so the
    #: rule re-runs on every object; otherwise only on the objects the change names.
    everywhere: Callable[[Design, Change], bool] | None = None
    #: For a device rule whose verdict on one device reads others (GPU servers whose
    #: names map to one host name): the other devices whose verdicts the given ones
    #: can move.  After an edit those are re-checked too, and so is every device whose
    #: findings of the rule name a device the edit touched or removed.
    related: Callable[[RuleContext, AbstractSet[str]], AbstractSet[str]] | None = None
    #: :attr:`suspects` in steps (a generator whose return value is the answer), for a
    #: full check run between a window's events: one step of it then blocks input,
    #: not the whole pass.  Must give what :attr:`suspects` gives.
    suspects_in_steps: SuspectSteps | None = None
    #: For a full check run between a window's events: work the rule's first object
    #: would do in one go (figures it reads and something keeps: the storage plane's
    #: clients, say), done ahead in steps, so the rule then finds it kept and no one
    #: step blocks input for all of it.  Changes no finding; what it raises is left
    #: for the rule to meet (and report).
    warm_in_steps: Callable[[RuleContext], Iterator[None]] | None = None
    #: For a design rule: a removal can only end findings, and only those that name
    #: what went (two devices that shared a name: one went).  After a removal its
    #: :attr:`depends` leaves the removed objects out, and it re-runs when one of its
    #: findings names one of them, so removing one node of 30,000 does not walk them all.
    ended_by_removal: bool = False
    #: The most severe finding the rule can give, where some are above its own
    #: :attr:`severity` (a wrong tier id is an error of a warning rule); None: its own.
    #: :meth:`finding` refuses one above it, so a reader can skip the rule when only
    #: worse findings matter (a template choosing its job asks only about errors).
    worst: Severity | None = None
    #: For a device rule whose verdict on a device reads only the device, its catalog
    #: item and its own links (with their far ends): the findings of a device that had
    #: none, after a change that only took links away from it or brought links to it,
    #: from the links it brought (given): taking links away cannot make a finding (a
    #: port used less is not taken twice, a link gone is no bad link), and a new link
    #: can only be wrong itself or share a port.  A removed node's far ends (eight leaf
    #: switches of 289 links each at 100,000 GPUs) are then not re-read whole after the
    #: removal or its undo.  None: the rule runs on the device again.
    relinked: Callable[[RuleContext, Rule, Any, AbstractSet[str]], Iterable[Finding]] | None = None
    #: For a device rule whose finding filed under one device quotes another device it
    #: names (its name, what its catalog item says): FABRIC-PORT files a link's problem
    #: under the link's ``a`` end.  A rename or new catalog item of the other device then
    #: re-checks the devices whose findings name it - only those, so renaming a leaf
    #: switch does not re-read the hundreds of devices cabled to it.  A new catalog item
    #: also asks the ``a`` ends of its devices' links (those without a finding: about
    #: those links alone, by :attr:`relinked`), where a link may have gone wrong.
    quotes_others: bool = False
    #: For a design rule whose findings quote the racks of the devices they name
    #: (NAME-DUPLICATE: "“gpu-1” in rack “A01”"): a rename of such a rack or a move of
    #: such a device re-runs it, as no other change it looks at would.
    quotes_racks: bool = False
    #: For a design rule whose findings quote the names of objects they do not name
    #: (STORAGE-HOT-FLASH lists a hot tier's spinning appliances under the tier, so a
    #: waiver of the tier holds): whether renaming the given objects can change its
    #: words.  A rename re-runs it then, as when a finding names one of them.
    renames: Callable[[Design, AbstractSet[str]], bool] | None = None

    @property
    def most_severe(self) -> Severity:
        """The most severe finding the rule can give (:attr:`worst`)."""
        return self.severity if self.worst is None else self.worst

    def finding(self, message: str, *objects: str, severity: Severity | None = None) -> Finding:
        """A finding of this rule (at its own severity unless told otherwise)."""
        if severity is None:
            severity = self.severity
        elif severity > self.most_severe:
            raise ValueError(
                f"rule {self.id} gives a finding of severity {severity.name}, above its "
                f"worst, {self.most_severe.name}: declare it (worst=)"
            )
        return Finding(self.id, severity, message, objects)


#: Every rule, by id, in registration order.
REGISTRY: dict[str, Rule] = {}


def rule(
    rule_id: str,
    *,
    title: str,
    severity: Severity,
    scope: str,
    looks_at: Iterable[str],
    source: str,
    per_type: bool = False,
    depends: Callable[[Design, Change], bool] | None = None,
    suspects: Callable[[RuleContext], AbstractSet[str] | None] | None = None,
    everywhere: Callable[[Design, Change], bool] | None = None,
    related: Callable[[RuleContext, AbstractSet[str]], AbstractSet[str]] | None = None,
    suspects_in_steps: SuspectSteps | None = None,
    warm_in_steps: Callable[[RuleContext], Iterator[None]] | None = None,
    ended_by_removal: bool = False,
    worst: Severity | None = None,
    relinked: Callable[[RuleContext, Rule, Any, AbstractSet[str]], Iterable[Finding]] | None = None,
    quotes_others: bool = False,
    quotes_racks: bool = False,
    renames: Callable[[Design, AbstractSet[str]], bool] | None = None,
) -> Callable[[Callable[..., Iterable[Finding]]], Rule]:
    """Register the decorated function as a rule.

    The function is called as ``check(ctx, rule, obj)`` with ``obj`` the rack, the
    device, the workload or the design (by ``scope``) and yields findings.
    """
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")
    kinds = frozenset(looks_at)
    if not kinds <= KINDS:
        raise ValueError(f"unknown kinds {sorted(kinds - KINDS)}")

    def register(check: Callable[..., Iterable[Finding]]) -> Rule:
        if rule_id in REGISTRY:
            raise ValueError(f"rule {rule_id} is registered twice")
        made = Rule(
            rule_id,
            title,
            severity,
            scope,
            kinds,
            source,
            check,
            per_type,
            depends,
            suspects,
            everywhere,
            related,
            suspects_in_steps,
            warm_in_steps,
            ended_by_removal,
            worst,
            relinked,
            quotes_others,
            quotes_racks,
            renames,
        )
        REGISTRY[rule_id] = made
        return made

    return register


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

    @property
    def fabric(self) -> FabricFigures:
        """The compute plane as the step-time model reads it (computed once, unless the
        caller keeps it: the window's live figures)."""
        if self._fabric_source is not None:
            return self._fabric_source()
        if self._fabric is None:
            self._fabric = fabric_figures(self.design)
        return self._fabric

    def evaluate(self, workload: Workload) -> WorkloadResult:
        """The workload's estimate (computed once per check for all workload rules)."""
        if self._evaluate_source is not None:
            return self._evaluate_source(workload)
        cached = self._results.get(workload.id)
        if cached is not None and cached[0] is workload:
            return cached[1]
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


def _targets(design: Design, scope: str) -> Iterator[tuple[str, Any]]:
    """(object id, object) for every object a rule of ``scope`` is called for."""
    if scope == "rack":
        for rack in design.iter_racks():
            yield rack.id, rack
    elif scope == "device":
        for _rack, device in design.iter_devices():
            yield device.id, device
    elif scope == "workload":
        for workload in design.workloads:
            yield workload.id, workload
    else:
        yield "", design


def _name(obj: Any) -> str:
    if isinstance(obj, (Rack, Device, Workload)):
        return f"{type(obj).__name__.lower()} {obj.name!r}"
    return "the design"


def run_rule(
    ctx: RuleContext,
    rule: Rule,
    obj: Any,
    object_id: str,
    brought: AbstractSet[str] | None = None,
) -> list[Finding]:
    """The findings of ``rule`` on ``obj`` (with ``brought``: those the links brought
    to a device that had none, :attr:`Rule.relinked`); a rule that raises yields one
    internal error."""
    try:
        if brought is not None and rule.relinked is not None:
            return list(rule.relinked(ctx, rule, obj, brought))
        return list(rule.check(ctx, rule, obj))
    except Exception as exc:  # noqa: BLE001 - a broken rule must not hide the others
        message = (
            f"Rule {rule.id} could not check {_name(obj)}: {type(exc).__name__}: {exc}. "
            "The other checks still ran; please report this."
        )
        return [Finding(INTERNAL_ERROR, Severity.ERROR, message, (object_id or "design",))]


def _run_everywhere(ctx: RuleContext, rule: Rule) -> dict[str, list[Finding]]:
    """Object id → findings of ``rule`` on every object of its scope (non-empty only)."""
    table: dict[str, list[Finding]] = {}
    for _done in _run_in_steps(ctx, rule, table, 0):
        pass
    return table


def _run_in_steps(
    ctx: RuleContext, rule: Rule, table: dict[str, list[Finding]], chunk: int
) -> Iterator[int]:
    """Fill ``table`` as :func:`_run_everywhere` does, yielding how many objects were
    checked after every ``chunk`` of them (never, for a ``chunk`` of 0)."""
    quiet_types: set[str] = set()
    if chunk and rule.warm_in_steps is not None:
        yield from _warmed(ctx, rule.warm_in_steps)
    if chunk and rule.suspects_in_steps is not None:
        steps = _suspects_in_steps(ctx, rule)
        while True:
            try:
                next(steps)
            except StopIteration as finished:
                only = finished.value
                break
            yield 0
    else:
        only = _suspects(ctx, rule)
    done = 0
    for object_id, obj in _targets(ctx.design, rule.scope):
        done += 1
        if chunk and done % chunk == 0:
            yield done
        if only is not None and object_id not in only:
            continue
        if rule.per_type and obj.device_type in quiet_types:
            continue
        found = run_rule(ctx, rule, obj, object_id)
        if found:
            table[object_id] = found
        elif rule.per_type:
            quiet_types.add(obj.device_type)


def _warmed(ctx: RuleContext, warm: Callable[[RuleContext], Iterator[None]]) -> Iterator[int]:
    """Run a rule's :attr:`Rule.warm_in_steps`, yielding 0 (no object checked yet)
    between its steps; a warm-up that raises stops there (the rule meets the oddity)."""
    try:
        for _step in warm(ctx):
            yield 0
    except Exception:  # noqa: BLE001 - a warm-up only saves time
        return


def _suspects(ctx: RuleContext, rule: Rule) -> AbstractSet[str] | None:
    """The rule's :attr:`Rule.suspects` for a full check; None (ask every object) when it
    has none or it raised on odd data (the rule then finds, or reports, the oddity)."""
    if rule.suspects is None:
        return None
    try:
        return rule.suspects(ctx)
    except Exception:  # noqa: BLE001 - a broken shortcut only costs time
        return None


def _suspects_in_steps(
    ctx: RuleContext, rule: Rule
) -> Generator[None, None, AbstractSet[str] | None]:
    """:func:`_suspects` through :attr:`Rule.suspects_in_steps`, yielding between its
    steps (None, every object asked, when it raised)."""
    assert rule.suspects_in_steps is not None
    try:
        return (yield from rule.suspects_in_steps(ctx))
    except Exception:  # noqa: BLE001 - a broken shortcut only costs time
        return None


def scope_sizes(design: Design) -> dict[str, int]:
    """How many objects a rule of each scope is called for (a full check's work)."""
    index = design.index
    return {
        "rack": len(index.racks),
        "device": len(index.devices),
        "workload": len(design.workloads),
        "design": 1,
    }


def check_design(
    design: Design, ctx: RuleContext | None = None, rules: Iterable[Rule] | None = None
) -> list[Finding]:
    """Every finding of every rule on ``design``, in rule order."""
    ctx = ctx or RuleContext(design)
    found: list[Finding] = []
    for registered in rules if rules is not None else REGISTRY.values():
        for findings in _run_everywhere(ctx, registered).values():
            found.extend(findings)
    return found


def waived_keys(design: Design) -> set[tuple[str, str]]:
    """(rule, object id) of every waiver in ``design``."""
    return {(w.rule, w.object_id) for w in design.waivers}


@dataclass
class Counts:
    """How many findings of each severity are not waived, and how many are."""

    errors: int = 0
    warnings: int = 0
    infos: int = 0
    waived: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "errors": self.errors,
            "warnings": self.warnings,
            "info": self.infos,
            "waived": self.waived,
        }


def count(findings: Iterable[Finding], waived: set[tuple[str, str]]) -> Counts:
    counts = Counts()
    for finding in findings:
        if finding.key in waived:
            counts.waived += 1
        elif finding.severity is Severity.ERROR:
            counts.errors += 1
        elif finding.severity is Severity.WARNING:
            counts.warnings += 1
        else:
            counts.infos += 1
    return counts


@dataclass
class Checker:
    """The findings of one design, kept current edit by edit.

    ``update(change)`` re-runs what the change can have moved (see the module
    docstring); ``findings()`` returns them all in rule order, then object order.
    """

    design: Design
    ctx: RuleContext | None = None
    rules: Mapping[str, Rule] = field(default_factory=lambda: REGISTRY)
    #: rule id → object id → its findings (only non-empty entries are kept)
    _by_rule: dict[str, dict[str, list[Finding]]] = field(default_factory=dict)
    #: Bumped whenever any finding differs, or a device a finding names moved (the
    #: rack it marks changed), so views can skip redrawing.
    version: int = 0
    #: False: the caller runs the first full check itself, in steps
    #: (:meth:`recheck_in_steps`), and reads nothing before it is done.
    check_now: bool = True
    #: Edits made while :meth:`recheck_in_steps` runs (see :meth:`edited`).
    _edits: int = 0

    def __post_init__(self) -> None:
        if self.ctx is None:
            self.ctx = RuleContext(self.design)
        if self.check_now:
            self.recheck_all()

    def recheck_in_steps(self, chunk: int = 2000) -> Iterator[float]:
        """:meth:`recheck_all` in steps of about ``chunk`` objects, yielding the fraction
        done after each, so a window can keep answering input during the first check of
        a 100,000-GPU design and show its progress.

        The design may be edited between steps; the caller says so with :meth:`edited`
        and applies the edits' change with :meth:`update` once the steps are done.  The
        rules already finished are then brought forward as after any edit; the rule in
        progress cannot be (its pass may have read half the links before the edit and
        half after), so it starts again on the edited design.  After
        :data:`RESTARTS_IN_STEPS` such restarts it runs to its end in one step, so a
        stream of edits cannot keep the check from ending."""
        assert self.ctx is not None
        self.ctx.forget(types=True)
        self._by_rule = {}
        sizes = scope_sizes(self.design)
        total = max(1, sum(sizes[r.scope] for r in self.rules.values()))
        before = 0
        for registered in self.rules.values():
            restarts = 0
            while True:
                table: dict[str, list[Finding]] = {}
                self._by_rule[registered.id] = table
                edits = self._edits
                step = chunk if restarts < RESTARTS_IN_STEPS else 0
                for done in _run_in_steps(self.ctx, registered, table, step):
                    yield min(1.0, (before + done) / total)
                    if self._edits != edits:
                        break  # edited meanwhile: this rule's pass starts again
                else:
                    break
                restarts += 1
            before += sizes[registered.scope]
            yield min(1.0, before / total)
        self.version += 1

    def edited(self, change: Change) -> None:
        """Say the design was edited (by ``change``) while :meth:`recheck_in_steps`
        runs: the steps still to come must not read figures the edit moved, and the
        rule under way starts again (see there).  ``change`` itself is applied with
        :meth:`update` once the steps are done."""
        assert self.ctx is not None
        self.ctx.forget(types=change.design or bool(change.types))
        self._edits += 1

    def recheck_all(self) -> None:
        """Run every rule on every object (a new design, or a change of unknown extent)."""
        assert self.ctx is not None
        self.ctx.forget(types=True)
        self._by_rule = {}
        for registered in self.rules.values():
            self._by_rule[registered.id] = _run_everywhere(self.ctx, registered)
        self.version += 1

    def findings(self) -> list[Finding]:
        return [f for table in self._by_rule.values() for found in table.values() for f in found]

    def filed(self) -> Iterator[tuple[Rule, str, list[Finding]]]:
        """(rule, the object its findings are filed under, the findings): a rack rule
        files under the rack, a device rule under the device, a workload rule under the
        workload, a design rule under ``""``."""
        for rule_id, table in self._by_rule.items():
            registered = self.rules[rule_id]
            for object_id, found in table.items():
                yield registered, object_id, found

    def findings_of(self, object_id: str) -> list[Finding]:
        """Findings whose objects include ``object_id``."""
        return [f for f in self.findings() if object_id in f.objects]

    def update(self, change: Change) -> bool:
        """Re-check what ``change`` touched; True when any finding differs."""
        assert self.ctx is not None
        if change.everything:
            before = self.findings()
            self.recheck_all()
            return before != self.findings()
        if change.labels and not change.beyond_labels and not change.structural:
            return self._relabel(change)
        touched_kinds = _kinds_touched(change)
        self.ctx.forget(
            types=change.design or bool(change.types),
            only_workloads=touched_kinds == {"workload"} and not change.types,
        )
        self.ctx.forget_names()
        index = self.design.index
        racks = set(change.racks)
        for device_id in change.devices:
            rack = index.rack_of(device_id)
            if rack is not None:
                racks.add(rack.id)
        gone = change.removed
        differs = False
        far_ends: dict[str, set[str]] | None = None  # worked out once, when first needed
        for registered in self.rules.values():
            table = self._by_rule.setdefault(registered.id, {})
            if registered.everywhere is not None and registered.everywhere(self.design, change):
                differs |= self._rerun_all(registered, table)
                continue
            if registered.quotes_racks and _names_any(table, change.moved):
                differs |= self._rerun_all(registered, table)
                continue
            if not touched_kinds & registered.looks_at:
                continue
            # Whether the change reaches what a design-wide verdict depends on.
            wide = registered.depends is None or registered.depends(self.design, change)
            ended = registered.ended_by_removal and _names_any(table, gone)
            if registered.scope == "design" and not wide and not ended:
                continue
            if (
                registered.scope == "design"
                or (
                    registered.scope == "workload"
                    and wide
                    and touched_kinds & (registered.looks_at - {"workload"})
                )
                # A version-matrix edit names no object: its rules re-run everywhere.
                or ("versions" in touched_kinds and "versions" in registered.looks_at)
            ):
                differs |= self._rerun_all(registered, table)
                continue
            ids: AbstractSet[str]
            if registered.scope == "workload":
                ids = change.workloads
            elif registered.scope == "rack":
                ids = racks if {"rack", "device"} & registered.looks_at else set()
            else:
                device_ids = set(change.devices)
                if "rack" in registered.looks_at:
                    device_ids |= {
                        d.id for rid in racks if (r := index.racks.get(rid)) for d in r[1].devices
                    }
                ids = self._with_related(registered, table, device_ids, gone)
            # Devices without a finding that only lost or gained links: the links they
            # gained are read, not every link they have (see Rule.relinked).
            brought: dict[str, AbstractSet[str]] = {}
            if registered.relinked is not None:
                for object_id in ids:
                    if object_id not in table:
                        links = self._links_brought(object_id, change)
                        if links is not None:
                            brought[object_id] = links
            if change.types and registered.scope == "device" and registered.quotes_others:
                if far_ends is None:
                    far_ends = self._far_ends(change)
                ids = self._with_far_ends(registered, table, ids, far_ends, brought)
            for object_id in gone:
                if table.pop(object_id, None) is not None:
                    differs = True
            for object_id in ids:
                links = brought.get(object_id)
                if links is not None and not links:
                    continue  # only links went: it stays clean
                obj = self._object(registered.scope, object_id)
                old = table.pop(object_id, None)
                found = (
                    run_rule(self.ctx, registered, obj, object_id, links) if obj is not None else []
                )
                if found:
                    table[object_id] = found
                differs |= (old or []) != found
        if differs or self._names_moved(change):
            self.version += 1
        return differs

    def _names_moved(self, change: Change) -> bool:
        """Whether a finding names a device ``change`` moved: its words may stay the same
        (a port finding names no rack), but the rack it marks is now another, so the
        views that place findings (a rack's mark, the Checks list) must read them again
        (:attr:`version`).  One pass over the findings, only after a move."""
        moved = change.moved
        return bool(moved) and any(_names_any(table, moved) for table in self._by_rule.values())

    def _relabel(self, change: Change) -> bool:
        """A rename or new label of ``change.labels``: the rack and device rules re-run
        on those objects (their messages carry names, and the version rules find a node's
        reports by name); a rule of the design or the workloads re-runs only when one of
        its findings names one of them."""
        assert self.ctx is not None
        index = self.design.index
        labelled = change.labels
        differs = False
        forgotten = False
        self.ctx.forget_names()
        for registered in self.rules.values():
            table = self._by_rule.setdefault(registered.id, {})
            if registered.scope in ("rack", "device"):
                ids = {
                    i
                    for i in labelled
                    if (i in index.racks if registered.scope == "rack" else i in index.devices)
                }
                if registered.scope == "rack":
                    ids |= _racks_naming(table, index, labelled)
                if registered.scope == "device" and "rack" in registered.looks_at:
                    ids |= {
                        d.id for i in labelled if (r := index.racks.get(i)) for d in r[1].devices
                    }
                if registered.scope == "device":
                    ids = set(self._with_related(registered, table, ids, frozenset()))
                for object_id in ids:
                    obj = self._object(registered.scope, object_id)
                    old = table.pop(object_id, None)
                    found = run_rule(self.ctx, registered, obj, object_id) if obj else []
                    if found:
                        table[object_id] = found
                    differs |= (old or []) != found
                continue
            quoted = labelled
            if registered.quotes_racks:  # and the devices of a renamed rack
                quoted = labelled | {
                    d.id for i in labelled if (r := index.racks.get(i)) for d in r[1].devices
                }
            named = _names_any(table, quoted) or bool(
                table and registered.renames and registered.renames(self.design, labelled)
            )
            if named:
                if not forgotten:  # memoised figures may hold the old names
                    self.ctx.forget()
                    forgotten = True
                differs |= self._rerun_all(registered, table)
        if differs:
            self.version += 1
        return differs

    def _links_brought(self, device_id: str, change: Change) -> AbstractSet[str] | None:
        """The links ``change`` brought to the device, when it touched the device only
        by taking links away or bringing new ones (possibly none); None when it may
        have touched more: the device came, went or moved, a link it has now was edited
        (among the change's links, not added), its rack is named (an edit of the
        device's own fields, its type included, names its rack; a rename is a label,
        and a device without findings carries no name to update), or a catalog type
        changed (its item may have)."""
        if change.types or device_id in change.added or device_id in change.moved:
            return None
        index = self.design.index
        rack = index.rack_of(device_id)
        if rack is None or rack.id in change.racks:
            return None
        links = change.links.intersection(index.device_links.get(device_id, ()))
        return links if links <= change.added else None

    def _far_ends(self, change: Change) -> dict[str, set[str]]:
        """The other ends of the links of the devices whose catalog items ``change``
        replaced, added or removed (``change.types``), when those are the links' ``a``
        ends, each with those links: a rule that files a link's problem under its ``a``
        end (:attr:`Rule.quotes_others`) can find one there now, though that device's
        own item did not change.  Read from the devices' own links only."""
        index = self.design.index
        links = index.links
        out: dict[str, set[str]] = {}
        for device_id in change.devices:
            placed = index.devices.get(device_id)
            if placed is None or placed[1].device_type not in change.types:
                continue
            for link_id in index.device_links.get(device_id, ()):
                link = links[link_id]
                if link.b_device == device_id and link.a_device != device_id:
                    out.setdefault(link.a_device, set()).add(link_id)
        return out

    @staticmethod
    def _with_far_ends(
        registered: Rule,
        table: dict[str, list[Finding]],
        ids: AbstractSet[str],
        far_ends: Mapping[str, AbstractSet[str]],
        brought: dict[str, AbstractSet[str]],
    ) -> AbstractSet[str]:
        """``ids`` and the far ends of :meth:`_far_ends`; one not in ``ids`` that has no
        finding is asked only about its links to the replaced items' devices (noted in
        ``brought``, see :attr:`Rule.relinked`): its own ports and item did not change,
        so only those links can have become wrong."""
        if not far_ends:
            return ids
        out = set(ids)
        for device_id, links in far_ends.items():
            if device_id in out:
                continue
            out.add(device_id)
            if registered.relinked is not None and device_id not in table:
                brought[device_id] = links
        return out

    def _with_related(
        self,
        registered: Rule,
        table: dict[str, list[Finding]],
        ids: AbstractSet[str],
        gone: AbstractSet[str],
    ) -> AbstractSet[str]:
        """``ids`` and, for a rule with :attr:`Rule.related`, the devices whose verdicts
        they can move; for it and a rule that :attr:`Rule.quotes_others`, those whose
        findings name one of them or a removed one."""
        if registered.related is None and not registered.quotes_others:
            return ids
        assert self.ctx is not None
        touched = set(ids) | set(gone)
        out = set(ids)
        if registered.related is not None:
            out |= registered.related(self.ctx, ids)
        for object_id, found in table.items():
            if any(not touched.isdisjoint(f.objects) for f in found):
                out.add(object_id)
        return out

    def _rerun_all(self, registered: Rule, table: dict[str, list[Finding]]) -> bool:
        assert self.ctx is not None
        fresh = _run_everywhere(self.ctx, registered)
        differs = fresh != table
        self._by_rule[registered.id] = fresh
        return differs

    def _object(self, scope: str, object_id: str) -> Any:
        index = self.design.index
        if scope == "rack":
            placed = index.racks.get(object_id)
            return placed[1] if placed else None
        if scope == "device":
            found = index.devices.get(object_id)
            return found[1] if found else None
        return index.workloads.get(object_id)


def _racks_naming(
    table: dict[str, list[Finding]], index: DesignIndex, labelled: AbstractSet[str]
) -> set[str]:
    """The racks whose findings of a rack rule (``table``) name a device of ``labelled``
    in them: they quote its name (two devices overlapping), so its rename re-checks
    its rack, not every rack."""
    out = set()
    for object_id in labelled:
        rack = index.rack_of(object_id)
        if (
            rack is not None
            and rack.id != object_id
            and any(object_id in f.objects for f in table.get(rack.id, ()))
        ):
            out.add(rack.id)
    return out


def _names_any(table: dict[str, list[Finding]], ids: AbstractSet[str]) -> bool:
    """Whether a finding of ``table`` names one of ``ids``."""
    return bool(ids) and any(
        not ids.isdisjoint(f.objects) for found in table.values() for f in found
    )


def _kinds_touched(change: Change) -> set[str]:
    """The kinds of object ``change`` touched, as rules declare them in ``looks_at``.

    Devices that only moved (a drag in the rack view) touch their racks, not "device":
    no device-wide or design-wide verdict depends on where a device hangs, and the rack
    rules re-run for both racks.  That keeps a drag on a 100,000-GPU design from
    re-running the storage and fabric rules.
    """
    kinds = set()
    if change.racks:
        kinds.add("rack")
    moves_only = (
        change.devices
        and not (change.added or change.removed or change.layout or change.types)
        and change.devices <= change.moved
    )
    if (change.devices or change.racks) and not moves_only:
        kinds.add("device")
    if change.workloads:
        kinds.add("workload")
    if change.tiers:
        kinds.add("tier")
    if change.links:
        kinds.add("link")
    if change.networks:
        # A network's plane, speed or MTU changes what every link on it means.
        kinds.update(("network", "link"))
    if change.design:
        kinds.add("design")
    if change.versions:  # baselines, assignments or observations
        kinds.add("versions")
    return kinds
