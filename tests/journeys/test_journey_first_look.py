"""Journey 1, "First look", through the window system (docs/user-journeys.md §1):
start ``workbench`` with no arguments, click a server, rename it, undo, save with
Ctrl+S as ``site-a.dcwb``, quit, reopen; everything is as before."""

from __future__ import annotations

from xsession import at

from workbench.store import open_design


def _device(state, name):
    for rack in state["racks"]:
        for device in rack["devices"]:
            if device["name"] == name:
                return rack, device
    raise AssertionError(f"no device {name!r}")


def _layout(state):
    return [
        (r["name"], [(d["name"], d["type"], d["u"], d["face"]) for d in r["devices"]])
        for r in state["racks"]
    ]


def test_first_look(xsession, shots, tmp_path):
    x = xsession
    x.start_app()
    state = x.wait_for("the sample's figures", lambda s: "1,024 GPUs" in s["strip"])
    assert state["title"].startswith("Sample design") and not state["modified"]
    assert "EF BF16 peak" in state["strip"] and "MW IT" in state["strip"]

    # 2. Click a server: the inspector shows its model, rack, U position, power and GPUs.
    rack, server = _device(state, "gpu00001")
    x.click(at(x.ask("rack_u", rack=rack["name"], u=server["u"] + 3)))
    state = x.wait_for("the server selected", lambda s: s["selected"] == [server["id"]])
    shown = " | ".join(state["inspector"])
    assert "gpu00001" in shown and "DGX H100" in shown and rack["name"] in shown
    assert f"U{server['u']}" in shown and "kW" in shown
    x.screenshot(shots / "main-window.png")

    # 3. Rename it in the inspector, Ctrl+Z: the old name is back; the title's asterisk
    # shows while there are unsaved changes.
    field = x.ask("widget", name="deviceName")
    x.click((field["x"] + field["w"] // 2, field["y"] + field["h"] // 2))
    x.key("ctrl+a")
    x.type("node-a")
    x.key("Return")
    state = x.wait_for("the rename", lambda s: _device_named(s, "node-a"))
    assert state["modified"] and state["undo_text"].startswith("Rename")
    x.key("ctrl+z")
    state = x.wait_for("the undo", lambda s: _device_named(s, "gpu00001"))
    assert not _device_named(state, "node-a")
    before = _layout(state)

    # 4. Ctrl+S on an unsaved design asks where: site-a.dcwb; quit; reopen.
    x.key("ctrl+s")
    x.wait_window("Save project as")
    target = tmp_path / "site-a.dcwb"
    x.key("ctrl+a")
    x.type(str(target))
    x.key("Return")
    state = x.wait_for("the save", lambda s: s["path"] and not s["modified"])
    assert state["path"].endswith("site-a.dcwb")
    assert target.exists()
    x.key("ctrl+q")
    assert x.wait_exit() == 0
    x.start_app(str(target))
    state = x.wait_for("site-a.dcwb open", lambda s: "1,024 GPUs" in s["strip"])
    assert state["title"].startswith("site-a.dcwb") and not state["modified"]
    assert _layout(state) == before

    # The hall from above: the floor plan of the sample, with its grid and scale.
    x.click(at(x.ask("tab", text="Floor plan")))
    x.wait_for("the floor plan", lambda s: s["tab"] == "Floor plan")
    x.screenshot(shots / "floor-plan.png")
    assert sum(len(r.devices) for r in open_design(target).iter_racks()) == sum(
        len(devices) for _rack, devices in before
    )


def _device_named(state, name) -> bool:
    return any(d["name"] == name for r in state["racks"] for d in r["devices"])
