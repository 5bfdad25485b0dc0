"""``workbench fabric``: size and analyse a compute fabric without opening a design.

Examples::

    workbench fabric --nodes 128 --node-model nvidia-dgx-h100 --switch nvidia-qm9700 \\
        --rail-optimized --json
    workbench fabric --gpus 100000 --switch nvidia-q3400-ra --rail-optimized

It builds a scratch design of that many nodes in racks on a hall plan (the template
builder's racks for the node model, :func:`workbench.templates.builder.build_nodes`),
generates the compute plane with the fabric generator, and prints the analysis of
:func:`workbench.calc.fabric.analysis.analyse_plane` (tiers, switches per tier, links,
oversubscription per tier, bisection bandwidth, cables by type) with the generator's
shape.  Exit status 0; 1 when no fabric of the switch can meet the request (the
explanation says what would); 2 for a bad option, named.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
from typing import Any

from workbench.cli.errors import CliError

EXIT_IMPOSSIBLE = 1
EXIT_BAD_INPUT = 2
DEFAULT_NODE_MODEL = "nvidia-dgx-h100"
DEFAULT_SWITCH = "nvidia-qm9700"


def _count(text: str) -> int:
    """A whole number of at least 1 (``1e5`` is accepted as 100000)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not value.is_integer() or value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text}")
    return int(value)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``fabric`` to the command line."""
    p = sub.add_parser(
        "fabric",
        help="size and analyse a compute fabric for N nodes",
        description="Generate the compute fabric of N nodes of a server model on a switch "
        "model (2 tiers while they fit, else 3; rail-optimized scalable units with "
        "--rail-optimized) and print its switches, links, oversubscription, bisection "
        "bandwidth and cables. Exit status 1 when the switch cannot build it, 2 for a "
        "bad option.",
    )
    size = p.add_mutually_exclusive_group(required=True)
    size.add_argument("--nodes", type=_count, help="number of servers")
    size.add_argument("--gpus", type=_count, help="number of GPUs (nodes = GPUs / GPUs per node)")
    p.add_argument(
        "--node-model",
        metavar="SLUG",
        default=DEFAULT_NODE_MODEL,
        help=f"server catalog slug (default {DEFAULT_NODE_MODEL})",
    )
    p.add_argument(
        "--switch",
        metavar="SLUG",
        default=DEFAULT_SWITCH,
        help=f"leaf switch catalog slug (default {DEFAULT_SWITCH})",
    )
    p.add_argument(
        "--spine-switch", metavar="SLUG", help="spine and core switch (default: --switch)"
    )
    p.add_argument(
        "--rail-optimized",
        action="store_true",
        help="port i of every node of a scalable unit to rail leaf i of that unit",
    )
    p.add_argument(
        "--topology",
        choices=("auto", "2-tier", "3-tier", "rail"),
        default=None,
        help="leaf-spine depth, or rail (same as --rail-optimized); default auto",
    )
    p.add_argument(
        "--oversubscription",
        type=float,
        default=1.0,
        help="leaf downlink over uplink bandwidth, 1 = non-blocking (default 1)",
    )
    p.add_argument(
        "--speed", type=_positive, default=None, help="Gb/s per node port (default: the node's)"
    )
    p.add_argument(
        "--su-nodes", type=_count, default=32, help="nodes per scalable unit (default 32)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_fabric)


def cmd_fabric(args: argparse.Namespace) -> int:
    """Build, generate and analyse with the cyclic collector paused.

    The scratch design (~440,000 links and their indexes at 100,000 GPUs) all lives
    until the process ends, so the collector's passes over it free nothing: they were
    ~0.3 s of the 2.4 s command at 100,000 GPUs."""
    from workbench.planning.fabric.wiring import bulk_allocation

    with bulk_allocation():
        return _fabric(args)


def _fabric(args: argparse.Namespace) -> int:
    from workbench.calc.fabric.analysis import analyse_plane
    from workbench.calc.fabric.layered import layered_structure
    from workbench.calc.fabric.tables import DeviceTable, link_arrays
    from workbench.cli.catalog_load import load_catalog_noting_errors
    from workbench.model.ports import candidate_ports
    from workbench.planning.fabric.generator import FabricRequest, build_fabric
    from workbench.planning.fabric.sizing import FabricError
    from workbench.templates.builder import build_nodes

    catalog = load_catalog_noting_errors()
    node = catalog.get(args.node_model)
    if node is None:
        raise CliError(f"--node-model: the catalog has no item {args.node_model!r}", EXIT_BAD_INPUT)
    if node.kind != "server":
        raise CliError(
            f"--node-model: {args.node_model} is a {node.kind}, not a server", EXIT_BAD_INPUT
        )
    if not candidate_ports(node, "compute", as_host=True):
        raise CliError(f"--node-model: {args.node_model} has no compute ports", EXIT_BAD_INPUT)
    for option, slug in (("--switch", args.switch), ("--spine-switch", args.spine_switch)):
        if slug is None:
            continue
        item = catalog.get(slug)
        if item is None:
            raise CliError(f"{option}: the catalog has no item {slug!r}", EXIT_BAD_INPUT)
        if item.kind != "switch":
            raise CliError(f"{option}: {slug} is a {item.kind}, not a switch", EXIT_BAD_INPUT)
    if not (math.isfinite(args.oversubscription) and 1 <= args.oversubscription <= 64):
        raise CliError(
            f"--oversubscription: from 1 (non-blocking) to 64, not {args.oversubscription:g}",
            EXIT_BAD_INPUT,
        )
    per_node = max(node.gpu_count, 1)
    nodes = args.nodes if args.nodes is not None else math.ceil(args.gpus / per_node)
    topology = "rail" if args.rail_optimized else (args.topology or "auto")
    design = build_nodes(
        node.slug, nodes, catalog, compute_switch=args.switch, speed_gbps=args.speed
    )
    request = FabricRequest(
        plane="compute",
        switch=args.switch,
        spine_switch=args.spine_switch,
        speed_gbps=args.speed,
        oversubscription=args.oversubscription,
        topology=topology,
        su_nodes=args.su_nodes,
    )
    try:
        # Kept, never undone: no inverse or change of its 300,000 links is gathered
        # (~0.1-0.2 s of CPU at 100,000 GPUs that nothing read).
        plan = build_fabric(design, catalog, request)
    except FabricError as exc:
        raise CliError(str(exc), EXIT_IMPOSSIBLE) from None
    # The plane as the generator laid it out, where that is what reading its links
    # finds (else None: analyse_plane reads them), read off the link arrays that the
    # analysis reads too.
    devices = arrays = structure = None
    if plan.layers is not None:
        table = DeviceTable(design)
        arrays = link_arrays(table, plan.layers.links)
        structure = layered_structure(design, plan.layers, table, arrays)
        # Else read afresh, as for a design read from a file.
        devices, arrays = (table, arrays) if structure is not None else (None, None)
    report = analyse_plane(
        design, "compute", structure=structure, devices=devices, arrays=arrays
    ).to_json()
    speed = next(n.speed_gbps for n in design.networks if n.id == plan.network_id)
    out: dict[str, Any] = {
        "nodes": nodes,
        "gpus": nodes * node.gpu_count,
        "node_model": node.slug,
        "switch": args.switch,
        "spine_switch": args.spine_switch or args.switch,
        "topology": plan.shape.topology,
        "speed_gbps": speed,
        **report,
        "shape": plan.shape.to_json(),
        "notes": list(plan.notes),
    }
    if getattr(args, "process_ends", False):
        # The process ends after the write: the scratch design (cyclic, ~1.5 million
        # objects at 100,000 GPUs) is left for the exit to drop, unwalked by the
        # interpreter's last collection, which skips frozen objects (see cmd_new).
        gc.freeze()
    if args.json:
        # One write: json.dump writes each of ~135,000 pieces (0.8 MB at 100,000 GPUs).
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        _print_table(out)
    return 0


def _print_table(r: dict[str, Any]) -> None:
    kind = {"rail": "rail-optimized", "tor": "top-of-rack"}.get(r["topology"], "leaf-spine")
    print(
        f"Compute fabric for {r['nodes']:,} × {r['node_model']} ({r['gpus']:,} GPUs): "
        f"{kind}, {r['tiers']} tiers of {r['switch']} at {r['speed_gbps']:g}G"
    )
    over = ", ".join(f"{tier} {ratio:.3g}:1" for tier, ratio in r["oversubscription"].items())
    cables = r.get("cables") or {}
    counts = cables.get("by_media") or cables.get("counts") or {}
    cable_text = ", ".join(f"{k} {v:,}" for k, v in counts.items()) if counts else "n/a"
    rows = [
        ("leaf switches", f"{r['leaf_switches']:,}"),
        ("spine switches", f"{r['spine_switches']:,}"),
        ("core switches", f"{r['core_switches']:,}"),
        ("links", f"{r['links']:,}"),
        ("oversubscription", over or "n/a"),
        ("bisection", f"{r['bisection_tbps']:,.1f} Tb/s"),
        ("max hops", str(r.get("max_hops"))),
        ("cables", cable_text),
    ]
    shape = r["shape"]
    if shape.get("sus"):
        rows.insert(0, ("scalable units", f"{shape['sus']:,} × {shape['su_nodes']} nodes"))
    if shape.get("tiers") == 3:
        rows.insert(3, ("pods", f"{shape['pods']:,} of up to {shape['pod_leaves']} leaves"))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"  {key:<{width}}  {value}")
