"""``write_netbox``: NetBox's import-form columns, manifest order, atomic output."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from workbench.export.ip_plan import plan_addresses
from workbench.export.output import ExportCancelled, ExportError
from workbench.netbox import columns as nb
from workbench.netbox import write_netbox
from workbench.templates import build_template

#: The field names of NetBox 4.7.3's import forms (``Meta.fields`` of the
#: ``*ImportForm`` classes in dcim/, ipam/ and extras/forms/bulk_import.py), copied
#: here so a column the forms do not have fails this test.
FORM_FIELDS: dict[str, set[str]] = {
    "extras/custom-fields": {"name", "label", "group_name", "type", "object_types",
                             "related_object_type", "required", "unique", "description",
                             "search_weight", "filter_logic", "weight", "ui_visible",
                             "ui_editable"},
    "dcim/sites": {"name", "slug", "status", "region", "group", "tenant", "facility",
                   "time_zone", "description", "physical_address", "shipping_address",
                   "latitude", "longitude", "owner", "comments", "tags"},
    "dcim/locations": {"site", "parent", "name", "slug", "status", "tenant", "facility",
                       "description", "owner", "comments", "tags"},
    "dcim/rack-roles": {"name", "slug", "color", "description", "owner", "comments", "tags"},
    "dcim/manufacturers": {"name", "slug", "description", "owner", "comments", "tags"},
    "dcim/rack-types": {"manufacturer", "model", "slug", "form_factor", "width", "u_height",
                        "starting_unit", "desc_units", "outer_width", "outer_height",
                        "outer_depth", "outer_unit", "mounting_depth", "weight", "max_weight",
                        "weight_unit", "description", "comments", "tags"},
    "dcim/racks": {"site", "location", "group", "name", "facility_id", "tenant", "status",
                   "role", "rack_type", "form_factor", "serial", "asset_tag", "width",
                   "u_height", "max_weight", "weight_unit", "description", "comments", "tags"},
    "dcim/device-roles": {"name", "slug", "parent", "color", "vm_role", "description"},
    "dcim/devices": {"name", "role", "tenant", "manufacturer", "device_type", "platform",
                     "serial", "asset_tag", "status", "site", "location", "rack", "position",
                     "face", "latitude", "longitude", "airflow", "description", "comments"},
    "dcim/interfaces": {"device", "name", "label", "parent", "type", "description", "mgmt_only"},
    "dcim/cables": {"side_a_site", "side_a_device", "side_a_power_panel", "side_a_type",
                    "side_a_name", "side_b_site", "side_b_device", "side_b_power_panel",
                    "side_b_type", "side_b_name", "type", "status", "profile", "tenant",
                    "bundle", "label", "color", "length", "length_unit", "description"},
    "ipam/vlans": {"site", "group", "vid", "name", "tenant", "status", "role", "description"},
    "ipam/prefixes": {"prefix", "vrf", "tenant", "vlan_group", "vlan_site", "vlan", "status",
                      "role", "scope_type", "scope_name", "scope_id", "is_pool",
                      "mark_utilized", "description", "comments", "tags"},
    "ipam/ip-addresses": {"address", "vrf", "tenant", "status", "role", "device",
                          "virtual_machine", "interface", "is_primary", "is_oob", "dns_name",
                          "description", "comments", "tags"},
}  # fmt: skip
#: Keys of a device type in the community library's schema (device-type.json).
LIBRARY_KEYS = {"manufacturer", "model", "slug", "part_number", "u_height", "is_full_depth",
                "airflow", "weight", "weight_unit", "comments", "interfaces", "power-ports"}  # fmt: skip


@pytest.fixture(scope="module")
def sample():
    return build_template("hgx-h100-air")


@pytest.fixture(scope="module")
def exported(sample, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("nb") / "out"
    write_netbox(sample, folder)
    return folder


def _rows(folder: Path, name: str) -> list[dict[str, str]]:
    with open(folder / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_device_types_open_with_a_document_marker(exported: Path) -> None:
    """NetBox's "Auto-detect" format reads a file without a leading ``---`` as JSON and
    refuses it; every document starts with one."""
    text = (exported / "device-types.yaml").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    docs = text.split("---\n")[1:]
    assert docs and all(d.startswith("manufacturer: ") for d in docs)


def test_manifest_lists_every_file_in_import_order(exported: Path) -> None:
    manifest = json.loads((exported / "manifest.json").read_text())
    assert [e["file"] for e in manifest] == [f.name for f in nb.FILES]
    assert [e["path"] for e in manifest][:3] == [
        "extras/custom-fields",
        "dcim/sites",
        "dcim/locations",
    ]
    order = [e["path"] for e in manifest]
    # Dependencies come first: what a row names must already exist in NetBox.
    for before, after in [("dcim/manufacturers", "dcim/device-types"), ("dcim/racks", "dcim/devices"),
                          ("dcim/device-types", "dcim/devices"), ("dcim/interfaces", "dcim/cables"),
                          ("ipam/vlans", "ipam/prefixes"), ("dcim/devices", "ipam/ip-addresses"),
                          ("dcim/rack-types", "dcim/racks"), ("extras/custom-fields", "dcim/racks")]:  # fmt: skip
        assert order.index(before) < order.index(after)
    for entry in manifest:
        assert (exported / entry["file"]).is_file()


def test_columns_are_netbox_import_form_fields(exported: Path) -> None:
    custom = {f"cf_{name}" for name, *_ in nb.CUSTOM_FIELDS}
    for spec in nb.FILES:
        if spec.name.endswith(".yaml"):
            continue
        with open(exported / spec.name, encoding="utf-8") as f:
            header = next(csv.reader(f))
        unknown = set(header) - FORM_FIELDS[spec.path] - custom
        assert not unknown, f"{spec.name}: {unknown}"


def test_custom_fields_cover_every_cf_column(exported: Path) -> None:
    defined = {
        r["name"]: set(r["object_types"].split(",")) for r in _rows(exported, "custom-fields.csv")
    }
    model = {"racks.csv": "dcim.rack", "devices.csv": "dcim.device", "cables.csv": "dcim.cable",
             "prefixes.csv": "ipam.prefix", "sites.csv": "dcim.site", "locations.csv": "dcim.location"}  # fmt: skip
    for name, object_type in model.items():
        with open(exported / name, encoding="utf-8") as f:
            header = next(csv.reader(f))
        for column in header:
            if column.startswith("cf_"):
                assert object_type in defined[column[3:]], (name, column)


def test_device_types_are_library_yaml_with_every_cabled_port(sample, exported: Path) -> None:
    docs = list(yaml.safe_load_all((exported / "device-types.yaml").read_text()))
    assert docs and all(set(d) <= LIBRARY_KEYS for d in docs)
    by_model = {d["model"]: {i["name"] for i in d.get("interfaces", ())} for d in docs}
    lanes = {(r["device"], r["name"]) for r in _rows(exported, "interfaces.csv")}
    devices = {r["name"]: r["device_type"] for r in _rows(exported, "devices.csv")}
    for row in _rows(exported, "cables.csv"):
        for side in ("a", "b"):
            device, port = row[f"side_{side}_device"], row[f"side_{side}_name"]
            assert port in by_model[devices[device]] or (device, port) in lanes
            assert row[f"side_{side}_type"] == "dcim.interface"
    assert all(p.get("maximum_draw", 0) == int(p.get("maximum_draw", 0))
               for d in docs for p in d.get("power-ports", ()))  # fmt: skip


def test_devices_racks_and_cables_carry_their_fields(sample, exported: Path) -> None:
    devices = _rows(exported, "devices.csv")
    placed = [(r, d) for r, d in sample.iter_devices()]
    assert len(devices) == len(placed)
    for row, (rack, device) in zip(devices, placed, strict=True):
        assert (row["name"], row["rack"], row["cf_wb_id"]) == (device.name, rack.name, device.id)
        assert row["position"] == ("" if device.position is None else str(device.position))
        assert row["face"] == (device.face if device.position is not None else "")
        assert row["serial"] == device.serial and row["asset_tag"] == device.asset_tag
    racks = _rows(exported, "racks.csv")
    assert [r["u_height"] for r in racks] == [
        str(int(sample.device_types[r.rack_type].u_height)) for r in sample.iter_racks()
    ]
    cables = _rows(exported, "cables.csv")
    assert len(cables) == len(sample.links)
    assert all(c["length"] and c["length_unit"] == "m" and c["type"] for c in cables)


def test_addresses_are_the_ip_plan(sample, exported: Path) -> None:
    plan = plan_addresses(sample)
    rows = _rows(exported, "ip-addresses.csv")
    assert [(r["address"], r["device"], r["interface"]) for r in rows] == [
        (f"{a.address}/{a.prefix_len}", a.device_name, a.port) for a in plan.addresses
    ]
    prefixes = _rows(exported, "prefixes.csv")
    assert [p["prefix"] for p in prefixes] == [s.cidr for s in plan.subnets]


def test_unrelated_files_in_the_folder_stay(sample, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    write_netbox(sample, folder)
    assert (folder / "notes.txt").read_text() == "mine"


def test_cancel_and_bad_paths_leave_nothing(sample, tmp_path: Path) -> None:
    def cancel(fraction: float, _label: str = "") -> None:
        if fraction > 0.04:
            raise ExportCancelled()

    with pytest.raises(ExportCancelled):
        write_netbox(sample, tmp_path / "out", progress=cancel)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ExportError, match="folder above it does not exist"):
        write_netbox(sample, tmp_path / "no" / "out")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportError, match="is a file"):
        write_netbox(sample, tmp_path / "file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_an_exhausted_subnet_fails_before_writing(tmp_path: Path) -> None:
    design = build_template("hgx-h100-air")
    design.networks[0].subnet = "10.9.0.0/30"
    with pytest.raises(ExportError, match="10.9.0.0/30"):
        write_netbox(design, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_name_netbox_refuses_is_refused_before_a_file_is_written(tmp_path: Path) -> None:
    """Two devices of one name in a site (a project may hold that clash; ``check``
    names it) made an export NetBox refused halfway and the workbench's own import
    refused too.  The export now refuses it, writing nothing."""
    from workbench.export.output import ExportError
    from workbench.templates import build_template

    design = build_template("hgx-h100-air")
    (_r1, first), (_r2, second) = list(design.iter_devices())[:2]
    second.name = first.name  # as a hand-edited or older file may hold it
    design.reindex()
    target = tmp_path / "nb"
    with pytest.raises(ExportError) as raised:
        write_netbox(design, target)
    assert f"share the name {first.name!r}" in str(raised.value)
    assert not target.exists()
