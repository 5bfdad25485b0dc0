"""The records a design keeps of what the installed cluster reported.

Acceptance results (what the nodes' health checks measured) and as-built captures (what
each port's neighbour said).  Frozen dataclasses and nothing else: the design holds lists
of them and the ops that add or replace them (:mod:`workbench.model.acceptance`,
:mod:`workbench.model.captures`) import them from here, so neither side imports the other
and no import circle runs through ``design.py``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AcceptanceResult:
    """One item measured on one node, from one line of one results file.

    ``measured_at`` is when the node ran it (the file's timestamp), ``imported_at``
    when the design took it in, both ISO 8601 UTC; ``import_id`` groups one import
    (one undo step).
    """

    node: str
    item: str
    measured: str
    verdict: str
    source: str
    line: int | None
    imported_at: str
    imported_by: str
    measured_at: str = ""
    import_id: str = ""

    @property
    def where(self) -> str:
        """``file:line`` for messages and the checklist's "Result from" column."""
        return self.source if self.line is None else f"{self.source}:{self.line}"


@dataclass(frozen=True, slots=True)
class CapturedLink:
    """One neighbour seen from one port: ``local_*`` is where the capture was taken,
    ``remote_*`` what answered.

    ``source``/``line`` name the capture file and line it came from (for messages and
    the as-built sheet); ``captured_at`` is when the capture was written (the file's
    own timestamp, else its modification time), ``imported_at`` when the design took
    it in, both ISO 8601 UTC.  ``remote_port`` is empty when the neighbour did not say
    (an LLDP port id that is only a MAC address).  ``speed_gbps`` and ``width`` (lanes,
    ``4`` of ``4xNDR``) are None when the capture does not report them.
    """

    source: str
    line: int
    format: str
    local_device: str
    local_port: str
    remote_device: str
    remote_port: str
    speed_gbps: float | None
    width: int | None
    captured_at: str
    imported_at: str
    imported_by: str
    import_id: str

    @property
    def where(self) -> str:
        """``file:line`` for messages."""
        return f"{self.source}:{self.line}"
