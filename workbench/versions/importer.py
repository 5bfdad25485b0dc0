"""Import a folder of node reports as observations: plan first, then apply in one step.

The folder is what a collection run leaves behind, one of two layouts (mixable):

- ``DIR/<node>/<anything>``: a folder per node, holding its reports under any names;
- ``DIR/<node>.<anything>``: files directly in DIR, the node being the part of the file
  name before its first dot (``gpu-r01-u02.nvidia-smi.csv``).

Why plan, then apply: a folder of 12,500 nodes is read once, completely, before the
design changes at all, so the window can show the summary (nodes updated, values
changed, unknown nodes) and the user can cancel; and a single malformed file anywhere
aborts the whole import with its file and line (:class:`ReportError`), because half an
import would leave some nodes showing last month's versions next to this month's with
nothing to tell them apart.  Applying appends the plan's observations to the end of
``design.versions.observations``; reverting removes exactly those (by ``import_id``),
so the pair is one undo step.

What is read and what is not, deliberately:

- every regular file the layout names is a report: one whose content no reader
  recognises aborts the import (rather than being skipped silently), so nothing the
  user meant to import is quietly left out;
- hidden entries (``.DS_Store``), sub-folders of a node folder, links pointing out of
  DIR and non-regular files (sockets, FIFOs: opening one would block) are skipped, each
  with a note in the summary;
- nodes with no device of that name in the design are read (a bad file there still
  aborts) but not imported, and listed in the summary;
- two files of one node giving *different* values for one layer is an error naming
  both, as are two node names that differ only by case (the same host, typed twice).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from workbench.bounded_read import ReadRefused, read_bounded, shown_name
from workbench.model import ops
from workbench.model.design import Design
from workbench.model.errors import EditError
from workbench.model.names import text_problem
from workbench.model.version_ops import AddObservations, RemoveLastImport
from workbench.model.versions import OBSERVED_KEYS, OBSERVED_LABELS, Observation
from workbench.versions.reports import MAX_REPORT_BYTES, ReportError, read_report
from workbench.versions.reports.base import natural_key

__all__ = [
    "MAX_FILES",
    "AppliedImport",
    "ImportPlan",
    "ImportSummary",
    "ValueChange",
    "apply_import",
    "plan_import",
    "revert_import",
]

#: More files than a 100,000-GPU cluster's nodes would write (12,500 nodes × a dozen);
#: a folder with more is the wrong folder (a home directory), and is refused early.
MAX_FILES = 200_000
#: All report bytes of one import together (12,500 full nvidia-smi XML files are ~1.5 GB).
MAX_TOTAL_BYTES = 4 * 1024**3
#: Files between two calls of ``plan_import``'s progress callback.
PROGRESS_EVERY = 500
#: Notes kept in the summary; beyond that only their number.
MAX_NOTES = 200

_ORDER = {key: i for i, key in enumerate(OBSERVED_KEYS)}
_OBS_ID = re.compile(r"^obs(\d+)$")
_IMPORT_ID = re.compile(r"^imp(\d+)$")


@dataclass(frozen=True)
class ValueChange:
    """A layer of a node whose value differs from its newest earlier observation
    (``old`` None: the first report of that layer)."""

    node: str
    layer: str
    old: str | None
    new: str
    source: str
    line: int | None


@dataclass(frozen=True)
class ImportSummary:
    """What an import would do, for the confirmation dialog and the command line."""

    files_read: int
    #: format name → files of that format
    formats: dict[str, int]
    #: every node a file was read for, known or not
    nodes_read: tuple[str, ...]
    #: known nodes with at least one changed or first-reported value
    nodes_updated: tuple[str, ...]
    changed: tuple[ValueChange, ...]
    first_reports: tuple[ValueChange, ...]
    unchanged: int
    #: nodes no device of the design is named after: read, not imported
    unknown_nodes: tuple[str, ...]
    notes: tuple[str, ...]
    notes_left_out: int = 0

    def lines(self, limit: int = 10) -> list[str]:
        """The summary as short lines of text, lists cut at ``limit`` entries."""

        def some(items: list[str]) -> str:
            more = len(items) - limit
            return ", ".join(items[:limit]) + (f" and {more:,} more" if more > 0 else "")

        formats = ", ".join(f"{name} {count:,}" for name, count in sorted(self.formats.items()))
        out = [
            f"Read {self.files_read:,} files ({formats}) for {len(self.nodes_read):,} nodes.",
            f"{len(self.nodes_updated):,} nodes updated: {len(self.changed):,} values changed, "
            f"{len(self.first_reports):,} reported for the first time, "
            f"{self.unchanged:,} unchanged.",
        ]
        if self.changed:
            out.append(
                "Changed: "
                + some(
                    [
                        f"{c.node} {OBSERVED_LABELS.get(c.layer, c.layer)} {c.old} → {c.new}"
                        for c in self.changed
                    ]
                )
            )
        if self.unknown_nodes:
            out.append(
                f"{len(self.unknown_nodes):,} unknown nodes (no device of that name; not "
                f"imported): {some(list(self.unknown_nodes))}"
            )
        if self.notes:
            out.append(f"Skipped: {some(list(self.notes))}")
        return out


@dataclass(frozen=True)
class ImportPlan:
    """The observations one import adds, and what they change."""

    import_id: str
    folder: str
    imported_by: str
    observed_at: str
    observations: tuple[Observation, ...]
    summary: ImportSummary

    @property
    def changes_anything(self) -> bool:
        """Whether importing would tell the design something new: a value changed or
        reported for the first time.  Reports that only repeat what the design holds
        leave a project file as it was (the command line then writes nothing)."""
        return bool(self.summary.nodes_updated)


@dataclass(frozen=True)
class AppliedImport:
    """What :func:`apply_import` did, enough to undo it with :func:`revert_import`."""

    import_id: str
    count: int
    #: names of the nodes that gained observations
    nodes: frozenset[str]


@dataclass(frozen=True)
class _File:
    path: str
    source: str
    node: str


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _walk(root: Path, notes: list[str]) -> Iterator[_File]:
    """The report files of the folder in name order, with the node each belongs to."""
    real_root = os.path.realpath(root)
    label = Path(real_root).name or str(root)

    def usable(entry: os.DirEntry[str], shown: str) -> str | None:
        """ "file", "dir" or None (skipped, with a note)."""
        if entry.name.startswith("."):
            notes.append(f"{shown} (hidden)")
            return None
        if entry.is_symlink() and not _inside(os.path.realpath(entry.path), real_root):
            notes.append(f"{shown} (a link to outside the folder)")
            return None
        try:
            if entry.is_dir():
                return "dir"
            if entry.is_file():
                return "file"
        except OSError as error:
            notes.append(f"{shown} ({error.strerror})")
            return None
        notes.append(f"{shown} (not a regular file)")
        return None

    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        kind = usable(entry, entry.name)
        if kind == "file":
            yield _File(
                entry.path, shown_name(f"{label}/{entry.name}"), entry.name.split(".", 1)[0]
            )
        elif kind == "dir":
            try:
                children = sorted(os.scandir(entry.path), key=lambda e: e.name)
            except OSError as error:
                raise ReportError(entry.path, None, f"cannot be read: {error.strerror}") from None
            for child in children:
                shown = f"{entry.name}/{child.name}"
                child_kind = usable(child, shown)
                if child_kind == "dir":
                    notes.append(f"{shown} (a sub-folder of a node folder; not read)")
                elif child_kind == "file":
                    yield _File(child.path, shown_name(f"{label}/{shown}"), entry.name)


def _read(path: str) -> bytes:
    """The bytes of a regular file (refusing one swapped for a FIFO since the scan),
    within :data:`MAX_REPORT_BYTES` (:mod:`workbench.bounded_read`)."""
    try:
        return read_bounded(path, MAX_REPORT_BYTES)
    except ReadRefused as error:
        raise ReportError(path, None, f"is {error}") from None
    except OSError as error:
        raise ReportError(path, None, f"cannot be read: {error.strerror}") from None


def _next_number(pattern: re.Pattern[str], ids: set[str]) -> int:
    best = 0
    for value in ids:
        match = pattern.match(value)
        if match is not None:
            best = max(best, int(match.group(1)))
    return best + 1


def plan_import(
    design: Design,
    folder: str | os.PathLike[str],
    *,
    who: str,
    when: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ImportPlan:
    """Read every report under ``folder`` and say what importing them would change.

    ``who`` is recorded as ``imported_by``; ``when`` (ISO-8601 UTC text, now when None)
    as every observation's ``observed_at``.  Nothing in ``design`` changes.  Raises
    :class:`ReportError` for the first file (or folder) that cannot be imported.

    A 12,500-node folder takes seconds, so ``progress`` (when given) is called with the
    number of files read so far every :data:`PROGRESS_EVERY` files, for a progress bar;
    an exception it raises (the user cancelled) ends the planning, nothing changed.
    """
    problem = text_problem(who)
    if problem is not None:
        raise EditError(f"The importer's name {problem}.")
    root = Path(folder)
    if not root.is_dir():
        raise ReportError(str(root), None, "is not a folder")
    observed_at = when or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

    notes: list[str] = []
    formats: Counter[str] = Counter()
    spelled: dict[str, tuple[str, str]] = {}  # casefolded node → (node, first file)
    #: (node, layer) → (value, source, line, path)
    values: dict[tuple[str, str], tuple[str, str, int | None, str]] = {}
    files = total = 0
    try:
        for report in _walk(root, notes):
            files += 1
            if progress is not None and files % PROGRESS_EVERY == 0:
                progress(files)
            if files > MAX_FILES:
                raise ReportError(
                    str(root), None, f"holds more than {MAX_FILES:,} files: not a reports folder"
                )
            node = report.node
            first = spelled.get(node.casefold())
            if first is None:  # a new node: its name is checked once
                bad = text_problem(node)
                if bad is not None:
                    raise ReportError(report.path, None, f"the node name {node!r} {bad}")
                first = spelled[node.casefold()] = (node, report.path)
            elif first[0] != node:
                raise ReportError(
                    report.path,
                    None,
                    f"node {node!r} differs only by case from {first[0]!r} (from {first[1]}); "
                    "rename one so each host has one name",
                )
            data = _read(report.path)
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise ReportError(
                    str(root), None, f"holds more than {MAX_TOTAL_BYTES // 1024**3} GB of reports"
                )
            report_format, readings = read_report(data, report.path)
            formats[report_format.label] += 1
            for layer, value, line in readings:
                had = values.setdefault((node, layer), (value, report.source, line, report.path))
                if had[0] != value:
                    where = f"{had[3]}, line {had[2]}" if had[2] is not None else had[3]
                    raise ReportError(
                        report.path,
                        line,
                        f"{OBSERVED_LABELS.get(layer, layer)} of {node} is {value!r} here but "
                        f"{had[0]!r} in {where}; one import holds one value per node and layer",
                    )
    except OSError as error:
        raise ReportError(str(root), None, f"cannot be read: {error.strerror}") from None
    if files == 0:
        raise ReportError(str(root), None, "holds no report files")
    return _plan(design, root, who, observed_at, values, files, formats, spelled, notes)


def _plan(
    design: Design,
    root: Path,
    who: str,
    observed_at: str,
    values: dict[tuple[str, str], tuple[str, str, int | None, str]],
    files: int,
    formats: Counter[str],
    spelled: dict[str, tuple[str, str]],
    notes: list[str],
) -> ImportPlan:
    """Turn the readings into observations and the summary (the second half of
    :func:`plan_import`)."""
    existing = design.versions.observations
    #: (node, layer) → (observed_at, value) of the newest observation: the latest
    #: ``observed_at``, a later row winning a tie (the rule the matrix view uses).
    previous: dict[tuple[str, str], tuple[str, str]] = {}
    used_ids: set[str] = set()
    used_imports: set[str] = set()
    for observation in existing:
        key = (observation.node, observation.layer)
        best = previous.get(key)
        if best is None or observation.observed_at >= best[0]:
            previous[key] = (observation.observed_at, observation.value)
        used_ids.add(observation.id)
        used_imports.add(observation.import_id)
    index = design.index
    # Ids the index holds that share these shapes (none, unless a device is named so):
    # one pass here instead of an index lookup per observation.
    for table in (
        index.sites,
        index.rows,
        index.racks,
        index.devices,
        index.links,
        index.workloads,
    ):
        used_ids.update(key for key in table if key.startswith("obs"))
        used_imports.update(key for key in table if key.startswith("imp"))
    number = _next_number(_IMPORT_ID, used_imports)
    while f"imp{number:04d}" in used_imports:
        number += 1
    import_id = f"imp{number:04d}"
    next_id = _next_number(_OBS_ID, used_ids)

    known = index.device_names
    nodes = sorted({node for node, _ in spelled.values()}, key=natural_key)
    unknown = tuple(node for node in nodes if node not in known)
    rank = {node: i for i, node in enumerate(nodes)}
    keys = sorted(
        (key for key in values if key[0] in known),
        key=lambda key: (rank[key[0]], _ORDER.get(key[1], len(_ORDER)), key[1]),
    )
    observations: list[Observation] = []
    changed: list[ValueChange] = []
    first_reports: list[ValueChange] = []
    updated: dict[str, None] = {}
    unchanged = 0
    for node, layer in keys:
        value, source, line, _path = values[(node, layer)]
        observation_id = f"obs{next_id:07d}"
        while observation_id in used_ids:
            next_id += 1
            observation_id = f"obs{next_id:07d}"
        next_id += 1
        observations.append(
            Observation(
                observation_id, node, layer, value, source, line, observed_at, who, import_id
            )
        )
        newest = previous.get((node, layer))
        old = newest[1] if newest is not None else None
        if old == value:
            unchanged += 1
            continue
        (changed if old is not None else first_reports).append(
            ValueChange(node, layer, old, value, source, line)
        )
        updated[node] = None
    summary = ImportSummary(
        files_read=files,
        formats=dict(formats),
        nodes_read=tuple(nodes),
        nodes_updated=tuple(updated),
        changed=tuple(changed),
        first_reports=tuple(first_reports),
        unchanged=unchanged,
        unknown_nodes=unknown,
        notes=tuple(notes[:MAX_NOTES]),
        notes_left_out=max(0, len(notes) - MAX_NOTES),
    )
    return ImportPlan(import_id, str(root), who, observed_at, tuple(observations), summary)


def apply_import(design: Design, plan: ImportPlan) -> AppliedImport:
    """Append the plan's observations through the model's one edit for it
    (:class:`~workbench.model.version_ops.AddObservations`, which the window's undo
    command uses too); EditError, changing nothing, when it was applied already or its
    ids have been taken since it was planned."""
    ops.apply(design, AddObservations(plan.observations))
    return AppliedImport(
        plan.import_id, len(plan.observations), frozenset(o.node for o in plan.observations)
    )


def revert_import(design: Design, plan: ImportPlan | AppliedImport) -> None:
    """Take the newest import back out (its exact inverse).  Only the newest one can
    go: history is never rewritten, undo is the only removal."""
    ops.apply(design, RemoveLastImport(plan.import_id))
