"""Temporary files an interrupted save left beside a project, and what becomes of them.

A save writes ``.<name>.<pid>.<random>.tmp`` beside the project and renames it over the
file (:mod:`workbench.store.atomic`).  A save killed before the rename (power cut,
``kill -9``, a crash) leaves that file behind; after a hundred such kills a folder held
46 of them, 12 MB, and nothing ever removed them.  :func:`sweep_temps` runs whenever a
folder is used (after every save, and by the window on opening a file there) and
decides for each leftover:

* **in use**: possibly a save running right now, in this process (an autosave
  thread), in another one, or on another machine sharing the folder: left alone.  That
  is any temp modified within the last :data:`SETTLE_S` seconds, and any whose writer
  (the pid in its name) is still alive on this machine, until it is
  :data:`ABANDONED_S` old.  Names from before the pid was added count as alive.
* **recoverable**: stale, newer than its project file and a complete project (it
  opens): a save that finished writing but never got renamed.  Kept, and reported, so
  the window can offer it (:func:`recover_temp` puts it in place, :func:`discard_temp`
  throws it away).
* **removed**: every other stale temp (a partial write, or older than the file).

The same sweep tidies what interrupted exports, prints and imports leave, since they
write the same way (:func:`workbench.store.atomic.replace_atomically`): a workbook's
``.cables.xlsx.<pid>.<random>.tmp``, a PDF's, a catalog file's, a cached figures entry's
(``.<key>.json.<pid>.<random>.tmp`` in the user's cache folder), and the staging folders
``.<folder>.<pid>.<random>.export`` that folder exports (Slurm, Kubernetes, NetBox,
SVG pages) fill before moving their files into place.  Those are never recoverable: a
stale one is removed.  Every export, print and import sweeps its target's folder when
it has written, and the window sweeps the folders of its recent files when it starts.

Only names of these shapes are ever touched: a project's temps with or without the
pid, other temps only with the pid and one of the suffixes the workbench writes
(:data:`OUTPUT_SUFFIXES`), staging folders only with the pid.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from workbench.store.errors import ProjectFileError, os_reason
from workbench.store.schema import AUTOSAVE_SUFFIX, FILE_SUFFIX

#: Seconds a temp must be untouched before it can be judged stale: the gap between a
#: running save's last write and its rename (an fsync to a slow USB stick) is far
#: shorter, and it covers a writer on another machine, whose pid means nothing here.
SETTLE_S = 30.0
#: Seconds after which a temp is stale whoever wrote it: no save takes an hour, and a
#: pid can be reused by an unrelated process.
ABANDONED_S = 3600.0

_TEMP_NAME = re.compile(
    rf"^\.(?P<target>.+?{re.escape(FILE_SUFFIX)}(?:{re.escape(AUTOSAVE_SUFFIX)})?)"
    r"\.(?:(?P<pid>\d{1,10})\.)?[0-9a-f]{8}\.tmp$"
)

#: What the workbench writes besides projects (exports, prints, catalog imports).
OUTPUT_SUFFIXES: tuple[str, ...] = (".xlsx", ".pdf", ".csv", ".yaml", ".yml", ".json", ".svg")

#: The temp of an export, print or import: ``.<target>.<pid>.<random>.tmp`` (a file) or
#: ``.<folder>.<pid>.<random>.export`` (a staging folder).
_OUTPUT_TEMP = re.compile(
    r"^\.(?P<target>.+)\.(?P<pid>\d{1,10})\.[0-9a-f]{8}\.(?P<kind>tmp|export)$"
)


def stage_name(target: Path, token: str) -> Path:
    """The staging folder beside ``target`` (a folder an export fills) for this process;
    the one place the shape the sweep recognises is made."""
    return target.with_name(f".{target.name}.{os.getpid()}.{token}.export")


def make_stage(target: Path) -> Path:
    """Create (exclusively) and return a fresh staging folder for ``target``."""
    for _ in range(100):
        stage = stage_name(target, secrets.token_hex(4))
        try:
            stage.mkdir()
        except FileExistsError:
            continue
        return stage
    raise FileExistsError(f"no free staging folder name beside {target}")


def sweep_quietly(path: str | os.PathLike[str]) -> TempSweep:
    """:func:`sweep_temps` for writers whose own result must not depend on tidying."""
    try:
        return sweep_temps(path)
    except Exception:  # tidying is a courtesy: it must never turn a good write into an error
        return TempSweep()


def _output_temp(name: str) -> re.Match[str] | None:
    match = _OUTPUT_TEMP.match(name)
    if match is None:
        return None
    if match["kind"] == "tmp" and not match["target"].lower().endswith(OUTPUT_SUFFIXES):
        return None
    return match


def temp_name(target: Path, token: str) -> Path:
    """The temporary file beside ``target`` for a save by this process (``token``: 8
    random hex digits); the one place the shape the sweep recognises is made."""
    return target.with_name(f".{target.name}.{os.getpid()}.{token}.tmp")


@dataclass(frozen=True)
class TempSweep:
    """What :func:`sweep_temps` found in a folder."""

    #: Stale temps deleted (partial writes, or older than their file).
    removed: tuple[Path, ...] = ()
    #: Complete saves newer than their project file, kept for the user to choose.
    recoverable: tuple[Path, ...] = ()
    #: Temps that may belong to a save running now; left alone.
    in_use: tuple[Path, ...] = ()
    #: Stale temps that could not be removed, with the reason.
    failed: tuple[tuple[Path, str], ...] = ()
    #: Bytes the removed temps held.
    freed_bytes: int = 0

    def summary(self) -> str:
        """One line for a status bar; empty when there was nothing to say."""
        parts = []
        if self.removed:
            parts.append(
                f"removed {len(self.removed)} leftover temporary file(s) of interrupted "
                f"saves or exports ({self.freed_bytes / 1e6:.1f} MB)"
            )
        if self.recoverable:
            parts.append(f"{len(self.recoverable)} interrupted save(s) can be recovered")
        if self.failed:
            path, why = self.failed[0]
            parts.append(f"could not remove {path.name}: {why}")
        return "; ".join(parts)


def target_of(temp: Path) -> Path | None:
    """The project file a temp was written for, or None for any other file name."""
    match = _TEMP_NAME.match(temp.name)
    return temp.with_name(match["target"]) if match else None


def sweep_temps(path: str | os.PathLike[str], *, now: float | None = None) -> TempSweep:
    """Tidy the leftovers of interrupted saves in the folder of ``path``; never raises
    (what cannot be removed is reported).

    ``path`` is a project file (a save or an open of it) or a folder.  For a file, the
    temps of *other* files in the folder are only removed when stale and older than
    their file; one that might be a recoverable save of another file is left for the
    day that file is opened, so a save never pays for opening another project's temp.
    """
    place = Path(path)
    folder = place if place.is_dir() else place.parent
    only = None if place.is_dir() else place.name
    now = time.time() if now is None else now
    removed: list[Path] = []
    recoverable: list[Path] = []
    in_use: list[Path] = []
    failed: list[tuple[Path, str]] = []
    freed = 0
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return TempSweep()
    for temp in entries:
        match = _TEMP_NAME.match(temp.name)
        if match is None:
            output = _output_temp(temp.name)
            if output is not None:
                freed += _sweep_output(temp, output, now, removed, in_use, failed)
            continue
        try:
            info = temp.lstat()
        except OSError:
            continue  # gone meanwhile (its save finished)
        if not temp.is_file() or temp.is_symlink():
            continue
        pid = int(match["pid"]) if match["pid"] else None
        if not _stale(info.st_mtime, pid, now):
            in_use.append(temp)
            continue
        target = temp.with_name(match["target"])
        if _newer_than(info.st_mtime_ns, target):
            if only is not None and target.name != only:
                continue  # another file's possible recovery: decided when it is opened
            if _complete(temp):
                recoverable.append(temp)
                continue
        try:
            temp.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            failed.append((temp, os_reason(exc)))
            continue
        removed.append(temp)
        freed += info.st_size
    return TempSweep(tuple(removed), tuple(recoverable), tuple(in_use), tuple(failed), freed)


def _sweep_output(
    temp: Path,
    match: re.Match[str],
    now: float,
    removed: list[Path],
    in_use: list[Path],
    failed: list[tuple[Path, str]],
) -> int:
    """Remove an export's, print's or import's temp (file or staging folder) once it is
    stale (such a temp is never a finished result worth keeping); returns the bytes
    freed."""
    try:
        info = temp.lstat()
    except OSError:
        return 0
    folder = match["kind"] == "export"
    if temp.is_symlink() or (folder and not temp.is_dir()) or (not folder and not temp.is_file()):
        return 0
    newest = info.st_mtime
    size = info.st_size
    if folder:
        with contextlib.suppress(OSError):
            for child in temp.iterdir():
                child_info = child.lstat()
                newest = max(newest, child_info.st_mtime)
                size += child_info.st_size
    if not _stale(newest, int(match["pid"]), now):
        in_use.append(temp)
        return 0
    try:
        if folder:
            shutil.rmtree(temp)
        else:
            temp.unlink()
    except FileNotFoundError:
        return 0
    except OSError as exc:
        failed.append((temp, os_reason(exc)))
        return 0
    removed.append(temp)
    return size


def recover_temp(temp: str | os.PathLike[str]) -> Path:
    """Put a recoverable temp (see :func:`sweep_temps`) in place of its project file;
    returns the project file.  The temp must still open as a complete project."""
    temp = Path(temp)
    target = target_of(temp)
    if target is None:
        raise ProjectFileError(temp, "not a temporary file of a project save")
    if not _complete(temp):
        raise ProjectFileError(temp, "the interrupted save is incomplete and cannot be recovered")
    try:
        os.replace(temp, target)
    except OSError as exc:
        raise ProjectFileError(target, f"cannot recover: {os_reason(exc)}") from exc
    return target


def discard_temp(temp: str | os.PathLike[str]) -> None:
    """Throw away a temp the user chose not to recover."""
    temp = Path(temp)
    if target_of(temp) is None:
        raise ProjectFileError(temp, "not a temporary file of a project save")
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()


def _stale(mtime: float, pid: int | None, now: float) -> bool:
    age = now - mtime
    if age >= ABANDONED_S:
        return True
    if age < SETTLE_S or pid is None:
        return False
    return not _alive(pid)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine; True when that cannot be told
    (on Windows ``os.kill`` would terminate it, so age alone decides there)."""
    if os.name != "posix" or pid == os.getpid():
        return True
    if not 0 < pid < 2**31:
        return False  # no process has it; and 0 or -1 would signal whole groups
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    return True


def _newer_than(mtime_ns: int, target: Path) -> bool:
    try:
        return mtime_ns > target.stat().st_mtime_ns
    except OSError:
        return True  # no project file (never saved before, or removed): any save is newer


def _complete(temp: Path) -> bool:
    """True when the temp is a whole project file: it opens, values and all."""
    from workbench.store.reader import open_design  # the reader imports the writer's kin

    try:
        open_design(temp)
    except ProjectFileError:
        return False
    return True
