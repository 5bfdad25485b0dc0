"""Colours by device role, shared by the screen, the legend and printed elevations.

A role is what a device *does* in the cluster (GPU server, management switch ...), not
its catalog kind: a rack view coloured by role shows at a glance where compute, fabric
and storage sit.  The catalog may name the role; when it does not, :func:`role_of`
derives one from the kind and figures, so a NetBox device type without our fields still
gets a sensible colour.
"""

from __future__ import annotations

from workbench.catalog.item import CatalogItem

#: Role → (label for the legend, fill colour as #rrggbb).  Order is legend order.
#: Legend label and fill colour of each of :data:`workbench.model.DEVICE_ROLES`.
ROLE_COLORS: dict[str, tuple[str, str]] = {
    "gpu-server": ("GPU server", "#4caf50"),
    "cpu-server": ("CPU server", "#42a5f5"),
    "storage": ("Storage", "#ffa726"),
    "compute-switch": ("Compute switch", "#ab47bc"),
    "storage-switch": ("Storage switch", "#26a69a"),
    "management-switch": ("Management switch", "#78909c"),
    "pdu": ("PDU", "#8d6e63"),
    "other": ("Other", "#bdbdbd"),
}

#: Colours of the rack drawing itself (frame, rails, empty slots, selection, load bar).
FRAME = "#37474f"
RAIL = "#cfd8dc"
SLOT = "#f7f9fa"
SLOT_LINE = "#e3e8eb"
TEXT = "#263238"
TEXT_MUTED = "#78909c"
SELECTION = "#ff6d00"
LOAD_OK = "#66bb6a"
LOAD_WARN = "#ffca28"
LOAD_OVER = "#e53935"
REAR_HATCH = "#90a4ae"

_SWITCH_ROLE_HINTS = (
    ("mgmt", "management-switch"),
    ("management", "management-switch"),
    ("storage", "storage-switch"),
    ("compute", "compute-switch"),
)


def role_of(item: CatalogItem | None, override: str = "") -> str:
    """The colour role of a device: its own ``override`` (``Device.role``) when that is a
    known role, else the catalog item's ``role`` if known, else derived from the item."""
    override = (override or "").strip().lower()
    if override in ROLE_COLORS:
        return override
    if item is None:
        return "other"
    role = (item.role or "").strip().lower()
    if role in ROLE_COLORS:
        return role
    for hint, mapped in _SWITCH_ROLE_HINTS:
        if role and hint in role:
            return mapped if item.kind == "switch" or hint != "storage" else "storage"
    if item.kind == "server":
        return "gpu-server" if item.gpu_count > 0 or "gpu" in role else "cpu-server"
    if item.kind == "storage":
        return "storage"
    if item.kind == "pdu":
        return "pdu"
    if item.kind == "switch":
        return "management-switch" if _is_management_switch(item) else "compute-switch"
    return "other"


def _is_management_switch(item: CatalogItem) -> bool:
    """A switch whose data ports are all 10G or slower is a management switch."""
    name = f"{item.model} {item.slug}".lower()
    if "mgmt" in name or "management" in name:
        return True
    speeds = [_speed_of(i.type) for i in item.interfaces if not i.mgmt_only]
    speeds = [s for s in speeds if s is not None]
    return bool(speeds) and max(speeds) <= 10


def _speed_of(netbox_type: str) -> float | None:
    """Gbit/s from a NetBox interface type name such as ``400gbase-x-osfp``."""
    head = netbox_type.split("base", 1)[0].lower()
    try:
        if head.endswith("g"):
            return float(head[:-1])
        if head.isdigit():  # "1000base-t" is in Mbit/s
            return float(head) / 1000.0
    except ValueError:
        return None
    return None


def role_color(role: str) -> str:
    """The fill colour (#rrggbb) for a role; unknown roles get the "other" colour."""
    return ROLE_COLORS.get(role, ROLE_COLORS["other"])[1]


def load_color(fraction: float) -> str:
    """The colour of a load bar at ``fraction`` of its limit: red over it, amber above
    80 % (little headroom left), green otherwise."""
    if fraction > 1.0:
        return LOAD_OVER
    return LOAD_WARN if fraction > 0.8 else LOAD_OK


def role_label(role: str) -> str:
    """The legend label for a role."""
    return ROLE_COLORS.get(role, ROLE_COLORS["other"])[0]
