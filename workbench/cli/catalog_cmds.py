"""``workbench catalog validate | import-netbox | list``.

The command-line face of :mod:`workbench.catalog`.  Import copies a NetBox device-type
file byte for byte (it "loads unchanged"), but only after it validates against NetBox's
schema, and never overwrites a different file silently: a planner's hand-edited catalog
entry is data.  What the file cannot say is asked, never guessed: an ambiguous kind,
role or GPU refuses the import until ``--kind/--role/--gpu/--gpu-count`` answer it, and
those answers (with ``--psu-redundancy`` and the figures kept from an item the import
replaces) are written into the copy as a block of our own fields after the original.

Files to import come from strangers, so each is handled on its own: it is read once,
within the size cap, and exactly those bytes are validated and copied; a file that
fails (a YAML bomb, a bad field, an unreadable path) is reported with its file and
line and copies nothing, and the files after it are still imported.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from workbench.catalog import (
    KINDS,
    Catalog,
    CatalogItem,
    load_catalog,
    shipped_catalog_dir,
    user_catalog_dir,
)
from workbench.catalog.classify import Classification, classify
from workbench.catalog.errors import CatalogEntryErrors, CatalogError, all_errors, display_path
from workbench.catalog.loader import load_file
from workbench.catalog.merge import changed, diff_items, kept_fields
from workbench.catalog.netbox import power_source
from workbench.catalog.vocabulary import DEVICE_ROLES
from workbench.catalog.yaml_source import read_catalog_bytes
from workbench.cli.errors import CliError
from workbench.units import format_count

#: Columns of ``catalog list`` (and the keys of each ``--json`` object).
LIST_FIELDS: tuple[str, ...] = ("slug", "kind", "manufacturer", "model", "u_height", "role")
#: Further keys of each ``catalog list --json`` object (not columns of the table).
JSON_FIELDS: tuple[str, ...] = (
    "gpu",
    "gpu_count",
    "max_power_w",
    "typical_power_w",
    "unit_price",
    "currency",
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``catalog`` command and its subcommands."""
    parser = sub.add_parser("catalog", help="validate, import and list hardware catalogs")
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
    commands = parser.add_subparsers(dest="catalog_command", metavar="SUBCOMMAND")

    validate = commands.add_parser("validate", help="check catalog YAML files; exit 1 on any error")
    validate.add_argument(
        "dir",
        nargs="?",
        type=Path,
        help="folder to check, against the shipped catalog (default: shipped + user)",
    )
    validate.set_defaults(func=_validate)

    importer = commands.add_parser(
        "import-netbox", help="copy NetBox device-type YAML files into the user catalog"
    )
    importer.add_argument("files", nargs="+", type=Path, metavar="FILE")
    importer.add_argument(
        "--dest", type=Path, help=f"folder to copy into (default: {user_catalog_dir()})"
    )
    importer.add_argument("--force", action="store_true", help="replace a different existing file")
    importer.add_argument(
        "--kind",
        choices=KINDS,
        help="state the kind instead of taking it from the file's evidence (written into the copy)",
    )
    importer.add_argument(
        "--role", choices=DEVICE_ROLES, help="state the role (written into the copy)"
    )
    importer.add_argument("--gpu", metavar="SLUG", help="the GPU catalog item the device carries")
    importer.add_argument("--gpu-count", type=int, metavar="N", help="how many GPUs it carries")
    importer.add_argument(
        "--psu-redundancy",
        metavar="R",
        help="supply redundancy (N+N, N+1, 4+2): lets maximum_draw ratings give a power figure",
    )
    importer.add_argument(
        "--replace",
        action="store_true",
        help="take every figure from the new file, even those it lacks (default: keep them)",
    )
    importer.add_argument("--json", action="store_true", help="print the results as JSON")
    importer.set_defaults(func=_import_netbox)

    lister = commands.add_parser("list", help="list catalog items")
    lister.add_argument("--kind", choices=KINDS, help="only items of this kind")
    lister.add_argument("--json", action="store_true", help="print a JSON list of objects")
    lister.add_argument(
        "--dir", type=Path, help="list only this folder's items (default: shipped + user)"
    )
    lister.set_defaults(func=_list)


