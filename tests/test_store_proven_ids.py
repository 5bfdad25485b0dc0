"""What SQLite proves of a file's ids beside the read (values.proven_ids) is only ever
what the Python checks would have found: a table it proves whose ids are printable
ASCII passes ``increasing`` with the same runs, so skipping that walk refuses no file
differently.  And the proof is not dead code: a design as the workbench numbers it is
proven.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from store_designs import full_design

from workbench.store import ProjectFileError, header, open_design, reader, save_design
from workbench.store.value_table import _plain_texts, increasing, runs_of
from workbench.store.values import OWN_IDS, SHARED_IDS, proven_ids
from workbench.text_rules import STORED_TEXT


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("proof") / "full.dcwb"
    save_design(full_design(), path)
    return path


def _with_link_ids(path: Path, rows: list[tuple[int, object]]) -> sqlite3.Connection:
    """The saved design in memory, its links replaced by ``rows`` of (seq, id)."""
    conn = header.load(path)
    conn.execute("DELETE FROM links")
    conn.executemany(
        "INSERT INTO links (seq, id, a_device, a_port, b_device, b_port) "
        "VALUES (?, ?, 'd1', 'p1', 'd2', 'p1')",
        rows,
    )
    return conn


def test_a_saved_design_is_proven(saved: Path) -> None:
    conn = header.load(saved)
    proven = proven_ids(conn)
    for name in ("sites", "rows", "links"):
        count = conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0]
        assert proven[name] == count
    assert set(proven) <= {*SHARED_IDS, *OWN_IDS}


def test_the_open_waits_for_the_proof(saved: Path) -> None:
    conn, integrity = header.load_checking(saved, proven_ids)
    conn.close()
    integrity.confirm()
    assert "links" in integrity.proven
    integrity.cancel()
    assert open_design(saved) == full_design()


def test_a_cancelled_open_leaves_no_thread_behind(saved: Path) -> None:
    conn, integrity = header.load_checking(saved, proven_ids)
    conn.close()
    integrity.cancel()
    assert not any(t.name == "quick_check" for t in threading.enumerate())


def test_an_older_schema_or_sql_error_proves_nothing(saved: Path) -> None:
    conn = header.load(saved)
    conn.execute("PRAGMA user_version = 1")
    assert proven_ids(conn) == {}
    conn = header.load(saved)
    conn.execute("ALTER TABLE links RENAME COLUMN id TO ident")
    assert proven_ids(conn) == {}


_ID_TEXT = st.sampled_from(
    ["", " ", "  ", "a", "b", "aa", "ab", "ba", "a b", "l9", "l10", "é", "a\x00", "\x00b"]
    + ["a\tb", "x\x7f", "y" * 64, "z" * 65, "\u200f"]
) | st.text(max_size=4)
_ID = _ID_TEXT | st.integers(-3, 3) | st.floats(allow_nan=False) | st.none() | st.binary(max_size=2)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ID, max_size=8), st.integers(0, 3), st.booleans())
def test_what_sql_proves_the_python_checks_find(
    saved: Path, values: list[object], gap_at: int, gap: bool
) -> None:
    seqs = [n + 1 + (gap and n >= gap_at) for n in range(len(values))]
    try:
        conn = _with_link_ids(saved, list(zip(seqs, values, strict=True)))
    except (sqlite3.Error, ValueError):  # a surrogate SQLite cannot take as text
        return
    proven = proven_ids(conn)
    column = [r[0] for r in conn.execute("SELECT id FROM links ORDER BY seq")]
    rule = STORED_TEXT["links.id"]
    if proven.get("links") == len(column):
        assert all(type(v) is str for v in column)
        assert not (gap and 1 <= gap_at < len(values))  # rows apart are not compared
        runs = runs_of(column)
        if _plain_texts(column, column, rule.limit, rule.blank_ok, runs.keys()):
            assert increasing(column) == runs
            assert all(rule.problem(v) is None for v in column)


def test_ordered_ids_are_proven_and_others_are_not(saved: Path) -> None:
    ordered = [(n, f"l{n}") for n in range(1, 120)]
    assert proven_ids(_with_link_ids(saved, ordered))["links"] == len(ordered)
    for bad in (
        [(1, "l2"), (2, "l1")],  # not in order
        [(1, "l1"), (2, "l1")],  # a repeat
        [(1, "l1"), (3, "l2")],  # a gap: rows 1 and 3 are not compared
        [(1, "l1"), (2, 7)],
    ):
        assert "links" not in proven_ids(_with_link_ids(saved, bad)), bad


@pytest.mark.parametrize(
    "ids",
    [
        ["l1", "l2\x00"],  # SQLite's length stops at the NUL: proven, but not ASCII
        ["l1", "l2", "é3"],
        ["l1", "l2", "l3\x07"],
        ["", "l1", "l2"],  # in order, but blank
        ["l1", "x" * 65],
        ["l9", "l10", "l9"],
    ],
)
def test_a_file_is_refused_or_opened_as_without_the_proof(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ids: list[str]
) -> None:
    path = tmp_path / "ids.dcwb"
    save_design(full_design(), path)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM links")
        conn.executemany(
            "INSERT INTO links (seq, id, a_device, a_port, b_device, b_port) "
            "VALUES (?, ?, 'd1', 'p1', 'd2', 'p1')",
            list(enumerate(ids, 1)),
        )
    conn.close()

    def outcome() -> str:
        try:
            return repr(open_design(path).links)
        except ProjectFileError as exc:
            return str(exc)

    with_proof = outcome()
    monkeypatch.setattr(reader, "proven_ids", lambda conn: {})
    assert with_proof == outcome()
