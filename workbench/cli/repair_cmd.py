"""``workbench repair FILE``: list what keeps a project file from opening, and mend it.

A file the reader refuses (a value no edit of today's workbench would take: a name with
a line break, a note with NUL, a snapshot item its parser refuses ...) is mended in
memory (:mod:`workbench.store.repair`): each repair is listed, and nothing is written
unless asked.  ``--write`` saves the mended design over FILE (atomically, as every save:
the original survives any failure), ``-o OUT`` writes it elsewhere and leaves FILE as it
was.  Exit status: 0 when FILE opens as it is or the repairs were written, 1 when
repairs are needed but were not written, 2 when FILE cannot be mended this way.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.errors import CliError
from workbench.cli.project_io import EXIT_BAD_INPUT


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "repair",
        help="list and mend the values that keep a project file from opening",
        description="Mend an in-memory copy of FILE value by value until it opens "
        "(texts cleaned and cut to their limits, other refused values cleared, "
        "stand-alone rows dropped) and list each repair; FILE is written only with "
        "--write.",
    )
    p.add_argument("file", metavar="FILE", help="a .dcwb project file")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--write", action="store_true", help="save the mended design over FILE")
    out.add_argument("-o", "--output", metavar="OUT", help="save the mended design to OUT")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_repair)


def cmd_repair(args: argparse.Namespace) -> int:
    from workbench.cli.catalog_load import load_catalog_noting_errors
    from workbench.cli.project_io import save_project
    from workbench.store import ProjectFileError
    from workbench.store.repair import plan_repairs

    path = Path(args.file)
    try:
        plan = plan_repairs(path, catalog=load_catalog_noting_errors())
    except ProjectFileError as exc:
        raise CliError(f"{exc} (not something a repair can mend)", EXIT_BAD_INPUT) from None
    target = Path(args.output) if args.output else path if args.write else None
    if plan.repairs and target is not None:
        save_project(plan.design, target)
    if args.json:
        json.dump(
            {
                "file": str(path),
                "repairs": [
                    {
                        "table": r.table,
                        "row": r.seq,
                        "field": r.field,
                        "action": r.action,
                        "problem": r.problem,
                        "old": r.old,
                        "new": r.new,
                    }
                    for r in plan.repairs
                ],  # fmt: skip
                "written": str(target) if plan.repairs and target is not None else None,
            },
            sys.stdout,
            indent=2,
        )
        print()
    else:
        if not plan.repairs:
            print(f"{path}: opens as it is; nothing to repair.")
        for repair in plan.repairs:
            print(f"{path}: {repair.line()}")
        if plan.repairs and target is not None:
            print(f"Wrote the repaired design ({len(plan.repairs)} repairs) to {target}.")
        elif plan.repairs:
            print(f"{len(plan.repairs)} repairs needed; {path} left as it was "
                  "(--write saves them over it, -o OUT elsewhere).")  # fmt: skip
    return 1 if plan.repairs and target is None else 0