def _load(folder: Path | None) -> tuple[Catalog, list[CatalogItem]]:
    """The catalog to check and the items to show.

    With a folder, the shipped catalog is loaded underneath it so that a user's server
    may name a shipped GPU; only the folder's own items are shown and counted.
    """
    if folder is None:
        catalog = load_catalog()
        return catalog, list(catalog)
    if not folder.is_dir():
        raise CliError(f"{display_path(folder)}: catalog folder not found")
    shipped = shipped_catalog_dir()
    if folder.resolve() == shipped.resolve():
        catalog = load_catalog([shipped])
        return catalog, list(catalog)
    catalog = load_catalog([shipped, folder])
    root = folder.resolve()
    mine = [item for item in catalog if Path(item.source_file).resolve().is_relative_to(root)]
    return catalog, mine


def _validate(args: argparse.Namespace) -> int:
    catalog, items = _load(args.dir)
    for error in catalog.errors:
        print(f"error: {error}")
    for warning in catalog.warnings:
        print(f"warning: {warning}")
    where = display_path(args.dir) if args.dir else ", ".join(display_path(d) for d in catalog.dirs)
    counts = ", ".join(
        format_count(n, word)
        for n, word in (
            (len(items), "item"),
            (len(catalog.errors), "error"),
            (len(catalog.warnings), "warning"),
        )
    )
    print(f"{counts} in {where}")
    return 1 if catalog.errors else 0


@dataclass
class _Imported:
    """What one imported file gave: its report lines and its ``--json`` object."""

    lines: list[str]
    record: dict[str, Any] = field(default_factory=dict)


