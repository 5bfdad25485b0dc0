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

from collections.abc import Iterable

#: Most entries one shard takes before the next one is started.
SHARD = 1 << 16


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
