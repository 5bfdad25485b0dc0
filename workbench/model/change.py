"""What one edit touched, precisely enough that nobody has to refresh the whole hall.

Every edit (a field change in :mod:`workbench.model.edit`, a structural one in
:mod:`workbench.model.ops`) describes itself as a :class:`Change`.  The window's document
emits it; the rack view refreshes the racks named in it and lays out again only when
racks came or went, the live figures recompute the loads of those racks, and the rules
engine re-runs only the rules that look at what changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the design imports nothing from here; keep it that way at run time
    from workbench.model.design import Design

_EMPTY: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Change:
    """Ids of what an edit touched.

    * ``racks``: racks whose contents or properties differ (a device added to, removed
      from or moved within or between them; a rename; a cooling change).
    * ``devices``, ``workloads``, ``links``: objects whose fields differ, or that were
      added, removed or moved.
    * ``added``, ``removed``, ``moved``: ids of objects that came, went or changed
      place (rows, racks, devices, links, workloads), a subset of the above plus rows.
    * ``layout``: rows or racks came, went or moved, so the hall is laid out anew.
    * ``types``: catalog slugs that entered or left the design's snapshot (the devices
      and racks using them are named in ``devices`` and ``racks``).
    * ``waivers``: a finding was waived or unwaived (the racks concerned are named).
    * ``design``: design-wide fields (name, properties such as the PUE).
    * ``floor``: racks moved or turned on the hall plan (named in ``racks``); nothing
      else about them differs, so only the plan has to redraw their footprints.
    * ``networks``: networks (planes) that came, went or changed their fields.
    * ``versions``: the version matrix (baselines, assignments, observations) changed.
    * ``removed_types``: the catalog types of the devices in ``removed`` (what is gone
      can no longer be looked up, and a switch taken out cannot move a storage figure).
    * ``labels``: objects of ``racks`` and ``devices`` of which only a name or a
      free-text label (serial, asset tag) differs: no figure or verdict depends on
      those, only the words of findings that name them (see :mod:`workbench.rules`).
    * ``everything``: the extent is unknown (a new design): refresh all.
    """

    racks: frozenset[str] = _EMPTY
    devices: frozenset[str] = _EMPTY
    workloads: frozenset[str] = _EMPTY
    links: frozenset[str] = _EMPTY
    added: frozenset[str] = _EMPTY
    removed: frozenset[str] = _EMPTY
    moved: frozenset[str] = _EMPTY
    layout: bool = False
    waivers: bool = False
    everything: bool = False
    design: bool = False
    #: Storage tiers whose membership changed.
    tiers: frozenset[str] = _EMPTY
    types: frozenset[str] = _EMPTY
    floor: bool = False
    #: Networks (planes) added, removed or edited.
    networks: frozenset[str] = _EMPTY
    versions: bool = False
    labels: frozenset[str] = _EMPTY
    removed_types: frozenset[str] = _EMPTY

    @staticmethod
    def all() -> Change:
        """A change that tells every view to refresh fully (anything may differ)."""
        return Change(everything=True)

    @property
    def structural(self) -> bool:
        """Objects came, went or moved (not only fields edited)."""
        return self.everything or self.layout or bool(self.added or self.removed or self.moved)

    def __or__(self, other: Change) -> Change:
        """Both changes at once (a batch of edits is announced as one change)."""
        return Change(
            racks=self.racks | other.racks,
            devices=self.devices | other.devices,
            workloads=self.workloads | other.workloads,
            links=self.links | other.links,
            added=(self.added - other.removed) | other.added,
            removed=(self.removed - other.added) | other.removed,
            moved=self.moved | other.moved,
            layout=self.layout or other.layout,
            waivers=self.waivers or other.waivers,
            everything=self.everything or other.everything,
            design=self.design or other.design,
            tiers=self.tiers | other.tiers,
            types=self.types | other.types,
            floor=self.floor or other.floor,
            networks=self.networks | other.networks,
            versions=self.versions or other.versions,
            removed_types=self.removed_types | other.removed_types,
            labels=(self.labels | other.labels) - self.beyond_labels - other.beyond_labels,
        )

    @property
    def beyond_labels(self) -> frozenset[str]:
        """Racks and devices this change touched in more than their labels."""
        if not self.labels:
            return self.racks | self.devices
        return (self.racks | self.devices) - self.labels

    @staticmethod
    def combine(changes: Iterable[Change]) -> Change:
        """``a | b | c ...`` in one pass: a batch of 10,000 edits would otherwise copy
        its growing id sets 10,000 times."""
        names = [f.name for f in fields(Change) if f.type not in ("bool", bool)]
        flags = [f.name for f in fields(Change) if f.type in ("bool", bool)]
        sets: dict[str, set[str]] = {name: set() for name in names}
        on: dict[str, bool] = dict.fromkeys(flags, False)
        added, removed = sets["added"], sets["removed"]
        beyond: set[str] = set()
        for change in changes:
            beyond |= change.beyond_labels
            for name, values in sets.items():
                if name not in ("added", "removed"):
                    values |= getattr(change, name)
            added -= change.removed
            added |= change.added
            removed -= change.added
            removed |= change.removed
            for name in flags:
                on[name] = on[name] or getattr(change, name)
        result = Change()
        sets["labels"] -= beyond
        for name, values in sets.items():
            object.__setattr__(result, name, frozenset(values))
        for name, value in on.items():
            object.__setattr__(result, name, value)
        return result


def edited_types(design: Design, change: Change) -> frozenset[str] | None:
    """Catalog types of the devices ``change`` added, removed or edited in more than
    their place or their labels; None when that cannot be told (a device removed by an
    edit that did not record its type).

    What a design-wide figure of some kinds of device (storage appliances, GPU nodes)
    asks before it re-reads the whole design: a switch dropped into a rack, moved or
    renamed leaves it alone."""
    gone = change.removed & change.devices
    if gone and not change.removed_types:
        return None
    found = set(change.removed_types)
    index = design.index
    for device_id in (change.devices - change.moved - change.labels - gone) | change.added:
        placed = index.devices.get(device_id)
        if placed is not None:
            found.add(placed[1].device_type)
    return frozenset(found)
