"""``ibstat``: every InfiniBand/RoCE adapter (CA) of a node, its type and firmware.

A node has several CAs (eight compute adapters and one or two for storage is common),
and the version matrix has one cell per node and layer.  So the CAs' types and firmware
releases are each recorded as one value: the distinct ones, sorted, joined with `` + ``
(``28.39.2048 + 32.39.2048``).  A node whose adapters all agree reads as a single
release; one that mixes them shows the mix, which a baseline pinning one release then
reports as drift, instead of the import keeping whichever CA came last.

``nic_model`` is the CA type as ibstat prints it (``MT4129``, the PCI device id; that is
a ConnectX-7), not a marketing name the workbench would have to guess.
"""

from __future__ import annotations

import re

from workbench.versions.reports.base import (
    Reading,
    ReportError,
    combine,
    first_content_line,
    is_missing,
    report_lines,
    snippet,
)

NAME = "ibstat"
LABEL = "ibstat"
COMMAND = "ibstat"

_CA = re.compile(r"^CA '([^']+)'[ \t]*$", re.MULTILINE)
#: A line that is neither blank, nor indented, nor a CA line: not ibstat's.
_STRAY = re.compile(r"^(?!CA '|[ \t]|$).*$", re.MULTILINE)
_FIELD = re.compile(r"^[ \t]+(CA type|Firmware version):[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def looks_like(text: str) -> bool:
    """The first non-blank line is ``CA 'name'``."""
    first = first_content_line(text.split("\n", 8)[:8])
    return first is not None and bool(_CA.match(first[1]))


def parse(text: str, file: str) -> list[Reading]:
    """nic_model and nic_firmware over all CAs.

    Read with whole-text regular expressions rather than line by line: a node's ibstat
    is a few hundred lines, and 12,500 of them are read in one import.
    """
    report_lines(text, file)  # the cut-off check
    text = text.replace("\r\n", "\n")

    def line_at(offset: int) -> int:
        return text.count("\n", 0, offset) + 1

    stray = _STRAY.search(text)
    if stray is not None:
        raise ReportError(
            file, line_at(stray.start()), f"{snippet(stray.group())} is not part of ibstat output"
        )
    cas = list(_CA.finditer(text))
    if not cas or text[: cas[0].start()].strip():
        raise ReportError(file, 1, "does not start with a CA line: not ibstat output")
    models: list[tuple[str, int | None]] = []
    firmware: list[tuple[str, int | None]] = []
    ends = [ca.start() for ca in cas[1:]] + [len(text)]
    for ca, end in zip(cas, ends, strict=True):
        fields = {m.group(1): m for m in _FIELD.finditer(text, ca.end(), end)}
        if "Firmware version" not in fields:
            raise ReportError(
                file,
                line_at(ca.start()),
                f"CA {ca.group(1)!r} has no 'Firmware version' line: the file looks cut off",
            )
        for key, bucket in (("CA type", models), ("Firmware version", firmware)):
            match = fields.get(key)
            if match is not None and not is_missing(match.group(2)):
                bucket.append((match.group(2), line_at(match.start(2))))
    return [
        combine(file, layer, bucket)
        for layer, bucket in (("nic_model", models), ("nic_firmware", firmware))
        if bucket
    ]
