"""What a new user reads about the command line: the README's examples and ``--help``."""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

import pytest

from workbench.cli.main import build_parser, main

README = Path(__file__).resolve().parents[1] / "README.md"

#: Words the README's command-line block uses for "put your own value here".
PLACEHOLDERS = ("FILE", "OUT.dcwb", "DIR", "KIND", "NAME", "N", "P")


def _command_block() -> str:
    """The fenced block under the README's "## Command line" heading."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Command line\n", 1)[1]
    match = re.search(r"^```[^\n]*\n(.*?)^```", section, re.S | re.M)
    assert match, "README: no fenced block under ## Command line"
    return match.group(1)


def _has_placeholder(command: str) -> bool:
    """True when a word of ``command`` is a placeholder (``FILE...`` counts as FILE)."""
    words = re.split(r"[\s\[\]|=]+", command)
    return any(word.rstrip(".") in PLACEHOLDERS for word in words)


def _runnable_examples() -> list[list[str]]:
    """Each concrete ``workbench ...`` line, as argv without the program name.

    A line's description (after two or more spaces) is dropped; ``[--opt]`` brackets
    give two runs, one without the optional part and one with it.  A run that still has
    a placeholder is skipped, and so is bare ``workbench``, which opens the window.
    """
    runs: list[list[str]] = []
    for line in _command_block().splitlines():
        command = re.split(r"\s{2,}", line.strip())[0]
        if not command.startswith("workbench "):
            continue
        for variant in (re.sub(r"\s*\[[^]]*\]", "", command), re.sub(r"[][]", "", command)):
            argv = shlex.split(variant)[1:]
            if argv and not _has_placeholder(variant) and argv not in runs:
                runs.append(argv)
    return runs


EXAMPLES = _runnable_examples()


def test_the_readme_has_examples_to_run():
    assert len(EXAMPLES) >= 4
    assert any(argv[:1] == ["estimate"] and "--gpu" in argv for argv in EXAMPLES)


@pytest.mark.parametrize("argv", EXAMPLES, ids=" ".join)
def test_readme_command_line_example_runs(argv, capsys, monkeypatch, tmp_path):
    """Copied from the README, every concrete example exits 0."""
    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(tmp_path / "no-user-catalog"))
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refusing the flags
        code = exc.code
    captured = capsys.readouterr()
    assert code == 0, f"workbench {shlex.join(argv)}: {captured.err.strip()}"


def test_top_level_usage_names_file_and_lists_the_subcommands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: workbench [-h] [FILE | COMMAND ...]\n")
    for command in ("new", "templates", "report", "catalog", "estimate"):
        assert re.search(rf"^\s+{command}\b", out, re.M), command


def test_a_file_with_a_dot_or_a_folder_opens_the_window_without_the_parser(monkeypatch):
    """``workbench design.dcwb`` starts the window before any subcommand module is
    imported; that shortcut must never shadow a command, so no command name could pass
    for a file."""
    from workbench.cli import main as cli_main

    commands = build_parser()._subparsers._group_actions[0].choices
    assert commands and not any(cli_main.names_no_command(name) for name in commands)
    opened: list[list[str]] = []
    monkeypatch.setattr(cli_main, "_open_window", lambda argv: opened.append(argv) or 0)
    monkeypatch.setattr(cli_main, "build_parser", lambda: pytest.fail("parser built"))
    for argv in ([], ["design.dcwb"], ["/data/d100k"], ["sub\\d.dcwb"]):
        assert main(argv) == 0
    assert opened == [[], ["design.dcwb"], ["/data/d100k"], ["sub\\d.dcwb"]]


def test_subcommand_usage_keeps_its_own_program_name(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["estimate", "--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("usage: workbench estimate [-h]")
    with pytest.raises(SystemExit):
        main(["catalog", "validate", "--help"])
    assert capsys.readouterr().out.startswith("usage: workbench catalog validate [-h]")


def _all_help_texts(parser) -> list[str]:
    """Description, epilog and every argument's help, through all subcommands."""
    texts = [parser.description or "", parser.epilog or "", parser.usage or ""]
    for action in parser._actions:
        texts.append(action.help or "")
        for choice in getattr(action, "_choices_actions", []):
            texts.append(choice.help or "")
        choices = getattr(action, "choices", None)
        if isinstance(choices, dict):  # a subcommand group: name -> parser
            for sub in choices.values():
                texts.extend(_all_help_texts(sub))
    return texts


def _every_parser(parser) -> list:
    """``parser`` and every subcommand's parser under it, at any depth."""
    found = [parser]
    for action in parser._actions:
        choices = getattr(action, "choices", None)
        if isinstance(choices, dict):
            for sub in choices.values():
                found.extend(_every_parser(sub))
    return found


def test_every_command_prints_its_help():
    """``workbench COMMAND --help`` formats every help text: argparse %-formats them,
    so a bare "%" (``costs --help`` once read "% of capex" as "%o") raised TypeError."""
    parsers = _every_parser(build_parser())
    assert len(parsers) > 20
    for parser in parsers:
        text = parser.format_help()
        assert text.startswith(f"usage: {parser.prog}"), parser.prog


def test_help_cites_published_sources_not_internal_documents():
    texts = _all_help_texts(build_parser())
    assert len(texts) > 30
    for text in texts:
        assert "brief" not in text.lower(), text
        assert "§" not in text and "issue " not in text.lower(), text
    estimate = next(t for t in texts if t.startswith("Capacity estimates"))
    for source in ("Kaplan", "ZeRO", "PaLM"):
        assert source in estimate


def test_each_subcommand_module_registers_the_names_the_table_gives_it():
    """``build_parser(command)`` imports only the module :data:`SUBCOMMANDS` names for
    ``command``: a module registering a name the table lacks (or not one it has) would
    make that command unknown, or parsed by the wrong module."""
    import argparse

    from workbench.cli import main as cli_main

    seen: list[str] = []
    for module_name, names in cli_main.SUBCOMMANDS:
        parser = argparse.ArgumentParser(prog="workbench")
        sub = parser.add_subparsers(dest="command", prog="workbench")
        importlib.import_module(module_name).register(sub)
        assert tuple(sub.choices) == names, module_name
        seen += names
    full = build_parser()._subparsers._group_actions[0].choices
    assert list(full) == seen
    for name in seen:
        narrow = build_parser(name)._subparsers._group_actions[0].choices
        own = next(names for _m, names in cli_main.SUBCOMMANDS if name in names)
        assert tuple(narrow) == own
        assert narrow[name].format_usage() == full[name].format_usage()
    assert list(build_parser("no-such-command")._subparsers._group_actions[0].choices) == seen
