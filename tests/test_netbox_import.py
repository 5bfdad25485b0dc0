"""``read_netbox`` / ``workbench netbox import``: NetBox's own exports, bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.netbox import NetBoxImportError, importer, read_netbox, write_netbox
from workbench.templates import build_template

#: What NetBox 4.7.3 itself wrote ("Export ▸ All data" of each list, display headings:
#: "Name", "Type", "Position", "Rack face", "Termination A", "10 m" ...) after
#: importing the sample design's files; device-types.yaml and workbench.yaml are ours.
NETBOX_EXPORT = Path(__file__).parent / "data" / "netbox_export"


@pytest.fixture(scope="module")
def sample():
    return build_template("hgx-h100-air")


@pytest.fixture()
def folder(sample, tmp_path: Path) -> Path:
    write_netbox(sample, tmp_path / "nb")
    return tmp_path / "nb"


def test_netbox_own_export_reads_back_as_the_design(sample) -> None:
    back = read_netbox(NETBOX_EXPORT)
    # NetBox lists objects by name, so compare each object by id, not the order.
    want = {d.id: (r.id, d) for r, d in sample.iter_devices()}
    got = {d.id: (r.id, d) for r, d in back.iter_devices()}
    assert got == want
    racks = {r.id: (r.name, r.rack_type, r.cooling, r.floor_x_mm, r.feed("a"), r.max_weight_kg)
             for r in sample.iter_racks()}  # fmt: skip
    assert {r.id: (r.name, r.rack_type, r.cooling, r.floor_x_mm, r.feed("a"), r.max_weight_kg)
            for r in back.iter_racks()} == racks  # fmt: skip
    assert sorted(back.links, key=lambda lk: lk.id) == sorted(sample.links, key=lambda lk: lk.id)
    assert back.networks == sample.networks


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_a_missing_file_is_one_line(folder: Path) -> None:
    (folder / "devices.csv").unlink()
    with pytest.raises(NetBoxImportError, match=r"devices.csv: missing") as err:
        read_netbox(folder)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("name", "old", "new", "message"),
    [
        ("devices.csv", ",A01,2,front,", ",A01,2.5,front,", r"devices.csv:\d+: field 'position'"),
        ("devices.csv", ",A01,2,front,", ",ZZ9,2,front,", r"devices.csv:\d+: rack 'ZZ9'"),
        ("devices.csv", ",A01,2,front,", ",A01,2,sideways,", r"devices.csv:\d+: field 'face'"),
        ("cables.csv", "gpu00001,dcim.interface", "nobody,dcim.interface", r"cables.csv:2: side A device 'nobody'"),
        ("racks.csv", "r00001,12,", "r00001,twelve,", r"racks.csv:2: field 'cf_wb_power_limit_kw'"),
        ("racks.csv", "Hall 1,Row A,A01", "Hall 9,Row A,A01", r"racks.csv:2: site 'Hall 9'"),
        ("prefixes.csv", "net-compute,", "net-storage,", r"prefixes.csv:\d+: id 'net-storage' is used twice"),
    ],
)  # fmt: skip
def test_bad_rows_name_file_line_and_field(folder: Path, name, old, new, message) -> None:
    _edit(folder / name, old, new)
    with pytest.raises(NetBoxImportError, match=message):
        read_netbox(folder)


def test_limits_and_encoding(folder: Path, monkeypatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(importer, "MAX_FILE_BYTES", 1024)
        with pytest.raises(NetBoxImportError, match=r"racks.csv: larger than"):
            read_netbox(folder)
    (folder / "sites.csv").write_bytes(b"name,slug\n\xff\xfe,x\n")
    with pytest.raises(NetBoxImportError, match=r"sites.csv:2: not UTF-8"):
        read_netbox(folder)


def test_cli_import_writes_only_on_success(folder: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "back.dcwb"
    bad = tmp_path / "bad"
    shutil.copytree(folder, bad)
    _edit(bad / "devices.csv", ",A01,2,front,", ",A01,2.5,front,")
    assert main(["netbox", "import", str(bad), str(out)]) == 2
    err = capsys.readouterr().err
    assert "nothing written" in err and "devices.csv:" in err and err.count("\n") == 1
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad", "nb"]
    assert main(["netbox", "import", str(folder), str(out), "--quiet"]) == 0
    assert out.exists()
    before = out.read_bytes()
    assert main(["netbox", "import", str(folder), str(out)]) == 2  # no silent overwrite
    assert "already exists" in capsys.readouterr().err and out.read_bytes() == before


def test_cli_export_to_an_unwritable_place_is_one_line(tmp_path: Path, capsys) -> None:
    from workbench.store import save_design

    project = tmp_path / "s.dcwb"
    save_design(build_template("hgx-h100-air"), project)
    assert main(["netbox", "export", str(project), str(tmp_path / "no" / "dir")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err


#: How NetBox names each list's "Export ▸ All data" download
#: (``netbox/views/generic/bulk_views.py``: ``netbox_<verbose_name_plural>.csv``, and
#: ``.yaml`` for device types, whose ``to_yaml`` documents it joins with ``---``).
_NETBOX_NAMES = {
    "sites.csv": "netbox_sites.csv",
    "locations.csv": "netbox_locations.csv",
    "racks.csv": "netbox_racks.csv",
    "devices.csv": "netbox_devices.csv",
    "cables.csv": "netbox_cables.csv",
    "vlans.csv": "netbox_VLANs.csv",
    "prefixes.csv": "netbox_prefixes.csv",
}


def _to_yaml(doc: dict) -> dict:
    """A device type as NetBox 4.x's ``DeviceType.to_yaml`` writes it: every field,
    unset ones as '' or null, and each interface with its template's fields."""
    out = {"manufacturer": doc["manufacturer"], "model": doc["model"], "slug": doc["slug"],
           "description": "", "default_platform": None, "part_number": "",
           "u_height": float(doc["u_height"]), "is_full_depth": doc["is_full_depth"],
           "subdevice_role": None, "airflow": doc.get("airflow"),
           "weight": doc.get("weight"), "weight_unit": doc.get("weight_unit"), "comments": ""}  # fmt: skip
    if doc.get("power-ports"):
        out["power-ports"] = [{"name": p["name"], "type": p.get("type"), "label": "",
                               "maximum_draw": p.get("maximum_draw"),
                               "allocated_draw": p.get("allocated_draw"), "description": ""}
                              for p in doc["power-ports"]]  # fmt: skip
    out["interfaces"] = [{"name": i["name"], "type": i["type"], "enabled": True,
                          "mgmt_only": bool(i.get("mgmt_only")), "label": "", "description": "",
                          "bridge": None, "poe_mode": None, "poe_type": None, "rf_role": None}
                         for i in doc.get("interfaces", [])]  # fmt: skip
    return out


