"""``workbench catalog validate | import-netbox | list``.

The command-line face of :mod:`workbench.catalog`.  Import copies a NetBox device-type
file byte for byte (it "loads unchanged"), but only after it validates, and never
overwrites a different file silently: a planner's hand-edited catalog entry is data.

Files to import come from strangers, so each is handled on its own: it is read once,
within the size cap, and exactly those bytes are validated and copied; a file that
fails (a YAML bomb, a bad field, an unreadable path) is reported with its file and
line and copies nothing, and the files after it are still imported.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.catalog import (
    KINDS,
    Catalog,
    CatalogItem,
    load_catalog,
    shipped_catalog_dir,
    user_catalog_dir,
)
from workbench.catalog.errors import CatalogEntryErrors, CatalogError, all_errors, display_path
from workbench.catalog.loader import load_file
from workbench.catalog.yaml_source import read_catalog_bytes
from workbench.cli.errors import CliError
from workbench.store.atomic import write_bytes_atomic
from workbench.store.errors import os_reason
from workbench.units import format_count

#: Columns of ``catalog list`` (and the keys of each ``--json`` object).
LIST_FIELDS: tuple[str, ...] = ("slug", "kind", "manufacturer", "model", "u_height", "role")


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
        help="state the kind instead of letting the importer guess it (written into the copy)",
    )
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


def _import_netbox(args: argparse.Namespace) -> int:
    dest: Path = args.dest if args.dest is not None else user_catalog_dir()
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
    added = 0
    for source in args.files:
        try:
            message = _import_one(source, dest, known, existing, args.force, args.kind)
        except CatalogError as exc:
            for problem in all_errors(exc):  # every bad field of the file, in one run
                print(f"error: {problem}", file=sys.stderr)
            failed.append(display_path(source))
            continue
        print(message)
        added += 1
    print(f"imported {added} of {len(args.files)} files into {display_path(dest)}")
    if failed:
        print(f"workbench: not imported: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def _import_one(
    source: Path, dest: Path, known: dict, existing: Catalog, force: bool, kind: str | None = None
) -> str:
    """Validate one file and copy it; returns the report line, raises CatalogError.

    The copy is byte-for-byte the source, except that ``--kind`` is written as a first
    line so the guess is never needed again.  The source file is only read, once: the
    bytes validated are the bytes copied, even if the file changes meanwhile.
    """
    shown = display_path(source)
    try:
        data = read_catalog_bytes(source)  # refuses an oversized file before reading it
    except OSError as exc:
        raise CatalogError(f"cannot read it: {os_reason(exc)}", file=shown) from None
    if kind is not None:
        data = _with_kind(data, kind)
    result = load_file(source, data)
    if result.errors:
        raise result.errors[0] if len(result.errors) == 1 else CatalogEntryErrors(result.errors)
    if not result.single or len(result.items) != 1:
        raise CatalogError("not a NetBox device type: expected one mapping with a slug", file=shown)
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
    if exists:
        if identical:
            return f"unchanged {item.slug} ({item.kind}): {display_path(target)} is identical"
        if not force:
            raise CatalogError(
                f"{display_path(target)} exists and differs; use --force to replace it", file=shown
            )
    _write_atomic(target, data)
    inferred = "" if "kind" in item.raw else ", kind inferred: use --kind if that is wrong"
    lines = [f"added {item.slug} ({item.kind}{inferred}) -> {display_path(target)}"]
    lines += [f"  warning: {warning}" for warning in result.warnings]
    shipped = known.get(item.slug)
    if shipped is not None and shipped.slug not in existing.items:
        lines.append(
            f"  warning: overlays the shipped {item.slug} from {display_path(Path(shipped.source_file))}; "
            "its figures (power, GPUs, price, sources) now come from your copy"
        )
    return "\n".join(lines)


def _with_kind(data: bytes, kind: str) -> bytes:
    """The file with ``kind:`` stated: any existing top-level ``kind:`` line is replaced."""
    lines = [line for line in data.splitlines(keepends=True) if not line.startswith(b"kind:")]
    head = 1 if lines and lines[0].strip() == b"---" else 0
    lines.insert(head, f"kind: {kind}\n".encode())
    return b"".join(lines)


def _same_file(first: Path, second: Path) -> bool:
    """True when both paths name one file (a symlink loop is "not the same")."""
    try:
        return first.resolve() == second.resolve()
    except (OSError, RuntimeError):
        return False


def _write_atomic(target: Path, data: bytes) -> None:
    """Replace ``target`` the way project files are replaced, with a catalog message."""
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
    rows = [{name: getattr(item, name) for name in LIST_FIELDS} for item in items]
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


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
