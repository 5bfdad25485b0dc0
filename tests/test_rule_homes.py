"""Rules that had several homes which disagreed now have one (issue 19).

Each test states the disagreement it ends; the cooling limit's is in
``test_model_field_ops.py`` (a cooling change keeps the power budget).
"""

from __future__ import annotations

from workbench.calc.summary import rack_load, summarize
from workbench.catalog.item import CatalogItem, is_gpu_server, power_figure_w, power_unknown
from workbench.rules import check_design
from workbench.rules.budgets import BudgetState, power_state
from workbench.templates import sample_design


def _a01_with_a_missing_type():
    design = sample_design()
    rack = next(r for r in design.iter_racks() if r.name == "A01")
    slug = next(
        d.device_type
        for d in rack.devices
        if (power_figure_w(design.device_types[d.device_type]) or 0) > 0
    )
    before = rack_load(design, rack)
    del design.device_types[slug]
    return design, rack, slug, before


def test_a_device_whose_type_is_missing_counts_as_unknown_power_not_0_kw():
    """calc/summary.py counted it 0 kW, so its rack turned green (A01 from 41.5 kW
    "near" to 31.3 kW "OK"); it is unknown power, like an item with no figure."""
    design, rack, slug, before = _a01_with_a_missing_type()
    assert before.unknown_power_devices == 0
    load = rack_load(design, rack)
    missing = sum(1 for d in rack.devices if d.device_type == slug)
    assert load.unknown_power_devices == missing
    assert power_state(load) in (BudgetState.UNKNOWN, BudgetState.OVER)
    summary = summarize(design)
    assert slug in summary.unknown_types and slug in summary.unknown_power_types
    assert summary.devices_without_power >= missing
    rules = {f.rule for f in check_design(design) if f.object_id == rack.id}
    assert "RACK-POWER-UNKNOWN" in rules


def test_one_reading_of_a_power_figure():
    """Maximum, else typical, else unknown (None, never 0)."""
    item = CatalogItem.__new__(CatalogItem)
    base = {"max_power_w": None, "typical_power_w": None}
    for fields, expected in [
        ({"max_power_w": 900.0, "typical_power_w": 700.0}, 900.0),
        ({"typical_power_w": 700.0}, 700.0),
        ({}, None),
        ({"max_power_w": 0.0, "typical_power_w": 5.0}, 0.0),
    ]:
        values = {**base, **fields}
        for name, value in values.items():
            object.__setattr__(item, name, value)
        assert power_figure_w(item) == expected
    assert power_figure_w(None) is None and power_unknown(None)


def test_one_definition_of_a_gpu_node():
    """versions/matrix.py called itself the one definition while the fabric rules, the
    handoff exports, the summary, the storage figures and the hardware the estimates
    read each decided it again (some counted any item with gpu_count, a GPU card or a
    storage box included).  All ask catalog.item.is_gpu_server now."""
    import dataclasses

    from workbench.calc.storage_tiers import storage_figures
    from workbench.export.handoff import gpu_nodes
    from workbench.versions.matrix import is_node

    design = sample_design()
    server = next(i for i in design.device_types.values() if is_gpu_server(i))
    gpus_before = summarize(design).gpus
    # The same type re-labelled a storage appliance: no longer a GPU node anywhere.
    design.device_types[server.slug] = dataclasses.replace(server, kind="storage")
    assert summarize(design).gpus == 0 < gpus_before
    node = next(d for _, d in design.iter_devices() if d.device_type == server.slug)
    assert not is_node(design, node)
    assert gpu_nodes(design) == []
    assert storage_figures(design).clients.gpus == 0


def test_one_reading_of_free_units():
    """planning/filling.py kept its own copy of model.placement.free_ranges that also
    knew full-depth items; the model's now does, and the fill asks it."""
    from workbench.model.placement import free_ranges, occupancy

    design = sample_design()
    rack = next(r for r in design.iter_racks() if r.devices)
    taken = occupancy(design, rack)
    both = {u for run in free_ranges(design, rack, full_depth=True) for u in run}
    front = {u for run in free_ranges(design, rack, "front") for u in run}
    rear = {u for run in free_ranges(design, rack, "rear") for u in run}
    assert both == front & rear
    assert all((u, "front") not in taken and (u, "rear") not in taken for u in both)


def test_one_list_of_catalog_item_fields():
    """catalog/merge.py, store/snapshot.py and cli/catalog_cmds.py each restated the
    fields; the snapshot stores catalog.item.FILE_FIELDS (read off the dataclass), an
    import keeps WORKBENCH_FIELDS, and the CLI shows a choice of them."""
    from dataclasses import fields

    from workbench.catalog import merge
    from workbench.catalog.item import FILE_FIELDS, WORKBENCH_FIELDS
    from workbench.cli import catalog_cmds
    from workbench.store import snapshot

    declared = {f.name for f in fields(CatalogItem)}
    assert set(FILE_FIELDS) == declared - {"power_ports", "interfaces", "raw", "source_file"}
    assert set(WORKBENCH_FIELDS) <= set(FILE_FIELDS)
    assert merge.KEPT_FIELDS is WORKBENCH_FIELDS
    assert snapshot._PLAIN_FIELDS is FILE_FIELDS
    assert set(catalog_cmds.LIST_FIELDS + catalog_cmds.JSON_FIELDS) <= set(FILE_FIELDS)
