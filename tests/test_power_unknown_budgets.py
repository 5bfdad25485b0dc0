"""Unknown power in the budgets and every figure that shows them: power, cooling and
feed budgets are UNKNOWN (not OK) while a rack holds a device of unknown power, unless
what is known is already over; the report, the drawing's texts and the lists say
"+ N unknown"; the ``infrastructure`` kind is passive everywhere kinds are listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.calc import bom_lines
from workbench.calc.summary import rack_loads, summarize
from workbench.catalog import load_file
from workbench.catalog.item import KINDS, PASSIVE_KINDS, RACKABLE_KINDS
from workbench.export.report import rack_budget_rows
from workbench.model import Device
from workbench.render import rack_geometry as geo
from workbench.rules.budgets import Budget, BudgetState, budget_state, power_state, rack_budgets
from workbench.templates import build_template

NETBOX = Path(__file__).parent / "data" / "netbox"
SCHEMA = Path(__file__).parent.parent / "workbench" / "catalog" / "schema" / "devicetype.json"


@pytest.fixture(scope="module")
def unknown():
    """The 64-GPU template with its SN5600s replaced by the library's file (no power),
    and the id of a rack holding some."""
    design = build_template("hgx-h100-air")
    [switch] = load_file(NETBOX / "nvidia-sn5600-library.yaml").items
    design.device_types[switch.slug] = switch
    loads = rack_loads(design)
    rack_id = next(rid for rid, load in loads.items() if load.unknown_power_devices)
    return design, rack_id, loads


def test_budget_state_with_unknown_devices_is_unknown_unless_already_over():
    assert budget_state(5.0, 10.0) is BudgetState.OK
    assert budget_state(5.0, 10.0, unknown=2) is BudgetState.UNKNOWN
    assert budget_state(9.0, 10.0, unknown=1) is BudgetState.UNKNOWN  # not merely "near"
    assert budget_state(11.0, 10.0, unknown=1) is BudgetState.OVER  # a lower bound, over
    assert Budget(5.0, 10.0, "kW", 3).state is BudgetState.UNKNOWN
    assert not Budget(5.0, 10.0, "kW", 3).known and Budget(5.0, 10.0, "kW").known


def test_power_cooling_and_feeds_are_unknown_space_and_weight_are_not(unknown):
    design, rack_id, loads = unknown
    rack, load = design.find_rack(rack_id), loads[rack_id]
    budgets = rack_budgets(design, rack, load)
    for name in ("power", "cooling", "feed_a", "feed_b", "failover"):
        budget = budgets.named()[name]
        assert budget.unknown == load.unknown_power_devices > 0, name
        assert budget.state is BudgetState.UNKNOWN, name
    assert budgets.space.known and budgets.space.state is not BudgetState.UNKNOWN
    assert budgets.worst() is BudgetState.UNKNOWN  # its U being fine does not paint it green
    assert power_state(load) is BudgetState.UNKNOWN
    rack_all_known = next(r for r in design.iter_racks() if loads[r.id].power_known)
    fine = rack_budgets(design, rack_all_known, loads[rack_all_known.id])
    assert fine.power.known and fine.worst() is not BudgetState.UNKNOWN


def test_report_rows_count_unknown_devices_per_rack(unknown):
    design, rack_id, loads = unknown
    rows = {row["id"]: row for row in rack_budget_rows(design)}
    assert rows[rack_id]["unknown_power_devices"] == loads[rack_id].unknown_power_devices > 0
    assert rows[rack_id]["power_known"] is False
    assert sum(r["unknown_power_devices"] for r in rows.values()) == (
        summarize(design).unknown_power_devices
    )
    assert all(r["power_known"] for rid, r in rows.items() if loads[rid].power_known)


def test_drawn_figures_say_how_many_devices_they_leave_out():
    assert geo.footer_text(16, 42, 20.4, 50) == "16/42 U · 20.4/50 kW"
    assert geo.footer_text(16, 42, 20.4, 50, unknown=2) == "16/42 U · 20.4/50 kW + 2 unknown"
    assert geo.budget_figures(Budget(20.5, 50, "kW", 3)) == "20.5 / 50 kW + 3 unknown · 41%"
    assert geo.budget_figures(Budget(20.5, None, "kW", 1)) == "20.5 kW + 1 unknown · no limit"
    assert geo.budget_figures(Budget(17, 42, "U")) == "17 / 42 U · 40%"


def test_infrastructure_is_a_passive_rackable_kind_everywhere_kinds_are_listed():
    assert "infrastructure" in KINDS and "infrastructure" in RACKABLE_KINDS
    assert "infrastructure" in PASSIVE_KINDS
    enum = json.loads(SCHEMA.read_text())["properties"]["kind"]["enum"]
    assert set(enum) == set(KINDS)  # the schema takes every kind the parser knows
    assert bom_lines._KIND_CATEGORY["infrastructure"] == "racks_power"
    from workbench.ui.catalog.palette import KIND_LABELS, KIND_ORDER

    assert set(KINDS) <= set(KIND_ORDER) and set(KINDS) <= set(KIND_LABELS)


def test_a_rack_of_patch_panels_and_a_cdu_is_not_power_unknown():
    design = build_template("hgx-h100-air")
    rack = next(design.iter_racks())
    for name in ("panduit-cp48blu.yaml", "vertiv-xdu070.yaml"):
        [item] = load_file(NETBOX / name).items
        assert item.kind == "infrastructure" and item.max_power_w is None
        design.device_types[item.slug] = item
        rack.devices.append(Device(f"x-{item.slug}", item.slug, item.slug, None))
    design.reindex()
    load = rack_loads(design)[rack.id]
    assert load.unknown_power_devices == 0
    assert summarize(design).power_complete
