"""A rack's budgets and their verdicts: the one place that decides "over" and "near".

The rack drawing's bars, the inspector's figures, the power-per-rack plot, the hall
plan's colours, ``workbench report`` and the RACK-* rules all read :func:`rack_budgets`
and :func:`budget_state`, so a rack is never red in one place and fine in another.

Budgets of one rack, each what is used against what is allowed:

* space: U used of the rack's height;
* power: maximum draw against the rack's power budget (what breakers and contracts
  allow);
* cooling: the same heat against the limit of its cooling (the rack's own figure, else
  the rack type's for that cooling, else the cooling type's planning limit);
* weight: devices against the rack's rating (its own figure, else its type's);
* feeds: in normal running each of the A and B feeds carries half the rack; in the
  failover case one feed carries all of it.  A feed may be loaded to 80 % of its
  breaker's rating for continuous load: ``kW = V × A × √3 × 0.8`` for three phase,
  ``V × A × 0.8`` for single phase.

A rack holding devices whose power nobody knows (``RackLoad.unknown_power_devices``)
has a kW sum that is only a lower bound, so its power, cooling and feed budgets are
UNKNOWN rather than OK or near: a rack with an unpriced 10 kW server must not look
green.  One exception: a lower bound that is already over its limit is OVER for
certain, and says so.  RACK-POWER-UNKNOWN (:mod:`workbench.rules.power_unknown`) names
the devices; every view writes "+ N unknown" after the kW (:func:`unknown_note`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from workbench.calc.power import btu_per_hour
from workbench.calc.summary import RackLoad
from workbench.catalog.props import circuit_kw
from workbench.model import Design, Feed, Rack
from workbench.model.rack_fields import cooling_limit_kw

#: Above this share of a limit a budget is "near" it: little headroom for transients
#: (planning practice: keep continuous load well below the rating).
NEAR_FRACTION = 0.8

#: The share of a breaker's rating a continuous load may use (the 80 % rule of
#: electrical codes for continuous loads, e.g. NEC 210.20(A); the planning documents:
#: "continuous load kept well below breaker rating").
FEED_CONTINUOUS_FRACTION = 0.8


class BudgetState(enum.Enum):
    OK = "ok"
    NEAR = "near"
    OVER = "over"
    UNKNOWN = "unknown"


def over_budget(used: Any, limit: Any) -> Any:
    """True where ``used`` exceeds a positive ``limit``; works on numbers and on numpy
    arrays alike (the power plot asks for 3,500 racks at once).  No limit, no verdict."""
    return (limit > 0) & (used > limit)


def budget_state(used: float, limit: float | None, unknown: int = 0) -> BudgetState:
    """OK, NEAR (above :data:`NEAR_FRACTION`), OVER, or UNKNOWN without a limit.

    ``unknown`` counts the devices left out of ``used`` for want of a figure: with any,
    ``used`` is a lower bound, so only OVER can be told; anything else is UNKNOWN.
    """
    if limit is None or not limit > 0:
        return BudgetState.UNKNOWN
    if over_budget(used, limit):
        return BudgetState.OVER
    if unknown > 0:
        return BudgetState.UNKNOWN
    return BudgetState.NEAR if used > NEAR_FRACTION * limit else BudgetState.OK


def power_state(load: RackLoad) -> BudgetState:
    """The verdict on a rack's maximum draw against its power budget: what the rack
    header's bar and footer colour (the same as ``rack_budgets(...).power.state``)."""
    return budget_state(load.kw_max, load.limit_kw, load.unknown_power_devices)


def unknown_note(unknown: int) -> str:
    """What follows a kW figure that leaves devices out: " + 2 unknown" (empty for 0),
    so every view says a sum is incomplete in the same words."""
    return f" + {unknown:,} unknown" if unknown > 0 else ""


def feed_limit_kw(feed: Feed | None) -> float | None:
    """What a feed may carry continuously, kW: 80 % of its breaker's rating."""
    if feed is None:
        return None
    return circuit_kw(feed.phases, feed.voltage, feed.breaker_a) * FEED_CONTINUOUS_FRACTION


def weight_limit_kg(rack: Rack, load: RackLoad) -> float | None:
    """The rack's own rating when set, else its catalog type's."""
    return float(rack.max_weight_kg) if rack.max_weight_kg is not None else load.max_weight_kg


@dataclass(frozen=True)
class Budget:
    """One budget of a rack: what is used against what is allowed."""

    used: float
    limit: float | None
    unit: str
    #: Devices left out of ``used`` because their power is unknown (power, cooling and
    #: feed budgets only): ``used`` is then a lower bound.
    unknown: int = 0

    @property
    def state(self) -> BudgetState:
        return budget_state(self.used, self.limit, self.unknown)

    @property
    def known(self) -> bool:
        """True when ``used`` is a whole sum, not a lower bound."""
        return self.unknown == 0

    @property
    def fraction(self) -> float:
        """used / limit (0 without a limit)."""
        return self.used / self.limit if self.limit else 0.0


@dataclass(frozen=True)
class RackBudgets:
    """Every budget of one rack (see the module docstring)."""

    space: Budget
    power: Budget
    power_typical_kw: float
    cooling: Budget
    weight: Budget
    #: Normal running: each feed carries half the rack.
    feed_a: Budget
    feed_b: Budget
    #: Failover: the whole rack on the weaker of the two feeds (unknown while either is).
    failover: Budget
    heat_btu_h: float

    def named(self) -> dict[str, Budget]:
        """The budgets by the names reports and rules use."""
        return {
            "space": self.space,
            "power": self.power,
            "cooling": self.cooling,
            "weight": self.weight,
            "feed_a": self.feed_a,
            "feed_b": self.feed_b,
            "failover": self.failover,
        }

    def over(self) -> list[str]:
        """The names of the budgets exceeded."""
        return [name for name, b in self.named().items() if b.state is BudgetState.OVER]

    def worst(self) -> BudgetState:
        """The worst state of any budget with a limit (what the hall plan colours).

        A rack whose power is partly unknown is UNKNOWN unless something is over: its
        U or weight being fine must not paint it green."""
        budgets = self.named().values()
        states = {b.state for b in budgets}
        if BudgetState.OVER not in states and any(not b.known for b in budgets):
            return BudgetState.UNKNOWN
        for state in (BudgetState.OVER, BudgetState.NEAR, BudgetState.OK):
            if state in states:
                return state
        return BudgetState.UNKNOWN


def rack_budgets(design: Design, rack: Rack, load: RackLoad) -> RackBudgets:
    """Every budget of ``rack`` given its ``load`` (from the live figures)."""
    kw = load.kw_max
    unknown = load.unknown_power_devices
    limits = [feed_limit_kw(rack.feed("a")), feed_limit_kw(rack.feed("b"))]
    weaker = None if None in limits else min(x for x in limits if x is not None)
    return RackBudgets(
        space=Budget(load.u_used, load.u_total, "U"),
        power=Budget(kw, load.limit_kw, "kW", unknown),
        power_typical_kw=load.kw_typical,
        cooling=Budget(kw, cooling_limit_kw(design, rack), "kW", unknown),
        weight=Budget(load.weight_kg, weight_limit_kg(rack, load), "kg"),
        feed_a=Budget(kw / 2, limits[0], "kW", unknown),
        feed_b=Budget(kw / 2, limits[1], "kW", unknown),
        failover=Budget(kw, weaker, "kW", unknown),
        heat_btu_h=btu_per_hour(kw * 1000.0),
    )
