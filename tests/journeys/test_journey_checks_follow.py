"""The Checks dock follows a removal and its undo, through the window system.

The Checks tree and the status strip are updated row by row after an edit, not rebuilt
(issue 21).  A planner deletes a cabled DGX with the Delete key and saves; what the tree
shows must then be exactly what a full check of the saved file finds in another process
(``workbench check --json``), and after Ctrl+Z and a second save, again.  The removal
changes three findings' texts and adds an error, so a tree left stale fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from xsession import XSession, at

Shown = set[tuple[str, str]]


def _full_check(x: XSession, path: Path) -> tuple[Shown, dict[str, int]]:
    """(rule, message) of every finding a fresh ``workbench check`` prints, and its counts."""
    run = subprocess.run(
        [sys.executable, "-m", "workbench", "check", "--json", str(path)],
        capture_output=True,
        text=True,
        env=x.env,
        timeout=120,
    )
    assert run.returncode in (0, 1), run.stderr
    report = json.loads(run.stdout)
    return {(f["rule"], f["message"]) for f in report["findings"]}, report["counts"]


def _tree(x: XSession) -> Shown:
    """(rule, message) of every row the Checks tree shows (columns: finding, rule, ...)."""
    groups: list[dict[str, Any]] = x.ask("checks_rows")
    return {(row[1], row[0]) for group in groups for row in group["rows"]}


def _wait_tree(x: XSession, what: str, wanted: Shown) -> None:
    """Poll until the tree shows ``wanted``; the difference in the message if it never does."""
    try:
        x.wait_for(what, lambda _s: _tree(x) == wanted)
    except Exception as exc:
        shown = _tree(x)
        raise AssertionError(
            f"{what}: the tree shows {sorted(shown - wanted)} too many, "
            f"{sorted(wanted - shown)} missing"
        ) from exc


def _devices(state: dict[str, Any]) -> set[str]:
    return {d["name"] for r in state["racks"] for d in r["devices"]}


def test_checks_and_strip_follow_a_removal_and_its_undo(xsession, shots, tmp_path):
    x = xsession
    project = x.new_design(tmp_path / "follow.dcwb", 64, timeout=120)
    before, counts = _full_check(x, project)
    x.start_app(str(project))
    _wait_tree(x, "the first check", before)
    first = x.wait_for("the training estimate", lambda s: "days …" not in s["strip"])

    # Select the DGX at A01 U18 with a click, delete it with the key, save.
    x.click(at(x.ask("rack_u", rack="A01", u=20)))
    state = x.wait_for("the DGX selected", lambda s: len(s["selected"]) == 1)
    gone = next(
        d["name"] for r in state["racks"] for d in r["devices"] if d["id"] == state["selected"][0]
    )
    assert gone == "gpu00003"
    x.key("Delete")
    x.wait_for("the removal", lambda s: gone not in _devices(s))
    x.key("ctrl+s")
    x.wait_for("saved", lambda s: not s["modified"])
    after, after_counts = _full_check(x, project)
    assert after != before and after_counts["errors"] == counts["errors"] + 1
    _wait_tree(x, "the checks after the removal", after)
    state = x.ask("state")
    assert state["strip"] != first["strip"]
    x.screenshot(shots / "journey-checks-follow-removal.png")

    # Undo, save again: the tree and the strip are as they were before the removal.
    x.key("ctrl+z")
    x.wait_for("the removal undone", lambda s: gone in _devices(s))
    x.key("ctrl+s")
    x.wait_for("saved again", lambda s: not s["modified"])
    again, again_counts = _full_check(x, project)
    assert (again, again_counts) == (before, counts)
    _wait_tree(x, "the checks after the undo", before)
    x.wait_for("the strip as it was", lambda s: s["strip"] == first["strip"])
