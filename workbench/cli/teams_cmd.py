"""``workbench teams``: the teams sharing the cluster (their QOS and quotas).

- ``list FILE`` prints each team: name, GPUs or share, priority;
- ``add FILE NAME (--gpus N | --share F) [--priority P]`` adds one;
- ``set FILE NAME [--name NEW] [--gpus N | --share F] [--priority P]`` changes one;
- ``remove FILE NAME`` takes one out.

Every change is the model's own edit (:mod:`workbench.model.team_ops`, the one the
window's Teams dialog makes), checked before the file is written back atomically; a
refused value leaves the file as it was (exit 2).  The Slurm and Kubernetes exports read
the teams: a QOS and account, a namespace, quota and priority class per team.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.errors import CliError
from workbench.cli.project_io import EXIT_BAD_INPUT, open_project, save_project

if TYPE_CHECKING:
    from workbench.model import Design, Team
    from workbench.model.ops import Op


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``teams`` and its subcommands to the command line."""
    p = sub.add_parser(
        "teams",
        help="teams sharing the cluster: GPUs or share, priority",
        description="The teams of the design; the Slurm and Kubernetes exports give each a "
        "QOS and account, a namespace, a GPU quota and a priority class.",
    )
    tsub = p.add_subparsers(dest="teams_command", metavar="SUBCOMMAND", required=True)

    ls = tsub.add_parser("list", help="print the teams")
    ls.add_argument("file", metavar="FILE", help="a .dcwb project file")
    ls.add_argument("--json", action="store_true", help="print one JSON object")
    ls.set_defaults(func=cmd_list)

    for name, helptext, func in (
        ("add", "add a team", cmd_add),
        ("set", "change a team's name, limit or priority", cmd_set),
    ):
        a = tsub.add_parser(name, help=helptext)
        a.add_argument("file", metavar="FILE", help="a .dcwb project file (written back)")
        a.add_argument("name", metavar="NAME", help="the team's name (a Kubernetes namespace)")
        limit = a.add_mutually_exclusive_group(required=name == "add")
        limit.add_argument("--gpus", type=int, metavar="N", help="GPUs the team may use")
        limit.add_argument(
            "--share", type=float, metavar="F", help="share of the cluster's GPUs, 0 to 1"
        )
        a.add_argument("--priority", type=int, metavar="P", help="QOS priority (higher first)")
        if name == "set":
            a.add_argument("--rename", metavar="NEW", help="a new name")
        a.set_defaults(func=func)

    r = tsub.add_parser("remove", help="remove a team")
    r.add_argument("file", metavar="FILE", help="a .dcwb project file (written back)")
    r.add_argument("name", metavar="NAME")
    r.set_defaults(func=cmd_remove)


def _limit(team: Team) -> str:
    return f"{team.gpus:,} GPUs" if team.gpus is not None else f"{team.share:.0%} of the GPUs"


def cmd_list(args: argparse.Namespace) -> int:
    design = open_project(Path(args.file))
    if args.json:
        payload = [
            {"id": t.id, "name": t.name, "gpus": t.gpus, "share": t.share, "priority": t.priority}
            for t in design.teams
        ]
        json.dump({"teams": payload}, sys.stdout, indent=2)
        print()
        return 0
    if not design.teams:
        print("no teams (the exports make one 'default' team allowed every GPU)")
    for team in design.teams:
        print(f"{team.name}: {_limit(team)}, priority {team.priority}")
    return 0


def _apply(args: argparse.Namespace, make: Callable[[Design], Op]) -> int:
    from workbench.model import ops
    from workbench.model.errors import EditError

    design = open_project(Path(args.file))
    try:
        ops.apply(design, make(design))
    except EditError as exc:
        raise CliError(f"{args.file}: {exc}", EXIT_BAD_INPUT) from None
    save_project(design, Path(args.file))
    return cmd_list(argparse.Namespace(file=args.file, json=False))


def _find(design: Design, name: str) -> Team:
    from workbench.model.errors import EditError

    for team in design.teams:
        if team.name == name:
            return team
    raise EditError(f"no team named {name!r}")


def cmd_add(args: argparse.Namespace) -> int:
    from workbench.model import Team
    from workbench.model.team_ops import AddTeam, new_team_id

    return _apply(
        args,
        lambda design: AddTeam(
            Team(
                new_team_id(design),
                args.name,
                args.gpus,
                args.share,
                1 if args.priority is None else args.priority,
            )  # fmt: skip
        ),
    )


def cmd_set(args: argparse.Namespace) -> int:
    from workbench.model.team_ops import SetTeamFields, set_limit

    def make(design: Design) -> Op:
        team = _find(design, args.name)
        values: list[tuple[str, object]] = []
        if args.rename is not None:
            values.append(("name", args.rename))
        if args.gpus is not None or args.share is not None:
            values += set_limit(team, gpus=args.gpus, share=args.share)
        if args.priority is not None:
            values.append(("priority", args.priority))
        return SetTeamFields(team.id, tuple(values))

    return _apply(args, make)


def cmd_remove(args: argparse.Namespace) -> int:
    from workbench.model.team_ops import RemoveTeam

    return _apply(args, lambda design: RemoveTeam(_find(design, args.name).id))
