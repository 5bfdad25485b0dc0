"""Importing NetBox device-type files into a design's catalog snapshot (Qt-free).

What the window's File ▸ Import ▸ Device types does, in the order it asks: read each
file (bounded, as every catalog file; a malformed one is refused whole with file:line),
classify it (:mod:`workbench.catalog.classify`), let the user answer the questions the
evidence leaves open, and build the item, keeping the figures of an item the design or
the catalog already holds under that slug unless told to replace them
(:mod:`workbench.catalog.merge`).  The window then puts every built item into
``design.device_types`` as one undoable edit.

The command line's ``workbench catalog import-netbox`` takes the same decisions for
files copied into the user catalog; this module changes no file at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.catalog.classify import Classification, Decision, classify
from workbench.catalog.errors import CatalogEntryErrors, CatalogError, display_path
from workbench.catalog.item import CatalogItem
from workbench.catalog.limits import MAX_CATALOG_FILES
from workbench.catalog.loader import load_file
from workbench.catalog.merge import DiffRow, changed, diff_items, kept_fields
from workbench.catalog.parse import parse_item
from workbench.catalog.yaml_source import read_catalog_bytes

#: Files one import may name: the catalog's own bound on files, so a folder of
#: strangers' files cannot make the window read without end.
MAX_IMPORT_FILES = MAX_CATALOG_FILES

#: The answers a question dialog may give, by field.
ANSWER_FIELDS: tuple[str, ...] = ("kind", "role", "gpu", "gpu_count")


@dataclass(frozen=True)
class Candidate:
    """One file read and classified, not yet built: what the questions and the diff
    are asked about."""

    source: Path
    #: The file as messages name it.
    shown: str
    raw: dict[str, Any]
    found: Classification
    #: The item the design (else the catalog) holds under the same slug, if any.
    old: CatalogItem | None
    warnings: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        return str(self.raw.get("slug", ""))

    @property
    def label(self) -> str:
        return f"{self.raw.get('manufacturer', '')} {self.raw.get('model', '')}".strip()

    def questions(self, answers: Mapping[str, Any] | None = None) -> list[Decision]:
        """The decisions the evidence leaves open, after ``answers``."""
        return self.found.answered(**_answer_args(answers or {})).questions()


@dataclass(frozen=True)
class Built:
    """A candidate made into the item the design will hold."""

    candidate: Candidate
    item: CatalogItem
    #: Field-by-field rows against the old item (empty for a new slug).
    rows: tuple[DiffRow, ...] = ()
    kept: dict[str, Any] = field(default_factory=dict)

    @property
    def changes(self) -> list[DiffRow]:
        """The rows worth showing (all but ``same``)."""
        return changed(list(self.rows))


def read_candidate(path: Path, known: Mapping[str, CatalogItem]) -> Candidate:
    """Read and classify one file; CatalogError (file:line and the problem) when it is
    malformed, is not one device type, or breaks a limit.  ``known`` is what the design
    and the catalog hold, the design's first (the item an import would replace)."""
    shown = display_path(path)
    try:
        data = read_catalog_bytes(path)  # refuses an oversized file before reading it
    except OSError as exc:
        raise CatalogError(f"cannot read it: {exc.strerror or exc}", file=shown) from None
    result = load_file(path, data)
    if result.errors:
        raise result.errors[0] if len(result.errors) == 1 else CatalogEntryErrors(result.errors)
    if not result.single or len(result.items) != 1:
        raise CatalogError("not a NetBox device type: expected one mapping with a slug", file=shown)
    item = result.items[0]
    return Candidate(
        source=path,
        shown=shown,
        raw=dict(item.raw),
        found=classify(item.raw),
        old=known.get(item.slug),
        warnings=tuple(str(w) for w in result.warnings),
    )


def build(
    candidate: Candidate,
    answers: Mapping[str, Any],
    known: Mapping[str, CatalogItem],
    replace: bool = False,
) -> Built:
    """The item for ``candidate`` with the user's ``answers`` (kind, role, gpu,
    gpu_count) written into it, keeping what the new file lacks from the old item
    unless ``replace``.  CatalogError naming the file when a question is still open or
    the answers make an entry the parser refuses."""
    args = _answer_args(answers)
    found = candidate.found.answered(**args)
    if found.ambiguous:
        raise CatalogError(found.refusal(), file=candidate.shown)
    raw = candidate.raw
    fields = {name: value for name, value in args.items() if raw.get(name) != value}
    needs_count = "gpu" in fields and "gpu_count" not in fields and "gpu_count" not in raw
    if needs_count and found.gpu_count.value:
        fields["gpu_count"] = found.gpu_count.value  # the GPU named: its count goes too
    old = candidate.old
    kept = kept_fields(old, raw | fields, replace) if old is not None else {}
    mapping = raw | fields | kept
    try:
        item = parse_item(mapping, source_file=candidate.shown)
    except CatalogError as exc:
        raise CatalogError(f"with the answers given: {exc}", file=candidate.shown) from None
    if item.gpu:
        gpu = known.get(item.gpu)
        if gpu is None or gpu.kind != "gpu":
            raise CatalogError(
                f"gpu {item.gpu!r} is not a GPU in the catalog", file=candidate.shown, field="gpu"
            )
    rows = tuple(diff_items(old, item, kept)) if old is not None else ()
    return Built(candidate, item, rows, kept)


def _answer_args(answers: Mapping[str, Any]) -> dict[str, Any]:
    """The answers :meth:`Classification.answered` takes (None and blanks dropped)."""
    args: dict[str, Any] = {}
    for name in ANSWER_FIELDS:
        value = answers.get(name)
        if value is None or value == "":
            continue
        args[name] = int(value) if name == "gpu_count" else str(value)
    return args
