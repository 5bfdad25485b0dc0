"""Catalogs of hardware: load, validate, overlay and snapshot.

The package is Qt-free so the command line, exports and tests can use it without a
display.  Others code against the names re-exported here.
"""

from workbench.catalog.errors import (
    CatalogEntryErrors,
    CatalogError,
    CatalogWarning,
    UnknownSlugError,
)
from workbench.catalog.item import KINDS, PRECISIONS, CatalogItem, Interface, PowerPort
from workbench.catalog.loader import (
    Catalog,
    load_catalog,
    load_file,
    shipped_catalog_dir,
    snapshot_for,
    user_catalog_dir,
)
from workbench.catalog.netbox import interface_speed_gbps
from workbench.catalog.parse import is_valid_slug, parse_item, parse_item_with_warnings
from workbench.catalog.props import pdu_capacity_kw

__all__ = [
    "KINDS",
    "PRECISIONS",
    "Catalog",
    "CatalogEntryErrors",
    "CatalogError",
    "CatalogItem",
    "CatalogWarning",
    "Interface",
    "PowerPort",
    "UnknownSlugError",
    "interface_speed_gbps",
    "is_valid_slug",
    "load_catalog",
    "load_file",
    "parse_item",
    "parse_item_with_warnings",
    "pdu_capacity_kw",
    "shipped_catalog_dir",
    "snapshot_for",
    "user_catalog_dir",
]
