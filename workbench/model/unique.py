"""Names and labels that identify one thing, kept unique: the one home of that rule.

- a **device name** identifies a device within its site: NetBox refuses two devices of
  one name in a site, Slurm and Kubernetes name nodes by it, and the version and
  acceptance imports file a node's report under it, so two "gpu-01" in a hall would send
  one node's results to the other;
- an **asset tag** and a **serial**, where set, identify one box in the whole design
  (NetBox keeps asset tags unique globally; a serial read off a box is that box).
  Compared case-insensitively: "at-0042" and "AT-0042" are one label read two ways.

The edits (:mod:`workbench.model.edit`, :mod:`workbench.model.ops`) refuse a clash
before it happens; :func:`clashes` lists those a file or import already holds, for the
rule NAME-DUPLICATE (``workbench check``) and the importers.  A file holding a clash
still opens: refusing it would cost a user the design over a name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from workbench.model.design import Design, Device, Rack, Site
from workbench.model.errors import EditError

#: The device fields that must be unique in the design where set, with their words.
LABELS: dict[str, str] = {"asset_tag": "asset tag", "serial": "serial"}


def label_key(value: str) -> str:
    """How two labels are compared: stripped and case-folded."""
    return value.strip().casefold()


def site_of_rack(design: Design, rack_id: str) -> Site | None:
    placed = design.index.racks.get(rack_id)
    if placed is None:
        return None
    found = design.index.rows.get(placed[0].id)
    return found[0] if found is not None else None


def _named(design: Design, name: str) -> Iterator[tuple[Rack, Device]]:
    """The devices called ``name`` (none at all without a walk, in the common case)."""
    if not design.index.device_names.get(name):
        return
    for rack, device in design.index.devices.values():
        if device.name == name:
            yield rack, device


def check_device_names(
    design: Design, site: Site | None, devices: Iterable[Device], skip: frozenset[str] = frozenset()
) -> None:
    """EditError when one of ``devices`` (about to join ``site``) takes a name another
    device of that site carries, or two of them share one.  ``skip``: ids of devices
    whose own names do not count (the device being renamed)."""
    if site is None:
        return
    seen: set[str] = set()
    for device in devices:
        if device.name in seen:
            raise EditError(f"Two of the devices added are both named “{device.name}”.")
        seen.add(device.name)
        for rack, other in _named(design, device.name):
            if other.id in skip or other is device:
                continue
            if site_of_rack(design, rack.id) is site:
                raise EditError(
                    f"A device named “{device.name}” is already in rack “{rack.name}” of "
                    f"site “{site.name}”; device names are unique within a site."
                )


def check_labels(
    design: Design, devices: Iterable[Device], skip: frozenset[str] = frozenset()
) -> None:
    """EditError when one of ``devices`` carries an asset tag or serial that another
    device of the design (or another of ``devices``) already carries."""
    wanted: dict[tuple[str, str], Device] = {}
    for device in devices:
        for field in LABELS:
            key = label_key(getattr(device, field))
            if not key:
                continue
            if (field, key) in wanted:
                raise EditError(f"Two of the devices added share the {LABELS[field]} "
                                f"{getattr(device, field)!r}.")  # fmt: skip
            wanted[(field, key)] = device
    if not wanted:
        return
    for rack, other in design.iter_devices():  # O(devices), only when labels are set
        if other.id in skip:
            continue
        for field in LABELS:
            key = label_key(getattr(other, field))
            mine = wanted.get((field, key)) if key else None
            if mine is not None and mine is not other:
                raise EditError(
                    f"{LABELS[field][:1].upper()}{LABELS[field][1:]} "
                    f"{getattr(mine, field).strip()!r} is already on device “{other.name}” "
                    f"in rack “{rack.name}”."
                )


@dataclass(frozen=True)
class Clash:
    """Devices sharing a value that must identify one of them."""

    #: "name", "asset tag" or "serial".
    what: str
    value: str
    #: (rack, device) of each holder, in design order.
    holders: tuple[tuple[Rack, Device], ...]


def clashes(design: Design) -> list[Clash]:
    """Every clash the design holds: device names within a site, asset tags and serials
    across the design.  One pass over the devices, grouping only names the design's
    name count holds twice (none, usually) and labels that are set: the rule runs after
    every device edit, on 30,000 devices at 100,000 GPUs."""
    repeated = {name for name, count in design.index.device_names.items() if count > 1}
    groups: dict[tuple[str, str], list[tuple[Rack, Device]]] = {}
    for site in design.sites:
        for row in site.rows:
            for rack in row.racks:
                for device in rack.devices:
                    if device.name in repeated:
                        groups.setdefault(("name", f"{site.id}\0{device.name}"), []).append(
                            (rack, device)
                        )
                    if not (device.serial or device.asset_tag):
                        continue
                    for field, word in LABELS.items():
                        key = label_key(getattr(device, field))
                        if key:
                            groups.setdefault((word, key), []).append((rack, device))
    found: list[Clash] = []
    for (what, _key), holders in groups.items():
        if len(holders) > 1:
            first = holders[0][1]
            value = first.name if what == "name" else getattr(first, _FIELD[what]).strip()
            found.append(Clash(what, value, tuple(holders)))
    return found


_FIELD = {word: field for field, word in LABELS.items()}
