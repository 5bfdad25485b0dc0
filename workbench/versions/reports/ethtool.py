"""``ethtool -i <interface>``: the driver and firmware behind one network interface.

``firmware-version`` often carries the board's PSID after the release, as in
``28.39.2048 (MT_0000000838)``; the part in parentheses is dropped so the value is the
firmware release alone and equals what ``ibstat`` reports for the same adapter.
``nic_driver`` is the driver name and its version (``mlx5_core 24.04-0.6.6``): the name
alone would not show a driver upgrade, the version alone not a driver swap.
"""

from __future__ import annotations

import re

from workbench.versions.reports.base import (
    Reading,
    ReportError,
    check_value,
    is_missing,
    report_lines,
    snippet,
)

NAME = "ethtool-i"
LABEL = "ethtool -i"
COMMAND = "ethtool -i <interface>"

_PSID = re.compile(r"\s*\([^()]*\)$")


def looks_like(text: str) -> bool:
    """Starts with ``driver:``, as ethtool -i output always does."""
    return text.lstrip("\r\n").startswith("driver:")


def parse(text: str, file: str) -> list[Reading]:
    """nic_driver and nic_firmware."""
    lines = report_lines(text, file)
    fields: dict[str, tuple[str, int]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        if not colon or not key or key != key.strip():
            raise ReportError(
                file, number, f"{snippet(line)} is not a 'key: value' line of ethtool -i"
            )
        if key in fields:
            raise ReportError(file, number, f"{key!r} appears twice (two reports in one file?)")
        fields[key] = (value.strip(), number)
    if "driver" not in fields or not fields["driver"][0]:
        raise ReportError(file, 1, "has no driver line: not ethtool -i output")
    if "bus-info" not in fields:
        # ethtool prints bus-info after the versions and before the supports-* lines;
        # without it the copy stopped early, and a missing version would read as new.
        raise ReportError(file, len(lines), "has no bus-info line: the file looks cut off")
    driver, driver_line = fields["driver"]
    version, _ = fields.get("version", ("", driver_line))
    nic_driver = driver if is_missing(version) else f"{driver} {version}"
    readings = [
        Reading("nic_driver", check_value(file, driver_line, "driver", nic_driver), driver_line)
    ]
    firmware, firmware_line = fields.get("firmware-version", ("", driver_line))
    firmware = _PSID.sub("", firmware)
    if not is_missing(firmware):
        readings.append(
            Reading(
                "nic_firmware",
                check_value(file, firmware_line, "firmware", firmware),
                firmware_line,
            )
        )
    return readings