def _import_netbox(args: argparse.Namespace) -> int:
    dest: Path = args.dest if args.dest is not None else user_catalog_dir()
    if args.gpu_count is not None and args.gpu_count < 0:
        raise CliError("--gpu-count must be 0 or more")
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(
            f"cannot create catalog folder {display_path(dest)}: {exc.strerror or exc}"
        ) from None
    # Two checks need the other entries: a GPU the file refers to must exist, and the
    # destination must not define the same slug in another file.  A shipped item with
    # the same slug is fine: the user's copy overlays it, which is the point.
    existing = load_catalog([dest])
    known = load_catalog(include_user=False).items | existing.items
    failed: list[str] = []
    records: list[dict[str, Any]] = []
    added = 0
    for source in args.files:
        try:
            done = _import_one(source, dest, known, existing, args)
        except CatalogError as exc:
            problems = all_errors(exc)
            for problem in problems:  # every bad field of the file, in one run
                print(f"error: {problem}", file=sys.stderr)
            failed.append(display_path(source))
            records.append(
                {
                    "file": display_path(source),
                    "status": "refused",
                    "errors": [str(p) for p in problems],
                }
            )
            continue
        if not args.json:
            print("\n".join(done.lines))
        records.append(done.record)
        added += 1
    if args.json:
        json.dump(records, sys.stdout, indent=1, default=str)
        print()
    else:
        print(f"imported {added} of {len(args.files)} files into {display_path(dest)}")
    if failed:
        print(f"workbench: not imported: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _import_one(
    source: Path,
    dest: Path,
    known: dict,
    existing: Catalog,
    args: argparse.Namespace | None = None,
    kind: str | None = None,
    force: bool = False,
) -> _Imported:
    """Validate one file and copy it; returns its report, raises CatalogError.

    The copy is byte-for-byte the source, followed (only when there is any) by a block
    of workbench fields: the user's answers and the figures kept from the item it
    replaces.  The source file is only read, once: the bytes validated are the bytes
    copied, even if the file changes meanwhile.
    """
    from workbench.store.errors import os_reason  # the store package: only when importing

    options = _options(args, kind)
    options["force"] = options["force"] or force
    shown = display_path(source)
    try:
        data = read_catalog_bytes(source)  # refuses an oversized file before reading it
    except OSError as exc:
        raise CatalogError(f"cannot read it: {os_reason(exc)}", file=shown) from None
    result = load_file(source, data)
    if result.errors:
        raise result.errors[0] if len(result.errors) == 1 else CatalogEntryErrors(result.errors)
    if not result.single or len(result.items) != 1:
        raise CatalogError("not a NetBox device type: expected one mapping with a slug", file=shown)
    raw = result.items[0].raw
    found = _classification(raw, options)
    if found.ambiguous:
        raise CatalogError(found.refusal(), file=shown)
    fields = _answers(raw, options, found)
    old = existing.get(result.items[0].slug) or known.get(result.items[0].slug)
    kept = kept_fields(old, raw | fields, options["replace"]) if old is not None else {}
    fields |= kept
    if fields:
        data = _with_fields(data, raw, fields, source)
        result = load_file(source, data)
        if result.errors:
            raise CatalogEntryErrors(result.errors)
    item = result.items[0]
    if item.gpu and (known.get(item.gpu) is None or known[item.gpu].kind != "gpu"):
        raise CatalogError(f"gpu {item.gpu!r} is not a GPU in the catalog", file=shown, field="gpu")
    target = dest / f"{item.slug}.yaml"
    other = existing.get(item.slug)
    if other is not None and not _same_file(Path(other.source_file), target):
        raise CatalogError(
            f"slug {item.slug!r} is already defined in {other.source_file}",
            file=shown,
            field="slug",
        )
    try:
        exists = target.exists()
        identical = exists and target.stat().st_size == len(data) and target.read_bytes() == data
    except OSError as exc:
        raise CatalogError(
            f"cannot check {display_path(target)}: {os_reason(exc)}", file=shown
        ) from None
    rows = diff_items(old, item, kept) if old is not None else []
    record = _record(shown, item, found, rows, result.warnings)
    if exists and identical:
        record["status"] = "unchanged"
        return _Imported(
            [f"unchanged {item.slug} ({item.kind}): {display_path(target)} is identical"], record
        )
    if exists and not options["force"]:
        raise CatalogError(
            f"{display_path(target)} exists and differs; use --force to replace it", file=shown
        )
    _write_atomic(target, data)
    inferred = (
        "" if "kind" in raw or options["kind"] else ", kind inferred: use --kind if that is wrong"
    )
    lines = [f"added {item.slug} ({item.kind}{inferred}) -> {display_path(target)}"]
    if "kind" not in raw:
        lines += [f"  {decision.describe()}" for decision in found.decisions()]
    lines.append(f"  power: {_watts(item.max_power_w)} ({power_source(item)})")
    how = item.sources.get("max_power_w", "")
    if how.startswith(("allocated_draw", "maximum_draw")):
        lines.append(f"    {how}")  # the decision and its evidence, never a silent sum
    lines += [f"  warning: {warning}" for warning in result.warnings]
    if old is not None:
        where = display_path(Path(old.source_file))
        what = "replaces your" if old.slug in existing.items else "overlays the shipped"
        lines.append(f"  {what} {item.slug} from {where}; field by field:")
        lines += [f"    {row}" for row in changed(rows)] or ["    (no field changes)"]
        if kept:
            lines.append("  kept what the new file lacks; use --replace to take the file alone")
    record["status"] = "added"
    return _Imported(lines, record)


def _options(args: argparse.Namespace | None, kind: str | None) -> dict[str, Any]:
    """The import options, from the parsed command line (or defaults for callers that
    import one file directly, such as the fuzz tests)."""
    get = (
        (lambda name, default=None: getattr(args, name, default))
        if args
        else (lambda name, default=None: default)
    )
    return {
        "kind": kind or get("kind"),
        "role": get("role"),
        "gpu": get("gpu"),
        "gpu_count": get("gpu_count"),
        "psu_redundancy": get("psu_redundancy"),
        "replace": bool(get("replace", False)),
        "force": bool(get("force", False)),
    }


def _classification(raw: dict[str, Any], options: dict[str, Any]) -> Classification:
    """The file's classification with the user's answers; a file stating its own kind
    (ours, not the library's) has nothing to ask."""
    found = classify(raw).answered(
        kind=options["kind"],
        role=options["role"],
        gpu=options["gpu"],
        gpu_count=options["gpu_count"],
    )
    return found


