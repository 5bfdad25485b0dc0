"""``write_netbox(design, folder)``: the design as NetBox bulk-import files.

One file per object list, in the columns of NetBox's import forms (see
:mod:`workbench.netbox.columns`), plus ``manifest.json`` naming them in import order
and ``workbench.yaml`` with the catalog figures NetBox cannot hold.

A 100,000-GPU design is about 440,000 cables and 200,000 addresses, so rows are
written to the files as they are made, never collected first; progress is reported
every few thousand rows and may cancel.  Everything is written into a hidden staging
folder beside the target and moved in only when every file is complete, so a cancel,
a full disk or a bad subnet leaves the target folder exactly as it was.  The IP plan
is made before a byte is written, so an exhausted subnet fails first.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

import yaml

from workbench.calc.cabling import measure_links
from workbench.catalog.item import RACKABLE_KINDS, CatalogItem
from workbench.catalog.vocabulary import COOLING_TYPES, item_role
from workbench.export.ip_plan import plan_addresses
from workbench.export.output import ExportError, Progress, no_progress, os_reason
from workbench.model.design import Design, Rack
from workbench.model.ports import split_lane
from workbench.model.unique import clashes
from workbench.netbox import columns as nb
from workbench.netbox import extras
from workbench.store.atomic import fsync_folder
from workbench.store.temps import stage_name, sweep_quietly

#: Rows between progress reports.
PROGRESS_EVERY = 5000
#: Largest file written, in bytes.  A stock NetBox refuses a form post above Django's
#: DATA_UPLOAD_MAX_MEMORY_SIZE (2,621,440 bytes) -- a 16,384-GPU design's cables.csv is
#: 9.4 MB -- so bigger lists are split into parts of at most this size, each with its
#: header (``cables.csv``, ``cables.2.csv`` ...), listed in order in the manifest.  The
#: margin leaves room for the rest of the form (token, format, delimiter).
PART_BYTES = 2_000_000
#: NetBox's YAML keys of a device type (the community library's schema).
DEVICE_TYPE_KEYS = ("manufacturer", "model", "slug", "part_number", "u_height",
                    "is_full_depth", "airflow", "weight", "weight_unit", "comments")  # fmt: skip
_SLUG_BAD = re.compile(r"[^-a-z0-9_]+")


def num(value: float | int | None) -> str:
    """A figure as CSV text: empty for unknown, no ``.0`` on whole numbers, else the
    shortest text that reads back as the same float."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def slugify(text: str) -> str:
    """A NetBox slug (``^[-a-zA-Z0-9_]+$``, 100 characters) for ``text``."""
    slug = _SLUG_BAD.sub("-", text.lower()).strip("-")
    return slug[:100] or "x"


def role_name(role: str) -> str:
    return nb.DEVICE_ROLE_NAMES.get(role, (role, ""))[0]


class _Stage:
    """A hidden folder beside ``target`` whose files move into ``target`` together."""

    def __init__(self, target: Path):
        if target.exists() and not target.is_dir():
            raise ExportError(target, "is a file, not a folder")
        if not target.parent.is_dir():
            raise ExportError(target, "the folder above it does not exist")
        self.target = target
        self.folder = stage_name(target, secrets.token_hex(4))  # the shape the sweep knows
        self.names: list[str] = []
        #: Logical file name → the files written for it, in import order.
        self.parts: dict[str, list[str]] = {}

    def create(self, name: str, part_of: str | None = None) -> TextIO:
        """A new file ``name`` (a part of ``part_of`` when given); the caller closes it."""
        self.names.append(name)
        self.parts.setdefault(part_of or name, []).append(name)
        return open(self.folder / name, "w", encoding="utf-8", newline="")

    @contextlib.contextmanager
    def open(self, name: str) -> Iterator[TextIO]:
        with self.create(name) as out:
            yield out

    def commit(self) -> list[Path]:
        self.target.mkdir(exist_ok=True)
        written = []
        for name in self.names:
            os.replace(self.folder / name, self.target / name)
            written.append(self.target / name)
        fsync_folder(self.target)
        return written


