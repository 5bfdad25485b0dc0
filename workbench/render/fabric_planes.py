"""One plane's part of the fabric drawing: its hosts grouped, its switch tiers in rows
(grouped when many), its links gathered into bundles.

The rules (why hosts go per rack, then per unit; why switches group by what they reach;
the barycentre order) are in :mod:`workbench.render.fabric_layout`'s docstring, which
calls :class:`PlaneLayout` once per plane.  Qt-free.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from workbench.calc.fabric.planes import PlaneStructure
from workbench.catalog.vocabulary import item_role
from workbench.model.design import Design
from workbench.render.fabric_shapes import (
    BOX_GAP,
    GROUP_SIZE,
    SWITCH_SIZE,
    TIER_SIZE,
    Box,
    Bundle,
    FabricLayout,
    Layer,
    Limits,
    layer_name,
)
from workbench.render.rack_geometry import as_text

# -- the design's order and racks --------------------------------------------------------


@dataclass
class Context:
    """What every plane's layout reads of the design (order, racks, names, roles and
    kinds of the devices), gathered in one pass over its devices."""

    design: Design
    limits: Limits
    order: dict[str, int]
    rack_of: dict[str, str]
    rack_name: dict[str, str]
    names: dict[str, str]
    roles: dict[str, str]
    kinds: dict[str, str]
    tier_details: Mapping[str, str]


def context(design: Design, limits: Limits, tier_details: Mapping[str, str]) -> Context:
    """The :class:`Context` of ``design`` (roles asked once per catalog item and role)."""
    order: dict[str, int] = {}
    rack_of: dict[str, str] = {}
    rack_name: dict[str, str] = {}
    names: dict[str, str] = {}
    roles: dict[str, str] = {}
    kinds: dict[str, str] = {}
    role_memo: dict[tuple[str, str], str] = {}
    types = design.device_types
    for rack, device in design.iter_devices():
        order[device.id] = len(order)
        rack_of[device.id] = rack.id
        rack_name[rack.id] = as_text(rack.name)  # names a script set to bytes are drawn too
        names[device.id] = as_text(device.name)
        slug = device.device_type if isinstance(device.device_type, str) else ""
        role_asked = device.role if isinstance(device.role, str) else ""
        key = (slug, role_asked)
        role = role_memo.get(key)
        if role is None:
            role = role_memo[key] = item_role(types.get(slug), role_asked)
        roles[device.id] = role
        item = types.get(slug)
        kinds[device.id] = item.kind if item is not None else "other"
    return Context(design, limits, order, rack_of, rack_name, names, roles, kinds, tier_details)


def chunks(groups: list[list[str]], limit: int) -> list[list[list[str]]]:
    """Consecutive groups merged so that at most ``limit`` remain."""
    if len(groups) <= limit:
        return [[g] for g in groups]
    size = math.ceil(len(groups) / limit)
    return [groups[i : i + size] for i in range(0, len(groups), size)]


def span(first: str, last: str) -> str:
    """ "ib-leaf-001–016" for the names of a group's first and last members."""
    if first == last:
        return first
    common = 0
    for a, b in zip(first, last, strict=False):
        if a != b:
            break
        common += 1
    # Cut back to a separator or a digit run's start, so "-001–016" is not "-0–16"
    while common and (first[common - 1].isdigit() and last[common - 1].isdigit()):
        common -= 1
    tail = last[common:]
    if common < 3 or not tail:
        return f"{first}–{last}"
    return f"{first}–{tail}"


def count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


# -- one plane -----------------------------------------------------------------------------


