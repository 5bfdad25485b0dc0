"""``read_netbox(folder)``: NetBox bulk-import files (ours, or NetBox's own CSV exports
of the same objects) back into a design.

The files come from strangers, so reading is bounded and strict: a file is measured
before it is read (:data:`MAX_FILE_BYTES`), rows and cells are counted as they come
(:data:`MAX_ROWS`, :data:`MAX_CELL_CHARS`), and every problem is one
:class:`NetBoxImportError` naming ``file:line`` and the field.  Nothing is returned
until every file has been read, so a caller that saves only what this returns can
never half-import.

Headers may be the import-form field names (what :mod:`workbench.netbox.export`
writes) or the column headings of NetBox's CSV export ("Name", "Device type",
"Position (U)" ...), and custom-field columns either ``cf_wb_x`` or their label.
What the files lack takes the workbench's defaults, and what the workbench does
not model (tenants, platforms, IP addresses, which it plans itself) is ignored.
"""

from __future__ import annotations

import csv
import html
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workbench.bounded_read import ReadRefused, bad_utf8_line, open_text, read_bounded
from workbench.catalog.errors import CatalogError
from workbench.catalog.item import CatalogItem
from workbench.catalog.vocabulary import COOLING_TYPES, FACES, item_role
from workbench.model.design import Design, Device, Link, Network, Rack, Row, Site, SoftwareStack
from workbench.model.names import MAX_NAME_CHARS, text_problem, tidy
from workbench.model.unique import clashes
from workbench.netbox import columns as nb
from workbench.netbox import extras
from workbench.text_rules import STORED_TEXT

#: Largest file read, in bytes: a 100,000-GPU export's cables.csv is about 70 MB.
MAX_FILE_BYTES = 512 * 1024 * 1024
#: Most data rows in one file (the 100,000-GPU design has about 440,000 cables).
MAX_ROWS = 4_000_000
#: Longest cell, in characters (comments are the longest real values).
MAX_CELL_CHARS = 16 * 1024
#: Largest device-type or workbench YAML file, in bytes.
MAX_YAML_BYTES = 8 * 1024 * 1024

_LABELS = {label.lower(): f"cf_{name}" for name, _t, _o, label in nb.CUSTOM_FIELDS}
_COOLING_BY_TEXT = {**{c.label.lower(): k for k, c in COOLING_TYPES.items()},
                    **{k: k for k in COOLING_TYPES}}  # fmt: skip
_ROLE_BY_TEXT = {**{n.lower(): k for k, (n, _c) in nb.DEVICE_ROLE_NAMES.items()},
                 **{k: k for k in nb.DEVICE_ROLE_NAMES}}  # fmt: skip
#: "gpu-001 (AT-1234)": how NetBox names a device that has an asset tag.
_NAME_AND_TAG = re.compile(r"^(.*\S) \(([^()]+)\)$")
_LENGTH_M = {"m": 1.0, "cm": 0.01, "km": 1000.0, "ft": 0.3048, "in": 0.0254, "mi": 1609.344}


class NetBoxImportError(Exception):
    """A file that cannot be imported; ``str()`` is one line: ``file:line: problem``."""


class _Row(dict[str, str]):
    """One CSV row by import-field name, knowing where it came from."""

    where: str = ""

    def fail(self, problem: str) -> NetBoxImportError:
        return NetBoxImportError(f"{self.where}: {problem}")

    def has(self, key: str) -> bool:
        return key in self

    def text(self, key: str, *, required: bool = False, column: str | None = None) -> str:
        """The cell ``key``, stripped; judged by the rule of the design ``column`` it
        fills (``"devices.name"``, :data:`~workbench.text_rules.STORED_TEXT`), or as a
        plain name."""
        value = self.get(key, "").strip()
        if not value:
            if required:
                raise self.fail(f"field {key!r} is empty")
            return ""
        if column is not None:
            problem = STORED_TEXT[column].problem(value)
        else:
            problem = text_problem(value, limit=MAX_NAME_CHARS)
        if problem is not None:
            raise self.fail(f"field {key!r} {problem}")
        return value

    def note(self, key: str, column: str) -> str:
        """Free text (comments) as the design's ``column`` keeps it: tidied like a note
        typed in the window, refused with the row when its rule refuses it."""
        rule = STORED_TEXT[column]
        value = tidy(self.get(key, ""), rule)
        problem = rule.problem(value)
        if problem is not None:
            raise self.fail(f"field {key!r} {problem}")
        return str(value)

    def number(self, key: str, *, whole: bool = False) -> float | int | None:
        value = self.get(key, "").strip()
        if not value:
            return None
        try:
            figure = float(value) if len(value) <= 32 else math.nan
        except ValueError:
            raise self.fail(f"field {key!r}: {value[:40]!r} is not a number") from None
        if not math.isfinite(figure) or abs(figure) > 1e15:
            raise self.fail(f"field {key!r}: {value[:40]!r} is not a usable number")
        if whole:
            if not figure.is_integer():
                raise self.fail(f"field {key!r}: {value!r} is not a whole number")
            return int(figure)
        return figure


