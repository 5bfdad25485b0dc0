"""Planning a storage tier: the one edit the "Add storage tier…" dialog makes.

A new tier is three things at once (domain brief §4): appliances mounted in racks, the
:class:`~workbench.model.StorageTier` that groups them, and their cables into the
storage plane.  :func:`plan_storage_tier` works them out as one
:class:`~workbench.model.ops.Batch`, so the window pushes one undo step and a refusal
leaves nothing half-made:

1. the appliances go into the racks that already hold storage
   (:func:`~workbench.planning.filling.place_across`: least loaded first, within every
   budget); what does not fit goes into a new row of racks
   (:func:`~workbench.model.hall_edits.add_row`), as many as an empty one holds;
2. the tier is :class:`~workbench.model.net_ops.AddStorageTier`;
3. the cabling is the fabric generator's ``attach_hosts(design, "storage", ids)``.

Each step is planned on the design as the earlier steps leave it, so the plan applies
each step for real and rolls all of them back exactly (every edit has its inverse)
before returning: nothing outside the plan ever sees the intermediate states.  The
planning is Qt-free (moved here from the window, issue 19); the dialog
(:mod:`workbench.ui.storage.dialogs`) only collects the inputs and shows the reason for
a refusal.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from workbench.catalog.item import CatalogItem
from workbench.model import Design, StorageTier, ops
from workbench.model.errors import EditError
from workbench.model.hall_edits import add_row
from workbench.model.net_ops import AddStorageTier, check_tier_value
from workbench.model.requests import ItemSource, lookup_item
from workbench.planning import filling
from workbench.planning.fabric.attach import attach_hosts
from workbench.planning.rack_pdus import fit_pdus
from workbench.units import format_count

#: What each kind of tier is called and runs, unless the user says otherwise.
TIER_DEFAULTS: dict[str, tuple[str, str]] = {
    "hot": ("Hot: parallel file system", "Lustre"),
    "warm": ("Warm: object storage", "S3"),
    "cold": ("Cold: HDD archive", ""),
}
#: The media a kind of tier is usually built from (``props.media`` of the appliance).
TIER_MEDIA: dict[str, tuple[str, ...]] = {
    "hot": ("nvme", "ssd"),
    "warm": ("hdd", "hybrid"),
    "cold": ("hdd",),
}
#: The rack a new storage row is built of when no rack holds storage yet (the templates'
#: storage rack: 42U, air-cooled).
STORAGE_RACK = "generic-rack-42u-air"
#: The most racks one request may add.
MAX_NEW_RACKS = 200

AttachHosts = Callable[[Design, str, Sequence[str]], ops.Op]


@dataclass(frozen=True)
class TierPlan:
    """The edit that adds a tier (apply it, or push it as one undo step), and what it does."""

    batch: ops.Batch
    tier: StorageTier
    #: Racks the appliances went into (names), and how many new racks were added.
    racks: tuple[str, ...]
    new_racks: int
    cabled: bool
    notes: tuple[str, ...] = ()

    def summary(self) -> str:
        where = ", ".join(self.racks[:4]) + (" …" if len(self.racks) > 4 else "")
        text = f"Added tier {self.tier.name}: {len(self.tier.device_ids):,} appliances in {where}"
        if self.new_racks:
            text += f" ({format_count(self.new_racks, 'new rack')})"
        text += "." if self.cabled else ", not cabled into the storage plane."
        return text


def storage_items(design: Design, catalog: Iterable[CatalogItem] | None) -> list[CatalogItem]:
    """Every storage appliance the catalog offers, plus any in the design's snapshot that
    the catalog lacks, by maker and model."""
    found: dict[str, CatalogItem] = {}
    if catalog is not None:
        found.update((i.slug, i) for i in catalog if i.kind == "storage")
    for slug, item in design.device_types.items():
        if item.kind == "storage":
            found.setdefault(slug, item)
    return sorted(found.values(), key=lambda i: (i.manufacturer.lower(), i.model.lower(), i.slug))


def storage_racks(design: Design) -> list[str]:
    """Ids of the racks that already hold a storage appliance, in hall order."""
    types = design.device_types
    found = []
    for rack in design.iter_racks():
        for device in rack.devices:
            item = types.get(device.device_type)
            if item is not None and item.kind == "storage":
                found.append(rack.id)
                break
    return found


def new_tier_id(design: Design, kind: str) -> str:
    """``tier-hot``, numbered (``tier-hot-2`` …) when taken."""
    taken = {t.id for t in design.storage_tiers}
    tier_id, n = f"tier-{kind}", 1
    while tier_id in taken:
        n += 1
        tier_id = f"tier-{kind}-{n}"
    return tier_id


def _rack_type(design: Design, catalog: ItemSource | None, racks: Sequence[str]) -> str:
    """The rack type of a new storage row: that of the racks holding storage, else the
    templates' storage rack, else the design's most common rack type."""
    if racks:
        rack = design.find_rack(racks[0])
        if rack is not None:
            return rack.rack_type
    if STORAGE_RACK in design.device_types or lookup_item(catalog, STORAGE_RACK) is not None:
        return STORAGE_RACK
    common = Counter(rack.rack_type for rack in design.iter_racks()).most_common(1)
    if common:
        return common[0][0]
    raise EditError(f"There is no rack model to build a storage row of (no {STORAGE_RACK!r}).")


class _Trial:
    """Edits applied for real while planning, rolled back exactly at the end."""

    def __init__(self, design: Design):
        self.design = design
        self.done: list[ops.Applied] = []

    def apply(self, op: ops.Op) -> ops.Applied:
        applied = ops.apply(self.design, op)
        self.done.append(applied)
        return applied

    def roll_back(self) -> None:
        while self.done:
            ops.apply(self.design, self.done.pop().inverse)


def _per_new_rack(
    design: Design, catalog: ItemSource | None, rack_type: str, slug: str, count: int
) -> tuple[int, str]:
    """How many of ``slug`` one new empty rack of ``rack_type`` takes (at most
    ``count``), and why not more."""
    trial = _Trial(design)
    try:
        row = add_row(design, catalog=catalog, rack_type=rack_type, count=1)
        trial.apply(row)
        rack = _row_racks(row)[0]
        plan = filling.fill_rack(design, catalog, rack, slug, count)
        reason = plan.report.stops[0].message if plan.report.stops else ""
        return len(plan.report.placed), reason
    finally:
        trial.roll_back()


def _row_racks(batch: ops.Batch) -> list[str]:
    added = [op for op in batch.ops if isinstance(op, ops.AddRow)]
    return [rack.id for op in added for rack in op.row.racks]


def plan_storage_tier(
    design: Design,
    catalog: ItemSource | None,
    *,
    kind: str,
    name: str,
    filesystem: str,
    slug: str,
    count: int,
    cable: bool = True,
    attach: AttachHosts | None = None,
) -> TierPlan:
    """The one edit that adds a tier of ``count`` × ``slug`` (see the module docstring);
    EditError, with the design unchanged, when it cannot be made.

    ``attach`` is the fabric generator's ``attach_hosts`` (default: the installed one);
    with ``cable`` False, or none installed, the appliances stay uncabled (the storage
    panel says so).
    """
    kind = check_tier_value("tier", kind)
    name = check_tier_value("name", name)
    filesystem = check_tier_value("filesystem", filesystem)
    item = design.device_types.get(slug) or lookup_item(catalog, slug)
    if item is None:
        raise EditError(f"The catalog has no item {slug!r}.")
    if item.kind != "storage":
        raise EditError(f"{item.label} is a {item.kind}, not a storage appliance.")
    if not 1 <= count <= filling.MAX_COUNT:
        raise EditError(f"Ask for 1 to {filling.MAX_COUNT:,} appliances, not {count:,}.")
    trial = _Trial(design)
    steps: list[ops.Op] = []
    placed: list[filling.PlacedDevice] = []
    notes: list[str] = []
    new_racks = 0
    cabled = False
    try:
        racks = storage_racks(design)
        if racks:
            plan = filling.place_across(design, catalog, racks, slug, count)
            if plan.batch.ops:
                trial.apply(plan.batch)
                steps.append(plan.batch)
                placed += plan.report.placed
        missing = count - len(placed)
        if missing:
            rack_type = _rack_type(design, catalog, racks)
            per_rack, why = _per_new_rack(design, catalog, rack_type, slug, missing)
            if not per_rack:
                raise EditError(f"An empty new rack cannot take one {item.label}: {why}")
            new_racks = math.ceil(missing / per_rack)
            if new_racks > MAX_NEW_RACKS:
                raise EditError(
                    f"{missing:,} × {item.label} need {new_racks:,} new racks "
                    f"({per_rack} per rack); add at most {MAX_NEW_RACKS} at a time."
                )
            row = add_row(design, catalog=catalog, rack_type=rack_type, count=new_racks)
            trial.apply(row)
            steps.append(row)
            plan = filling.place_across(design, catalog, _row_racks(row), slug, missing)
            if plan.report.missing:
                raise EditError(plan.report.details(planned=True))
            trial.apply(plan.batch)
            steps.append(plan.batch)
            placed += plan.report.placed
            # The new racks' A/B PDUs, sized to their budget (planning.rack_pdus).
            found = (design.find_rack(rack_id) for rack_id in _row_racks(row))
            power = fit_pdus(design, catalog, [r for r in found if r is not None])
            if power.ops:
                trial.apply(power)
                steps.append(power)
        tier = StorageTier(
            new_tier_id(design, kind), name, kind, filesystem, [p.device_id for p in placed]
        )
        add = AddStorageTier(tier)
        trial.apply(add)
        steps.append(add)
        if cable:
            wiring = (attach or attach_hosts)(design, "storage", tier.device_ids)
            trial.apply(wiring)
            steps.append(wiring)
            cabled = True
    finally:
        trial.roll_back()
    rack_names = tuple(dict.fromkeys(p.rack_name for p in placed))
    return TierPlan(ops.Batch(tuple(steps)), tier, rack_names, new_racks, cabled, tuple(notes))


def default_item(items: Sequence[CatalogItem], kind: str) -> CatalogItem | None:
    """The appliance a tier of ``kind`` is usually built from (by its media), else the first."""
    media = TIER_MEDIA.get(kind, ())
    fitting = [i for i in items if i.props.get("media") in media]
    if kind == "warm":  # object nodes have their own network ports; a JBOD has none
        fitting.sort(key=lambda i: not any(n.name.startswith("storage") for n in i.interfaces))
    if kind == "cold":  # the densest HDD appliance
        fitting.sort(key=lambda i: -float(i.props.get("capacity_tb") or 0))
    choices = fitting or list(items)
    return choices[0] if choices else None
