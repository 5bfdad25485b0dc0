"""What every exporter shares: one error type, progress with cancel, atomic output.

An export either produces its whole file or leaves the folder as it was:

- :func:`write_file` has the exporter fill a temporary file beside the target and
  renames it over the target only when the exporter returned (the project file's own
  :func:`workbench.store.atomic.replace_atomically`), so a cancel, a crash, a full disk
  or an unwritable folder never leaves half a workbook under the user's name;
- :func:`write_folder` does the same for a set of text files (slurm.conf, gres.conf,
  topology.conf ...): all are written into a hidden staging folder beside the target
  folder, then each replaces its namesake, so a reader never sees a slurm.conf from
  this export next to a topology.conf from the last one;
- every failure is an :class:`ExportError` naming the path and the reason in one line.

Progress is a callable taking a fraction done (0..1) and an optional label; raising
:class:`ExportCancelled` from it stops the export (the window's Cancel button does
that), with the same no-partial-file guarantee.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from workbench.progress import Progress as Progress  # the one shape every writer takes
from workbench.store.atomic import fsync_folder, replace_atomically
from workbench.store.temps import make_stage, sweep_quietly


class ExportError(Exception):
    """An export that could not be written; ``str()`` is one line naming the path."""

    def __init__(self, path: str | os.PathLike[str], reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class ExportCancelled(Exception):
    """Raised by a progress callback to stop an export (nothing is left behind)."""


def no_progress(_fraction: float, _label: str = "") -> None:
    """The progress callback of exports nobody watches."""


def os_reason(exc: OSError) -> str:
    """A user's words for an OSError (the path is said by ExportError itself)."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied: the folder or file is not writable"
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.ENOENT:
        return "the folder does not exist"
    if exc.errno == errno.EROFS:
        return "the disk is read-only"
    if exc.errno == errno.EISDIR:
        return "is a folder, not a file"
    if exc.errno in (errno.EBUSY, errno.ETXTBSY):
        return "the file is held open by another program"
    return exc.strerror or str(exc)


def write_file(target: str | os.PathLike[str], write: Callable[[Path], object]) -> Path:
    """Run ``write(tmp)`` and put ``tmp`` in place of ``target``; ExportError on failure.

    ExportCancelled propagates (the caller decides what to say); the target and its
    folder are as they were in every failure.
    """
    path = Path(target).expanduser()
    if path.is_dir():
        raise ExportError(path, "is a folder, not a file")
    if not path.parent.is_dir():
        raise ExportError(path, "the folder does not exist")
    try:
        replace_atomically(path, write)
    except (ExportError, ExportCancelled):
        raise
    except OSError as exc:
        raise ExportError(path, _replace_reason(path, exc)) from exc
    sweep_quietly(path)  # what killed exports left here before
    return path


def _replace_reason(path: Path, exc: OSError) -> str:
    """Why putting a finished export in place failed.  Windows refuses to replace a
    workbook Excel has open with a sharing violation that Python reports as "permission
    denied"; when the file and its folder are in fact writable, that is what happened."""
    if (
        exc.errno in (errno.EACCES, errno.EPERM)
        and path.is_file()
        and os.access(path, os.W_OK)
        and os.access(path.parent, os.W_OK)
    ):
        return "the file is held open by another program: close it and export again"
    return os_reason(exc)


def write_folder(folder: str | os.PathLike[str], files: Mapping[str, str]) -> list[Path]:
    """Write ``files`` (name → text) into ``folder`` all together; ExportError on failure.

    The folder is created when missing (its parent must exist).  Files already there
    that are not in ``files`` are left alone.
    """
    target = Path(folder).expanduser()
    if target.exists() and not target.is_dir():
        raise ExportError(target, "is a file, not a folder")
    if not target.parent.is_dir():
        raise ExportError(target, "the folder above it does not exist")
    written: list[Path] = []
    stage: Path | None = None
    try:
        stage = make_stage(target)
        for name, text in files.items():
            if "/" in name or name.startswith("."):
                raise ExportError(target / name, "not a plain file name")
            (stage / name).write_text(text, encoding="utf-8")
        target.mkdir(exist_ok=True)
        for name in files:
            os.replace(stage / name, target / name)
            written.append(target / name)
        fsync_folder(target)
    except OSError as exc:
        raise ExportError(target, os_reason(exc)) from exc
    finally:
        if stage is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(stage)
    sweep_quietly(target.parent)  # staging folders killed exports left beside it
    return written
