"""Where each link stands in the design's list, held in tables of bounded size.

Why: :meth:`DesignIndex.link_positions` keeps one entry per link (4.4 million at
1,000,000 GPUs).  Built in steps after the first frame, one dict of that size grows by
doubling, and each doubling copies the whole table inside one step: 170-190 ms of
blocked input at 1,000,000 GPUs.  Built in steps, the places go to a run of dicts of
at most :data:`SHARD` entries each (consecutive places: each run is filed by one C-level
``update``), so a doubling copies one shard at most; a lookup asks each shard in turn
(68 at 1,000,000 GPUs, a few microseconds a link, and a removal looks up a few links).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView, MutableMapping
from typing import TypeVar

#: Most entries one shard takes before the next one is started.
SHARD = 1 << 16

#: About how many entries each of :class:`HashedShards`' dicts ends with: small, so
#: that their doublings, which come together (each takes an even share of the keys), are
#: spread over many steps by chance (a shard's count varies by about its square root).
ROUTED = 1 << 12

V = TypeVar("V")


class LinkPlaces:
    """link id → place in the design's list, over one or more dicts; an id is in one."""

    __slots__ = ("_shards",)

    def __init__(self, shards: list[dict[str, int]] | None = None) -> None:
        self._shards: list[dict[str, int]] = shards if shards is not None else [{}]

    @classmethod
    def of(cls, ids: Iterable[str]) -> LinkPlaces:
        """The places of ``ids`` (the list's order is the place) read in one go, in one
        dict: two links with one id then show as one entry short."""
        return cls([{key: place for place, key in enumerate(ids)}])

    def add_run(self, ids: list[str], start: int) -> None:
        """File ``ids`` as standing at ``start``, ``start + 1``, … of the list.  An id
        already filed in another shard would be kept twice: the caller tells (see
        :meth:`DesignIndex.link_positions_in_steps`)."""
        last = self._shards[-1]
        if len(last) >= SHARD:
            last = {}
            self._shards.append(last)
        last.update(zip(ids, range(start, start + len(ids)), strict=True))

    def get(self, key: str) -> int | None:
        for shard in self._shards:
            place = shard.get(key)
            if place is not None:
                return place
        return None

    def __setitem__(self, key: str, place: int) -> None:
        for shard in self._shards:
            if key in shard:
                shard[key] = place
                return
        self._shards[-1][key] = place

    def __len__(self) -> int:
        return sum(map(len, self._shards))


class HashedShards(MutableMapping[str, V]):
    """key → value over a fixed number of dicts, a key's dict chosen by its hash.

    Why: :attr:`DesignIndex.links` built in the window's warm-up steps as one dict grew
    by doubling, each doubling a copy of millions of entries inside one step (~175 ms
    at 1,000,000 GPUs, ~27 ms at 100,000).  With the shard count fixed for the size read
    (each shard near :data:`SHARD` entries), no step copies more than one shard, and a
    lookup asks one dict, not each in turn as :class:`LinkPlaces` does (its runs are
    filed in C, in place order; here every key is routed).  Two entries with one key
    land in one shard, so the table answers exactly as one dict (the last one wins;
    ``len`` counts a key once); only the iteration order differs (shard by shard)."""

    __slots__ = ("_mask", "_shards")

    def __init__(self, size: int) -> None:
        ways = 1
        while ways * ROUTED < size:
            ways *= 2
        self._mask = ways - 1
        self._shards: list[dict[str, V]] = [{} for _ in range(ways)]

    def add_pairs(self, keys: Iterable[str], values: Iterable[V]) -> None:
        """``dict.update(zip(keys, values))``."""
        shards, mask = self._shards, self._mask
        if not mask:
            shards[0].update(zip(keys, values, strict=True))
            return
        for key, value in zip(keys, values, strict=True):
            shards[hash(key) & mask][key] = value

    def shard_sizes(self) -> list[int]:
        """Entries per shard (for tests)."""
        return list(map(len, self._shards))

    def get(self, key: str, default: V | None = None) -> V | None:  # type: ignore[override]
        return self._shards[hash(key) & self._mask].get(key, default)

    def __getitem__(self, key: str) -> V:
        return self._shards[hash(key) & self._mask][key]

    def __contains__(self, key: object) -> bool:
        return key in self._shards[hash(key) & self._mask]

    def __setitem__(self, key: str, value: V) -> None:
        self._shards[hash(key) & self._mask][key] = value

    def __delitem__(self, key: str) -> None:
        del self._shards[hash(key) & self._mask][key]

    def pop(self, key: str, *default: object) -> object:  # type: ignore[override]
        return self._shards[hash(key) & self._mask].pop(key, *default)

    def __iter__(self) -> Iterator[str]:
        for shard in self._shards:
            yield from shard

    def __len__(self) -> int:
        return sum(map(len, self._shards))

    def keys(self) -> KeysView[str]:
        return _ShardKeys(self)


class _ShardKeys(KeysView[str]):
    """Keys of a :class:`HashedShards`: ``isdisjoint`` asks each shard in C (a new id
    batch's check, 300,000 ids when a fabric is generated)."""

    _mapping: HashedShards[object]

    def isdisjoint(self, other: Iterable[object]) -> bool:
        ids = other if isinstance(other, (set, frozenset)) else set(other)
        return all(shard.keys().isdisjoint(ids) for shard in self._mapping._shards)
