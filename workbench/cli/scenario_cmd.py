"""``workbench scenario FILE --node-type X --cooling liquid [-o OUT]``: a variant of a
design in one step, saved beside it as ``NAME.scenario-LABEL.dcwb``.

The variant is the design rebuilt with the swapped building blocks
(:mod:`workbench.templates.variants`): racks re-packed within the new limits, the
fabric re-cabled, the jobs kept.  What the rules find on it is printed.  Exit status 0
when the variant is written, 2 when FILE cannot be read or an option is wrong.  FILE is
only read; the variant is written atomically and never over an existing file unless
``--force`` is given.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.errors import CliError

EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``scenario`` to the command line."""
    from workbench.catalog.vocabulary import COOLING_TYPES
    from workbench.templates.variants import TOPOLOGIES

    p = sub.add_parser(
        "scenario",
        help="make a variant of a design (node type, cooling, switch, topology)",
        description="Rebuild FILE with another GPU node type, cooling, compute switch or "
        "topology (racks re-packed within the new limits, the jobs kept), save it as a "
        "sibling scenario file and list what the design rules find on it.",
    )
    p.add_argument("file", metavar="FILE", help="the .dcwb project file to vary")
    p.add_argument("--node-type", metavar="SLUG", help="GPU server catalog slug")
    p.add_argument("--cooling", choices=sorted(COOLING_TYPES), help="rack cooling")
    p.add_argument("--switch", metavar="SLUG", help="compute switch catalog slug")
    p.add_argument("--topology", choices=sorted(TOPOLOGIES), help="compute topology")
    p.add_argument("--label", help="scenario label (default: from the changes)")
    p.add_argument("-o", "--output", metavar="OUT", help="where to write the variant")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    p.set_defaults(func=cmd_scenario)


def cmd_scenario(args: argparse.Namespace) -> int:
    from workbench.cli.progress import step
    from workbench.cli.project_io import open_project, save_project
    from workbench.planning.scenarios import scenario_path
    from workbench.templates.builder import TemplateError
    from workbench.templates.variants import VariantRequest, make_variant

    request = VariantRequest(args.node_type, args.cooling, args.switch, args.topology)
    if request == VariantRequest():
        raise CliError(
            "scenario: say what to change (--node-type, --cooling, --switch or --topology)",
            EXIT_BAD_INPUT,
        )
    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"{path}: no such project file", EXIT_BAD_INPUT)
    design = open_project(path)
    out = Path(args.output) if args.output else scenario_path(path, args.label or request.label())
    if out.exists() and not args.force:
        raise CliError(f"{out}: exists; give --force to overwrite it", EXIT_BAD_INPUT)
    try:
        with step("building the variant"):
            variant = make_variant(design, request)
    except TemplateError as exc:
        raise CliError(f"scenario: {exc}", EXIT_BAD_INPUT) from None
    save_project(variant.design, out)
    print(f"wrote {out}")
    for line in variant.broken:
        print(f"  {line}")
    print("passes the rules" if variant.passes else "has rule errors (listed above)")
    return 0
