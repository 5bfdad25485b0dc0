"""Rows are read and written by column name: every model field has a column, and neither
the order of a file's columns nor the order of the schema's column lists matters."""

from __future__ import annotations

import dataclasses
import gc
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from store_designs import full_design

from workbench.model.design import Design, Device
from workbench.store import binding, open_design, save_design
from workbench.store import schema as schema_module


def unstored_fields(b: binding.Binding) -> list[str]:
    """The fields of ``b.cls`` that no column of ``b.table`` (nor a child table) holds."""
    return [
        f.name
        for f in dataclasses.fields(b.cls)
        if f.init and f.name not in b.fields and f.name != b.children
    ]


@pytest.mark.parametrize("table", sorted(binding.BINDINGS))
def test_every_field_of_the_model_is_stored(table: str) -> None:
    """A field added to a model class without a migration adding its column would be
    silently lost on every save: this fails, naming the field, until the schema has it."""
    b = binding.BINDINGS[table]
    missing = unstored_fields(b)
    assert not missing, (
        f"{b.cls.__name__} fields {missing} have no column in table {table!r}: "
        "append a migration adding them and list them in schema.COLUMNS"
    )


@pytest.mark.parametrize("table", sorted(binding.BINDINGS))
def test_every_column_is_a_field_or_a_key(table: str) -> None:
    b = binding.BINDINGS[table]
    names = {f.name for f in dataclasses.fields(b.cls) if f.init}
    strays = [c for c in b.fields if c not in names]
    assert not strays, f"columns {strays} of table {table!r} are not {b.cls.__name__} fields"
    assert set(b.keys) <= set(schema_module.COLUMNS[table])
    if b.children:
        assert b.children in binding.BINDINGS, f"{b.children!r} has no table"
        assert binding.BINDINGS[b.children].parent == table


def test_every_field_of_the_design_is_stored() -> None:
    stored = {*binding.META_FIELDS, *binding.OTHER_FIELDS, "sites", "device_types"} | {
        b.table for b in binding.LISTS
    }
    missing = [f.name for f in dataclasses.fields(Design) if f.init and f.name not in stored]
    assert not missing, f"Design fields {missing} are stored nowhere in a project file"
    tables = {b.table for b in binding.TREE + binding.LISTS} | set(binding.UNBOUND_COLUMNS)
    assert tables == set(schema_module.COLUMNS)
    for table, columns in binding.UNBOUND_COLUMNS.items():
        assert sorted(columns) == sorted(schema_module.COLUMNS[table]), table


def test_the_field_check_names_a_field_the_schema_lacks() -> None:
    @dataclasses.dataclass
    class DeviceWithColour(Device):
        colour: str = ""

    b = dataclasses.replace(binding.BINDINGS["devices"], cls=DeviceWithColour)
    assert unstored_fields(b) == ["colour"]


def test_writer_puts_each_value_in_the_column_of_its_name(tmp_path: Path) -> None:
    """Read back with plain SQL by column name, not through the reader."""
    design = full_design()
    path = tmp_path / "named.dcwb"
    save_design(design, path)
    objects = {
        "sites": design.sites,
        "rows": [r for s in design.sites for r in s.rows],
        "racks": list(design.iter_racks()),
        "devices": [d for _, d in design.iter_devices()],
    } | {b.table: getattr(design, b.table) for b in binding.LISTS}
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        for table, b in binding.BINDINGS.items():
            rows = conn.execute(f'SELECT * FROM "{table}" ORDER BY seq').fetchall()
            assert len(rows) == len(objects[table]) > 0, table
            for row, obj in zip(rows, objects[table], strict=True):
                for name in b.fields:
                    value = row[name]
                    if name in b.json and value is not None:
                        value = json.loads(value)
                    assert value == getattr(obj, name), (table, name)
        devices = conn.execute("SELECT rack_seq, name FROM devices ORDER BY seq").fetchall()
        assert [tuple(r) for r in devices][2:4] == [(1, "mgmt-0"), (2, "gpu-node-10 ✓")]
    finally:
        conn.close()


def _reverse_columns(conn: sqlite3.Connection, table: str) -> None:
    """Rebuild ``table`` with the same columns, constraints and rows, in reverse order."""
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    declared = []
    for _, name, type_, notnull, default, pk in reversed(info):
        declared.append(
            f'"{name}" {type_}'
            + (" PRIMARY KEY" if pk else "")
            + (" NOT NULL" if notnull else "")
            + (f" DEFAULT {default}" if default is not None else "")
        )
    names = ", ".join(f'"{r[1]}"' for r in info)
    conn.execute(f'CREATE TABLE "reordered" ({", ".join(declared)})')
    conn.execute(f'INSERT INTO "reordered" ({names}) SELECT {names} FROM "{table}"')
    conn.execute(f'DROP TABLE "{table}"')
    conn.execute(f'ALTER TABLE "reordered" RENAME TO "{table}"')


