"""NetBox import: kind guessing for real-world shapes, ``--kind`` and overlay warnings."""

from __future__ import annotations

import hashlib
from pathlib import Path

from workbench.catalog import load_catalog
from workbench.catalog.netbox import infer_kind
from workbench.cli.main import main

# Shaped like the community library's DGX A100 file: a server whose file lists 36
# Ethernet ports (more than most switches' threshold) and no power draw of its own.
DGX_LIKE = (
    "---\nmanufacturer: Nvidia\nmodel: NVIDIA DGX A100 640GB\nslug: nvidia-dgx-a100-640gb\n"
    "u_height: 6\nis_full_depth: true\ninterfaces:\n"
    + "".join(f"  - name: Ethernet1/{i}\n    type: 100gbase-x-qsfp28\n" for i in range(1, 37))
)

# Shaped like the library's QM9700 file: PSUs without any draw figures.
QM_LIKE = (
    "---\nmanufacturer: Nvidia\nmodel: QM9700\nslug: nvidia-qm9700\nu_height: 1\n"
    "is_full_depth: true\n"
    "power-ports:\n  - name: psu0\n    type: iec-60320-c14\ninterfaces:\n"
    + "".join(f"  - name: P{i}.0\n    type: 400gbase-x-osfp\n" for i in range(32))
)


def test_server_words_beat_port_count() -> None:
    import yaml

    assert infer_kind(yaml.safe_load(DGX_LIKE)) == "server"
    assert infer_kind(yaml.safe_load(QM_LIKE)) == "switch"


def test_import_with_kind_override(tmp_path: Path, capsys) -> None:
    source = tmp_path / "DGC-A100.yaml"
    source.write_text(DGX_LIKE)
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    dest = tmp_path / "user"
    assert (
        main(["catalog", "import-netbox", "--kind", "storage", "--dest", str(dest), str(source)])
        == 0
    )
    assert "(storage)" in capsys.readouterr().out
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before, "source untouched"
    item = load_catalog([dest], include_user=False).get("nvidia-dgx-a100-640gb")
    assert item is not None and item.kind == "storage"


def test_import_warns_when_overlaying_shipped(tmp_path: Path, capsys) -> None:
    source = tmp_path / "QM9700.yaml"
    source.write_text(QM_LIKE)
    assert main(["catalog", "import-netbox", "--dest", str(tmp_path / "u"), str(source)]) == 0
    out = capsys.readouterr().out
    assert "overlays the shipped nvidia-qm9700" in out
    # The file has no power figure and no price: the shipped ones are kept, not zeroed.
    assert "max_power_w: 1200 -> 1200 (kept)" in out and "unit_price: 30000 -> 30000 (kept)" in out
    item = load_catalog([tmp_path / "u"], include_user=False)["nvidia-qm9700"]
    assert (item.max_power_w, item.unit_price, item.kind) == (1200, 30000, "switch")


def test_import_of_missing_file_or_folder_is_one_line_each(tmp_path: Path, capsys) -> None:
    good = tmp_path / "QM9700.yaml"
    good.write_text(QM_LIKE)
    missing = tmp_path / "nope.yaml"
    folder = tmp_path / "a-folder"
    folder.mkdir()
    dest = tmp_path / "user"
    code = main(
        ["catalog", "import-netbox", "--dest", str(dest), str(missing), str(folder), str(good)]
    )
    captured = capsys.readouterr()
    assert code == 1
    assert "nope.yaml: cannot read it: No such file or directory" in captured.err
    assert "a-folder: cannot read it: Is a directory" in captured.err
    assert "Traceback" not in captured.err
    # The good file is still imported, and nothing else lands in the catalog folder.
    assert sorted(p.name for p in dest.iterdir()) == ["nvidia-qm9700.yaml"]


def test_import_reports_every_bad_field_of_a_file(tmp_path: Path, capsys) -> None:
    source = tmp_path / "bad.yaml"
    source.write_text("manufacturer: X\nmodel: Y\nslug: Bad Slug\nu_height: eight\n")
    code = main(["catalog", "import-netbox", "--dest", str(tmp_path / "u"), str(source)])
    err = capsys.readouterr().err
    assert code == 1
    assert "bad.yaml:3: field 'slug'" in err
    assert "bad.yaml:4: field 'u_height'" in err
    assert not (tmp_path / "u" / "bad-slug.yaml").exists()
