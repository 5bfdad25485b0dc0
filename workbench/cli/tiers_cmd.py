"""``workbench tiers``: a storage tier's planning figures from the command line.

- ``list FILE`` prints each tier with its appliances, cabling and figures;
- ``set FILE TIER [--metadata-servers N] [--small-file-iops X] [--dataset-tb X]
  [--concurrent-jobs N] [--gpudirect-storage yes|no]`` sets them (``TIER`` is the
  tier's id or name; ``none`` clears a figure).

The change is the model's own edit (:class:`~workbench.model.net_ops.SetTierFields`),
checked before the file is written back; STORAGE-CAPACITY and STORAGE-METADATA judge
the figures (``workbench check``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.errors import CliError
from workbench.cli.project_io import EXIT_BAD_INPUT, open_project, save_project

#: Option → (tier field, how its text is read).
_FIELDS: dict[str, tuple[str, type]] = {
    "metadata_servers": ("metadata_servers", int),
    "small_file_iops": ("small_file_iops", float),
    "dataset_tb": ("dataset_tb", float),
    "concurrent_jobs": ("concurrent_jobs", int),
}
#: Words ``--gpudirect-storage`` takes.
_YES_NO: dict[str, bool | None] = {"yes": True, "no": False, "none": None}


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``tiers`` and its subcommands to the command line."""
    p = sub.add_parser(
        "tiers",
        help="storage tiers' planning figures (metadata servers, IOPS, dataset, jobs)",
        description="A storage tier's planning figures: dedicated metadata servers, the "
        "small-file IOPS they serve, the dataset size and how many jobs read it at once.",
    )
    tsub = p.add_subparsers(dest="tiers_command", metavar="SUBCOMMAND", required=True)
    ls = tsub.add_parser("list", help="print the tiers and their figures")
    ls.add_argument("file", metavar="FILE", help="a .dcwb project file")
    ls.set_defaults(func=cmd_list)
    s = tsub.add_parser("set", help="set a tier's planning figures")
    s.add_argument("file", metavar="FILE", help="a .dcwb project file (written back)")
    s.add_argument("tier", metavar="TIER", help="the tier's id or name")
    for option in _FIELDS:
        s.add_argument(f"--{option.replace('_', '-')}", dest=option, metavar="X",
                       help="a number, or 'none' to clear it")  # fmt: skip
    s.add_argument("--gpudirect-storage", dest="gpudirect_storage", metavar="yes|no",
                   help="whether the GPU nodes read the tier with GPUDirect Storage "
                   "('none' clears it)")  # fmt: skip
    s.set_defaults(func=cmd_set)


def cmd_list(args: argparse.Namespace) -> int:
    from workbench.calc.storage_tiers import tier_figures

    design = open_project(Path(args.file))
    for tier, figures in zip(design.storage_tiers, tier_figures(design), strict=True):
        said = ", ".join(
            f"{name.replace('_', ' ')} {value:g}"
            for name in _FIELDS
            if (value := getattr(tier, name)) is not None
        )
        if tier.gpudirect_storage is not None:
            gds = f"GPUDirect Storage {'yes' if tier.gpudirect_storage else 'no'}"
            said = f"{said}, {gds}" if said else gds
        print(
            f"{tier.id} ({tier.name}, {tier.tier}): {figures.devices:,} appliances, "
            f"{figures.cabled_text}, {figures.usable_tb:,.1f} TB usable, "
            f"{figures.effective_read_gbs:,.1f} GB/s read; {said or 'no planning figures'}"
        )
    return 0


def cmd_set(args: argparse.Namespace) -> int:
    from workbench.model import ops
    from workbench.model.errors import EditError
    from workbench.model.net_ops import SetTierFields

    path = Path(args.file)
    design = open_project(path)
    tier = next((t for t in design.storage_tiers if args.tier in (t.id, t.name)), None)
    if tier is None:
        raise CliError(f"{args.file}: no storage tier {args.tier!r}", EXIT_BAD_INPUT)
    values: list[tuple[str, object]] = []
    for option, (field, kind) in _FIELDS.items():
        text = getattr(args, option)
        if text is None:
            continue
        try:
            values.append((field, None if text.lower() == "none" else kind(text)))
        except ValueError:
            raise CliError(
                f"--{option.replace('_', '-')}: {text!r} is not a number", EXIT_BAD_INPUT
            ) from None
    gds = getattr(args, "gpudirect_storage", None)
    if gds is not None:
        if gds.lower() not in _YES_NO:
            raise CliError(f"--gpudirect-storage: {gds!r} is not yes, no or none", EXIT_BAD_INPUT)
        values.append(("gpudirect_storage", _YES_NO[gds.lower()]))
    try:
        ops.apply(design, SetTierFields(tier.id, tuple(values)))
    except EditError as exc:
        raise CliError(f"{args.file}: {exc}", EXIT_BAD_INPUT) from None
    save_project(design, path)
    return cmd_list(argparse.Namespace(file=args.file))