def test_file_with_columns_in_another_order_opens_the_same(tmp_path: Path) -> None:
    work, check = tmp_path / "work", tmp_path / "check"
    work.mkdir()
    check.mkdir()
    design = full_design()
    save_design(design, work / "reordered.dcwb")
    conn = sqlite3.connect(work / "reordered.dcwb")
    for table in schema_module.COLUMNS:
        _reverse_columns(conn, table)
    conn.commit()
    order = [r[1] for r in conn.execute('PRAGMA table_info("devices")')]
    conn.close()
    assert order == list(reversed(schema_module.COLUMNS["devices"]))
    path = check / "reordered.dcwb"
    shutil.copyfile(work / "reordered.dcwb", path)
    before = path.read_bytes()

    assert open_design(path) == design
    assert path.read_bytes() == before


def test_column_the_schema_does_not_know_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "extra.dcwb"
    design = full_design()
    save_design(design, path)
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE devices ADD COLUMN colour TEXT DEFAULT 'red'")
    conn.execute("ALTER TABLE workloads ADD COLUMN aaa_first INTEGER")
    conn.commit()
    conn.close()
    assert open_design(path) == design


def test_schema_column_order_is_not_relied_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writer and reader follow COLUMNS by name: reversing every table's list there
    changes the layout of the rows in between, never what comes back."""
    reversed_columns = {t: tuple(reversed(c)) for t, c in schema_module.COLUMNS.items()}
    monkeypatch.setattr(schema_module, "COLUMNS", reversed_columns)
    assert binding.BINDINGS["devices"].fields[0] == "role"
    design = full_design()
    path = tmp_path / "reversed.dcwb"
    save_design(design, path)
    assert open_design(path) == design


def test_missing_column_is_reported_as_damage(tmp_path: Path) -> None:
    from workbench.store import ProjectFileError

    path = tmp_path / "dropped.dcwb"
    save_design(full_design(), path)
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE waivers DROP COLUMN note")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectFileError, match="truncated or damaged: no such column: note"):
        open_design(path)


def test_index_is_built_after_open_and_finds_everything(tmp_path: Path) -> None:
    path = tmp_path / "index.dcwb"
    save_design(full_design(), path)
    design = open_design(path)
    assert design._index is None  # not built while the lists were being filled
    for rack, device in design.iter_devices():
        assert design.find_device(device.id) == (rack, device)
    for rack in design.iter_racks():
        assert design.find_rack(rack.id) is rack
    assert [design.find_workload(w.id) for w in design.workloads] == design.workloads


def test_what_is_made_while_paused_is_set_aside_unwalked() -> None:
    """The collector counts allocations while paused: unless what was made is set aside
    as it resumes, its first pass walks all of it (an opened 1,000,000-GPU design's 5.5
    million objects, over a second, freeing nothing).  Nothing is left frozen."""
    gc.collect()
    with binding.collector_paused():
        made = [[] for _ in range(10_000)]
    assert gc.isenabled()
    assert gc.get_count()[0] < 100  # no pass is due: it would be, at 10,000
    assert gc.get_freeze_count() == 0
    assert gc.is_tracked(made[0])
    assert any(o is made for o in gc.get_objects(generation=2))


def test_what_is_frozen_stays_frozen_across_a_pause() -> None:
    """While anything is frozen (the window freezes what its start made), a pause
    neither unfreezes it nor freezes more."""
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with binding.collector_paused():
            made = [[] for _ in range(1_000)]
        assert gc.get_freeze_count() == frozen
        assert gc.isenabled() and made
    finally:
        gc.unfreeze()


def test_an_open_sets_off_no_collector_pass(tmp_path: Path) -> None:
    """Opening a design leaves the collector nothing to walk of the objects it made."""
    design = full_design()
    path = tmp_path / "d.dcwb"
    save_design(design, path)
    passes: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            passes.append(info["generation"])

    gc.collect()
    gc.callbacks.append(seen)
    try:
        opened = open_design(path)
    finally:
        gc.callbacks.remove(seen)
    assert opened == design
    assert passes == []