def write_netbox(design: Design, target: Path, *, progress: Progress = no_progress) -> list[Path]:
    """Write the NetBox import files of ``design`` into the folder ``target``.

    Returns the files written (manifest first).  ExportError names the path and the
    reason; ExportCancelled from ``progress`` propagates.  Files already in the folder
    that this export does not write are left alone.
    """
    target = Path(target).expanduser()
    _refuse_what_netbox_refuses(design, target)
    progress(0.0, "Planning addresses")
    plan = plan_addresses(design, where=target)
    stage = _Stage(target)
    try:
        stage.folder.mkdir()
        _Writer(design, stage, progress, plan).run()
        entries = [{"file": part, "path": f.path} | ({"part_of": f.name} if part != f.name else {})
                   for f in nb.FILES for part in stage.parts.get(f.name, [f.name])]  # fmt: skip
        with stage.open(nb.MANIFEST) as out:
            json.dump(entries, out, indent=2)
            out.write("\n")
        written = stage.commit()
    except OSError as exc:
        raise ExportError(target, os_reason(exc)) from exc
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(stage.folder)
    sweep_quietly(target.parent)  # staging folders killed exports left beside it
    progress(1.0, "Done")
    manifest = target / nb.MANIFEST
    return [manifest, *(p for p in written if p != manifest)]


def _refuse_what_netbox_refuses(design: Design, target: Path) -> None:
    """NetBox refuses two devices of one name in a site and an asset tag used twice;
    a project may still hold such a clash (it opens, and ``workbench check`` names it:
    :func:`workbench.model.unique.clashes`, the one home of the rule), but the export
    never writes a file NetBox would refuse halfway through an import."""
    for clash in (c for c in clashes(design) if c.what in ("name", "asset tag")):
        names = ", ".join(f"{d.name!r} in rack {r.name!r}" for r, d in clash.holders[:3])
        raise ExportError(
            target,
            f"devices {names} share the {clash.what} {clash.value!r}, which NetBox refuses; "
            "make it unique first (workbench check lists every clash)",
        )


