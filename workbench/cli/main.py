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

#: Modules that register subcommands, in the order they appear in ``--help``.
SUBCOMMAND_MODULES: tuple[str, ...] = (
    "workbench.cli.project_cmds",
    "workbench.cli.check_cmd",
    "workbench.cli.repair_cmd",
    "workbench.cli.catalog_cmds",
    "workbench.cli.estimate_cmd",
    "workbench.cli.print_cmd",
    "workbench.cli.fabric_cmd",
    "workbench.cli.versions_cmd",
    "workbench.cli.teams_cmd",
    "workbench.cli.costs_cmd",
    "workbench.cli.tiers_cmd",
    "workbench.cli.export_cmd",
    "workbench.cli.acceptance_cmd",
    "workbench.cli.asbuilt_cmd",
    "workbench.cli.netbox_cmd",
    "workbench.cli.compare_cmd",
    "workbench.cli.scenario_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every registered subcommand."""
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
    for name in SUBCOMMAND_MODULES:
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
    parser = build_parser()
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
