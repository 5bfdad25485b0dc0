"""Reading an imported file without trusting it: the one way every importer opens input.

Import folders come from other people's machines (a NetBox export, nodes' reports, an
acceptance run, switch captures, catalog files), so a file may be anything:

- **only regular files are read.**  The file is opened with ``O_NONBLOCK`` (opening a
  FIFO for reading then returns at once instead of waiting for a writer) and judged by
  ``fstat`` on the open descriptor, so a FIFO, a socket, ``/dev/zero`` or a symlink to
  any of them is refused without blocking, and a file swapped after a folder scan is
  judged as it is when read;
- **sizes are checked while reading**, not only by ``fstat``: the reader counts the
  bytes it hands out and stops one past the cap, so a file that grows meanwhile (or a
  device reporting size 0) cannot get round it;
- **memory follows the input**: :func:`open_text` streams (a CSV reader over it holds
  one row at a time), and :func:`read_bounded` holds at most ``limit + 1`` bytes.

Every failure is a :class:`ReadRefused` (or the OSError of opening) whose text is the
problem without the path; importers put it after their own file name, so messages stay
one line in each importer's words.  Qt-free and import-free: every layer may use it.
"""

from __future__ import annotations

import io
import os
import stat
from typing import BinaryIO, TextIO

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class ReadRefused(Exception):
    """The file is not one to read (not regular, or over its cap); ``str()`` is the
    problem, without the path."""


class _Capped(io.RawIOBase):
    """A descriptor's bytes that refuse to go past ``limit``."""

    def __init__(self, fd: int, limit: int) -> None:
        super().__init__()
        self._fd, self._limit, self._count = fd, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = os.read(self._fd, len(buffer))
        got = len(data)
        buffer[:got] = data
        self._count += got
        if self._count > self._limit:
            raise ReadRefused(too_big(self._limit))
        return got

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


def too_big(limit: int) -> str:
    return f"larger than the {limit:,}-byte limit"


def open_regular(path: str | os.PathLike[str], limit: int) -> BinaryIO:
    """``path`` opened for reading if it is a regular file at most ``limit`` bytes long
    (checked again while reading).  ReadRefused otherwise; OSError from the OS as is
    (IsADirectoryError for a folder)."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, os.strerror(21), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise ReadRefused("not a regular file (a pipe, socket or device)")
        if info.st_size > limit:
            raise ReadRefused(too_big(limit))
    except BaseException:
        os.close(fd)
        raise
    return io.BufferedReader(_Capped(fd, limit))


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (see the module
    docstring); ReadRefused or OSError otherwise."""
    with open_regular(path, limit) as handle:
        return handle.read()


def open_text(path: str | os.PathLike[str], limit: int) -> TextIO:
    """``path`` as UTF-8 text (a leading BOM dropped, line ends left to the caller:
    ``newline=""`` as the csv module wants), streamed within ``limit`` bytes.  A byte
    that is not UTF-8 raises UnicodeDecodeError while reading; :func:`bad_utf8_line`
    says on which line."""
    return io.TextIOWrapper(open_regular(path, limit), encoding="utf-8-sig", newline="")


def bad_utf8_line(path: str | os.PathLike[str], limit: int) -> int | None:
    """The line of the first byte of ``path`` that is not UTF-8 (None when all are)."""
    data = read_bounded(path, limit)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data[: exc.start].count(b"\n") + 1
    return None


def shown_name(name: str) -> str:
    """A file name as text a design can keep and a message can print: a name whose
    bytes are not UTF-8 (which Python hands over with lone surrogates) gets its bad
    bytes written ``\\xff``, so it names the file without making the design unsaveable."""
    try:
        raw = os.fsencode(name)
    except UnicodeEncodeError:  # a surrogate no file system produced
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def decode_utf8(data: bytes) -> str:
    """``data`` as text (BOM dropped); UnicodeDecodeError as from ``bytes.decode``, whose
    line :func:`utf8_error_line` gives."""
    return data.decode("utf-8-sig")


def utf8_error_line(data: bytes, exc: UnicodeDecodeError) -> int:
    """The 1-based line of ``data`` holding the byte ``exc`` complains about."""
    return data[: exc.start].count(b"\n") + 1


__all__ = [
    "ReadRefused",
    "bad_utf8_line",
    "decode_utf8",
    "open_regular",
    "open_text",
    "read_bounded",
    "shown_name",
    "too_big",
    "utf8_error_line",
]
