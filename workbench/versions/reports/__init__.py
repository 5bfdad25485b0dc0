"""Readers for what nodes report about themselves: nvidia-smi, uname, ethtool, ibstat,
dmidecode.

Collection scripts name their files however they like (``nvsmi.out``, ``gpu.xml``,
``node17.txt``), so the format is recognised from the *content*, never the file name:
:func:`detect` tries each format's cheap ``looks_like`` test in a fixed order, most
distinctive first, and the chosen parser then checks the file properly and says exactly
what is wrong.  Every reader returns :class:`Reading` (layer, value, 1-based line) and
raises :class:`ReportError` (file, line, message) for anything it cannot vouch for: a
file cut off mid-line, binary data, another tool's XML or CSV, an empty file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from workbench.versions.reports import dmidecode, ethtool, ibstat, nvidia_csv, nvidia_xml, uname
from workbench.versions.reports.base import (
    MAX_REPORT_BYTES,
    MIXED_JOIN,
    Reading,
    ReportError,
    first_content_line,
    snippet,
)

__all__ = [
    "FORMATS",
    "MAX_REPORT_BYTES",
    "MIXED_JOIN",
    "Reading",
    "ReportError",
    "ReportFormat",
    "decode_report",
    "detect",
    "read_report",
]


@dataclass(frozen=True)
class ReportFormat:
    """One kind of report: its key, how it is shown, the command that makes it, and
    its recognise/read functions."""

    name: str
    label: str
    command: str
    looks_like: Callable[[str], bool]
    parse: Callable[[str, str], list[Reading]]


def _format(module: ModuleType) -> ReportFormat:
    return ReportFormat(module.NAME, module.LABEL, module.COMMAND, module.looks_like, module.parse)


#: In the order :func:`detect` tries them: XML by its first character, then the formats
#: with a distinctive first line, then CSV (any comma on line 1), then ``uname -r``,
#: whose shape is the least specific.
FORMATS: tuple[ReportFormat, ...] = tuple(
    _format(module) for module in (nvidia_xml, dmidecode, ibstat, ethtool, nvidia_csv, uname)
)


def decode_report(data: bytes, file: str) -> str:
    """The text of a report file, or ReportError when it is not a tool's text output.

    Checked here, once for all formats: size, NUL bytes (binary data, or UTF-16 text as
    PowerShell's ``>`` writes it), UTF-8, and emptiness.  A UTF-8 byte-order mark is
    dropped.
    """
    if len(data) > MAX_REPORT_BYTES:
        raise ReportError(
            file,
            None,
            f"is {len(data) / 1048576:.1f} MB; node reports are at most "
            f"{MAX_REPORT_BYTES // 1048576} MB, so this is not one",
        )
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ReportError(file, 1, "is UTF-16 text (as PowerShell's '>' writes); save it as UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        raise ReportError(
            file,
            data.count(b"\n", 0, nul) + 1,
            "contains NUL bytes: binary data, not a tool's text output",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReportError(
            file,
            data.count(b"\n", 0, error.start) + 1,
            f"is not UTF-8 text (byte 0x{data[error.start]:02x} cannot start a character): "
            "binary data or another encoding",
        ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ReportError(file, 1, "is empty")
    return text


def detect(text: str, file: str = "<report>") -> ReportFormat:
    """The format of ``text``, recognised from its content; ReportError when none fits."""
    if not text.strip():
        raise ReportError(file, 1, "is empty")
    for report_format in FORMATS:
        if report_format.looks_like(text):
            return report_format
    first = first_content_line(text.split("\n", 20)[:20])
    number, line = first if first is not None else (1, "")
    raise ReportError(
        file,
        number,
        f"is not a report the workbench reads (line {number}: {snippet(line)}); it reads "
        + "; ".join(f.label for f in FORMATS),
    )


def read_report(data: bytes, file: str) -> tuple[ReportFormat, list[Reading]]:
    """Decode, recognise and parse one report file's bytes."""
    text = decode_report(data, file)
    report_format = detect(text, file)
    return report_format, report_format.parse(text, file)
