"""The catalog as the design commands load it: bad files skipped, and said so.

``report``, ``check``, ``print`` and ``fabric`` must work while one file in the user's
catalog folder is broken (a NetBox download cut short, a hostile file), so they load
with ``strict=False``.  Skipping silently would hide why an item is missing, so each
run says once, on stderr, how many problems were skipped and the first of them; the
full list is one ``workbench catalog validate`` away.  stdout stays clean for ``--json``.
"""

from __future__ import annotations

import sys

from workbench.calc.fabric.media import remember_shipped
from workbench.catalog import Catalog, load_catalog


def load_catalog_noting_errors() -> Catalog:
    """The shipped and user catalogs; a one-line warning on stderr for bad files."""
    catalog = load_catalog(strict=False)
    # The cable counts read the shipped cables and optics: the same load when there is
    # no user folder, so it is not read twice.
    remember_shipped(catalog)
    if catalog.errors:
        files = {error.file for error in catalog.errors}
        print(
            f"workbench: warning: skipped {len(catalog.errors)} catalog problem(s) in "
            f"{len(files)} file(s), first: {catalog.errors[0]}; "
            "run `workbench catalog validate` for the list",
            file=sys.stderr,
        )
    return catalog