class PlaneLayout:
    """Lays out one plane's boxes around x = 0 (the panel is shifted into place after)."""

    def __init__(self, ctx: Context, structure: PlaneStructure, layout: FabricLayout):
        self.ctx = ctx
        self.structure = structure
        self.layout = layout
        self.plane = structure.plane
        self.box_of: dict[str, str] = {}
        self.layers: list[Layer] = []
        #: switch → other ends of its links on this plane (with repeats); hosts' own
        #: lists are not needed (their boxes are made from racks and units).
        self.neighbours: defaultdict[str, list[str]] = defaultdict(list)
        tiers = structure.tiers
        for link in structure.links:
            a, b = link.a_device, link.b_device
            if a in tiers:
                self.neighbours[a].append(b)
            if b in tiers:
                self.neighbours[b].append(a)

    def key(self, suffix: str) -> str:
        return f"{self.plane}:{suffix}"

    def add_box(self, box: Box) -> None:
        self.layout.boxes[box.key] = box
        for member in box.members:
            self.box_of[member] = box.key
            self.layout.boxes_of_device.setdefault(member, []).append(box.key)

    def place_row(self, level: int, boxes: list[Box], devices: int, name: str) -> None:
        """Put ``boxes`` side by side, centred on x = 0 (heights come with the panel,
        once the widest layer is known: see :meth:`shift`)."""
        y = 0.0
        width = sum(b.w for b in boxes) + BOX_GAP * max(0, len(boxes) - 1)
        x = -width / 2
        for box in boxes:
            box.x, box.y = x + box.w / 2, y
            x += box.w + BOX_GAP
            self.add_box(box)
        self.layers.append(Layer(self.plane, level, name, y, devices, [b.key for b in boxes]))

    # -- the end points ------------------------------------------------------------------
    def hosts(self) -> None:
        ctx = self.ctx
        order = ctx.order
        hosts = sorted(self.structure.hosts, key=lambda h: order.get(h, len(order)))
        tier_boxes: list[Box] = []
        if self.plane == "storage":
            tiered: set[str] = set()
            present = ctx.design.index.devices
            for tier in ctx.design.storage_tiers:
                # Every appliance of the tier, cabled or not: an uncabled tier stays on
                # the canvas, where a drag onto its box cables it (issue 24: it used to
                # vanish until cabled, which it could then not be by dragging).
                members = tuple(d for d in tier.device_ids if d in present)
                if not members:
                    continue
                tiered.update(members)
                w, h = TIER_SIZE
                detail = ctx.tier_details.get(tier.id) or count(
                    len(tier.device_ids), "device", "devices"
                )
                tier_boxes.append(
                    Box(
                        self.key(f"tier:{tier.id}"),
                        self.plane,
                        0,
                        "tier",
                        tier.name,
                        detail,
                        members,
                        "storage",
                        w=w,
                        h=h,
                        tier_id=tier.id,
                    )
                )
            hosts = [h for h in hosts if h not in tiered]
        boxes = [self._host_box(i, chunk) for i, chunk in enumerate(self._host_groups(hosts))]
        # The storage tiers stand beside the nodes they serve, as the plane's storage
        # layer: named in the label, one box per tier.
        name = "Nodes and storage" if tier_boxes else "Nodes"
        self.place_row(0, boxes + tier_boxes, len(self.structure.hosts), name)
        if tier_boxes:
            self.layers[-1].note = count(len(tier_boxes), "storage tier", "storage tiers")

    def _host_groups(self, hosts: list[str]) -> list[tuple[str, list[list[str]]]]:
        """(how they were grouped, the groups of each box) for the plane's hosts."""
        limit = self.ctx.limits.hosts
        by_rack: dict[str, list[str]] = {}
        for host in hosts:
            by_rack.setdefault(self.ctx.rack_of.get(host, ""), []).append(host)
        racks = list(by_rack.values())
        if len(racks) <= limit:
            return [("rack", [g]) for g in racks]
        units = self._units(hosts)
        base, how = (units, "unit") if len(units) > 1 else (racks, "racks")
        if len(base) <= limit:
            return [(how, [g]) for g in base]
        return [("merged" if how == "racks" else "units", c) for c in chunks(base, limit)]

    def _units(self, hosts: list[str]) -> list[list[str]]:
        """Hosts that share a leaf, transitively (union-find over the host links)."""
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            root = x
            while parent.get(root, root) != root:
                root = parent[root]
            while parent.get(x, x) != root:
                parent[x], x = root, parent[x]
            return root

        hosts_set = self.structure.hosts
        for link in self.structure.host_links:
            a, b = link.a_device, link.b_device
            ra, rb = find(a), find(b)
            if ra != rb:
                # The host's root wins, so a unit is named after its first host's root.
                if a in hosts_set:
                    parent[rb] = ra
                else:
                    parent[ra] = rb
        units: dict[str, list[str]] = {}
        for host in hosts:
            units.setdefault(find(host), []).append(host)
        return list(units.values())

    def _host_box(self, i: int, grouped: tuple[str, list[list[str]]]) -> Box:
        ctx = self.ctx
        how, groups = grouped
        members = tuple(h for g in groups for h in g)
        racks = [ctx.rack_name.get(ctx.rack_of.get(g[0], ""), "?") for g in groups]
        last_racks = [ctx.rack_name.get(ctx.rack_of.get(g[-1], ""), "?") for g in groups]
        servers = all(ctx.kinds.get(m) == "server" for m in members)
        what = (
            count(len(members), "node", "nodes")
            if servers
            else count(len(members), "device", "devices")
        )
        if how == "rack":
            title, detail = racks[0], what
        elif how == "unit":
            where = span(racks[0], last_racks[-1])
            prefix = "SU" if self.plane == "compute" else "Group"
            title, detail = f"{prefix} {i + 1}", f"{what} · {where}"
        else:
            title, detail = span(racks[0], last_racks[-1]), what
        roles = [ctx.roles.get(m, "other") for m in members[:1]]
        w, h = GROUP_SIZE
        return Box(
            self.key(f"hosts:{i}"),
            self.plane,
            0,
            "hosts",
            title,
            detail,
            members,
            roles[0] if roles else "other",
            w=w,
            h=h,
        )

    # -- the switches ----------------------------------------------------------------------
    def switches(self) -> None:
        structure = self.structure
        depth = structure.depth
        by_tier: dict[int, list[str]] = defaultdict(list)
        for switch, tier in structure.tiers.items():
            by_tier[tier].append(switch)
        levels = list(range(1, depth + 1))
        if by_tier.get(0):
            levels.append(depth + 1)
        for level in levels:
            tier = 0 if level > depth else level
            ids = by_tier.get(tier, [])
            if not ids:
                continue
            self._switch_row(level, ids, layer_name(level, depth))

    def _switch_row(self, level: int, ids: list[str], name: str) -> None:
        ctx = self.ctx
        boxes_below = self.layout.boxes
        centre: dict[str, float] = {}
        below: dict[str, frozenset[str]] = {}
        for switch in ids:
            keys = [self.box_of[n] for n in self.neighbours.get(switch, ()) if n in self.box_of]
            low = [k for k in keys if boxes_below[k].level < level]
            below[switch] = frozenset(low)
            xs = [boxes_below[k].x for k in low]
            centre[switch] = sum(xs) / len(xs) if xs else math.inf
        position = {s: i for i, s in enumerate(ids)}
        ordered = sorted(ids, key=lambda s: (centre[s], ctx.order.get(s, position[s])))
        limit = ctx.limits.switches
        if len(ordered) <= limit:
            groups = [[s] for s in ordered]
        else:
            by_reach: dict[frozenset[str], list[str]] = {}
            for switch in ordered:
                by_reach.setdefault(below[switch], []).append(switch)
            groups = [[s for g in c for s in g] for c in chunks(list(by_reach.values()), limit)]
        boxes = []
        for i, members in enumerate(groups):
            role = ctx.roles.get(members[0], "other")
            if len(members) == 1:
                w, h = SWITCH_SIZE
                switch = members[0]
                boxes.append(
                    Box(
                        self.key(switch),
                        self.plane,
                        level,
                        "switch",
                        ctx.names.get(switch, switch),
                        "",
                        (switch,),
                        role,
                        w=w,
                        h=h,
                    )
                )
                continue
            w, h = GROUP_SIZE
            title = span(ctx.names.get(members[0], ""), ctx.names.get(members[-1], ""))
            what = name.lower() if name != "Not reached" else "unreached"
            detail = f"{len(members):,} {what} switches"
            boxes.append(
                Box(
                    self.key(f"{level}:{i}"),
                    self.plane,
                    level,
                    "switches",
                    title,
                    detail,
                    tuple(members),
                    role,
                    w=w,
                    h=h,
                )
            )
        self.place_row(level, boxes, len(ids), name)

    # -- the bundles -------------------------------------------------------------------------
    def bundles(self) -> None:
        """Every link of the plane into the bundle of its two boxes (one pass; the
        links of each ordered pair of boxes are gathered first, then each pair is put
        the right way up once, so the loop over 300,000 links does little)."""
        layout = self.layout
        boxes = layout.boxes
        get = self.box_of.get
        pairs: dict[tuple[str, str], list[str]] = {}
        for link in self.structure.links:
            a = get(link.a_device)
            b = get(link.b_device)
            if a is None or b is None:
                continue
            ids = pairs.get((a, b))
            if ids is None:
                ids = pairs[(a, b)] = []
            ids.append(link.id)
        bundles = layout.bundles
        of_link = layout.bundle_of_link
        for (a, b), ids in pairs.items():
            if a == b:
                layout.inside[a] = layout.inside.get(a, 0) + len(ids)
                continue
            if (boxes[a].level, a) > (boxes[b].level, b):
                a, b = b, a
            key = (a, b)
            bundle = bundles.get(key)
            if bundle is None:
                bundle = bundles[key] = Bundle(key, self.plane)
                layout.bundles_at.setdefault(a, []).append(key)
                layout.bundles_at.setdefault(b, []).append(key)
            bundle.link_ids.extend(ids)
            of_link.update(dict.fromkeys(ids, key))

    def shift(self, dx: float, gap: float) -> tuple[float, float, float, float]:
        """Move the plane's boxes right by ``dx`` and each layer ``gap`` above the one
        below; returns their extent."""
        left = top = math.inf
        right = bottom = -math.inf
        for layer in self.layers:
            layer.y = -layer.level * gap
            for key in layer.boxes:
                box = self.layout.boxes[key]
                box.x += dx
                box.y = layer.y
                left, right = min(left, box.x - box.w / 2), max(right, box.x + box.w / 2)
                top, bottom = min(top, box.y - box.h / 2), max(bottom, box.y + box.h / 2)
        return left, top, right, bottom
