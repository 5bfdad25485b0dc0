"""Replacing a file atomically: write beside it, fsync, rename over it.

Used for project files and for anything else the workbench writes into a user's folder
(catalog imports), so every writer gets the same guarantees: a crash or error before the
rename leaves the old file exactly as it was, no temporary file is left behind (one a
killed process could not remove is tidied later, :mod:`workbench.store.temps`), a
replaced file keeps its permission bits and a new one follows the user's umask.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from workbench.store.temps import temp_name


def create_temp(target: Path) -> Path:
    """A new empty file beside ``target``, named ``.<name>.<pid>.<random>.tmp``.

    The pid lets :func:`workbench.store.temps.sweep_temps` tell the leftover of a save
    that was killed from a save running now.  Not ``tempfile.mkstemp``: its private
    0600 mode would surprise a team sharing a project folder, whereas
    ``os.open(..., 0o666)`` gets the user's usual umask.
    """
    for _ in range(100):
        tmp = temp_name(target, secrets.token_hex(4))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(f"no free temporary name beside {target}")


def fsync_file(file: Path) -> None:
    """Flush a written file's data to disk before it is renamed into place."""
    fd = os.open(file, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_folder(folder: Path) -> None:
    """Make the rename itself durable; not possible (or needed) on every platform."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def copy_mode(target: Path, tmp: Path) -> None:
    """Keep the replaced file's permission bits (a read-only-for-group file stays so)."""
    try:
        mode = target.stat().st_mode & 0o7777
    except OSError:
        return
    os.chmod(tmp, mode)


def replace_atomically(target: Path, write: Callable[[Path], object]) -> None:
    """Have ``write`` fill a temporary file beside ``target``, then rename it over it.

    Any exception (OSError, the writer's own, KeyboardInterrupt) removes the temporary
    file and propagates unchanged, so callers translate errors into their own messages.
    """
    tmp = create_temp(target)
    try:
        write(tmp)
        fsync_file(tmp)
        copy_mode(target, tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_folder(target.parent)


def write_bytes_atomic(target: Path, data: bytes) -> None:
    """Replace ``target`` with ``data`` atomically (see :func:`replace_atomically`)."""
    replace_atomically(target, lambda tmp: tmp.write_bytes(data))
