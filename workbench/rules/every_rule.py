"""Every shipped rule: importing this module registers them all, in their fixed order.

Apart from the package ``__init__`` so that a module of the package (the rack budgets,
the findings' types, a drop's verdict) can be imported without loading every rule and
what the rules compute with (the fabric analysis, the step-time model, numpy): a
window's first frame needs the former only.  Whoever reads the registry reads it
through :func:`workbench.rules.registry.all_rules`, which imports this module first.
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
