"""``workbench versions``: baselines, node reports and their checks, for site scripts.

- ``baseline FILE STACK.yaml [--nodes GLOB]`` adds a revision (or a new baseline) from a
  ``layer: version`` file that teams keep under version control, and assigns it;
- ``import FILE DIR`` reads a folder of what the nodes reported, all or nothing;
- ``show FILE [--node NAME]`` prints each node's expected and observed versions;
- ``check FILE`` runs the version rules; exit 1 when an incompatibility (an error) exists.

The commands that change the design write it back atomically (the same save as the
window) and only after every check passed, so a bad STACK.yaml or a malformed report
leaves the file exactly as it was.  Exit status 2 means the input could not be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from workbench.cli.errors import CliError
from workbench.cli.project_io import (
    EXIT_BAD_INPUT,
    login_name,
    now_utc,
    open_project,
    save_project,
)

EXIT_ERRORS = 1

#: The layer each version rule judges (VERSION-DRIFT lists its own layers).
_RULE_LAYER = {
    "VERSION-DRIVER": "driver",
    "VERSION-FRAMEWORK": "framework",
    "VERSION-GPU": "driver",
    "VERSION-MIXED-GPU": "gpu_model",
    "VERSION-ONE-LAYER": "",
    "VERSION-DRIFT": "",
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``versions`` and its four subcommands to the command line."""
    p = sub.add_parser(
        "versions",
        help="baselines, node reports and version checks",
        description="The version matrix: baseline stacks per node, what the nodes report, "
        "and the compatibility checks (framework, CUDA runtime, driver, kernel, GPU).",
    )
    vsub = p.add_subparsers(dest="versions_command", metavar="SUBCOMMAND", required=True)

    b = vsub.add_parser("baseline", help="add a baseline revision from STACK.yaml")
    b.add_argument("file", metavar="FILE", help="a .dcwb project file (written back)")
    b.add_argument("stack", metavar="STACK.yaml", help="layer: version pairs")
    b.add_argument(
        "--nodes",
        default="*",
        metavar="GLOB",
        help="device names to assign (default: all GPU nodes)",
    )
    b.add_argument("--name", help="baseline name (default: the stack file's name)")
    b.add_argument("--note", default="", help="why this revision (kept in its history)")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.set_defaults(func=cmd_baseline)

    i = vsub.add_parser("import", help="import a folder of per-node reports")
    i.add_argument("file", metavar="FILE", help="a .dcwb project file (written back)")
    i.add_argument("folder", metavar="DIR", help="DIR/NODE/any.txt or DIR/NODE.anything")
    i.add_argument("--who", default="", help="who imports (default: the login name)")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.set_defaults(func=cmd_import)

    s = vsub.add_parser("show", help="expected and observed versions per node")
    s.add_argument("file", metavar="FILE", help="a .dcwb project file")
    s.add_argument("--node", metavar="NAME", help="one node only")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_show)

    c = vsub.add_parser("check", help="run the version checks; exit 1 on an error")
    c.add_argument("file", metavar="FILE", help="a .dcwb project file")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.set_defaults(func=cmd_check)


def _print(payload: dict[str, Any]) -> None:
    json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
    print()


# -- baseline -----------------------------------------------------------------------------


def cmd_baseline(args: argparse.Namespace) -> int:
    from workbench.model import ops
    from workbench.model.errors import EditError
    from workbench.versions.stack_file import StackFileError, baseline_edit, read_stack_file

    path = Path(args.file)
    design = open_project(path)
    try:
        stack = read_stack_file(Path(args.stack))
    except StackFileError as exc:
        raise CliError(str(exc), EXIT_BAD_INPUT) from None
    name = args.name or stack.name or Path(args.stack).stem
    try:
        edit = baseline_edit(design, name, stack.versions, args.nodes, note=args.note or stack.note,
                             author=login_name(""), created=now_utc())  # fmt: skip
        if edit.op is not None:
            ops.apply(design, edit.op)
    except EditError as exc:
        raise CliError(f"{args.stack}: {exc}", EXIT_BAD_INPUT) from None
    if edit.op is not None:
        save_project(design, path)
    payload = edit.to_json(design)
    if args.json:
        _print(payload)
    else:
        for line in edit.lines(design):
            print(line)
    return 0


# -- import -------------------------------------------------------------------------------


