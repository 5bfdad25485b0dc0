"""The LLDP neighbour tables of the switch OSes the catalog's switches run.

The catalog's Ethernet switches are NVIDIA Spectrum (SN4600, SN5600) and a generic
management switch; Spectrum switches ship with Cumulus Linux or SONiC, so these are
the tables read (Cumulus also runs lldpd, so ``lldpctl -f json`` works there as well;
see :mod:`workbench.asbuilt.lldp_json`):

* **NVUE** (Cumulus Linux 5.x), ``nv show interface --view=lldp``::

      Interface  Speed  Type      Remote Host      Remote Port
      ---------  -----  --------  ---------------  -----------
      swp1       400G   swp       gpu00001         compute0

* **NCLU** (Cumulus Linux 3.x/4.x), ``net show lldp``::

      LocalPort  Speed  Mode          RemoteHost       RemotePort
      ---------  -----  ------------  ---------------  -----------
      swp1       400G   Interface/L3  gpu00001         compute0

* **SONiC**, ``show lldp table`` (no speed column)::

      LocalPort    RemoteDevice    RemotePortID    Capability    RemotePortDescr
      -----------  --------------  --------------  ------------  -----------------
      Ethernet0    gpu00001        compute0        O             compute0

Columns are cut where the dashed line under the header puts them (values never
contain the double space that separates columns, but may be blank, as the Type of
``lo``).  The table does not name the switch it was taken on: a shell prompt in the
file (``cumulus@leaf01:mgmt:~$ nv show ...``, ``admin@leaf01:~$ show lldp table``)
does; without one, the file's name up to the first dot (``leaf01.txt``).  Rows whose
remote host is blank (no neighbour) are skipped; a remote port that is only a MAC
address (``mac:44:38:...``, a host that sends no interface name) is kept as unknown.
Any other line between the header and the end of the table ends the read with its
line number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from workbench.asbuilt.lldp_json import host_of
from workbench.asbuilt.seen import CaptureError, Seen, checked_name, is_mac, speed_text


@dataclass(frozen=True)
class TableFormat:
    """Which header columns hold the fields, by their header text."""

    name: str
    local: str
    remote_host: str
    remote_port: str
    speed: str | None = None
    #: A column to fall back on when the remote port is only a MAC address.
    remote_descr: str | None = None


FORMATS: tuple[TableFormat, ...] = (
    TableFormat("nvue-lldp", "Interface", "Remote Host", "Remote Port", "Speed"),
    TableFormat("nclu-lldp", "LocalPort", "RemoteHost", "RemotePort", "Speed"),
    TableFormat("sonic-lldp", "LocalPort", "RemoteDevice", "RemotePortID", None, "RemotePortDescr"),
)
_BY_NAME = {f.name: f for f in FORMATS}
_DASHES = re.compile(r"-+")
_PROMPT = re.compile(r"^[\w.-]+@([A-Za-z0-9][A-Za-z0-9._-]*)[:\s][^$#]*[$#]\s*\S")
_FOOTER = re.compile(r"^(?:-{5,}|Total entries displayed:.*)$")


def _header_index(lines: list[str], fmt: TableFormat) -> int | None:
    """The line index of ``fmt``'s header (a dashed line under it), or None."""
    needed = [fmt.local, fmt.remote_host, fmt.remote_port]
    for i, line in enumerate(lines[:200]):
        cells = re.split(r"\s{2,}", line.strip())
        below = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if below.startswith("-") and all(n in cells for n in needed):
            return i
    return None


def detect(text: str) -> str | None:
    """The table format of ``text`` (by its header line), or None."""
    lines = text[:65536].splitlines()
    for fmt in FORMATS:
        if _header_index(lines, fmt) is not None:
            return fmt.name
    return None


def parser(name: str) -> Callable[[str, list[str], str], list[Seen]]:
    """The parse function for the format called ``name``."""
    fmt = _BY_NAME[name]
    return lambda where, lines, file_name: parse(fmt, where, lines, file_name)


def parse(fmt: TableFormat, where: str, lines: list[str], file_name: str) -> list[Seen]:
    """The neighbours in one table; CaptureError naming the line of the first problem."""
    head = _header_index(lines, fmt)
    if head is None:
        raise CaptureError(where, None, f"no {fmt.name} header line")
    device = _prompt_host(lines[:head]) or host_of(file_name)
    local_device = checked_name(where, head + 1, "device name", device)
    spans = _spans(lines[head + 1])
    header = _cells(lines[head], spans)
    try:
        col = {key: header.index(key) for key in _columns(fmt)}
    except ValueError:
        raise CaptureError(
            where, head + 1, "the header's columns do not line up with the dashes"
        ) from None
    seen: list[Seen] = []
    for number in range(head + 3, len(lines) + 1):
        line = lines[number - 1]
        if not line.strip():
            continue
        if _FOOTER.match(line.strip()):
            break
        cells = _cells(line, spans)
        local = cells[col[fmt.local]]
        if not _aligned(line, spans) or not local or " " in local:
            raise CaptureError(where, number, f"not a row of the table: {line.strip()[:60]!r}")
        remote_host = cells[col[fmt.remote_host]]
        if not remote_host:
            continue  # a port without a neighbour (lo, an empty cage)
        remote_port = cells[col[fmt.remote_port]]
        if is_mac(remote_port) and fmt.remote_descr is not None:
            remote_port = cells[col[fmt.remote_descr]]
        if is_mac(remote_port) or " " in remote_port:
            remote_port = ""
        speed = None
        if fmt.speed is not None:
            text = cells[col[fmt.speed]]
            speed = speed_text(text)
            if text and speed is None:
                raise CaptureError(where, number, f"speed {text!r} is not a speed such as 400G")
        seen.append(
            Seen(
                number,
                local_device,
                checked_name(where, number, "local port", local, port=True),
                checked_name(where, number, "remote host", remote_host),
                checked_name(where, number, "remote port", remote_port, port=True),
                speed,
            )
        )
    return seen


def _columns(fmt: TableFormat) -> list[str]:
    keys = [fmt.local, fmt.remote_host, fmt.remote_port]
    return keys + [k for k in (fmt.speed, fmt.remote_descr) if k is not None]


def _spans(dashes: str) -> list[tuple[int, int]]:
    """(start, end) of each column, from the dashed line; the last runs to the line end."""
    runs = [(m.start(), m.end()) for m in _DASHES.finditer(dashes)]
    return [(start, runs[i + 1][0] if i + 1 < len(runs) else 1 << 30)
            for i, (start, _end) in enumerate(runs)]  # fmt: skip


def _aligned(line: str, spans: list[tuple[int, int]]) -> bool:
    """True when no value runs across a column boundary (each column starts after a
    space), which is what tells a row of the table from other text."""
    return all(start >= len(line) or line[start - 1] == " " for start, _ in spans[1:])


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    return [line[start:end].strip() for start, end in spans]


def _prompt_host(lines: list[str]) -> str | None:
    """The host of the last shell prompt before the table (``user@HOST:...$ cmd``)."""
    host = None
    for line in lines:
        match = _PROMPT.match(line.strip())
        if match:
            host = match.group(1)
    return host
