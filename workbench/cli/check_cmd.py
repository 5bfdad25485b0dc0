"""``workbench check FILE``: the design rules, for a review gate in a team's own CI.

Exit status: 0 when no unwaived error remains, 1 when one does, 2 when the file cannot
be read (missing, corrupt, from a newer workbench) or an option is wrong.  The file is
only ever read.  ``--severity`` picks what is printed; the exit status always reflects
errors, so a gate cannot be loosened by printing less.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workbench.cli.errors import CliError

EXIT_ERRORS = 1
EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``check`` to the command line."""
    p = sub.add_parser(
        "check",
        help="check a design against the design rules",
        description="Run every design rule on FILE and list the findings. Exit status 0 "
        "when no unwaived error remains, 1 when one does, 2 when FILE cannot be read.",
    )
    p.add_argument("file", metavar="FILE", nargs="?", help="a .dcwb project file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--severity",
        choices=("info", "warning", "error"),
        default="info",
        help="print only findings at least this severe (default: all); the exit status "
        "still counts every error",
    )
    p.add_argument(
        "--rules", action="store_true", help="list the rules with their sources and exit"
    )
    p.set_defaults(func=cmd_check)


def cmd_check(args: argparse.Namespace) -> int:
    from workbench.rules import REGISTRY, Severity

    if args.rules:
        return _print_rules(args.json)
    if not args.file:
        raise CliError("check: give a FILE to check (or --rules)", EXIT_BAD_INPUT)
    from workbench.cli.catalog_load import load_catalog_noting_errors
    from workbench.cli.progress import step
    from workbench.rules import check_design, count
    from workbench.store import ProjectFileError, open_design

    path = Path(args.file)
    try:
        with step(f"opening {path.name}") as tell:
            design = open_design(path, catalog=load_catalog_noting_errors(), progress=tell)
    except ProjectFileError as exc:
        raise CliError(str(exc), EXIT_BAD_INPUT) from None
    with step("checking the design") as tell:
        findings = check_design(design, progress=tell)
    waivers = {(w.rule, w.object_id): w for w in design.waivers}
    counts = count(findings, set(waivers))
    floor = Severity.parse(args.severity)
    shown = [f for f in findings if f.severity >= floor]
    shown.sort(key=lambda f: (-f.severity, f.key in waivers, f.rule))
    names = _names(design)
    if args.json:
        out: dict[str, Any] = {
            "file": str(path),
            "ok": counts.errors == 0,
            "counts": counts.to_dict(),
            "findings": [
                {
                    "rule": f.rule,
                    "severity": f.severity.label,
                    "title": REGISTRY[f.rule].title if f.rule in REGISTRY else "",
                    "message": f.message,
                    "objects": list(f.objects),
                    "object": names.get(f.object_id, f.object_id),
                    "waived": f.key in waivers,
                    "waiver": waivers[f.key].note if f.key in waivers else None,
                    "source": REGISTRY[f.rule].source if f.rule in REGISTRY else "",
                }
                for f in shown
            ],
        }
        json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        _print_text(path, shown, waivers, counts)
    return EXIT_ERRORS if counts.errors else 0


def _names(design) -> dict[str, str]:
    names = {rack.id: rack.name for rack in design.iter_racks()}
    names.update({d.id: d.name for _, d in design.iter_devices()})
    names.update({w.id: w.name for w in design.workloads})
    names.update({t.id: t.name for t in design.storage_tiers})
    return names


def _print_text(path: Path, shown, waivers, counts) -> None:
    from workbench.units import format_count

    width = max((len(f.rule) for f in shown), default=0)
    for f in shown:
        waived = waivers.get(f.key)
        mark = f"  [waived: {waived.note}]" if waived is not None else ""
        print(f"{f.severity.label:<7}  {f.rule:<{width}}  {f.message}{mark}")
    line = f"{format_count(counts.errors, 'error')}, {format_count(counts.warnings, 'warning')}"
    if counts.waived:
        line += f", {counts.waived:,} waived"
    verdict = "fails the check" if counts.errors else "passes the check"
    print(f"{path}: {line}; {verdict}")


def _print_rules(as_json: bool) -> int:
    from workbench.rules import REGISTRY

    rows = [
        {
            "id": r.id,
            "title": r.title,
            "severity": r.severity.label,
            "scope": r.scope,
            "looks_at": sorted(r.looks_at),
            "source": r.source,
        }
        for r in REGISTRY.values()
    ]
    if as_json:
        json.dump(rows, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    width = max(len(r["id"]) for r in rows)
    for r in rows:
        print(f"{r['id']:<{width}}  {r['severity']:<7}  {r['title']}")
        print(f"{'':<{width}}  {'':<7}  source: {r['source']}")
    return 0