class _Writer:
    """Writes the files one after another; ``progress`` spans cables and addresses."""

    def __init__(self, design: Design, stage: _Stage, progress: Progress, plan: Any):
        self.design, self.stage, self.progress, self.plan = design, stage, progress, plan
        self.rows_total = max(len(design.links) + len(plan.addresses), 1)
        self.rows_done = 0
        self.site_of: dict[str, str] = {}  # device id → site name
        self.name_of: dict[str, str] = {}  # device id → device name

    def tick(self, label: str) -> None:
        self.rows_done += 1
        if self.rows_done % PROGRESS_EVERY == 0:
            self.progress(0.05 + 0.9 * self.rows_done / self.rows_total, label)

    def csv(self, name: str, rows: Iterable[Iterable[object]]) -> None:
        """Write ``rows`` under ``name``'s header, in parts of at most PART_BYTES."""
        spec = nb.BY_NAME[name]
        line = io.StringIO()
        writer = csv.writer(line, lineterminator="\n")

        def text(cells: Iterable[object]) -> str:
            line.seek(0)
            line.truncate()
            writer.writerow(cells)
            return line.getvalue()

        self.parted(name, text(spec.columns), (text(row) for row in rows))

    def parted(self, name: str, head: str, chunks: Iterable[str]) -> None:
        """``head`` then ``chunks`` into ``name``, starting a new part (``name.2.ext``,
        with ``head`` again) before a chunk would take a part past PART_BYTES."""
        stem, ext = os.path.splitext(name)
        number, base = 1, len(head.encode())
        out = self.stage.create(name)
        try:
            out.write(head)
            size = base
            for chunk in chunks:
                grow = len(chunk.encode())
                if size + grow > PART_BYTES and size > base:
                    out.close()
                    number += 1
                    out = self.stage.create(f"{stem}.{number}{ext}", part_of=name)
                    out.write(head)
                    size = base
                out.write(chunk)
                size += grow
        finally:
            out.close()

    def run(self) -> None:
        d = self.design
        self.csv("custom-fields.csv", ((n, label, "Workbench", t, types, "", 1000, "exact",
                                        100 + k, "always", "yes")
                                       for k, (n, t, types, label) in enumerate(nb.CUSTOM_FIELDS)))  # fmt: skip
        self.csv("sites.csv", ((s.name, slugify(s.id), "planned", "", s.id) for s in d.sites))
        self.csv("locations.csv", ((s.name, r.name, slugify(r.id), "planned", r.id)
                                   for s in d.sites for r in s.rows))  # fmt: skip
        coolings = sorted({r.cooling for r in d.iter_racks()})
        self.csv("rack-roles.csv", ((_cooling_label(c), slugify(c), "03a9f4", c) for c in coolings))
        items = self.used_items()
        makers = sorted({i.manufacturer for i in items})
        self.csv("manufacturers.csv", ((m, slugify(m)) for m in makers))
        self.csv("rack-types.csv", (_rack_type_row(i) for i in items if i.kind == "rack"))
        self.csv("racks.csv", self.rack_rows())
        self.device_types([i for i in items if i.kind in RACKABLE_KINDS])
        roles = sorted({self.role_of(dv.device_type, dv.role) for _r, dv in d.iter_devices()})
        self.csv("device-roles.csv", ((role_name(r), slugify(r),
                                       nb.DEVICE_ROLE_NAMES.get(r, ("", "9e9e9e"))[1])
                                      for r in roles))  # fmt: skip
        self.csv("devices.csv", self.device_rows())
        self.csv("interfaces.csv", self.lane_rows())
        self.progress(0.05, "Measuring cable runs")
        self.csv("cables.csv", self.cable_rows())
        self.csv("vlans.csv", ((s.vlan, s.network_name, "active", s.plane)
                               for s in self.plan.subnets if s.vlan is not None))  # fmt: skip
        self.csv("prefixes.csv", self.prefix_rows())
        self.csv("ip-addresses.csv", self.address_rows())
        with self.stage.open(nb.SIDECAR) as out:
            yaml.safe_dump({"format": "workbench-netbox", "version": 1, "design": d.name,
                            "netbox": nb.NETBOX_VERSION,
                            "software_stacks": [{"id": st.id, "name": st.name,
                                                 "components": dict(st.components),
                                                 "revision": st.revision}
                                                for st in d.software_stacks],
                            "catalog": [dict(i.raw) or {"slug": i.slug} for i in items],
                            **extras.extras_of(d)},
                           out, sort_keys=False, allow_unicode=True)  # fmt: skip

    def used_items(self) -> list[CatalogItem]:
        """Every snapshot item, in slug order (the snapshot holds what the design uses)."""
        return [self.design.device_types[s] for s in sorted(self.design.device_types)]

    def role_of(self, slug: str, own: str) -> str:
        return item_role(self.design.device_types.get(slug), own)

    def rack_rows(self) -> Iterator[list[object]]:
        types = self.design.device_types
        for site in self.design.sites:
            for row in site.rows:
                for rack in row.racks:
                    item = types.get(rack.rack_type)
                    height = item.u_height if item and item.u_height else 42
                    weight = rack.max_weight_kg
                    yield [site.name, row.name, rack.name, "planned", _cooling_label(rack.cooling),
                           item.model if item and item.kind == "rack" else "", 19, num(height),
                           num(round(weight)) if weight is not None else "",
                           "kg" if weight is not None else "", *_rack_cf(rack)]  # fmt: skip

    def device_types(self, items: list[CatalogItem]) -> None:
        """One YAML document per type, each opened by ``---``: NetBox's "Auto-detect"
        format takes a file without it for JSON and refuses it."""
        docs = ("---\n" + yaml.safe_dump(device_type_yaml(item), sort_keys=False,
                                         allow_unicode=True) for item in items)  # fmt: skip
        self.parted("device-types.yaml", "", docs)

    def device_rows(self) -> Iterator[list[object]]:
        types = self.design.device_types
        for site in self.design.sites:
            for row in site.rows:
                for rack in row.racks:
                    for dv in rack.devices:
                        self.site_of[dv.id], self.name_of[dv.id] = site.name, dv.name
                        item = types.get(dv.device_type)
                        placed = dv.position is not None
                        yield [dv.name, role_name(self.role_of(dv.device_type, dv.role)),
                               item.manufacturer if item else "", item.model if item else
                               dv.device_type, "planned", site.name, row.name, rack.name,
                               num(dv.position), dv.face if placed else "", dv.serial,
                               dv.asset_tag, dv.notes, dv.id, dv.role,
                               "" if placed else dv.face, dv.software_stack or ""]  # fmt: skip

    def lane_rows(self) -> Iterator[list[object]]:
        """Breakout lanes the links use: interfaces the device type does not make."""
        types = self.design.device_types
        known: dict[str, dict[str, str]] = {
            slug: {i.name: i.type for i in item.interfaces} for slug, item in types.items()
        }
        slug_of = {dv.id: dv.device_type for _r, dv in self.design.iter_devices()}
        seen: set[tuple[str, str]] = set()
        for link in self.design.links:
            for dev, port in ((link.a_device, link.a_port), (link.b_device, link.b_port)):
                ports = known.get(slug_of.get(dev, ""), {})
                if port in ports or (dev, port) in seen or dev not in self.name_of:
                    continue
                seen.add((dev, port))
                base, _lane = split_lane(port)
                yield [self.name_of[dev], port, ports.get(base, "other"),
                       f"breakout lane of {base}"]  # fmt: skip

    def cable_rows(self) -> Iterator[list[object]]:
        from workbench.calc.fabric.planes import link_plane, network_planes
        from workbench.export.cables import label_of

        measured = measure_links(self.design)
        planes = network_planes(self.design)
        for link in self.design.links:
            self.tick("Cables")
            cable = measured.get(link.id)
            media = link.cable_type or (cable.media if cable else "")
            length = (
                link.length_m if link.length_m is not None else (cable.length_m if cable else None)
            )
            a, b = link.a_device, link.b_device
            yield [self.site_of.get(a, ""), self.name_of.get(a, a), "dcim.interface", link.a_port,
                   self.site_of.get(b, ""), self.name_of.get(b, b), "dcim.interface", link.b_port,
                   nb.CABLE_TYPES.get(media, ""), "planned",
                   label_of(link_plane(self.design, link, planes), link.id),
                   num(length), "m" if length is not None else "",
                   link.id, link.network or "", link.cable_type or "", num(link.length_m),
                   num(link.speed_gbps)]  # fmt: skip

    def prefix_rows(self) -> Iterator[list[object]]:
        by_id = {n.id: n for n in self.design.networks}
        for s in self.plan.subnets:
            n = by_id[s.network_id]
            yield [s.cidr, s.vlan if s.vlan is not None else "", "active", n.name, n.id, n.plane,
                   n.technology, num(n.speed_gbps), n.mtu, n.subnet, num(n.vlan)]  # fmt: skip

    def address_rows(self) -> Iterator[list[object]]:
        for a in self.plan.addresses:
            self.tick("Addresses")
            yield [f"{a.address}/{a.prefix_len}", "reserved", a.device_name, a.port, a.plane]


