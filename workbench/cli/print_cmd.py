"""``workbench print FILE --out racks.pdf``: rack elevations for installers, headless.

The pages are the window's (File ▸ Export PDF…): one rack per page with both faces, or
one row per page, each with a title block, U numbers on both sides, device labels with
asset tags and serials, the legend and the rack's budgets.  FILE is only read.  The PDF
is written beside its final name and renamed into place, so a failed or interrupted
print leaves no file; an unwritable path is one line on stderr and exit status 1, a bad
option exit status 2.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from workbench.cli.errors import CliError

EXIT_BAD_INPUT = 2
PAPERS = ("A4", "A3", "Letter")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``print`` to the command line."""
    p = sub.add_parser(
        "print",
        help="print rack elevations to PDF or SVG",
        description="Write printable rack elevations of FILE: one rack per page (front "
        "and rear side by side) or one row per page, each page with a title block, "
        "U numbers on both sides, device names, models, asset tags and serials, the "
        "role legend and the rack's power, cooling, weight and feed budgets.",
    )
    p.add_argument("file", metavar="FILE", help="a .dcwb project file (only read)")
    p.add_argument("--out", metavar="PDF", help="the PDF file to write")
    p.add_argument("--paper", choices=PAPERS, default="A4", help="paper size (default A4)")
    p.add_argument("--landscape", action="store_true", help="landscape pages (default portrait)")
    p.add_argument(
        "--per-page",
        choices=("rack", "row"),
        default="rack",
        help="one rack (both faces) or one row per page (default rack); a row too long "
        "for the paper continues on the next page",
    )
    p.add_argument(
        "--racks",
        metavar="PATTERN",
        help="only racks whose name matches this shell pattern, e.g. 'A*' (quote it)",
    )
    p.add_argument(
        "--floor-plan",
        action="store_true",
        help="a page with the floor plan of the hall first (tiles, aisles, racks, metres)",
    )
    p.add_argument(
        "--svg-dir", metavar="DIR", help="also (or instead) write one SVG file per page to DIR"
    )
    p.set_defaults(func=cmd_print)


def _gui_application() -> Any:
    """The running Qt application, or a new offscreen one: drawing text needs a
    QGuiApplication, and the command line has no display."""
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance()
    if app is None:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        app = QGuiApplication(["workbench"])
    from workbench.render.text_speed import draw_text_unshaped

    draw_text_unshaped()  # pages drawn as the window draws them
    return app


def cmd_print(args: argparse.Namespace) -> int:
    """Open FILE read-only and write the pages."""
    if not args.out and not args.svg_dir:
        raise CliError("print: give --out FILE.pdf, --svg-dir DIR or both", EXIT_BAD_INPUT)
    from workbench.cli.catalog_load import load_catalog_noting_errors
    from workbench.cli.progress import step
    from workbench.store import ProjectFileError, open_design

    path = Path(args.file)
    try:
        with step(f"opening {path.name}") as tell:
            design = open_design(path, catalog=load_catalog_noting_errors(), progress=tell)
    except ProjectFileError as exc:
        raise CliError(str(exc)) from None

    app = _gui_application()
    from workbench.render.print_export import (
        NothingToPrint,
        PrintFileError,
        write_pdf,
        write_svgs,
    )
    from workbench.render.print_layout import PrintOptions

    options = PrintOptions(
        paper=args.paper,
        landscape=args.landscape,
        per_page=args.per_page,
        pattern=args.racks or None,
        floor_plan=args.floor_plan,
    )
    if args.floor_plan:
        from workbench.model.floor import lay_out

        lay_out(design)  # racks of an older file get the places the window gives them
    what = (
        f"{args.paper} {'landscape' if args.landscape else 'portrait'}, "
        f"one {args.per_page} per page"
    )
    try:
        if args.out:
            with step(f"drawing {Path(args.out).name}") as tell:
                pages = write_pdf(Path(args.out), design, options, tell.pages)
            print(f"wrote {args.out}: {_pages(pages)} ({what})")
        if args.svg_dir:
            with step(f"drawing the SVG pages into {Path(args.svg_dir).name}") as tell:
                files = write_svgs(Path(args.svg_dir), design, options, tell.pages)
            print(f"wrote {_pages(len(files))} as SVG to {args.svg_dir} ({what})")
    except NothingToPrint as exc:
        raise CliError(f"{path}: {exc}", EXIT_BAD_INPUT) from None
    except PrintFileError as exc:
        raise CliError(str(exc)) from None
    finally:
        del app
    return 0


def _pages(n: int) -> str:
    return f"{n:,} page" if n == 1 else f"{n:,} pages"
