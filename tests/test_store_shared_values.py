"""Opening shares repeated values and reads rows a chunk at a time, changing no value.

The reader keeps one copy of each repeated port name, network id, slug and speed, and
makes a link's ends the very id strings of its devices (a 1,000,000-GPU design opened a
gigabyte smaller); it reads each table in chunks, so no list of every row's tuple sits
beside the objects.  These tests pin what that must not change: equal values of the
same type, every row in file order, and the same message for a bad row in a late chunk.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from store_designs import small_design

from workbench.model.design import Design, Link, Network
from workbench.store import ProjectFileError, open_design, reader, save_design


def _many_links_design(n: int) -> Design:
    design = small_design()
    design.networks.append(Network("n3", "storage", plane="storage", speed_gbps=200.0))
    design.links = [
        Link(f"x{i}", "d0-0", f"osfp{i % 3}", "d1-0", "osfp0", network="n1", speed_gbps=400.0)
        for i in range(n)
    ]
    return design


def test_link_ends_are_the_devices_own_ids_and_ports_are_shared(tmp_path: Path) -> None:
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(40), path)
    opened = open_design(path)
    devices = {d.id: d.id for _, d in opened.iter_devices()}
    links = opened.links
    assert all(link.a_device is devices[link.a_device] for link in links)
    assert all(link.b_device is devices[link.b_device] for link in links)
    assert len({id(link.a_port) for link in links}) == 3
    assert len({id(link.network) for link in links}) == 1
    assert len({id(link.speed_gbps) for link in links}) == 1


def test_a_column_mixing_whole_and_fractional_numbers_keeps_each_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2 == 2.0, so sharing equal values across kinds would turn one into the other.
    (A column of REAL affinity stores 400 as 400.0; one rebuilt untyped keeps both.)"""
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(6), path)
    conn = sqlite3.connect(path)
    columns = [r[1] for r in conn.execute("PRAGMA table_info(links)")]
    names = ", ".join(columns)
    untyped = ", ".join("seq INTEGER PRIMARY KEY" if c == "seq" else c for c in columns)
    with conn:
        conn.execute(f"CREATE TABLE untyped ({untyped})")
        conn.execute(f"INSERT INTO untyped SELECT {names} FROM links")
        conn.execute("DROP TABLE links")
        conn.execute("ALTER TABLE untyped RENAME TO links")
        conn.execute("UPDATE links SET speed_gbps = 400 WHERE seq % 2 = 0")
    conn.close()
    monkeypatch.setattr(reader, "_CHUNK", 4)  # each chunk mixes the two
    opened = open_design(path)
    seqs = [r[0] for r in sqlite3.connect(path).execute("SELECT seq FROM links ORDER BY seq")]
    expected = [int if seq % 2 == 0 else float for seq in seqs]
    assert [type(link.speed_gbps) for link in opened.links] == expected
    assert int in expected and float in expected


@pytest.mark.parametrize("chunk", [1, 2, 3, 7])
def test_read_in_small_chunks_the_design_is_the_one_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    design = _many_links_design(11)
    path = tmp_path / "d.dcwb"
    save_design(design, path)
    monkeypatch.setattr(reader, "_CHUNK", chunk)
    opened = open_design(path)
    assert opened.links == design.links
    assert opened.sites == design.sites
    assert opened.storage_tiers == design.storage_tiers
    assert opened.workloads == design.workloads


def test_a_bad_row_in_a_late_chunk_is_named_by_its_seq_and_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(11), path)
    conn = sqlite3.connect(path)
    seq = conn.execute("SELECT seq FROM links WHERE id = 'x9'").fetchone()[0]
    with conn:
        conn.execute("UPDATE links SET a_device = 'ghost' WHERE id = 'x9'")
    conn.close()
    monkeypatch.setattr(reader, "_CHUNK", 2)
    with pytest.raises(ProjectFileError, match=rf"links row {seq} \(id 'x9'\), a_device"):
        open_design(path)