def _cooling_label(cooling: str) -> str:
    found = COOLING_TYPES.get(cooling)
    return found.label if found else cooling


def _rack_type_row(item: CatalogItem) -> list[object]:
    props = item.props
    max_kg = props.get("max_weight_kg")
    return [item.manufacturer, item.model, slugify(item.slug), "4-post-cabinet", 19,
            num(item.u_height or 42), num(props.get("width_mm")), num(props.get("depth_mm")),
            "mm" if props.get("width_mm") or props.get("depth_mm") else "",
            num(item.weight_kg), num(round(max_kg)) if isinstance(max_kg, (int, float)) else "",
            "kg", item.comments[:200]]  # fmt: skip


def _rack_cf(rack: Rack) -> list[str]:
    return [rack.id, num(rack.power_limit_kw), num(rack.cooling_limit_kw),
            num(rack.max_weight_kg), num(rack.feed_a_voltage), num(rack.feed_a_phases),
            num(rack.feed_a_breaker_a), num(rack.feed_b_voltage), num(rack.feed_b_phases),
            num(rack.feed_b_breaker_a), num(rack.floor_x_mm), num(rack.floor_y_mm),
            rack.facing]  # fmt: skip


def device_type_yaml(item: CatalogItem) -> dict[str, Any]:
    """``item`` as a device type of the community library (NetBox's YAML import)."""
    out: dict[str, Any] = {"manufacturer": item.manufacturer, "model": item.model,
                           "slug": slugify(item.slug)}  # fmt: skip
    if item.part_number:
        out["part_number"] = item.part_number
    out["u_height"] = item.u_height
    out["is_full_depth"] = item.is_full_depth
    if item.airflow:
        out["airflow"] = item.airflow
    if item.weight is not None:
        out["weight"] = item.weight
        out["weight_unit"] = item.weight_unit
    if item.comments:
        out["comments"] = item.comments
    if item.interfaces:
        out["interfaces"] = [{"name": i.name, "type": i.type, **({"mgmt_only": True}
                              if i.mgmt_only else {})} for i in item.interfaces]  # fmt: skip
    if item.power_ports:
        out["power-ports"] = [_power_port(p) for p in item.power_ports]
    return out


def _power_port(port: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": port.name}
    if port.type:
        entry["type"] = port.type
    # NetBox stores draws as whole watts.
    for key in ("maximum_draw", "allocated_draw"):
        value = getattr(port, key)
        if value is not None:
            entry[key] = int(round(value))
    return entry
