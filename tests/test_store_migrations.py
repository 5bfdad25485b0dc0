"""Schema versions: the v1 sample opens, and older files migrate on a copy only."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
import sqlite_utils

from workbench.model.design import Design
from workbench.store import ProjectFileError, open_design, save_design
from workbench.store import schema as schema_module

SAMPLE_V1 = Path(__file__).parent / "data" / "project_v1.dcwb"


def _header(path: Path) -> tuple[int, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return (
            conn.execute("PRAGMA application_id").fetchone()[0],
            conn.execute("PRAGMA user_version").fetchone()[0],
        )
    finally:
        conn.close()


def test_v1_sample_opens_with_its_contents(tmp_path: Path) -> None:
    # Facts written literally: the sample is frozen, whatever the helpers become.
    copy = tmp_path / "sample.dcwb"
    shutil.copyfile(SAMPLE_V1, copy)
    design = open_design(copy)
    assert design.name == "Sample saved by schema version 1"
    assert [s.name for s in design.sites] == ["Hall Ä"]
    assert [r.name for r in design.sites[0].rows] == ["Row 1", "Empty"]
    assert [k.name for k in design.iter_racks()] == ["Rack Ω-0", "Rack Ω-1"]
    assert [d.name for _, d in design.iter_devices()] == [
        "gpu-node-00 ✓",
        "gpu-node-01 ✓",
        "mgmt-0",
        "gpu-node-10 ✓",
        "gpu-node-11 ✓",
        "mgmt-1",
    ]
    rack = design.sites[0].rows[0].racks[0]
    assert (rack.cooling, rack.power_limit_kw) == ("liquid", 40.5)
    assert rack.devices[2].notes == "top of rack\nsecond line"
    assert (rack.devices[2].position, rack.devices[2].face) == (42, "rear")
    assert rack.devices[0].software_stack is None and rack.devices[1].software_stack == "base"
    assert list(design.device_types) == ["rack-42u", "h100-sxm", "dgx-h100", "mgmt-switch-48"]
    server = design.device_types["dgx-h100"]
    assert (server.gpu, server.gpu_count, server.max_power_w) == ("h100-sxm", 8, 10200.0)
    assert len(server.interfaces) == 9
    assert [n.vlan for n in design.networks] == [None, 10]
    assert [(x.a_device, x.b_port, x.length_m) for x in design.links] == [
        ("d0-0", "ge1", 2.5),
        ("d0-1", "osfp0", None),
    ]
    assert design.storage_tiers[0].device_ids == ["d1-1"]
    assert design.workloads[1].model_config == {
        "layers": 32,
        "hidden": 4096,
        "moe": None,
        "tags": ["a", "ß"],
    }
    assert (design.workloads[1].params, design.workloads[0].tokens) == (7.5e9, 15e12)
    assert design.software_stacks[0].components == {"driver": "550.54.15", "cuda": "12.4"}
    assert design.properties == {"customer": "ACME ☃", "": "empty key"}
    # Migration 1 -> 2 added Device.role; version-1 devices keep their catalog role.
    assert {d.role for _, d in design.iter_devices()} == {""}
    # Migration 2 -> 3 added waivers and Workload.target_days: none, and no target.
    assert design.waivers == []
    assert [w.target_days for w in design.workloads] == [None, None]


def test_current_columns_are_what_the_migrations_create() -> None:
    db = sqlite_utils.Database(memory=True)
    schema_module.migrate(db, 0)
    assert db.execute("PRAGMA user_version").fetchone()[0] == schema_module.SCHEMA_VERSION
    created = {t.name: tuple(c.name for c in t.columns) for t in db.tables}
    assert created == schema_module.COLUMNS
    assert len(schema_module.MIGRATIONS) == schema_module.SCHEMA_VERSION


def _add_observed_versions(db: sqlite_utils.Database) -> None:
    """A stand-in for a real version-2 migration: a new table and a data change."""
    db.create_table("observed_versions", {"device_seq": int, "component": str, "version": str})
    db.execute("UPDATE racks SET name = upper(name)")


def test_older_file_migrates_in_memory_and_stays_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.dcwb"
    shutil.copyfile(SAMPLE_V1, path)
    before = path.read_bytes()
    ran: list[int] = []

    def migration_1_to_2(db: sqlite_utils.Database) -> None:
        ran.append(db.execute("PRAGMA user_version").fetchone()[0])
        _add_observed_versions(db)

    current = schema_module.SCHEMA_VERSION
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", current + 1)
    monkeypatch.setattr(schema_module, "MIGRATIONS", [*schema_module.MIGRATIONS, migration_1_to_2])

    design = open_design(path)

    # Every step the v1 file lacked ran, in order, each on the version it upgrades.
    assert ran == [current]
    assert [k.name for k in design.iter_racks()] == ["RACK Ω-0", "RACK Ω-1"]
    assert path.read_bytes() == before
    assert _header(path) == (schema_module.APPLICATION_ID, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.dcwb"]


def test_version_0_file_is_migrated_from_scratch(tmp_path: Path) -> None:
    """Version 0 is an empty database stamped as ours: every migration runs on it."""
    work = tmp_path / "work"
    work.mkdir()
    conn = sqlite3.connect(work / "v0.dcwb")
    conn.execute(f"PRAGMA application_id = {schema_module.APPLICATION_ID}")
    conn.execute("CREATE TABLE placeholder (x)")  # an empty file would be 0 bytes
    conn.commit()
    conn.close()
    path = tmp_path / "v0.dcwb"
    shutil.copyfile(work / "v0.dcwb", path)
    before = path.read_bytes()
    assert open_design(path) == Design()
    assert path.read_bytes() == before


def test_failing_migration_reports_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.dcwb"
    shutil.copyfile(SAMPLE_V1, path)
    before = path.read_bytes()

    def broken(db: sqlite_utils.Database) -> None:
        db.execute("UPDATE no_such_table SET x = 1")

    current = schema_module.SCHEMA_VERSION
    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", current + 1)
    monkeypatch.setattr(schema_module, "MIGRATIONS", [*schema_module.MIGRATIONS, broken])
    with pytest.raises(
        ProjectFileError,
        match=f"old.dcwb: cannot upgrade from schema 1 to {current + 1}: no such table",
    ):
        open_design(path)
    assert path.read_bytes() == before


def test_newer_than_this_workbench_names_both_versions(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copyfile(SAMPLE_V1, work / "new.dcwb")
    conn = sqlite3.connect(work / "new.dcwb")
    conn.execute(f"PRAGMA user_version = {schema_module.SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    path = tmp_path / "new.dcwb"
    shutil.copyfile(work / "new.dcwb", path)
    with pytest.raises(ProjectFileError) as caught:
        open_design(path)
    assert str(caught.value) == (
        f"{path}: saved by a newer workbench (schema {schema_module.SCHEMA_VERSION + 1}, "
        f"this version reads up to {schema_module.SCHEMA_VERSION})"
    )


SAMPLE_V2 = Path(__file__).parent / "data" / "project_v2.dcwb"


def test_v2_sample_opens_with_its_roles(tmp_path: Path) -> None:
    copy = tmp_path / "sample.dcwb"
    shutil.copyfile(SAMPLE_V2, copy)
    before = copy.read_bytes()
    design = open_design(copy)
    assert design.name == "Sample saved by schema version 2"
    roles = [(d.name, d.role) for _, d in design.iter_devices()]
    assert roles == [
        ("gpu-node-00 ✓", ""),
        ("gpu-node-01 ✓", ""),
        ("mgmt-0", "storage-switch"),
        ("gpu-node-10 ✓", ""),
        ("gpu-node-11 ✓", ""),
        ("mgmt-1", "storage-switch"),
    ]
    assert design.waivers == []
    assert [w.target_days for w in design.workloads] == [None, None]
    assert _header(copy) == (schema_module.APPLICATION_ID, 2)
    assert copy.read_bytes() == before


SAMPLE_V3 = Path(__file__).parent / "data" / "project_v3.dcwb"


def test_v3_sample_opens_with_its_waivers_and_targets(tmp_path: Path) -> None:
    copy = tmp_path / "sample.dcwb"
    shutil.copyfile(SAMPLE_V3, copy)
    before = copy.read_bytes()
    design = open_design(copy)
    assert design.name == "Sample saved by schema version 3"
    assert [(w.rule, w.object_id, w.note, w.created_at) for w in design.waivers] == [
        (
            "RACK-POWER",
            "rack0",
            "Liquid loop rated 45 kW by facilities ✓\nsee ticket FAC-12",
            "2026-03-01T09:30:00+00:00",
        ),
        ("WORKLOAD-DEADLINE", "w1", "Deadline moved; agreed with ACME ☃", ""),
    ]
    assert [(w.id, w.target_days) for w in design.workloads] == [("w1", 45.5), ("w2", None)]
    # What versions 1 and 2 stored comes back too.
    assert [d.role for _, d in design.iter_devices()][:3] == ["", "", "storage-switch"]
    assert design.workloads[1].model_config == {
        "layers": 32,
        "hidden": 4096,
        "moe": None,
        "tags": ["a", "ß"],
    }
    assert list(design.device_types) == ["rack-42u", "h100-sxm", "dgx-h100", "mgmt-switch-48"]
    # Version 4's rack fields: not set, so limits come from the types, feeds are unknown
    # and the hall plan lays the racks out; every rack faced south.
    for rack in design.iter_racks():
        assert (rack.cooling_limit_kw, rack.max_weight_kg, rack.feed("a"), rack.feed("b")) == (
            None,
            None,
            None,
            None,
        )
        assert (rack.floor_x_mm, rack.floor_y_mm, rack.facing) == (None, None, "south")
    assert _header(copy) == (schema_module.APPLICATION_ID, 3)
    assert copy.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sample.dcwb"]


SAMPLE_V4 = Path(__file__).parent / "data" / "project_v4.dcwb"


def test_v4_sample_opens_with_its_feeds_and_floor_and_no_fabric_fields(tmp_path: Path) -> None:
    copy = tmp_path / "sample.dcwb"
    shutil.copyfile(SAMPLE_V4, copy)
    before = copy.read_bytes()
    design = open_design(copy)
    assert design.name == "Sample saved by schema version 4"
    first, second = list(design.iter_racks())
    assert (first.cooling_limit_kw, first.max_weight_kg) == (38.0, 1400.0)
    assert (first.feed_a_voltage, first.feed_a_phases, first.feed_a_breaker_a) == (415.0, 3, 63.0)
    assert (first.feed_b_voltage, first.feed_b_phases, first.feed_b_breaker_a) == (230.0, 1, 32.0)
    assert (first.floor_x_mm, first.floor_y_mm, first.facing) == (1200.0, 3000.0, "north")
    assert (second.floor_x_mm, second.floor_y_mm, second.facing) == (1800.0, 3000.0, "south")
    # Version 5's fields: no subnet planned, links at the speed their ports share, and
    # jobs on the default tiers and checkpoint interval.
    assert [n.subnet for n in design.networks] == ["", ""]
    assert [(link.id, link.speed_gbps, link.length_m) for link in design.links] == [
        ("l1", None, 2.5),
        ("l2", None, None),
    ]
    for workload in design.workloads:
        assert (
            workload.dataset_tier,
            workload.checkpoint_tier,
            workload.checkpoint_interval_min,
        ) == (None, None, None)
    assert _header(copy) == (schema_module.APPLICATION_ID, 4)
    assert copy.read_bytes() == before


SAMPLE_V5 = Path(__file__).parent / "data" / "project_v5.dcwb"


def test_v5_sample_opens_with_its_fabric_and_an_empty_version_matrix(tmp_path: Path) -> None:
    """Schema 6 added the version matrix; a version-5 design had none."""
    copy = tmp_path / "sample.dcwb"
    shutil.copyfile(SAMPLE_V5, copy)
    before = copy.read_bytes()
    design = open_design(copy)
    assert design.name == "Sample saved by schema version 5"
    assert len(design.links) == 508 and len(design.networks) == 4
    assert design.versions.baselines == [] and design.versions.assignments == []
    assert design.versions.observations == []
    assert _header(copy) == (schema_module.APPLICATION_ID, 5)
    assert copy.read_bytes() == before


SAMPLE_V6 = Path(__file__).parent / "data" / "project_v6.dcwb"


def test_v6_sample_keeps_its_version_matrix_and_has_no_acceptance_results(
    tmp_path: Path,
) -> None:
    """Schema 7 added acceptance results; a version-6 design had none."""
    copy = tmp_path / "sample.dcwb"
    shutil.copyfile(SAMPLE_V6, copy)
    before = copy.read_bytes()
    design = open_design(copy)
    assert design.name == "Sample saved by schema version 6"
    (baseline,) = design.versions.baselines
    assert baseline.current.versions == {"driver": "550.54.14", "cuda": "12.4"}
    assert [o.value for o in design.versions.observations] == ["535.104.05"]
    assert design.acceptance == []
    assert _header(copy) == (schema_module.APPLICATION_ID, 6)
    assert copy.read_bytes() == before


@pytest.mark.parametrize(
    "sample",
    [SAMPLE_V1, SAMPLE_V2, SAMPLE_V3, SAMPLE_V4, SAMPLE_V5, SAMPLE_V6],
    ids=["v1", "v2", "v3", "v4", "v5", "v6"],
)
def test_older_sample_saves_as_current_version_with_nothing_lost(
    tmp_path: Path, sample: Path
) -> None:
    """Open an old file, save it: the new file is the current version and equal."""
    copy = tmp_path / "old.dcwb"
    shutil.copyfile(sample, copy)
    design = open_design(copy)
    saved = tmp_path / "new.dcwb"
    save_design(design, saved)
    assert _header(saved) == (schema_module.APPLICATION_ID, schema_module.SCHEMA_VERSION)
    assert open_design(saved) == design
