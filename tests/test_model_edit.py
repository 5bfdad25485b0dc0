"""The model's own edits: what they refuse, and undo helpers that put values back as-is."""

from __future__ import annotations

import pytest

from workbench.model import Workload, edit
from workbench.model.edit import EditError


def test_restore_puts_back_values_the_edits_would_refuse(tiny_design):
    """A file may hold a blank name or a cooling type no longer offered; undo must put
    those back exactly, where the validating edits raise."""
    with pytest.raises(EditError):
        edit.rename_rack(tiny_design, "r1", "   ")
    with pytest.raises(EditError):
        edit.set_rack_cooling(tiny_design, "r1", "immersion", 80.0)
    edit.restore_rack_name(tiny_design, "r1", "   ")
    edit.restore_device_name(tiny_design, "d1", "")
    edit.restore_rack_cooling(tiny_design, "r1", "immersion", 80.0)
    rack = tiny_design.find_rack("r1")
    assert (rack.name, rack.cooling, rack.power_limit_kw) == ("   ", "immersion", 80.0)
    assert tiny_design.find_device("d1")[1].name == ""


def test_restore_of_something_gone_says_so(tiny_design):
    with pytest.raises(EditError, match="nope"):
        edit.restore_rack_name(tiny_design, "nope", "x")
    with pytest.raises(EditError, match="nope"):
        edit.restore_device_name(tiny_design, "nope", "x")
    with pytest.raises(EditError, match="nope"):
        edit.restore_rack_cooling(tiny_design, "nope", "air", 12.0)


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
