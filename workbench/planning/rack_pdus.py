"""PDUs for a new rack, sized to its power budget; and what "a rack's PDUs" are.

A rack that holds equipment needs power distribution: two 0U PDUs, one on each feed
(A and B), so a feed or a PDU can fail while the rack runs on the other (2N).  Each
side alone must carry the rack's whole power budget, at no more than
:data:`PDU_CONTINUOUS_SHARE` of its rating (a breaker carries 80 % continuously: the
usual planning rule for continuous loads), so a side gets the smallest catalog PDU that
does, or several of the largest when none does.

:func:`fit_pdus` is the one edit every action that creates racks with equipment asks
for (the storage tier's new racks, the fabric generator's network racks without a model
rack); the rule RACK-PDU (:mod:`workbench.rules.racks`) flags a rack with devices and no
PDU, whatever made it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.catalog.item import CatalogItem
from workbench.model import ops
from workbench.model.design import Design, Device, Rack
from workbench.model.requests import ItemSource, snapshot_ops

#: Share of a PDU's rating it may carry continuously (planning rule: 80 %).
PDU_CONTINUOUS_SHARE = 0.8


def pdu_capacity_kw(item: CatalogItem) -> float | None:
    """A PDU item's rating, kW (``props.capacity_kw``), or None when it has none."""
    value = item.props.get("capacity_kw")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return float(value)


def is_pdu(design: Design, device: Device) -> bool:
    """Whether ``device`` is a PDU (its catalog item's kind)."""
    item = design.device_types.get(device.device_type)
    return item is not None and item.kind == "pdu"


@dataclass(frozen=True)
class PduChoice:
    """The PDU model for a rack and how many a feed side takes."""

    item: CatalogItem
    per_side: int


def choose_pdu(candidates: Iterable[CatalogItem], budget_kw: float) -> PduChoice | None:
    """The smallest PDU whose continuous share carries ``budget_kw`` alone, else the
    largest several times; None with no rated PDU to choose from."""
    rated = sorted(
        ((cap, item.slug, item) for item in candidates if (cap := pdu_capacity_kw(item))),
        key=lambda t: (t[0], t[1]),
    )
    if not rated:
        return None
    for cap, _slug, item in rated:
        if cap * PDU_CONTINUOUS_SHARE >= budget_kw - 1e-9:
            return PduChoice(item, 1)
    cap, _slug, item = rated[-1]
    return PduChoice(item, math.ceil(budget_kw / (cap * PDU_CONTINUOUS_SHARE) - 1e-9))


def pdu_candidates(design: Design, catalog: ItemSource | None) -> list[CatalogItem]:
    """The PDUs of the design's snapshot and of ``catalog`` when it can be listed."""
    found = {i.slug: i for i in design.device_types.values() if i.kind == "pdu"}
    if isinstance(catalog, Iterable):
        for item in catalog:
            if isinstance(item, CatalogItem) and item.kind == "pdu":
                found.setdefault(item.slug, item)
    return list(found.values())


def fit_pdus(design: Design, catalog: ItemSource | None, racks: Sequence[Rack]) -> ops.Batch:
    """The edit giving each of ``racks`` that has no PDU yet its A- and B-side PDUs,
    sized to its ``power_limit_kw`` (see the module docstring); an empty batch when
    none needs one or no rated PDU is known (RACK-PDU then says so)."""
    candidates = pdu_candidates(design, catalog)
    steps: list[ops.Op] = []
    taken = set(design.index.device_names)
    wanted: list[tuple[Rack, PduChoice]] = []
    for rack in racks:
        if any(is_pdu(design, d) for d in rack.devices):
            continue
        choice = choose_pdu(candidates, rack.power_limit_kw)
        if choice is not None:
            wanted.append((rack, choice))
    count = sum(2 * c.per_side for _r, c in wanted)
    ids = iter(design.index.new_ids("device", count))
    added: set[str] = set()
    for rack, choice in wanted:
        if choice.item.slug not in design.device_types and choice.item.slug not in added:
            steps += snapshot_ops(design, {choice.item.slug: choice.item}, choice.item.slug)
            added.add(choice.item.slug)
        for side in "ab":
            for n in range(choice.per_side):
                name = f"pdu-{rack.name.lower()}-{side}" + (
                    f"{n + 1}" if choice.per_side > 1 else ""
                )
                while name in taken:
                    name += "x"
                taken.add(name)
                device = Device(next(ids), name, choice.item.slug, None, "rear")
                steps.append(ops.AddDevice(rack.id, device))
    return ops.Batch(tuple(steps))


def new_racks(batch: ops.Batch) -> list[str]:
    """Ids of the racks ``batch`` creates (a new row's racks, added racks)."""
    ids: list[str] = []
    for op in batch.ops:
        if isinstance(op, ops.AddRow):
            ids += [rack.id for rack in op.row.racks]
        elif isinstance(op, ops.AddRack):
            ids.append(op.rack.id)
    return ids


def with_pdus(design: Design, catalog: ItemSource | None, batch: ops.Batch) -> ops.Batch:
    """``batch`` and the PDUs of the racks it creates (:func:`fit_pdus`), as one edit.

    The racks must exist before they can be fitted, so ``batch`` is applied, the PDUs
    planned and ``batch`` undone exactly; the design is left as it was.  Hall ▸ Add
    Racks, a new row of racks and Duplicate Rack push what this returns, so no action
    leaves a rack without power distribution (a duplicate that copied its PDUs keeps
    just those).
    """
    ids = new_racks(batch)
    if not ids:
        return batch
    applied = ops.apply(design, batch)
    try:
        racks = [rack for rack in (design.find_rack(i) for i in ids) if rack is not None]
        power = fit_pdus(design, catalog, racks)
    finally:
        ops.apply(design, applied.inverse)
    return ops.Batch((*batch.ops, *power.ops)) if power.ops else batch
