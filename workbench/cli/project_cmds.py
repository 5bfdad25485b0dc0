"""Subcommands that work on whole project files: ``new``, ``templates`` and ``report``.

They never need a display, so a planner can script them (or run them in CI) exactly as
the window would behave: the same templates, the same store, the same calculators.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path

from workbench.cli.errors import CliError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``new``, ``templates`` and ``report`` to the command line."""
    p = sub.add_parser(
        "new",
        help="write a new design from a template",
        description="Write a template design to OUT (a .dcwb project file).",
    )
    p.add_argument("out", metavar="OUT.dcwb", help="the project file to create")
    p.add_argument("--template", default=None, help="template name (see `workbench templates`)")
    p.add_argument(
        "--gpus",
        type=_positive_int,
        default=None,
        help="scale the design to N GPUs (rounded up to whole servers)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace OUT if it exists (atomically: the old file survives a failure)",
    )
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("templates", help="list the design templates")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=cmd_templates)

    p = sub.add_parser(
        "report",
        help="summarise a project file",
        description="Print the design's key figures: racks, devices, GPUs, "
        "power, cooling, peak FLOPS and each workload's estimate.",
    )
    p.add_argument("file", metavar="FILE", help="a .dcwb project file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--pue", type=float, default=None, help="power usage effectiveness for facility kW"
    )
    p.set_defaults(func=cmd_report)


def _positive_int(text: str) -> int:
    """A GPU count: whole and at least 1; ``1e5`` is accepted as 100000."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not value.is_integer() or value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text}")
    return int(value)


def cmd_new(args: argparse.Namespace) -> int:
    """Build a template design and save it atomically, refusing to clobber without --force."""
    from workbench.calc.power import DEFAULT_PUE
    from workbench.calc.summary import summarize
    from workbench.catalog import CatalogError
    from workbench.cli.progress import step
    from workbench.store import ProjectFileError, save_design
    from workbench.store.binding import collector_paused
    from workbench.templates import SAMPLE_TEMPLATE, TemplateError, build_template

    out = Path(args.out)
    if out.exists() and not args.force:
        raise CliError(f"{out}: already exists; use --force to replace it")
    if out.exists() and out.is_dir():
        raise CliError(f"{out}: is a folder, not a file")
    # Millions of objects that live until the design is written: the cyclic collector
    # finds nothing to free in them, and walking them took an eighth of a 1,000,000-GPU
    # build.  Paused for the write and the summary too, and what was made meanwhile is
    # frozen before it resumes (else its first collection walks it all, 1.4 s at
    # 1,000,000 GPUs); unfrozen once the design is freed, so a caller in the same
    # process (a test) gets its collector back as it was.
    with collector_paused():
        try:
            with step("building the design") as tell:
                design = build_template(
                    args.template or SAMPLE_TEMPLATE, gpus=args.gpus, progress=tell
                )
        except (TemplateError, CatalogError) as exc:
            raise CliError(str(exc), code=2) from None
        try:
            with step(f"writing {out.name}") as tell:
                save_design(design, out, tell)
        except ProjectFileError as exc:
            raise CliError(str(exc)) from None
        # The line below names racks and GPUs only: no need to weigh every rack's
        # cooling for a PUE it does not print (1.5 s at 1,000,000 GPUs).
        summary = summarize(design, pue=DEFAULT_PUE)
        gc.freeze()
    name = design.name
    if not getattr(args, "process_ends", False):
        del design
        gc.unfreeze()
    # Else the design stays frozen, unfreed, for the process to drop when it exits: it
    # is written and closed, and the interpreter's last collection skips frozen objects,
    # where collecting and freeing the 4.4 million links of a 1,000,000-GPU design one
    # by one took 1.5-3.5 s after the file was done.
    print(f"wrote {out}: {name} ({summary.racks:,} racks, {summary.gpus:,} GPUs)")
    return 0


def cmd_templates(args: argparse.Namespace) -> int:
    """List the templates with their building blocks."""
    from workbench.templates import SAMPLE_TEMPLATE, TEMPLATES

    rows = [
        {
            "name": s.name,
            "title": s.title,
            "default_gpus": s.default_gpus,
            "server": s.server,
            "rack": s.compute_rack,
            "default": s.name == SAMPLE_TEMPLATE,
            "description": s.description,
        }
        for s in TEMPLATES.values()
    ]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    width = max(len(s.name) for s in TEMPLATES.values())
    for r in rows:
        mark = " (default)" if r["default"] else ""
        print(f"{r['name']:<{width}}  {r['default_gpus']:>6,} GPUs  {r['title']}{mark}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Open a project read-only and print its figures."""
    from workbench.calc.errors import InputError
    from workbench.cli.progress import step
    from workbench.cli.project_io import open_project
    from workbench.export.report import design_report

    path = Path(args.file)
    design = open_project(path)  # exit 2 on a file that cannot be read, as `check`
    try:
        with step("computing the report") as tell:
            report = design_report(design, pue=args.pue, progress=tell)
    except InputError as exc:
        raise CliError(f"--{exc.field}: {exc.reason}", code=2) from None
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0
    _print_report(path, report)
    return 0


def _print_report(path: Path, r: dict) -> None:
    """A readable version of the report for a terminal."""
    print(f"{path}: {r['name']}")
    print(f"  racks {r['racks']:,} · devices {r['devices']:,} · GPUs {r['gpus']:,}")
    print(f"  IT {r['it_kw']:,.1f} kW · facility {r['facility_kw']:,.1f} kW at PUE {r['pue']}")
    print(f"  heat {r['heat_btu_h']:,.0f} BTU/h · {r['cooling_tons']:,.1f} tons of cooling")
    peaks = ", ".join(f"{k.upper()} {v:,.1f}" for k, v in r["peak_pflops"].items())
    print(f"  peak dense PFLOPS: {peaks}")
    for w in r["workloads"]:
        days = "n/a" if w.get("days") is None else f"{w['days']:,.2f} days"
        if w.get("days_range"):
            low, high = w["days_range"]
            days += f" ({low:,.1f}-{high:,.1f}, {w.get('stack_profile')} profile)"
        if w.get("mfu_source") == "plan at 30 %":
            days += " planned at 30 % MFU"
        mem = w.get("memory_gb_per_gpu")
        mem_text = "" if mem is None else f", {mem:,.1f} GB per GPU"
        err = f"  ({'; '.join(w['errors'])})" if w.get("errors") else ""
        print(f"  workload {w['name']!r}: {days}{mem_text}{err}")
    if "cost" in r:
        from workbench.cli.cost_text import cost_lines

        print("\n".join(cost_lines(r["cost"])))
