"""Templates build realistic designs that stay inside every rack budget at any size."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.calc.fabric.planes import PlaneStructure, plane_structures
from workbench.calc.presets import get_preset
from workbench.calc.storage import checkpoint_bytes
from workbench.calc.summary import rack_loads, summarize
from workbench.catalog import load_catalog
from workbench.model.placement import clashes, out_of_rack
from workbench.model.ports import candidate_ports, link_problem
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


def pool_gbs(design, tier_id: str, figure: str = "read_gbs") -> float:
    """The summed ``read_gbs`` (or ``write_gbs``) of one storage tier's appliances."""
    tier = next(t for t in design.storage_tiers if t.id == tier_id)
    by_id = {d.id: d for _, d in design.iter_devices()}
    return sum(float(design.item(by_id[i].device_type).props[figure]) for i in tier.device_ids)


def hot_read_gbs(design) -> float:
    return sum(pool_gbs(design, t.id) for t in design.storage_tiers if t.tier == "hot")


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
    # Domain brief §4: ≥ 50 GB/s hot-tier read for clusters above 40 GPUs, here from the
    # dataset pool alone: 128 nodes × 2 GB/s = 256 GB/s → 6 all-flash nodes of 50 GB/s.
    assert pool_gbs(design, "tier-hot-data") == 300.0
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
    # k = 64 ports: a 2-tier fat tree serves k²/2 = 2,048 hosts (domain brief §3): 64
    # leaves of 32 down and 32 up, and 64 × 32 / 64 = 32 spines.
    assert fabric_switches(2048, 64) == (64, 32, 0)
    assert fabric_switches(1024, 64) == (32, 16, 0)
    # One more port needs a 65th leaf, more than a 64-port spine reaches: 3 tiers.  Pods
    # of k/2 = 32 leaves → 3 pods of 32 spines each (96); cores: 32 groups of the
    # smallest C ≥ ceil(3 × 32 / 64) = 2 dividing 32, so 2 → 64 cores.
    assert fabric_switches(2049, 64) == (65, 96, 64)
    assert fabric_switches(0, 64) == (0, 0, 0)


def test_row_names() -> None:
    assert [row_name(i) for i in (0, 25, 26, 27, 701, 702)] == ["A", "Z", "AA", "AB", "ZZ", "AAA"]


def test_bad_requests() -> None:
    with pytest.raises(TemplateError, match="unknown template 'nope'"):
        build_template("nope")
    with pytest.raises(TemplateError, match="--gpus"):
        build_template("dgx-h100-superpod", gpus=0)


def test_storage_fabric_switches_say_what_they_do(catalog) -> None:
    """The SN4600 and SN5600 are compute-class switches in the catalog; in the storage
    fabric the device's own role says so, and the rack drawing colours it as a storage
    switch."""
    from workbench.catalog.vocabulary import item_role as role_of

    design = sample_design(catalog)
    storage = [d for _, d in design.iter_devices() if d.name.startswith("sto-")]
    assert storage and {d.role for d in storage} == {"storage-switch"}
    item = design.item(storage[0].device_type)
    assert role_of(item) == "compute-switch"
    assert role_of(item, storage[0].role) == "storage-switch"
    leaves = [d for _, d in design.iter_devices() if d.name.startswith("cmp-leaf")]
    assert (
        leaves and role_of(design.item(leaves[0].device_type), leaves[0].role) == "compute-switch"
    )


def assert_cabled(design) -> dict[str, PlaneStructure]:
    """Every link valid (ports.link_problem), on a network of its plane, with a speed and
    no measured cable yet; every device with ports on a plane cabled on it."""
    networks = {n.id: n for n in design.networks}
    index = design.index
    for link in design.links:
        a = design.item(index.devices[link.a_device][1].device_type)
        b = design.item(index.devices[link.b_device][1].device_type)
        assert link.a_device != link.b_device, link
        assert link.network in networks and link.speed_gbps, link
        assert link.cable_type is None and link.length_m is None
        problem = link_problem(a, link.a_port, b, link.b_port, link.speed_gbps)
        assert problem is None, (link, problem)
    ends = [(lk.a_device, lk.a_port) for lk in design.links] + [
        (lk.b_device, lk.b_port) for lk in design.links
    ]
    assert len(ends) == len(set(ends)), "a port is cabled twice"
    structures = plane_structures(design)
    for plane, structure in structures.items():
        assert structure.links, f"no links on the {plane} plane"
        assert {networks[lk.network].plane for lk in structure.links} == {plane}
        for _rack, device in design.iter_devices():
            if candidate_ports(design.item(device.device_type), plane, as_host=True):
                assert device.id in structure.hosts, (plane, device.name)
    return structures


