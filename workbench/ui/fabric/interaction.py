"""What a person does to the fabric with the mouse: cable two devices by dragging from
one to the other, and drop a switch from the catalog.

The decisions are plain functions on the model, so tests and the view ask the same
questions: :func:`plan_link` picks the next free compatible port of each end (the
model's :func:`~workbench.model.ports.free_port`, checked with
:func:`~workbench.model.ports.link_problem`) and says why when there is none;
:func:`plan_switch_drop` finds a network rack with room.  Both return one
:class:`~workbench.model.ops.Batch` (nothing is partly made) or raise
:class:`~workbench.model.errors.EditError` with the reason for the status bar.  The
mouse modes below only turn events into those calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QLineF, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QApplication, QGraphicsLineItem

from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import item_role
from workbench.model import Design, Device, Link, Rack, net_ops, ops
from workbench.model.errors import EditError
from workbench.model.ports import (
    DOWNSHIFT,
    HOST_KINDS,
    Port,
    breakout_ways,
    candidate_ports,
    device_port_ends,
    free_port,
    lanes_in_use,
    link_problem,
    link_speed,
    split_lane,
)
from workbench.model.requests import ItemSource, device_name, lookup_item, snapshot_ops
from workbench.planning.fabric import placement as fabric_placement
from workbench.planning.filling import place_across
from workbench.render import colors
from workbench.render.fabric_layout import UNCABLED, Box
from workbench.ui.catalog.palette import SLUG_MIME

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from workbench.ui.fabric.scene import FabricScene


class FabricView(Protocol):
    """What a link drag reads of the fabric view (:class:`workbench.ui.fabric.view.FabricView`
    holds them; naming the shape instead of importing the view, which imports this module,
    keeps the two files out of an import circle)."""

    fabric: FabricScene

    def viewport(self) -> QWidget: ...

    def mapToScene(self, pos: QPoint) -> QPointF: ...  # noqa: N802 - Qt's name

    def say(self, text: str, timeout_ms: int = 4000) -> None: ...


#: The plane a switch not cabled yet serves, by its role.
ROLE_PLANES: dict[str, str] = {
    "compute-switch": "compute",
    "storage-switch": "storage",
    "management-switch": "management",
}


@dataclass(frozen=True)
class LinkPlan:
    """A new link, as the one edit that makes it, and what the status bar says."""

    batch: ops.Batch
    link: Link
    text: str


@dataclass(frozen=True)
class End:
    """One end of a drag: the devices of the box it started or ended on."""

    members: tuple[str, ...]
    #: The box's plane (``UNCABLED`` for the tray of switches not cabled yet).
    plane: str
    #: Whether the box is in its plane's end-point layer (a server, a storage appliance,
    #: a switch's management port on the out-of-band plane).
    as_host: bool


def end_of(box: Box) -> End:
    return End(box.members, box.plane, box.plane != UNCABLED and box.level == 0)


def _item(design: Design, device_id: str) -> tuple[Device, CatalogItem] | None:
    found = design.index.devices.get(device_id)
    if found is None:
        return None
    item = design.device_types.get(found[1].device_type)
    return (found[1], item) if item is not None else None


def plane_of(design: Design, a: End, b: End) -> str:
    """The plane a drag between two boxes cables: the plane both are drawn on, or, from
    a switch not cabled yet, the plane its role serves."""
    if a.plane != UNCABLED and b.plane != UNCABLED:
        if a.plane != b.plane:
            raise EditError(
                f"These are drawn on the {a.plane} and the {b.plane} plane: cable them "
                "within one plane's drawing."
            )
        return a.plane
    for end in (a, b):
        if end.plane == UNCABLED and end.members:
            found = design.index.devices.get(end.members[0])
            if found is not None:
                item = design.device_types.get(found[1].device_type)
                plane = ROLE_PLANES.get(item_role(item, found[1].role))
                if plane is not None:
                    return plane
    other = b if a.plane == UNCABLED else a
    return other.plane if other.plane != UNCABLED else "compute"


@dataclass
class _Choice:
    """The device of one end that gets the link, its free ports and lanes in use."""

    device: Device
    item: CatalogItem
    free: list[Port]
    used: dict[str, set[int | None]]
    as_host: bool


def plan_link(design: Design, a: End, b: End) -> LinkPlan:
    """The link a drag from ``a`` to ``b`` makes, on the next free compatible port of
    each end (a group: its first device with a free port); EditError says why not."""
    plane = plane_of(design, a, b)
    x, y = _first_with_room(design, a, plane), _first_with_room(design, b, plane)
    if x.device.id == y.device.id:
        raise EditError(f"{x.device.name} cannot be cabled to itself.")
    network = next((n for n in design.networks if n.plane == plane), None)
    preferred = network.speed_gbps if network is not None and (x.as_host or y.as_host) else None
    for speed in _speeds(((x.item, x.free), (y.item, y.free)), preferred):
        a_port = free_port(x.item, x.used, speed=speed, plane=plane, as_host=x.as_host)
        b_port = free_port(y.item, y.used, speed=speed, plane=plane, as_host=y.as_host)
        if a_port is None or b_port is None:
            continue
        if link_problem(x.item, a_port, y.item, b_port, speed) is not None:
            continue
        natural = link_speed(x.item, a_port, y.item, b_port)
        lanes = split_lane(a_port)[1] is not None or split_lane(b_port)[1] is not None
        stored = speed if lanes or natural is None or abs(natural - speed) > 1e-6 else None
        steps: list[ops.Op] = []
        if network is None:
            add = net_ops.network(design, plane)
            steps.append(add)
            network_id = add.network.id
        else:
            network_id = network.id
        link = Link(
            design.index.new_id("link"),
            x.device.id,
            a_port,
            y.device.id,
            b_port,
            network_id,
            speed_gbps=stored,
        )
        steps.append(ops.AddLink(link))
        text = (
            f"Cabled {x.device.name} {a_port} to {y.device.name} {b_port} "
            f"({speed:g}G, {plane} plane)."
        )
        return LinkPlan(ops.Batch(tuple(steps)), link, text)
    pa, pb = x.free[0], y.free[0]
    reason = link_problem(x.item, pa.name, y.item, pb.name) or "no speed both run at"
    raise EditError(
        f"Not cabled: {x.device.name} {pa.name} ({pa.kind.label}) to "
        f"{y.device.name} {pb.name} ({pb.kind.label}): {reason}."
    )


def _first_with_room(design: Design, end: End, plane: str) -> _Choice:
    """The end's first device with a free port for ``plane``; EditError when none has."""
    first: Device | None = None
    for device_id in end.members:
        found = _item(design, device_id)
        if found is None:
            continue
        device, item = found
        first = first or device
        as_host = end.as_host or item.kind in HOST_KINDS
        used = lanes_in_use(device_port_ends(design, device_id), item)
        free = [
            p
            for p in candidate_ports(item, plane, as_host=as_host)
            if p.name not in used or (None not in used[p.name] and breakout_ways(item, p))
        ]
        if free:
            return _Choice(device, item, free, used, as_host)
    if first is None:
        raise EditError("Nothing to cable there.")
    if len(end.members) == 1:
        raise EditError(f"{first.name} has no free port for the {plane} plane.")
    raise EditError(
        f"None of the {len(end.members):,} devices from {first.name} on has a free port "
        f"for the {plane} plane."
    )


