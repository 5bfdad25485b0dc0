"""A rack's editable properties: what each one is, how it reads, and the checks it gets.

The inspector's rack form, the command line and tests all edit racks through
:func:`set_rack_fields`, which refuses a bad value with a message naming the field ("Feed
A breaker must be a number above 0 A, got -5") and returns the old values, so undo puts
back exactly what was there (:func:`restore_rack_fields` does not check, as undo must
restore even a value today's checks refuse).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.design import FACINGS, Design, Rack
from workbench.model.errors import EditError
from workbench.model.names import clean_name


@dataclass(frozen=True)
class RackField:
    """One editable rack property."""

    name: str
    label: str
    #: "text", "number", "phases", "cooling", "rack_type" or "facing"
    kind: str
    unit: str = ""
    #: May be empty (None): the value then comes from elsewhere (see Rack's docstring).
    optional: bool = False


RACK_FIELDS: dict[str, RackField] = {
    f.name: f
    for f in (
        RackField("name", "Name", "text"),
        RackField("rack_type", "Rack model", "rack_type"),
        RackField("power_limit_kw", "Power budget", "number", "kW"),
        RackField("cooling", "Cooling", "cooling"),
        RackField("cooling_limit_kw", "Cooling limit", "number", "kW", optional=True),
        RackField("max_weight_kg", "Maximum weight", "number", "kg", optional=True),
        RackField("feed_a_voltage", "Feed A voltage", "number", "V", optional=True),
        RackField("feed_a_phases", "Feed A phases", "phases", optional=True),
        RackField("feed_a_breaker_a", "Feed A breaker", "number", "A", optional=True),
        RackField("feed_b_voltage", "Feed B voltage", "number", "V", optional=True),
        RackField("feed_b_phases", "Feed B phases", "phases", optional=True),
        RackField("feed_b_breaker_a", "Feed B breaker", "number", "A", optional=True),
        RackField("floor_x_mm", "Floor x", "number", "mm", optional=True),
        RackField("floor_y_mm", "Floor y", "number", "mm", optional=True),
        RackField("facing", "Facing", "facing"),
    )
}

#: Floor coordinates may be 0 or negative (they are positions, not amounts).
_POSITIONS = frozenset({"floor_x_mm", "floor_y_mm"})

#: How far from the hall's origin a rack may stand: a kilometre is a campus, not a
#: hall, and the bound keeps cable lengths (squares of distances) far from overflow.
MAX_FLOOR_MM = 1_000_000.0


def floor_mm_problem(value: float) -> str | None:
    """Why ``value`` cannot be a floor coordinate in mm, or None (the one bound, used by
    the inspector's fields, the hall-plan drag and the file reader)."""
    if not math.isfinite(value):
        return "must be a finite number of mm"
    if abs(value) > MAX_FLOOR_MM:
        return (
            f"must lie within {MAX_FLOOR_MM / 1e6:g} km of the hall's origin, got {value:,.0f} mm"
        )
    return None


def check_value(design: Design, field_name: str, value: Any) -> Any:
    """``value`` as it will be stored for ``field_name``; EditError naming the field."""
    spec = RACK_FIELDS.get(field_name)
    if spec is None:
        raise EditError(f"A rack's {field_name!r} cannot be edited.")
    if value is None or (isinstance(value, str) and not value.strip() and spec.kind != "text"):
        if spec.optional:
            return None
        raise EditError(f"{spec.label} cannot be empty.")
    if spec.kind == "text":
        return clean_name(value, "rack")  # the only text field
    if spec.kind == "number":
        number = _number(spec, value)
        if field_name in _POSITIONS:
            floor_problem = floor_mm_problem(number)
            if floor_problem is not None:
                raise EditError(f"{spec.label} {floor_problem}.")
        if field_name not in _POSITIONS and not number > 0:
            raise EditError(f"{spec.label} must be a number above 0 {spec.unit}, got {value!r}.")
        return number
    if spec.kind == "phases":
        number = _number(spec, value)
        if number not in (1, 3):
            raise EditError(f"{spec.label} must be 1 (single phase) or 3, got {value!r}.")
        return int(number)
    if spec.kind == "cooling":
        if value not in COOLING_TYPES:
            raise EditError(
                f"Unknown cooling type {value!r}; use one of {', '.join(COOLING_TYPES)}."
            )
        return value
    if spec.kind == "facing":
        if value not in FACINGS:
            raise EditError(f"{spec.label} must be one of {', '.join(FACINGS)}, got {value!r}.")
        return value
    item = design.device_types.get(str(value))
    if item is None or item.kind != "rack":
        raise EditError(f"{value!r} is not a rack model in this design's catalog.")
    return item.slug


def _number(spec: RackField, value: Any) -> float:
    try:
        number = float(str(value).replace(",", "").strip()) if isinstance(value, str) else value
        number = float(number)
    except (TypeError, ValueError):
        raise EditError(f"{spec.label} must be a number, got {value!r}.") from None
    if not math.isfinite(number):
        raise EditError(f"{spec.label} must be a finite number, got {value!r}.")
    return number


def _rack(design: Design, rack_id: str) -> Rack:
    rack = design.find_rack(rack_id)
    if rack is None:
        raise EditError(f"No rack with id {rack_id!r}.")
    return rack


def set_rack_fields(design: Design, rack_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
    """Set several properties of a rack at once (all checked first: nothing changes if
    one is refused); returns the old values for :func:`restore_rack_fields`."""
    rack = _rack(design, rack_id)
    checked = {name: check_value(design, name, value) for name, value in changes.items()}
    old = {name: getattr(rack, name) for name in checked}
    for name, value in checked.items():
        setattr(rack, name, value)
    design.index.rack_changed(rack.id)  # figures kept per rack read its cooling
    return old


def restore_rack_fields(design: Design, rack_id: str, values: Mapping[str, Any]) -> None:
    """Put back properties exactly as they were (undo of :func:`set_rack_fields`)."""
    rack = _rack(design, rack_id)
    for name, value in values.items():
        if name not in RACK_FIELDS:
            raise EditError(f"A rack's {name!r} cannot be edited.")
        setattr(rack, name, value)
    design.index.rack_changed(rack.id)


def is_placed(rack: Rack) -> bool:
    """True when the rack has a usable floor position: both coordinates, finite numbers
    within the hall's bound (:func:`floor_mm_problem`).  A position a script
    set to text or infinity counts as "not placed", so laying out the hall never raises
    on it (files with such values are refused by the reader)."""
    x, y = rack.floor_x_mm, rack.floor_y_mm
    return _usable(x) and _usable(y)


def _usable(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return floor_mm_problem(float(value)) is None


# -- the cooling limit: the one home of the rule --------------------------------------------
# A rack's cooling limit (the heat it can shed) and its power budget (what the site feeds
# it) are separate figures.  Changing the cooling type changes the first, never the
# second: a power budget the planner typed stays as typed.


def built_cooling(item: CatalogItem | None) -> str:
    """The cooling a catalog rack type is built for (air when it says none we know)."""
    cooling = str(item.props.get("cooling", "air")) if item is not None else "air"
    return cooling if cooling in COOLING_TYPES else "air"


def type_cooling_limit_kw(item: CatalogItem | None, cooling: str) -> float | None:
    """The heat a rack of catalog type ``item`` cooled by ``cooling`` can shed: the
    type's own ``cooling_limit_kw`` when the type is built for that cooling, else the
    cooling type's planning limit; None for a cooling type nobody knows."""
    if item is not None and item.props.get("cooling") == cooling:
        stated = item.props.get("cooling_limit_kw")
        if isinstance(stated, (int, float)) and not isinstance(stated, bool) and stated > 0:
            return float(stated)
    known = COOLING_TYPES.get(cooling)
    return known.limit_kw if known is not None else None


def built_limit_kw(item: CatalogItem | None) -> float:
    """The cooling limit of a rack type at the cooling it is built for: what a new rack
    of it starts with as its power budget, and what the generators plan against."""
    limit = type_cooling_limit_kw(item, built_cooling(item))
    assert limit is not None  # built_cooling is always a known cooling type
    return limit


def default_cooling_limit_kw(design: Design, rack_type: str, cooling: str) -> float | None:
    """:func:`type_cooling_limit_kw` for a rack type of ``design``'s snapshot."""
    return type_cooling_limit_kw(design.device_types.get(rack_type), cooling)


def cooling_limit_kw(design: Design, rack: Rack) -> float | None:
    """The heat ``rack`` can shed: its own ``cooling_limit_kw`` when set, else
    :func:`default_cooling_limit_kw` for its type and cooling."""
    if rack.cooling_limit_kw is not None:
        return float(rack.cooling_limit_kw)
    return default_cooling_limit_kw(design, rack.rack_type, rack.cooling)
