"""The writer's runs: a big table's rows that share some columns' values are written
with those values as SQL literals (issue 21: binding them row by row was ~40 % of
writing a 1,000,000-GPU design's links).  The file must hold the same rows either way,
value for value and type for type, whatever the values: checked here against the rows
:func:`design_rows` makes and against a write with every value a parameter.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest
from store_designs import small_design

from workbench.model.design import Design, Link, Network
from workbench.store import open_design
from workbench.store import writer as writer_module
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
    columns = writer_module.binding.row_columns("links")
    shared = {columns[i] for i in writer_module._shared_columns(rows, len(columns))}
    assert {"network", "speed_gbps"} <= shared
    assert len(open_design(path).links) == len(design.links)


def test_runs_write_what_the_plain_way_writes(
    design: Design, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs.dcwb"
    write_database(design, runs)
    monkeypatch.setattr(writer_module, "_RUNS_FROM", 10**12)
    plain = tmp_path / "plain.dcwb"
    write_database(design, plain)
    conn = sqlite3.connect(plain)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    conn.close()
    for table in tables:
        if table != "meta":  # saved_at differs by the second
            assert stored(runs, table) == stored(plain, table), table


def test_literals_only_for_values_read_back_exactly() -> None:
    literals = writer_module._literals
    assert literals([None, 3, 400.0, "it's"]) == ["NULL", "3", "400.0", "'it''s'"]
    for odd in (12.5, math.nan, math.inf, -0.0, 0.0, 2.0**60, True, "é", "a\x00b", b"x"):
        assert literals([odd]) is None, odd


def test_rows_are_left_to_number_themselves_only_from_1_in_order() -> None:
    numbered = writer_module._numbered
    assert numbered([(1, "a"), (2, "b"), (3, "c")])
    for odd in ([(2, "a"), (3, "b")], [(1, "a"), (3, "b")], [(1.0, "a"), (2, "b")]):
        assert not numbered(odd), odd
