"""Design → NetBox files → design loses nothing the workbench models (issue 13 §2).

Sites, rows (NetBox locations), racks with their type, cooling, budgets, feeds and
place on the hall plan, devices with rack, position, face, serial, asset tag, role
and baseline, the catalog snapshot (device types), cables with both ends, network,
media, length and speed, networks (VLAN + prefix) and therefore the IP plan: on the
64-GPU sample, and on a generated 16,384-GPU SuperPOD through the command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.export.ip_plan import plan_addresses
from workbench.model.acceptance import AcceptanceResult
from workbench.model.captures import CapturedLink
from workbench.model.design import Waiver
from workbench.model.versions import (
    Assignment,
    Baseline,
    BaselineRevision,
    Observation,
    VersionMatrix,
)
from workbench.netbox import read_netbox, write_netbox
from workbench.netbox.export import PART_BYTES
from workbench.netbox.importer import NetBoxImportError
from workbench.store import open_design, save_design
from workbench.templates import build_template


def _same(before, after) -> None:
    # What NetBox cannot hold travels in workbench.yaml (workbench/netbox/extras.py).
    for field in ("storage_tiers", "workloads", "waivers", "properties", "versions",
                  "acceptance", "captures"):  # fmt: skip
        assert getattr(after, field) == getattr(before, field), field
    assert after.name == before.name
    assert after.sites == before.sites  # rows, racks and devices, every field, in order
    assert after.networks == before.networks
    assert after.links == before.links
    assert after.device_types == before.device_types
    assert after.software_stacks == before.software_stacks
    assert plan_addresses(after).addresses == plan_addresses(before).addresses


def test_sample_round_trip(tmp_path: Path) -> None:
    design = build_template("hgx-h100-air")
    # Fields the template leaves at their defaults, so the test sees them travel.
    rack, device = next((r, d) for r, d in design.iter_devices() if d.position is not None)
    device.serial, device.asset_tag, device.notes = "SN-0001", '=AT,"7"', "line one\nline two"
    device.role = "storage"
    rack.cooling_limit_kw, rack.max_weight_kg, rack.floor_x_mm = 17.5, 1234.5, 2400.125
    design.links[0].cable_type, design.links[0].length_m = "smf", 37.25
    design.networks[1].subnet, design.networks[1].vlan = "10.44.0.0/16", 444
    # The lists NetBox has no objects for: a waiver, the version matrix, an acceptance
    # result and an as-built capture, beside the template's storage tiers and job.
    design.waivers.append(Waiver("RACK-POWER", rack.id, "lab rack, reviewed", "2026-11-30"))
    design.versions = VersionMatrix(
        baselines=[Baseline("b1", "prod", [BaselineRevision(1, {"driver": "550.54.14"})])],
        assignments=[Assignment("a1", "b1", "gpu*")],
        observations=[Observation("o1", device.name, "driver", "550.54.14", "nvsmi.txt", 3,
                                  "2026-11-30T10:00:00Z", "ana", "i1")],
    )  # fmt: skip
    design.acceptance.append(AcceptanceResult(device.name, "gpu-count", "8", "PASS",
                                              "results.csv", 2, "2026-11-30T11:00:00Z", "ana",
                                              import_id="r1"))  # fmt: skip
    link = design.links[0]
    design.captures.append(CapturedLink("leaf.json", 7, "lldpctl-json", link.b_device,
                                        link.b_port, link.a_device, link.a_port, 400.0, 4,
                                        "2026-11-30T12:00:00Z", "2026-11-30T12:05:00Z", "ana",
                                        "c1"))  # fmt: skip
    design.workloads[0].mfu, design.workloads[0].global_batch = 0.37, 1536
    assert design.storage_tiers and design.workloads
    write_netbox(design, tmp_path / "nb")
    _same(design, read_netbox(tmp_path / "nb"))


def test_a_bad_sidecar_entry_is_named_and_nothing_is_imported(tmp_path: Path) -> None:
    design = build_template("hgx-h100-air")
    write_netbox(design, tmp_path / "nb")
    sidecar = tmp_path / "nb" / "workbench.yaml"
    text = sidecar.read_text(encoding="utf-8")
    tp = f"  tp: {design.workloads[0].tp}\n"
    sidecar.write_text(text.replace(tp, "  tp: eight\n", 1), encoding="utf-8")
    assert "tp: eight" in sidecar.read_text(encoding="utf-8")
    with pytest.raises(NetBoxImportError) as raised:
        read_netbox(tmp_path / "nb")
    message = str(raised.value)
    assert "workbench.yaml" in message and "tp" in message and "\n" not in message


def test_sixteen_thousand_gpus_through_the_command_line(tmp_path: Path, capsys) -> None:
    design = build_template("dgx-h100-superpod", gpus=16384)
    project = tmp_path / "pod.dcwb"
    save_design(design, project)
    assert main(["netbox", "export", str(project), str(tmp_path / "nb"), "--quiet"]) == 0
    out = tmp_path / "back.dcwb"
    assert main(["netbox", "import", str(tmp_path / "nb"), str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    again = open_design(out)
    assert sum(1 for _ in again.iter_devices()) == sum(1 for _ in design.iter_devices())
    assert len(again.links) == len(design.links) > 60_000
    _same(open_design(project), again)
    # A stock NetBox refuses a form post above 2,621,440 bytes (Django's
    # DATA_UPLOAD_MAX_MEMORY_SIZE); its cables.csv was 9.4 MB in one file.
    folder = tmp_path / "nb"
    manifest = json.loads((folder / "manifest.json").read_text())
    sizes = {e["file"]: (folder / e["file"]).stat().st_size for e in manifest}
    assert max(sizes.values()) <= PART_BYTES < 2_621_440
    cables = [e["file"] for e in manifest if e["path"] == "dcim/cables"]
    assert cables[:3] == ["cables.csv", "cables.2.csv", "cables.3.csv"] and len(cables) > 3
    assert all(e.get("part_of") == "cables.csv" for e in manifest if e["file"] in cables[1:])
    heads = {(folder / f).open(encoding="utf-8").readline() for f in cables}
    assert len(heads) == 1 and heads.pop().startswith("side_a_site,")  # a header each
    assert set(folder.iterdir()) == {folder / e["file"] for e in manifest} | {
        folder / "workbench.yaml", folder / "manifest.json"}  # fmt: skip


@pytest.mark.parametrize("gpus", [64])
def test_export_of_the_reimport_is_identical(tmp_path: Path, gpus: int) -> None:
    design = build_template("hgx-h100-air")
    write_netbox(design, tmp_path / "a")
    write_netbox(read_netbox(tmp_path / "a"), tmp_path / "b")
    for path in sorted((tmp_path / "a").iterdir()):
        assert (tmp_path / "b" / path.name).read_bytes() == path.read_bytes(), path.name
