"""The as-built cluster against the design (Qt-free).

Installers capture what the cabled cluster reports (``ibnetdiscover``, ``lldpctl -f
json``, a switch OS's LLDP table) into one folder; :func:`read_folder` parses it into
the records a design keeps (:class:`~workbench.model.captures.CapturedLink`), and
:func:`check` / :func:`verdicts` say, for every design link, whether it was built as
designed.  ``workbench asbuilt`` (:mod:`workbench.cli.asbuilt_cmd`), the as-built sheet
(:mod:`workbench.export.asbuilt_sheet`) and the Fabric view all use these.

For a view that marks wrong links::

    from workbench import asbuilt
    marks = asbuilt.verdicts(design)          # {link id: Verdict}, from design.captures
    bad = {lid for lid, v in marks.items() if v.verdict in asbuilt.DISCREPANCIES}

``verdicts`` is empty when the design holds no captures; recompute it after an edit
that changes links, devices' names or ``design.captures`` (it takes well under a second
for 100,000 links).
"""

from __future__ import annotations

from workbench.asbuilt.matcher import DISCREPANCIES, VERDICTS, Verdict, check
from workbench.asbuilt.reading import (
    CaptureLimits,
    CaptureRead,
    limits_for,
    limits_of,
    read_file,
    read_folder,
)
from workbench.asbuilt.report import Totals, totals
from workbench.asbuilt.seen import CaptureError
from workbench.model.design import Design

__all__ = [
    "DISCREPANCIES",
    "VERDICTS",
    "CaptureError",
    "CaptureRead",
    "Totals",
    "Verdict",
    "check",
    "read_file",
    "read_folder",
    "CaptureLimits",
    "limits_for",
    "limits_of",
    "totals",
    "verdicts",
]


def verdicts(design: Design) -> dict[str, Verdict]:
    """Design link id → its verdict from the captures the design holds; ``{}`` when it
    holds none (nothing was captured, so nothing is marked)."""
    if not design.captures:
        return {}
    return {v.link_id: v for v in check(design) if v.link_id is not None}
