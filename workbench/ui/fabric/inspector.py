"""What the inspector shows of the fabric: a device's ports and links, and a page for a
selected link or bundle with its speed and media to edit.

A bundle picked in the Fabric view is the document's selection of its link ids, so the
page edits every one of them at once: one :class:`~workbench.model.net_ops.SetLinkFields`
in one undo step, refused with the model's reason (a speed a port cannot run at) and
nothing changed.  Lengths are measured by :func:`workbench.calc.cabling.measure_links`
from the racks' floor positions; tiers and planes come from the shared
:class:`~workbench.ui.fabric.scene.StructureCache`.  Nothing here is recomputed from
rules of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QFormLayout, QLabel, QWidget

from workbench.calc.fabric.planes import PlaneStructure, link_plane, network_planes, tier_name
from workbench.model import Design, Link, net_ops
from workbench.model.ports import MEDIA, lanes_in_use, port_named, ports_of
from workbench.ui.commands import EditCommand
from workbench.ui.fabric.asbuilt import LISTED, AsBuiltCache, counts_text, verdict_html
from workbench.ui.fabric.scene import StructureCache
from workbench.ui.shell.document import Document
from workbench.ui.widgets import narrow_combo
from workbench.units import finite, format_count

#: Speeds the speed box offers, Gb/s (the model refuses those the ports cannot run at).
SPEEDS: tuple[float, ...] = (1, 10, 25, 40, 50, 100, 200, 400, 800, 1600)
#: Lengths are measured for at most this many links of a bundle (the rest alike).
MEASURE_LIMIT = 2000


def port_counts(design: Design, device_id: str) -> tuple[int, int] | None:
    """(data ports in use, data ports in all) of a device; None without data ports.
    A port split into lanes counts as used once any lane is."""
    found = design.index.devices.get(device_id)
    item = design.device_types.get(found[1].device_type) if found else None
    if item is None:
        return None
    ports = [p for p in ports_of(item) if not p.mgmt_only]
    if not ports:
        return None
    names = [
        design.index.links[i].a_port
        if design.index.links[i].a_device == device_id
        else design.index.links[i].b_port
        for i in design.index.device_links.get(device_id, ())
    ]
    used = lanes_in_use(names)
    return sum(1 for p in ports if p.name in used), len(ports)


def link_summary(design: Design, device_id: str, structures: dict[str, PlaneStructure]) -> str:
    """Per plane the device is cabled on: its tier and how many links go down and up."""
    index = design.index
    by_network = network_planes(design)
    mine = [index.links[i] for i in index.device_links.get(device_id, ())]
    planes = {link.id: link_plane(design, link, by_network) for link in mine}
    lines = []
    for plane, structure in structures.items():
        if device_id not in structure.tiers and device_id not in structure.hosts:
            continue
        tier = structure.tiers.get(device_id)
        on_plane = [link for link in mine if planes[link.id] == plane]
        if tier is None:
            lines.append(f"{plane}: end point, {format_count(len(on_plane), 'link')}")
            continue
        down = up = 0
        for link in on_plane:
            other = link.b_device if link.a_device == device_id else link.a_device
            other_tier = 0 if other in structure.hosts else structure.tiers.get(other, 0)
            if other_tier < tier:
                down += 1
            else:
                up += 1
        lines.append(f"{plane}: {tier_name(tier)}, {down:,} down · {up:,} up")
    return "\n".join(lines)


class LinkPage(QWidget):
    """The inspector page of a selected link or bundle."""

    def __init__(
        self,
        document: Document,
        push: Callable[[QUndoCommand], None],
        form: QFormLayout,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.document = document
        self.push = push
        self.cache = StructureCache.for_document(document)
        self.link_ids: tuple[str, ...] = ()
        self.fields: dict[str, QLabel] = {}
        for key, label in (
            ("links", "Links"),
            ("ends", "Ends"),
            ("plane", "Plane"),
        ):
            self.fields[key] = _value_label()
            form.addRow(label, self.fields[key])
        self.speed = narrow_combo("linkSpeed")
        self.speed.activated.connect(self._commit_speed)
        form.addRow("Speed", self.speed)
        self.media = narrow_combo("linkMedia")
        self.media.activated.connect(self._commit_media)
        form.addRow("Media", self.media)
        for key, label in (("length", "Length"), ("cable", "Cable")):
            self.fields[key] = _value_label()
            form.addRow(label, self.fields[key])
        # What the captures say (shown while the design holds any; see fabric_asbuilt).
        self.asbuilt = AsBuiltCache.for_document(document)
        self.fields["asbuilt"] = _value_label()
        self.fields["asbuilt"].setObjectName("linkAsBuilt")
        form.addRow("As built", self.fields["asbuilt"])
        self._form = form

    @property
    def design(self) -> Design:
        return self.document.design

    def links(self) -> list[Link]:
        index = self.design.index.links
        return [index[i] for i in self.link_ids if i in index]

    def show_links(self, link_ids: Sequence[str]) -> str:
        """Fill the page for these links; returns the inspector's title."""
        self.link_ids = tuple(link_ids)
        links = self.links()
        design = self.design
        f = self.fields
        names = {
            d: found[1].name
            for link in links
            for d in (link.a_device, link.b_device)
            if (found := design.index.devices.get(d)) is not None
        }
        if len(links) == 1:
            link = links[0]
            a, b = names.get(link.a_device, "?"), names.get(link.b_device, "?")
            title = f"Link · {a} ↔ {b}"
            f["links"].setText("1 link")
            f["ends"].setText(
                f"{a} {link.a_port}{self._kind(link.a_device, link.a_port)}\n"
                f"{b} {link.b_port}{self._kind(link.b_device, link.b_port)}"
            )
        else:
            title = f"Bundle · {format_count(len(links), 'link')}"
            f["links"].setText(format_count(len(links), "link"))
            f["ends"].setText(self._bundle_ends(links, names))
        planes = Counter(link_plane(design, link) or "no plane" for link in links[:MEASURE_LIMIT])
        networks = {n.id: n.name for n in design.networks}
        nets = sorted({networks.get(link.network or "", "") for link in links} - {""})
        plane_text = ", ".join(p for p, _n in planes.most_common())
        f["plane"].setText(plane_text + (f" ({', '.join(nets)})" if nets else ""))
        self._fill_speed(links)
        self._fill_media(links)
        self._show_lengths(links)
        self._show_asbuilt(links)
        return title

    def _show_asbuilt(self, links: list[Link]) -> None:
        """The link's verdict with its detail and file:line; a bundle's counts and its
        first wrong links."""
        label = self.fields["asbuilt"]
        shown = self.asbuilt.has_captures
        self._form.setRowVisible(label, shown)
        if not shown:
            label.setText("")
            return
        verdicts = [v for link in links if (v := self.asbuilt.of_link(link.id)) is not None]
        if len(links) == 1:
            label.setText(verdict_html(verdicts[0]) if verdicts else "not checked")
            return
        counts = Counter(v.verdict for v in verdicts)
        bad = self.asbuilt.wrong()
        wrong = [v for v in verdicts if v.link_id in bad]
        lines = [counts_text(counts) or "nothing wrong"]
        if counts.get("correct"):
            lines[0] += f"; {counts['correct']:,} correct"
        if counts.get("unchecked"):
            lines[0] += f"; {counts['unchecked']:,} not captured"
        lines += [verdict_html(v) for v in wrong[:LISTED]]
        if len(wrong) > LISTED:
            lines.append(f"… and {len(wrong) - LISTED:,} more")
        label.setText("<br>".join(lines))

    def _kind(self, device_id: str, port: str) -> str:
        found = self.design.index.devices.get(device_id)
        item = self.design.device_types.get(found[1].device_type) if found else None
        known = port_named(item, port) if item is not None else None
        return f" ({known.kind.label})" if known is not None else ""

    def _bundle_ends(self, links: list[Link], names: dict[str, str]) -> str:
        """The devices at each end of a bundle, the lower tier's first."""
        structures = self.cache.structures()
        level: dict[str, int] = {}
        for structure in structures.values():
            level.update(dict.fromkeys(structure.hosts, 0))
            level.update(structure.tiers)
        lower: dict[str, None] = {}
        upper: dict[str, None] = {}
        for link in links:
            a, b = link.a_device, link.b_device
            if level.get(a, 0) > level.get(b, 0):
                a, b = b, a
            lower[a] = None
            upper[b] = None
        return f"{_names(list(lower), names)}\n↔ {_names(list(upper), names)}"

    # -- speed and media -----------------------------------------------------------------
    def _fill_speed(self, links: list[Link]) -> None:
        combo = self.speed
        combo.blockSignals(True)
        combo.clear()
        values = {link.speed_gbps for link in links}
        combo.addItem("As the ports run", None)
        for speed in SPEEDS:
            combo.addItem(f"{speed:g}G", float(speed))
        if len(values) > 1:
            combo.insertItem(0, "Mixed", "mixed")
            combo.setCurrentIndex(0)
        else:
            value: object = next(iter(values), None)
            gbps = float(value) if finite(value) else None  # "fast" from a script: as stored
            index = combo.findData(gbps if gbps is not None or value is None else value)
            if index < 0:  # a speed no box offers
                label = f"{gbps:g}G" if gbps is not None else f"{value!r} (not a speed)"
                combo.addItem(label, gbps if gbps is not None else value)
                index = combo.count() - 1
            combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def _fill_media(self, links: list[Link]) -> None:
        combo = self.media
        combo.blockSignals(True)
        combo.clear()
        combo.addItem("By length (automatic)", None)
        for key, label in MEDIA.items():
            combo.addItem(label, key)
        values = {link.cable_type for link in links}
        if len(values) > 1:
            combo.insertItem(0, "Mixed", "mixed")
            combo.setCurrentIndex(0)
        else:
            value = next(iter(values), None)
            index = combo.findData(value)
            if index < 0:
                combo.addItem(str(value), value)
                index = combo.count() - 1
            combo.setCurrentIndex(index)
        combo.blockSignals(False)

    def _set(self, field: str, value: object, what: str) -> None:
        links = self.links()
        if not links or all(getattr(link, field) == value for link in links):
            return
        op = net_ops.SetLinkFields(tuple(link.id for link in links), ((field, value),))
        count = format_count(len(links), "link")
        self.push(EditCommand(self.document, op, f"Set {what} of {count}"))

    def _commit_speed(self, index: int) -> None:
        value = self.speed.itemData(index)
        if value == "mixed":
            return
        shown = self.speed.itemText(index)
        self._set("speed_gbps", value, f"speed to {shown}" if value is not None else "speed")

    def _commit_media(self, index: int) -> None:
        value = self.media.itemData(index)
        if value == "mixed":
            return
        self._set("cable_type", value, f"media to {value}" if value else "media")

    # -- lengths --------------------------------------------------------------------------
    def _show_lengths(self, links: list[Link]) -> None:
        # The cabling module brings networkx: loaded when a link is first shown.
        from workbench.calc.cabling import measure_links

        f = self.fields
        sample = [link.id for link in links[:MEASURE_LIMIT]]
        try:
            cables = measure_links(self.design, sample)
        except (KeyError, ValueError) as exc:
            f["length"].setText(f"not measured: {exc}")
            f["cable"].setText("—")
            return
        lengths = [c.length_m for c in cables.values() if c.length_m is not None]
        if not lengths:
            f["length"].setText("not measured (racks without a floor position)")
        elif min(lengths) == max(lengths):
            f["length"].setText(f"{lengths[0]:g} m (measured on the hall plan, stocked length)")
        else:
            f["length"].setText(f"{min(lengths):g}–{max(lengths):g} m (measured, stocked lengths)")
        media = Counter(MEDIA.get(c.media, c.media) for c in cables.values())
        text = ", ".join(f"{n:,} × {m}" if len(cables) > 1 else m for m, n in media.most_common())
        if len(links) > len(sample):
            text += f" (first {len(sample):,} of {len(links):,})"
        f["cable"].setText(text or "—")


def _names(ids: list[str], names: dict[str, str]) -> str:
    shown = [names.get(i, i) for i in ids[:3]]
    more = len(ids) - len(shown)
    text = ", ".join(shown)
    if more > 0:
        text += f" and {more:,} more"
    return text


def _value_label() -> QLabel:
    label = QLabel()
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setWordWrap(True)
    return label


__all__ = ["LinkPage", "link_summary", "port_counts"]
