"""Journey 2, "Will four DGX H100 fit in this rack?", through the window system
(docs/user-journeys.md §2), started from File ▸ New: a hall of two 42U air racks, a
drag of "DGX H100" that enters the rack view over its margin, the budgets after one
and two drops, the RACK-COOLING finding, direct liquid, Fill rack to four, and the
A/B feeds in the failover case."""

from __future__ import annotations

from xsession import at, centre

DGX = "nvidia-dgx-h100"


def _rack(state, name):
    return next(r for r in state["racks"] if r["name"] == name)


def _servers(state, name):
    """The DGX H100s in rack ``name``: the rack also holds the A/B PDUs a new hall's racks
    come with."""
    return [d for d in _rack(state, name)["devices"] if d["type"] == DGX]


def _rules(state):
    return {f["rule"] for f in state["findings"]}


def _drag_from_catalog(x, rack: str, u: int, hover_checks=()):
    """Press on DGX H100 in the catalog, enter the rack view over its left margin (not
    over a rack), move onto ``u`` of ``rack`` through ``hover_checks`` ((rack, u, wanted
    state) points checked while the button is held), and release there."""
    x.move(at(x.ask("palette", slug=DGX)))
    x.press()
    view = x.ask("widget", name="rack_view")
    target = at(x.ask("rack_u", rack=rack, u=u))
    x.move((view["x"] + 3, target[1]), steps=20)  # the margin: no rack under the pointer
    for where_rack, where_u, wanted in hover_checks:
        if where_rack == "between":  # the background between A01 and A02
            a, b = (
                at(x.ask("rack_u", rack="A01", u=where_u)),
                at(x.ask("rack_u", rack="A02", u=where_u)),
            )
            x.move(((a[0] + b[0]) // 2, a[1]))
            x.wait_for("no slot between the racks", lambda s: s["hover"] is None)
            continue
        x.move(at(x.ask("rack_u", rack=where_rack, u=where_u)))
        x.wait_for(
            f"{wanted} over {where_rack} U{where_u}",
            lambda s, w=wanted: s["hover"] is not None and s["hover"]["state"] == w,
        )
    x.move(target)
    x.release()


def test_will_four_dgx_h100_fit(xsession, shots):
    x = xsession
    x.start_app()
    x.wait_for("the sample", lambda s: "GPUs" in s["strip"])

    # File ▸ New: the New hall dialog, two 42U air racks, A/B feeds of 80 A.
    x.key("ctrl+n")
    x.wait_window("New hall")
    breaker = x.ask("widget", name="newHallBreaker")
    x.click(centre(breaker))
    x.key("ctrl+a")
    x.type("80")
    x.screenshot(shots / "new-hall.png")
    x.key("Return")
    state = x.wait_for("the new hall", lambda s: [r["name"] for r in s["racks"]] == ["A01", "A02"])
    a01 = _rack(state, "A01")
    assert a01["cooling"] == "air" and a01["budgets"]["cooling"]["limit"] == 12.0
    assert len(a01["devices"]) == 2 and not _servers(state, "A01")  # its A and B PDUs
    empty_kg = a01["budgets"]["weight"]["used"]

    # First drop: green while hovering over free units, 8/42 U, 10.2 kW of 12, 130 kg.
    _drag_from_catalog(x, "A01", 2, hover_checks=[("A01", 20, "fits")])
    state = x.wait_for("the first DGX", lambda s: len(_servers(s, "A01")) == 1)
    a01 = _rack(state, "A01")
    assert [(d["name"], d["u"]) for d in _servers(state, "A01")] == [("gpu-server-A01-u2", 2)]
    budgets = a01["budgets"]
    assert (budgets["space"]["used"], budgets["space"]["limit"]) == (8, 42)
    assert round(budgets["power"]["used"], 1) == 10.2 and budgets["power"]["limit"] == 12.0
    assert round(budgets["weight"]["used"] - empty_kg) == 130

    # Second drop: red over the first server's units, nothing over the floor between the
    # racks (the drag goes on), then amber at U10; the power and cooling bars turn red,
    # the status bar says why, and Checks lists RACK-COOLING.
    _drag_from_catalog(x, "A01", 10, hover_checks=[("A01", 5, "refused"), ("between", 20, None)])
    state = x.wait_for("the second DGX", lambda s: len(_servers(s, "A01")) == 2)
    assert "would be 20.4 kW" in state["status"], state["status"]
    budgets = _rack(state, "A01")["budgets"]
    assert budgets["power"]["state"] == "over" and budgets["cooling"]["state"] == "over"
    state = x.wait_for("RACK-COOLING", lambda s: "RACK-COOLING" in _rules(s))
    cooling = next(f for f in state["findings"] if f["rule"] == "RACK-COOLING")
    assert "A01 needs 20.4 kW, air limit 12 kW" in cooling["message"]
    assert "direct liquid (120 kW)" in cooling["message"]
    x.screenshot(shots / "journey-two-dgx.png")

    # Select the rack (its empty units) and give it the 50 kW the site can feed: the
    # power finding clears, the cooling one stays (20.4 kW is too much for air).
    x.click(at(x.ask("rack_u", rack="A01", u=30)))
    x.wait_for("A01 selected", lambda s: s["selected"] == [a01["id"]])
    limit = x.ask("widget", name="rackPowerLimit")
    x.click(centre(limit))
    x.key("ctrl+a")
    x.type("50")
    x.key("Return")
    state = x.wait_for("RACK-POWER cleared", lambda s: "RACK-POWER" not in _rules(s))
    assert "RACK-COOLING" in _rules(state)
    # Direct liquid: the cooling finding clears, the heat reads in L/min of coolant, and
    # the power budget the planner set is kept (a cooling change is not a budget change).
    x.click(centre(x.ask("widget", name="rackCooling")))
    x.key("End")
    x.key("Return")
    state = x.wait_for("direct liquid", lambda s: _rack(s, "A01")["cooling"] == "liquid")
    state = x.wait_for("RACK-COOLING cleared", lambda s: "RACK-COOLING" not in _rules(s))
    assert any("L/min" in text for text in state["inspector"]), state["inspector"]
    assert _rack(state, "A01")["power_limit_kw"] == 50.0

    # Fill rack with N × DGX H100 (right-click the rack): it offers the two that still
    # fit, and reaches four.
    x.click(at(x.ask("rack_u", rack="A01", u=30)), button=3)
    x.click(at(x.ask("menu_item", text="Fill A01 with")))
    x.wait_window("Fill A01")
    x.key("Return")
    state = x.wait_for("four DGX H100", lambda s: len(_servers(s, "A01")) == 4)
    budgets = _rack(state, "A01")["budgets"]
    assert round(budgets["power"]["used"], 1) == 40.8
    assert round(budgets["failover"]["used"], 1) == 40.8 and budgets["failover"]["state"] != "over"
    x.click(at(x.ask("rack_u", rack="A01", u=40)))
    state = x.wait_for("A01 selected", lambda s: s["selected"] == [a01["id"]])
    assert any("failover" in t.lower() or "one feed" in t.lower() for t in state["inspector"])
    x.screenshot(shots / "journey-four-dgx.png")

    # From the floor plan: a DGX H100 dropped on A02's footprint goes in at U1.
    x.click(at(x.ask("tab", text="Floor plan")))
    x.wait_for("the floor plan", lambda s: s["tab"] == "Floor plan")
    x.move(at(x.ask("palette", slug=DGX)))
    x.press()
    plan = x.ask("widget", name="floor_plan")
    a02 = at(x.ask("floor_rack", rack="A02"))
    x.move((plan["x"] + 3, a02[1]), steps=20)
    x.move(a02)
    x.release()
    state = x.wait_for("a drop on the floor plan", lambda s: _servers(s, "A02"))
    assert [(d["name"], d["u"]) for d in _servers(state, "A02")] == [("gpu-server-A02-u1", 1)]
    x.screenshot(shots / "journey-floor-drop.png")