def _speeds(
    ends: Sequence[tuple[CatalogItem, Sequence[Port]]], preferred: float | None
) -> list[float]:
    """Speeds to try, the plane's host speed first, then the fastest the ports run at."""
    speeds: set[float] = set()
    for item, ports in ends:
        for port in ports:
            full = port.kind.speed_gbps
            speeds.update(full / d for d in DOWNSHIFT)
            speeds.update(full / w for w in breakout_ways(item, port))
    ordered = sorted(speeds, reverse=True)
    if preferred is not None and preferred in speeds:
        ordered.remove(preferred)
        ordered.insert(0, preferred)
    return ordered


# -- a switch from the catalog --------------------------------------------------------------


@dataclass(frozen=True)
class SwitchDrop:
    """A dropped switch: the edit, its device id and what the status bar says."""

    batch: ops.Batch
    device_id: str
    text: str


def network_racks(design: Design) -> list[Rack]:
    """Where a new switch belongs: the generator's network racks (racks of switches and
    no hosts, empty racks in rows without hosts), else any rack that holds a switch."""
    found = fabric_placement.network_racks(design)
    if found:
        return found
    racks = []
    for rack in design.iter_racks():
        for device in rack.devices:
            item = design.device_types.get(device.device_type)
            if item is not None and item.kind == "switch":
                racks.append(rack)
                break
    return racks