def _open_bounded(path: Path, limit: int) -> str:
    """A regular file's text, within ``limit`` bytes (:mod:`workbench.bounded_read`)."""
    try:
        data = read_bounded(path, limit)
    except ReadRefused as exc:
        raise NetBoxImportError(f"{path}: {exc}") from None
    except OSError as exc:
        raise NetBoxImportError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise NetBoxImportError(f"{path}:{line}: not UTF-8 text") from None


def _field_of(header: str, spec: nb.NetBoxFile) -> str | None:
    key = header.strip()
    low = key.lower()
    if key in spec.columns or key.startswith("cf_"):
        return key
    if low in _LABELS:
        return _LABELS[low]
    special = nb.FILE_HEADERS.get(spec.name, {})
    return special.get(low) or nb.EXPORT_HEADERS.get(low)


def paths_of(folder: Path, name: str) -> list[Path]:
    """The files that hold list ``name`` in ``folder``: the file and its parts
    (``cables.csv``, ``cables.2.csv`` ... as the export splits a big list), else the
    file NetBox's own "Export" wrote for the list (``netbox_devices.csv``,
    ``netbox_device types.yaml``); empty when there is none."""
    first = folder / name
    if not first.exists():
        other = nb.EXPORT_FILE_NAMES.get(name, "").lower()
        found = sorted(p for p in folder.iterdir() if p.name.lower() == other) if other else []
        return found[:1]
    stem, ext = os.path.splitext(name)
    parts = []
    for path in folder.glob(f"{stem}.*{ext}"):
        middle = path.name[len(stem) + 1 : len(path.name) - len(ext)]
        if middle.isdigit() and int(middle) >= 2:
            parts.append((int(middle), path))
    return [first, *(path for _n, path in sorted(parts))]


def read_rows(folder: Path, name: str, need: tuple[str, ...] = ()) -> Iterator[_Row]:
    """The rows of list ``name`` in ``folder``, over all its parts (nothing when an
    optional list is absent)."""
    spec = nb.BY_NAME[name]
    paths = paths_of(folder, name)
    if not paths:
        if spec.required:
            raise NetBoxImportError(f"{folder / name}: missing; a NetBox import folder needs "
                                    f"{', '.join(f.name for f in nb.FILES if f.required)}")  # fmt: skip
        return
    for path in paths:
        yield from _rows_of(path, spec, need)


def _rows_of(path: Path, spec: nb.NetBoxFile, need: tuple[str, ...]) -> Iterator[_Row]:
    try:
        handle = open_text(path, MAX_FILE_BYTES)  # streamed: memory holds one row
    except ReadRefused as exc:
        raise NetBoxImportError(f"{path}: {exc}") from None
    except OSError as exc:
        raise NetBoxImportError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    with handle:
        yield from _csv_rows(path, spec, handle, need)


