"""Design rule checks: each rule is registered once, with an id, a severity, what it looks
at and its source, and returns findings with the numbers in their messages.

Importing the package registers every rule.  The window, the command line (``workbench
check``), the template builder and the exports read verdicts from here; none keeps a
copy of a rule (see :mod:`workbench.rules.registry`).
"""

from workbench.rules import (  # noqa: F401 - register
    costs,
    fabric,
    identity,
    nodes,
    power_unknown,
    racks,
    snapshot,
    storage,
    storage_plan,
    versions,
    workloads,
)
from workbench.rules.context import RuleContext
from workbench.rules.engine import Checker
from workbench.rules.full_check import Counts, check_design, count, waived_keys
from workbench.rules.registry import INTERNAL_ERROR, REGISTRY, Finding, Rule, Severity, rule

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
