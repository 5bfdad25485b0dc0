"""The ``workbench`` command: opens the window, or runs a subcommand.

Subcommands live in small modules that each expose ``register(subparsers)``; the
dispatcher below only collects them, so later subcommands (check, export ...) slot in
without touching the others.  Errors are printed to stderr as one line and give a
non-zero exit; tracebacks are for bugs, not for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from workbench.cli.errors import CliError

__all__ = ["CliError", "build_parser", "main"]

#: The modules that register subcommands, in the order they appear in ``--help``, and
#: the commands each registers (a test holds every module to its names).
SUBCOMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("workbench.cli.project_cmds", ("new", "templates", "report")),
    ("workbench.cli.check_cmd", ("check",)),
    ("workbench.cli.repair_cmd", ("repair",)),
    ("workbench.cli.catalog_cmds", ("catalog",)),
    ("workbench.cli.estimate_cmd", ("estimate",)),
    ("workbench.cli.print_cmd", ("print",)),
    ("workbench.cli.fabric_cmd", ("fabric",)),
    ("workbench.cli.versions_cmd", ("versions",)),
    ("workbench.cli.teams_cmd", ("teams",)),
    ("workbench.cli.costs_cmd", ("costs",)),
    ("workbench.cli.tiers_cmd", ("tiers",)),
    ("workbench.cli.export_cmd", ("export",)),
    ("workbench.cli.acceptance_cmd", ("acceptance",)),
    ("workbench.cli.asbuilt_cmd", ("asbuilt",)),
    ("workbench.cli.netbox_cmd", ("netbox",)),
    ("workbench.cli.compare_cmd", ("compare",)),
    ("workbench.cli.scenario_cmd", ("scenario",)),
)
SUBCOMMAND_MODULES: tuple[str, ...] = tuple(module for module, _names in SUBCOMMANDS)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The full argument parser, with every registered subcommand; with ``command``
    (a name of :data:`SUBCOMMANDS`), only the subcommands of the module that registers
    it, which parse its arguments as the full parser would.

    Why: importing every subcommand module (estimate's models, the store, scenarios)
    was ~0.1-0.15 s of CPU of every command, ``workbench fabric`` at 100,000 GPUs
    included, which uses none of them."""
    parser = argparse.ArgumentParser(
        prog="workbench",
        # argparse cannot describe "FILE or a subcommand" by itself: FILE is handled by
        # main() before parsing, so the usage line says it in words.
        usage="%(prog)s [-h] [FILE | COMMAND ...]",
        description="Design GPU clusters offline. With no subcommand, opens the window "
        "on FILE, or on the bundled sample design.",
    )
    # prog= keeps the custom usage out of each subcommand's own usage line.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog="workbench")
    own = [module for module, names in SUBCOMMANDS if command in names]
    for name in own or SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # a subcommand not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    argv_given = argv is not None
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or names_no_command(argv[0]):
        return _open_window(argv)
    parser = build_parser(argv[0])
    choices = parser._subparsers._group_actions[0].choices if parser._subparsers else None
    commands = set(choices or ())
    if not argv or (argv[0] not in commands and not argv[0].startswith("-")):
        return _open_window(argv)
    if argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    # Whether the interpreter exits once this command returns (the console script and
    # ``python -m workbench`` call main() with no arguments; a test passes its own): a
    # command may then leave what it built for the exit to drop (see cmd_new).
    args.process_ends = argv_given is False
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``workbench report --json | head``): not an error of
        # ours.  Point stdout at devnull so the interpreter's final flush stays quiet.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def names_no_command(word: str) -> bool:
    """True when ``word`` cannot be a subcommand: it holds a dot or a path separator
    (``design.dcwb``, ``/data/d100k.dcwb``), which no command name does.

    Such a FILE opens the window without :func:`build_parser`, whose imports of every
    subcommand module (the whole command line: 0.05-0.25 s of CPU here) would otherwise
    come before the window's first frame.  A bare word still goes through the parser,
    so a file named like a command is read as that command, as before."""
    return not word.startswith("-") and any(mark in word for mark in (".", "/", "\\"))


def _open_window(argv: list[str]) -> int:
    """``workbench [FILE]``: start the GUI.  Imported lazily so the CLI needs no display."""
    if len(argv) > 1:
        print("workbench: give at most one FILE to open", file=sys.stderr)
        return 2
    from workbench.ui.shell.collector import collector_paused

    with collector_paused():
        from workbench.ui.shell.app import run_app

    return run_app(argv[0] if argv else None)


if __name__ == "__main__":
    sys.exit(main())
