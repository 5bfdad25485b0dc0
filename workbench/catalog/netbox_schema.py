"""Declarative validation of a catalog file's entries: NetBox's device-type schema.

A planner imports files from the NetBox community device-type library, and the rule
that matters is simple to state: what the library's own schema accepts must load, and
what it refuses must be refused here too, with the file and line.  Hand-written field
checks drifted from that (slugs with ``_`` refused, unknown interface types taken in),
so the rules now live in JSON Schema files beside this module:

* ``schema/devicetype.json`` follows netbox-community/devicetype-library
  ``schema/devicetype.json`` at commit 014cd468fa8c08009d77127d6bead7ff8fb4c997 (same
  fields, limits, slug pattern ``^[-a-z0-9_]+$`` and required fields), plus the
  workbench's own fields (kind, gpu, power, price, sources ...);
* ``schema/components.json`` follows the library's ``schema/components.json`` at
  048450727d30523b9a207e93664ecb2a600fb5f7, with the enumerations (interface, power
  port, outlet, console and port types) of ``schema/generated_schema.json`` at
  a791b7dbd65b84b4087def5c9b901e302513f79d.  The schema files say where they differ.

JSON Schema cannot say "names are unique within a list"; the library checks that in
its tests and NetBox refuses such a file, so :func:`schema_errors` checks it too.

A jsonschema error carries the path of the offending value; the catalog reader already
records the line of every path while it reads the YAML events (the same marks
``yaml.compose`` would give, without building a node tree a crafted file could make
large), so each error is reported as ``file:line: field 'x': problem``.

Only files are checked here.  A design's snapshot of an item is re-read by the parser
alone: it was validated when its file was loaded, and an older project must keep
opening after the schema grows stricter.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from workbench.catalog.errors import CatalogError, shown_value
from workbench.catalog.yaml_source import LineMap, field_name

if TYPE_CHECKING:  # jsonschema is imported on first use (~0.13 s of every start)
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]

#: The library's commits the schema files follow (see the module docstring).
LIBRARY = "netbox-community/devicetype-library"
DEVICETYPE_COMMIT = "014cd468fa8c08009d77127d6bead7ff8fb4c997"
COMPONENTS_COMMIT = "048450727d30523b9a207e93664ecb2a600fb5f7"
ENUMERATIONS_COMMIT = "a791b7dbd65b84b4087def5c9b901e302513f79d"

#: Component lists whose entries NetBox names uniquely per device type.
COMPONENT_LISTS: tuple[str, ...] = (
    "console-ports",
    "console-server-ports",
    "power-ports",
    "power-outlets",
    "interfaces",
    "front-ports",
    "rear-ports",
    "module-bays",
    "device-bays",
    "inventory-items",
)

#: What an enumeration's values are called in a message, by the field holding them.
_ENUM_WORDS: dict[str, str] = {
    "interfaces": "interface type",
    "power-ports": "power port type",
    "power-outlets": "power outlet type",
    "console-ports": "console port type",
    "console-server-ports": "console port type",
    "front-ports": "port type",
    "rear-ports": "port type",
}

_TYPE_WORDS: dict[str, str] = {
    "number": "a number",
    "integer": "a whole number",
    "string": "text",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping of names to values",
}


def _load(name: str) -> dict[str, Any]:
    text = resources.files("workbench.catalog").joinpath("schema").joinpath(name).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@lru_cache(maxsize=1)
def _validator() -> Any:
    """The device-type validator, built once: compiling the schemas costs milliseconds,
    and an import of a thousand files must not pay it a thousand times."""
    from jsonschema import Draft202012Validator, validators  # type: ignore[import-untyped]
    from referencing import Registry, Resource

    devicetype = _load("devicetype.json")
    components = _load("components.json")
    registry: Registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in (devicetype, components)
    )
    extended = validators.extend(Draft202012Validator, {"multipleOf": _multiple_of})
    return extended(devicetype, registry=registry)


def _multiple_of(
    validator: Any, step: Any, instance: Any, schema: Any
) -> Iterable[ValidationError]:
    """``multipleOf`` in decimal arithmetic, as the schema's authors mean it.

    In binary floating point 130.45 / 0.01 is 13044.999999999998, so jsonschema's own
    check refuses a DGX H100's 130.45 kg; the figure as written is a whole number of
    hundredths, and that is what the library's ``multipleOf: 0.01`` asks."""
    if not validator.is_type(instance, "number") or isinstance(instance, bool):
        return
    try:
        exact = Decimal(str(instance)) % Decimal(str(step)) == 0
    except (InvalidOperation, ValueError):
        exact = False
    if not exact:
        from jsonschema.exceptions import ValidationError

        yield ValidationError(f"{instance!r} is not a multiple of {step}")


def devicetype_schema() -> dict[str, Any]:
    """The device-type schema as a mapping (for documentation and tests)."""
    return _load("devicetype.json")


def is_rack_type(mapping: Mapping[str, Any]) -> bool:
    """A NetBox *rack* type (``form_factor``, no power ports) follows the library's
    racktype schema, not the device-type one, so it is not checked here."""
    return "form_factor" in mapping and "power-ports" not in mapping and "kind" not in mapping


