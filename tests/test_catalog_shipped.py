"""The shipped catalog: loads cleanly, holds every agreed slug, and its figures match
the published ones recorded in /work/shared/data/hardware-reference.json."""

from __future__ import annotations

import json
import math

import pytest

from workbench.catalog import (
    KINDS,
    PRECISIONS,
    interface_speed_gbps,
    load_catalog,
    parse_item,
    pdu_capacity_kw,
    shipped_catalog_dir,
)

REQUIRED_SLUGS = {
    "gpu": [
        "nvidia-a100-sxm4-40gb",
        "nvidia-a100-sxm4-80gb",
        "nvidia-h100-sxm5-80gb",
        "nvidia-h100-pcie-80gb",
        "nvidia-h200-sxm-141gb",
        "nvidia-h800-sxm5-80gb",
        "nvidia-b200-sxm-180gb",
        "nvidia-l40s",
        "nvidia-l20",
        "nvidia-geforce-rtx-4090",
        "amd-instinct-mi300x",
    ],
    "server": [
        "nvidia-dgx-a100",
        "nvidia-dgx-h100",
        "nvidia-dgx-h200",
        "nvidia-dgx-b200",
        "generic-hgx-h100-8gpu",
        "generic-pcie-4gpu-l40s",
        "generic-cpu-storage-server",
    ],
    "switch": [
        "nvidia-qm9700",
        "nvidia-sn5600",
        "nvidia-sn4600",
        "generic-mgmt-48p-10g",
        "nvidia-q3400-ra",
    ],
    "nic": ["nvidia-connectx-7"],
    "cable": ["dac-400g-osfp-2m", "aoc-400g-osfp-10m"],
    "optic": ["optic-400g-osfp-sr4", "optic-400g-osfp-dr4", "optic-400g-osfp-fr4"],
    "rack": ["generic-rack-42u-air", "generic-rack-48u-rdhx", "generic-rack-48u-liquid"],
    "pdu": ["generic-pdu-3ph-415v-32a", "generic-pdu-3ph-415v-63a", "generic-pdu-1ph-230v-32a"],
    "storage": [
        "generic-allflash-pfs-node",
        "generic-object-storage-node",
        "generic-hdd-enclosure-84",
    ],
}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def test_loads_without_errors_or_warnings(catalog):
    assert catalog.errors == []
    assert catalog.warnings == []
    assert catalog.dirs == [shipped_catalog_dir()]


@pytest.mark.parametrize("kind", sorted(REQUIRED_SLUGS))
def test_every_agreed_slug_is_present_with_its_kind(catalog, kind):
    for slug in REQUIRED_SLUGS[kind]:
        assert slug in catalog, slug
        assert catalog[slug].kind == kind


def test_every_item_has_a_price_and_says_where_it_comes_from(catalog):
    for item in catalog:
        assert item.unit_price is not None and item.unit_price > 0, item.slug
        assert "unit_price" in item.sources, item.slug
        assert item.kind in KINDS


# Figures from hardware-reference.json, each quoted with the source that file gives.
def test_dgx_h100_figures(catalog):
    # "NVIDIA DGX H100/H200 User Guide 'Introduction' ... 8U, 287.6 lbs/130.45 kg;
    #  power 6 PSUs 3,300 W each, 10.2 kW max"
    dgx = catalog["nvidia-dgx-h100"]
    assert dgx.max_power_w == 10200
    assert dgx.u_height == 8
    assert dgx.weight_kg == pytest.approx(130.45)
    assert dgx.gpu == "nvidia-h100-sxm5-80gb" and dgx.gpu_count == 8
    assert [p.maximum_draw for p in dgx.power_ports] == [3300] * 6
    compute = [i for i in dgx.interfaces if i.name.startswith("compute")]
    assert [interface_speed_gbps(i.type) for i in compute] == [400.0] * 8
    assert [i.name for i in dgx.interfaces if i.mgmt_only] == ["bmc"]


