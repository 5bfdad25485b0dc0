"""NetBox device types load unchanged, power gaps are warnings, the user's folder
overlays the shipped one, and a design's snapshot holds what its items reference."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from workbench.catalog import (
    load_catalog,
    load_file,
    parse_item,
    shipped_catalog_dir,
    snapshot_for,
    user_catalog_dir,
)
from workbench.catalog.item import PowerPort
from workbench.catalog.netbox import interface_speed_gbps, netbox_power

NETBOX = Path(__file__).parent / "data" / "netbox"
LIBRARY = Path(__file__).parent / "data" / "netbox_library"


def test_netbox_files_load_unchanged_with_their_extra_keys():
    for path in sorted(NETBOX.glob("*.yaml")):
        before = path.read_bytes()
        result = load_file(path)
        assert result.errors == [], path
        [item] = result.items
        assert item.raw == yaml.safe_load(before), path  # every key kept, nothing rewritten
        assert path.read_bytes() == before
        assert parse_item(json.loads(json.dumps(item.raw))) == item


def test_dell_gpu_server_is_classified_and_supply_ratings_are_not_summed():
    result = load_file(NETBOX / "dell-poweredge-xe9680.yaml")
    [item] = result.items
    assert (item.kind, item.role, item.u_height) == ("server", "gpu-server", 6)
    assert (item.gpu, item.gpu_count) == ("nvidia-h100-sxm5-80gb", 8)
    assert "module-bays" in item.raw and "console-ports" in item.raw
    # Six PSUs of 2,800 W are ratings, not a draw: unknown until a redundancy is stated.
    assert item.max_power_w is None and item.typical_power_w is None
    [warning] = result.warnings
    assert warning.field == "power-ports" and warning.line == 26
    assert "supply rating (6 × 2,800 W)" in warning.message and "psu_redundancy" in warning.message


def test_allocated_draw_is_preferred_over_maximum_draw():
    [item] = load_file(NETBOX / "supermicro-sys-421ge-tnrt.yaml").items
    # 1,200 W on each of two supplies is the device's draw once (N+N), not 2,400 W
    assert item.max_power_w == 1200
    assert "taken once" in item.sources["max_power_w"]
    assert load_file(NETBOX / "supermicro-sys-421ge-tnrt.yaml").warnings == []


def test_identical_allocated_draw_on_redundant_supplies_is_one_device_figure():
    """The library's Dell S5248F-ON lists 360 W on each of its two supplies: a 360 W
    switch, which the import used to count as 720 W.  Different figures still add up."""
    [item] = load_file(LIBRARY / "Dell" / "Networking_s5248f-on-os10.yaml").items
    assert item.max_power_w == 360
    assert "360 W on each of 2 power ports, taken once" in item.sources["max_power_w"]
    assert "(720 W)" in item.sources["max_power_w"]  # the sum it is not, said aloud
    ports = (PowerPort("a", "iec-60320-c14", None, 300), PowerPort("b", "iec-60320-c14", None, 200))
    figure = netbox_power(ports, None)
    assert figure.watts == 500 and "different figures" in figure.source


def test_switch_without_power_draw_warns_and_its_power_is_unknown():
    result = load_file(NETBOX / "arista-dcs-7050sx3-48yc8.yaml")
    [item] = result.items
    assert (item.kind, item.role) == ("switch", "compute-switch")  # a 25G leaf, not mgmt
    assert item.max_power_w is None
    [warning] = result.warnings
    assert str(warning).endswith(
        "arista-dcs-7050sx3-48yc8.yaml:15: field 'power-ports': power unknown: no "
        "allocated_draw or maximum_draw on any power port; set max_power_w (the budgets "
        "count this device as unknown, not 0 W)"
    )


def test_our_max_power_wins_over_psu_ratings():
    base = yaml.safe_load((NETBOX / "dell-poweredge-xe9680.yaml").read_text())
    item = parse_item(base | {"max_power_w": 11500, "kind": "server"})
    assert item.max_power_w == 11500


def test_kind_inference_for_pdus_and_racks():
    pdu = parse_item(
        {"slug": "p", "manufacturer": "APC", "model": "AP8861", "power-outlets": [{"name": "1"}]}
    )
    rack = parse_item(
        {"slug": "r", "manufacturer": "A", "model": "R", "form_factor": "4-post-cabinet"}
    )
    assert (pdu.kind, rack.kind) == ("pdu", "rack")


@pytest.mark.parametrize(
    ("type_name", "gbps"),
    [
        ("100base-tx", 0.1),
        ("1000base-t", 1.0),
        ("2.5gbase-t", 2.5),
        ("10gbase-x-sfpp", 10.0),
        ("10gbase-t", 10.0),
        ("25gbase-x-sfp28", 25.0),
        ("100gbase-x-qsfp28", 100.0),
        ("200gbase-x-qsfp56", 200.0),
        ("400gbase-x-osfp", 400.0),
        ("400gbase-x-qsfp112", 400.0),
        ("800gbase-x-osfp", 800.0),
        ("1.6tbase-x-osfp1600", 1600.0),
        ("infiniband-hdr", 200.0),
        ("infiniband-ndr", 400.0),
        ("infiniband-xdr", 800.0),
        ("virtual", None),
        ("other", None),
        ("", None),
    ],
)
def test_interface_speed_from_netbox_type_names(type_name, gbps):
    assert interface_speed_gbps(type_name) == gbps


def test_user_folder_overlays_shipped_items(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(tmp_path))
    assert user_catalog_dir() == tmp_path
    mine = yaml.safe_load((shipped_catalog_dir() / "switches" / "nvidia-qm9700.yaml").read_text())
    mine["max_power_w"] = 1400
    mine["sources"]["max_power_w"] = "measured on our own switch"
    (tmp_path / "qm9700.yaml").write_text(yaml.safe_dump(mine))
    shutil.copy(NETBOX / "arista-dcs-7050sx3-48yc8.yaml", tmp_path)
    catalog = load_catalog()
    assert catalog.dirs == [shipped_catalog_dir(), tmp_path]
    assert catalog["nvidia-qm9700"].max_power_w == 1400
    assert catalog["nvidia-qm9700"].source_file.endswith("qm9700.yaml")
    assert "arista-dcs-7050sx3-48yc8" in catalog and "nvidia-dgx-h100" in catalog
    assert load_catalog(include_user=False)["nvidia-qm9700"].max_power_w == 1200


def test_user_catalog_dir_defaults_to_xdg_data_home(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_USER_CATALOG", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert user_catalog_dir() == tmp_path / "workbench" / "catalog"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert user_catalog_dir() == Path.home() / ".local" / "share" / "workbench" / "catalog"


def test_missing_default_user_folder_is_not_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(tmp_path / "not-yet"))
    catalog = load_catalog()
    assert catalog.errors == [] and catalog.dirs == [shipped_catalog_dir()]


def test_snapshot_brings_the_gpu_of_each_server():
    catalog = load_catalog(include_user=False)
    snap = snapshot_for(catalog, ["nvidia-dgx-h100", "generic-rack-48u-rdhx", "nvidia-dgx-h100"])
    assert set(snap) == {"nvidia-dgx-h100", "nvidia-h100-sxm5-80gb", "generic-rack-48u-rdhx"}
    # What a project file does: store raw as JSON, re-parse it on open.
    stored = json.dumps({slug: item.raw for slug, item in snap.items()})
    reopened = {
        slug: parse_item(raw, "design snapshot") for slug, raw in json.loads(stored).items()
    }
    assert reopened == snap
    # A snapshot is itself a valid source for another snapshot (plain mapping).
    assert set(snapshot_for(reopened, ["nvidia-dgx-h100"])) == {
        "nvidia-dgx-h100",
        "nvidia-h100-sxm5-80gb",
    }