def _changed(path: Path, sql: str, *params: object) -> None:
    """``path`` changed by one statement, as a stranger's tool would."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(sql, params)
    conn.close()


def _order(path: Path) -> dict[str, reader.Rows]:
    from workbench.store import header

    conn = header.load(path)
    header.check(path, conn)
    return reader._read(path, conn)[1]


@pytest.mark.parametrize("chunk", [1, 4, 8192])
def test_the_distinct_values_handed_to_the_checks_are_each_columns_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """The value checks take a shared column's distinct values from its pool instead of
    walking the objects: they must be exactly the set of the column, and present."""
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(13), path)
    monkeypatch.setattr(reader, "_CHUNK", chunk)
    order = _order(path)
    for name in ("links", "devices", "racks"):
        rows = order[name]
        assert rows.distinct, name
        for column, values in rows.distinct.items():
            column_values = [getattr(obj, column) for obj in rows.objects]
            assert values == set(column_values), (name, column)
            assert {type(v) for v in values} == {type(v) for v in column_values}


def test_a_column_left_unshared_is_not_handed_over_and_still_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk mixing kinds is not shared, so its pool lacks its values: the checks walk
    that column themselves and refuse a bad value in it."""
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(8), path)
    conn = sqlite3.connect(path)
    columns = [r[1] for r in conn.execute("PRAGMA table_info(links)")]
    names = ", ".join(columns)
    untyped = ", ".join("seq INTEGER PRIMARY KEY" if c == "seq" else c for c in columns)
    with conn:
        conn.execute(f"CREATE TABLE untyped ({untyped})")
        conn.execute(f"INSERT INTO untyped SELECT {names} FROM links")
        conn.execute("DROP TABLE links")
        conn.execute("ALTER TABLE untyped RENAME TO links")
        conn.execute("UPDATE links SET speed_gbps = 400 WHERE seq % 2 = 0")
    conn.close()
    monkeypatch.setattr(reader, "_CHUNK", 4)
    assert "speed_gbps" not in (_order(path)["links"].distinct or {})
    _changed(path, "UPDATE links SET speed_gbps = 9000 WHERE id = 'x6'")
    with pytest.raises(ProjectFileError, match=r"\(id 'x6'\), speed_gbps"):
        open_design(path)


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("a_port", "osfp\x07"),
        ("b_port", ""),
        ("network", "ghost"),
        ("cable_type", "string"),
        ("a_device", "ghost"),
        ("b_device", "d9-9"),
    ],
)
def test_a_bad_value_in_a_shared_column_is_refused_by_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, column: str, value: str
) -> None:
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(11), path)
    conn = sqlite3.connect(path)
    seq = conn.execute("SELECT seq FROM links WHERE id = 'x9'").fetchone()[0]
    with conn:
        conn.execute(f"UPDATE links SET {column} = ? WHERE id = 'x9'", (value,))
    conn.close()
    monkeypatch.setattr(reader, "_CHUNK", 4)
    with pytest.raises(ProjectFileError, match=rf"links row {seq} \(id 'x9'\), {column}: "):
        open_design(path)


def test_link_ends_are_proven_known_only_when_every_one_was_a_device(tmp_path: Path) -> None:
    """The checks skip looking link ends up only when the reader found each among the
    device ids; one end naming anything else takes the proof away for the table."""
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(5), path)
    assert _order(path)["links"].known_ends == {"a_device", "b_device"}
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE links SET b_device = 'ghost' WHERE id = 'x3'")
    conn.close()
    assert _order(path)["links"].known_ends == frozenset()


@pytest.mark.parametrize("length", [None, 3.5, -1.0])
def test_lengths_are_handed_over_only_while_every_chunk_holds_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, length: float | None
) -> None:
    """Cable lengths are not pooled (once measured, most differ), but a column of
    none is handed over as {None}; one length in a late chunk takes that away, and a
    bad one there is still refused by its row."""
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(11), path)
    monkeypatch.setattr(reader, "_CHUNK", 4)
    assert _order(path)["links"].distinct["length_m"] == {None}  # type: ignore[index]
    seq = sqlite3.connect(path).execute("SELECT seq FROM links WHERE id = 'x9'").fetchone()[0]
    _changed(path, "UPDATE links SET length_m = ? WHERE id = 'x9'", length)
    if length is not None and length < 0:
        with pytest.raises(ProjectFileError, match=rf"links row {seq} \(id 'x9'\), length_m: "):
            open_design(path)
        return
    distinct = _order(path)["links"].distinct or {}
    assert ("length_m" in distinct) == (length is None)
    assert [link.length_m for link in open_design(path).links].count(length) >= 1


@pytest.mark.parametrize("gap", [False, True])
def test_the_seqs_handed_over_are_the_rows_own_with_or_without_a_gap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gap: bool
) -> None:
    """Where seq is the rowid it is not fetched: the seqs are the range from the lowest
    to the highest when no row is missing between them, read otherwise; either way
    each row's own, and a message names the right one."""
    path = tmp_path / "d.dcwb"
    save_design(_many_links_design(11), path)
    conn = sqlite3.connect(path)
    with conn:
        if gap:
            conn.execute("DELETE FROM links WHERE id = 'x4'")
            conn.execute("UPDATE links SET seq = seq + 100 WHERE id = 'x10'")
    expected = [r[0] for r in conn.execute("SELECT seq FROM links ORDER BY seq")]
    conn.close()
    monkeypatch.setattr(reader, "_CHUNK", 4)
    order = _order(path)
    assert list(order["links"].seqs or ()) == expected
    assert isinstance(order["links"].seqs, range) == (not gap)
    assert list(order["devices"].seqs or ()) == list(range(1, len(order["devices"].objects) + 1))
    _changed(path, "UPDATE links SET b_port = '' WHERE id = 'x10'")
    with pytest.raises(ProjectFileError, match=rf"links row {expected[-1]} \(id 'x10'\)"):
        open_design(path)