def _csv_rows(
    path: Path, spec: nb.NetBoxFile, handle: Any, need: tuple[str, ...]
) -> Iterator[_Row]:
    reader = csv.reader(handle)
    try:
        header = next(reader, None)
        if header is None:
            raise NetBoxImportError(f"{path}:1: empty file, expected a header row")
        fields = [_field_of(h, spec) for h in header]
        # NetBox's list export writes its table headings ("Name", "Device A") and, for
        # template-rendered columns, HTML-escaped text ("R&amp;D"); our files and its
        # import forms use field names and plain text.
        table = any(h.strip() and _field_of(h, spec) != h.strip() for h in header)
        for column in need:
            if column not in fields:
                raise NetBoxImportError(f"{path}:1: no column {column!r}")
        count = 0
        for cells in reader:
            count += 1
            if count > MAX_ROWS:
                raise NetBoxImportError(f"{path}:{reader.line_num}: more than {MAX_ROWS} rows")
            if not any(c.strip() for c in cells):
                continue
            row = _Row()
            row.where = f"{path}:{reader.line_num}"
            for field, cell in zip(fields, cells, strict=False):
                if len(cell) > MAX_CELL_CHARS:
                    raise row.fail(f"a cell of more than {MAX_CELL_CHARS} characters")
                if field is not None:
                    row[field] = html.unescape(cell) if table and "&" in cell else cell
            yield row
    except csv.Error as exc:
        raise NetBoxImportError(f"{path}:{reader.line_num}: not CSV ({exc})") from None
    except ReadRefused as exc:  # grew past the cap while being read
        raise NetBoxImportError(f"{path}: {exc}") from None
    except UnicodeDecodeError:  # decoded a block ahead: find the line itself
        line = bad_utf8_line(path, MAX_FILE_BYTES) or reader.line_num + 1
        raise NetBoxImportError(f"{path}:{line}: not UTF-8 text") from None


def _yaml_docs(path: Path) -> list[tuple[Any, int]]:
    """The documents of a (multi-document) YAML file with their first line, parsed by
    the catalog's bounded reader one document at a time."""
    from workbench.catalog.yaml_source import parse_yaml_text

    text = _open_bounded(path, MAX_YAML_BYTES)
    docs: list[tuple[str, int]] = []
    start, chunk = 1, list[str]()
    for k, line in enumerate(text.splitlines(keepends=True), 1):
        if line.rstrip() == "---":
            docs.append(("".join(chunk), start))
            chunk, start = [], k + 1
        else:
            chunk.append(line)
    docs.append(("".join(chunk), start))
    out: list[tuple[Any, int]] = []
    for body, first in docs:
        if not body.strip():
            continue
        try:
            value, _lines = parse_yaml_text("\n" * (first - 1) + body, str(path))
        except CatalogError as exc:
            raise NetBoxImportError(str(exc)) from None
        out.append((value, first))
    return out


#: Keys of NetBox's device-type YAML export the workbench has no use for.
_NETBOX_ONLY_KEYS = frozenset({"default_platform"})


def _without_blanks(mapping: dict[str, Any]) -> dict[str, Any]:
    """``mapping`` without the empty values NetBox's own export writes for every unset
    field (``DeviceType.to_yaml``: ``description: ''``, ``subdevice_role: null``,
    ``default_platform: null``, and the same in each component), which mean "not set"."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()
                    if v is not None and v != "" and k not in _NETBOX_ONLY_KEYS}  # fmt: skip
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return dict(clean(mapping))


def _parse_item(mapping: Any, where: str) -> CatalogItem:
    from workbench.catalog import parse_item

    if not isinstance(mapping, dict):
        raise NetBoxImportError(f"{where}: a device type must be a mapping")
    mapping = _without_blanks(mapping)
    if "kind" not in mapping:
        from workbench.catalog.netbox import infer_kind

        mapping = {**mapping, "kind": infer_kind(mapping)}
    try:
        return parse_item(mapping, source_file=where)
    except CatalogError as exc:
        raise NetBoxImportError(f"{where}: {exc}") from None


def _stacks(doc: dict[str, Any], where: str) -> list[SoftwareStack]:
    """The baselines the sidecar names (devices refer to them by id)."""
    out = []
    for k, entry in enumerate(doc.get("software_stacks") or ()):
        here = f"{where} (software stack {k + 1})"
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            raise NetBoxImportError(f"{here}: needs an id")
        components = entry.get("components") or {}
        if not isinstance(components, dict) or not all(
            isinstance(a, str) and isinstance(b, str) for a, b in components.items()
        ):
            raise NetBoxImportError(f"{here}: components must map names to version text")
        revision = entry.get("revision", 1)
        if not isinstance(revision, int) or isinstance(revision, bool):
            raise NetBoxImportError(f"{here}: revision must be a whole number")
        name = str(entry["name"]) if isinstance(entry.get("name"), str) else str(entry["id"])
        out.append(SoftwareStack(entry["id"], name, dict(components), revision))
    return out


def _catalog(
    folder: Path, stacks: list[SoftwareStack]
) -> tuple[dict[str, CatalogItem], dict[tuple[str, str], str], str]:
    """Catalog items by slug, (manufacturer, model) → slug, and the design's name;
    the sidecar's software stacks are added to ``stacks``."""
    items: dict[str, CatalogItem] = {}
    name = folder.name
    sidecar = folder / nb.SIDECAR
    if sidecar.exists():
        for doc, line in _yaml_docs(sidecar):
            if not isinstance(doc, dict) or doc.get("format") != "workbench-netbox":
                raise NetBoxImportError(f"{sidecar}:{line}: not a workbench-netbox file")
            if isinstance(doc.get("design"), str) and doc["design"].strip():
                name = doc["design"].strip()[:MAX_NAME_CHARS]
            stacks.extend(_stacks(doc, f"{sidecar}:{line}"))
            for k, raw in enumerate(doc.get("catalog") or ()):
                item = _parse_item(raw, f"{sidecar} (catalog entry {k + 1})")
                items[item.slug] = item
    paths = paths_of(folder, "device-types.yaml")
    if not paths:
        raise NetBoxImportError(
            f"{folder / 'device-types.yaml'}: missing; a NetBox import folder needs its "
            "device types"
        )
    for types in paths:
        for doc, line in _yaml_docs(types):
            slug = doc.get("slug") if isinstance(doc, dict) else None
            if not isinstance(slug, str) or slug not in items:
                item = _parse_item(doc, f"{types}:{line}")
                items.setdefault(item.slug, item)
    models = {(i.manufacturer.lower(), i.model.lower()): s for s, i in items.items()}
    models.update({("", i.model.lower()): s for s, i in items.items()})
    for row in read_rows(folder, "rack-types.csv"):
        model, slug, maker = row.text("model"), row.text("slug"), row.text("manufacturer")
        if model and not slug and (maker.lower(), model.lower()) not in models:
            # NetBox's list export has no slug column: the rack type is made from the row
            item = rack_stand_in(items, maker, model, _units(row), row.where)
            slug = item.slug
        if model and slug:
            models.setdefault((maker.lower(), model.lower()), slug)
            models.setdefault(("", model.lower()), slug)
    return items, models, name


