"""Journey "which design wins?" (issue 26): a design and a B200 variant of it made with
``workbench scenario``, opened in the window, both ticked in the Scenarios dock and
compared side by side; then the same comparison from ``workbench compare --json``."""

from __future__ import annotations

import json
import subprocess
import sys

from xsession import at, centre

from workbench.store import save_design
from workbench.templates.bundled import bundled_sample


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args], capture_output=True, text=True, timeout=120
    )


def test_compare_two_scenarios(xsession, shots, tmp_path):
    x = xsession
    base = tmp_path / "hall.dcwb"
    save_design(bundled_sample(), base)
    made = _cli("scenario", str(base), "--node-type", "nvidia-dgx-b200", "--cooling", "liquid")
    assert made.returncode == 0, made.stderr
    x.start_app(str(base))
    x.wait_for("the design", lambda s: "1,024 GPUs" in s["strip"])

    # The Scenarios tab beside Checks lists the design and its sibling.
    x.click(at(x.ask("dock_tab", title="Scenarios")))
    state = x.wait_for("two files listed", lambda s: len(s["scenarios"]["files"]) == 2)
    labels = [f["label"] for f in state["scenarios"]["files"]]
    assert labels == ["hall", "dgx-b200-liquid"]

    # Tick both (click, then Space toggles the box), then Compare.
    for label in labels:
        x.click(at(x.ask("list_item", name="scenarioFiles", text=label)))
        x.key("space")
    x.wait_for("both ticked", lambda s: all(f["ticked"] for f in s["scenarios"]["files"]))
    x.click(centre(x.ask("widget", name="scenarioCompare")))
    state = x.wait_for("the comparison", lambda s: s["scenarios"]["columns"] == labels)
    rows = state["scenarios"]["rows"]
    assert rows["GPUs"] == [1024, 1024]
    assert rows["Peak BF16"][1] > rows["Peak BF16"][0]  # B200 over H100
    assert all(v is not None for v in rows["Capex"])
    x.screenshot(shots / "journey-scenarios.png")

    # The same table from the command line.
    proc = _cli(
        "compare", str(base), str(tmp_path / "hall.scenario-dgx-b200-liquid.dcwb"), "--json"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {r["label"]: r["values"] for r in out["rows"]} == rows
