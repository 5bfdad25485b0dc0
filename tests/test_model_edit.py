"""The model's own edits: what they refuse, and undo helpers that put values back as-is."""

from __future__ import annotations

import pytest

from workbench.model import Workload, edit
from workbench.model.edit import EditError
from workbench.model.rack_fields import restore_rack_fields, set_rack_fields


def test_restore_puts_back_values_the_edits_would_refuse(tiny_design):
    """A file may hold a blank name or a cooling type no longer offered; undo must put
    those back exactly, where the validating edits raise."""
    with pytest.raises(EditError):
        edit.rename_rack(tiny_design, "r1", "   ")
    with pytest.raises(EditError):
        set_rack_fields(tiny_design, "r1", {"cooling": "immersion"})
    edit.restore_rack_name(tiny_design, "r1", "   ")
    edit.restore_device_name(tiny_design, "d1", "")
    restore_rack_fields(tiny_design, "r1", {"cooling": "immersion", "power_limit_kw": 80.0})
    rack = tiny_design.find_rack("r1")
    assert (rack.name, rack.cooling, rack.power_limit_kw) == ("   ", "immersion", 80.0)
    assert tiny_design.find_device("d1")[1].name == ""


def test_restore_of_something_gone_says_so(tiny_design):
    with pytest.raises(EditError, match="nope"):
        edit.restore_rack_name(tiny_design, "nope", "x")
    with pytest.raises(EditError, match="nope"):
        edit.restore_device_name(tiny_design, "nope", "x")
    with pytest.raises(EditError, match="nope"):
        restore_rack_fields(tiny_design, "nope", {"cooling": "air"})


def test_replace_workload_swaps_in_place_and_refuses_an_unknown_id(tiny_design):
    first, second = Workload(id="w1", name="one"), Workload(id="w2", name="two")
    edit.add_workload(tiny_design, first)
    edit.add_workload(tiny_design, second)
    earlier = Workload(id="w1", name="one, as it was", mfu=0.3)
    edit.replace_workload(tiny_design, earlier)
    assert tiny_design.workloads == [earlier, second]
    with pytest.raises(EditError, match="w9"):
        edit.replace_workload(tiny_design, Workload(id="w9", name="gone"))
    assert tiny_design.workloads == [earlier, second]


def test_set_device_field_strips_clears_and_returns_the_old_value(tiny_design):
    device = tiny_design.find_device("d1")[1]
    device.serial = "  SN-OLD "
    assert edit.set_device_field(tiny_design, "d1", "serial", "  SN-1234\t") == "  SN-OLD "
    assert device.serial == "SN-1234"
    assert edit.set_device_field(tiny_design, "d1", "serial", "   ") == "SN-1234"
    assert device.serial == ""
    edit.set_device_field(tiny_design, "d1", "role", " Storage ")
    assert device.role == "storage"
    edit.set_device_field(tiny_design, "d1", "role", "")
    assert device.role == ""


@pytest.mark.parametrize("field", ["serial", "asset_tag"])
def test_labels_must_be_short_and_printable(tiny_design, field):
    device = tiny_design.find_device("d1")[1]
    edit.set_device_field(tiny_design, "d1", field, "X" * 50)
    assert getattr(device, field) == "X" * 50
    with pytest.raises(EditError, match="51 characters"):
        edit.set_device_field(tiny_design, "d1", field, "Y" * 51)
    for bad in ("SN\n12", "SN\t12", "SN\x0012", "SN\x1b12"):
        with pytest.raises(EditError, match="control characters"):
            edit.set_device_field(tiny_design, "d1", field, bad)
    assert getattr(device, field) == "X" * 50


def test_asset_tags_are_unique_and_the_refusal_names_the_holder(tiny_design):
    edit.set_device_field(tiny_design, "d2", "asset_tag", "AT-0042")
    with pytest.raises(EditError, match="dgx-002.*A01"):
        edit.set_device_field(tiny_design, "d1", "asset_tag", " at-0042 ")
    assert tiny_design.find_device("d1")[1].asset_tag == ""
    # Setting a device's own tag again, or clearing several, is no clash.
    assert edit.set_device_field(tiny_design, "d2", "asset_tag", "AT-0042") == "AT-0042"
    edit.set_device_field(tiny_design, "d1", "asset_tag", "")
    edit.set_device_field(tiny_design, "s1", "asset_tag", "")
    # Serials are not asset tags: two devices may share one (a vendor's reuse, a typo).
    edit.set_device_field(tiny_design, "d1", "serial", "AT-0042")


def test_set_device_field_refuses_unknown_roles_fields_and_devices(tiny_design):
    with pytest.raises(EditError, match="Unknown role 'gpu'"):
        edit.set_device_field(tiny_design, "d1", "role", "gpu")
    with pytest.raises(EditError, match="'name'"):
        edit.set_device_field(tiny_design, "d1", "name", "x")
    with pytest.raises(EditError, match="nope"):
        edit.set_device_field(tiny_design, "nope", "serial", "x")
    with pytest.raises(EditError, match="nope"):
        edit.restore_device_field(tiny_design, "nope", "serial", "x")


def test_restore_device_field_puts_back_what_the_edit_would_refuse(tiny_design):
    """A file may hold a padded serial, a duplicate tag or a role no longer known."""
    edit.set_device_field(tiny_design, "d2", "asset_tag", "AT-1")
    edit.restore_device_field(tiny_design, "d1", "asset_tag", "AT-1")
    edit.restore_device_field(tiny_design, "d1", "serial", " SN\t1 ")
    edit.restore_device_field(tiny_design, "d1", "role", "gpu")
    device = tiny_design.find_device("d1")[1]
    assert (device.asset_tag, device.serial, device.role) == ("AT-1", " SN\t1 ", "gpu")
