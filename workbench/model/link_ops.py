"""Edits of the design's links: one link, or many in one pass (a generated fabric).

Gathered by :mod:`workbench.model.ops` (which re-exports the classes) through :data:`EDITS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from workbench.model import keep
from workbench.model.add_checks import check_free
from workbench.model.applied import Applied, Edit, insert_at
from workbench.model.change import Change
from workbench.model.design import Design, Link
from workbench.model.errors import EditError
from workbench.model.structure_ops import position_of

#: A link's id.
_ID = attrgetter("id")


@dataclass(frozen=True)
class AddLink:
    link: Link
    index: int | None = None


@dataclass(frozen=True)
class RemoveLink:
    link_id: str


@dataclass(frozen=True)
class AddLinks:
    """Many links as one edit: a generated fabric holds 300,000 of them at 100,000 GPUs,
    and one :class:`AddLink` each would cost a list search per link on undo.

    ``positions`` (ascending) say where each link stands in ``design.links`` once they
    are all in; None appends them in order.
    """

    links: tuple[Link, ...]
    positions: tuple[int, ...] | None = None


@dataclass(frozen=True)
class RemoveLinks:
    """Remove many links in one pass over ``design.links`` (the inverse of AddLinks)."""

    link_ids: tuple[str, ...]


def _add_link(design: Design, op: AddLink) -> Applied:
    link = op.link
    for end in (link.a_device, link.b_device):
        if end not in design.index.devices:
            raise EditError(f"Link {link.id!r} ends on a device that does not exist: {end!r}.")
    check_free(design, [link.id])
    i = insert_at(design.links, link, op.index, "links")
    design.index.add_link(link)
    design.index.link_placed(link, i)
    ids = frozenset({link.id})
    change = Change(devices=frozenset({link.a_device, link.b_device}), links=ids, added=ids)
    return Applied(RemoveLink(link.id), change)


def _remove_link(design: Design, op: RemoveLink) -> Applied:
    link = design.index.links.get(op.link_id)
    if link is None:
        raise EditError(f"No link with id {op.link_id!r}.")
    found = design.index.link_positions(design.links, [link])
    i = found[0] if found is not None else position_of(design.links, link)
    del design.links[i]
    design.index.drop_link(link)
    ids = frozenset({link.id})
    change = Change(devices=frozenset({link.a_device, link.b_device}), links=ids, removed=ids)
    return Applied(AddLink(link, i), change)


def _add_links(design: Design, op: AddLinks) -> Applied:
    link_ids, ends = _put_links(design, op)
    ids = frozenset(link_ids)
    change = Change(devices=ends, links=ids, added=ids)
    return Applied(RemoveLinks(tuple(link_ids)), change)


def add_links_unrecorded(design: Design, op: AddLinks) -> RemoveLinks:
    """Carry out ``op`` exactly as :func:`~workbench.model.ops.apply` does, and return
    its inverse, without its :class:`Change`.

    For a design no one will undo or view while it is built (a template): the Change
    names every added link in two frozensets, and at 1,000,000 GPUs (4.4 million links)
    hashing them into one was ~1.2 s of CPU that nothing read.  The inverse stays, for
    the builder to take back what it applied when a later step fails.  Held equal to the
    plain edit by tests/test_add_links_unrecorded.py."""
    link_ids, _ends = _put_links(design, op)
    return RemoveLinks(tuple(link_ids))


def _put_links(design: Design, op: AddLinks) -> tuple[list[str], frozenset[str]]:
    """Check and carry out ``op``; return the links' ids and every device they end on
    (the one home of what both ways of applying AddLinks do to the design)."""
    links = op.links
    devices = design.index.devices
    # Every end at once, in C (a generated fabric adds ~440,000 links in one edit); the
    # first link in order that ends on nothing is looked for only when there is one.
    ends = frozenset(map(attrgetter("a_device"), links)).union(map(attrgetter("b_device"), links))
    if not ends <= devices.keys():
        for link in links:
            for end in (link.a_device, link.b_device):
                if end not in devices:
                    raise EditError(
                        f"Link {link.id!r} ends on a device that does not exist: {end!r}."
                    )
    link_ids = list(map(_ID, links))  # read once for the check, the change and the inverse
    check_free(design, link_ids)
    if op.positions is None:
        design.links.extend(links)
    else:
        positions = op.positions
        total = len(design.links) + len(links)
        if len(positions) != len(links) or any(
            not 0 <= p < total or (i and p <= positions[i - 1]) for i, p in enumerate(positions)
        ):
            raise EditError("Link positions must ascend and lie inside the list of links.")
        merged: list[Link] = []
        old = iter(design.links)
        new = 0
        for at in range(total):
            if new < len(links) and positions[new] == at:
                merged.append(links[new])
                new += 1
            else:
                merged.append(next(old))
        design.links[:] = merged
    design.index.add_links(links, link_ids, ends)
    return link_ids, ends


def _remove_links(design: Design, op: RemoveLinks) -> Applied:
    wanted = set(op.link_ids)
    missing = wanted - design.index.links.keys()
    if missing:
        raise EditError(f"No link with id {sorted(missing)[0]!r}.")
    kept: list[Link] = []
    gone: list[Link] = []
    positions: list[int] = []
    for i, link in enumerate(design.links):
        if link.id in wanted:
            gone.append(link)
            positions.append(i)
        else:
            kept.append(link)
    design.links[:] = kept
    for link in gone:
        design.index.drop_link(link)
    ids = frozenset(wanted)
    ends = frozenset(e for link in gone for e in (link.a_device, link.b_device))
    change = Change(devices=ends, links=ids, removed=ids)
    return Applied(AddLinks(tuple(gone), tuple(positions)), change)


#: This module's edits: how each is carried out and what it can change.
EDITS: dict[type, Edit] = {
    AddLink: Edit(_add_link, keep.links),
    RemoveLink: Edit(_remove_link, keep.links),
    AddLinks: Edit(_add_links, keep.links),
    RemoveLinks: Edit(_remove_links, keep.links),
}
