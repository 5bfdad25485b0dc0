"""What the fabric drawing is made of: boxes, bundles, layers and panels, and their sizes.

Plain data, no Qt: :mod:`workbench.render.fabric_layout` makes them, the painter
(:mod:`workbench.render.fabric_painter`) and the Fabric view read them.  Coordinates are
scene units (pixels at zoom 1); y grows downwards, the hosts' layer at y = 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.calc.fabric.planes import tier_name

#: Vertical distance between the centres of two layers: a share of the widest layer's
#: width within bounds, so a wide fabric's bundles do not lie flat.
LAYER_GAP = 200.0
MAX_LAYER_GAP = 640.0
LAYER_GAP_SHARE = 0.2
#: Sizes of the boxes: one switch, a group (of switches or hosts), a storage tier.
SWITCH_SIZE = (100.0, 34.0)
GROUP_SIZE = (128.0, 46.0)
TIER_SIZE = (200.0, 64.0)
#: Horizontal room between two boxes of a layer, and between two planes' panels.
BOX_GAP = 12.0
PANEL_GAP = 220.0
#: Room left of a panel's boxes for the layers' names and figures.
LABEL_ROOM = 170.0
#: Room above a panel's top layer for its title.
TITLE_ROOM = 70.0
#: The level of the switches nothing cables yet (a tray beside the planes).
UNCABLED = "uncabled"

PLANE_TITLES: dict[str, str] = {
    "compute": "Compute plane",
    "storage": "Storage plane",
    "management": "Management plane",
    "oob": "Out-of-band plane",
}


@dataclass(frozen=True)
class Limits:
    """How many boxes a layer may hold before its switches or hosts are grouped."""

    switches: int = 32
    hosts: int = 16


@dataclass
class Box:
    """One thing drawn: a switch, a group of switches or hosts, or a storage tier."""

    key: str
    plane: str
    #: 0 for end points, 1 leaf, 2 spine, 3 core ...; switches no host reaches sit one
    #: above the top tier.
    level: int
    #: "switch", "switches", "hosts" or "tier".
    kind: str
    title: str
    detail: str
    #: Device ids drawn by this box.
    members: tuple[str, ...]
    #: The device role its colour comes from (:data:`workbench.render.colors.ROLE_COLORS`).
    role: str
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    #: The storage tier's id, for a tier box.
    tier_id: str | None = None

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """(left, top, width, height)."""
        return (self.x - self.w / 2, self.y - self.h / 2, self.w, self.h)

    def contains(self, x: float, y: float) -> bool:
        return abs(x - self.x) <= self.w / 2 and abs(y - self.y) <= self.h / 2


@dataclass
class Bundle:
    """The links of one plane between two boxes, drawn as one line with a count."""

    #: (the lower box's key, the upper box's key).
    key: tuple[str, str]
    plane: str
    link_ids: list[str] = field(default_factory=list)
    #: Where the line leaves the lower box (its top edge) and meets the upper one (its
    #: bottom edge): spread along the edges in the order of the other ends, so a box's
    #: bundles fan out instead of meeting in one point.
    a_point: tuple[float, float] = (0.0, 0.0)
    b_point: tuple[float, float] = (0.0, 0.0)

    @property
    def count(self) -> int:
        return len(self.link_ids)


@dataclass
class Layer:
    """One row of a panel: its name, where it is, and how many devices it draws."""

    plane: str
    level: int
    name: str
    y: float
    devices: int
    boxes: list[str] = field(default_factory=list)
    #: A line its label adds (the end points' layer on the storage plane: its tiers).
    note: str = ""


@dataclass
class Panel:
    """One plane's drawing (or the tray of switches not cabled yet)."""

    plane: str
    title: str
    left: float
    top: float
    right: float
    bottom: float
    layers: list[Layer] = field(default_factory=list)
    links: int = 0
    #: Said in the panel when it has nothing to draw.
    note: str = ""


@dataclass
class FabricLayout:
    """Everything the Fabric view draws, and the maps that answer its clicks."""

    panels: list[Panel] = field(default_factory=list)
    boxes: dict[str, Box] = field(default_factory=dict)
    bundles: dict[tuple[str, str], Bundle] = field(default_factory=dict)
    #: Device id → the keys of the boxes drawing it (one per plane it is on).
    boxes_of_device: dict[str, list[str]] = field(default_factory=dict)
    #: Link id → the key of the bundle it is drawn in.
    bundle_of_link: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Box key → keys of the bundles with an end on it.
    bundles_at: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: Links between two members of one box (two switches of a group cabled together).
    inside: dict[str, int] = field(default_factory=dict)
    #: Left, top, right, bottom of everything.
    bounds: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def box_at(self, x: float, y: float) -> Box | None:
        """The box under a scene point (the last drawn wins), or None."""
        found = None
        for box in self.boxes.values():
            if box.contains(x, y):
                found = box
        return found

    def ends(self, bundle: Bundle) -> tuple[Box, Box]:
        return self.boxes[bundle.key[0]], self.boxes[bundle.key[1]]


def layer_name(level: int, depth: int) -> str:
    """What a layer is called: "Nodes" for the end points, then leaf, spine, core."""
    if level == 0:
        return "Nodes"
    if level > depth:
        return "Not reached"
    return tier_name(level).capitalize()
