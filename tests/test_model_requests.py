"""What a user asks for becomes one batch of edits: place a catalog item, delete a selection."""

from __future__ import annotations

import copy

import pytest

from workbench.catalog import load_catalog
from workbench.model import Design, Rack, Row, Site, ops, requests
from workbench.model.errors import EditError
from workbench.model.index import index_problems


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def design(catalog) -> Design:
    """One empty 42U air rack; its type is the only item in the snapshot."""
    rack = Rack(id="r1", name="R01", rack_type="generic-rack-42u-air")
    design = Design(sites=[Site("s", "Hall", [Row("w", "Row A", [rack])])])
    design.device_types = {"generic-rack-42u-air": catalog["generic-rack-42u-air"]}
    return design


def test_placing_snapshots_the_item_and_its_gpu_in_one_undoable_batch(design, catalog):
    start = copy.deepcopy(design)
    batch = requests.place_new(design, catalog, "r1", "nvidia-dgx-h100", 2)
    gpu = catalog["nvidia-dgx-h100"].gpu
    assert [type(op).__name__ for op in batch.ops] == [
        "AddDeviceType",
        "AddDeviceType",
        "AddDevice",
    ]
    applied = ops.apply(design, batch)
    assert {"nvidia-dgx-h100", gpu} <= set(design.device_types)
    (rack, device) = design.find_device(batch.ops[-1].device.id)
    assert rack.id == "r1" and device.position == 2 and device.name == "gpu-server-R01-u2"
    assert index_problems(design) == []
    second = requests.place_new(design, catalog, "r1", "nvidia-dgx-h100", 10)
    assert [type(op).__name__ for op in second.ops] == ["AddDevice"]  # already snapshotted
    assert second.ops[0].device.name == "gpu-server-R01-u10"
    ops.apply(design, applied.inverse)
    assert design == start


@pytest.mark.parametrize(
    ("slug", "u", "reason"),
    [
        ("nvidia-dgx-h100", 38, "needs U38–U45 (8U), but R01 has U1–U42"),
        ("nvidia-dgx-h100", 0, "needs U0–U7"),
        ("nvidia-h100-sxm5-80gb", 2, "is a gpu, not something mounted in a rack"),
        ("no-such-item", 2, "The catalog has no item 'no-such-item'"),
    ],
)
def test_placing_where_it_cannot_go_says_why(design, catalog, slug, u, reason):
    with pytest.raises(EditError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        requests.place_new(design, catalog, "r1", slug, u)


def test_placing_over_a_device_names_it(design, catalog):
    ops.apply(design, requests.place_new(design, catalog, "r1", "nvidia-dgx-h100", 2))
    with pytest.raises(
        EditError, match=r"U6–U13 \(8U\) of R01 is taken by gpu-server-R01-u2 \(U2–U9"
    ):
        requests.place_new(design, catalog, "r1", "nvidia-dgx-h100", 6)


def test_delete_removes_racks_once_and_skips_what_is_gone(tiny_design):
    design = tiny_design
    start = copy.deepcopy(design)
    batch = requests.delete(design, ["d1", "r1", "d2", "r2", "ghost"])
    # d1 and d2 go with rack r1; nothing is removed twice.
    assert batch.ops == (ops.RemoveRack("r1"), ops.RemoveRack("r2"))
    applied = ops.apply(design, batch)
    assert design.find_rack("r1") is None and design.find_device("d1") is None
    ops.apply(design, applied.inverse)
    assert design == start
    assert requests.delete(design, ["row-a", "r1", "d1"]).ops == (ops.RemoveRow("row-a"),)
    assert requests.delete(design, []).ops == ()
