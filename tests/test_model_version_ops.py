"""Version-matrix edits: exact inverses, history only grows, values checked once."""

from __future__ import annotations

import copy

import pytest

from workbench.model import ops
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.model.version_ops import (
    AddAssignment,
    AddBaseline,
    AddObservations,
    AddRevision,
    RemoveBaseline,
    RemoveLastImport,
    RenameBaseline,
    check_versions,
    layers_changed,
)
from workbench.model.versions import Assignment, Baseline, BaselineRevision, Observation

R1 = BaselineRevision(1, {"driver": "535.104.05", "cuda": "12.2"}, created="2026-11-01T00:00:00Z")


def _design() -> Design:
    design = Design()
    ops.apply(design, AddBaseline(Baseline("bl-1", "H100 training", [R1])))
    ops.apply(design, AddAssignment(Assignment("as-1", "bl-1", "gpu-*")))
    return design


def _obs(n: int, import_id: str = "im-1", layer: str = "driver") -> Observation:
    return Observation(
        f"ob-{import_id}-{n}", f"gpu-{n}", layer, "535.104.05", "x.csv", 2, "2026-11-02T00:00Z",
        "ana", import_id,
    )  # fmt: skip


def _round_trip(design: Design, op: object) -> None:
    """Applying then undoing gives back an equal matrix, and redo the same result."""
    before = copy.deepcopy(design.versions)
    applied = ops.apply(design, op)
    after = copy.deepcopy(design.versions)
    assert applied.change.versions and not applied.change.structural
    again = ops.apply(design, applied.inverse)
    assert design.versions == before
    ops.apply(design, again.inverse)
    assert design.versions == after


@pytest.mark.parametrize(
    "op",
    [
        AddRevision("bl-1", BaselineRevision(2, {"driver": "550.54.14", "cuda": "12.2"})),
        RenameBaseline("bl-1", "H100 training (Q4)"),
        AddAssignment(Assignment("as-2", "bl-1", "gpu-su01-*"), 0),
        RemoveBaseline("bl-1"),
        AddObservations(tuple(_obs(n) for n in range(3))),
    ],
    ids=["revision", "rename", "assign", "remove-baseline", "import"],
)
def test_every_edit_has_an_exact_inverse(op: object) -> None:
    _round_trip(_design(), op)


def test_removing_a_baseline_takes_its_assignments_and_undo_puts_them_back() -> None:
    design = _design()
    applied = ops.apply(design, RemoveBaseline("bl-1"))
    assert design.versions.baselines == [] and design.versions.assignments == []
    ops.apply(design, applied.inverse)
    assert [a.id for a in design.versions.assignments] == ["as-1"]


def test_revisions_are_never_rewritten() -> None:
    design = _design()
    with pytest.raises(EditError, match="gets revision 2 next, not 1"):
        ops.apply(design, AddRevision("bl-1", BaselineRevision(1, {"driver": "550.54.14"})))
    with pytest.raises(EditError, match="gets revision 2 next, not 5"):
        ops.apply(design, AddRevision("bl-1", BaselineRevision(5, {"driver": "550.54.14"})))
    assert len(design.versions.baselines[0].revisions) == 1


def test_only_the_newest_import_can_be_taken_back() -> None:
    design = _design()
    ops.apply(design, AddObservations((_obs(1, "im-1"),)))
    ops.apply(design, AddObservations((_obs(2, "im-2"),)))
    with pytest.raises(EditError, match="not the newest"):
        ops.apply(design, RemoveLastImport("im-1"))
    with pytest.raises(EditError, match="already in the design"):
        ops.apply(design, AddObservations((_obs(3, "im-2"),)))
    assert len(design.versions.observations) == 2


@pytest.mark.parametrize(
    ("versions", "message"),
    [
        ({"drvier": "535"}, "unknown layer 'drvier'"),
        ({"driver": "535\n.1"}, "control characters"),
        ({"driver": ""}, "cannot be empty"),
        ({"driver": "5" * 65}, "at most 64"),
        (["driver"], "layer: version pairs"),
    ],
)
def test_bad_versions_are_refused_with_the_layer(versions: object, message: str) -> None:
    with pytest.raises(EditError, match=message):
        check_versions(versions)  # type: ignore[arg-type]


def test_numbers_from_yaml_become_version_text() -> None:
    """``cuda: 12.4`` unquoted in YAML is a float; the stack still means "12.4"."""
    assert check_versions({"cuda": 12.4, "driver": " 550.54.14 "}) == {
        "cuda": "12.4",
        "driver": "550.54.14",
    }


def test_observations_of_unknown_layers_are_refused() -> None:
    design = _design()
    with pytest.raises(EditError, match="unknown layer 'colour'"):
        ops.apply(design, AddObservations((_obs(1, layer="colour"),)))
    assert design.versions.observations == []


def test_layers_changed_in_top_down_order() -> None:
    new = BaselineRevision(2, {"driver": "550.54.14", "cuda": "12.4", "bios": "1.2"})
    assert layers_changed(R1, new) == ["cuda", "driver", "bios"]
    assert layers_changed(R1, R1) == []
