"""A frozen sample of every schema version opens, migrates and round-trips (issue 19).

``tests/data/project_vN.dcwb`` is a file as version-N code wrote it (the scripts beside
them say how each was made; version 8 never stood in a commit, so its sample is the
version-7 one taken through the 7 -> 8 step).  Opening one must leave it untouched,
read every object, and saving it must give a current-version file that reads back the
same.  A schema version without a sample fails here, so a new version cannot land
without one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_store_migrations import _header

from workbench.store import open_design, save_design
from workbench.store import schema as schema_module

DATA = Path(__file__).parent / "data"
VERSIONS = range(1, schema_module.SCHEMA_VERSION + 1)


def test_every_schema_version_has_a_sample():
    missing = [v for v in VERSIONS if not (DATA / f"project_v{v}.dcwb").is_file()]
    assert not missing, f"no frozen sample for schema version(s) {missing}"


@pytest.mark.parametrize("version", VERSIONS, ids=[f"v{v}" for v in VERSIONS])
def test_sample_opens_migrates_and_round_trips(tmp_path: Path, version: int) -> None:
    copy = tmp_path / "old.dcwb"
    shutil.copyfile(DATA / f"project_v{version}.dcwb", copy)
    before = copy.read_bytes()
    assert _header(copy) == (schema_module.APPLICATION_ID, version)
    design = open_design(copy)
    assert design.name  # the samples are named; an empty design would prove nothing
    assert any(True for _ in design.iter_devices())
    assert copy.read_bytes() == before  # opening an old file never rewrites it
    saved = tmp_path / "new.dcwb"
    save_design(design, saved)
    assert _header(saved) == (schema_module.APPLICATION_ID, schema_module.SCHEMA_VERSION)
    assert open_design(saved) == design


def test_newer_samples_keep_what_their_version_added() -> None:
    v8 = open_design(DATA / "project_v8.dcwb")
    assert [c.local_port for c in v8.captures] == ["compute0", "compute1"]
    assert len(v8.acceptance) == 2  # the version-7 results came along
    job = open_design(DATA / "project_v10.dcwb").workloads[0]
    assert (job.framework, job.cp, job.plan_at_30, job.global_batch) == (
        "megatron-lm",
        2,
        True,
        1024,
    )
    teams = open_design(DATA / "project_v11.dcwb").teams
    assert [(t.name, t.gpus, t.share) for t in teams] == [
        ("research", 8, None),
        ("prod", None, 0.5),
    ]


def test_gpudirect_storage_is_kept_and_a_v11_tier_did_not_say() -> None:
    """Version 12 stores whether a tier is read with GPUDirect Storage; a version-11
    tier said nothing, which reads as None (not as "no")."""
    (v11,) = open_design(DATA / "project_v11.dcwb").storage_tiers
    assert v11.gpudirect_storage is None
    (v12,) = open_design(DATA / "project_v12.dcwb").storage_tiers
    assert v12.gpudirect_storage is True