@pytest.mark.parametrize(
    ("slug", "units", "watts", "kg"),
    [
        # netbox devicetype-library DGC-A100.yaml datasheet text: 6U, 123.16 kg, 6.5 kW
        ("nvidia-dgx-a100", 6, 6500, 123.16),
        # DGX H100/H200 User Guide (shared chassis and power tables)
        ("nvidia-dgx-h200", 8, 10200, 130.45),
        # docs.nvidia.com/dgx/dgxb200-user-guide: 10U, 14.3 kW, 142.4 kg
        ("nvidia-dgx-b200", 10, 14300, 142.4),
    ],
)
def test_other_dgx_systems(catalog, slug, units, watts, kg):
    item = catalog[slug]
    assert (item.u_height, item.max_power_w, item.weight_kg) == (units, watts, pytest.approx(kg))
    assert item.typical_power_w < item.max_power_w


def test_h100_sxm_dense_tflops(catalog):
    # NVIDIA H100 datasheet (hpctech.co.jp reproduction, sparse halved); 989.4 exact
    # from glennklockwood.com, recorded as 989.5 dense BF16 in the reference.
    gpu = catalog["nvidia-h100-sxm5-80gb"]
    assert gpu.tflops["bf16"] == 989.5
    assert gpu.tflops["fp8"] == 1979
    assert gpu.tflops["tf32"] == 494.5
    assert (gpu.hbm_gb, gpu.hbm_bw_tbs, gpu.nvlink_gbs, gpu.max_power_w) == (80, 3.35, 900, 700)


@pytest.mark.parametrize(
    ("slug", "bf16", "hbm_gb", "tdp"),
    [
        ("nvidia-a100-sxm4-40gb", 312, 40, 400),  # A100 datasheet
        ("nvidia-a100-sxm4-80gb", 312, 80, 400),  # A100 datasheet
        ("nvidia-h100-pcie-80gb", 756.5, 80, 350),  # H100 PCIe product brief PB-11133-001
        ("nvidia-h200-sxm-141gb", 989.5, 141, 700),  # H200 datasheet figures; MLPerf v4.1 700 W
        ("nvidia-b200-sxm-180gb", 2250, 180, 1000),  # Blackwell datasheet via glennklockwood.com
        ("nvidia-l40s", 362.05, 48, 350),  # L40S datasheet table (mullet.se)
        ("nvidia-geforce-rtx-4090", 165.2, 24, 450),  # Ada whitepaper, FP32 accumulate
        ("amd-instinct-mi300x", 1307.4, 192, 750),  # AMD MI300X data sheet
    ],
)
def test_gpu_figures_match_the_reference(catalog, slug, bf16, hbm_gb, tdp):
    gpu = catalog[slug]
    assert (gpu.tflops["bf16"], gpu.hbm_gb, gpu.max_power_w) == (bf16, hbm_gb, tdp)
    assert set(gpu.tflops) <= set(PRECISIONS)
    assert "tflops" in gpu.sources


def test_l20_carries_only_the_verified_fp32_rate(catalog):
    # hardware-reference.json L20: fp32 59.35; tensor TFLOPS "NOT verified"
    gpu = catalog["nvidia-l20"]
    assert gpu.tflops == {"fp32": 59.35}
    assert "UNVERIFIED" in gpu.sources["tflops"]


