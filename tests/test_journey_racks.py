"""Journey 2 ("will four DGX H100 fit in this rack?") walked in the real window: a new
row of two 42U air racks, DGX H100 dragged in from the catalog, the budgets turning red,
liquid cooling clearing them, and a fill to four, checked on the model and on screen."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication
from qt_helpers import drag_over, drop, open_window

from workbench.catalog import load_catalog
from workbench.model import Design, Site
from workbench.rules import Severity
from workbench.rules.budgets import BudgetState, rack_budgets
from workbench.ui.commands import set_rack_cooling, set_rack_fields

AIR_42U = "generic-rack-42u-air"
DGX = "nvidia-dgx-h100"


@pytest.fixture
def window(qtbot, tmp_path):
    catalog = load_catalog(include_user=False, strict=True)
    window = open_window(
        qtbot, tmp_path, Design(name="Site survey", sites=[Site("s", "Hall")]), catalog
    )
    yield window
    window.document.undo_stack.setClean()


def budgets(window, rack_id):
    design = window.document.design
    rack = design.find_rack(rack_id)
    return rack_budgets(design, rack, window.document.figures.rack_load(rack_id))


def test_will_four_dgx_h100_fit_in_this_rack(window, monkeypatch):
    document, actions = window.document, window.hall_actions
    # 1. A row with two empty 42U racks; air cooled, 12 kW.
    monkeypatch.setattr(actions, "ask_racks", lambda: (AIR_42U, 2))
    assert actions.add_racks()
    row = document.design.sites[0].rows[0]
    r1, r2 = (r.id for r in row.racks)
    assert [r.name for r in row.racks] == ["A01", "A02"]
    assert budgets(window, r1).power.limit == 12.0
    # Each new rack comes with its A and B PDUs, sized to its 12 kW (planning.rack_pdus);
    # they take no U (0U) and draw nothing, but weigh what their catalog item says.
    design = document.design
    pdus = [d for d in design.find_rack(r1).devices if d.name.startswith("pdu-")]
    assert sorted(d.name for d in pdus) == ["pdu-a01-a", "pdu-a01-b"]
    pdu_kg = sum(design.device_types[d.device_type].weight_kg or 0.0 for d in pdus)
    window.rack_view.fit()
    QApplication.processEvents()
    # 2-3. The first DGX H100 (8U, 10.2 kW, 130 kg) fits: green, and the bars follow.
    mime, where, ok = drag_over(window, DGX, r1, 2)
    assert ok and "U2–U9 (8U) of A01 is free" in window.statusBar().currentMessage()
    assert drop(window, mime, where)
    first = budgets(window, r1)
    assert (first.space.used, first.space.limit) == (8.0, 42.0)
    dgx_kg = design.device_types[DGX].weight_kg
    assert first.power.used == pytest.approx(10.2)
    assert first.weight.used == pytest.approx(dgx_kg + pdu_kg)
    document.select(r1)
    assert window.inspector.rack_fields["u"].text() == "8 of 42 U used"
    assert window.inspector.rack_fields["kw"].text().startswith("10.2 kW of 12 kW")
    # Over a taken unit it is red and names the server.
    _mime, _where, ok = drag_over(window, DGX, r1, 6)
    assert not ok and "taken by gpu-server-A01-u2" in window.statusBar().currentMessage()
    # 4. A second one: amber while hovering, and once dropped the power and cooling bars
    #    turn red and the Checks view says why.
    mime, where, ok = drag_over(window, DGX, r1, 10)
    assert ok and "power budget 12 kW (would be 20.4 kW)" in window.statusBar().currentMessage()
    assert drop(window, mime, where)
    second = budgets(window, r1)
    assert second.power.state is BudgetState.OVER and second.cooling.state is BudgetState.OVER
    messages = [row.finding.message for g in window.checks.model.groups for row in g.rows]
    assert any(m.startswith("A01 needs 20.4 kW, air limit 12 kW: fewer servers") for m in messages)
    # The new rack's default feeds (415 V three-phase 32 A: 18.4 kW at 80 %) cannot
    # carry 20.4 kW alone either: three errors.  The rack has its PDUs from the start,
    # so RACK-PDU (a rack with servers and no PDU) does not fire.
    findings = document.figures.findings()
    rules = {f.rule for f in findings if f.severity is Severity.ERROR}
    assert rules == {"RACK-POWER", "RACK-COOLING", "RACK-FEED"}
    assert "RACK-PDU" not in {f.rule for f in findings}
    assert window.summary.figure("checks").startswith("3 errors")
    # 5. Direct liquid cooling (limit 120 kW): the cooling finding clears; heat reads
    #    in L/min too.  The power budget is the planner's own figure, which a cooling
    #    change never overwrites (issue 19): it stays 12 kW until they raise it.  80 A
    #    feeds (46 kW at 80 %) clear the feed finding.
    document.push(set_rack_cooling(document, r1, "liquid"))
    errors = {f.rule for f in document.figures.findings() if f.severity is Severity.ERROR}
    assert errors == {"RACK-POWER", "RACK-FEED"}
    assert document.design.find_rack(r1).power_limit_kw == 12.0
    document.push(set_rack_fields(document, r1, {"power_limit_kw": 120}))
    errors = {f.rule for f in document.figures.findings() if f.severity is Severity.ERROR}
    assert errors == {"RACK-FEED"}
    document.push(set_rack_fields(document, r1, {"feed_a_breaker_a": 80, "feed_b_breaker_a": 80}))
    # No error left: the strip counts none (with the rack's PDUs in place and host names
    # the exports can carry, nothing else is flagged either).
    assert not [f for f in document.figures.findings() if f.severity is Severity.ERROR]
    assert window.summary.figure("checks") == "✔ No errors"
    document.select(r1)
    heat = window.inspector.rack_form.values["heat"].text()
    assert "69,605 BTU/h" in heat and "29.2 L/min of coolant" in heat
    # 6. Fill to four; the feed bars show the failover case.
    report = document.fill_rack(r1, DGX, 2)
    servers = [d for d in document.design.find_rack(r1).devices if d.device_type == DGX]
    assert report is not None and len(servers) == 4
    fourth = budgets(window, r1)
    assert fourth.power.used == pytest.approx(40.8)
    assert fourth.failover.used == pytest.approx(40.8) and fourth.feed_a.used == pytest.approx(20.4)
    assert window.inspector.rack_form.values["failover"].text().startswith("40.8 of ")
    # Every step undoes.
    while document.undo_stack.canUndo():
        document.undo_stack.undo()
    assert document.design.sites[0].rows == []
