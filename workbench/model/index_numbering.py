"""How the design index numbers things: the ids it hands out to new objects, and the
log of devices coming and going that kept tables renumber their devices from.

Kept apart from :mod:`workbench.model.index` (as mixins of
:class:`~workbench.model.index.DesignIndex`, which sets every attribute declared here)
so that the index's module stays small: these methods read the id tables and the link
id runs (:class:`~workbench.model.id_numbers.NumberedRuns`: a 1,000,000-GPU template's
4.4 million link ids checked by arithmetic instead of a table), and nothing else of the
index but what is declared below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence, Set
from operator import attrgetter
from typing import TYPE_CHECKING, cast

from workbench.model.id_numbers import (
    ID_SHAPES,
    NumberedRuns,
    batch_free,
    highest_number,
    spelled_batch,
)

if TYPE_CHECKING:
    from workbench.model.parts import Device, Link, Rack, Row, Site, Workload

#: A link's id.
_LINK_ID = attrgetter("id")

#: The most ids :meth:`NewIds.none_in_use` reads one by one against the link id runs;
#: more (an undone removal of thousands of links) build the link table instead.
_RUNS_READ_IDS = 4096

#: Device comings and goings :meth:`DeviceLog.devices_since` keeps at least.
_DEVICE_LOG_LENGTH = 1024


class NewIds:
    """Fresh ids for new objects, and whether ids are in use, asked of the link id runs
    while those hold (see :meth:`_link_runs_now`) and of the link table otherwise."""

    # Set by DesignIndex.__init__ (see there for what each holds).
    sites: dict[str, Site]
    rows: dict[str, tuple[Site, Row]]
    racks: dict[str, tuple[Row, Rack]]
    devices: dict[str, tuple[Rack, Device]]
    workloads: dict[str, Workload]
    _links: MutableMapping[str, Link] | None
    _link_list: list[Link]
    _next: dict[str, int]
    _link_runs: NumberedRuns | None
    _run_batches: list[Sequence[Link]]
    _run_values: dict[str, tuple[set[object], list[set[object]]]]
    _issued: tuple[int, list[str]] | None
    #: A property of DesignIndex (the link table, built on first read).
    links: MutableMapping[str, Link]

    def in_use(self, object_id: str) -> bool:
        """Whether any object has this id (asked for every id a generator hands out:
        a million at 1,000,000 GPUs, so no table of tables is built per call)."""
        return (
            object_id in self.devices
            or object_id in self.racks
            or object_id in self.rows
            or object_id in self.sites
            or object_id in self.workloads
            or self._is_link_id(object_id)
        )

    def none_in_use(self, ids: set[str]) -> bool:
        """Whether no object has any of ``ids`` (what every add asks of its new ids)."""
        tables = (self.devices, self.racks, self.rows, self.sites, self.workloads)
        if not all(table.keys().isdisjoint(ids) for table in tables):
            return False
        runs = self._link_runs_now()
        if runs is not None and len(ids) <= _RUNS_READ_IDS:
            return not any(map(runs.holds, ids))
        return self.links.keys().isdisjoint(ids)

    def fresh_batch(self, ids: list[str]) -> bool:
        """Whether ``ids`` are, in order, the link ids :meth:`new_ids` handed out last
        (so distinct, non-empty text), and still no object has one.  A generated fabric's
        links are checked so: not hashed into a set of millions, or against their table."""
        issued = self._issued
        if issued is None or len(ids) != len(issued[1]) or ids != issued[1]:
            return False
        prefix, digits = ID_SHAPES["link"]
        return self._batch_free(prefix, digits, issued[0], issued[1])

    def _is_link_id(self, object_id: str) -> bool:
        runs = self._link_runs_now()
        return runs.holds(object_id) if runs is not None else object_id in self.links

    def _link_runs_now(self) -> NumberedRuns | None:
        """The link id runs, when they still hold exactly the list's links' ids and the
        link tables are not built (which answer otherwise).

        Why: a template's 4.4 million links (1,000,000 GPUs) come in batches of ids from
        :meth:`new_ids`; building :attr:`links` only to check each new id against them
        was a tenth of the build, and the table is not read otherwise before the file
        is written.  A link added with any other id, or any link removed, ends the runs;
        a list whose length no longer matches them was changed behind the index's back."""
        runs = self._link_runs
        if runs is None or self._links is not None:
            return None
        if runs.count != len(self._link_list):
            self._end_runs()
            return None
        return runs

    def _take_in_runs(self, links: Sequence[Link], ids: list[str] | None) -> None:
        """Keep the link id runs for ``links``, just put in the list: only a batch of
        exactly the ids :meth:`new_ids` handed out last keeps them."""
        runs, issued = self._link_runs, self._issued
        assert runs is not None
        if issued is not None and len(links) == len(issued[1]):
            listed = ids if ids is not None else list(map(_LINK_ID, links))
            if listed == issued[1] and runs.add(issued[0], issued[0] + len(links)):
                self._issued = None
                self._run_batches.append(links if isinstance(links, tuple) else tuple(links))
                return
        self._end_runs()

    def _end_runs(self) -> None:
        self._link_runs = None
        self._run_batches, self._run_values = [], {}

    def link_values(self, name: str) -> set[object] | None:
        """The values the links' field ``name`` (``network``, ``a_port`` ...) takes, while
        the link id runs hold; None otherwise, for the caller to read the list.

        While they hold, every link came in a batch and none has changed or left since
        (an edit of a link reads the link table first, which ends them), so each batch
        is read once per field, when first asked, instead of all 4.4 million links of a
        1,000,000-GPU template per question (is a plane cabled yet? which host ports
        are taken?).  The set is the index's own: read it, do not change it."""
        found = self._batch_values(name)
        return None if found is None else found[0]

    def link_batches_with(self, name: str, wanted: Set[object]) -> list[Sequence[Link]] | None:
        """The batches of links (see :meth:`link_values`) in which some link's field
        ``name`` has a value of ``wanted``, in list order; None when the runs do not hold.

        Why: the out-of-band plane asks which of its host ports the links hold already,
        and at 1,000,000 GPUs only the management plane's 165,000 links name those
        ports, not the compute plane's 3 million: its batch is skipped unread."""
        found = self._batch_values(name)
        if found is None:
            return None
        return [
            batch
            for batch, met in zip(self._run_batches, found[1], strict=True)
            if not met.isdisjoint(wanted)
        ]

    def _batch_values(self, name: str) -> tuple[set[object], list[set[object]]] | None:
        """The values of the links' field ``name``, in all and per batch, each batch read
        once (see :meth:`link_values`); None when the runs do not hold."""
        if self._link_runs_now() is None:
            return None
        values, per_batch = self._run_values.setdefault(name, (set(), []))
        field = attrgetter(name)
        for batch in self._run_batches[len(per_batch) :]:
            met = set(map(field, batch))
            per_batch.append(met)
            values |= met
        return values, per_batch

    def _batch_free(self, prefix: str, digits: int, first: int, batch: list[str]) -> bool:
        """Whether no object has an id of ``batch`` (see :func:`batch_free`), the links
        asked by their runs while those hold."""
        tables: list[Mapping[str, object]] = [
            self.devices,
            self.racks,
            self.rows,
            self.sites,
            self.workloads,
        ]
        runs = self._link_runs_now()
        if runs is None:
            tables.insert(0, self.links)
        elif runs.meets_batch(prefix, digits, first, batch):
            return False
        return batch_free(tables, prefix, digits, first, batch)

    def new_id(self, kind: str) -> str:
        """An id for a new object of ``kind`` that no object of any kind has.

        Numbers continue after the highest one in use with the same prefix among objects
        of that kind, so new ids sort after the template's and are never reused within a
        session.
        """
        prefix, digits = ID_SHAPES[kind]
        n = self._first_number(kind, prefix)
        while True:
            candidate = f"{prefix}{n:0{digits}d}"
            n += 1
            if not self.in_use(candidate):
                self._next[kind] = n
                return candidate

    def new_ids(self, kind: str, count: int) -> list[str]:
        """``count`` fresh ids of ``kind`` at once (a generated fabric's links): the
        same ids that many :meth:`new_id` calls would give, none of them in use yet.

        They are reserved only against each other; add the objects before asking again.
        """
        ids: list[str] = []
        prefix, digits = ID_SHAPES[kind]
        n = self._first_number(kind, prefix)
        # The next ``count`` numbers are nearly always free: take them in one go (see
        # spelled_batch: 4.4 million link ids at 1,000,000 GPUs).
        batch = spelled_batch(prefix, digits, n, count)
        if self._batch_free(prefix, digits, n, batch):
            self._next[kind] = n + count
            if kind == "link":
                self._issued = (n, batch.copy())
            return batch
        while len(ids) < count:
            candidate = f"{prefix}{n:0{digits}d}"
            n += 1
            if not self.in_use(candidate):
                ids.append(candidate)
        self._next[kind] = n
        return ids

    def first_number_in_steps(
        self, kind: str, chunk: int, unmoved: Callable[[], bool]
    ) -> Iterator[None]:
        """Find where new ids of ``kind`` start (:meth:`_first_number`) ``chunk`` ids
        per step (the window's warm-up: the first drop at 100,000 GPUs read 30,000
        device ids for it in one go, ~40 ms).  Kept only while ``unmoved()`` says no
        edit came meanwhile and no id of that kind was handed out."""
        if kind in self._next or kind == "link":
            return
        prefix = ID_SHAPES[kind][0]
        tables: dict[str, Mapping[str, object]] = {
            "device": self.devices,
            "rack": self.racks,
            "row": self.rows,
        }
        ids, best = list(tables[kind]), 0
        for start in range(0, len(ids), max(1, chunk)):
            yield
            if not unmoved():
                return
            best = max(best, highest_number(ids[start : start + max(1, chunk)], prefix))
        if unmoved() and kind not in self._next:
            self._next[kind] = best + 1

    def _first_number(self, kind: str, prefix: str) -> int:
        """The number the next id of ``kind`` starts from: where this session left off,
        else one past the highest in use among objects of that kind."""
        n = self._next.get(kind)
        if n is not None:
            return n
        if kind == "link":
            runs = self._link_runs_now()
            return (runs.highest() if runs is not None else highest_number(self.links, prefix)) + 1
        tables: dict[str, Mapping[str, object]] = {
            "device": self.devices,
            "rack": self.racks,
            "row": self.rows,
            "site": self.sites,
            "workload": self.workloads,
        }
        return highest_number(tables[kind], prefix) + 1


class DeviceLog:
    """The device ids that came into or left :attr:`DesignIndex.devices`: the order of
    that table is what numbers devices in the fabric's tables, and a table kept across
    an edit is renumbered from this log instead of from the whole table."""

    # Set by DesignIndex.__init__ (see there).
    _device_log: list[tuple[str, bool]] | None
    _device_log_from: int

    def device_mark(self) -> int:
        """A mark for :meth:`devices_since`: how many devices came or went so far."""
        if self._device_log is None:
            self._device_log = []
        return self._device_log_from + len(self._device_log)

    def devices_since(self, mark: int) -> list[tuple[str, bool]] | None:
        """The device ids that came into (True) or left (False) :attr:`devices` since
        ``mark``, oldest first; None when that is no longer logged."""
        log = self._device_log
        if log is None or not self._device_log_from <= mark <= self._device_log_from + len(log):
            return None
        return log[mark - self._device_log_from :]

    def _log_device(self, device_id: str, came: bool) -> None:
        log = cast("list[tuple[str, bool]]", self._device_log)
        log.append((device_id, came))
        if len(log) > 2 * _DEVICE_LOG_LENGTH:
            del log[:_DEVICE_LOG_LENGTH]
            self._device_log_from += _DEVICE_LOG_LENGTH