def test_switches_have_planning_power_labelled_as_estimates(catalog):
    # hardware-reference.json: QM9700 64x400G 1U 14.8 kg; SN5600 64x800G 2U;
    # Q3400-RA 144x800G 4U 60 kg; SN4600 64x200G 2U. Power "not found" in all four.
    expected = {
        "nvidia-qm9700": (1, 64, 400.0),
        "nvidia-sn5600": (2, 64, 800.0),
        "nvidia-sn4600": (2, 64, 200.0),
        "nvidia-q3400-ra": (4, 144, 800.0),
    }
    for slug, (units, ports, speed) in expected.items():
        item = catalog[slug]
        data = [i for i in item.interfaces if not i.mgmt_only]
        assert item.u_height == units
        assert len(data) == ports
        assert {interface_speed_gbps(i.type) for i in data} == {speed}
        assert item.sources["max_power_w"].startswith("planning estimate"), slug
        assert item.role == "compute-switch"
    mgmt = catalog["generic-mgmt-48p-10g"]
    speeds = [interface_speed_gbps(i.type) for i in mgmt.interfaces if not i.mgmt_only]
    assert speeds.count(10.0) == 48 and speeds.count(100.0) == 4
    assert mgmt.role == "management-switch"


def test_servers_reference_gpus_that_exist(catalog):
    for server in catalog.by_kind("server"):
        if server.gpu:
            assert catalog[server.gpu].kind == "gpu"
        assert server.props["host_ram_gb"] > 0
        assert any(i.mgmt_only for i in server.interfaces), server.slug


def test_pdu_capacity_follows_the_three_phase_formula(catalog):
    # sqrt(3) x 415 V x 32 A = 23,002 W; single phase 230 V x 32 A = 7,360 W
    assert pdu_capacity_kw(3, 415, 32) == pytest.approx(math.sqrt(3) * 415 * 32 / 1000, abs=0.01)
    assert catalog["generic-pdu-3ph-415v-32a"].props["capacity_kw"] == pytest.approx(23.0, abs=0.01)
    assert catalog["generic-pdu-3ph-415v-63a"].props["capacity_kw"] == pytest.approx(
        45.28, abs=0.01
    )
    assert catalog["generic-pdu-1ph-230v-32a"].props["capacity_kw"] == pytest.approx(7.36, abs=0.01)
    for pdu in catalog.by_kind("pdu"):
        assert pdu.u_height == 0


def test_racks_cables_optics_and_storage_props(catalog):
    limits = {
        "generic-rack-42u-air": ("air", 12, 42),
        "generic-rack-48u-rdhx": ("rear-door", 50, 48),
        "generic-rack-48u-liquid": ("liquid", 120, 48),
    }
    for slug, (cooling, kw, units) in limits.items():
        rack = catalog[slug]
        assert (rack.props["cooling"], rack.props["cooling_limit_kw"], rack.u_height) == (
            cooling,
            kw,
            units,
        )
        assert rack.props["max_weight_kg"] > 0
    reaches = {"optic-400g-osfp-sr4": 50, "optic-400g-osfp-dr4": 500, "optic-400g-osfp-fr4": 2000}
    for slug, reach in reaches.items():
        assert catalog[slug].props["reach_m"] == reach
    for item in catalog.by_kind("cable") + catalog.by_kind("optic"):
        assert {"reach_m", "speed_gbps", "power_w", "form_factor"} <= item.props.keys(), item.slug
    for item in catalog.by_kind("storage"):
        assert {"capacity_tb", "read_gbs", "write_gbs", "media"} <= item.props.keys(), item.slug
    assert catalog["generic-allflash-pfs-node"].u_height == 2


def test_every_item_reparses_from_its_json_snapshot_to_an_equal_item(catalog):
    for item in catalog:
        again = parse_item(json.loads(json.dumps(item.raw)))
        assert again == item, item.slug
        assert parse_item(item.raw, item.source_file) == item


def test_by_kind_is_sorted_by_manufacturer_then_model(catalog):
    gpus = catalog.by_kind("gpu")
    keys = [(g.manufacturer.lower(), g.model.lower()) for g in gpus]
    assert keys == sorted(keys)
    assert gpus[0].manufacturer == "AMD"


def test_whole_catalog_loads():
    # Its time (about 0.07 s on the 2-core dev machine) is measured by
    # tests/benchmarks/bench_untrusted_inputs.py, not asserted here.
    assert load_catalog(include_user=False).items
