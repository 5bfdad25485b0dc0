"""Edits of the version matrix, each with its exact inverse (like :mod:`ops`).

The version matrix has two rules that make its edits different from moving racks:

- **History is never overwritten.**  A baseline only gains revisions (numbered one
  after the last), and observations are only appended, one import at a time.  The only
  removals are the inverses: the newest revision, or the newest import's observations,
  which is exactly what undo needs and nothing a user could use to rewrite history.
- **Values are checked here**, once: layer keys from :data:`versions.LAYER_KEYS`,
  version strings through :mod:`workbench.model.names` (what labels and files hold), so
  the window, the command line and the file reader agree on what a stack may say.

Every edit reports ``Change(versions=True)``: the Versions view and the version rules
re-read the matrix, nothing in the hall redraws.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from workbench.model import keep
from workbench.model.applied import Applied, Edit
from workbench.model.change import Change
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.model.names import check_name, clean_field, clean_name
from workbench.model.versions import (
    LAYER_KEYS,
    OBSERVED_KEYS,
    Assignment,
    Baseline,
    BaselineRevision,
    Observation,
)
from workbench.text_rules import field_problem

_CHANGE = Change(versions=True)


@dataclass(frozen=True)
class AddBaseline:
    baseline: Baseline
    index: int | None = None
    #: Assignments to put back with it (undo of a removal), as (position, assignment).
    assignments: tuple[tuple[int, Assignment], ...] = ()


@dataclass(frozen=True)
class RemoveBaseline:
    """Removes the baseline and the assignments that point at it."""

    baseline_id: str


@dataclass(frozen=True)
class RenameBaseline:
    baseline_id: str
    name: str


@dataclass(frozen=True)
class AddRevision:
    baseline_id: str
    revision: BaselineRevision


@dataclass(frozen=True)
class RemoveLastRevision:
    """Undo of :class:`AddRevision` only: the newest revision of the baseline."""

    baseline_id: str


@dataclass(frozen=True)
class AddAssignment:
    assignment: Assignment
    index: int | None = None


@dataclass(frozen=True)
class RemoveAssignment:
    assignment_id: str


@dataclass(frozen=True)
class AddObservations:
    """One import: observations appended at the end, all with one ``import_id``."""

    observations: tuple[Observation, ...]


@dataclass(frozen=True)
class RemoveLastImport:
    """Undo of :class:`AddObservations`: the trailing observations of ``import_id``."""

    import_id: str


def check_versions(versions: object, where: str = "A baseline") -> dict[str, str]:
    """``versions`` as a revision stores them (layer → stripped version text), or an
    EditError naming the first bad layer or value."""
    if not isinstance(versions, dict):
        raise EditError(f"{where} lists its versions as layer: version pairs.")
    clean: dict[str, str] = {}
    for layer, value in versions.items():
        if layer not in LAYER_KEYS:
            raise EditError(
                f"{where} names an unknown layer {layer!r}; the layers are {', '.join(LAYER_KEYS)}."
            )
        text = str(value).strip() if isinstance(value, (int, float)) else value
        problem = field_problem("baseline_revisions.versions[]", text)
        if problem is not None:
            raise EditError(f"{where}: the {layer} version {problem}.")
        clean[layer] = text.strip()
    return clean


def check_observation(obs: Observation) -> None:
    """An observation holds a known layer and texts a file can hold."""
    if obs.layer not in OBSERVED_KEYS:
        raise EditError(f"An observation of {obs.node!r} names an unknown layer {obs.layer!r}.")
    for what, value, key in (
        ("node name", obs.node, "observations.node"),
        ("value", obs.value, "observations.value"),
        ("source", obs.source, "observations.source"),
    ):
        problem = field_problem(key, value)
        if problem is not None:
            raise EditError(f"The {what} of an observation of {obs.node!r:.60} {problem}.")


def _check_revision_texts(revision: BaselineRevision) -> None:
    """A revision's note, author and time are texts the file keeps (as given: a note
    is tidied by :func:`_add_revision` first)."""
    for key, value in (
        ("baseline_revisions.note", revision.note),
        ("baseline_revisions.author", revision.author),
        ("baseline_revisions.created", revision.created),
    ):
        problem = field_problem(key, value)
        if problem is not None:
            raise EditError(f"The {key.split('.')[1]} of revision {revision.revision} {problem}.")


def _baseline(design: Design, baseline_id: str) -> tuple[int, Baseline]:
    for i, baseline in enumerate(design.versions.baselines):
        if baseline.id == baseline_id:
            return i, baseline
    raise EditError(f"No baseline with id {baseline_id!r}.")


def _insert(items: list, obj: object, index: int | None, what: str) -> None:
    index = len(items) if index is None else index
    if not 0 <= index <= len(items):
        raise EditError(f"Position {index} is outside the {len(items)} {what}.")
    items.insert(index, obj)


def _add_baseline(design: Design, op: AddBaseline) -> Any:
    matrix = design.versions
    baseline = op.baseline
    if not baseline.id or matrix.baseline(baseline.id) is not None:
        raise EditError(f"The baseline id {baseline.id!r} is already in use.")
    check_name(baseline.name, "baseline")  # kept as given: judged as stored
    numbers = [r.revision for r in baseline.revisions]
    if numbers != sorted(set(numbers)):
        raise EditError(f"The revisions of baseline {baseline.name!r} must ascend.")
    for revision in baseline.revisions:
        check_versions(revision.versions, f"Revision {revision.revision} of {baseline.name!r}")
        _check_revision_texts(revision)
    _insert(matrix.baselines, baseline, op.index, "baselines")
    for position, assignment in op.assignments:
        matrix.assignments.insert(position, assignment)
    return _applied(RemoveBaseline(baseline.id))


def _remove_baseline(design: Design, op: RemoveBaseline) -> Any:
    matrix = design.versions
    i, baseline = _baseline(design, op.baseline_id)
    kept: list[Assignment] = []
    gone: list[tuple[int, Assignment]] = []
    for position, assignment in enumerate(matrix.assignments):
        if assignment.baseline_id == baseline.id:
            gone.append((position, assignment))
        else:
            kept.append(assignment)
    del matrix.baselines[i]
    matrix.assignments[:] = kept
    return _applied(AddBaseline(baseline, i, tuple(gone)))


def _rename_baseline(design: Design, op: RenameBaseline) -> Any:
    _, baseline = _baseline(design, op.baseline_id)
    name = clean_name(op.name, "baseline")
    old, baseline.name = baseline.name, name
    return _applied(RenameBaseline(baseline.id, old))


def _add_revision(design: Design, op: AddRevision) -> Any:
    _, baseline = _baseline(design, op.baseline_id)
    last = baseline.current
    expected = 1 if last is None else last.revision + 1
    if op.revision.revision != expected:
        raise EditError(
            f"Baseline {baseline.name!r} gets revision {expected} next, not "
            f"{op.revision.revision}: revisions are never rewritten."
        )
    versions = check_versions(op.revision.versions, f"Revision {expected} of {baseline.name!r}")
    revision = replace(op.revision, versions=versions)
    revision = replace(revision, note=clean_field("baseline_revisions.note", revision.note))
    _check_revision_texts(revision)
    baseline.revisions.append(revision)
    return _applied(RemoveLastRevision(baseline.id))


def _remove_last_revision(design: Design, op: RemoveLastRevision) -> Any:
    _, baseline = _baseline(design, op.baseline_id)
    if not baseline.revisions:
        raise EditError(f"Baseline {baseline.name!r} has no revision to take back.")
    revision = baseline.revisions.pop()
    return _applied(AddRevision(baseline.id, revision))


def _add_assignment(design: Design, op: AddAssignment) -> Any:
    matrix = design.versions
    assignment = op.assignment
    if not assignment.id or any(a.id == assignment.id for a in matrix.assignments):
        raise EditError(f"The assignment id {assignment.id!r} is already in use.")
    _baseline(design, assignment.baseline_id)
    pattern = clean_field("version_assignments.pattern", assignment.pattern)
    assignment = replace(assignment, pattern=pattern)  # stored as judged: tidied
    _insert(matrix.assignments, assignment, op.index, "assignments")
    return _applied(RemoveAssignment(assignment.id))


def _remove_assignment(design: Design, op: RemoveAssignment) -> Any:
    matrix = design.versions
    for i, assignment in enumerate(matrix.assignments):
        if assignment.id == op.assignment_id:
            del matrix.assignments[i]
            return _applied(AddAssignment(assignment, i))
    raise EditError(f"No assignment with id {op.assignment_id!r}.")


def _add_observations(design: Design, op: AddObservations) -> Any:
    matrix = design.versions
    imports = {o.import_id for o in op.observations}
    if len(imports) != 1:
        raise EditError("One import adds observations of one import id.")
    (import_id,) = imports
    taken: set[str] = set()
    for o in matrix.observations:
        if o.import_id == import_id:
            raise EditError(f"Import {import_id!r} is already in the design.")
        taken.add(o.id)
    for obs in op.observations:
        check_observation(obs)
        if obs.id in taken:
            raise EditError(
                f"Observation id {obs.id!r} of import {import_id!r} is taken; plan the import again."
            )
        taken.add(obs.id)
    matrix.observations.extend(op.observations)
    return _applied(RemoveLastImport(import_id))


def _remove_last_import(design: Design, op: RemoveLastImport) -> Any:
    matrix = design.versions
    n = len(matrix.observations)
    start = n
    while start > 0 and matrix.observations[start - 1].import_id == op.import_id:
        start -= 1
    if start == n or any(o.import_id == op.import_id for o in matrix.observations[:start]):
        raise EditError(f"Import {op.import_id!r} is not the newest one in the design.")
    taken = tuple(matrix.observations[start:])
    del matrix.observations[start:]
    return _applied(AddObservations(taken))


def _applied(inverse: object) -> Any:
    return Applied(inverse, _CHANGE)


#: This module's edits: how each is carried out and what it can change, gathered by :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {
    AddBaseline: Edit(_add_baseline, keep.versions),
    RemoveBaseline: Edit(_remove_baseline, keep.versions),
    RenameBaseline: Edit(_rename_baseline, keep.versions),
    AddRevision: Edit(_add_revision, keep.versions),
    RemoveLastRevision: Edit(_remove_last_revision, keep.versions),
    AddAssignment: Edit(_add_assignment, keep.versions),
    RemoveAssignment: Edit(_remove_assignment, keep.versions),
    AddObservations: Edit(_add_observations, keep.versions),
    RemoveLastImport: Edit(_remove_last_import, keep.versions),
}


def layers_changed(old: BaselineRevision | None, new: BaselineRevision) -> list[str]:
    """Layer keys whose version differs between two revisions (added, removed or
    changed), in the stack's top-down order; the one-layer-at-a-time rule reads it for
    every revision after the first (the first sets all layers by definition)."""
    before = old.versions if old is not None else {}
    keys: Iterable[str] = LAYER_KEYS
    return [k for k in keys if before.get(k) != new.versions.get(k)]