@pytest.mark.parametrize("name", sorted(TEMPLATES))
@pytest.mark.parametrize("gpus", [8, 300])
def test_templates_cable_every_plane(catalog, name: str, gpus: int) -> None:
    design = build_template(name, gpus=gpus, catalog=catalog)
    structures = assert_cabled(design)
    assert structures["compute"].depth == 2
    # Management and out-of-band: every server and appliance is cabled to an access
    # switch in its own rack (the templates keep the top units of its racks free).
    index = design.index
    for plane in ("management", "oob"):
        for link in structures[plane].host_links:
            ends = (link.a_device, link.b_device)
            kinds = [design.item(index.devices[e][1].device_type).kind for e in ends]
            if kinds.count("switch") == 1:
                host, switch = ends if kinds[1] == "switch" else ends[::-1]
                assert index.devices[host][0] is index.devices[switch][0], (plane, link)
    errors = [f for f in check_design(design) if f.severity is Severity.ERROR]
    assert errors == [], errors


def test_sample_compute_fabric_is_the_superpod_4_su_fabric(catalog) -> None:
    # NVIDIA DGX SuperPOD with DGX H100 reference architecture (RA-11333-001), table 4,
    # compute fabric for 4 SUs of 32 DGX H100 on QM9700: 32 leaves, 16 spines, 1,024
    # cables from leaves to spines (and 4 × 32 × 8 = 1,024 from nodes to leaves).
    design = sample_design(catalog)
    compute = plane_structures(design)["compute"]
    assert len(compute.switches_in(1)) == 32
    assert len(compute.switches_in(2)) == 16
    assert len(compute.host_links) == 1024 and len(compute.switch_links) == 1024


def test_sample_storage_pools_meet_the_rules(catalog) -> None:
    design = sample_design(catalog)
    (workload,) = design.workloads
    assert (workload.dataset_tier, workload.checkpoint_tier) == ("tier-hot-data", "tier-hot-ckpt")
    assert {t.tier for t in design.storage_tiers if t.id.startswith("tier-hot")} == {"hot"}
    # A checkpoint is 14 bytes per parameter (mixed-precision Adam, ZeRO §3.1): Llama 3
    # 70B's 70.6e9 → 988 GB; the 2 all-flash nodes of the checkpoint pool write 2 × 30 =
    # 60 GB/s, so a save takes ~16.5 s, under 5 % of 60 minutes (180 s).
    params = get_preset(workload.model).params
    write = pool_gbs(design, "tier-hot-ckpt", "write_gbs")
    assert write == 60.0
    assert checkpoint_bytes(params) / (write * 1e9) <= 0.05 * 60 * workload.checkpoint_interval_min


def test_oob_switches_are_cabled_to_another_oob_switch(catalog) -> None:
    design = build_template("dgx-h100-superpod", gpus=300, catalog=catalog)
    oob = plane_structures(design)["oob"]
    index = design.index
    oob_switches = {d.id for _r, d in design.iter_devices() if d.name.startswith("oob-")}
    assert oob_switches and oob_switches <= oob.hosts  # their own management ports
    for link in oob.host_links:
        names = {index.devices[link.a_device][1].name, index.devices[link.b_device][1].name}
        assert len(names) == 2


def test_large_designs_take_the_large_compute_switch(catalog) -> None:
    # 66,000 GPUs = 8,250 DGX H100 = 66,000 rail ports at 1:1; a QM9700 fat tree of 3
    # tiers ends at 64³/4 = 65,536 ports (64 pods × 4 SUs × 32 nodes = 8,192 nodes).
    design = build_template("dgx-h100-superpod", gpus=66_000, catalog=catalog)
    assert design.properties["compute_switch"] == "nvidia-q3400-ra"
    assert "65,536" in design.properties["compute_switch_reason"]
    compute = plane_structures(design, ["compute"])["compute"]
    assert compute.depth == 3
    assert {design.item(index_device(design, s).device_type).slug for s in compute.tiers} == {
        "nvidia-q3400-ra"
    }


def index_device(design, device_id: str):
    return design.index.devices[device_id][1]
