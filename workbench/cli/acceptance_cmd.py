"""``workbench acceptance import FILE RESULTS_DIR``: health-check results back in.

``health_check.sh`` (from ``workbench export --health-check DIR``) writes one
``results-<node>.csv`` per node; this reads a folder of them into the project file in
one transaction: every row is checked first (unknown nodes or items, malformed rows are
refused with file and line, exit 2, and the project file is left exactly as it was),
then the results are added as one edit and the file is saved atomically.  The
checklist export then shows measured values and verdicts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from workbench.cli.errors import CliError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "acceptance",
        help="acceptance results: import what health_check.sh measured",
        description="Acceptance results of the nodes, written by health_check.sh.",
    )
    asub = p.add_subparsers(dest="acceptance_command", metavar="SUBCOMMAND", required=True)
    i = asub.add_parser("import", help="read results-*.csv files into the project file")
    i.add_argument("file", metavar="FILE", help="a .dcwb project file (written back)")
    i.add_argument("results", metavar="RESULTS_DIR", help="a folder of results-<node>.csv")
    i.add_argument("--who", default="", help="who imports (default: the login name)")
    i.add_argument(
        "--checklist",
        metavar="X.xlsx",
        help="then write the checklist workbook with these results (failing first)",
    )
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    from workbench.cli.project_io import login_name, now_utc, open_project, save_project
    from workbench.export.acceptance import ResultsError, read_results
    from workbench.model import ops
    from workbench.model.errors import EditError

    path = Path(args.file)
    design = open_project(path)
    try:
        plan = read_results(design, Path(args.results), who=login_name(args.who), now=now_utc())
        if plan.results:
            ops.apply(design, plan.op())
    except (ResultsError, EditError) as exc:
        raise CliError(f"import refused, nothing changed: {exc}", 2) from None
    if plan.results:
        save_project(design, path)
    if args.checklist:
        from workbench.export.checklist import write_checklist
        from workbench.export.output import ExportError

        try:
            write_checklist(design, Path(args.checklist))
        except ExportError as exc:
            raise CliError(f"--checklist: {exc} (the results were imported)") from None
    verdicts = Counter(r.verdict for r in plan.results)
    nodes = sorted({r.node for r in plan.results})
    if args.json:
        json.dump(
            {
                "file": str(path),
                "import_id": plan.import_id if plan.results else None,
                "files": list(plan.files),
                "nodes": nodes,
                "results": len(plan.results),
                "verdicts": dict(verdicts),
            },
            sys.stdout,
            indent=2,
        )
        print()
    else:
        counts = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())) or "none"
        print(
            f"Read {len(plan.files)} files: {len(plan.results)} results for {len(nodes)} nodes ({counts})."
        )
        print(f"Wrote {path}." if plan.results else f"Nothing to import; {path} left as it was.")
        if args.checklist:
            print(f"Wrote {args.checklist}.")
    return 0
