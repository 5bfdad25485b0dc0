"""Colours by device role, budget state and finding severity, shared by the screen, the
legend and printed elevations.

A role is what a device *does* in the cluster (GPU server, management switch ...), not
its catalog kind: a rack view coloured by role shows at a glance where compute, fabric
and storage sit.  Which role a device has is decided once, by
:func:`workbench.catalog.vocabulary.item_role`; this module only gives each a colour.
Likewise a budget's state (over, near its limit) is the rules' verdict
(:func:`workbench.rules.racks.budget_state`); here it only becomes a colour.
"""

from __future__ import annotations

from workbench.rules.budgets import BudgetState
from workbench.rules.registry import Severity

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
#: The outline of an exceeded budget's bar (so "over" survives a grey-scale copy).
OVER_EDGE = "#8e0000"
REAR_HATCH = "#90a4ae"


def role_color(role: str) -> str:
    """The fill colour (#rrggbb) for a role; unknown roles get the "other" colour."""
    return ROLE_COLORS.get(role, ROLE_COLORS["other"])[1]


#: The colour of a budget bar in each state the rules give it.
BUDGET_COLORS: dict[BudgetState, str] = {
    BudgetState.OK: LOAD_OK,
    BudgetState.NEAR: LOAD_WARN,
    BudgetState.OVER: LOAD_OVER,
    BudgetState.UNKNOWN: RAIL,
}

#: Marks of rule findings on the drawing, by severity.
SEVERITY_COLORS: dict[Severity, str] = {
    Severity.ERROR: "#d32f2f",
    Severity.WARNING: "#f9a825",
    Severity.INFO: "#1e88e5",
}


def budget_color(state: BudgetState) -> str:
    """The fill of a load bar in ``state`` (red over, amber near, green otherwise)."""
    return BUDGET_COLORS[state]


def role_label(role: str) -> str:
    """The legend label for a role."""
    return ROLE_COLORS.get(role, ROLE_COLORS["other"])[0]