def _answers(raw: dict[str, Any], options: dict[str, Any], found: Classification) -> dict[str, Any]:
    """The workbench fields the user's options add to the copy: once anything is
    answered, every decision recomputed from the answers is written (``--kind switch``
    writes the role the ports give, ``--gpu`` the count the file gives), so the copy
    says what the user confirmed rather than what a later reading would re-derive."""
    fields: dict[str, Any] = {}
    if any(options[name] is not None for name in ("kind", "role", "gpu", "gpu_count")):
        for decision in found.decisions():
            if options[decision.field] is not None:
                fields[decision.field] = options[decision.field]
            elif decision.field not in raw and decision.value is not None:
                fields[decision.field] = decision.value
    if options["psu_redundancy"]:
        props = dict(raw.get("props") or {})
        props["psu_redundancy"] = str(options["psu_redundancy"])
        fields["props"] = props
    return fields


def _with_fields(data: bytes, raw: dict[str, Any], fields: dict[str, Any], source: Path) -> bytes:
    """``data`` with ``fields`` set: appended after the original text as a block of our
    own fields when none of them is in the file yet (every byte of the original stays,
    comments included); otherwise the merged mapping, written out afresh."""
    if not any(name in raw for name in fields):
        block = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=100)
        head = data if data.endswith(b"\n") else data + b"\n"
        note = b"# workbench: fields added by `workbench catalog import-netbox`\n"
        return head + note + block.encode()
    merged = dict(raw) | fields
    text = yaml.safe_dump(merged, sort_keys=False, allow_unicode=True, width=100)
    return f"# imported from {source.name} by `workbench catalog import-netbox`\n{text}".encode()


def _record(
    shown: str, item: CatalogItem, found: Classification, rows: list, warnings: list
) -> dict[str, Any]:
    record = _row(item)
    record.update(
        {
            "file": shown,
            "classification": found.to_dict(),
            "diff": [row.to_dict() for row in rows],
            "warnings": [str(w) for w in warnings],
        }
    )
    return record


def _watts(value: float | None) -> str:
    return "unknown" if value is None else f"{value:,.0f} W"


def _same_file(first: Path, second: Path) -> bool:
    """True when both paths name one file (a symlink loop is "not the same")."""
    try:
        return first.resolve() == second.resolve()
    except (OSError, RuntimeError):
        return False


def _write_atomic(target: Path, data: bytes) -> None:
    """Replace ``target`` the way project files are replaced, with a catalog message.

    The store is imported here, not with the module: every command builds the parser,
    which imports this module, and the store package is ~25 ms of imports that
    ``workbench fabric`` and the other commands without a project file never use."""
    from workbench.store.atomic import write_bytes_atomic
    from workbench.store.errors import os_reason

    try:
        write_bytes_atomic(target, data)
    except OSError as exc:
        raise CatalogError(f"cannot write {display_path(target)}: {os_reason(exc)}") from None


def _list(args: argparse.Namespace) -> int:
    catalog, shown = _load(args.dir)
    for error in catalog.errors:
        print(f"workbench: skipped: {error}", file=sys.stderr)
    kinds = [args.kind] if args.kind else list(KINDS)
    chosen = {item.slug for item in shown}
    items = [item for kind in kinds for item in catalog.by_kind(kind) if item.slug in chosen]
    rows = [_row(item) for item in items]
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return 0
    table = [[name.upper() for name in LIST_FIELDS]]
    table += [[_cell(row[name]) for name in LIST_FIELDS] for row in rows]
    widths = [max(len(line[col]) for line in table) for col in range(len(LIST_FIELDS))]
    for line in table:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        )
    return 0


def _row(item: CatalogItem) -> dict[str, Any]:
    """One item as ``catalog list --json`` gives it: unknown power is null, with
    ``power_source`` saying where a known figure came from."""
    row = {name: getattr(item, name) for name in LIST_FIELDS + JSON_FIELDS}
    row["power_source"] = power_source(item)
    return row


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
