"""What every capture parser hands back, and the one error they raise.

A parser turns lines into :class:`Seen` records (the capture's own names, one per
neighbour) and knows nothing of designs; :mod:`workbench.asbuilt.reading` adds the file,
format and times that make them :class:`~workbench.model.captures.CapturedLink`\\ s.
The text checks here are the model's (:func:`workbench.model.names.text_problem`), so a
name a parser accepts is a name the design can store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workbench.model.captures import MAX_PORT_CHARS
from workbench.model.names import MAX_NAME_CHARS, text_problem


class CaptureError(Exception):
    """A capture that cannot be read: one line naming the file (and line) and why."""

    def __init__(self, where: str, line: int | None, problem: str):
        self.where, self.line, self.problem = where, line, problem
        place = where if line is None else f"{where}:{line}"
        super().__init__(f"{place}: {problem}")


@dataclass(frozen=True, slots=True)
class Seen:
    """One neighbour as a capture states it, at ``line`` of its file."""

    line: int
    local_device: str
    local_port: str
    remote_device: str
    remote_port: str
    speed_gbps: float | None = None
    width: int | None = None


#: Per-lane speed of each InfiniBand generation, Gb/s (``4xNDR`` = 4 × 100 = 400G).
IB_LANE_GBPS: dict[str, float] = {
    "SDR": 2.5,
    "DDR": 5.0,
    "QDR": 10.0,
    "FDR10": 10.0,
    "FDR": 14.0,
    "EDR": 25.0,
    "HDR": 50.0,
    "NDR": 100.0,
    "XDR": 200.0,
}

_MAC = re.compile(r"^(?:mac:)?[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}$", re.I)
_SPEED = re.compile(r"^(\d+(?:\.\d+)?)\s*([GM])(?:b(?:/s|ps)?)?$", re.I)


def is_mac(text: str) -> bool:
    """True for a MAC address (``44:38:39:00:00:32``, ``mac:...``): an LLDP port id that
    names no interface."""
    return bool(_MAC.match(text.strip()))


def speed_text(text: str) -> float | None:
    """``400G``, ``1G``, ``100M``, ``25Gbps`` → Gb/s; None for anything else (blank)."""
    match = _SPEED.match(text.strip())
    if match is None:
        return None
    value = float(match.group(1))
    return value if match.group(2).upper() == "G" else value / 1000.0


def ib_rate(width: int, generation: str) -> float | None:
    """``4``, ``NDR`` → 400.0; None for a generation that is not known."""
    lane = IB_LANE_GBPS.get(generation.upper())
    if lane is None:
        return None
    return 56.0 * width / 4 if generation.upper() == "FDR" else lane * width


def checked_name(where: str, line: int, what: str, value: str, *, port: bool = False) -> str:
    """``value`` stripped, or CaptureError when the design could not store it."""
    value = value.strip()
    limit = MAX_PORT_CHARS if port else MAX_NAME_CHARS
    problem = text_problem(value, limit=limit, blank_ok=port and what.startswith("remote"))
    if problem is not None:
        raise CaptureError(where, line, f"{what} {problem}")
    return value
