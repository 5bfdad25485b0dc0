"""Quality gates: the linter, the formatter and the type checker, run as tests.

They are part of the default test run on purpose: a plain ``pytest`` is the one command
everybody runs before pushing and the one CI runs, so a lint error, an unformatted file
or a type error fails there with the tool's own report, instead of waiting for a
separate step that is easy to skip.  Deselect them for a quick loop with
``pytest -m "not quality_gate"``.

The tools come from the ``test`` extra (``pip install -e .[test]``) and run with this
interpreter (``python -m ruff``, ``python -m mypy``), so they are the versions of this
environment, configured by ``pyproject.toml``.  A missing tool fails the gate rather than
skipping it: a gate that silently does not run guards nothing.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.quality_gate

ROOT = Path(__file__).resolve().parent.parent
#: What the gates look at, relative to the repository root.
SOURCES = ("workbench", "tests")
#: Generous: a cold mypy run takes 10-20 s, a loaded CI machine much longer.
TIMEOUT_S = 300


def run_tool(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` from the repository root, output captured as text."""
    if importlib.util.find_spec(module) is None:
        pytest.fail(
            f"{module} is not installed in {sys.executable}; "
            "install the test extra: pip install -e '.[test]'",
            pytrace=False,
        )
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


def assert_clean(result: subprocess.CompletedProcess[str], fix: str) -> None:
    """Exit status 0, else fail with the command, what to do and all the tool printed."""
    command = " ".join(["python", *result.args[1:]])
    output = "\n".join(part for part in (result.stdout.strip(), result.stderr.strip()) if part)
    status = result.returncode  # a plain name: pytest would print the whole result again
    assert status == 0, f"`{command}` exited with {status}; {fix}\n{output}"


def test_ruff_check() -> None:
    """No lint findings (the rules selected in ``[tool.ruff.lint]``)."""
    result = run_tool("ruff", "check", "--no-fix", *SOURCES)
    assert_clean(result, "fix these findings (many with `ruff check --fix workbench tests`)")


def test_ruff_format() -> None:
    """Every file is as ``ruff format`` writes it."""
    result = run_tool("ruff", "format", "--check", *SOURCES)
    assert_clean(result, "run `ruff format workbench tests` and commit the result")


def test_mypy() -> None:
    """No type errors in ``workbench`` (``[tool.mypy]``: packages, strictness, overrides)."""
    result = run_tool("mypy", "--config-file", "pyproject.toml")
    assert_clean(result, "fix these type errors")
