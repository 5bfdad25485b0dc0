"""Where the Fabric view draws things: layers, boxes and bundles, worked out without Qt.

The drawing is layered the way network engineers sketch a Clos fabric: the core at the
top, then the spines, the leaves, and the end points (nodes, storage) at the bottom.
Which switch is in which layer is not decided here: it is read from the cabling by
:func:`workbench.calc.fabric.planes.plane_structures` (a hand-drawn fabric draws like a
generated one).  This module only decides *where* things go and *what is drawn as one
thing*:

* **Hosts are many** (12,500 nodes at 100,000 GPUs), so they are never drawn one by
  one: a plane's hosts are grouped per rack; with more racks than :attr:`Limits.hosts`,
  per connected unit (the hosts that share leaves: a scalable unit of a rail-optimized
  fabric, a rack of a per-rack access layer); with still more, consecutive groups are
  merged.  On the storage plane the members of a storage tier are one box per tier.
* **A tier with many switches is drawn in groups**: switches that reach the same boxes
  below (the eight rail leaves of one scalable unit, the spines of one pod) become one
  box, and consecutive groups merge when there are still too many.
* **Parallel links are one bundle**: every link of a plane between the same two boxes,
  kept as the list of link ids (what a delete or a speed change of the bundle acts on)
  and drawn from its count.
* **Order**: hosts in design order (racks along the rows), each layer above sorted by
  the mean position of what it reaches below (the barycentre heuristic of Sugiyama et
  al., 1981), which keeps a fat tree's bundles from crossing more than they must.

Everything is one or two passes over the plane's links and the design's devices, so a
100,000-GPU design (300,000 links) lays out in well under a second.  Coordinates are
scene units (pixels at zoom 1); y grows downwards, the hosts' layer at y = 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from workbench.calc.fabric.planes import PlaneStructure, plane_structures
from workbench.model.design import PLANES, Design
from workbench.render.fabric_planes import Context, PlaneLayout, chunks, context, span
from workbench.render.fabric_shapes import (
    BOX_GAP,
    GROUP_SIZE,
    LABEL_ROOM,
    LAYER_GAP,
    LAYER_GAP_SHARE,
    MAX_LAYER_GAP,
    PANEL_GAP,
    PLANE_TITLES,
    TITLE_ROOM,
    UNCABLED,
    Box,
    Bundle,
    FabricLayout,
    Layer,
    Limits,
    Panel,
    layer_name,
)

__all__ = [
    "PLANE_TITLES",
    "UNCABLED",
    "Box",
    "Bundle",
    "FabricLayout",
    "Layer",
    "Limits",
    "Panel",
    "lay_out_fabric",
    "layer_name",
    "members_of",
    "planes_with_links",
]


# -- the whole drawing -----------------------------------------------------------------------


def lay_out_fabric(
    design: Design,
    planes: Sequence[str] = PLANES,
    *,
    structures: Mapping[str, PlaneStructure] | None = None,
    tier_details: Mapping[str, str] | None = None,
    limits: Limits | None = None,
) -> FabricLayout:
    """The drawing of ``planes`` (side by side, in that order) and of the switches no
    link reaches yet (a tray on the right, so a switch just dropped can be cabled).

    ``structures`` are the planes' structures when the caller has them already;
    ``tier_details`` a line per storage tier id (capacity and bandwidth) for its box.
    """
    if structures is None:
        structures = plane_structures(design, planes)
    ctx = context(design, limits or Limits(), tier_details or {})
    layout = FabricLayout()
    x = 0.0
    extents: list[tuple[float, float, float, float]] = []
    for plane in planes:
        structure = structures.get(plane)
        if structure is None:
            continue
        plane_layout = PlaneLayout(ctx, structure, layout)
        if structure.links:
            plane_layout.hosts()
            plane_layout.switches()
            plane_layout.bundles()
        panel = _panel(plane_layout, structure, x)
        layout.panels.append(panel)
        extents.append((panel.left, panel.top, panel.right, panel.bottom))
        x = panel.right + PANEL_GAP
    tray = _tray(ctx, layout, x)
    if tray is not None:
        layout.panels.append(tray)
        extents.append((tray.left, tray.top, tray.right, tray.bottom))
    _attach(layout)
    if extents:
        layout.bounds = (
            min(e[0] for e in extents),
            min(e[1] for e in extents),
            max(e[2] for e in extents),
            max(e[3] for e in extents),
        )
    return layout


def _panel(plane_layout: PlaneLayout, structure: PlaneStructure, x: float) -> Panel:
    """Shift a laid-out plane so its panel starts at ``x``, and frame it."""
    title = PLANE_TITLES.get(structure.plane, structure.plane)
    if not plane_layout.layers:
        width = 460.0
        return Panel(
            structure.plane,
            title,
            x,
            -LAYER_GAP - TITLE_ROOM,
            x + width,
            GROUP_SIZE[1],
            links=0,
            note="No links on this plane yet: generate a fabric, or drag from one "
            "device to another to cable them.",
        )
    widths = [
        max(
            0.0,
            -min(
                (
                    plane_layout.layout.boxes[k].x - plane_layout.layout.boxes[k].w / 2
                    for k in layer.boxes
                ),
                # A layer may hold no box: a snapshot calling a GPU server a switch puts
                # it among the switches it is cabled to (issue 18's Fabric-tab crash).
                default=0.0,
            ),
        )
        for layer in plane_layout.layers
    ]
    half = max(widths)
    gap = min(MAX_LAYER_GAP, max(LAYER_GAP, 2 * half * LAYER_GAP_SHARE))
    left, top, right, bottom = plane_layout.shift(x + LABEL_ROOM + half, gap)
    panel = Panel(
        structure.plane,
        title,
        x,
        top - TITLE_ROOM,
        right + 40.0,
        bottom + 40.0,
        layers=sorted(plane_layout.layers, key=lambda layer: -layer.level),
        links=len(structure.links),
    )
    del left
    return panel


def _tray(ctx: Context, layout: FabricLayout, x: float) -> Panel | None:
    """The switches with no link at all, in a grid (grouped by model when many)."""
    index = ctx.design.index
    loose = [
        d for d, kind in ctx.kinds.items() if kind == "switch" and not index.device_links.get(d)
    ]
    if not loose:
        return None
    loose.sort(key=lambda d: ctx.order.get(d, 0))
    limit = ctx.limits.switches
    groups: list[list[str]]
    if len(loose) <= limit:
        groups = [[d] for d in loose]
    else:
        by_model: dict[str, list[str]] = {}
        for d in loose:
            placed = index.devices.get(d)
            by_model.setdefault(placed[1].device_type if placed else "", []).append(d)
        groups = [[s for g in c for s in g] for c in chunks(list(by_model.values()), limit)]
    columns = 4
    w, h = GROUP_SIZE
    boxes = []
    for i, members in enumerate(groups):
        role = ctx.roles.get(members[0], "other")
        if len(members) == 1:
            title, detail, kind = ctx.names.get(members[0], members[0]), "", "switch"
            key = f"{UNCABLED}:{members[0]}"
        else:
            title = span(ctx.names.get(members[0], ""), ctx.names.get(members[-1], ""))
            detail, kind, key = f"{len(members):,} switches", "switches", f"{UNCABLED}:{i}"
        col, row = i % columns, i // columns
        box = Box(key, UNCABLED, 0, kind, title, detail, tuple(members), role, w=w, h=h)
        box.x = x + 30 + col * (w + BOX_GAP) + w / 2
        box.y = row * (h + BOX_GAP * 2)
        layout.boxes[key] = box
        for member in members:
            layout.boxes_of_device.setdefault(member, []).append(key)
        boxes.append(box)
    rows = math.ceil(len(boxes) / columns)
    right = x + 30 + min(columns, len(boxes)) * (w + BOX_GAP) + 30
    layer = Layer(UNCABLED, 0, "Not cabled", 0.0, len(loose), [b.key for b in boxes])
    return Panel(
        UNCABLED,
        "Not cabled yet",
        x,
        -h / 2 - TITLE_ROOM,
        right,
        (rows - 1) * (h + BOX_GAP * 2) + h / 2 + 40,
        layers=[layer],
        note="Drag from one of these to another device to cable it.",
    )


def _attach(layout: FabricLayout) -> None:
    """Spread each box's bundles along its top and bottom edges (see :class:`Bundle`)."""
    boxes = layout.boxes
    for key, keys in layout.bundles_at.items():
        box = boxes[key]
        up: list[tuple[float, tuple[str, str]]] = []
        down: list[tuple[float, tuple[str, str]]] = []
        for bundle_key in keys:
            other = boxes[bundle_key[1] if bundle_key[0] == key else bundle_key[0]]
            (
                up
                if other.level > box.level or (other.level == box.level and bundle_key[0] == key)
                else down
            ).append((other.x, bundle_key))
        for side, edge_y in ((up, box.y - box.h / 2), (down, box.y + box.h / 2)):
            side.sort()
            span = box.w * 0.8
            for i, (_x, bundle_key) in enumerate(side):
                x = box.x if len(side) == 1 else box.x - span / 2 + span * i / (len(side) - 1)
                bundle = layout.bundles[bundle_key]
                if bundle_key[0] == key:
                    bundle.a_point = (x, edge_y)
                else:
                    bundle.b_point = (x, edge_y)


def planes_with_links(structures: Mapping[str, PlaneStructure]) -> list[str]:
    """The planes that carry at least one link, in :data:`PLANES` order."""
    return [p for p in PLANES if p in structures and structures[p].links]


def members_of(layout: FabricLayout, keys: Iterable[str]) -> list[str]:
    """Every device id drawn by the boxes ``keys`` (each once, in box order)."""
    seen: dict[str, None] = {}
    for key in keys:
        box = layout.boxes.get(key)
        if box is not None:
            seen.update(dict.fromkeys(box.members))
    return list(seen)
