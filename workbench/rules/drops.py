"""The verdict a drop or a drag shows while the pointer is over a rack.

Three answers, as the highlight colours them:

* **fits** (green): the units are free;
* **refused** (red): it cannot go there (occupied units and by which device, a
  full-depth device on the other face, above the rack's top), from
  :func:`workbench.model.hall_edits.judge_slots`;
* **over budget** (amber): it fits, but the rack would then break its power, cooling,
  weight or feed budget (:mod:`workbench.rules.budgets`), or the device needs liquid
  cooling the rack lacks (:mod:`workbench.rules.cooling`).  The drop is allowed; the
  reason goes to the status bar and the Checks view will list the finding.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.calc.summary import LoadCache, rack_load
from workbench.model import Design, Rack
from workbench.model.hall_edits import Slot, judge_slots, trial_rack
from workbench.rules.budgets import BudgetState, rack_budgets
from workbench.rules.cooling import device_cooling_problem
from workbench.units import format_limit, short_number

#: How a budget reads in the reason ("power budget", "cooling limit" ...).
_BUDGET_WORDS: dict[str, str] = {
    "power": "power budget",
    "cooling": "cooling limit",
    "weight": "weight rating",
    "feed_a": "feed A",
    "feed_b": "feed B",
    "failover": "one feed alone (failover)",
}


class DropState(enum.Enum):
    FITS = "fits"
    REFUSED = "refused"
    OVER_BUDGET = "over budget"


@dataclass(frozen=True)
class DropVerdict:
    state: DropState
    reason: str
    #: The units the slots would cover (for the highlight).
    units: range = range(0)

    @property
    def allowed(self) -> bool:
        return self.state is not DropState.REFUSED


def judge_drop(
    design: Design, rack: Rack, slots: Sequence[Slot], cache: LoadCache | None = None
) -> DropVerdict:
    """Whether ``slots`` may go into ``rack`` and what that does to its budgets."""
    room = judge_slots(design, rack, slots)
    if not room.ok:
        return DropVerdict(DropState.REFUSED, room.reason, room.units)
    trial = trial_rack(rack, slots)
    budgets = rack_budgets(design, trial, rack_load(design, trial, cache))
    broken = [
        (name, budget)
        for name, budget in budgets.named().items()
        if name in _BUDGET_WORDS and budget.state is BudgetState.OVER
    ]
    problems = list(
        dict.fromkeys(p for s in slots if (p := device_cooling_problem(s.item, rack)) is not None)
    )
    if broken:
        parts = ", ".join(
            f"{_BUDGET_WORDS[name]} {format_limit(b.limit, b.unit)} "
            f"(would be {short_number(b.used)} {b.unit})"
            for name, b in broken
        )
        problems.insert(0, f"It breaks the {parts}.")
    if problems:
        return DropVerdict(DropState.OVER_BUDGET, " ".join([room.reason, *problems]), room.units)
    return DropVerdict(DropState.FITS, room.reason, room.units)
