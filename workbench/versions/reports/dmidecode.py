"""``dmidecode -t bios``: the system firmware (BIOS/UEFI) release.

Only ``Version`` of the "BIOS Information" structure (SMBIOS type 0) is recorded, as the
bios layer: it is the string vendors publish releases under.  ``BIOS Revision`` is the
SMBIOS major.minor pair the firmware fills in (often unrelated to the release name), and
``Firmware Revision`` is the *embedded controller* firmware (SMBIOS type 0 offsets
16h-17h), not the BMC: recording it as ``bmc`` would compare the wrong chip, so neither
is recorded.  The BMC's release comes from ``ipmitool mc info`` or Redfish, which this
package does not read yet.
"""

from __future__ import annotations

from workbench.versions.reports.base import (
    Reading,
    ReportError,
    check_value,
    is_missing,
    report_lines,
)

NAME = "dmidecode-bios"
LABEL = "dmidecode -t bios"
COMMAND = "dmidecode -t bios"

_SECTION = "BIOS Information"


def looks_like(text: str) -> bool:
    """dmidecode's banner, or a Handle line followed by BIOS Information."""
    head = text.lstrip("\r\n")
    return head.startswith("# dmidecode") or (
        head.startswith("Handle 0x") and f"\n{_SECTION}" in head
    )


def parse(text: str, file: str) -> list[Reading]:
    """The bios layer."""
    lines = report_lines(text, file)
    for number, line in enumerate(lines, start=1):
        if line.startswith("# No SMBIOS"):
            raise ReportError(file, number, "dmidecode found no SMBIOS data on that node")
    sections = [n for n, line in enumerate(lines, start=1) if line.strip() == _SECTION]
    if not sections:
        raise ReportError(file, 1, f"has no '{_SECTION}' section (collect it with {COMMAND})")
    if len(sections) > 1:
        raise ReportError(file, sections[1], f"has a second '{_SECTION}' section")
    start = sections[0]
    end = start
    for number in range(start + 1, len(lines) + 1):
        line = lines[number - 1]
        if not line.strip() or not line[:1].isspace():
            break
        end = number
        key, colon, value = line.strip().partition(":")
        if colon and key == "Version":
            value = value.strip()
            if is_missing(value):
                raise ReportError(file, number, "the BIOS Version is not filled in")
            return [Reading("bios", check_value(file, number, "BIOS version", value), number)]
    raise ReportError(
        file, end, f"the '{_SECTION}' section has no Version line: the file looks cut off"
    )
