"""Journey 3 through the window system: a server moved between racks by a drag, then
by cut and paste, each undone; its name (made by the design's pattern) follows it, and
the printed page of its new rack names it there and never the rack it left."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from xsession import at

from workbench.catalog import load_catalog
from workbench.model import Design, Row, Site, hall_edits, ops, requests
from workbench.store import save_design

RACK = "generic-rack-42u-air"
DGX = "nvidia-dgx-h100"


def _hall(path):
    """Two 42U racks (rear-door, 50 kW), a DGX H100 in A01 at U2, saved to ``path``."""
    catalog = load_catalog(include_user=False, strict=True)
    design = Design(name="Moves", sites=[Site("site1", "Hall 1", [Row("row001", "Row A")])])
    ops.apply(design, hall_edits.add_racks(design, catalog, "row001", RACK, 2))
    for rack in design.iter_racks():
        rack.cooling, rack.power_limit_kw = "rear-door", 50.0
    a01 = design.sites[0].rows[0].racks[0]
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 2))
    save_design(design, path)


def _where(state):
    """(rack, U, name) of every device."""
    return [(r["name"], d["u"], d["name"]) for r in state["racks"] for d in r["devices"]]


def test_moves_by_drag_and_by_cut_and_paste_carry_the_name(xsession, shots, tmp_path):
    x = xsession
    project = tmp_path / "moves.dcwb"
    _hall(project)
    x.start_app(str(project))
    state = x.wait_for("the hall", lambda s: _where(s) == [("A01", 2, "gpu-server-A01-u2")])

    # Drag the server by its lowest unit onto A02 U10: one undo step, renamed.
    x.move(at(x.ask("rack_u", rack="A01", u=2)))
    x.press()
    x.move(at(x.ask("rack_u", rack="A01", u=6)), steps=8)
    x.move(at(x.ask("rack_u", rack="A02", u=10)), steps=25)
    x.release()
    state = x.wait_for("the move", lambda s: _where(s) == [("A02", 10, "gpu-server-A02-u10")])
    assert state["undo_text"] == "Move device" and state["undo_count"] == 1
    x.screenshot(shots / "journey-moved.png")
    x.key("ctrl+z")
    x.wait_for("the move undone", lambda s: _where(s) == [("A01", 2, "gpu-server-A01-u2")])

    # Cut (Ctrl+X) and paste (Ctrl+V) with the pointer over A02 U20.
    x.click(at(x.ask("rack_u", rack="A01", u=4)))
    x.wait_for("the server selected", lambda s: len(s["selected"]) == 1)
    x.key("ctrl+x")
    state = x.wait_for("the cut", lambda s: _where(s) == [])
    assert state["status"] == "Cut 1 device." and state["undo_text"] == "Cut 1 device"
    x.move(at(x.ask("rack_u", rack="A02", u=20)))
    x.key("ctrl+v")
    state = x.wait_for("the paste", lambda s: _where(s) == [("A02", 20, "gpu-server-A02-u20")])
    pasted = state["racks"][1]["devices"][0]["id"]
    assert state["selected"] == [pasted]  # the pasted device is selected
    x.key("ctrl+z")
    x.wait_for("the paste undone", lambda s: _where(s) == [])
    x.key("ctrl+z")
    x.wait_for("the cut undone", lambda s: _where(s) == [("A01", 2, "gpu-server-A01-u2")])

    # Redo the cut and the paste, save, print: A02's page names the server after A02.
    x.key("ctrl+shift+z")
    x.wait_for("the cut redone", lambda s: _where(s) == [])
    x.key("ctrl+shift+z")
    x.wait_for("the paste redone", lambda s: _where(s) == [("A02", 20, "gpu-server-A02-u20")])
    x.key("ctrl+s")
    x.wait_for("saved", lambda s: not s["modified"])
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    pdf = tmp_path / "a02.pdf"
    subprocess.run(
        [sys.executable, "-m", "workbench", "print", str(project), "--out", str(pdf)],
        check=True,
        env=x.env,
        timeout=120,
    )
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.split("\f")
    a02 = [p for p in pages if "gpu-server-A02-u20" in p]
    assert a02, text[:2000]
    assert all("gpu-server-A01" not in p for p in pages)
