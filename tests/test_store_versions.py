"""The version matrix through the project file: an exact round trip, older files
migrated to an empty matrix, and bad rows refused with table, row and field."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from workbench.model import ops
from workbench.model.version_ops import (
    AddAssignment,
    AddBaseline,
    AddObservations,
    AddRevision,
)
from workbench.model.versions import Assignment, Baseline, BaselineRevision, Observation
from workbench.store import ProjectFileError, open_design, save_design
from workbench.templates import build_template

DATA = Path(__file__).parent / "data"


def matrix_design():
    design = build_template("hgx-h100-air")
    r1 = BaselineRevision(
        1, {"driver": "535.104.05", "cuda": "12.2"}, "first", "ana", "2026-10-01T00:00:00Z"
    )
    ops.apply(design, AddBaseline(Baseline("bl-1", "H100 training", [r1])))
    ops.apply(
        design, AddRevision("bl-1", BaselineRevision(2, {"driver": "550.54.14", "cuda": "12.2"}))
    )
    ops.apply(design, AddBaseline(Baseline("bl-2", "Canary")))
    ops.apply(design, AddAssignment(Assignment("as-1", "bl-1", "gpu*")))
    ops.apply(design, AddAssignment(Assignment("as-2", "bl-2", "gpu00001")))
    observations = (
        Observation("o1", "gpu00001", "driver", "550.90.07", "r/gpu00001/smi.xml", 5, "2026-11-30T10:00:00Z", "ana", "imp1"),
        Observation("o2", "gpu00001", "gpu_model", "NVIDIA H100 80GB HBM3 + NVIDIA H100 PCIe", "r/gpu00001/smi.xml", None, "2026-11-30T10:00:00Z", "ana", "imp1"),
    )  # fmt: skip
    ops.apply(design, AddObservations(observations))
    return design


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_matrix_round_trips_exactly(tmp_path) -> None:
    design = matrix_design()
    path = tmp_path / "v.dcwb"
    save_design(design, path)
    again = open_design(path)
    assert again.versions == design.versions
    assert [r.revision for r in again.versions.baselines[0].revisions] == [1, 2]
    assert again.versions.observations[1].line is None


def test_a_version_5_file_opens_with_an_empty_matrix() -> None:
    design = open_design(DATA / "project_v4.dcwb")
    assert design.versions.baselines == [] and design.versions.observations == []


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        (
            "UPDATE baseline_revisions SET revision = 1 WHERE revision = 2",
            "does not follow revision 1",
        ),
        (
            'UPDATE baseline_revisions SET versions = \'{"drvier": "535"}\' WHERE seq = 1',
            "unknown layer 'drvier'",
        ),
        ("UPDATE baseline_revisions SET versions = '[1, 2]' WHERE seq = 1", "layer: version pairs"),
        ("UPDATE baseline_revisions SET versions = '{' WHERE seq = 1", "not a JSON object"),
        ("UPDATE baseline_revisions SET baseline_seq = 9 WHERE seq = 1", "baseline row 9"),
        (
            "UPDATE version_assignments SET baseline_id = 'bl-9' WHERE seq = 1",
            "names baseline 'bl-9'",
        ),
        ("UPDATE baselines SET id = 'bl-1' WHERE seq = 2", "'bl-1' is given twice"),
        ("UPDATE baselines SET name = 'a' || char(10) || 'b' WHERE seq = 1", "control characters"),
        ("UPDATE observations SET layer = 'colour' WHERE seq = 1", "unknown layer 'colour'"),
        ("UPDATE observations SET line = -3 WHERE seq = 1", "line number from 1"),
        ("UPDATE observations SET id = 'o1' WHERE seq = 2", "'o1' is given twice"),
        ("UPDATE observations SET value = char(55296) WHERE seq = 1", "column 'value'"),
    ],
)
def test_bad_rows_are_refused_with_table_row_and_field(tmp_path, sql, words) -> None:
    path = tmp_path / "v.dcwb"
    save_design(matrix_design(), path)
    conn = sqlite3.connect(path)
    conn.execute(sql)
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(ProjectFileError) as caught:
        open_design(path)
    assert words in str(caught.value) and str(path) in str(caught.value)
    assert digest(path) == before


def test_the_sample_of_each_schema_still_opens(tmp_path) -> None:
    for sample in sorted(DATA.glob("project_v[1-5].dcwb")):  # schema 6 added the matrix
        copy = tmp_path / sample.name
        shutil.copy(sample, copy)
        assert open_design(copy).versions.baselines == []
