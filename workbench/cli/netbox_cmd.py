"""``workbench netbox export FILE DIR`` and ``workbench netbox import DIR OUT.dcwb``.

Export writes NetBox's bulk-import files and their ``manifest.json`` (import order)
into DIR, all or nothing; FILE is only read.  Import reads such a folder (or NetBox's
own CSV exports of the same objects) into a new project file: every file is read and
checked first, and OUT is written atomically only when all of them were, so a bad row
is one line naming ``file:line`` (exit 2) and nothing is written.  OUT must not exist
yet unless ``--force``: an import never overwrites someone's design by accident.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.cli.errors import CliError

EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``netbox export`` and ``netbox import`` to the command line."""
    p = sub.add_parser(
        "netbox",
        help="the design out to NetBox's bulk import, and back",
        description="Write NetBox bulk-import files (NetBox 4.7 import-form columns) "
        "and read them, or NetBox's own CSV exports, back into a design.",
    )
    nsub = p.add_subparsers(dest="netbox_command", metavar="SUBCOMMAND", required=True)
    e = nsub.add_parser("export", help="write NetBox bulk-import files into DIR")
    e.add_argument("file", metavar="FILE", help="a .dcwb project file (only read)")
    e.add_argument("dir", metavar="DIR", help="folder for the files (created if missing)")
    e.add_argument("--quiet", action="store_true", help="print nothing on success")
    e.set_defaults(func=cmd_export)
    i = nsub.add_parser("import", help="read a folder of NetBox files into a new project")
    i.add_argument("dir", metavar="DIR", help="a folder written by 'netbox export' or NetBox")
    i.add_argument("out", metavar="OUT.dcwb", help="the project file to write")
    i.add_argument("--force", action="store_true", help="replace OUT if it exists")
    i.add_argument("--quiet", action="store_true", help="print nothing on success")
    i.set_defaults(func=cmd_import)


def cmd_export(args: argparse.Namespace) -> int:
    from workbench.cli.progress import step
    from workbench.cli.project_io import open_project
    from workbench.export.output import ExportError
    from workbench.netbox import write_netbox

    design = open_project(Path(args.file), quiet=args.quiet)
    try:
        with step(f"writing the NetBox files into {Path(args.dir).name}", quiet=args.quiet) as tell:
            written = write_netbox(design, Path(args.dir), progress=tell)
    except ExportError as exc:
        raise CliError(f"netbox export: {exc}") from None
    if not args.quiet:
        print(f"wrote {len(written)} files into {args.dir} (import them in manifest.json's order)")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from workbench.cli.project_io import save_project
    from workbench.netbox import NetBoxImportError, read_netbox

    out = Path(args.out)
    if out.exists() and not args.force:
        raise CliError(f"{out}: already exists; give --force to replace it", EXIT_BAD_INPUT)
    if out.suffix != ".dcwb":
        raise CliError(f"{out}: a project file name ends in .dcwb", EXIT_BAD_INPUT)
    try:
        design = read_netbox(Path(args.dir))
    except NetBoxImportError as exc:
        raise CliError(f"import refused, nothing written: {exc}", EXIT_BAD_INPUT) from None
    save_project(design, out, quiet=args.quiet)
    if not args.quiet:
        devices = sum(1 for _ in design.iter_devices())
        racks = sum(1 for _ in design.iter_racks())
        print(f"Read {racks} racks, {devices} devices, {len(design.links)} cables and "
              f"{len(design.networks)} networks; wrote {out}.", file=sys.stdout)  # fmt: skip
    return 0
