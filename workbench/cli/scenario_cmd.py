"""``workbench scenario FILE --node-type X --cooling air,liquid [-o OUT]``: variants of a
design in one step, each saved beside it as ``NAME.scenario-LABEL.dcwb``.

Each option takes one value, several separated by commas, or is given again; one
variant is made per combination (at most
:data:`~workbench.templates.variants.MAX_VARIANTS`).  A variant is the design rebuilt
with the swapped building blocks (:mod:`workbench.templates.variants`): racks re-packed
within the new limits, the fabric re-cabled, the jobs kept.  What the rules find on
each is printed, one line per rule (``--json``: one object with every finding).  Exit status 0 when every variant is written,
2 when FILE cannot be read or an option is wrong.  FILE is only read; the whole plan is
checked (values, count, existing files) before anything is built, each variant is
written atomically, and never over an existing file unless ``--force`` is given.  Each
variant's comparison figures are computed from the design in hand (its rule findings
reused) and kept in the user's cache folder, and so are FILE's (from the design read,
kept only while the file still holds the bytes read), so ``workbench compare`` of FILE
and the variants right after reads none of them again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.errors import CliError

EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``scenario`` to the command line."""
    from workbench.catalog.vocabulary import COOLING_TYPES
    from workbench.templates.specs import MAX_VARIANTS, TOPOLOGIES

    p = sub.add_parser(
        "scenario",
        help="make variants of a design (node type, cooling, switch, topology)",
        description="Rebuild FILE with other GPU node types, cooling, compute switches or "
        "topologies (racks re-packed within the new limits, the jobs kept), save one "
        "sibling scenario file per combination and list what the design rules find on "
        f"each. Options take several values, comma-separated or repeated (at most "
        f"{MAX_VARIANTS} variants in one run).",
    )
    many = "; several: comma-separated or repeated"
    p.add_argument("file", metavar="FILE", help="the .dcwb project file to vary")
    for option, metavar, what in (
        ("--node-type", "SLUG", "GPU server catalog slug"),
        ("--cooling", "|".join(sorted(COOLING_TYPES)), "rack cooling"),
        ("--switch", "SLUG", "compute switch catalog slug"),
        ("--topology", "|".join(sorted(TOPOLOGIES)), "compute topology"),
    ):
        p.add_argument(option, metavar=metavar, action="append", help=what + many)
    p.add_argument("--label", help="scenario label of a single variant (default: its changes)")
    p.add_argument("-o", "--output", metavar="OUT", help="where to write a single variant")
    p.add_argument("--force", action="store_true", help="overwrite files that exist")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_scenario)


def split_values(given: list[str] | None) -> tuple[str, ...]:
    """Repeated and comma-separated option values as one list (blanks dropped)."""
    return tuple(v.strip() for text in given or () for v in text.split(",") if v.strip())


def cmd_scenario(args: argparse.Namespace) -> int:
    from workbench.cli.catalog_load import load_catalog_noting_errors
    from workbench.cli.progress import step
    from workbench.cli.project_io import open_project, save_project
    from workbench.planning.scenarios import scenario_path
    from workbench.planning.scenarios.figures import keep_figures_of_saved
    from workbench.planning.scenarios.figures_cache import file_digest
    from workbench.templates.builder import TemplateError
    from workbench.templates.variants import (
        VariantChoices,
        make_variant,
        plan_variants,
        variant_paths,
    )

    choices = VariantChoices(
        split_values(args.node_type),
        split_values(args.cooling),
        split_values(args.switch),
        split_values(args.topology),
    )
    if choices.count() == 0:
        raise CliError(
            "scenario: say what to change (--node-type, --cooling, --switch or --topology)",
            EXIT_BAD_INPUT,
        )
    if choices.count() > 1 and (args.output or args.label):
        raise CliError(
            f"scenario: {choices.count()} variants asked for; -o and --label name a single "
            "variant (several are named from the design's name and each variant's label)",
            EXIT_BAD_INPUT,
        )
    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"{path}: no such project file", EXIT_BAD_INPUT)
    try:  # what is read next: the base figures are kept only for exactly these bytes
        read = file_digest(path)
    except OSError:
        read = None
    design = open_project(path)
    catalog = load_catalog_noting_errors()
    try:
        requests = plan_variants(design, choices, catalog)
        if args.output or args.label:
            request = requests[0]
            outs = [Path(args.output) if args.output else scenario_path(path, args.label)]
        else:
            outs = variant_paths(path, requests)
    except TemplateError as exc:
        raise CliError(f"scenario: {exc}", EXIT_BAD_INPUT) from None
    there = [out for out in outs if out.exists()]
    if there and not args.force:
        names = ", ".join(str(out) for out in there)
        raise CliError(f"{names}: exists; give --force to overwrite", EXIT_BAD_INPUT)
    made = []
    for n, (request, out) in enumerate(zip(requests, outs, strict=True), 1):
        try:
            with step(f"building variant {n} of {len(requests)}: {request.label()}"):
                variant = make_variant(design, request, catalog)
        except TemplateError as exc:
            raise CliError(f"scenario: {request.label()}: {exc}", EXIT_BAD_INPUT) from None
        save_project(variant.design, out)
        with step(f"keeping the figures of {out.name}"):
            keep_figures_of_saved(
                variant.design,
                out,
                catalog,
                findings=variant.findings,
                context=variant.context,
            )
        made.append((out, variant))
        if not args.json:
            print(f"wrote {out}")
            for line in variant.brief():
                print(f"  {line}")
            print("  passes the rules" if variant.passes else "  has rule errors (listed above)")
    if read is not None:
        # ``compare`` of the base and its variants, the next step, then reads no file.
        with step(f"keeping the figures of {path.name}"):
            keep_figures_of_saved(design, path, catalog, read=read)
    if args.json:
        json.dump(
            {
                "design": str(path),
                "variants": [
                    {
                        "file": str(out),
                        "label": variant.request.label(),
                        "node_type": variant.request.node_type,
                        "cooling": variant.request.cooling,
                        "switch": variant.request.compute_switch,
                        "topology": variant.request.topology,
                        "passes": variant.passes,
                        "findings": variant.broken,
                    }
                    for out, variant in made
                ],
            },
            sys.stdout,
            indent=2,
            ensure_ascii=False,
        )
        print()
    return 0
