"""Where each link stands in the design's list, held in tables of bounded size.

Why: :meth:`DesignIndex.link_positions` keeps one entry per link (4.4 million at
1,000,000 GPUs).  Built in steps after the first frame, one dict of that size grows by
doubling, and each doubling copies the whole table inside one step: 170-190 ms of
blocked input at 1,000,000 GPUs.  Built in steps, the places go to a run of dicts of
at most :data:`SHARD` entries each (consecutive places: each run is filed by one C-level
``update``), so a doubling copies one shard at most; a lookup asks each shard in turn
(68 at 1,000,000 GPUs, a few microseconds a link, and a removal looks up a few links).

The index's methods that keep and search those places are here too, as the mixin
:class:`LinkPositions` of :class:`~workbench.model.index.DesignIndex`, so the index's
module stays small.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView, MutableMapping
from operator import attrgetter
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from workbench.model.parts import Link

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

    def values_of(self, keys: Iterable[str]) -> list[V]:
        """``[self[key] for key in keys]`` without a method call per key: a rule reads
        a switch's 289 links at a time (KeyError for a key that is not here)."""
        shards, mask = self._shards, self._mask
        return [shards[hash(key) & mask][key] for key in keys]

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


#: A link's id.
_LINK_ID = attrgetter("id")

#: Links taken out of or put into the list after which :meth:`LinkPositions.link_positions`
#: reads the whole list again rather than search that far around each link's old place.
_LINK_DRIFT = 2048


class LinkPositions:
    """Where each link stands in the design's list, kept by the index (a mixin of
    :class:`~workbench.model.index.DesignIndex`): a removal at 100,000 GPUs then reads a
    few places of the list instead of 443,000 links."""

    # Set by DesignIndex.__init__ (see there for what each holds).
    _link_at: LinkPlaces | None
    _links_out: int
    _links_in: int
    _links: MutableMapping[str, Link] | None
    _link_list: list[Link]
    fabric_version: int

    def link_positions(self, links: list[Link], wanted: Iterable[Link]) -> list[int] | None:
        """Where each of ``wanted`` stands in ``links`` (the design's list, which the
        edits keep in a saved order), found without reading the whole list: each link's
        place when the list was last read, searched outwards as far as the links taken
        out of and put into the list since then can have moved it.  A removal at 100,000
        GPUs then reads a few places instead of 443,000 links.

        None when the list holds two links with one id (a damaged file's), or a wanted
        link is not in it: the caller scans the list as before."""
        at = self._link_at
        if at is None or self._links_out + self._links_in > _LINK_DRIFT:
            at = self._read_link_positions(links)
            if at is None:
                return None
        found = []
        for link in wanted:
            hint = at.get(link.id)
            place = None if hint is None else self._near(links, link, hint)
            if place is None:  # a link the table has not seen, or an edit it missed
                at = self._read_link_positions(links)
                place = None if at is None else at.get(link.id)
                if at is None or place is None or links[place] is not link:
                    return None
            at[link.id] = place
            found.append(place)
        return found

    def link_positions_in_steps(self, chunk: int) -> Iterator[None]:
        """Read :meth:`link_positions`' table ``chunk`` links per step (the window's
        warm-up after opening a design): in one go it was 0.2-0.5 s of the first removal
        of a cabled node at 100,000 GPUs.  Kept only when no link came or went meanwhile
        (each bumps :attr:`fabric_version`) and no reader read it first.  Filed in
        shards of bounded size (:class:`LinkPlaces`): one growing dict of 4.4 million
        entries copied itself in single steps of 170-190 ms at 1,000,000 GPUs."""
        if self._link_at is not None:
            return
        version, links, step = self.fabric_version, self._link_list, max(1, chunk)
        at = LinkPlaces()
        for start in range(0, len(links), step):
            yield
            if self.fabric_version != version:
                return
            at.add_run(list(map(_LINK_ID, links[start : start + step])), start)
        # Two links with one id in two shards would both be filed: kept only when the id
        # table (built before, by the warm-up) says every id is once in the list.
        unique = self._links is not None and len(self._links) == len(links) == len(at)
        if self._link_at is None and self.fabric_version == version and unique:
            self._link_at, self._links_out, self._links_in = at, 0, 0

    def link_placed(self, link: Link, position: int) -> None:
        """``link`` was just put at ``position`` of the design's list."""
        if self._link_at is not None:
            self._link_at[link.id] = position

    def _read_link_positions(self, links: list[Link]) -> LinkPlaces | None:
        at = LinkPlaces.of(map(_LINK_ID, links))
        self._links_out = self._links_in = 0
        self._link_at = at if len(at) == len(links) else None
        return self._link_at

    def _near(self, links: list[Link], link: Link, hint: int) -> int | None:
        """``link``'s place in ``links``, searched outwards from ``hint`` (this very
        object: a link is in the list once)."""
        size = len(links)
        if hint < size and links[hint] is link:
            return hint
        down, up = self._links_out, self._links_in
        for step in range(1, max(down, up) + 1):
            if step <= down and 0 <= hint - step < size and links[hint - step] is link:
                return hint - step
            if step <= up and hint + step < size and links[hint + step] is link:
                return hint + step
        return None
