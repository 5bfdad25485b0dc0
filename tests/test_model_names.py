"""Names and labels: one rule (model/names.py) for everything the file and exports hold.

The cases are the ones a fuzzing pass got through the old "not blank" check: a lone
surrogate (made the design unsaveable), NUL, line breaks, right-to-left overrides and
a 1 MB name.
"""

from __future__ import annotations

import pytest

from workbench.model import edit, ops
from workbench.model.errors import EditError
from workbench.model.hall_edits import add_row
from workbench.model.names import (
    MAX_NAME_CHARS,
    MAX_RACK_NAME_CHARS,
    clean_label,
    clean_name,
    text_problem,
)
from workbench.model.net_ops import check_network_value, check_tier_value
from workbench.model.rack_fields import check_value
from workbench.store import open_design, save_design
from workbench.templates import build_template

BAD_NAMES = {
    "lone surrogate": "gpu\ud800-01",
    "NUL": "gpu\x00-01",
    "newline": "gpu-01\nrm -rf /",
    "tab": "gpu\t01",
    "right-to-left override": "gpu-\u202e10-upg",
    "1 MB": "x" * 1_000_000,
    "empty": "   ",
}


@pytest.fixture(scope="module")
def design():
    return build_template("hgx-h100-air")


@pytest.mark.parametrize("case", sorted(BAD_NAMES))
def test_text_problem_refuses(case: str) -> None:
    assert text_problem(BAD_NAMES[case]) is not None


@pytest.mark.parametrize("good", ["gpu-r01-u02", "Row B", "训练集群 A", "Zürich hall 2", "x" * 100])
def test_text_problem_accepts_printable_names(good: str) -> None:
    assert text_problem(good) is None
    assert clean_name(f"  {good}  ", "rack") == good


def test_length_cap_is_the_documented_one() -> None:
    assert text_problem("x" * MAX_NAME_CHARS) is None
    assert "129 characters" in (text_problem("x" * (MAX_NAME_CHARS + 1)) or "")


def test_messages_say_what_and_why() -> None:
    with pytest.raises(EditError, match=r"^A rack name contains a broken character"):
        clean_name("R\ud800", "rack")
    with pytest.raises(EditError, match=r"^An asset tag may not"):
        clean_label("AT\n1", "asset tag")
    assert clean_label("", "serial") == ""
    with pytest.raises(EditError, match="must be text"):
        clean_name(None, "device")


@pytest.mark.parametrize("case", sorted(BAD_NAMES))
def test_every_rename_path_refuses(design, case: str) -> None:
    bad = BAD_NAMES[case]
    rack = next(design.iter_racks())
    device = rack.devices[0]
    before = (rack.name, device.name)
    with pytest.raises(EditError):
        edit.rename_device(design, device.id, bad)
    with pytest.raises(EditError):
        edit.rename_rack(design, rack.id, bad)
    with pytest.raises(EditError):
        check_value(design, "name", bad)
    with pytest.raises(EditError):
        check_network_value("name", bad)
    with pytest.raises(EditError):
        check_tier_value("name", bad)
    if design.workloads:
        with pytest.raises(EditError):
            edit.update_workload(design, design.workloads[0].id, name=bad)
    with pytest.raises(EditError):
        add_row(design, design.sites[0].id, name=bad)
    assert (rack.name, device.name) == before


def test_labels_share_the_rule(design) -> None:
    device = next(design.iter_racks()).devices[0]
    for bad in ("SN\u202e123", "SN\ud800", "S" * 65):
        with pytest.raises(EditError):
            edit.set_device_field(design, device.id, "serial", bad)


def test_adding_an_object_with_a_bad_name_is_refused(design) -> None:
    rack = next(design.iter_racks())
    from dataclasses import replace

    twin = replace(rack.devices[0], id="dev-names-test", name="bad\x00name")
    with pytest.raises(EditError, match="cannot be added: its name may not contain"):
        ops.apply(design, ops.AddDevice(rack.id, twin, len(rack.devices)))
    assert design.find_device("dev-names-test") is None


def test_workload_unknown_field_is_an_edit_error(design) -> None:
    assert design.workloads, "the template lost its workload: this test would prove nothing"
    with pytest.raises(EditError, match="no field 'colour'"):
        edit.update_workload(design, design.workloads[0].id, colour="red")


def test_every_accepted_name_can_be_saved(tmp_path, design) -> None:
    """What the rule lets through, the file holds: a name at the cap, in any script."""
    rack = next(design.iter_racks())
    name = ("机架-Ω-" * 40)[:MAX_RACK_NAME_CHARS]
    old = edit.rename_rack(design, rack.id, name)
    try:
        save_design(design, tmp_path / "n.dcwb")
        again = open_design(tmp_path / "n.dcwb")
        assert again.find_rack(rack.id).name == name
    finally:
        edit.rename_rack(design, rack.id, old)
