"""The catalog snapshot a project file carries: one mapping per catalog item.

An item parsed from a catalog keeps the mapping it came from in ``raw``, and that is
what is stored, so reopening re-runs the catalog's own parser on the very same input.
Items built in code (tests, templates, scripts) may have an empty ``raw``; for those a
mapping in the catalog's format is rebuilt from the fields, because storing ``{}``
would write a file that can never be opened again.

Saving also parses every stored mapping once: a design whose snapshot the parser would
refuse is refused at save time, while the previous file is still intact, rather than
discovered when the user next tries to open their work.
"""

from __future__ import annotations

from typing import Any

from workbench.catalog.item import FILE_FIELDS, CatalogItem

# Fields copied under the same name; None values are left out, as a catalog file would.
_PLAIN_FIELDS: tuple[str, ...] = FILE_FIELDS


#: Text fields whose empty value means "not given" (their default in CatalogItem).
_EMPTY_MEANS_NONE: frozenset[str] = frozenset({"part_number", "airflow", "comments"})


def item_mapping(item: CatalogItem) -> dict[str, Any]:
    """The mapping to store for ``item``: its ``raw`` one, or one rebuilt from fields."""
    if item.raw:
        return item.raw
    mapping = {name: getattr(item, name) for name in _PLAIN_FIELDS}
    mapping["power-ports"] = [
        {
            "name": p.name,
            "type": p.type,
            "maximum_draw": p.maximum_draw,
            "allocated_draw": p.allocated_draw,
        }
        for p in item.power_ports
    ]
    mapping["interfaces"] = [
        {"name": i.name, "type": i.type, "mgmt_only": i.mgmt_only} for i in item.interfaces
    ]
    for port in mapping["power-ports"]:
        for key in [k for k, v in port.items() if v is None]:
            del port[key]
    # Empty optional text is the parser's default anyway, and the catalog refuses a
    # blank part number (it is printed on labels and BOMs, like a name).
    return {
        k: v
        for k, v in mapping.items()
        if v is not None and not (k in _EMPTY_MEANS_NONE and v == "")
    }


def checked_mappings(device_types: dict[str, CatalogItem]) -> list[tuple[str, str, dict[str, Any]]]:
    """(slug, kind, mapping) per item, each proven to parse; ValueError names the bad one."""
    from workbench.catalog import parse_item  # the parser open_design will use

    out = []
    for slug, item in device_types.items():
        mapping = item_mapping(item)
        try:
            parse_item(mapping, source_file="design snapshot")
        except Exception as exc:  # the catalog's error, whatever its class
            raise ValueError(f"catalog item {slug!r} cannot be stored: {exc}") from exc
        out.append((slug, item.kind, mapping))
    return out
