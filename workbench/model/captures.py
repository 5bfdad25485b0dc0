"""As-built captures: the neighbours the installed cluster reported, as the design holds them.

An installer runs ``ibnetdiscover`` on an InfiniBand fabric, ``lldpctl -f json`` on
hosts and switches, or a switch OS's LLDP neighbour table, and drops the outputs into
one folder; ``workbench asbuilt`` (:mod:`workbench.asbuilt`) parses them and the design
keeps what they said, one :class:`CapturedLink` per neighbour line, so the verdicts
(correct, missing, swapped ...) can be worked out again at any time, after the design
changes too, without the capture files.

A record keeps the *capture's own names* (``dgx-001``/``mlx5_0``, ``swp1s0``,
``Ethernet8``, IB port ``17``), not design ids: mapping them onto the design's devices
and catalog ports is the matcher's job and may improve without re-capturing, and a
record whose device the design does not know is exactly what an "unexpected" verdict
must show.

Each ``workbench asbuilt`` run reads the whole folder, so its records *replace* the
design's earlier ones (one import id per run); the design holds the latest as-built
picture, not an ever-growing history of 100,000-link captures.  The replacement is one
edit with an exact inverse, registered like :mod:`workbench.model.acceptance`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.model import keep
from workbench.model.applied import Applied, Edit
from workbench.model.change import Change
from workbench.model.errors import EditError
from workbench.model.records import CapturedLink
from workbench.text_rules import STORED_TEXT, field_problem

if TYPE_CHECKING:
    from workbench.model.design import Design

#: The capture formats a record may come from (see :mod:`workbench.asbuilt.parsers`).
FORMATS: tuple[str, ...] = (
    "ibnetdiscover",
    "lldpctl-json",
    "nvue-lldp",
    "nclu-lldp",
    "sonic-lldp",
)
#: Longest port name kept (interface names are short; 64 leaves room for odd ones).
MAX_PORT_CHARS = STORED_TEXT["captures.local_port"].limit
#: Fastest link a capture may report, Gb/s (far above any real port).
MAX_SPEED_GBPS = 100_000.0
#: Widest link, in lanes (IB 1x..12x, Ethernet up to 8 lanes).
MAX_WIDTH = 64


def check_capture(c: CapturedLink) -> None:
    """EditError (one line, starting with the field's name) for a record the design
    must not hold; the store checks every row read back with it, too."""
    for name in ("source", "local_device", "local_port", "remote_device", "remote_port",
                 "captured_at", "imported_at", "imported_by", "import_id"):  # fmt: skip
        problem = field_problem(f"captures.{name}", getattr(c, name))
        if problem is not None:
            raise EditError(f"{name}: {problem}.")
    if c.format not in FORMATS:
        raise EditError(f"format: {c.format!r} is not one of {', '.join(FORMATS)}.")
    if not _whole(c.line) or c.line < 1:
        raise EditError(f"line: must be a line number from 1, got {c.line!r}.")
    speed = c.speed_gbps
    if speed is not None and (
        isinstance(speed, bool)
        or not isinstance(speed, (int, float))
        or not math.isfinite(speed)
        or not 0 < speed <= MAX_SPEED_GBPS
    ):
        raise EditError(f"speed_gbps: must be a speed above 0 and up to {MAX_SPEED_GBPS:g}, "
                        f"got {speed!r}.")  # fmt: skip
    if c.width is not None and (not _whole(c.width) or not 1 <= c.width <= MAX_WIDTH):
        raise EditError(f"width: must be a lane count from 1 to {MAX_WIDTH}, got {c.width!r}.")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class ReplaceCaptures:
    """Put ``captures`` in place of every record the design holds (one import)."""

    captures: tuple[CapturedLink, ...]


_CHANGE = Change(design=True)


def _replace(design: Design, op: ReplaceCaptures) -> Any:
    imports = {c.import_id for c in op.captures}
    if len(imports) > 1:
        raise EditError("One as-built import replaces the captures with records of one import id.")
    for capture in op.captures:
        try:
            check_capture(capture)
        except EditError as exc:
            raise EditError(f"{capture.where}: capture {exc}") from None
    before = tuple(design.captures)
    design.captures[:] = op.captures
    return _applied(ReplaceCaptures(before))


def _applied(inverse: object) -> Any:
    return Applied(inverse, _CHANGE)


#: This module's edit: how it is carried out and what it can change, gathered by :mod:`workbench.model.ops`.
EDITS: dict[type, Edit] = {ReplaceCaptures: Edit(_replace, keep.captures)}
