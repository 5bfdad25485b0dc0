"""Design rule checks: each rule is registered once, with an id, a severity, what it looks
at and its source, and returns findings with the numbers in their messages.

Reading any of the names below from the package registers every rule first
(:mod:`workbench.rules.every_rule`); importing the package, or one of its modules, does
not (a window's first frame draws rack budgets and names findings' severities without
loading every rule and the calculators they use).  The window, the command line
(``workbench check``), the template builder and the exports read verdicts from here;
none keeps a copy of a rule (see :mod:`workbench.rules.registry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.lazy_exports import exports_on_first_use

if TYPE_CHECKING:
    from workbench.rules.context import RuleContext
    from workbench.rules.engine import Checker
    from workbench.rules.full_check import Counts, check_design, count, waived_keys
    from workbench.rules.registry import (
        INTERNAL_ERROR,
        REGISTRY,
        Finding,
        Rule,
        Severity,
        rule,
    )

__all__ = [
    "INTERNAL_ERROR",
    "REGISTRY",
    "Checker",
    "Counts",
    "Finding",
    "Rule",
    "RuleContext",
    "Severity",
    "check_design",
    "count",
    "rule",
    "waived_keys",
]

_exported = exports_on_first_use(
    __name__,
    {
        "RuleContext": "context",
        "Checker": "engine",
        "Counts": "full_check",
        "check_design": "full_check",
        "count": "full_check",
        "waived_keys": "full_check",
        "INTERNAL_ERROR": "registry",
        "REGISTRY": "registry",
        "Finding": "registry",
        "Rule": "registry",
        "Severity": "registry",
        "rule": "registry",
    },
)


def __getattr__(name: str) -> Any:
    """An exported name, with every rule registered (as importing the package did)."""
    if name in __all__:
        from workbench.rules import every_rule  # noqa: F401 - register

    return _exported(name)
