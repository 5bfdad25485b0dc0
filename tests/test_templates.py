"""Templates build realistic designs that stay inside every rack budget at any size."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.calc.summary import rack_loads, summarize
from workbench.catalog import load_catalog
from workbench.model.placement import clashes, out_of_rack
from workbench.rules import Severity, check_design
from workbench.rules.storage import hot_tier, hot_tier_required_gbs
from workbench.templates import (
    TEMPLATES,
    TemplateError,
    build_template,
    fabric_switches,
    row_name,
    sample_design,
)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def assert_within_budgets(design) -> None:
    """Every rack: no clashes, inside its U, under its cooling limit and weight."""
    for rack in design.iter_racks():
        assert not clashes(design, rack), rack.name
        assert not out_of_rack(design, rack), rack.name
    for load in rack_loads(design).values():
        assert load.kw_max <= load.limit_kw, (load.name, load.kw_max, load.limit_kw)
        assert load.u_used <= load.u_total, load.name
        if load.max_weight_kg:
            assert load.weight_kg <= load.max_weight_kg, load.name
    for slug in {d.device_type for _, d in design.iter_devices()}:
        assert slug in design.device_types
    names = [d.name for _, d in design.iter_devices()]
    assert len(names) == len(set(names)), "device names must be unique"
    ids = [d.id for _, d in design.iter_devices()]
    assert len(ids) == len(set(ids))


def hot_read_gbs(design) -> float:
    hot = next(t for t in design.storage_tiers if t.tier == "hot")
    by_id = {d.id: d for _, d in design.iter_devices()}
    return sum(float(design.item(by_id[i].device_type).props["read_gbs"]) for i in hot.device_ids)


def test_sample_is_the_first_customer_design(catalog) -> None:
    design = sample_design(catalog)
    summary = summarize(design)
    # 128 DGX H100 × 8 GPUs (issue 2: "for example 128 DGX H100 (1,024 GPUs)").
    assert summary.gpus == 1024
    assert summary.gpu_servers == {"nvidia-dgx-h100": 128}
    # DGX H100 is 10.2 kW max (DGX H100 user guide): compute alone is 1,305.6 kW.
    assert summary.it_kw >= 128 * 10.2
    assert summary.it_kw < 1.2 * 128 * 10.2, "switches and storage are a small share"
    # The racks: 4 DGX H100 per 48U rear-door rack (DGX SuperPOD design guide: 40.8 kW).
    compute = [
        r for r in design.iter_racks() if any(d.device_type == "nvidia-dgx-h100" for d in r.devices)
    ]
    assert len(compute) == 32
    assert all(sum(d.device_type == "nvidia-dgx-h100" for d in r.devices) == 4 for r in compute)
    roles = {design.item(d.device_type).kind for _, d in design.iter_devices()}
    assert {"server", "switch", "storage", "pdu"} <= roles
    assert_within_budgets(design)
    # Domain brief §4: ≥ 50 GB/s hot-tier read for clusters above 40 GPUs.
    assert hot_read_gbs(design) >= hot_tier_required_gbs(summary.gpus) == 50.0
    assert hot_tier(design).read_gbs == hot_read_gbs(design)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
@pytest.mark.parametrize("gpus", [8, 100, 2048])
def test_every_template_scales_within_budgets(catalog, name: str, gpus: int) -> None:
    design = build_template(name, gpus=gpus, catalog=catalog)
    per_node = catalog[TEMPLATES[name].server].gpu_count
    assert summarize(design).gpus == math.ceil(gpus / per_node) * per_node
    assert_within_budgets(design)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(gpus=st.integers(min_value=1, max_value=20_000))
def test_scaling_property(catalog, gpus: int) -> None:
    design = build_template("dgx-h100-superpod", gpus=gpus, catalog=catalog)
    summary = summarize(design)
    assert gpus <= summary.gpus < gpus + 8
    assert_within_budgets(design)
    if summary.gpus > 40:
        assert hot_read_gbs(design) >= 50.0
    # Every `workbench new` design passes `workbench check`: no rule reports an error.
    errors = [f for f in check_design(design) if f.severity is Severity.ERROR]
    assert errors == [], errors


def test_bigger_designs_grow_everything(catalog) -> None:
    small = summarize(build_template("dgx-h100-superpod", gpus=1024, catalog=catalog))
    big = summarize(build_template("dgx-h100-superpod", gpus=16384, catalog=catalog))
    assert big.gpus == 16 * small.gpus
    assert big.racks > 10 * small.racks
    assert big.devices > 10 * small.devices


def test_fat_tree_sizes() -> None:
    # k = 64 ports: a 2-tier fat tree serves k²/2 = 2,048 hosts (domain brief §3).
    assert fabric_switches(2048, 64) == (64, 32, 0)
    assert fabric_switches(1024, 64) == (32, 16, 0)
    leaves, spines, cores = fabric_switches(2049, 64)
    assert cores > 0 and spines == leaves
    assert fabric_switches(0, 64) == (0, 0, 0)


def test_row_names() -> None:
    assert [row_name(i) for i in (0, 25, 26, 27, 701, 702)] == ["A", "Z", "AA", "AB", "ZZ", "AAA"]


def test_bad_requests() -> None:
    with pytest.raises(TemplateError, match="unknown template 'nope'"):
        build_template("nope")
    with pytest.raises(TemplateError, match="--gpus"):
        build_template("dgx-h100-superpod", gpus=0)


def test_storage_fabric_switches_say_what_they_do(catalog) -> None:
    """The SN5600 is a compute-class switch in the catalog; in the storage fabric the
    device's own role says so, and the rack drawing colours it as a storage switch."""
    from workbench.catalog.vocabulary import item_role as role_of

    design = sample_design(catalog)
    storage = [d for _, d in design.iter_devices() if d.name.startswith("stor-")]
    assert storage and {d.role for d in storage} == {"storage-switch"}
    item = design.item(storage[0].device_type)
    assert role_of(item) == "compute-switch"
    assert role_of(item, storage[0].role) == "storage-switch"
    leaves = [d for _, d in design.iter_devices() if d.name.startswith("ib-leaf")]
    assert (
        leaves and role_of(design.item(leaves[0].device_type), leaves[0].role) == "compute-switch"
    )