@pytest.fixture()
def netbox_own(tmp_path: Path) -> Path:
    """What a team whose system of record is NetBox downloads: NetBox 4.7.3's own list
    exports of the sample (``NETBOX_EXPORT``), under NetBox's file names, without the
    workbench's sidecar and custom fields, with a device that has an asset tag and a
    name with '&', a rack without a rack type, and the rack types' own list export."""
    import csv
    import io

    import yaml

    folder = tmp_path / "from-netbox"
    folder.mkdir()
    for ours, theirs in _NETBOX_NAMES.items():
        with open(NETBOX_EXPORT / ours, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
        keep = [k for k, h in enumerate(rows[0]) if h not in _WORKBENCH_LABELS]
        rows = [[r[k] for k in keep] for r in rows]
        head = rows[0]
        if ours == "devices.csv":
            for r in rows[1:]:
                if r[head.index("Name")] == "gpu00001":
                    r[head.index("Asset tag")] = "AT-0001"
                if r[head.index("Name")] == "cmp-leaf-su01-r1":  # a TemplateColumn: escaped
                    r[head.index("Name")] = "cmp-leaf&amp;su01-r1"
        if ours == "cables.csv":  # str(device): "name (asset tag)", never escaped
            for r in rows[1:]:
                for col in ("Device A", "Device B"):
                    k = head.index(col)
                    r[k] = {"gpu00001": "gpu00001 (AT-0001)",
                            "cmp-leaf-su01-r1": "cmp-leaf&su01-r1"}.get(r[k], r[k])  # fmt: skip
        if ours == "racks.csv":
            rows[1][head.index("Type")] = ""  # a rack type is optional in NetBox
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerows(rows)  # Django's CSV response
        (folder / theirs).write_text(out.getvalue(), encoding="utf-8")
    docs = [d for d in yaml.safe_load_all((NETBOX_EXPORT / "device-types.yaml").read_text())]
    text = "---\n".join(yaml.dump(_to_yaml(d), sort_keys=False) for d in docs if d)
    (folder / "netbox_device types.yaml").write_text(text, encoding="utf-8")
    # RackTypeTable's columns (dcim/tables/racks.py): no slug; Height as "42U".
    (folder / "netbox_rack types.csv").write_text(
        "ID,Model,Manufacturer,Form factor,Height,Starting unit,Width,Outer Width,"
        "Outer Height,Outer Depth,Mounting depth,Weight,Max Weight,Description,Comments,"
        "Rack Count,Tags,Created,Last updated\r\n"
        "1,42U air-cooled cabinet,Generic,4-post cabinet,42U,1,19 inches,600 mm,,1200 mm,,"
        "120.00 kg,1360.00 kg,,,11,,2026-12-02T01:56:50+00:00,2026-12-02T01:56:50+00:00\r\n"
        "2,48U cabinet with rear-door heat exchanger,Generic,4-post cabinet,48U,1,19 inches,"
        "600 mm,,1200 mm,,,,,,1,,2026-12-02T01:56:50+00:00,2026-12-02T01:56:50+00:00\r\n",
        encoding="utf-8",
    )
    return folder


_WORKBENCH_LABELS = {label for _n, _t, _o, label in importer.nb.CUSTOM_FIELDS}


def test_netbox_own_exports_read_back_without_the_sidecar(sample, netbox_own, tmp_path) -> None:
    back = read_netbox(netbox_own)
    names = sorted(d.name for _r, d in back.iter_devices())
    want = sorted(d.name for _r, d in sample.iter_devices())
    assert names == sorted(n.replace("cmp-leaf-su01-r1", "cmp-leaf&su01-r1") for n in want)
    assert sum(1 for _ in back.iter_racks()) == sum(1 for _ in sample.iter_racks())
    assert len(back.links) == len(sample.links)
    tagged = next(d for _r, d in back.iter_devices() if d.name == "gpu00001")
    assert tagged.asset_tag == "AT-0001"
    assert any(lk.a_device == tagged.id or lk.b_device == tagged.id for lk in back.links)
    # NetBox's cable-type labels are media again, and lengths keep their figure.
    by_label = {lk.id: lk for lk in back.links}
    assert {lk.cable_type for lk in by_label.values()} <= {"aoc", "dac", "mmf", "smf", "utp"}
    assert all(lk.cable_type and lk.length_m for lk in back.links)
    # The rack without a rack type got one made from its own row, and the rest the
    # rack type NetBox's list describes (no slug there): the project opens.
    types = {r.rack_type for r in back.iter_racks()}
    assert all(back.device_types[t].kind == "rack" for t in types)
    assert types == {"generic-42u-air-cooled-cabinet", "generic-42u-rack-no-rack-type-in-netbox",
                     "generic-48u-cabinet-with-rear-door-heat-exchanger"}  # fmt: skip
    assert back.device_types["generic-48u-cabinet-with-rear-door-heat-exchanger"].u_height == 48
    out = tmp_path / "back.dcwb"
    assert main(["netbox", "import", str(netbox_own), str(out), "--quiet"]) == 0
    from workbench.store import open_design

    assert sum(1 for _ in open_design(out).iter_devices()) == len(names)


def test_a_folder_that_would_not_open_is_refused_naming_the_row(folder: Path) -> None:
    """The rows each pass, but the design they make breaks a rule of the project file
    (a device's own role is not one the drawing knows): refused before anything is
    written, naming the row, instead of a project the workbench then refuses."""
    devices = folder / "devices.csv"
    lines = devices.read_text(encoding="utf-8").splitlines(keepends=True)
    head = lines[0].rstrip("\n").split(",")
    cells = lines[3].rstrip("\n").split(",")
    cells[head.index("cf_wb_role")] = "bogus-role"
    lines[3] = ",".join(cells) + "\n"
    devices.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(NetBoxImportError) as raised:
        read_netbox(folder)
    message = str(raised.value)
    assert message.startswith(f"{devices}:4: makes a design the workbench cannot open")
    assert "bogus-role" in message and "\n" not in message
