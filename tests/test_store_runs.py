"""The writer's runs: a big table's rows that share some columns' values are written
with those values as SQL literals (issue 21: binding them row by row was ~40 % of
writing a 1,000,000-GPU design's links).  The file must hold the same rows either way,
value for value and type for type, whatever the values: checked here against the rows
:func:`design_rows` makes and against a write with every value a parameter.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from store_designs import small_design

from workbench.model.design import Design, Device, Link, Network
from workbench.store import ProjectFileError, binding, open_design, runs, save_design
from workbench.store import writer as writer_module
from workbench.store.object_rows import ObjectRows
from workbench.store.writer import design_rows, write_database


def many_links(design: Design, count: int) -> None:
    """``count`` links between the design's first two devices, in runs of shared
    values broken by odd ones: a length no double literal holds, NaN, a quote in a
    network id, a cable type, a speed that is not whole, an unset speed, a short run."""
    design.networks += [Network("net-a", "A"), Network("it's-b", "B", plane="storage")]
    devices = [d for _r, d in design.iter_devices()][:2]
    a, b = devices[0].id, devices[-1].id
    for i in range(count):
        network, cable, length, speed = "net-a", None, None, 400.0
        if i >= count // 4:
            network, speed = "it's-b", 200.0
        if i >= count // 2:
            network, speed = None, None
        if i % 997 == 0:
            length = 0.1 * i
        if i % 1999 == 0:
            length = math.nan
        if i % 3001 == 0:
            cable, speed = "aoc", 12.5
        if i % 4001 == 0:
            speed = 100.0
        design.links.append(
            Link(f"lx{i:06d}", a, f"p{i % 64}", b, f"q{i % 7}", network, cable, length, speed)
        )


def stored(path: Path, table: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(f'SELECT * FROM "{table}" ORDER BY seq').fetchall()
    finally:
        conn.close()
    return [tuple((type(v).__name__, repr(v)) for v in row) for row in rows]


def expected(design: Design, table: str) -> list[tuple]:
    rows = dict(design_rows(design))[table]
    # SQLite stores a NaN as NULL, whichever way it is written.
    return [
        tuple(
            ("NoneType", "None")
            if isinstance(v, float) and math.isnan(v)
            else (type(v).__name__, repr(v))
            for v in row
        )
        for row in rows
    ]


@pytest.fixture
def design() -> Design:
    found = small_design("runs")
    many_links(found, 30_000)
    return found


def test_runs_store_the_rows_design_rows_makes(design: Design, tmp_path: Path) -> None:
    path = tmp_path / "runs.dcwb"
    write_database(design, path)
    assert stored(path, "links") == expected(design, "links")
    # The links do come in runs (so this test checks the literals, not the plain way).
    rows = dict(design_rows(design))["links"]
    columns = binding.row_columns("links")
    shared = {columns[i] for i in runs.shared_columns(runs.sampled(rows), len(columns))}
    assert {"network", "speed_gbps"} <= shared
    assert len(open_design(path).links) == len(design.links)


def test_runs_write_what_the_plain_way_writes(
    design: Design, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_runs = tmp_path / "runs.dcwb"
    write_database(design, in_runs)
    monkeypatch.setattr(runs, "RUNS_FROM", 10**12)
    plain = tmp_path / "plain.dcwb"
    write_database(design, plain)
    conn = sqlite3.connect(plain)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    conn.close()
    for table in tables:
        if table != "meta":  # saved_at differs by the second
            assert stored(in_runs, table) == stored(plain, table), table


def test_literals_only_for_values_read_back_exactly() -> None:
    literals = runs.literals
    assert literals([None, 3, 400.0, "it's"]) == ["NULL", "3", "400.0", "'it''s'"]
    for odd in (12.5, math.nan, math.inf, -0.0, 0.0, 2.0**60, True, "é", "a\x00b", b"x"):
        assert literals([odd]) is None, odd


def test_rows_are_left_to_number_themselves_only_from_1_in_order() -> None:
    numbered = runs.numbered
    assert numbered([(1, "a"), (2, "b"), (3, "c")])
    for odd in ([(2, "a"), (3, "b")], [(1, "a"), (3, "b")], [(1.0, "a"), (2, "b")]):
        assert not numbered(odd), odd


def _refusal(design: Design, path: Path) -> str:
    with pytest.raises(ProjectFileError) as caught:
        save_design(design, path)
    return str(caught.value)


@pytest.mark.parametrize(("at", "field"), [(25_000, "a_port"), (29_998, "id"), (7, "b_port")])
def test_a_bad_text_in_a_late_chunk_is_refused_as_the_rows_are(
    design: Design, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int, field: str
) -> None:
    """The links, written from their objects a chunk at a time, are refused with the
    message the made rows' check gives (the same bad value of the same field, named by
    row), and the old file stays as it was."""
    path = tmp_path / "d.dcwb"
    save_design(small_design("old"), path)
    old = path.read_bytes()
    setattr(design.links[at], field, "bad\x07name")
    design.links[at + 1].b_port = "also bad\x00"
    from_objects = _refusal(design, path)
    monkeypatch.setattr(runs, "RUNS_FROM", 10**12)
    assert from_objects == _refusal(design, path)
    assert "cannot save: links row " in from_objects
    assert path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.dcwb"]


def test_texts_only_the_slow_check_passes_are_written(
    design: Design, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Port names the whole-column test in C cannot pass (not ASCII, blank-looking
    spaces) but the rule accepts: the table is checked the long way once, and every
    row is written as the plain way writes it."""
    for i in range(0, 30_000, 3):
        design.links[i].a_port = f"pört {i % 5}"
    design.links[20_001].b_port = "q 1"
    in_runs = tmp_path / "runs.dcwb"
    write_database(design, in_runs)
    monkeypatch.setattr(runs, "RUNS_FROM", 10**12)
    plain = tmp_path / "plain.dcwb"
    write_database(design, plain)
    assert stored(in_runs, "links") == stored(plain, "links") == expected(design, "links")


