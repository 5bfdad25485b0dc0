"""Edits that add or take away a site (a hall): what a design with no site needs before
its first row can go in, so Hall ▸ Add Row works on an empty design too.

Kept apart from :mod:`workbench.model.ops` (which gathers :data:`EDITS`) because that module
is at its size limit.  Only an empty site is added or removed here: a site with rows
comes and goes through its rows' own edits, so the inverse stays exact.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.model import keep
from workbench.model.applied import Applied, Edit
from workbench.model.change import Change
from workbench.model.design import Design, Site
from workbench.model.errors import EditError
from workbench.model.names import check_name


@dataclass(frozen=True)
class AddSite:
    """Put an empty site at ``index`` of the design's sites (None: at the end)."""

    site: Site
    index: int | None = None


@dataclass(frozen=True)
class RemoveSite:
    """Take an empty site out of the design (the inverse of :class:`AddSite`)."""

    site_id: str


def _add_site(design: Design, op: AddSite) -> Applied:
    site = op.site
    if site.rows:
        raise EditError(f"Site {site.name!r} must be empty when it is added; add its rows after.")
    if not site.id or design.index.in_use(site.id):
        raise EditError(f"The id {site.id!r} is already taken.")
    check_name(site.name, "site")  # kept as given: judged as stored
    index = len(design.sites) if op.index is None else op.index
    if not 0 <= index <= len(design.sites):
        raise EditError(f"No place {index} among the design's sites.")
    design.sites.insert(index, site)
    design.index.add_site(site)
    change = Change(added=frozenset({site.id}), layout=True)
    return Applied(RemoveSite(site.id), change)


def _remove_site(design: Design, op: RemoveSite) -> Applied:
    site = design.index.sites.get(op.site_id)
    if site is None:
        raise EditError(f"No site with id {op.site_id!r}.")
    if site.rows:
        raise EditError(f"Site {site.name!r} still holds rows; remove them first.")
    index = next(i for i, s in enumerate(design.sites) if s is site)
    del design.sites[index]
    del design.index.sites[site.id]
    change = Change(removed=frozenset({site.id}), layout=True)
    return Applied(AddSite(site, index), change)


#: This module's edits: how each is carried out and what it can change, gathered by :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {
    AddSite: Edit(_add_site, keep.sites),
    RemoveSite: Edit(_remove_site, keep.sites),
}


__all__ = ["EDITS", "AddSite", "RemoveSite"]
