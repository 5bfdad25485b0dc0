"""Which dataclass each table holds, and how its columns map onto fields, by name.

The writer and the reader both work from these bindings and from
:data:`workbench.store.schema.COLUMNS`, never from positions: a column is stored from the
field of the same name and read back into it as a keyword argument, so adding a field to
a model class (anywhere in it) and a column to the schema (always at the end, by a
migration) can never shift one value into another's place.

A table's columns are of three kinds:

* **keys**, which are not fields: the object's position in its list (``seq``) and, for the
  site/row/rack/device tree, the ``seq`` of its parent (``site_seq`` ...);
* **JSON columns**, fields holding a list or a mapping, stored as JSON text;
* every other column, stored as the field's plain value.

Fields that are lists of children (``Rack.devices``) live in the child's table, whose name
is the field's name.  ``meta`` (a key/value table) and ``catalog_snapshot`` (the design's
``device_types``) are not bindings; the writer and reader handle them by name as well.
``tests/test_store_binding.py`` proves that every field of every model class is stored.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from workbench.model.design import (
    Device,
    Link,
    Network,
    Rack,
    Row,
    Site,
    SoftwareStack,
    StorageTier,
    Team,
    Waiver,
    Workload,
)
from workbench.store import acceptance_table, capture_table, schema, version_tables


@dataclass(frozen=True)
class Binding:
    """How one table maps onto one dataclass."""

    table: str
    cls: type
    #: The columns that are not fields, in the order they lead each row: ``seq`` and,
    #: for a child table, the parent's seq column.
    keys: tuple[str, ...] = ("seq",)
    #: The table whose objects own these ones (their list is the field named like this
    #: table); None for the design's own lists.
    parent: str | None = None
    #: Fields stored as JSON text.
    json: frozenset[str] = frozenset()
    #: Those of them whose None is stored as NULL (an optional field); any other None
    #: is stored as JSON ``null``, as it always was.  Both read back as None.
    json_nullable: frozenset[str] = frozenset()
    #: The field holding this object's children (stored in the table of that name).
    children: str | None = None

    @property
    def fields(self) -> tuple[str, ...]:
        """The columns that are fields, in :data:`schema.COLUMNS` order."""
        return tuple(c for c in schema.COLUMNS[self.table] if c not in self.keys)

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column, in the order of the rows the writer makes and the reader selects."""
        return self.keys + self.fields


def _binding(
    table: str,
    cls: type,
    *,
    parent: tuple[str, str] | None = None,
    json: tuple[str, ...] = (),
    json_nullable: tuple[str, ...] = (),
    children: str | None = None,
) -> Binding:
    """A binding; ``parent`` is (parent table, the column holding the parent's seq)."""
    keys: tuple[str, ...] = ("seq",)
    parent_table: str | None = None
    if parent is not None:
        parent_table, keys = parent[0], ("seq", parent[1])
    return Binding(
        table,
        cls,
        keys,
        parent_table,
        frozenset(json) | frozenset(json_nullable),
        frozenset(json_nullable),
        children,
    )


#: The site/row/rack/device tree, parents before children.
TREE: tuple[Binding, ...] = (
    _binding("sites", Site, children="rows"),
    _binding("rows", Row, parent=("sites", "site_seq"), children="racks"),
    _binding("racks", Rack, parent=("rows", "row_seq"), children="devices"),
    _binding("devices", Device, parent=("racks", "rack_seq")),
)

#: The design's flat lists, each held in the :class:`~workbench.model.design.Design`
#: field named like its table.
LISTS: tuple[Binding, ...] = (
    _binding("networks", Network),
    _binding("links", Link),
    _binding(
        "storage_tiers", StorageTier, json=("device_ids",), json_nullable=("gpudirect_storage",)
    ),
    _binding(
        "workloads",
        Workload,
        json=("sequence_parallel", "flash_attention", "plan_at_30"),
        json_nullable=("model_config",),
    ),
    _binding("software_stacks", SoftwareStack, json=("components",)),
    _binding("waivers", Waiver),
    _binding("teams", Team),
)

#: Every binding by table name.
BINDINGS: dict[str, Binding] = {b.table: b for b in TREE + LISTS}

#: The :class:`~workbench.model.design.Design` fields kept in the ``meta`` table.
META_FIELDS: tuple[str, ...] = ("name", "properties")


def getter(b: Binding) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving an object's field values as a tuple in ``b.fields`` order.

    ``operator.attrgetter`` of several names does it in C, once per row; one name gets
    a one-element tuple too, so every row can be built as ``keys + getter(obj)``.
    """
    names = b.fields
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


#: The columns of the row tuples the writer makes for the tables that hold no dataclass.
UNBOUND_COLUMNS: dict[str, tuple[str, ...]] = {
    "meta": ("key", "value"),
    "catalog_snapshot": ("seq", "slug", "kind", "raw"),
    **version_tables.COLUMNS,
    **acceptance_table.COLUMNS,
    **capture_table.COLUMNS,
}

#: Design fields stored by their own module rather than a binding: the version matrix
#: (workbench.store.version_tables), acceptance results and as-built captures.
OTHER_FIELDS: tuple[str, ...] = ("versions", "acceptance", "captures")


def row_columns(table: str) -> tuple[str, ...]:
    """The columns, in order, of the row tuples the writer makes for ``table``."""
    b = BINDINGS.get(table)
    return UNBOUND_COLUMNS[table] if b is None else b.columns


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a design's rows or objects are made.

    Saving makes a tuple per row and opening an object per row (over 130,000 of each for
    100,000 GPUs), all of which live on until the save or open is done, so the collections
    that so much allocation triggers, each walking every object the process holds, find
    nothing to free.  Pausing them makes a big design open about a quarter faster, and
    its timing steady.  Reference counting still frees everything as usual.

    On the way out what was made is set aside (:func:`_set_aside`): the collector counts
    allocations while paused, so its first pass after would walk them all.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            _set_aside()
            gc.enable()


def _set_aside() -> None:
    """Move every object the collector tracks to its oldest generation, unwalked.

    Paused, the collector still counts what is allocated, so the first allocation after
    it resumes sets off a pass over the youngest generation: every object just made (an
    opened 1,000,000-GPU design's 5.5 million, over a second, finding nothing to free).
    :func:`gc.freeze` then :func:`gc.unfreeze` moves the generations' lists whole (two
    list splices) into the oldest, which the collector walks only when it has grown by
    a quarter through its own passes, and resets the count.  Garbage made meanwhile is
    found there later.  Skipped while anything is frozen (the window freezes what its
    start made): unfreezing would hand that back to the collector too.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