def test_links_whose_values_do_not_run_are_written_from_made_rows(tmp_path: Path) -> None:
    """Every link on its own network, speed and length, its ends changing: nothing
    runs, and the rows are made and written the plain way (the objects' path writes
    nothing first)."""
    found = small_design("no runs")
    many_links(found, 25_000)
    for i, link in enumerate(found.links):
        link.speed_gbps, link.length_m, link.cable_type = float(i + 1), i / 8, f"c{i % 7}"
        link.network = ("net-a", "it's-b", None)[i % 7 % 3]
        link.a_device, link.b_device = f"a{i % 7}", f"b{i % 7}"
    assert not runs.shared_columns(
        runs.sampled(dict(design_rows(found))["links"]), len(binding.row_columns("links"))
    )
    path = tmp_path / "d.dcwb"
    write_database(found, path)
    assert stored(path, "links") == expected(found, "links")


def many_devices(design: Design, racks: int, per_rack: int) -> None:
    """``racks`` more racks of ``per_rack`` devices each in the first row, their serial,
    asset tag and notes empty in runs broken by odd ones."""
    row = design.sites[0].rows[0]
    for r in range(racks):
        devices = [
            Device(
                f"dx{r:03d}-{i:02d}",
                f"node-{r}-{i}",
                "dgx-h100",
                position=1 + i % 40,
                serial="" if (r * per_rack + i) % 1499 else f"SN{i}",
                notes="" if (r * per_rack + i) % 977 else "odd one",
                software_stack=None if i % 5 else "stack-1",
            )
            for i in range(per_rack)
        ]
        row.racks.append(replace(row.racks[0], id=f"rx{r:03d}", name=f"RX{r}", devices=devices))


@pytest.fixture
def devices_design() -> Design:
    found = small_design("devices")
    many_devices(found, 500, 50)
    return found


def _from_objects(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tables written straight from their objects, as they are written."""
    tables: list[str] = []
    real = writer_module.insert_objects

    def spy(conn: sqlite3.Connection, file: Path, found: ObjectRows) -> bool:
        written = real(conn, file, found)
        if written:
            tables.append(found.binding.table)
        return written

    monkeypatch.setattr(writer_module, "insert_objects", spy)
    return tables


def test_devices_from_their_objects_are_the_rows_the_plain_way_writes(
    devices_design: Design, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every rack's devices, written from the objects with each one's rack seq put
    beside its values: the rows design_rows makes and the plain way writes."""
    tables = _from_objects(monkeypatch)
    in_runs = tmp_path / "runs.dcwb"
    write_database(devices_design, in_runs)
    assert tables == ["devices"]
    monkeypatch.setattr(runs, "RUNS_FROM", 10**12)
    plain = tmp_path / "plain.dcwb"
    write_database(devices_design, plain)
    for table in ("racks", "devices"):
        assert stored(in_runs, table) == stored(plain, table) == expected(devices_design, table)


@pytest.mark.parametrize(("at", "field"), [(24_000, "name"), (3, "serial"), (12_345, "id")])
def test_a_bad_device_text_is_refused_as_the_rows_are(
    devices_design: Design, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int, field: str
) -> None:
    devices = [device for _rack, device in devices_design.iter_devices()]
    setattr(devices[at], field, "bad\tname" if field != "serial" else "x" * 5000)
    path = tmp_path / "d.dcwb"
    from_objects = _refusal(devices_design, path)
    monkeypatch.setattr(runs, "RUNS_FROM", 10**12)
    assert from_objects == _refusal(devices_design, path)
    assert f"cannot save: devices row {at + 1} " in from_objects
    assert not path.exists()
