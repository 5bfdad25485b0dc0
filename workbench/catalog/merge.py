"""Importing over an item that exists: a field-by-field diff, keeping what the new file lacks.

The library's QM9700 and SN5600 files carry no power figures and no price; imported
over the shipped items they used to replace 1,200 W and 2,000 W with 0 W and drop the
prices.  A device-type file says what NetBox knows (ports, U, weight), while the
workbench's figures (power, price, GPUs, TFLOPS, sources) were curated by someone.  So
an import keeps every workbench figure the new file does not state itself, and a figure
the new file only *derives* (a power summed from its ports) does not replace one that
was stated, unless the user asks for ``replace``.

The diff is a list of :class:`DiffRow` (field, old, new, what happens): the command
line prints it, ``--json`` gives it, and the window shows it as a table (Qt-free).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from workbench.catalog.item import WORKBENCH_FIELDS, CatalogItem

#: Workbench figures an import keeps when the new file does not state them.
KEPT_FIELDS: tuple[str, ...] = WORKBENCH_FIELDS

#: Fields compared in a diff, in the order a person reads them.
DIFF_FIELDS: tuple[str, ...] = (
    "kind",
    "role",
    "manufacturer",
    "model",
    "part_number",
    "u_height",
    "is_full_depth",
    "airflow",
    "weight",
    "gpu",
    "gpu_count",
    "max_power_w",
    "typical_power_w",
    "unit_price",
    "currency",
    "interfaces",
    "power_ports",
    "sources",
)

#: What a diff row says happens to a field.
SAME, KEPT, REPLACED, ADDED = "same", "kept", "replaced", "added"


@dataclass(frozen=True)
class DiffRow:
    """One field of an import over an existing item."""

    field: str
    old: Any
    new: Any
    #: ``same``, ``kept`` (the old figure stays), ``replaced`` or ``added``.
    action: str

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "old": self.old, "new": self.new, "action": self.action}

    def __str__(self) -> str:
        return f"{self.field}: {_shown(self.old)} -> {_shown(self.new)} ({self.action})"


def kept_fields(
    old: CatalogItem, new_mapping: dict[str, Any], replace: bool = False
) -> dict[str, Any]:
    """The fields of ``old`` to write into the new file: each workbench field ``old``
    states that ``new_mapping`` does not (nothing with ``replace``).

    A field is kept whole or not at all (``sources`` and ``props`` too): a new file that
    gives its own sources is taken to mean them, and every kept field can be written
    after the file's own text, which stays byte for byte.
    """
    if replace:
        return {}
    raw = old.raw
    kept: dict[str, Any] = {}
    for name in KEPT_FIELDS:
        if raw.get(name) is not None and name not in new_mapping:
            kept[name] = raw[name]
    if "gpu_count" in kept and "gpu" not in kept and "gpu" in new_mapping:
        del kept["gpu_count"]  # the new file names its own GPU: its count goes with it
    return kept


def diff_items(old: CatalogItem, new: CatalogItem, kept: dict[str, Any]) -> list[DiffRow]:
    """Field-by-field rows of importing ``new`` over ``old`` (``new`` already merged
    with ``kept``): what stays the same, what is kept, replaced or added."""
    rows = []
    for name in DIFF_FIELDS:
        before, after = _value(old, name), _value(new, name)
        if name in kept:
            action = KEPT
        elif before == after:
            action = SAME
        elif before in (None, "", 0, (), {}):
            action = ADDED
        else:
            action = REPLACED
        rows.append(DiffRow(name, before, after, action))
    return rows


def changed(rows: list[DiffRow]) -> list[DiffRow]:
    """The rows worth showing: everything but ``same``."""
    return [row for row in rows if row.action != SAME]


def with_power(
    item: CatalogItem, watts: float, source: str, typical_w: float | None = None
) -> dict[str, Any]:
    """The mapping of ``item`` with a power figure entered by the user and its source.

    What the window's inspector or catalog overlay calls (the lead makes it one
    undoable edit: re-parse this mapping and put the item in ``design.device_types``).
    ``source`` is recorded as ``sources.max_power_w`` prefixed ``user:`` so
    :func:`~workbench.catalog.netbox.power_source` reports ``user``.
    """
    if not watts > 0:
        raise ValueError(f"{item.slug}: a power figure must be above 0 W, got {watts!r}")
    if typical_w is not None and typical_w > watts:
        raise ValueError(f"{item.slug}: typical power {typical_w:g} W is above {watts:g} W")
    if not item.raw:
        raise ValueError(f"{item.slug}: the item has no catalog mapping to record a figure in")
    mapping = json.loads(json.dumps(item.raw))  # a deep copy: the old item stays as it was
    mapping["max_power_w"] = float(watts)
    if typical_w is not None:
        mapping["typical_power_w"] = float(typical_w)
    elif "typical_power_w" in mapping and mapping["typical_power_w"] > watts:
        del mapping["typical_power_w"]
    sources = dict(mapping.get("sources") or {})
    text = source.strip() or "entered by the user"
    sources["max_power_w"] = text if text.lower().startswith("user") else f"user: {text}"
    mapping["sources"] = sources
    if "kind" not in mapping:
        mapping["kind"] = item.kind  # the figure must not change what the item is
    return mapping


def _value(item: CatalogItem, name: str) -> Any:
    if name == "interfaces":
        return len(item.interfaces)
    if name == "power_ports":
        return len(item.power_ports)
    return getattr(item, name)


def _shown(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, float):
        return f"{value:g}"
    text = repr(value) if isinstance(value, dict | str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."
