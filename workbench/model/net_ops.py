"""Edits of networks, link properties and storage tiers, as data with exact inverses.

The fabric designer adds planes, changes a bundle's speed or media, and builds storage
tiers; like the structural edits of :mod:`workbench.model.ops` each is a frozen
dataclass that :func:`workbench.model.ops.apply` carries out (the handlers register
themselves there), so the window's undo, the command line and the generator share them.

Values are checked here because they are the model's own invariants: a plane is one of
:data:`~workbench.model.design.PLANES`, a VLAN is 1–4094, a subnet is CIDR text, a link's
speed is one both of its ports can carry (asked of :mod:`workbench.model.ports`, with the
catalog items of the design's snapshot).
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass, replace
from typing import Any

from workbench.model import keep
from workbench.model.applied import Applied, Batch, Edit, insert_at
from workbench.model.change import Change
from workbench.model.design import PLANES, Design, Link, Network, StorageTier
from workbench.model.errors import EditError
from workbench.model.names import clean_field, clean_name
from workbench.model.ports import MEDIA, link_problem

#: Values of a few fields, as (field, value) pairs: hashable, so edits stay frozen.
Values = tuple[tuple[str, Any], ...]

NETWORK_FIELDS: frozenset[str] = frozenset(
    {"name", "plane", "technology", "speed_gbps", "mtu", "vlan", "subnet"}
)
LINK_FIELDS: frozenset[str] = frozenset({"speed_gbps", "cable_type", "length_m"})
TIER_FIELDS: frozenset[str] = frozenset(
    {
        "name",
        "tier",
        "filesystem",
        "device_ids",
        "metadata_servers",
        "small_file_iops",
        "dataset_tb",
        "concurrent_jobs",
        "gpudirect_storage",
    }
)
#: The tier's planning figures (None: not said): whole counts, then amounts.
TIER_COUNTS: tuple[str, ...] = ("metadata_servers", "concurrent_jobs")
TIER_AMOUNTS: tuple[str, ...] = ("small_file_iops", "dataset_tb")
#: Storage tier kinds (domain brief §4).
TIER_KINDS: tuple[str, ...] = ("hot", "warm", "cold")
TECHNOLOGIES: tuple[str, ...] = ("infiniband", "roce", "ethernet")


@dataclass(frozen=True)
class AddNetwork:
    network: Network
    index: int | None = None


@dataclass(frozen=True)
class RemoveNetwork:
    network_id: str


@dataclass(frozen=True)
class SetNetworkFields:
    network_id: str
    values: Values


@dataclass(frozen=True)
class SetLinkFields:
    """The same values on every link named (a bundle's speed or media at once)."""

    link_ids: tuple[str, ...]
    values: Values


@dataclass(frozen=True)
class AddStorageTier:
    tier: StorageTier
    index: int | None = None


@dataclass(frozen=True)
class RemoveStorageTier:
    tier_id: str


@dataclass(frozen=True)
class SetTierFields:
    tier_id: str
    values: Values


# -- checks ---------------------------------------------------------------------------


def _positive(what: str, value: Any, top: float = 1e6) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EditError(f"{what} must be a number, not {value!r}.")
    if not math.isfinite(value) or not 0 < value <= top:
        raise EditError(f"{what} must be above 0 and at most {top:g}, not {value:g}.")
    return float(value)


def check_network_value(name: str, value: Any) -> Any:
    """``value`` as a network stores it, or EditError saying what is wrong."""
    if name not in NETWORK_FIELDS:
        raise EditError(f"A network has no field {name!r}.")
    if name == "name":
        return clean_name(value, "network")
    if name == "plane":
        if value not in PLANES:
            raise EditError(f"A plane is one of {', '.join(PLANES)}, not {value!r}.")
        return value
    if name == "technology":
        if value not in TECHNOLOGIES:
            raise EditError(f"Technology is one of {', '.join(TECHNOLOGIES)}, not {value!r}.")
        return value
    if name == "speed_gbps":
        return _positive("A network's speed (Gb/s)", value, 3200)
    if name == "mtu":
        if isinstance(value, bool) or not isinstance(value, int) or not 576 <= value <= 65535:
            raise EditError(f"An MTU is a whole number of bytes from 576 to 65535, not {value!r}.")
        return value
    if name == "vlan":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 4094:
            raise EditError(f"A VLAN id is a whole number from 1 to 4094, not {value!r}.")
        return value
    # subnet
    if not isinstance(value, str):
        raise EditError(f"A subnet is CIDR text such as 10.10.0.0/16, not {value!r}.")
    text = value.strip()
    if text:
        try:
            network = ipaddress.ip_network(text, strict=True)
        except ValueError as exc:
            raise EditError(f"{text!r} is not a subnet in CIDR form: {exc}.") from None
        text = str(network)
    return text


def check_link_values(design: Design, link: Link, values: dict[str, Any]) -> None:
    """EditError when ``values`` would give ``link`` a bad speed, media or length."""
    for name, value in values.items():
        if name not in LINK_FIELDS:
            raise EditError(f"A link has no field {name!r}.")
        if value is None:
            continue
        if name == "cable_type" and value not in MEDIA:
            raise EditError(f"Cable media is one of {', '.join(MEDIA)}, not {value!r}.")
        if name == "length_m":
            _positive("A cable length (m)", value, 10_000)
    speed = values.get("speed_gbps", link.speed_gbps)
    if "speed_gbps" in values and speed is not None:
        speed = _positive("A link's speed (Gb/s)", speed, 3200)
        ends = []
        for device_id in (link.a_device, link.b_device):
            found = design.index.devices.get(device_id)
            ends.append(design.device_types.get(found[1].device_type) if found else None)
        a_item, b_item = ends
        if a_item is not None and b_item is not None:
            problem = link_problem(a_item, link.a_port, b_item, link.b_port, speed)
            if problem is not None:
                raise EditError(
                    f"Link {link.a_port}–{link.b_port} cannot run at {speed:g}G: {problem}."
                )


def check_tier_value(name: str, value: Any) -> Any:
    if name not in TIER_FIELDS:
        raise EditError(f"A storage tier has no field {name!r}.")
    if name == "name":
        return clean_name(value, "storage tier")
    if name == "tier":
        if value not in TIER_KINDS:
            raise EditError(f"A tier is one of {', '.join(TIER_KINDS)}, not {value!r}.")
        return value
    if name == "filesystem":
        return clean_field("storage_tiers.filesystem", value)
    if name in TIER_COUNTS:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100_000:
            raise EditError(f"{name.replace('_', ' ')} must be a whole number 0 to 100,000.")
        return value
    if name == "gpudirect_storage":
        if value is not None and not isinstance(value, bool):
            raise EditError(f"GPUDirect Storage is yes, no or not said, not {value!r}.")
        return value
    if name in TIER_AMOUNTS:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise EditError(f"{name.replace('_', ' ')} must be a number, not {value!r}.")
        if not math.isfinite(value) or not 0 <= value <= 1e12:
            raise EditError(f"{name.replace('_', ' ')} must be 0 or more, not {value:g}.")
        return float(value)
    ids = list(value)
    if len(set(ids)) != len(ids):
        raise EditError("A storage tier lists each device once.")
    return ids


# -- handlers -------------------------------------------------------------------------


def _network_position(design: Design, network_id: str) -> int:
    for i, network in enumerate(design.networks):
        if network.id == network_id:
            return i
    raise EditError(f"No network with id {network_id!r}.")


def _add_network(design: Design, op: AddNetwork) -> Any:
    if any(n.id == op.network.id for n in design.networks):
        raise EditError(f"The network id {op.network.id!r} is already in use.")
    for name in NETWORK_FIELDS:
        check_network_value(name, getattr(op.network, name))
    insert_at(design.networks, op.network, op.index, "networks")
    design.index.touch_fabric()
    return Applied(RemoveNetwork(op.network.id), Change(networks=frozenset({op.network.id})))


def _remove_network(design: Design, op: RemoveNetwork) -> Any:
    i = _network_position(design, op.network_id)
    users = sum(1 for link in design.links if link.network == op.network_id)
    if users:
        raise EditError(
            f"{users:,} links are on network {design.networks[i].name!r}: remove them first."
        )
    network = design.networks.pop(i)
    design.index.touch_fabric()
    return Applied(AddNetwork(network, i), Change(networks=frozenset({network.id})))


def _set_network_fields(design: Design, op: SetNetworkFields) -> Any:
    network = design.networks[_network_position(design, op.network_id)]
    clean = {name: check_network_value(name, value) for name, value in op.values}
    old = tuple((name, getattr(network, name)) for name in clean)
    for name, value in clean.items():
        setattr(network, name, value)
    design.index.touch_fabric()
    return Applied(SetNetworkFields(network.id, old), Change(networks=frozenset({network.id})))


def _set_link_fields(design: Design, op: SetLinkFields) -> Any:
    links = []
    for link_id in op.link_ids:
        link = design.index.links.get(link_id)
        if link is None:
            raise EditError(f"No link with id {link_id!r}.")
        links.append(link)
    values = dict(op.values)
    for link in links:
        check_link_values(design, link, values)
    # Links that had different values get them back in groups of equal old values.
    groups: dict[Values, list[str]] = {}
    for link in links:
        old = tuple((name, getattr(link, name)) for name in values)
        groups.setdefault(old, []).append(link.id)
        for name, value in values.items():
            setattr(link, name, value)
    design.index.touch_fabric()
    inverse = [SetLinkFields(tuple(ids), old) for old, ids in groups.items()]
    ids = frozenset(op.link_ids)
    ends = frozenset(e for link in links for e in (link.a_device, link.b_device))
    return Applied(
        inverse[0] if len(inverse) == 1 else Batch(tuple(inverse)),
        Change(links=ids, devices=ends),
    )


def _tier_position(design: Design, tier_id: str) -> int:
    for i, tier in enumerate(design.storage_tiers):
        if tier.id == tier_id:
            return i
    raise EditError(f"No storage tier with id {tier_id!r}.")


def _add_storage_tier(design: Design, op: AddStorageTier) -> Any:
    if any(t.id == op.tier.id for t in design.storage_tiers):
        raise EditError(f"The storage tier id {op.tier.id!r} is already in use.")
    for name in TIER_FIELDS:
        check_tier_value(name, getattr(op.tier, name))
    insert_at(design.storage_tiers, op.tier, op.index, "storage tiers")
    return Applied(RemoveStorageTier(op.tier.id), Change(tiers=frozenset({op.tier.id})))


def _remove_storage_tier(design: Design, op: RemoveStorageTier) -> Any:
    i = _tier_position(design, op.tier_id)
    tier = design.storage_tiers.pop(i)
    return Applied(AddStorageTier(tier, i), Change(tiers=frozenset({tier.id})))


def _set_tier_fields(design: Design, op: SetTierFields) -> Any:
    tier = design.storage_tiers[_tier_position(design, op.tier_id)]
    clean = {name: check_tier_value(name, value) for name, value in op.values}
    old = tuple(
        (name, tuple(tier.device_ids) if name == "device_ids" else getattr(tier, name))
        for name in clean
    )
    for name, value in clean.items():
        setattr(tier, name, value)
    return Applied(SetTierFields(tier.id, old), Change(tiers=frozenset({tier.id})))


def network(design: Design, plane: str, *, name: str | None = None, **fields: Any) -> AddNetwork:
    """An edit adding a network on ``plane`` with a fresh id (``net-<plane>``, numbered
    when taken) and the plane's usual defaults (domain brief §3) unless given."""
    defaults: dict[str, dict[str, Any]] = {
        "compute": {"technology": "infiniband", "speed_gbps": 400.0, "mtu": 4096},
        "storage": {"technology": "ethernet", "speed_gbps": 200.0, "mtu": 9000},
        "management": {"technology": "ethernet", "speed_gbps": 10.0, "mtu": 1500, "vlan": 10},
        "oob": {"technology": "ethernet", "speed_gbps": 1.0, "mtu": 1500, "vlan": 20},
    }
    taken = {n.id for n in design.networks}
    network_id, n = f"net-{plane}", 1
    while network_id in taken:
        n += 1
        network_id = f"net-{plane}-{n}"
    titles = {
        "compute": "Compute fabric",
        "storage": "Storage",
        "management": "In-band management",
        "oob": "Out-of-band (BMC)",
    }
    base = Network(network_id, name or titles.get(plane, plane), plane)
    return AddNetwork(replace(base, **{**defaults.get(plane, {}), **fields}))


#: This module's edits: how each is carried out and what it can change, gathered by :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {
    AddNetwork: Edit(_add_network, keep.networks),
    RemoveNetwork: Edit(_remove_network, keep.networks),
    SetNetworkFields: Edit(_set_network_fields, keep.network_fields),
    SetLinkFields: Edit(_set_link_fields, keep.link_fields),
    AddStorageTier: Edit(_add_storage_tier, keep.tiers),
    RemoveStorageTier: Edit(_remove_storage_tier, keep.tiers),
    SetTierFields: Edit(_set_tier_fields, keep.tier_fields),
}
