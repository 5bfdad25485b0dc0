"""The rules' registry: what a rule is, what it finds, and the decorator that files it.

A rule is a small function registered with :func:`rule`: an id (``RACK-POWER``), a
severity, the *scope* it is called for (each rack, each device, each workload, or the
design once), the kinds of object whose change can move its verdict (``looks_at``) and
the source of the rule (a planning document, a datasheet, a paper).  It yields
:class:`Finding` values whose messages carry the numbers.  What runs the rules is in
:mod:`workbench.rules.full_check` (every object) and :mod:`workbench.rules.engine`
(after an edit, only what it touched).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Generator, Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from workbench.model import Change, Design
from workbench.rules.context import RuleContext

#: What a rule can be called for.
SCOPES: tuple[str, ...] = ("rack", "device", "workload", "design")

#: What a rule can look at (a change to one of these re-runs it).
KINDS: frozenset[str] = frozenset(
    {"rack", "device", "workload", "tier", "design", "link", "network", "versions"}
)

#: Id of the findings that report a rule which raised.
INTERNAL_ERROR = "INTERNAL-ERROR"


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


#: Every rule, by id, in registration order.  Filled as the rule modules are imported:
#: read it through :func:`all_rules` (or the package's ``REGISTRY``), which imports them.
REGISTRY: dict[str, Rule] = {}


def all_rules() -> dict[str, Rule]:
    """:data:`REGISTRY` with every shipped rule registered (the rule modules are imported
    on first use, not with the package: see :mod:`workbench.rules.every_rule`)."""
    from workbench.rules import every_rule  # noqa: F401 - register

    return REGISTRY


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
