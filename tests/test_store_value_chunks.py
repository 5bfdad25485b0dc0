"""The whole-column checks of ``store.value_table`` walk long columns a chunk at a
time (so a check on a thread hands the window its turn): the verdicts must be those of
one pass over the whole column, wherever in it the value that decides them stands."""

from __future__ import annotations

import pytest

from workbench.store.value_table import CHUNK, _plain_texts, _types

N = 2 * CHUNK + 17


def _ids() -> list[str]:
    return [f"l{i:07d}" for i in range(N)]


@pytest.mark.parametrize("at", [0, CHUNK - 1, CHUNK, N - 1])
def test_a_bad_text_in_any_chunk_is_found(at: int) -> None:
    assert _plain_texts(_ids(), _ids(), 64, blank_ok=False)
    for bad in ("l\x00", "l\u202e1", "é"):
        column = _ids()
        column[at] = bad
        assert not _plain_texts(column, column, 64, blank_ok=False), (at, bad)
    column = _ids()
    column[at] = 5  # not text at all
    assert not _plain_texts(column, column, 64, blank_ok=False)


@pytest.mark.parametrize("at", [0, CHUNK, N - 1])
def test_a_blank_in_any_chunk_is_found(at: int) -> None:
    column = _ids()
    column[at] = "   "
    assert not _plain_texts(column, set(column), 64, blank_ok=False)
    assert _plain_texts(column, set(column), 64, blank_ok=True)
    column[at] = "a b"  # a space, but not blank
    assert _plain_texts(column, set(column), 64, blank_ok=False)


def test_types_of_every_chunk() -> None:
    column: list[object] = list(range(N))
    column[N - 1] = 2.0
    assert _types(column) == set(map(type, column)) == {int, float}
    assert _types(iter(column)) == {int, float}
    assert _types([]) == set()
