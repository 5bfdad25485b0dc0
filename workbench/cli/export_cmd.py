"""``workbench export FILE --bom X.xlsx ... --slurm DIR``: the design for other people.

Each option names one export and where it goes; several can be given at once.  Every
export is written completely or not at all (``workbench.export.output``): an
unwritable path, a file held open or an exhausted subnet is one line naming the path,
exit status 1, and the exports before it in the same run stay written (each is its own
file).  The project file is only read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.cli.errors import CliError
from workbench.export.registry import EXPORTS, exporter


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``export`` to the command line."""
    p = sub.add_parser(
        "export",
        help="write workbooks and handoff files from a design",
        description="Write the BOM, inventory, cable schedule, IP plan and acceptance "
        "checklists (xlsx), and the Slurm, Kubernetes and health-check handoff files. "
        "Each is written completely or not at all; FILE is only read.",
    )
    p.add_argument("file", metavar="FILE", help="a .dcwb project file")
    for kind in EXPORTS:
        p.add_argument(kind.option, metavar=kind.metavar, help=kind.help)
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from workbench.cli.progress import step
    from workbench.cli.project_io import open_project
    from workbench.export.output import ExportError

    chosen = [(kind, getattr(args, kind.dest)) for kind in EXPORTS if getattr(args, kind.dest)]
    if not chosen:
        names = ", ".join(kind.option for kind in EXPORTS)
        raise CliError(f"export: choose at least one of {names}", 2)
    design = open_project(Path(args.file), quiet=args.quiet)
    for kind, target in chosen:
        try:
            with step(f"writing {Path(target).name}", quiet=args.quiet) as tell:
                written = exporter(kind)(design, Path(target), progress=tell)
        except ExportError as exc:
            raise CliError(f"{kind.option}: {exc}") from None
        if not args.quiet:
            shown = ", ".join(str(p) for p in written) if isinstance(written, list) else written
            print(f"wrote {shown}", file=sys.stdout)
    return 0
