"""The words a design is written in: device roles, rack faces and cooling types.

They live at the bottom of the core (the catalog validates them in files, the model
stores them, the rules and the drawing read them), so each table exists exactly once.
:func:`derive_role` is the one role derivation: the catalog parser calls it for an entry
that names no role, and the drawing calls it (through :func:`device_role`) for a device,
so a switch can never be "management" to one and "compute" to the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbench.catalog.item import CatalogItem
from workbench.catalog.netbox import interface_speed_gbps

#: Which side of the rack a device is mounted on (NetBox's rack faces).
FACES: tuple[str, ...] = ("front", "rear")

#: What a device can do in the cluster (``Device.role``; catalog items name one too).
DEVICE_ROLES: tuple[str, ...] = (
    "gpu-server",
    "cpu-server",
    "storage",
    "compute-switch",
    "storage-switch",
    "management-switch",
    "pdu",
    "other",
)


@dataclass(frozen=True)
class CoolingType:
    """A way of taking heat out of a rack, and the planning limit it allows by default."""

    key: str
    label: str
    #: Short form for the rack drawing's header.
    tag: str
    limit_kw: float
    source: str
    #: Planning PUE of a hall cooled this way, until the design states the site's own
    #: (:func:`workbench.calc.summary.design_pue` weights it by each rack's IT draw).
    pue: float
    #: Where :attr:`pue` comes from (a source, or "planning assumption" and why).
    pue_source: str


#: Basis of the per-type PUE figures.  The domain brief (§5) and the seeds give one
#: figure only: liquid-cooled halls target a PUE below 1.2.  Air keeps the 1.3 the
#: workbench always planned with (between that target and the ~1.5-1.6 industry average
#: of air-cooled rooms, Uptime Institute survey), so air-cooled designs are unchanged.
#: Rear-door heat exchangers take the rack's heat into water at the rack but the room
#: still runs chillers and server fans: 1.25, a planning assumption between the two.
#: Direct liquid: 1.15, a planning assumption inside the < 1.2 target.
_PUE_TARGET = "domain brief §5 and seeds: target PUE < 1.2 with liquid cooling"

_BRIEF_5 = (
    "AI compute-centre planning practice (智算技术与算力规划设计及部署实施方案 v2.0): "
    "air-cooled racks top out around 8-12 kW; above that rear-door heat exchangers or "
    "direct liquid cooling"
)

#: Cooling types of a rack, in the order a menu lists them.
COOLING_TYPES: dict[str, CoolingType] = {
    c.key: c
    for c in (
        CoolingType(
            "air",
            "Air",
            "AIR",
            12.0,
            _BRIEF_5,
            1.3,
            "the workbench's planning PUE: between the < 1.2 liquid target (domain brief "
            "§5) and the ~1.5-1.6 average of air-cooled rooms (Uptime Institute survey)",
        ),
        CoolingType(
            "rear-door",
            "Rear-door heat exchanger",
            "RDHX",
            50.0,
            f"{_BRIEF_5}; rear-door heat exchangers are sold for roughly 40-50 kW per rack",
            1.25,
            f"planning assumption between air (1.3) and direct liquid; {_PUE_TARGET}",
        ),
        CoolingType(
            "liquid",
            "Direct liquid",
            "DLC",
            120.0,
            f"{_BRIEF_5}; GB200 NVL72 racks are direct liquid cooled at about 120 kW "
            "(hardware-reference.json, 'GB200 NVL72 rack')",
            1.15,
            f"planning assumption inside the target; {_PUE_TARGET}",
        ),
    )
}

#: Role words a file may use instead of our vocabulary, checked in this order.
_ROLE_HINTS: tuple[tuple[str, str], ...] = (
    ("mgmt", "management-switch"),
    ("management", "management-switch"),
    ("oob", "management-switch"),
    ("storage", "storage-switch"),
    ("compute", "compute-switch"),
    ("fabric", "compute-switch"),
)

#: A switch whose fastest data port is at most this many Gb/s is a management switch:
#: in-band management runs at 10-25 Gb/s and BMC networks at 1 Gb/s, while fabric
#: leaves (storage or compute) carry 25 Gb/s server ports with 100 Gb/s or faster
#: uplinks (domain brief §3).
MANAGEMENT_MAX_GBPS = 10.0


def derive_role(
    kind: str,
    gpu_count: int = 0,
    speeds_gbps: Iterable[float | None] = (),
    name: str = "",
    stated: str = "",
) -> str:
    """The role of a catalog entry: ``stated`` when it is one of :data:`DEVICE_ROLES`,
    a hint it contains (``leaf-mgmt`` → management switch), else from kind and figures.

    ``speeds_gbps`` are the line rates of the entry's data (non-management) interfaces
    and ``name`` its model and slug, used for switches.
    """
    stated = (stated or "").strip().lower()
    if stated in DEVICE_ROLES:
        return stated
    text = f"{stated} {name}".lower()
    if kind == "switch":
        for hint, role in _ROLE_HINTS:
            if hint in text:
                return role
        known = [s for s in speeds_gbps if s is not None]
        if known and max(known) <= MANAGEMENT_MAX_GBPS:
            return "management-switch"
        return "compute-switch"
    if kind == "server":
        if "storage" in stated:
            return "storage"
        return "gpu-server" if gpu_count > 0 or "gpu" in stated else "cpu-server"
    if kind in ("storage", "pdu"):
        return kind
    return "other"


def item_role(item: CatalogItem | None, override: str = "") -> str:
    """The role of a device of catalog type ``item``: the device's own ``override``
    (``Device.role``) when it is a known role, else :func:`derive_role` of the item."""
    override = (override or "").strip().lower()
    if override in DEVICE_ROLES:
        return override
    if item is None:
        return "other"
    speeds = (interface_speed_gbps(i.type) for i in item.interfaces if not i.mgmt_only)
    return derive_role(item.kind, item.gpu_count, speeds, f"{item.model} {item.slug}", item.role)
