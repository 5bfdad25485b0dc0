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