def _units(row: _Row) -> float:
    """A rack's height in units: ``42`` (import forms) or ``42U`` (NetBox's list)."""
    text = row.get("u_height", "").strip().lower().removesuffix("u").strip()
    if not text:
        return 42.0
    probe = _Row({"u_height": text})
    probe.where = row.where
    height = probe.number("u_height")
    if height is None or not 1 <= height <= 100:
        raise row.fail(f"field 'u_height': {row['u_height']!r} is not a rack height of 1-100 U")
    return float(height)


def rack_stand_in(
    items: dict[str, CatalogItem], maker: str, model: str, height: float, where: str
) -> CatalogItem:
    """A rack type the design needs but the files do not describe (NetBox's list
    export has no slug; a rack without a rack type is allowed in NetBox): made from
    what the row says, so every rack has one and the project opens."""
    from workbench.netbox.export import slugify

    maker = maker or "Generic"
    model = model or f"{height:g}U rack (no rack type in NetBox)"
    base = slugify(f"{maker} {model}")[:90]
    slug, k = base, 1
    while slug in items and (items[slug].model, items[slug].manufacturer) != (model, maker):
        k += 1
        slug = f"{base}-{k}"
    if slug not in items:
        mapping = {"slug": slug, "kind": "rack", "manufacturer": maker, "model": model,
                   "u_height": height, "is_full_depth": True}  # fmt: skip
        items[slug] = _parse_item(mapping, where)
    return items[slug]


