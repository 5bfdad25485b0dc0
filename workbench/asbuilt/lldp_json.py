"""``lldpctl -f json`` (lldpd 1.0.x): the LLDP neighbours of one host or switch.

lldpd's "json" writer folds lists of one element into the element itself, so the
shapes differ with the count: ``lldp.interface`` is an object ``{"swp1": {...}}`` when
one port has a neighbour and a list ``[{"swp1": {...}}, {"swp2": {...}}]`` when several
do; ``chassis`` is ``{"NAME": {...}}`` when the neighbour sends a system name and the
bare ``{"id": ...}`` when it does not; a port's ``id`` is ``{"type": "ifname", "value":
"swp1"}`` or only a MAC address (then ``descr``, which Linux hosts fill with the
interface name, is used).  An empty ``lldp`` (``{"lldp": {}}``) means no neighbours.
Speed comes from the port's ``auto-negotiation.current`` MAU type (``400GbaseCR8 -
...``, ``10GigBaseLR - ...``, ``1000BaseTFD - ...``).

The file does not name the device it was taken on (that is ``lldpcli show chassis``),
so its name is the file's: ``leaf01.json`` (or ``leaf01.lldp.json``) was captured on
``leaf01``.  JSON carries no line per value; each record's line is where its interface
name stands in the file, found by searching forward.
"""

from __future__ import annotations

import json
import re
from typing import Any

from workbench.asbuilt.seen import CaptureError, Seen, checked_name, is_mac

_MAU = re.compile(r"^(\d+(?:\.\d+)?)(G|Gig)?Base", re.I)
#: Most interfaces one file may list (a switch has at most a few hundred ports).
MAX_INTERFACES = 4096


def host_of(file_name: str) -> str:
    """The device a capture file was taken on: its name up to the first dot."""
    return file_name.split(".", 1)[0]


def parse(where: str, lines: list[str], name: str) -> list[Seen]:
    """The neighbours in one ``lldpctl -f json`` file; CaptureError with file:line."""
    text = "\n".join(lines)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaptureError(where, exc.lineno, f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise CaptureError(where, None, "JSON nested too deeply") from None
    if not isinstance(data, dict) or "lldp" not in data:
        raise CaptureError(where, 1, 'not lldpctl -f json output: no "lldp" object')
    lldp = data["lldp"]
    if isinstance(lldp, list):
        raise CaptureError(where, 1, "lldpctl -f json0 output: capture with lldpctl -f json")
    if not isinstance(lldp, dict):
        raise CaptureError(where, 1, '"lldp" is not an object')
    local = checked_name(where, 1, "device name (from the file name)", host_of(name))
    entries = _interfaces(where, lldp.get("interface", []))
    finder = _LineFinder(text)
    seen: list[Seen] = []
    for ifname, body in entries:
        line = finder.line_of(ifname)
        if not isinstance(body, dict):
            raise CaptureError(where, line, f"interface {ifname!r} is not an object")
        for chassis_name, port in _neighbours(where, line, ifname, body):
            seen.append(
                Seen(
                    line,
                    local,
                    checked_name(where, line, "local port", ifname, port=True),
                    checked_name(where, line, "remote system name", chassis_name),
                    checked_name(where, line, "remote port", _port_name(port), port=True),
                    _speed(port),
                )
            )
    return seen


def _interfaces(where: str, value: Any) -> list[tuple[str, Any]]:
    """``(name, body)`` of each interface, from either of lldpd's shapes."""
    items = value if isinstance(value, list) else [value]
    out: list[tuple[str, Any]] = []
    for item in items:
        if not isinstance(item, dict):
            raise CaptureError(where, None, '"lldp.interface" holds something other than objects')
        out.extend(item.items())
        if len(out) > MAX_INTERFACES:
            raise CaptureError(where, None, f"more than {MAX_INTERFACES} interfaces")
    return out


def _neighbours(where: str, line: int, ifname: str, body: dict[str, Any]) -> list[tuple[str, Any]]:
    """(system name, port object) of the neighbour(s) on one interface."""
    chassis, port = body.get("chassis"), body.get("port")
    if not isinstance(chassis, dict) or not isinstance(port, dict):
        raise CaptureError(where, line, f"interface {ifname!r} lacks its chassis or port object")
    if "id" in chassis and isinstance(chassis["id"], dict):
        # No system name sent: the chassis id (a MAC address, mostly) is all there is.
        name = chassis.get("name") or chassis["id"].get("value")
        if not isinstance(name, str):
            raise CaptureError(where, line, f"interface {ifname!r}: chassis has no name or id")
        return [(name, port)]
    if len(chassis) != 1:
        raise CaptureError(where, line, f"interface {ifname!r}: chassis is not one named system")
    ((name, _details),) = chassis.items()
    return [(name, port)]


def _port_name(port: dict[str, Any]) -> str:
    """The neighbour's interface name: its port id when that is a name, else ``descr``;
    "" when neither names an interface."""
    ident = port.get("id")
    value = ident.get("value") if isinstance(ident, dict) else None
    kind = ident.get("type") if isinstance(ident, dict) else None
    descr = port.get("descr")
    if isinstance(value, str) and kind in ("ifname", "ifalias", "local") and not is_mac(value):
        return value
    if isinstance(descr, str) and descr.strip() and not is_mac(descr) and " " not in descr.strip():
        return descr
    return ""


def _speed(port: dict[str, Any]) -> float | None:
    """Gb/s from the port's current MAU type, None when it is not reported."""
    auto = port.get("auto-negotiation")
    current = auto.get("current") if isinstance(auto, dict) else None
    if not isinstance(current, str):
        return None
    match = _MAU.match(current.strip())
    if match is None:
        return None
    value = float(match.group(1))
    return value if match.group(2) else value / 1000.0


class _LineFinder:
    """Line numbers of successive interface names, searching forward once overall."""

    def __init__(self, text: str):
        self.text, self.pos, self.line = text, 0, 1

    def line_of(self, name: str) -> int:
        found = self.text.find(json.dumps(name, ensure_ascii=False), self.pos)
        if found < 0:
            return self.line
        self.line += self.text.count("\n", self.pos, found)
        self.pos = found
        return self.line
