"""Which catalog files already passed the device-type schema, remembered by content.

Checking every entry against NetBox's JSON Schema is two thirds of loading the shipped
catalog (~0.17 s of every start, and the window loaded it up to three times).  A
verdict depends only on the file's bytes and on the schema, so a file whose bytes and
schema were seen to pass is not checked again: in this process (a set), nor in the next
(one line per digest in the user's cache folder).  Only passes are remembered, as
digests: the cache holds no data to trust, and a file that fails is checked every time,
so its errors are always those of today's schema.  A cache that cannot be read or
written is simply not used.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from importlib import resources
from pathlib import Path

import workbench

#: The most digests kept on disk (64 bytes each); older ones are dropped first.
MAX_DIGESTS = 20_000

_passed: set[str] = set()
_loaded_from: Path | None = None


def user_cache_folder() -> Path:
    """The workbench's folder in the user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``):
    what is kept there can be deleted at any time and is only ever recomputed."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "workbench"


def cache_file() -> Path:
    """Where the digests of passing files are kept (XDG cache folder)."""
    return user_cache_folder() / "catalog-schema-passed.txt"


@lru_cache(maxsize=1)
def _schema_key() -> bytes:
    """The schema files and the workbench version: a new schema forgets every verdict."""
    digest = hashlib.sha256(workbench.__version__.encode())
    folder = resources.files("workbench.catalog") / "schema"
    for name in ("devicetype.json", "components.json"):
        digest.update((folder / name).read_bytes())
    return digest.digest()


def digest_of(content: bytes) -> str:
    """The verdict's key: the schema's identity and the file's bytes."""
    return hashlib.sha256(_schema_key() + content).hexdigest()


def _load() -> None:
    global _loaded_from
    where = cache_file()
    if _loaded_from == where:
        return
    _loaded_from = where
    try:
        with open(where, "rb") as handle:
            text = handle.read(MAX_DIGESTS * 65 + 1).decode("ascii", "replace")
    except OSError:
        return
    _passed.update(line for line in text.split() if len(line) == 64)


def passed(digest: str) -> bool:
    """True when a file with this digest passed the schema before."""
    if digest in _passed:
        return True
    _load()
    return digest in _passed


def remember(digest: str) -> None:
    """Record that a file with this digest passed the schema (best effort on disk)."""
    _load()
    if digest in _passed:
        return
    _passed.add(digest)
    where = cache_file()
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        if where.exists() and where.stat().st_size > MAX_DIGESTS * 65:
            where.unlink()  # start again rather than grow without bound
        with open(where, "a", encoding="ascii") as handle:
            handle.write(digest + "\n")
    except OSError:
        pass  # a read-only home: verdicts are kept for this process only
