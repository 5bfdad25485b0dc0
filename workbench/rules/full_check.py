"""Running rules over every object of their scope: the full check, in one go or in
steps, and the counts of what it found.

A rule that raises on odd data becomes one internal-error finding naming the rule and
the object (:func:`run_rule`); it never hides the other findings.  The steps
(:func:`run_in_steps`) let a window answer input during the first check of a
100,000-GPU design; :class:`workbench.rules.engine.Checker` drives them and keeps the
findings current after edits.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from workbench.model import Design, Device, Rack, Workload
from workbench.progress import Progress
from workbench.rules.context import RuleContext
from workbench.rules.registry import INTERNAL_ERROR, Finding, Rule, Severity, all_rules


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


def run_everywhere(ctx: RuleContext, rule: Rule) -> dict[str, list[Finding]]:
    """Object id → findings of ``rule`` on every object of its scope (non-empty only)."""
    table: dict[str, list[Finding]] = {}
    for _done in run_in_steps(ctx, rule, table, 0):
        pass
    return table


#: A rack rule reads each of a rack's devices (RACK-POWER ~30-40 us a rack at 100,000
#: GPUs, 10-20 times a device rule's object), so its steps take this many times fewer
#: objects than ``chunk``: 250 racks were a step of 7-11 ms of the window's first check.
RACK_SHARE = 8


def run_in_steps(
    ctx: RuleContext, rule: Rule, table: dict[str, list[Finding]], chunk: int
) -> Iterator[int]:
    """Fill ``table`` as :func:`run_everywhere` does, yielding how many objects were
    checked after every ``chunk`` of them (a rack rule: every ``chunk`` /
    :data:`RACK_SHARE`; never, for a ``chunk`` of 0)."""
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
    if chunk and rule.scope == "rack":
        chunk = max(1, chunk // RACK_SHARE)
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
    design: Design,
    ctx: RuleContext | None = None,
    rules: Iterable[Rule] | None = None,
    progress: Progress | None = None,
) -> list[Finding]:
    """Every finding of every rule on ``design``, in rule order.

    ``progress(fraction, "rule N of M: ID")`` is told before each rule, the fraction
    the share of the rules done.  Rules, not objects: what a rule costs is not its
    object count (at 1,000,000 GPUs FABRIC-PORT reads every link in 6 s, a rack rule
    35,000 racks in well under one), so the label names the rule the check is in."""
    ctx = ctx or RuleContext(design)
    chosen = list(rules if rules is not None else all_rules().values())
    found: list[Finding] = []
    for n, registered in enumerate(chosen):
        if progress is not None:
            progress(n / len(chosen), f"rule {n + 1} of {len(chosen)}: {registered.id}")
        for findings in run_everywhere(ctx, registered).values():
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
