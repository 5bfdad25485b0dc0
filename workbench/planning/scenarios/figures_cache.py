"""Scenario figures remembered between runs, in the user's cache folder.

A 100,000-GPU file costs seconds to read and check, every time ``workbench compare``
starts or the Scenarios panel first opens it, for figures that depend on nothing but
the file's bytes, the catalog the file's missing items are looked up in, and the code
that computes them.  So the figures of a file are kept in
``$XDG_CACHE_HOME/workbench/figures`` (``~/.cache/...`` by default) as one small JSON
file per key, the key being a SHA-256 of

* the project file's bytes (a rename or touch keeps the entry, any edit misses it),
* the catalog in use (every item, as loaded),
* the workbench version and its source files (their names, sizes and times), so a
  fix to a rule is never hidden by figures an older program computed.

The user's project file is only ever read.  An entry is written atomically (a crash
leaves no half entry under a key's name) through the store's atomic writer, so a writer
killed before its rename leaves ``.<key>.json.<pid>.<random>.tmp``, which the next
entry written tidies with the one sweep of the workbench's temporaries
(:func:`workbench.store.temps.sweep_temps`: one younger than 30 s or whose writer is
alive is left alone).  An entry holds no pickle, and is read defensively: one
that is too big, not JSON, of another format or key, or with a figure of the wrong type
is ignored and the figures are computed again.  Delete the folder at any time;
``workbench compare --no-cache`` neither reads nor writes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import workbench
from workbench.catalog.schema_cache import user_cache_folder
from workbench.store.atomic import write_bytes_atomic
from workbench.store.temps import sweep_quietly

if TYPE_CHECKING:
    from workbench.store.reader import SlugLookup

#: Bumped when the entry's layout or the figures' meaning changes.
FORMAT = 1

#: An entry is a few kilobytes; anything larger is not one of ours.
MAX_ENTRY_BYTES = 1_000_000

#: Entries kept; the least recently written go first.
MAX_ENTRIES = 64


def cache_folder() -> Path:
    """Where the figures are kept (see the module docstring)."""
    return user_cache_folder() / "figures"


@lru_cache(maxsize=1)
def _program_key() -> str:
    """The workbench version and its source files' names, sizes and times."""
    digest = hashlib.sha256(f"{FORMAT}:{workbench.__version__}".encode())
    root = Path(workbench.__file__).parent
    for source in sorted(root.rglob("*.py")):
        try:
            stat = source.stat()
        except OSError:
            continue
        name = source.relative_to(root).as_posix()
        digest.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def catalog_key(catalog: SlugLookup | None) -> str | None:
    """A fingerprint of the catalog a file's missing items are looked up in: "none"
    without one, every item's full value for a loaded catalog, and None (do not cache)
    for a look-up whose items cannot be listed."""
    if catalog is None:
        return "none"
    items = getattr(catalog, "items", None)
    if not isinstance(items, dict):
        return None
    digest = hashlib.sha256()
    for slug in sorted(items):
        digest.update(repr(items[slug]).encode())
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    """SHA-256 of the file's bytes (OSError when it cannot be read)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def entry_key(path: Path, catalog: SlugLookup | None, *, read: str | None = None) -> str | None:
    """The key of ``path``'s figures with ``catalog``, or None when they cannot be
    cached (an unlisted catalog, a file that cannot be read).  ``read``: the
    :func:`file_digest` of the bytes a design was read from; None too when the file no
    longer holds them (rewritten since), so figures of that design are never kept under
    other bytes."""
    fingerprint = catalog_key(catalog)
    if fingerprint is None:
        return None
    try:
        content = file_digest(path)
    except OSError:
        return None
    if read is not None and content != read:
        return None
    text = f"{content}:{fingerprint}:{_program_key()}"
    return hashlib.sha256(text.encode()).hexdigest()


def load(key: str) -> dict[str, Any] | None:
    """The figures (as ``ScenarioFigures.to_dict`` gave them) kept under ``key``; None
    when there are none or the entry is not one this program wrote for this key.  The
    caller still checks every figure's type (``ScenarioFigures.from_dict``)."""
    try:
        with open(cache_folder() / f"{key}.json", "rb") as handle:
            raw = handle.read(MAX_ENTRY_BYTES + 1)
    except OSError:
        return None
    if len(raw) > MAX_ENTRY_BYTES:
        return None
    try:
        entry = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError too
        return None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
        return None
    figures = entry.get("figures")
    return figures if isinstance(figures, dict) else None


def store(key: str, figures: dict[str, Any]) -> bool:
    """Keep ``figures`` (JSON-ready) under ``key``; False when the cache folder cannot
    be written (a read-only home: the figures are simply computed again next time)."""
    entry = {"format": FORMAT, "key": key, "figures": figures}
    data = json.dumps(entry, ensure_ascii=False).encode("utf-8")
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(folder / f"{key}.json", data)
    except (OSError, ValueError):
        return False
    sweep_quietly(folder)  # what writers killed before their rename left here
    _prune(folder)
    return True


def _prune(folder: Path) -> None:
    """Drop the oldest entries beyond :data:`MAX_ENTRIES` (best effort)."""
    try:
        entries = [(p.stat().st_mtime_ns, p) for p in folder.glob("*.json")]
    except OSError:
        return
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort()
    for _when, path in entries[: len(entries) - MAX_ENTRIES]:
        with contextlib.suppress(OSError):
            os.unlink(path)
