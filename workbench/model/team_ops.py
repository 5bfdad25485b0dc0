"""Edits of the teams sharing the cluster: add, remove, set fields; each with its exact
inverse, so the window's undo and the command line make the same change.

A team's rules live here, once: its name becomes a Kubernetes namespace and a Slurm
QOS and account, so it is an RFC 1123 label (1–63 lowercase letters, digits and '-');
its limit is a GPU count (≥ 1) or a share of the cluster's GPUs (above 0, at most 1),
exactly one of them; its priority is a whole number 0–10,000 (Slurm's QOS
``Priority``).  The handoffs (:mod:`workbench.export.handoff`) read the teams and turn a
share into GPUs of the cluster they export.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from workbench.model import keep
from workbench.model.applied import Applied, Edit
from workbench.model.change import Change
from workbench.model.design import Design, Team
from workbench.model.errors import EditError

#: A team name: a Kubernetes namespace (RFC 1123 label) and a Slurm QOS name.
TEAM_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
#: The fields an edit may set.
TEAM_FIELDS: tuple[str, ...] = ("name", "gpus", "share", "priority")
MAX_PRIORITY = 10_000

Values = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class AddTeam:
    team: Team
    index: int | None = None


@dataclass(frozen=True)
class RemoveTeam:
    team_id: str


@dataclass(frozen=True)
class SetTeamFields:
    team_id: str
    values: Values


def check_team_value(name: str, value: Any) -> Any:
    """``value`` for field ``name`` as the model holds it, or EditError saying why not."""
    if name == "name":
        if not isinstance(value, str) or not TEAM_NAME.match(value):
            raise EditError(
                f"A team name is 1-63 lowercase letters, digits and '-' (it becomes a "
                f"Kubernetes namespace and a Slurm QOS), not {value!r}."
            )
        return value
    if name == "gpus":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**7:
            raise EditError(f"A team's GPUs are a whole number 1 or more, not {value!r}.")
        return value
    if name == "share":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise EditError(f"A team's share is a number, not {value!r}.")
        if not math.isfinite(value) or not 0 < value <= 1:
            raise EditError(f"A team's share is above 0 and at most 1 (100 %), not {value:g}.")
        return float(value)
    if name == "priority":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PRIORITY:
            raise EditError(f"A team's priority is a whole number 0 to {MAX_PRIORITY:,}.")
        return value
    raise EditError(f"A team has no field {name!r}.")


def check_team(team: Team) -> Team:
    """``team`` with every field checked, and exactly one of GPUs and share."""
    for name in TEAM_FIELDS:
        check_team_value(name, getattr(team, name))
    if (team.gpus is None) == (team.share is None):
        raise EditError(f"Team {team.name}: give its GPUs or its share of the cluster, one.")
    return team


def _position(design: Design, team_id: str) -> int:
    for i, team in enumerate(design.teams):
        if team.id == team_id:
            return i
    raise EditError(f"No team with id {team_id!r}.")


def _names_free(design: Design, team: Team, ignore: str | None = None) -> None:
    for other in design.teams:
        if other.id != ignore and other.name == team.name:
            raise EditError(f"There is a team named {team.name} already.")


def _add(design: Design, op: AddTeam) -> Applied:
    team = check_team(op.team)
    if any(t.id == team.id for t in design.teams):
        raise EditError(f"A team with id {team.id!r} exists already.")
    _names_free(design, team)
    index = len(design.teams) if op.index is None else op.index
    if not 0 <= index <= len(design.teams):
        raise EditError(f"No place {index} among {len(design.teams)} teams.")
    design.teams.insert(index, team)
    return Applied(RemoveTeam(team.id), Change(design=True))


def _remove(design: Design, op: RemoveTeam) -> Applied:
    i = _position(design, op.team_id)
    team = design.teams.pop(i)
    return Applied(AddTeam(team, i), Change(design=True))


def _set(design: Design, op: SetTeamFields) -> Applied:
    i = _position(design, op.team_id)
    team = design.teams[i]
    clean = {name: check_team_value(name, value) for name, value in op.values}
    changed = check_team(replace(team, **clean))
    _names_free(design, changed, ignore=team.id)
    old = tuple((name, getattr(team, name)) for name in clean)
    for name, value in clean.items():
        setattr(team, name, value)
    return Applied(SetTeamFields(team.id, old), Change(design=True))


def new_team_id(design: Design) -> str:
    """``team-1``, ``team-2`` … the first free one."""
    taken = {t.id for t in design.teams}
    n = 1
    while f"team-{n}" in taken:
        n += 1
    return f"team-{n}"


def set_limit(team: Team, *, gpus: int | None = None, share: float | None = None) -> Values:
    """The field values that give ``team`` a GPU count or a share (clearing the other)."""
    if gpus is not None:
        return (("gpus", gpus), ("share", None))
    return (("share", share), ("gpus", None))


#: The team edits: how each is carried out and what it can change, gathered by :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {
    AddTeam: Edit(_add, keep.teams),
    RemoveTeam: Edit(_remove, keep.teams),
    SetTeamFields: Edit(_set, keep.teams),
}
