"""Turn one catalog mapping into a validated :class:`CatalogItem`.

The same function reads a YAML entry from ``catalogs/`` and re-reads the ``raw``
mapping a project file stored as its snapshot, so it must be deterministic: every
derived figure (kind guessed for a NetBox file, power when only PSU draws are given,
PDU capacity) is computed from the mapping alone, never from the surroundings.

Unknown keys are allowed and kept in ``raw``: NetBox device types carry many fields we
do not use (console-ports, module-bays, front-image ...), and a file from the community
library must load unchanged.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from workbench.catalog import limits
from workbench.catalog.classify import Classification, classify, is_passive
from workbench.catalog.errors import CatalogEntryErrors, CatalogError, CatalogWarning
from workbench.catalog.errors import shown_value as _shown
from workbench.catalog.item import KINDS, PRECISIONS, CatalogItem, Interface, PowerPort
from workbench.catalog.netbox import interface_speed_gbps, netbox_power
from workbench.catalog.props import check_props
from workbench.catalog.vocabulary import derive_role
from workbench.catalog.yaml_source import LineMap
from workbench.text_rules import text_problem

#: The device-type library's slug pattern (``schema/devicetype.json``): lower-case
#: letters, digits, hyphens and underscores.  The schema checks it in files; the parser
#: checks it again for a design's snapshot, which has no file.
SLUG_RE = re.compile(r"^[-a-z0-9_]+$")

REQUIRED_FIELDS: tuple[str, ...] = ("manufacturer", "model", "slug")
#: Text fields that reach labels, BOM cells and elevations: they follow the model's
#: rule for names (``workbench.text_rules``), so an item cannot carry a name a design
#: file or an export could not hold.
_PRINTED_NAMES = frozenset({"manufacturer", "model", "part_number"})
#: Printed names a device type may leave empty (``part_number: ''``).
_OPTIONAL_NAMES = frozenset({"part_number"})

#: Units NetBox allows for ``weight_unit``.
WEIGHT_UNITS: tuple[str, ...] = ("kg", "g", "lb", "oz")

#: Kinds that draw power themselves, so a missing figure deserves a warning.
POWERED_KINDS: frozenset[str] = frozenset({"server", "switch", "storage", "nic", "gpu", "optic"})

_FLOAT_FIELDS: tuple[str, ...] = (
    "hbm_gb",
    "hbm_bw_tbs",
    "nvlink_gbs",
    "typical_power_w",
    "max_power_w",
    "unit_price",
)


class _Context:
    """Where the entry came from, so every check can name file, line and field.

    Checks raise a CatalogError; :meth:`check` records it in ``errors`` and lets the
    parser go on to the next field, so one run reports every bad field of an entry.
    """

    def __init__(self, source_file: str, lines: LineMap):
        self.file = source_file
        self.lines = lines
        self.warnings: list[CatalogWarning] = []
        self.errors: list[CatalogError] = []

    def error(self, path: tuple[Any, ...], message: str) -> CatalogError:
        return CatalogError(message, self.file, self.lines.line(*path), _field_name(path))

    def warn(self, path: tuple[Any, ...], message: str) -> None:
        self.warnings.append(
            CatalogWarning(self.file, self.lines.line(*path), _field_name(path) or None, message)
        )

    @contextmanager
    def check(self) -> Iterator[None]:
        """Run one field's checks; a CatalogError is recorded instead of stopping the entry."""
        try:
            yield
        except CatalogEntryErrors as exc:
            self.errors.extend(exc.errors)
        except CatalogError as exc:
            # The traceback's frames refer back to this context: a cycle that would keep
            # the entry's values alive as long as the error is listed.
            self.errors.append(exc.with_traceback(None))

    def failed(self, *paths: tuple[Any, ...]) -> bool:
        """True when a recorded error concerns one of ``paths`` or a field below it, so a
        check derived from those fields is skipped rather than reported twice."""
        names = [_field_name(path) for path in paths]
        return any(
            error.field is not None
            and any(
                error.field == name or error.field.startswith((f"{name}.", f"{name}["))
                for name in names
            )
            for error in self.errors
        )

    def number(self, value: Any, path: tuple[Any, ...], *, minimum: float = 0.0) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(path, f"expected a number, got {_shown(value)}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise self.error(path, f"expected a finite number, got {_shown(value)}")
        if abs(number) > limits.MAX_NUMBER_MAGNITUDE:  # a snapshot may hold anything
            raise self.error(
                path, f"{_shown(value)} is too large; at most {limits.MAX_NUMBER_MAGNITUDE:g}"
            )
        if number < minimum:
            raise self.error(path, f"must be at least {minimum:g}, got {_shown(value)}")
        return number

    def text(self, value: Any, path: tuple[Any, ...]) -> str:
        if not isinstance(value, str):
            raise self.error(path, f"expected text, got {_shown(value)}")
        return value

    def mapping(self, value: Any, path: tuple[Any, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(path, f"expected a mapping of names to values, got {_shown(value)}")
        for key in value:
            if not isinstance(key, str):
                raise self.error(path, f"names must be text, got {_shown(key)}")
        return value

    def entries(self, value: Any, path: tuple[Any, ...]) -> list[tuple[int, dict[str, Any]]]:
        """(index, entry) of each usable entry of a list; a bad entry is recorded."""
        if not isinstance(value, list):
            raise self.error(path, f"expected a list, got {_shown(value)}")
        usable = []
        for index, entry in enumerate(value):
            with self.check():
                usable.append((index, self.mapping(entry, path + (index,))))
        return usable


def parse_item(
    mapping: dict[str, Any], source_file: str = "", lines: LineMap | None = None
) -> CatalogItem:
    """Validate one catalog entry; raise CatalogError naming file, line and field.

    Every field is checked before anything is raised.  What is raised is a
    :class:`~workbench.catalog.errors.CatalogEntryErrors` (a CatalogError): it prints
    as the entry's first problem (in file order) and its ``errors`` lists all of them.
    """
    return parse_item_with_warnings(mapping, source_file, lines)[0]


def parse_item_with_warnings(
    mapping: dict[str, Any], source_file: str = "", lines: LineMap | None = None
) -> tuple[CatalogItem, list[CatalogWarning]]:
    """Like :func:`parse_item`, also returning what the user should hear about."""
    ctx = _Context(source_file, lines or LineMap())
    if not isinstance(mapping, dict):
        raise CatalogEntryErrors(
            [ctx.error((), f"a catalog entry must be a mapping, got {_shown(mapping)}")]
        )
    values = _fields(ctx, mapping)
    if ctx.errors:
        # In file order; errors without a line (a snapshot's) keep the order checked.
        ordered = sorted(ctx.errors, key=lambda e: (e.line is None, e.line or 0))
        raise CatalogEntryErrors(ordered)
    item = CatalogItem(**values, raw=_json_copy(mapping), source_file=source_file)
    return item, ctx.warnings


def _fields(ctx: _Context, mapping: dict[str, Any]) -> dict[str, Any]:
    """Check every field of ``mapping``, recording each problem in ``ctx.errors``.

    The values returned are only complete when no error was recorded.
    """
    with ctx.check():
        ctx.mapping(mapping, ())
    missing = set()
    for name in REQUIRED_FIELDS:
        if mapping.get(name) in (None, ""):
            ctx.errors.append(ctx.error((name,), "required field is missing"))
            missing.add(name)
    slug = ""
    if "slug" not in missing:
        with ctx.check():
            slug = ctx.text(mapping["slug"], ("slug",))
            _check_slug_length(ctx, slug, ("slug",))
            if not SLUG_RE.match(slug):
                raise ctx.error(
                    ("slug",),
                    f"{_shown(slug)} is not a valid slug: use lower-case letters, digits, "
                    "hyphens and underscores",
                )
    kind = mapping.get("kind")
    found: Classification | None = None
    if kind is None:
        found = classify(mapping)
        kind = str(found.kind.value)
        if is_passive(found.kind) and kind not in ("infrastructure",):
            ctx.warn(
                (),
                f"{found.kind.evidence[0]}: kept as a passive rack item (kind {kind}, role "
                "other): it takes rack units and no IT power is expected of it",
            )
    elif kind not in KINDS:
        ctx.errors.append(
            ctx.error(("kind",), f"unknown kind {_shown(kind)}; expected one of {', '.join(KINDS)}")
        )
        kind = ""  # no kind-specific derivations for an entry that is rejected anyway

    values: dict[str, Any] = {"slug": slug, "kind": kind}
    for name in ("manufacturer", "model", "part_number", "airflow", "comments", "currency", "role"):
        if mapping.get(name) is not None:
            with ctx.check():
                values[name] = ctx.text(mapping[name], (name,))
                if name in _PRINTED_NAMES:  # printed on labels, BOMs and elevations
                    # part_number is optional: NetBox's exports and the library write ''
                    problem = text_problem(values[name], blank_ok=name in _OPTIONAL_NAMES)
                    if problem is not None:
                        raise ctx.error((name,), problem)
    with ctx.check():
        values["u_height"] = _u_height(ctx, mapping.get("u_height", 0))
    if "is_full_depth" in mapping:
        with ctx.check():
            if not isinstance(mapping["is_full_depth"], bool):
                raise ctx.error(
                    ("is_full_depth",),
                    f"expected true or false, got {_shown(mapping['is_full_depth'])}",
                )
            values["is_full_depth"] = mapping["is_full_depth"]
    if mapping.get("weight") is not None:
        with ctx.check():
            values["weight"] = ctx.number(mapping["weight"], ("weight",))
    if mapping.get("weight_unit") is not None:
        with ctx.check():
            unit = ctx.text(mapping["weight_unit"], ("weight_unit",))
            if unit not in WEIGHT_UNITS:
                raise ctx.error(
                    ("weight_unit",),
                    f"unknown unit {_shown(unit)}; expected one of {', '.join(WEIGHT_UNITS)}",
                )
            values["weight_unit"] = unit
    for name in _FLOAT_FIELDS:
        if mapping.get(name) is not None:
            with ctx.check():
                values[name] = ctx.number(mapping[name], (name,))

    interfaces: list[tuple[int, dict[str, Any]]] = []
    with ctx.check():
        interfaces = ctx.entries(mapping.get("interfaces") or [], ("interfaces",))
    values["interfaces"] = tuple(_interface(ctx, entry, index) for index, entry in interfaces)
    ports: list[tuple[int, dict[str, Any]]] = []
    with ctx.check():
        ports = ctx.entries(mapping.get("power-ports") or [], ("power-ports",))
    values["power_ports"] = tuple(_power_port(ctx, entry, index) for index, entry in ports)
    _gpu_fields(ctx, mapping, values)
    with ctx.check():
        values["tflops"] = _tflops(ctx, mapping.get("tflops"))
    with ctx.check():
        props = dict(ctx.mapping(mapping.get("props") or {}, ("props",)))
        values["props"] = check_props(ctx, kind, props)
    with ctx.check():
        sources = ctx.mapping(mapping.get("sources") or {}, ("sources",))
        values["sources"] = {}
        for key, text in sources.items():
            with ctx.check():
                values["sources"][key] = ctx.text(text, ("sources", key))
    if found is not None:
        _classified(found, mapping, values)
    if "role" not in values and mapping.get("role") is None:
        speeds = [
            interface_speed_gbps(str(e.get("type", "")))
            for _, e in interfaces
            if isinstance(e, dict) and not e.get("mgmt_only")
        ]
        name = f"{values.get('model', '')} {slug}"
        values["role"] = derive_role(kind, values["gpu_count"], speeds, name)
    if not ctx.failed(("max_power_w",), ("typical_power_w",), ("power-ports",)):
        with ctx.check():
            _resolve_power(ctx, kind, values, mapping)
    return values


def _classified(found: Classification, mapping: dict[str, Any], values: dict[str, Any]) -> None:
    """Role and GPUs of an entry without ``kind``, from the classifier's evidence.

    Only certain decisions are taken (an import asks about the others first); the role
    is taken whatever its confidence, since every item needs one to be drawn.
    """
    if mapping.get("role") is None:
        values["role"] = str(found.role.value)
    gpu, count = found.gpu, found.gpu_count
    stated = "gpu" in mapping or "gpu_count" in mapping
    if not stated and gpu.value and gpu.certain and count.certain and count.value:
        values["gpu"], values["gpu_count"] = str(gpu.value), int(count.value)
        values.setdefault("sources", {})
        values["sources"].setdefault("gpu", "classified from the file: " + "; ".join(gpu.evidence))


def _u_height(ctx: _Context, value: Any) -> float:
    height = ctx.number(value, ("u_height",))
    if height > limits.MAX_U_HEIGHT:  # the rack views draw, and placing loops, per unit
        raise ctx.error(
            ("u_height",), f"{height:g} rack units is more than the {limits.MAX_U_HEIGHT:g} allowed"
        )
    if not (height * 2).is_integer():
        raise ctx.error(("u_height",), f"must be a whole or half rack unit, got {_shown(value)}")
    return height


def _check_slug_length(ctx: _Context, slug: str, path: tuple[Any, ...]) -> None:
    """NetBox's limit; an imported file is named after its slug, and file names are short."""
    if len(slug) > limits.MAX_SLUG_CHARS:
        raise ctx.error(
            path, f"slug of {len(slug):,} characters; at most {limits.MAX_SLUG_CHARS} are allowed"
        )


def _interface(ctx: _Context, entry: dict[str, Any], index: int) -> Interface | None:
    """One interface, or None (with its problems recorded) when a field is bad."""
    path = ("interfaces", index)
    before = len(ctx.errors)
    if entry.get("name") in (None, ""):
        ctx.errors.append(ctx.error(path + ("name",), "required field is missing"))
    port_type = ""
    with ctx.check():
        if entry.get("type") in (None, ""):
            raise ctx.error(path + ("type",), "required field is missing (a NetBox interface type)")
        port_type = ctx.text(entry["type"], path + ("type",))
    mgmt_only = entry.get("mgmt_only", False)
    if not isinstance(mgmt_only, bool):
        ctx.errors.append(
            ctx.error(path + ("mgmt_only",), f"expected true or false, got {_shown(mgmt_only)}")
        )
    if len(ctx.errors) > before:
        return None
    return Interface(name=str(entry["name"]), type=port_type, mgmt_only=mgmt_only)


def _power_port(ctx: _Context, entry: dict[str, Any], index: int) -> PowerPort | None:
    """One power port, or None (with its problems recorded) when a field is bad."""
    path = ("power-ports", index)
    before = len(ctx.errors)
    if entry.get("name") in (None, ""):
        ctx.errors.append(ctx.error(path + ("name",), "required field is missing"))
    draws = {}
    for name in ("maximum_draw", "allocated_draw"):
        if entry.get(name) is not None:
            with ctx.check():
                draws[name] = ctx.number(entry[name], path + (name,))
    port_type = ""
    with ctx.check():
        port_type = ctx.text(entry.get("type", ""), path + ("type",))
    if len(ctx.errors) > before:
        return None
    return PowerPort(name=str(entry["name"]), type=port_type, **draws)


def _gpu_fields(ctx: _Context, mapping: dict[str, Any], values: dict[str, Any]) -> None:
    count = mapping.get("gpu_count", 0)
    count_ok = not (isinstance(count, bool) or not isinstance(count, int) or count < 0)
    if not count_ok:
        ctx.errors.append(
            ctx.error(("gpu_count",), f"expected a whole number of GPUs, got {_shown(count)}")
        )
        count = 0
    elif count > limits.MAX_GPUS_PER_ITEM:  # links and figures are made per GPU
        ctx.errors.append(
            ctx.error(
                ("gpu_count",),
                f"{_shown(count)} GPUs is more than the {limits.MAX_GPUS_PER_ITEM:,} allowed",
            )
        )
        count, count_ok = 0, False
    values["gpu_count"] = count
    gpu = mapping.get("gpu")
    if gpu is not None:
        with ctx.check():
            gpu = ctx.text(gpu, ("gpu",))
            _check_slug_length(ctx, gpu, ("gpu",))
            if not SLUG_RE.match(gpu):
                raise ctx.error(
                    ("gpu",), f"{_shown(gpu)} is not a valid slug of a GPU catalog item"
                )
            values["gpu"] = gpu
        if count_ok and count == 0:
            ctx.errors.append(
                ctx.error(("gpu_count",), "a server with a gpu needs gpu_count of 1 or more")
            )
    elif count:
        ctx.errors.append(
            ctx.error(("gpu",), f"gpu_count is {count} but no gpu slug says which GPU")
        )


def _tflops(ctx: _Context, value: Any) -> dict[str, float]:
    if value is None:
        return {}
    table = ctx.mapping(value, ("tflops",))
    figures = {}
    for precision, number in table.items():
        with ctx.check():
            if precision not in PRECISIONS:
                raise ctx.error(
                    ("tflops", precision),
                    f"unknown precision {_shown(precision)}; expected one of "
                    f"{', '.join(PRECISIONS)}",
                )
            figures[precision] = ctx.number(number, ("tflops", precision))
    return figures


def _resolve_power(
    ctx: _Context, kind: str, values: dict[str, Any], mapping: dict[str, Any]
) -> None:
    """Fill ``max_power_w`` for powered kinds, and record where it came from.

    Our own ``max_power_w`` wins.  Otherwise NetBox's figures, as NetBox means them
    (:func:`workbench.catalog.netbox.netbox_power`): the sum of ``allocated_draw`` is the
    draw (one identical figure on redundant supplies counted once); ``maximum_draw`` is a supply rating, used only with ``props.psu_redundancy``.
    Without either the power is *unknown* (None) with a warning, never 0 W: a budget
    that silently drops a 10 kW server is worse than one that says it cannot tell.
    """
    if values.get("max_power_w") is None and kind in POWERED_KINDS:
        ports: tuple[PowerPort, ...] = tuple(p for p in values["power_ports"] if p is not None)
        redundancy = values["props"].get("psu_redundancy") if values.get("props") else None
        try:
            figure = netbox_power(
                ports,
                str(redundancy) if redundancy is not None else None,
                values.get("comments", ""),
            )
        except ValueError as exc:
            raise ctx.error(("props", "psu_redundancy"), str(exc)) from None
        values["max_power_w"] = figure.watts
        if figure.watts is not None:
            values["sources"] = dict(values.get("sources") or {})
            values["sources"].setdefault("max_power_w", figure.source)
        if figure.note:
            ctx.warn(("power-ports",), figure.note)
    if values.get("typical_power_w") is None and values.get("max_power_w") is not None:
        values["typical_power_w"] = values["max_power_w"]
    typical, maximum = values.get("typical_power_w"), values.get("max_power_w")
    if typical is not None and maximum is not None and typical > maximum:
        raise ctx.error(("typical_power_w",), "typical power is above max_power_w")


def _json_copy(mapping: dict[str, Any]) -> dict[str, Any]:
    """A deep copy that survives the project file's JSON round-trip unchanged."""
    return json.loads(json.dumps(mapping, default=str))


def _field_name(path: tuple[Any, ...]) -> str:
    """``("power-ports", 2, "maximum_draw")`` → ``power-ports[2].maximum_draw``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def is_valid_slug(slug: str) -> bool:
    """True when ``slug`` follows NetBox's convention (used by the CLI and the window)."""
    return bool(SLUG_RE.match(slug))
