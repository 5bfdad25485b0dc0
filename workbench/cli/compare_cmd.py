"""``workbench compare A.dcwb B.dcwb [C.dcwb D.dcwb]``: scenarios side by side.

Exit status 0 when the table is printed, 2 when a file cannot be read or the number of
files is not two to four.  The files are only ever read.  The table is the one the
window's Scenarios panel shows (:mod:`workbench.planning.scenarios`).

Each file's figures are kept in the user's cache folder, keyed by the file's bytes, the
catalog and the program (:mod:`workbench.planning.scenarios.figures_cache`), so comparing
a 100,000-GPU file again takes well under a second instead of seconds; standard error
says which files were read from there, and ``--no-cache`` computes every figure afresh
and keeps nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.errors import CliError

EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``compare`` to the command line."""
    p = sub.add_parser(
        "compare",
        help="compare two to four designs (scenarios) side by side",
        description="Print GPUs, peak PFLOPS, power, racks, cables, costs, training days "
        "and rule findings of two to four designs side by side, best (*) and worst (!) "
        "marked. Exit status 2 when a file cannot be read.",
    )
    p.add_argument("files", metavar="FILE", nargs="*", help="two to four .dcwb project files")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--pdf", metavar="OUT", help="also write a one-page PDF summary to OUT")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="compute every file's figures afresh, neither reading nor writing the figures "
        "kept in the user's cache folder ($XDG_CACHE_HOME/workbench/figures, which may be "
        "deleted at any time)",
    )
    p.set_defaults(func=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from workbench.cli.catalog_load import load_catalog_noting_errors
    from workbench.cli.progress import step
    from workbench.planning.scenarios import MAX_SCENARIOS, MIN_SCENARIOS, compare
    from workbench.planning.scenarios.figures import figures_of_file_noting
    from workbench.planning.scenarios.figures_cache import cache_folder
    from workbench.planning.scenarios.text import text_lines
    from workbench.store import ProjectFileError

    paths = [Path(f) for f in args.files]
    if not MIN_SCENARIOS <= len(paths) <= MAX_SCENARIOS:
        raise CliError(
            f"compare: give {MIN_SCENARIOS} to {MAX_SCENARIOS} project files, got {len(paths)}",
            EXIT_BAD_INPUT,
        )
    catalog = load_catalog_noting_errors()
    figures = []
    kept: list[str] = []
    for path in paths:
        if not path.is_file():
            raise CliError(f"{path}: no such project file", EXIT_BAD_INPUT)
        try:
            with step(f"reading {path.name}"):
                found, from_cache = figures_of_file_noting(
                    path, catalog=catalog, disk_cache=not args.no_cache
                )
        except ProjectFileError as exc:
            raise CliError(str(exc), EXIT_BAD_INPUT) from None
        figures.append(found)
        if from_cache:
            kept.append(path.name)
    if kept:
        print(
            f"workbench: figures of {', '.join(kept)} as kept in {cache_folder()} "
            "(computed from the same bytes, catalog and program; --no-cache recomputes)",
            file=sys.stderr,
        )
    table = compare(figures)
    if args.pdf:
        from workbench.cli.print_cmd import _gui_application
        from workbench.ui.scenarios.page import write_table_pdf

        _app = _gui_application()  # drawing text needs one, offscreen on the command line
        try:
            with step(f"writing {Path(args.pdf).name}"):
                write_table_pdf(table, Path(args.pdf))
        except OSError as exc:
            raise CliError(f"{args.pdf}: cannot write: {exc.strerror or exc}") from None
    if args.json:
        out = table.to_dict()
        out["files"] = [str(p) for p in paths]
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print("\n".join(text_lines(table)))
    return 0
