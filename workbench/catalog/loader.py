"""Find catalog folders, load every YAML file in them, and overlay the user's items.

A catalog folder holds YAML files in any sub-folders.  A file is either one NetBox
device type (one mapping with ``slug``, as in the community devicetype-library) or a
mapping whose ``items:`` list holds several entries (handy for GPUs, optics, cables).
Folders are read in order and a later folder's item replaces an earlier one with the
same slug: that is how the user's folder overlays the shipped one.

A bad file must not stop the window from starting, so by default errors are collected
in :attr:`Catalog.errors` (one per bad field, so a file is fixed in one pass) and the
broken entry is left out; ``strict=True`` (used by tests and ``catalog validate`` style
checks) raises the first error instead.

Catalog files come from strangers (the NetBox community library), so a file is read
within the limits of :mod:`workbench.catalog.limits`: a hostile or broken file in the
user's folder costs one error naming it, and every other file still loads.  Each entry
of a file is checked against NetBox's device-type schema
(:mod:`workbench.catalog.netbox_schema`) as well as by the parser: what NetBox would
refuse is refused here, with its line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.catalog import limits, schema_cache
from workbench.catalog.errors import (
    CatalogError,
    CatalogWarning,
    UnknownSlugError,
    all_errors,
    display_path,
)
from workbench.catalog.item import CatalogItem
from workbench.catalog.netbox_schema import schema_errors
from workbench.catalog.parse import parse_item_with_warnings
from workbench.catalog.yaml_source import read_catalog_bytes, read_yaml

#: File name endings read as catalog files.
YAML_SUFFIXES: tuple[str, ...] = (".yaml", ".yml")


def shipped_catalog_dir() -> Path:
    """The shipped ``catalogs/`` folder.

    In a checkout (and an editable install) it is the repository root's ``catalogs/``;
    a wheel installs the same files under ``<prefix>/share/workbench/catalogs`` (see
    ``[tool.setuptools.data-files]`` in pyproject.toml), which is used when the package
    does not sit in a checkout.
    """
    beside = Path(__file__).resolve().parents[2] / "catalogs"
    if beside.is_dir():
        return beside
    installed = Path(sys.prefix) / "share" / "workbench" / "catalogs"
    return installed if installed.is_dir() else beside


def user_catalog_dir() -> Path:
    """The user's own catalog folder, which overlays the shipped one.

    ``WORKBENCH_USER_CATALOG`` wins (tests and portable installs use it); otherwise the
    XDG data folder, as Linux desktop applications are expected to do.
    """
    override = os.environ.get("WORKBENCH_USER_CATALOG")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "workbench" / "catalog"


@dataclass
class FileResult:
    """What one file yielded: usable items, and what was wrong with the rest."""

    path: Path
    items: list[CatalogItem] = field(default_factory=list)
    warnings: list[CatalogWarning] = field(default_factory=list)
    errors: list[CatalogError] = field(default_factory=list)
    #: True for a single-mapping (NetBox style) file, False for an ``items:`` file.
    single: bool = True


def load_file(path: Path, content: bytes | None = None) -> FileResult:
    """Read one catalog file; never raises for bad content (see ``FileResult.errors``).

    Every bad field of every entry is an error of its own; an entry with any error is
    left out.  A file that is not valid YAML, or breaks one of the limits of
    :mod:`~workbench.catalog.limits`, gives one error (nothing after it can be trusted).
    ``content`` is the file's bytes when the caller has read them already (the importer
    validates exactly the bytes it then copies).
    """
    result = FileResult(path)
    shown = display_path(path)
    try:
        if content is None:
            try:
                content = read_catalog_bytes(path)
            except OSError as exc:
                raise CatalogError(f"cannot read file: {exc.strerror or exc}", file=shown) from None
        data, lines = read_yaml(path, content)
    except CatalogError as exc:
        # Without its traceback: the frames would keep the file's half-read values
        # alive (megabytes for a hostile file) as long as the catalog lists the error.
        result.errors.append(exc.with_traceback(None))
        return result
    if data is None:
        result.errors.append(CatalogError("file is empty", file=shown, line=1))
        return result
    if not isinstance(data, dict):
        result.errors.append(
            CatalogError(
                "expected a device type (a mapping with slug, manufacturer, model) "
                "or a mapping with an 'items:' list",
                file=shown,
                line=lines.line(),
            )
        )
        return result
    if "items" in data and "slug" not in data:
        result.single = False
        entries = data["items"]
        if not isinstance(entries, list):
            result.errors.append(
                CatalogError("expected a list of entries", shown, lines.line("items"), "items")
            )
            return result
        if len(entries) > limits.MAX_ITEMS_PER_FILE:
            result.errors.append(
                CatalogError(
                    f"{len(entries):,} entries; one file may hold at most "
                    f"{limits.MAX_ITEMS_PER_FILE:,} (split it into several files)",
                    shown,
                    lines.line("items"),
                    "items",
                )
            )
            return result
        todo = [(entry, lines.sub("items", index)) for index, entry in enumerate(entries)]
    else:
        todo = [(data, lines)]
    # The schema's verdict on these very bytes may be known (see schema_cache).
    digest = schema_cache.digest_of(content)
    known_good = schema_cache.passed(digest)
    all_passed = True
    for entry, entry_lines in todo:
        refused = [] if known_good else schema_errors(entry, entry_lines, shown)
        all_passed = all_passed and not refused
        try:
            item, warnings = parse_item_with_warnings(entry, shown, entry_lines)
        except CatalogError as exc:  # every bad field of the entry, each with its line
            result.errors.extend(_merged(refused, all_errors(exc)))
            continue
        if refused:  # NetBox would refuse the file: so do we, whatever the parser took
            result.errors.extend(refused)
            continue
        result.items.append(item)
        result.warnings.extend(warnings)
    if all_passed and not known_good:
        schema_cache.remember(digest)
    return result


def _merged(refused: list[CatalogError], parsed: list[CatalogError]) -> list[CatalogError]:
    """The schema's errors and the parser's, one per field, in file order.

    Where both speak of a field the parser's message stays (it was worded for our
    fields first, and existing users know it); the schema adds what the parser does not
    check (NetBox's enumerations, required fields, unique names, unknown fields).
    """
    fields = {error.field for error in parsed}
    extra = [error for error in refused if error.field not in fields]
    errors = [error.with_traceback(None) for error in parsed] + extra
    return sorted(errors, key=lambda e: (e.line is None, e.line or 0))


#: Top-level folders of a catalog folder that hold other YAML than device types: the
#: version-compatibility knowledge base (``compat/``, read by workbench.versions.compat).
NOT_CATALOG_DIRS: frozenset[str] = frozenset({"compat"})


def catalog_files(folder: Path, errors: list[CatalogError] | None = None) -> list[Path]:
    """YAML files below ``folder`` in a stable order, skipping hidden files and folders.

    Hidden folders (``.git``) are not entered and symbolic links to folders are not
    followed (a link loop would never end).  The walk stops after
    :data:`~workbench.catalog.limits.MAX_CATALOG_FILES` files, with one error in
    ``errors``: a folder that big is not a catalog, and must not stall every start.
    """
    found: list[Path] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as entries:
                listed = list(entries)
        except OSError:
            continue  # an unreadable sub-folder holds nothing we can load
        for entry in listed:
            if entry.name.startswith("."):
                continue
            if current == folder and entry.name in NOT_CATALOG_DIRS:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
                    continue
                is_file = entry.is_file()
            except OSError:
                continue
            if is_file and os.path.splitext(entry.name)[1] in YAML_SUFFIXES:
                if len(found) >= limits.MAX_CATALOG_FILES:
                    if errors is not None:
                        errors.append(
                            CatalogError(
                                f"more than {limits.MAX_CATALOG_FILES:,} YAML files; only the "
                                "first ones found were read: is this the right folder?",
                                file=display_path(folder),
                            )
                        )
                    return sorted(found)
                found.append(Path(entry.path))
    return sorted(found)


@dataclass
class Catalog:
    """Every usable catalog item by slug, plus what went wrong while loading."""

    items: dict[str, CatalogItem] = field(default_factory=dict)
    warnings: list[CatalogWarning] = field(default_factory=list)
    errors: list[CatalogError] = field(default_factory=list)
    #: The folders read, in overlay order.
    dirs: list[Path] = field(default_factory=list)

    def get(self, slug: str) -> CatalogItem | None:
        return self.items.get(slug)

    def __getitem__(self, slug: str) -> CatalogItem:
        try:
            return self.items[slug]
        except KeyError:
            raise UnknownSlugError(slug) from None

    def __contains__(self, slug: object) -> bool:
        return slug in self.items

    def __iter__(self) -> Iterator[CatalogItem]:
        return iter(self.items.values())

    def __len__(self) -> int:
        return len(self.items)

    def by_kind(self, kind: str) -> list[CatalogItem]:
        """Items of one kind, in the order a palette lists them."""
        chosen = [item for item in self.items.values() if item.kind == kind]
        return sorted(chosen, key=lambda i: (i.manufacturer.lower(), i.model.lower(), i.slug))


def load_catalog(
    dirs: Sequence[Path] | None = None, *, include_user: bool = True, strict: bool = False
) -> Catalog:
    """Load the shipped folder then the user's (or exactly ``dirs``), later ones winning.

    A folder passed explicitly that does not exist is an error; the default user
    folder simply may not exist yet.
    """
    if dirs is None:
        folders = [shipped_catalog_dir()]
        if include_user:
            user = user_catalog_dir()
            if user.is_dir():
                folders.append(user)
    else:
        folders = [Path(d) for d in dirs]
    catalog = Catalog(dirs=folders)
    for folder in folders:
        if not folder.is_dir():
            catalog.errors.append(
                CatalogError("catalog folder not found", file=display_path(folder))
            )
            continue
        _load_folder(folder, catalog)
    _check_references(catalog)
    if strict and catalog.errors:
        raise catalog.errors[0]
    return catalog


def _load_folder(folder: Path, catalog: Catalog) -> None:
    """Add one folder's items; a slug defined twice in the same folder is an error."""
    defined_here: dict[str, CatalogItem] = {}
    for path in catalog_files(folder, catalog.errors):
        result = load_file(path)
        catalog.errors.extend(result.errors)
        catalog.warnings.extend(result.warnings)
        for item in result.items:
            first = defined_here.get(item.slug)
            if first is not None:
                catalog.errors.append(
                    CatalogError(
                        f"slug {item.slug!r} is already defined in {first.source_file}",
                        file=item.source_file,
                        line=_field_line(item, "slug"),
                        field="slug",
                    )
                )
                continue
            defined_here[item.slug] = item
            catalog.items[item.slug] = item  # replaces an earlier folder's item: the overlay


def _field_line(item: CatalogItem, name: str) -> int | None:
    """Line of one of an item's fields, re-read from its file only when a message needs
    it (keeping line maps of every loaded item would cost memory for nothing)."""
    try:
        data, lines = read_yaml(Path(item.source_file))
    except CatalogError:
        return None
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        for index, entry in enumerate(data["items"]):
            if isinstance(entry, dict) and entry.get("slug") == item.slug:
                return lines.line("items", index, name)
    return lines.line(name)


def _check_references(catalog: Catalog) -> None:
    """A server naming a GPU the catalog lacks is dropped with an error: calculators
    would otherwise fail later on a lookup far away from the file at fault."""
    for slug, item in list(catalog.items.items()):
        if item.gpu is None:
            continue
        target = catalog.items.get(item.gpu)
        if target is None or target.kind != "gpu":
            problem = (
                "is not in the catalog" if target is None else f"is a {target.kind}, not a gpu"
            )
            catalog.errors.append(
                CatalogError(
                    f"{item.gpu!r} {problem}",
                    file=item.source_file,
                    line=_field_line(item, "gpu"),
                    field="gpu",
                )
            )
            del catalog.items[slug]


def snapshot_for(
    catalog: Catalog | Mapping[str, CatalogItem], slugs: Iterable[str]
) -> dict[str, CatalogItem]:
    """The items a design uses plus everything they reference (a server's GPU).

    This is what a project file stores, so the design reopens the same on a laptop
    without this catalog.  An unknown slug raises UnknownSlugError (a KeyError and a
    CatalogError) naming it.
    """
    chosen: dict[str, CatalogItem] = {}
    pending = [(slug, "") for slug in slugs]
    while pending:
        slug, referenced_by = pending.pop()
        if slug in chosen:
            continue
        try:
            item = catalog[slug]
        except KeyError:
            raise UnknownSlugError(slug, referenced_by) from None
        chosen[slug] = item
        if item.gpu:
            pending.append((item.gpu, slug))
    return chosen