def read_netbox(folder: str | os.PathLike[str]) -> Design:
    """The design the files in ``folder`` describe; NetBoxImportError on any problem."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise NetBoxImportError(f"{root}: not a folder")
    stacks: list[SoftwareStack] = []
    items, models, name = _catalog(root, stacks)
    design = Design(name=name, device_types=items, software_stacks=stacks)
    builder = _Builder(design, models)
    builder.sites(root)
    builder.racks(root)
    builder.devices(root)
    # A baseline named by a device but not described (files NetBox wrote): kept by name.
    known = {st.id for st in stacks}
    for _rack, device in design.iter_devices():
        if device.software_stack and device.software_stack not in known:
            known.add(device.software_stack)
            stacks.append(SoftwareStack(device.software_stack, device.software_stack))
    builder.networks(root)
    builder.cables(root)
    design.reindex()
    _refuse_clashes(design, root / "devices.csv")
    sidecar = root / nb.SIDECAR
    design = _with_extras(design, sidecar)
    try:  # a design the workbench could not open again is refused, naming its row
        return extras.checked(design, str(sidecar if sidecar.exists() else root), builder.origin)
    except extras.ExtrasError as exc:
        raise NetBoxImportError(str(exc)) from None


def _refuse_clashes(design: Design, devices_csv: Path) -> None:
    """Asset tags and serials identify one box (:mod:`workbench.model.unique`): an
    import holding one twice is refused, as the edits would refuse it."""
    for clash in clashes(design):
        names = ", ".join(repr(d.name) for _r, d in clash.holders[:3])
        raise NetBoxImportError(
            f"{devices_csv}: devices {names} share the {clash.what} {clash.value!r}; "
            "it must identify one device"
        )


def _with_extras(design: Design, sidecar: Path) -> Design:
    """The design with the sidecar's tiers, jobs, waivers, version matrix, acceptance
    results and captures (:mod:`workbench.netbox.extras`), judged by the store."""
    if not sidecar.exists():
        return design
    for doc, line in _yaml_docs(sidecar):
        if not isinstance(doc, dict) or not any(
            doc.get(key) for key in ("storage_tiers", "workloads", "waivers", "versions",
                                     "acceptance", "captures", "properties")
        ):  # fmt: skip
            continue
        try:
            extras.apply_extras(design, doc, f"{sidecar}:{line}")
            return design  # judged with the rest by read_netbox
        except extras.ExtrasError as exc:
            raise NetBoxImportError(str(exc)) from None
    return design


class _Builder:
    def __init__(self, design: Design, models: dict[tuple[str, str], str]):
        self.d, self.models = design, models
        self.sites_by: dict[str, Site] = {}
        self.rows_by: dict[tuple[str, str], Row] = {}
        self.racks_by: dict[tuple[str, str], Rack] = {}
        self.devices_by: dict[tuple[str, str], Device] = {}
        self.device_by_name: dict[str, Device | None] = {}
        self.ids: set[str] = set()
        #: id → "file:line" of the row it was made from (to name a refused row).
        self.origin: dict[str, str] = {}

    def new_id(self, row: _Row, given: str, fallback: str) -> str:
        ident = given or fallback
        if ident in self.ids:
            raise row.fail(f"id {ident!r} is used twice")
        self.ids.add(ident)
        self.origin[ident] = row.where
        return ident

    def sites(self, root: Path) -> None:
        for row in read_rows(root, "sites.csv", ("name",)):
            name = row.text("name", required=True, column="sites.name")
            if name in self.sites_by:
                raise row.fail(f"site {name!r} is listed twice")
            site = Site(
                self.new_id(
                    row, row.text("cf_wb_id"), row.text("slug") or f"site{len(self.sites_by) + 1}"
                ),
                name,
            )
            self.sites_by[name] = site
            self.d.sites.append(site)
        for row in read_rows(root, "locations.csv", ("site", "name")):
            site = self.site(row)
            name = row.text("name", required=True, column="rows.name")
            if (site.name, name) in self.rows_by:
                raise row.fail(f"location {name!r} is listed twice in site {site.name!r}")
            new = Row(
                self.new_id(
                    row, row.text("cf_wb_id"), row.text("slug") or f"row{len(self.rows_by) + 1:03d}"
                ),
                name,
            )
            self.rows_by[(site.name, name)] = new
            site.rows.append(new)

    def site(self, row: _Row, key: str = "site") -> Site:
        name = row.text(key, required=True)
        if name not in self.sites_by:
            raise row.fail(f"site {name!r} is not in sites.csv")
        return self.sites_by[name]

    def slug_of(self, row: _Row, maker: str, model: str, what: str) -> str:
        for key in ((maker.lower(), model.lower()), ("", model.lower())):
            if key in self.models:
                return self.models[key]
        raise row.fail(f"{what} {model!r} is not in device-types.yaml or rack-types.csv")

    def racks(self, root: Path) -> None:
        for row in read_rows(root, "racks.csv", ("site", "name")):
            site = self.site(row)
            location = row.text("location", required=True)
            if (site.name, location) not in self.rows_by:
                raise row.fail(
                    f"location {location!r} of site {site.name!r} is not in locations.csv"
                )
            name = row.text("name", required=True, column="racks.name")
            if (site.name, name) in self.racks_by:
                raise row.fail(f"rack {name!r} is listed twice in site {site.name!r}")
            model = row.text("rack_type")
            found = self.models.get(("", model.lower())) if model else None
            if found is None:  # no rack type (optional in NetBox), or one not listed
                stand_in = rack_stand_in(self.d.device_types, row.text("manufacturer"), model,
                                         _units(row), row.where)  # fmt: skip
                found = (
                    self.models.setdefault(("", model.lower()), stand_in.slug)
                    if model
                    else stand_in.slug
                )
            slug = found
            role = row.text("role").lower()
            rack = Rack(self.new_id(row, row.text("cf_wb_id"), f"r{len(self.racks_by) + 1:05d}"), name,
                        slug, cooling=_COOLING_BY_TEXT.get(role, "air"))  # fmt: skip
            limit = row.number("cf_wb_power_limit_kw")
            if limit is not None:
                rack.power_limit_kw = float(limit)
            rack.cooling_limit_kw = _float(row.number("cf_wb_cooling_limit_kw"))
            exact = row.number("cf_wb_max_weight_kg")
            if not row.has("cf_wb_max_weight_kg"):
                if row.get("max_weight", "").strip().endswith(" kg"):
                    row["max_weight"] = row["max_weight"].strip()[
                        :-3
                    ]  # NetBox's list: "1360.00 kg"
                exact = row.number("max_weight")
            rack.max_weight_kg = _float(exact)
            for side in ("a", "b"):
                setattr(
                    rack, f"feed_{side}_voltage", _float(row.number(f"cf_wb_feed_{side}_voltage"))
                )
                setattr(
                    rack, f"feed_{side}_phases", row.number(f"cf_wb_feed_{side}_phases", whole=True)
                )
                setattr(
                    rack,
                    f"feed_{side}_breaker_a",
                    _float(row.number(f"cf_wb_feed_{side}_breaker_a")),
                )
            rack.floor_x_mm = _float(row.number("cf_wb_floor_x_mm"))
            rack.floor_y_mm = _float(row.number("cf_wb_floor_y_mm"))
            facing = row.text("cf_wb_facing").lower()
            if facing:
                rack.facing = facing
            self.racks_by[(site.name, name)] = rack
            self.rows_by[(site.name, location)].racks.append(rack)

    def devices(self, root: Path) -> None:
        need = ("name", "device_type", "site", "rack")
        for row in read_rows(root, "devices.csv", need):
            site = self.site(row)
            rack_name = row.text("rack", required=True, column="racks.name")
            rack = self.racks_by.get((site.name, rack_name))
            if rack is None:
                raise row.fail(f"rack {rack_name!r} of site {site.name!r} is not in racks.csv")
            name = row.text("name", required=True, column="devices.name")
            if (site.name, name) in self.devices_by:
                raise row.fail(f"device {name!r} is listed twice in site {site.name!r}")
            slug = self.slug_of(
                row, row.text("manufacturer"), row.text("device_type", required=True), "device type"
            )
            position = row.number("position")
            if position is not None and (
                not float(position).is_integer() or not 1 <= position <= 100
            ):
                raise row.fail(
                    f"field 'position': {row['position']!r} is not a whole rack unit 1-100"
                )
            face = (row.text("face") or row.text("cf_wb_face") or "front").lower()
            if face not in FACES:
                raise row.fail(f"field 'face': {face!r} is neither front nor rear")
            device = Device(self.new_id(row, row.text("cf_wb_id"), f"d{len(self.devices_by) + 1:06d}"),
                            name, slug, int(position) if position is not None else None, face,
                            row.text("serial", column="devices.serial"),
                            row.text("asset_tag", column="devices.asset_tag"),
                            row.text("cf_wb_software_stack") or None,
                            row.note("comments", "devices.notes"))  # fmt: skip
            if row.has("cf_wb_role"):
                device.role = row.text("cf_wb_role")
            else:
                role = _ROLE_BY_TEXT.get(row.text("role").lower(), "")
                device.role = "" if role == item_role(self.d.device_types.get(slug), "") else role
            rack.devices.append(device)
            self.devices_by[(site.name, name)] = device
            self.device_by_name[name] = None if name in self.device_by_name else device

    def networks(self, root: Path) -> None:
        vlan_names = {}
        for row in read_rows(root, "vlans.csv", ("vid",)):
            vlan_names[row.text("vid")] = row.text("name")
        seen: set[str] = set()
        for row in read_rows(root, "prefixes.csv", ("prefix",)):
            prefix = row.text("prefix", required=True)
            vid = row.text("vlan")
            name = row.text("description") or vlan_names.get(vid, "") or prefix
            ident = self.new_id(row, row.text("cf_wb_id"), f"net-{len(seen) + 1}")
            seen.add(ident)
            net = Network(ident, name)
            net.plane = row.text("cf_wb_plane") or net.plane
            net.technology = row.text("cf_wb_technology") or ("ethernet" if vid else net.technology)
            speed = row.number("cf_wb_speed_gbps")
            net.speed_gbps = float(speed) if speed is not None else net.speed_gbps
            mtu = row.number("cf_wb_mtu", whole=True)
            net.mtu = int(mtu) if mtu is not None else net.mtu
            net.subnet = row.text("cf_wb_subnet") if row.has("cf_wb_subnet") else prefix
            if row.has("cf_wb_vlan"):
                net.vlan = row.number("cf_wb_vlan", whole=True)  # type: ignore[assignment]
            else:
                net.vlan = int(vid) if vid.isdigit() else None
            self.d.networks.append(net)

    def end(self, row: _Row, side: str) -> tuple[str, str]:
        kind = row.text(f"side_{side}_type") or "dcim.interface"
        if kind.lower() not in ("dcim.interface", "interface"):
            raise row.fail(f"side {side.upper()} is a {kind}, not an interface")
        name = row.text(f"side_{side}_device", required=True)
        site = row.text(f"side_{side}_site")
        device = self.device_at(site, name)
        tagged = _NAME_AND_TAG.match(name)
        if device is None and tagged is not None:
            # NetBox's cable list writes a device as str(device): "name (asset tag)"
            device = self.device_at(site, tagged.group(1))
            if device is not None and device.asset_tag not in ("", tagged.group(2)):
                device = None
        if device is None:
            raise row.fail(
                f"side {side.upper()} device {name!r} is not in devices.csv"
                + (" (or is ambiguous without its site)" if name in self.device_by_name else "")
            )
        return device.id, row.text(f"side_{side}_name", required=True)

    def device_at(self, site: str, name: str) -> Device | None:
        return self.devices_by.get((site, name)) if site else self.device_by_name.get(name)

    def cables(self, root: Path) -> None:
        networks = {n.id for n in self.d.networks}
        need = ("side_a_device", "side_a_name", "side_b_device", "side_b_name")
        for row in read_rows(root, "cables.csv", need):
            (a, a_port), (b, b_port) = self.end(row, "a"), self.end(row, "b")
            link = Link(self.new_id(row, row.text("cf_wb_id"), f"l{len(self.d.links) + 1:06d}"),
                        a, a_port, b, b_port)  # fmt: skip
            network = row.text("cf_wb_network")
            if network and network not in networks:
                raise row.fail(f"network {network!r} is not in prefixes.csv")
            link.network = network or None
            if row.has("cf_wb_cable_type"):
                link.cable_type = row.text("cf_wb_cable_type") or None
                link.length_m = _float(row.number("cf_wb_length_m"))
            else:
                kind = row.text("type").lower()  # a value, or the label NetBox's list shows
                link.cable_type = nb.MEDIA_OF_CABLE_TYPE.get(nb.CABLE_TYPE_LABELS.get(kind, kind))
                link.length_m = _length_m(row)
            link.speed_gbps = _float(row.number("cf_wb_speed_gbps"))
            self.d.links.append(link)


def _length_m(row: _Row) -> float | None:
    """A cable's length in metres from ``length`` and ``length_unit``, also as NetBox's
    list shows it (``10 Meters`` in one cell)."""
    text = row.get("length", "").strip()
    parts = text.split()
    unit = row.text("length_unit").lower()
    if len(parts) == 2:
        text, unit = parts[0], unit or parts[1].lower()
    if not text:
        return None
    probe = _Row({"length": text})
    probe.where = row.where
    figure = probe.number("length")
    key = nb.LENGTH_UNITS.get(unit or "m")
    if key is None:
        raise row.fail(f"field 'length_unit': unknown unit {unit!r}")
    return None if figure is None else float(figure) * _LENGTH_M[key]


def _float(value: float | int | None) -> float | None:
    return None if value is None else float(value)
