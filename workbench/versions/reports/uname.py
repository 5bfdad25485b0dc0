"""``uname -r``: the running kernel's release, one line (``5.15.0-105-generic``).

Recognised by shape alone, so the shape is strict: one line, starting with
``major.minor`` and made of the characters kernel release strings use.  ``uname -a`` (which
starts with ``Linux`` and the host name) is not this format.
"""

from __future__ import annotations

import re

from workbench.versions.reports.base import (
    Reading,
    ReportError,
    check_value,
    first_content_line,
    report_lines,
    snippet,
)

NAME = "uname-r"
LABEL = "uname -r"
COMMAND = "uname -r"

_RELEASE = re.compile(r"^\d+\.\d+[0-9A-Za-z.+_~-]*$")


def looks_like(text: str) -> bool:
    """The first non-blank line is shaped like a kernel release (more lines are then
    refused by :func:`parse`, saying so)."""
    first = first_content_line(text.split("\n", 8)[:8])
    return first is not None and bool(_RELEASE.match(first[1].strip()))


def parse(text: str, file: str) -> list[Reading]:
    """The kernel layer."""
    lines = report_lines(text, file)
    content = [(n, line.strip()) for n, line in enumerate(lines, start=1) if line.strip()]
    if not content:
        raise ReportError(file, 1, "is empty")
    if len(content) > 1:
        raise ReportError(file, content[1][0], f"has {len(content)} lines; uname -r prints one")
    number, release = content[0]
    if not _RELEASE.match(release):
        raise ReportError(file, number, f"{snippet(release)} is not a kernel release")
    return [Reading("kernel", check_value(file, number, "kernel release", release), number)]
