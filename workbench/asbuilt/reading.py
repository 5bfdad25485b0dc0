"""Reading a folder of captures: limits, format detection, one error line per bad file.

Captures come from the site, written by tools and pasted by people, so they are
untrusted input: every limit below is checked before the work it protects (the size
before a byte is read, the line length while lines are split, the record count while
records are made), and the first problem stops the whole read with
``FILE:LINE: problem``.  Nothing is returned half-read: the caller gets every record
of every file or a :class:`CaptureError`, so a design takes in a folder whole or not
at all.

A file's format is told from its content, never its name (installers name files
after hosts): ``ibnetdiscover`` output by its ``Switch``/``Ca`` blocks, ``lldpctl -f
json`` by its ``{"lldp": ...}`` object, and the switch OSes' LLDP tables by their
header lines (:mod:`workbench.asbuilt.tables`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from workbench.asbuilt.seen import CaptureError, Seen
from workbench.bounded_read import ReadRefused, read_bounded, shown_name
from workbench.model.captures import CapturedLink
from workbench.model.design import Design
from workbench.progress import Progress

#: Largest capture file read (ibnetdiscover of a 100,000-GPU fabric is about 90 MB).
MAX_FILE_BYTES = 256 << 20
#: Largest ``lldpctl -f json`` file: one host's or switch's neighbours are kilobytes.
MAX_JSON_BYTES = 16 << 20
#: Longest line of any capture (real lines are under 200 characters).
MAX_LINE_CHARS = 4096
#: Most capture files in one folder (raised to fit the design: :data:`FILES_PER_DEVICE`).
MAX_FILES = 20_000
#: Most neighbour records in one folder (a 100,000-GPU design has about 440,000 links).
MAX_RECORDS = 2_000_000
#: Files in the folder that are not captures and are skipped silently.
_SKIPPED_SUFFIXES = (".md", ".dcwb", ".xlsx")

#: What a capture may take per link of the design it is checked against: every link is
#: seen from both ends, an ibnetdiscover line is under 200 bytes, and a switch's LLDP
#: table repeats its header; four records and 800 bytes per link leave room for the
#: links the design does not know (the reason to capture at all).
RECORDS_PER_LINK = 4
BYTES_PER_LINK = 800
#: What a capture may hold in files per device of the design: each host's ``lldpctl``
#: and each switch's LLDP table is one file; two leave room for a device captured again
#: beside its first file.  (A 1,000,000-GPU campus has ~26,000 Ethernet switches: their
#: tables alone passed a fixed cap of 20,000 files.)
FILES_PER_DEVICE = 2

Parser = Callable[[str, list[str], str], list[Seen]]


@dataclass(frozen=True)
class CaptureLimits:
    """The caps a folder is read under: the fixed floors above, raised to fit the design
    the captures are checked against (:func:`limits_for`), so a whole-fabric capture of
    a 1,000,000-GPU campus is read while a hostile folder is still refused, and refused
    before a byte is parsed where its sizes already say so."""

    file_bytes: int = MAX_FILE_BYTES
    records: int = MAX_RECORDS
    folder_bytes: int = MAX_RECORDS * 200
    files: int = MAX_FILES


def limits_for(links: int, devices: int = 0) -> CaptureLimits:
    """The caps for captures of a design with ``links`` links and ``devices`` devices."""
    return CaptureLimits(
        file_bytes=max(MAX_FILE_BYTES, BYTES_PER_LINK * links),
        records=max(MAX_RECORDS, RECORDS_PER_LINK * links),
        folder_bytes=max(MAX_RECORDS * 200, 2 * BYTES_PER_LINK * links),
        files=max(MAX_FILES, FILES_PER_DEVICE * devices),
    )


def limits_of(design: Design) -> CaptureLimits:
    """The caps for captures checked against ``design``: the one place the window and
    the command read its sizes from (passing the links alone left the file cap fixed)."""
    return limits_for(len(design.links), len(design.index.devices))


@dataclass(frozen=True)
class CaptureRead:
    """What a folder held: the records, ready for the design, and the files read."""

    captures: tuple[CapturedLink, ...]
    files: tuple[tuple[str, str, int], ...]  # (file name, format, records)
    import_id: str


def capture_files(folder: Path, most: int = MAX_FILES) -> list[Path]:
    """The folder's capture files, sorted by name; CaptureError when it is no folder, or
    holds more than ``most`` of them (told as soon as one more is listed, not after
    listing a hostile folder's millions)."""
    if not folder.is_dir():
        raise CaptureError(str(folder), None, "not a folder of captures")
    files = []
    for p in folder.iterdir():
        if p.is_file() and not p.name.startswith(".") and p.suffix.lower() not in _SKIPPED_SUFFIXES:
            files.append(p)
            if len(files) > most:
                raise CaptureError(str(folder), None, f"more than {most:,} capture files")
    files.sort()
    if not files:
        raise CaptureError(str(folder), None, "holds no capture files")
    return files


def read_folder(
    folder: Path,
    *,
    who: str,
    now: str,
    progress: Progress | None = None,
    limits: CaptureLimits | None = None,
) -> CaptureRead:
    """Every capture in ``folder`` as design records of one import, or CaptureError.

    ``progress(fraction, "NAME (SIZE), file N of M")`` is told before each file, the
    fraction the share of the folder read so far, by bytes and :data:`FILE_WEIGHT` a
    file (a whole-fabric capture of 1,000,000 GPUs is one 619 MiB ibnetdiscover file
    beside 26,000 small LLDP tables, read in ~100 s and ~45 s),
    and ``progress(1.0, "")`` after the last; it may raise to stop the read, which
    changes nothing (the window's Cancel).
    ``limits``: the caps, from :func:`limits_for` the design (the fixed floors without).
    The sizes of every file are checked against them before any is parsed.
    """
    limits = limits or CaptureLimits()
    import_id = f"asbuilt-{now}-{uuid.uuid4().hex[:8]}"
    captures: list[CapturedLink] = []
    files: list[tuple[str, str, int]] = []
    paths = capture_files(folder, limits.files)
    sizes = _check_sizes(folder, paths, limits)
    whole = sum(sizes) + FILE_WEIGHT * len(paths) or 1
    read = 0
    for done, (path, size) in enumerate(zip(paths, sizes, strict=True)):
        if progress is not None:
            what = f"{shown_name(path.name)} ({_size(size)}), file {done + 1:,} of {len(paths):,}"
            progress(read / whole, what)
        read += size + FILE_WEIGHT
        fmt, seen = read_file(path, limits.file_bytes)
        if len(captures) + len(seen) > limits.records:
            raise CaptureError(
                str(path), None, f"the folder holds more than {limits.records:,} records"
            )
        at = _mtime(path)
        captures.extend(
            CapturedLink(shown_name(path.name), s.line, fmt, s.local_device, s.local_port, s.remote_device,
                         s.remote_port, s.speed_gbps, s.width, at, now, who, import_id)
            for s in seen
        )  # fmt: skip
        files.append((shown_name(path.name), fmt, len(seen)))
    if progress is not None:
        progress(1.0, "")
    return CaptureRead(tuple(captures), tuple(files), import_id)


#: What a file costs to read beside its bytes, in bytes: ~1 ms each, where a MiB of
#: ibnetdiscover text takes ~0.16 s (the 1,000,000-GPU capture above).
FILE_WEIGHT = 8 << 10


def _size(size: int) -> str:
    """A file's size for a progress label: "619 MiB", "3 KiB"."""
    if size >= 2**20:
        return f"{size / 2**20:,.0f} MiB"
    return f"{max(1, round(size / 2**10)):,} KiB"


def _check_sizes(folder: Path, paths: list[Path], limits: CaptureLimits) -> list[int]:
    """Each file's size (0 where it cannot be asked); refuse a file or a folder too big
    for the design before parsing anything (a whole-fabric read takes minutes; finding
    out at its end helps nobody)."""
    total = 0
    sizes = []
    for path in paths:
        try:
            size = path.stat().st_size
        except OSError:
            sizes.append(0)
            continue  # read_file words what cannot be read
        sizes.append(size)
        if size > limits.file_bytes:
            raise CaptureError(
                str(path),
                None,
                f"{size / 2**20:,.0f} MiB; a capture of this design is at most "
                f"{limits.file_bytes / 2**20:,.0f} MiB",
            )
        total += size
    if total > limits.folder_bytes:
        raise CaptureError(
            str(folder),
            None,
            f"the captures add up to {total / 2**20:,.0f} MiB; those of this design are at "
            f"most {limits.folder_bytes / 2**20:,.0f} MiB",
        )
    return sizes


def read_file(path: Path, max_bytes: int = MAX_FILE_BYTES) -> tuple[str, list[Seen]]:
    """(format, records) of one capture file; CaptureError naming file and line."""
    text = read_text(path, max_bytes)
    fmt, parse = detect(str(path), text)
    lines = split_lines(str(path), text)
    return fmt, parse(str(path), lines, path.name)


def read_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The file as text, refusing what is too big or not UTF-8 before parsing."""
    try:
        data = read_bounded(path, max_bytes)  # regular files only, never blocks
    except ReadRefused as exc:
        raise CaptureError(str(path), None, str(exc)) from None
    except OSError as exc:
        raise CaptureError(str(path), None, f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CaptureError(str(path), line, "text that is not UTF-8") from None


def split_lines(where: str, text: str) -> list[str]:
    """Lines without their endings; CaptureError at the first one past the limit."""
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE_CHARS:
            raise CaptureError(where, number, f"line longer than {MAX_LINE_CHARS} characters")
    return lines


def detect(where: str, text: str) -> tuple[str, Parser]:
    """Which format ``text`` is in, and its parser; CaptureError when none fits."""
    from workbench.asbuilt import ibnet, lldp_json, tables

    head = text.lstrip()
    if head.startswith("{") or head.startswith("["):
        if len(text.encode("utf-8", "surrogatepass")) > MAX_JSON_BYTES:
            raise CaptureError(where, None, f"JSON larger than {MAX_JSON_BYTES >> 20} MiB")
        return "lldpctl-json", lldp_json.parse
    if ibnet.looks_like(text):
        return "ibnetdiscover", ibnet.parse
    found = tables.detect(text)
    if found is not None:
        return found, tables.parser(found)
    raise CaptureError(
        where,
        None,
        "not a capture this workbench reads (ibnetdiscover output, lldpctl -f json, "
        "NVUE 'nv show interface --view=lldp', NCLU 'net show lldp' or SONiC "
        "'show lldp table')",
    )


def _mtime(path: Path) -> str:
    stamp = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).replace(microsecond=0)
    return stamp.isoformat().replace("+00:00", "Z")