def plan_switch_drop(design: Design, catalog: ItemSource | None, slug: str) -> SwitchDrop:
    """Place a new switch of ``slug`` in the network rack with the most room that takes
    it within its units and budgets (the rack editor's
    :func:`~workbench.planning.filling.place_across`); with none, in the first network
    rack without a rack unit (the checks flag it until the user gives it one).
    EditError for an item that is no switch, or a design without racks."""
    item = design.device_types.get(slug) or lookup_item(catalog, slug)
    if item is None:
        raise EditError(f"The catalog has no item {slug!r}.")
    if item.kind != "switch":
        raise EditError(
            f"{item.label} is a {item.kind}: drop switches on the fabric, and place other "
            "equipment in the Racks view."
        )
    racks = network_racks(design)
    reasons = ""
    if racks:
        plan = place_across(design, catalog, [r.id for r in racks], slug, 1)
        if plan.report.placed:
            placed = plan.report.placed[0]
            where = f" at U{placed.position}" if placed.position is not None else ""
            text = f"Placed {placed.name} in {placed.rack_name}{where}."
            return SwitchDrop(plan.batch, placed.device_id, text)
        reasons = "; ".join(s.reason.rstrip(".") for s in plan.report.stops[:2])
    home = racks[0] if racks else next(iter(design.iter_racks()), None)
    if home is None:
        raise EditError("The design has no rack to put a switch in: add a row of racks first.")
    name = device_name(design, item, home, None)
    device = Device(design.index.new_id("device"), name, slug, None, "front")
    steps = (*snapshot_ops(design, catalog, slug), ops.AddDevice(home.id, device))
    why = f" ({reasons})" if reasons else ""
    text = (
        f"{name} is in {home.name} with no rack unit: no network rack takes it{why}. "
        "Give it a unit in the Racks view (the checks flag it until then)."
    )
    return SwitchDrop(ops.Batch(steps), device.id, text)


def slug_of(mime) -> str | None:
    """The catalog slug a palette drag carries, or None."""
    if mime is None or not mime.hasFormat(SLUG_MIME):
        return None
    slugs = bytes(mime.data(SLUG_MIME).data()).decode("utf-8").split()
    return slugs[0] if slugs else None


# -- the mouse modes ---------------------------------------------------------------------------


class LinkDrag:
    """Press on a box and drag: a line follows the pointer, the box under it is the
    target; release there to cable the two (the view asks :func:`plan_link`)."""

    def __init__(self, view: FabricView, source: Box, press: QPoint):
        self.view = view
        self.source = source
        self.press = press
        self.started = False
        self.target: Box | None = None
        self.line: QGraphicsLineItem | None = None

    def move(self, pos: QPoint) -> bool:
        """Follow the pointer; False while it has not moved far enough to be a drag."""
        if not self.started:
            if (pos - self.press).manhattanLength() < QApplication.startDragDistance():
                return False
            self.started = True
            pen = QPen(QColor(colors.SELECTION), 2.5, Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            self.line = QGraphicsLineItem()
            self.line.setPen(pen)
            self.line.setZValue(10)
            self.view.fabric.addItem(self.line)
            self.view.viewport().setCursor(Qt.CursorShape.CrossCursor)
        scene_pos = self.view.mapToScene(pos)
        target = self.view.fabric.box_at(scene_pos)
        self.target = target if target is not None and target.key != self.source.key else None
        end = QPointF(self.target.x, self.target.y) if self.target is not None else scene_pos
        assert self.line is not None
        self.line.setLine(QLineF(QPointF(self.source.x, self.source.y), end))
        if self.target is not None:
            self.view.say(f"Release to cable {self.source.title} to {self.target.title}")
        return True

    def finish(self) -> Box | None:
        """End the drag; the box it ended on (None: nowhere, or it never started)."""
        self.cancel()
        return self.target if self.started else None

    def cancel(self) -> None:
        if self.line is not None:
            self.view.fabric.removeItem(self.line)
            self.line = None
            self.view.viewport().unsetCursor()


__all__ = [
    "End",
    "LinkDrag",
    "LinkPlan",
    "SwitchDrop",
    "end_of",
    "network_racks",
    "plan_link",
    "plan_switch_drop",
    "plane_of",
    "slug_of",
]