def schema_errors(mapping: Any, lines: LineMap, file: str) -> list[CatalogError]:
    """Every way ``mapping`` breaks the device-type schema, one error per problem,
    each with the line of the field concerned; ``[]`` when NetBox would take it."""
    if not isinstance(mapping, dict) or is_rack_type(mapping):
        return []  # the parser reports a non-mapping; rack types are not device types
    found: dict[tuple[Any, ...], CatalogError] = {}
    for error in _validator().iter_errors(mapping):
        for path, message in _explain(error):
            if path not in found:  # one problem per field: the first is the clearest
                found[path] = CatalogError(
                    message, file, lines.line(*path), field_name(path) or None
                )
    for path, message in _duplicate_names(mapping, lines):
        found.setdefault(path, CatalogError(message, file, lines.line(*path), field_name(path)))
    return sorted(found.values(), key=lambda e: (e.line is None, e.line or 0))


def _explain(error: ValidationError) -> Iterable[tuple[tuple[Any, ...], str]]:
    """(path, one-line message) for one jsonschema error, in the catalog's words."""
    path = tuple(error.absolute_path)
    kind = error.validator
    value = error.instance
    if kind == "required":
        instance = value if isinstance(value, dict) else {}
        for name in error.validator_value:
            if name not in instance:
                yield path + (name,), _required_message(path, name, instance)
        return
    if kind == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        for name in value if isinstance(value, dict) else ():
            if name not in known:
                yield path + (name,), _unknown_field_message(path)
        return
    if kind == "dependentRequired":
        for trigger, needed in error.validator_value.items():
            if isinstance(value, dict) and trigger in value:
                for name in needed:
                    if name not in value:
                        yield (
                            path + (name,),
                            f"required field is missing: NetBox needs it with {trigger}",
                        )
        return
    if "propertyNames" in error.schema_path:  # about a key: name the key, as the parser does
        yield path + (error.instance,), f"{shown_value(error.instance)} is not allowed here"
        return
    yield path, _value_message(path, kind, error)


def _required_message(path: tuple[Any, ...], name: str, instance: Mapping[str, Any]) -> str:
    if not path and name in ("u_height", "is_full_depth"):
        return "required field is missing (NetBox requires it of every device type)"
    if not path and name in ("weight", "weight_unit"):
        other = "weight" if name == "weight_unit" else "weight_unit"
        return f"required field is missing: NetBox needs {name} with {other}"
    if not path and name == "subdevice_role":
        return "required field is missing: a device type with device-bays is a 'parent'"
    if path and path[0] == "interfaces" and name == "type":
        return "required field is missing (a NetBox interface type)"
    return "required field is missing"


def _unknown_field_message(path: tuple[Any, ...]) -> str:
    where = "a NetBox device type" if not path else f"a NetBox {_entry_word(path)}"
    return f"unknown field: {where} has no such field, nor does the workbench"


def _entry_word(path: tuple[Any, ...]) -> str:
    head = str(path[0])
    return head.rstrip("s").replace("-", " ") if head in COMPONENT_LISTS else "entry"


def _value_message(path: tuple[Any, ...], kind: str, error: ValidationError) -> str:
    value = error.instance
    shown = shown_value(value)
    rule = error.validator_value
    field = path[-1] if path else ""
    if kind == "type":
        wanted = rule if isinstance(rule, str) else rule[0]
        return f"expected {_TYPE_WORDS.get(wanted, wanted)}, got {shown}"
    if kind == "enum":
        if path and path[0] in _ENUM_WORDS and field == "type":
            return f"{shown} is not a NetBox {_ENUM_WORDS[path[0]]}"
        choices = ", ".join(str(choice) for choice in rule)
        return f"{shown} is not allowed; expected one of {choices}"
    if kind == "const":
        return f"expected {shown_value(rule)}, got {shown}"
    if kind == "pattern" and field in ("slug", "gpu"):
        return (
            f"{shown} is not a valid slug: use lower-case letters, digits, hyphens and underscores"
        )
    if kind == "pattern":
        return f"{shown} does not have the form NetBox expects ({rule})"
    if kind == "minimum":
        return f"must be at least {rule:g}, got {shown}"
    if kind == "maxLength":
        return f"{len(value):,} characters; NetBox allows at most {rule}"
    if kind == "multipleOf" and field == "u_height":
        return f"must be a whole or half rack unit, got {shown}"
    if kind == "multipleOf":
        return f"must be a multiple of {rule:g}, got {shown}"
    return " ".join(error.message.split())[:200]


def _duplicate_names(
    mapping: Mapping[str, Any], lines: LineMap
) -> Iterable[tuple[tuple[Any, ...], str]]:
    """A name given twice in one component list: NetBox stores components by
    (device type, name), so its import refuses the file."""
    for key in COMPONENT_LISTS:
        entries = mapping.get(key)
        if not isinstance(entries, list):
            continue
        seen: dict[str, int] = {}
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            name = entry["name"]
            if name in seen:
                first = lines.line(key, seen[name], "name")
                on = f" (first on line {first})" if first is not None else ""
                yield (
                    (key, index, "name"),
                    f"duplicate name {shown_value(name)}{on}: NetBox needs each "
                    f"{_entry_word((key,))} name once per device type",
                )
            else:
                seen[name] = index
