"""``workbench asbuilt FILE CAPTURES_DIR [--json]``: the cabled cluster against the design.

Reads every capture in the folder (``ibnetdiscover`` output, ``lldpctl -f json``, NVUE /
NCLU / SONiC LLDP tables; the format is told from each file's content), and only when
every one of them parses stores their records in the project file, replacing the
captures of the previous run, as one edit saved atomically.  A malformed capture is
refused with its file and line (exit 2) and the project file is left exactly as it
was.  Then every design link is checked (:mod:`workbench.asbuilt.matcher`) and the
totals are printed per plane and for the racks with discrepancies; ``--json`` prints
every verdict and the totals per plane, row and rack.

Exit status: 0 when nothing is wrong (links no capture covers are counted as
unchecked, not as wrong), 1 when any link is missing, swapped, on the wrong port or at
the wrong speed, or a captured link is not in the design, 2 for input that cannot be
read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.errors import CliError

#: Discrepancies listed one per line; the rest are counted.
_MAX_LISTED = 200


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "asbuilt",
        help="check captures of the cabled cluster (ibnetdiscover, LLDP) against the design",
        description="Read a folder of ibnetdiscover / LLDP captures into the project file "
        "and check every designed link against them.",
    )
    p.add_argument("file", metavar="FILE", help="a .dcwb project file (written back)")
    p.add_argument("captures", metavar="CAPTURES_DIR", help="a folder of capture files")
    p.add_argument("--who", default="", help="who imports (default: the login name)")
    p.add_argument("--json", action="store_true", help="print every verdict and the totals")
    p.set_defaults(func=cmd_asbuilt)


def cmd_asbuilt(args: argparse.Namespace) -> int:
    from workbench import asbuilt
    from workbench.asbuilt.report import summary_lines, totals_json, verdict_json
    from workbench.cli.progress import step
    from workbench.cli.project_io import (
        EXIT_BAD_INPUT,
        login_name,
        now_utc,
        open_project,
        save_project,
    )
    from workbench.model import ops
    from workbench.model.captures import ReplaceCaptures
    from workbench.model.errors import EditError

    path = Path(args.file)
    folder = Path(args.captures)
    design = open_project(path)
    # A whole-fabric capture of a 1,000,000-GPU campus is ~19,000 files and ~5 million
    # records: each step that takes more than two seconds says so on standard error.
    try:
        with step(f"reading the captures in {folder.name}") as tell:
            read = asbuilt.read_folder(
                folder,
                who=login_name(args.who),
                now=now_utc(),
                progress=tell,
                limits=asbuilt.limits_of(design),
            )
            ops.apply(design, ReplaceCaptures(read.captures))
    except (asbuilt.CaptureError, EditError) as exc:
        raise CliError(f"as-built import refused, nothing changed: {exc}", EXIT_BAD_INPUT) from None
    save_project(design, path)
    with step(f"checking {len(design.links):,} links against the captures") as tell:
        verdicts = asbuilt.check(design, progress=tell)
    with step("counting the verdicts by plane, row and rack"):
        totals = asbuilt.totals(design, verdicts)
    if args.json:
        with step("printing every verdict"):
            json.dump(
                {
                    "file": str(path),
                    "import_id": read.import_id,
                    "files": [{"file": f, "format": fmt, "records": n} for f, fmt, n in read.files],
                    "totals": totals_json(totals),
                    "verdicts": [verdict_json(design, v) for v in verdicts],
                },
                sys.stdout,
                indent=2,
            )
            print()
    else:
        print(f"Read {len(read.files)} capture files: {len(read.captures)} neighbour records.")
        for line in summary_lines(totals):
            print(line)
        bad = [v for v in verdicts if v.verdict in asbuilt.DISCREPANCIES]
        for v in bad[:_MAX_LISTED]:
            if v.link_id is None:
                print(f"  unexpected: {v.found} ({v.where}): {v.detail}")
            else:
                print(f"  {v.verdict}: link {v.link_id}: {v.detail}")
        if len(bad) > _MAX_LISTED:
            print(
                f"  ... and {len(bad) - _MAX_LISTED} more (--json or the --asbuilt sheet list all)"
            )
        print(f"Wrote {path}.")
    return 1 if totals.discrepancies else 0
