"""``workbench costs FILE [--tariff 0.12 --pue 1.15 ...] [--json]``: show or set the
design's cost inputs and print what it costs.

Without flags the file is only read.  With flags the values are set by the model's own
edit (:class:`workbench.model.cost_ops.SetCostInputs`, the one the window's Costs form
makes), all checked before anything changes, and the file is written back atomically; a
refused value leaves the file as it was (exit 2).  ``default`` as a value puts an input
back to its default.  The figures are :func:`workbench.calc.costs.design_costs`, the
same the report's ``cost`` section and the Estimates view show.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.errors import CliError
from workbench.cli.project_io import EXIT_BAD_INPUT, open_project, save_project

#: Flag → cost input (``workbench.model.cost_inputs.CostInputs`` field) and help text.
FLAGS: dict[str, tuple[str, str]] = {
    "--currency": ("currency", "currency code of the prices and figures (USD)"),
    "--tariff": ("tariff_per_kwh", "electricity tariff per kWh (0.10)"),
    "--pue": ("pue", "PUE for the energy cost (default: the design's PUE)"),
    "--maintenance-pct": ("maintenance_pct", "maintenance and support, % of capex a year (8)"),
    "--installation-pct": ("installation_pct", "installation, % of the hardware (3)"),
    "--spares-pct": ("spares_pct", "spares, % of every category (default: the BOM's)"),
    "--space-per-rack": ("space_per_rack_year", "space per rack position per year (6000)"),
    "--staffing": ("staffing_per_year", "staffing per year (0)"),
    "--years": ("amortisation_years", "amortisation period in years (4)"),
    "--utilisation": ("utilisation", "share of GPU-hours used, 0-1 (0.8)"),
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``costs`` to the command line."""
    p = sub.add_parser(
        "costs",
        help="show or set the cost inputs; print capex, opex, cost per GPU-hour and run",
        description="Print the design's costs. With flags, set those cost inputs first "
        "(checked, then saved atomically); 'default' puts one back to its default.",
    )
    p.add_argument("file", metavar="FILE", help="a .dcwb project file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    for flag, (_field, text) in FLAGS.items():
        # argparse %-formats help texts ("% of capex" read as a "%o" conversion).
        p.add_argument(flag, default=None, metavar="VALUE", help=text.replace("%", "%%"))
    p.set_defaults(func=cmd_costs)


def cmd_costs(args: argparse.Namespace) -> int:
    """Set the given inputs (if any), then print the costs."""
    from workbench.calc.costs import design_costs
    from workbench.cli.cost_text import cost_lines
    from workbench.model import ops
    from workbench.model.cost_ops import SetCostInputs
    from workbench.model.errors import EditError

    path = Path(args.file)
    design = open_project(path)
    values = tuple(
        (field, None if str(raw).strip().lower() == "default" else raw)
        for flag, (field, _t) in FLAGS.items()
        if (raw := getattr(args, flag[2:].replace("-", "_"))) is not None
    )
    if values:
        try:
            ops.apply(design, SetCostInputs(values))
        except EditError as exc:
            raise CliError(f"{path}: {exc}", EXIT_BAD_INPUT) from None
        save_project(design, path)
    cost = design_costs(design).to_dict()
    if args.json:
        json.dump(cost, sys.stdout, indent=2)
        print()
        return 0
    print(f"{path}: {design.name}")
    print("\n".join(cost_lines(cost)))
    return 0
