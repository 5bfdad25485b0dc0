"""Names unique where they identify (issue 18): device names per site, asset tags and
serials where set, refused by the edits and reported by ``check`` for files that hold
them; GPU servers whose names the Slurm and Kubernetes exports refuse are reported
before an export; a baseline with no revision is reported."""

from __future__ import annotations

from dataclasses import replace

import pytest

from workbench.model import edit, ops
from workbench.model.design import Device
from workbench.model.errors import EditError
from workbench.model.versions import Baseline
from workbench.rules import check_design
from workbench.templates import build_template


@pytest.fixture
def design():
    return build_template("hgx-h100-air")


def _devices(design):
    return [d for _r, d in design.iter_devices()]


def _rules(design, rule_id):
    return [f for f in check_design(design) if f.rule == rule_id]


def test_rename_to_a_name_the_site_holds_is_refused(design) -> None:
    first, second = _devices(design)[:2]
    with pytest.raises(EditError, match="already in rack .* device names are unique within a site"):
        edit.rename_device(design, second.id, first.name)
    edit.rename_device(design, second.id, second.name)  # its own name is fine


def test_add_and_paste_refuse_a_name_taken(design) -> None:
    rack = next(design.iter_racks())
    taken = rack.devices[0]
    copy = replace(taken, id="new-1", position=None, serial="", asset_tag="")
    with pytest.raises(EditError, match="already in rack"):
        ops.apply(design, ops.AddDevice(rack.id, copy))
    applied = ops.apply(design, ops.AddDevice(rack.id, replace(copy, name="fresh-name")))
    ops.apply(design, applied.inverse)


def test_undo_puts_back_a_duplicate_a_file_held(design) -> None:
    """Undo must restore exactly what was there, even a clash from an old file."""
    first, second = _devices(design)[:2]
    second.name = first.name
    design.reindex()
    applied = ops.apply(design, ops.RemoveDevice(second.id))
    ops.apply(design, applied.inverse)  # no EditError
    assert len(_rules(design, "NAME-DUPLICATE")) == 1


def test_serials_and_asset_tags_are_unique_case_insensitively(design) -> None:
    first, second = _devices(design)[:2]
    edit.set_device_field(design, first.id, "serial", "SN-1")
    with pytest.raises(EditError, match="already on device"):
        edit.set_device_field(design, second.id, "serial", "sn-1")
    edit.set_device_field(design, first.id, "asset_tag", "AT-9")
    with pytest.raises(EditError, match="already on device"):
        edit.set_device_field(design, second.id, "asset_tag", "at-9")


def test_check_reports_what_a_file_holds(design) -> None:
    assert _rules(design, "NAME-DUPLICATE") == []
    first, second, third = _devices(design)[:3]
    second.name = first.name
    first.asset_tag, third.asset_tag = "AT-1", "at-1 "
    design.reindex()  # set behind the edits' back, as a file would hold them
    found = _rules(design, "NAME-DUPLICATE")
    messages = sorted(f.message for f in found)
    assert len(found) == 2
    assert "share the asset tag" in messages[0] and "share the name" in messages[1]
    assert set(found[1].objects) | set(found[0].objects) >= {first.id, second.id, third.id}


def test_gpu_server_names_the_host_name_mapping_cannot_carry_are_reported(design) -> None:
    servers = [d for d in _devices(design) if design.device_types[d.device_type].gpu_count > 0]
    first, second = servers[:2]
    edit.rename_device(design, first.id, "GPU Server A01")  # capitals and a blank: mapped
    assert _rules(design, "NODE-HOSTNAME") == []
    edit.rename_device(design, first.id, "_gpu01")  # maps to '-gpu01': no host name
    (finding,) = _rules(design, "NODE-HOSTNAME")
    assert "no host name carries it" in finding.message and finding.objects == (first.id,)
    edit.rename_device(design, first.id, "GPU 01")
    edit.rename_device(design, second.id, "gpu-01")  # the same host name after mapping
    (finding,) = _rules(design, "NODE-HOSTNAME")
    assert "'gpu-01'" in finding.message
    assert set(finding.objects) == {first.id, second.id}


def test_baseline_with_no_revision_is_reported(design) -> None:
    design.versions.baselines.append(Baseline("bl-1", "H100 stack"))
    (finding,) = _rules(design, "BASELINE-EMPTY")
    assert "'H100 stack' has no revision" in finding.message


def test_two_devices_added_at_once_may_not_share_a_name(design) -> None:
    rack = next(design.iter_racks())
    a = Device("n1", "twin", rack.devices[0].device_type)
    b = Device("n2", "twin", rack.devices[0].device_type)
    row_id = design.sites[0].rows[0].id
    new_rack = replace(rack, id="r-new", name="new rack", devices=[a, b])
    with pytest.raises(EditError, match="both named “twin”"):
        ops.apply(design, ops.AddRack(row_id, new_rack))


def test_netbox_import_refuses_a_shared_asset_tag_and_a_control_character(tmp_path) -> None:
    import csv

    from workbench.netbox import NetBoxImportError, read_netbox, write_netbox

    sample = build_template("hgx-h100-air")
    write_netbox(sample, tmp_path / "nb")  # the export refuses a shared tag: edit its CSV
    devices = tmp_path / "nb" / "devices.csv"
    rows = list(csv.reader(devices.open(newline="")))
    tag = rows[0].index("asset_tag")
    rows[1][tag] = rows[2][tag] = "AT-1"
    with devices.open("w", newline="") as out:
        csv.writer(out).writerows(rows)
    first = _devices(sample)[0]
    with pytest.raises(
        NetBoxImportError, match=r"devices.csv: devices .* share the asset tag 'AT-1'"
    ):
        read_netbox(tmp_path / "nb")
    first.notes = "bell\x07"
    write_netbox(sample, tmp_path / "nb2")
    with pytest.raises(
        NetBoxImportError, match=r"devices.csv:\d+: field 'comments' may not contain"
    ):
        read_netbox(tmp_path / "nb2")


def test_a_pasted_copy_of_a_name_at_the_limit_still_fits(design) -> None:
    from workbench.model.hall_edits import copy_devices, paste
    from workbench.model.names import MAX_DEVICE_NAME_CHARS

    rack = next(r for r in design.iter_racks() if r.devices)
    device = rack.devices[0]
    edit.rename_device(design, device.id, "n" * MAX_DEVICE_NAME_CHARS)
    batch = paste(design, None, rack.id, copy_devices(design, [device.id]), None)
    added = [op.device for op in batch.ops if isinstance(op, ops.AddDevice)]
    assert added and len(added[0].name) <= MAX_DEVICE_NAME_CHARS
    ops.apply(design, batch)
