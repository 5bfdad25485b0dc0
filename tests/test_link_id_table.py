"""The link id table the window's warm-up builds in steps
(:class:`workbench.model.link_places.HashedShards` behind ``DesignIndex.links``) must
answer exactly as one dict: after random adds, removals and undos every lookup, count
and key check equals a plain dict's (the design's own edits on it: see
tests/test_link_positions.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.model import link_places
from workbench.model.link_places import HashedShards

_KEYS = st.text(alphabet="lx0123456789", min_size=1, max_size=4)
_OPS = st.lists(
    st.tuples(st.sampled_from(["add", "set", "pop", "del", "undo"]), _KEYS, st.integers()),
    max_size=80,
)


def _same(table: HashedShards[int], plain: dict[str, int], probes: list[str]) -> None:
    assert len(table) == len(plain)
    assert sorted(table) == sorted(plain)
    assert dict(table.items()) == plain
    for key in probes:
        assert table.get(key) == plain.get(key)
        assert (key in table) == (key in plain)
        assert table.keys().isdisjoint({key}) == plain.keys().isdisjoint({key})
    assert set(probes) - table.keys() == set(probes) - plain.keys()
    held = [key for key in probes if key in plain]
    assert table.values_of(held) == [plain[key] for key in held]
    if len(held) < len(probes):
        with pytest.raises(KeyError):
            table.values_of(probes)
    for number, shard in enumerate(table._shards):  # each key where its hash sends it
        assert all(hash(key) & table._mask == number for key in shard)


@settings(max_examples=200, deadline=None)
@given(start=st.lists(_KEYS, max_size=40), ops=_OPS)
def test_answers_as_a_dict_after_random_edits(start: list[str], ops) -> None:
    table: HashedShards[int] = HashedShards(16 * link_places.ROUTED)  # 16 shards
    assert len(table._shards) == 16
    table.add_pairs(start, range(len(start)))
    plain = dict(zip(start, range(len(start)), strict=True))
    undo: list[tuple[str, int]] = []
    for kind, key, value in ops:
        if kind == "add":
            table.add_pairs([key], [value])
            plain.update({key: value})
        elif kind == "set":
            table[key] = value
            plain[key] = value
        elif kind == "pop" and key in plain:
            gone = table.pop(key, None)
            assert gone == plain.pop(key, None)
            if gone is not None:
                undo.append((key, gone))
        elif kind == "pop" and key not in plain:
            assert table.pop(key, None) is None
            with pytest.raises(KeyError):
                table.pop(key)
        elif kind == "del" and key in plain:
            del table[key]
            undo.append((key, plain.pop(key)))
        elif kind == "undo" and undo:
            back, was = undo.pop()
            table.add_pairs([back], [was])
            plain[back] = was
    _same(table, plain, [*start, *(key for _kind, key, _value in ops), "absent"])


def test_the_index_names_links_in_the_order_asked_from_either_table() -> None:
    """DesignIndex.links_named reads the link table as it is: a dict (built on first
    read) or the shards the window's warm-up builds; both give the links asked, in
    order, and refuse an id they do not hold."""
    from workbench.model import Design, Link
    from workbench.model.index import DesignIndex

    links = [Link(f"l{n:03}", f"a{n % 3}", f"p{n}", f"b{n % 5}", "q1") for n in range(40)]
    design = Design(name="d", links=links)
    asked = [f"l{n:03}" for n in (7, 3, 39, 0, 3)]
    want = [links[int(i[1:])] for i in asked]
    built, stepped = DesignIndex(design), DesignIndex(design)
    assert isinstance(built.links, dict)
    for _step in stepped.link_tables_in_steps(7):
        pass
    assert isinstance(stepped.links, HashedShards)
    for index in (built, stepped):
        assert index.links_named(asked) == want
        with pytest.raises(KeyError):
            index.links_named(["l001", "absent"])
