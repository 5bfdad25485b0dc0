"""What a design holds beyond NetBox's objects, carried in ``workbench.yaml`` and back.

NetBox has no place for a storage tier, a training job, a waived finding, the version
matrix, acceptance results or as-built captures, yet "design → NetBox files → design"
must lose nothing the workbench models.  So the sidecar the export already writes (the
catalog figures NetBox cannot hold) also carries these, as plain mappings of their
dataclass fields.

Reading them back is reading a stranger's file: every mapping must name only the
fields of its class, and the rebuilt design is then passed through the project store
(written to a temporary project and read again), so the store's own value checks -
the ones every ``.dcwb`` file meets - judge each field, and a bad one is refused with
the sidecar's name and the table, row and field it would have been.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from workbench.model.acceptance import AcceptanceResult
from workbench.model.captures import CapturedLink
from workbench.model.design import Design, StorageTier, Waiver, Workload
from workbench.model.versions import (
    Assignment,
    Baseline,
    BaselineRevision,
    Observation,
    VersionMatrix,
)

#: The sidecar keys of the design's flat lists, and their classes.
_LISTS: dict[str, type] = {
    "storage_tiers": StorageTier,
    "workloads": Workload,
    "waivers": Waiver,
    "acceptance": AcceptanceResult,
    "captures": CapturedLink,
}
#: At most this many entries per list (a 100,000-GPU design has ~450,000 captures).
MAX_ENTRIES = 2_000_000

T = TypeVar("T")


class ExtrasError(ValueError):
    """A sidecar entry that cannot be taken in; ``str()`` names the entry and the field."""


def extras_of(design: Design) -> dict[str, Any]:
    """The sidecar mapping of everything NetBox cannot hold (lists, matrix, properties)."""
    out: dict[str, Any] = {"properties": dict(design.properties)}
    for key in _LISTS:
        out[key] = [dataclasses.asdict(entry) for entry in getattr(design, key)]
    out["versions"] = dataclasses.asdict(design.versions)
    return out


def apply_extras(design: Design, doc: Mapping[str, Any], where: str) -> None:
    """Put the sidecar's lists into ``design`` (ExtrasError naming ``where`` on a bad one)."""
    properties = doc.get("properties")
    if properties is not None:
        if not isinstance(properties, dict):
            raise ExtrasError(f"{where}: properties must be a mapping")
        design.properties = {str(k): v for k, v in properties.items()}
    for key, cls in _LISTS.items():
        entries = doc.get(key)
        if entries is None:
            continue
        setattr(design, key, _entries(cls, entries, f"{where}: {key}"))
    versions = doc.get("versions")
    if versions is not None:
        design.versions = _versions(versions, f"{where}: versions")


def _entries(cls: type[T], entries: Any, where: str) -> list[T]:
    if not isinstance(entries, list):
        raise ExtrasError(f"{where} must be a list")
    if len(entries) > MAX_ENTRIES:
        raise ExtrasError(f"{where}: {len(entries):,} entries, more than {MAX_ENTRIES:,}")
    return [_make(cls, entry, f"{where} entry {k + 1}") for k, entry in enumerate(entries)]


def _make(cls: type[T], entry: Any, where: str, **nested: Any) -> T:
    """``cls(**entry)`` when ``entry`` names only ``cls``'s fields (types are judged by
    the store afterwards)."""
    if not isinstance(entry, dict):
        raise ExtrasError(f"{where} must be a mapping")
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(map(str, entry)) - names)
    if unknown:
        raise ExtrasError(f"{where}: unknown field {unknown[0]!r}")
    try:
        return cls(**{**entry, **nested})
    except TypeError as exc:  # a required field missing
        raise ExtrasError(f"{where}: {exc}") from None


def _versions(doc: Any, where: str) -> VersionMatrix:
    if not isinstance(doc, dict):
        raise ExtrasError(f"{where} must be a mapping")
    baselines = []
    for k, entry in enumerate(_list(doc.get("baselines"), f"{where}: baselines")):
        place = f"{where}: baselines entry {k + 1}"
        revisions = [
            _make(BaselineRevision, rev, f"{place} revision {j + 1}")
            for j, rev in enumerate(_list(_field(entry, "revisions", place), place))
        ]
        baselines.append(_make(Baseline, entry, place, revisions=revisions))
    return VersionMatrix(
        baselines=baselines,
        assignments=_entries(Assignment, doc.get("assignments") or [], f"{where}: assignments"),
        observations=_entries(Observation, doc.get("observations") or [], f"{where}: observations"),
    )


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ExtrasError(f"{where} must be a list")
    return value


def _field(entry: Any, name: str, where: str) -> Any:
    if not isinstance(entry, dict):
        raise ExtrasError(f"{where} must be a mapping")
    return entry.get(name)


def checked(design: Design, where: str, origin: Mapping[str, str] | None = None) -> Design:
    """``design`` as the project store reads it back: every value judged by the checks
    a ``.dcwb`` file meets, so an import never writes a project the workbench refuses.
    ExtrasError names the row an object came from (``origin``: id → ``file:line``) when
    the store's reason names that object's id, else ``where``, and the store's reason."""
    from workbench.store import ProjectFileError, open_design, save_design

    with tempfile.TemporaryDirectory(prefix="workbench-netbox-") as tmp:
        path = Path(tmp) / "imported.dcwb"
        try:
            save_design(design, path)
            return open_design(path)
        except ProjectFileError as exc:
            reason = exc.problem
            row = next((w for i, w in (origin or {}).items() if f"'{i}'" in reason), None)
            if row is not None:
                raise ExtrasError(
                    f"{row}: makes a design the workbench cannot open: {reason}"
                ) from None
            raise ExtrasError(f"{where}: {reason}") from None
        except (TypeError, ValueError, OverflowError) as exc:
            raise ExtrasError(f"{where}: a value the project file cannot hold: {exc}") from None
