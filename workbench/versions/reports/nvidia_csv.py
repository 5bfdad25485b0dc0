"""``nvidia-smi --query-gpu=... --format=csv``: one header line, one row per GPU.

The header is what makes this format readable at all: the columns are whatever the
collecting script asked for, in its order, so ``--format=csv,noheader`` output is refused
rather than guessed at (a row of a driver and a VBIOS version looks the same either way
round).  ``nounits`` is fine: the header still names the unit and the values are bare.
"""

from __future__ import annotations

import csv
import re

from workbench.versions.reports.base import (
    Reading,
    ReportError,
    combine,
    is_missing,
    quantity,
    report_lines,
    serial_list,
    snippet,
)

NAME = "nvidia-smi-csv"
LABEL = "nvidia-smi --query-gpu CSV"
COMMAND = (
    "nvidia-smi --query-gpu=index,name,driver_version,vbios_version,serial,"
    "memory.total,power.limit --format=csv"
)

#: Column → the layer it feeds (None: read but not recorded) and the unit nvidia-smi
#: puts in its header.  Only these columns are accepted: a CSV asking for other fields
#: is some other script's output, and reading part of it would hide that.
COLUMNS: dict[str, tuple[str | None, str | None]] = {
    "index": (None, None),
    "name": ("gpu_model", None),
    "driver_version": ("driver", None),
    "vbios_version": ("vbios", None),
    "serial": ("gpu_serials", None),
    "memory.total": ("gpu_memory_mib", "MiB"),
    "power.limit": ("gpu_power_limit_w", "W"),
    "uuid": (None, None),
    "pci.bus_id": (None, None),
}

_HEADER_FIELD = re.compile(r"^([a-z][a-z0-9_.]*)(?: \[([^\]]*)\])?$")


def looks_like(text: str) -> bool:
    """A first line with a comma, or one made only of nvidia-smi style field names."""
    first = text.lstrip("\r\n").split("\n", 1)[0].strip()
    if "," in first:
        return True
    return bool(_HEADER_FIELD.match(first)) and first.split(" [")[0] in COLUMNS


def _header(file: str, number: int, line: str) -> list[str]:
    """The column names of the header line (units checked, then dropped)."""
    names: list[str] = []
    for field in (part.strip() for part in line.split(",")):
        match = _HEADER_FIELD.match(field)
        if match is None:
            raise ReportError(
                file,
                number,
                f"line {number} ({snippet(line)}) is not an nvidia-smi CSV header; output "
                "made with --format=csv,noheader cannot be read because its columns cannot "
                f"be known: collect it with {COMMAND}",
            )
        name, unit = match.group(1), match.group(2)
        if name not in COLUMNS:
            raise ReportError(
                file,
                number,
                f"column {name!r} is not one the workbench reads; it reads "
                f"{', '.join(COLUMNS)} (collect with {COMMAND})",
            )
        if name in names:
            raise ReportError(file, number, f"column {name!r} appears twice in the header")
        expected = COLUMNS[name][1]
        if unit is not None and unit != expected:
            raise ReportError(
                file, number, f"column {name!r} is in [{unit}]; the workbench expects [{expected}]"
            )
        names.append(name)
    if all(COLUMNS[name][0] is None for name in names):
        raise ReportError(
            file, number, f"the header names no column with a version or GPU figure: {line.strip()}"
        )
    return names


def parse(text: str, file: str) -> list[Reading]:
    """Driver, GPU model(s), count, VBIOS, memory, power limit and serials of one node."""
    lines = report_lines(text, file)
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise ReportError(file, 1, "is empty")
    header_line, header_text = numbered[0]
    names = _header(file, header_line, header_text)
    rows = numbered[1:]
    if not rows:
        raise ReportError(file, header_line, "has a header but no GPU rows")
    table: list[tuple[int, list[str]]] = []
    for number, line in rows:
        try:
            fields = next(csv.reader([line], skipinitialspace=True))
        except csv.Error as exc:  # a carriage return inside a quoted value, say
            raise ReportError(file, number, f"is not a CSV row ({exc})") from None
        if len(fields) != len(names):
            raise ReportError(
                file,
                number,
                f"has {len(fields)} values; the header on line {header_line} names "
                f"{len(names)} columns",
            )
        table.append((number, fields))
    # Column by column, each distinct text converted once: a node's GPUs mostly agree.
    found: dict[str, list[tuple[str, int | None]]] = {}
    missing_serial = False
    for column, name in enumerate(names):
        layer, unit = COLUMNS[name]
        if name == "index":
            for number, fields in table:
                if not fields[column].strip().isdigit():
                    raise ReportError(
                        file, number, f"GPU index {fields[column].strip()!r} is not a number"
                    )
        if layer is None:
            continue
        converted: dict[str, str] = {}  # raw text → value ("" when missing)
        for number, fields in table:
            raw = fields[column]
            value = converted.get(raw)
            if value is None:
                text = raw.strip()
                if is_missing(text):
                    value = ""
                else:
                    value = quantity(file, number, name, text, unit) if unit else text
                converted[raw] = value
            if value:
                found.setdefault(layer, []).append((value, number))
            else:
                missing_serial = missing_serial or layer == "gpu_serials"
    readings = [Reading("gpu_count", str(len(rows)), header_line)]
    for layer, values in found.items():
        if layer != "gpu_serials":
            readings.append(combine(file, layer, values))
        elif not missing_serial:  # a partial list would read as a changed set of boards
            readings.append(serial_list(file, values))
    return readings