def cmd_import(args: argparse.Namespace) -> int:
    from workbench.model.errors import EditError
    from workbench.versions.importer import apply_import, plan_import
    from workbench.versions.reports import ReportError

    path = Path(args.file)
    design = open_project(path)
    folder = Path(args.folder)
    if not folder.is_dir():
        raise CliError(f"{folder}: not a folder of node reports", EXIT_BAD_INPUT)
    try:
        plan = plan_import(design, folder, who=login_name(args.who), when=now_utc())
    except ReportError as exc:
        raise CliError(f"import refused, nothing changed: {exc}", EXIT_BAD_INPUT) from None
    except EditError as exc:
        raise CliError(f"import refused, nothing changed: {exc}", EXIT_BAD_INPUT) from None
    if plan.changes_anything:
        apply_import(design, plan)
        save_project(design, path)
    summary = plan.summary
    if args.json:
        _print(
            {
                "file": str(path),
                "import_id": plan.import_id if plan.changes_anything else None,
                "files_read": summary.files_read,
                "formats": summary.formats,
                "nodes_updated": list(summary.nodes_updated),
                "values_changed": len(summary.changed),
                "first_reports": len(summary.first_reports),
                "unchanged": summary.unchanged,
                "unknown_nodes": list(summary.unknown_nodes),
                "observations": len(plan.observations),
                "notes": list(summary.notes),
            }
        )
    else:
        for line in summary.lines():
            print(line)
        if not plan.changes_anything:
            print(f"Nothing new to import; {path} left as it was.")
        else:
            print(f"Wrote {path} (import {plan.import_id}).")
    return 0


# -- show and check ------------------------------------------------------------------------


def cmd_show(args: argparse.Namespace) -> int:
    from workbench.model.versions import OBSERVED_LABELS
    from workbench.versions.matrix import effective_versions, where

    design = open_project(Path(args.file))
    nodes = effective_versions(design)
    if args.node is not None:
        if args.node not in nodes:
            raise CliError(
                f"{args.file}: no node {args.node!r} in the version matrix", EXIT_BAD_INPUT
            )
        nodes = {args.node: nodes[args.node]}
    if args.json:
        _print({"file": args.file, "nodes": [nv.to_json() for nv in nodes.values()]})
        return 0
    for nv in nodes.values():
        follows = (
            f"baseline {nv.baseline_name!r} r{nv.revision}" if nv.baseline_id else "no baseline"
        )
        print(f"{nv.node} ({follows}; {len(nv.drift)} drifted)")
        for layer in sorted(set(nv.expected) | set(nv.observed), key=_layer_order):
            seen = nv.observed.get(layer)
            shown = f"{seen.value} ({where(seen)})" if seen else "not reported"
            pin = nv.expected.get(layer, "-")
            mark = " DRIFT" if any(d.layer == layer for d in nv.drift) else ""
            print(f"  {OBSERVED_LABELS.get(layer, layer):<30} {pin:<18} {shown}{mark}")
    return 0


def _layer_order(layer: str) -> int:
    from workbench.model.versions import OBSERVED_KEYS

    return OBSERVED_KEYS.index(layer) if layer in OBSERVED_KEYS else len(OBSERVED_KEYS)


def cmd_check(args: argparse.Namespace) -> int:
    from workbench.rules import REGISTRY, Severity, check_design
    from workbench.versions.matrix import effective_versions

    design = open_project(Path(args.file))
    rules = [r for r in REGISTRY.values() if r.id.startswith("VERSION-")]
    findings = check_design(design, rules=rules)
    waived = {(w.rule, w.object_id) for w in design.waivers}
    names = {d.id: d.name for _, d in design.iter_devices()}
    drift = {name: nv.drift for name, nv in effective_versions(design).items()} if findings else {}
    rows = []
    for f in findings:
        node = names.get(f.object_id, "")
        layer = _RULE_LAYER.get(f.rule, "")
        if f.rule == "VERSION-DRIFT":
            layer = ",".join(d.layer for d in drift.get(node, ()))
        rows.append(
            {
                "rule": f.rule,
                "severity": f.severity.name.lower(),
                "node": node,
                "layer": layer,
                "message": f.message,
                "source": REGISTRY[f.rule].source,
                "waived": f.key in waived,
            }
        )
    errors = sum(1 for f in findings if f.severity >= Severity.ERROR and f.key not in waived)
    if args.json:
        _print({"file": args.file, "errors": errors, "findings": rows})
    else:
        for row in rows:
            flag = " (waived)" if row["waived"] else ""
            print(f"{row['severity']:<8} {row['rule']:<18} {row['message']}{flag}")
        print(f"{len(rows)} findings, {errors} unwaived errors")
    return EXIT_ERRORS if errors else 0
