"""The cable schedule: one row per cable, with both ends, media, parts, length, label.

**Cables** sheet: label, plane, network, media, cable part, length, then for the A end
and the B end: site, row, rack, U, device, port, optic module; notes.

- One row per cable: a link is one cable, and a second link between the same two
  ports (whichever way round it was drawn) is left out and counted in the notes of
  the Pull list, so the schedule never lists a cable as A–B and again as B–A.
- The **A end** is the end that comes first in site/row/rack/U order (the design's
  order), so a row reads from the near rack to the far one and row pairs are stable.
- **Length** is :func:`workbench.calc.cabling.measure_links`' measured run rounded up
  to a stocked length (or the link's own length); the media and parts are its choice
  too, so the schedule, the BOM and ``workbench fabric`` agree.
- **Optic** per end: the module that end's port takes (optics media only); a breakout
  end shows its split port's shared module.
- **Label ID**: a plane letter (C compute, S storage, M management, O OOB, X none) and
  the link's number, ``C-000123`` for link ``l000123``.  Link ids never change once
  made, so a printed label stays right after the design is edited and exported again;
  a link whose id is not of that form keeps its whole id (``C-<id>``).

**Pull list** sheet: cables per media, part and length, then per row pair (A row,
B row) and media, each with a =SUM total, for the installers' pulling plan.  The
counts are computed values; their totals equal the number of rows of Cables.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from workbench.calc.cabling import iter_cables
from workbench.calc.fabric.media import design_parts
from workbench.calc.fabric.planes import link_plane, network_planes
from workbench.export.output import Progress, no_progress
from workbench.export.xlsx_common import Book, Column, Formula, write_workbook
from workbench.model import Design
from workbench.model.ports import MEDIA

PLANE_PREFIX = {"compute": "C", "storage": "S", "management": "M", "oob": "O"}
_END = ["site", "row", "rack", "U", "device", "port", "optic"]
COLUMNS = [
    Column("Label", min_width=10),
    Column("Plane"),
    Column("Network"),
    Column("Media"),
    Column("Cable part", max_width=40),
    Column("Length (m)", "0.0"),
    # U positions are whole numbers, shown as such by Excel's General format: no style
    # per cell (two styled cells fewer per row of a 443,000-row schedule).
    *(Column(f"A {what}", max_width=40) for what in _END),
    *(Column(f"B {what}", max_width=40) for what in _END),
    Column("Notes", max_width=60),
]
PROGRESS_EVERY = 5000
_LINK_NUMBER = re.compile(r"^l(\d+)$")


def label_of(plane: str | None, link_id: str) -> str:
    """The printable label of a link (see the module docstring)."""
    prefix = PLANE_PREFIX.get(plane or "", "X")
    found = _LINK_NUMBER.match(link_id)
    return f"{prefix}-{found.group(1) if found else link_id}"


def write_cables(design: Design, target: Path, *, progress: Progress = no_progress) -> Path:
    """Write the cable schedule workbook to ``target`` (atomically)."""
    target = Path(target)
    progress(0.0, "Measuring cable runs")
    names = {item.slug: item.model or item.slug for item in design_parts(design)}
    planes = network_planes(design)
    network_names = {n.id: n.name for n in design.networks}
    where: dict[str, tuple[int, str, str, str, int | None, str]] = {}
    for site in design.sites:
        for row in site.rows:
            for rack in row.racks:
                for device in rack.devices:
                    where[device.id] = (
                        len(where),
                        site.name,
                        row.name,
                        rack.name,
                        device.position,
                        device.name,
                    )
    unplaced = (1 << 62, "", "", "", None, "")

    def fill(book: Book) -> None:
        sheet = book.sheet("Cables", COLUMNS)
        by_part: Counter[tuple[str, str, float | None]] = Counter()
        by_rows: Counter[tuple[str, str, str]] = Counter()
        # Both ends of each cable written so far, as one flat tuple: nested pairs held
        # 87 MB of the export's 112 MB peak at 100,000 GPUs (443,000 links), this 48 MB.
        seen: set[tuple[str, str, str, str]] = set()
        duplicates = 0
        total = len(design.links)
        # Measured and written a chunk at a time: the rows are streamed, not held.
        for done, (link, cable) in enumerate(iter_cables(design, design.links), start=1):
            a_end, b_end = (link.a_device, link.a_port), (link.b_device, link.b_port)
            key = (*a_end, *b_end) if a_end <= b_end else (*b_end, *a_end)
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            a, b = where.get(link.a_device, unplaced), where.get(link.b_device, unplaced)
            if b[0] < a[0]:
                a, b, a_end, b_end = b, a, b_end, a_end
            shared = {device: module for device, _port, module in cable.shared_optics}
            whole = cable.optic_slug if cable.optics else None
            optics = []
            for device, _port in (a_end, b_end):
                module = shared.get(device) or whole
                optics.append(names.get(module, module) if module else "")
            plane = link_plane(design, link, planes)
            notes = []
            if cable.reason:
                notes.append(cable.reason)
            if not cable.measured:
                notes.append("length given in the design")
            elif cable.length_m is None:
                notes.append("not measured: ends in different halls or not in a rack")
            part = names.get(cable.cable_slug, cable.cable_slug) if cable.cable_slug else ""
            media = MEDIA.get(cable.media, cable.media)
            sheet.append(
                [
                    label_of(plane, link.id),
                    plane or "",
                    network_names.get(link.network or "", ""),
                    media,
                    part,
                    cable.length_m,
                    a[1], a[2], a[3], a[4], a[5] or a_end[0], a_end[1], optics[0],
                    b[1], b[2], b[3], b[4], b[5] or b_end[0], b_end[1], optics[1],
                    "; ".join(notes),
                ]
            )  # fmt: skip
            by_part[(media, part, cable.length_m)] += 1
            by_rows[(f"{a[1]} {a[2]}".strip(), f"{b[1]} {b[2]}".strip(), media)] += 1
            if done % PROGRESS_EVERY == 0:
                progress(0.95 * done / total, "Writing cables")
        _pull_list(book, by_part, by_rows, duplicates)

    return write_workbook(target, fill, progress)


def _pull_list(
    book: Book,
    by_part: Counter[tuple[str, str, float | None]],
    by_rows: Counter[tuple[str, str, str]],
    duplicates: int,
) -> None:
    """Totals per media/part/length and per row pair, each with a =SUM total row."""
    pull = book.sheet(
        "Pull list",
        [
            Column("Media"),
            Column("Cable part", max_width=40),
            Column("Length (m)", "0.0"),
            Column("Cables", "#,##0"),
        ],
    )
    for (media, part, length), n in sorted(
        by_part.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0)
    ):
        pull.append([media, part, length, n])
    end = pull.last_row
    pull.append(["Total", None, None, Formula(f"=SUM(D2:D{max(2, end)})")])
    if duplicates:
        pull.append(
            [
                f"{duplicates} duplicate link(s) between the same two ports left out",
                None,
                None,
                None,
            ]
        )
    pairs = book.sheet(
        "Row pairs", [Column("A row"), Column("B row"), Column("Media"), Column("Cables", "#,##0")]
    )
    for (a_row, b_row, media), n in sorted(by_rows.items()):
        pairs.append([a_row, b_row, media, n])
    pairs.append(["Total", None, None, Formula(f"=SUM(D2:D{max(2, pairs.last_row)})")])
