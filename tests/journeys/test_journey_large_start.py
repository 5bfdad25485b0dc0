"""Starting on a 100,000-GPU file and clicking at once (issue 21), through the window
system: ``workbench FILE`` draws before it has read the file's links, which it then
reads between events; a server clicked meanwhile, the mouse brought in from wherever
it was over the margins and the hall's background, is selected once the links are in,
and the inspector then counts that server's links.  The findings shown are those of
the whole design (a check run on it without its links found every port uncabled)."""

from __future__ import annotations

from xsession import at

from workbench.rules.full_check import check_design
from workbench.store import open_design


def test_a_click_while_the_links_are_read(xsession, shots, tmp_path):
    x = xsession
    design = x.new_design(tmp_path / "hall-100k.dcwb", 100_000)
    x.start_app(str(design))
    state = x.ask("state")
    assert "100,000 GPUs" in state["strip"]
    # At this size the links take over a second after the first frame: still reading.
    assert state["status"].startswith("Reading"), state["status"]
    rack = next(r for r in state["racks"] if r["name"] == "A01")
    server = next(d for d in rack["devices"] if d["name"] == "gpu00001")

    x.click(at(x.ask("rack_u", rack=rack["name"], u=server["u"] + 3)))
    state = x.wait_for("the server selected", lambda s: s["selected"] == [server["id"]], timeout=60)
    # Handled only after the rest of the links were read (not on a design without them).
    assert not state["status"].startswith("Reading"), state["status"]
    shown = " | ".join(state["inspector"])
    assert "gpu00001" in shown and "DGX H100" in shown
    assert "8 links" in shown, shown  # its compute ports' cables: the links are in
    assert not state["modified"]
    state = x.wait_for("the first check", lambda s: bool(s["findings"]), timeout=120)
    shown_rules = sorted((f["rule"], f["message"]) for f in state["findings"])
    assert shown_rules == sorted((f.rule, f.message) for f in check_design(open_design(design)))
    x.screenshot(shots / "large-start-click.png")
