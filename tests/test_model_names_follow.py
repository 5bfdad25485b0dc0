"""Names that follow moves: a device named by the design's pattern
(``{role}-{rack}-u{u}``) is renamed when it moves, inside the same edit, so undo puts
the old name back with the old place; a name the user typed is kept."""

from __future__ import annotations

import copy

import pytest

from workbench.catalog import load_catalog
from workbench.model import Design, Row, Site, edit, hall_edits, ops, requests
from workbench.model.index import index_problems

AIR = "generic-rack-42u-air"
DGX = "nvidia-dgx-h100"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def design(catalog) -> Design:
    design = Design(sites=[Site("site1", "Hall 1", [Row("row001", "Row A")])])
    design.device_types = {AIR: catalog[AIR]}
    ops.apply(design, hall_edits.add_racks(design, catalog, "row001", AIR, 2))
    return design


def _racks(design: Design):
    return design.sites[0].rows[0].racks


def test_a_patterned_name_follows_a_move_to_another_rack_and_undo_restores_it(design, catalog):
    a01, a02 = _racks(design)
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 2))
    (device,) = a01.devices
    assert device.name == "gpu-server-A01-u2"
    before = copy.deepcopy(design)
    applied = ops.apply(design, hall_edits.move_devices(design, a02.id, [(device.id, 10, "front")]))
    assert device.name == "gpu-server-A02-u10"
    assert index_problems(design) == []
    ops.apply(design, applied.inverse)
    assert device.name == "gpu-server-A01-u2"
    assert design == before


def test_a_typed_name_is_kept(design, catalog):
    a01, a02 = _racks(design)
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 2))
    (device,) = a01.devices
    edit.rename_device(design, device.id, "training-node-7")
    ops.apply(design, hall_edits.move_devices(design, a02.id, [(device.id, 2, "front")]))
    assert device.name == "training-node-7"


def test_a_group_moved_up_by_its_own_height_takes_each_others_names(design, catalog):
    a01, _ = _racks(design)
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 2))
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 10))
    low, high = a01.devices
    moves = [(low.id, 10, "front"), (high.id, 18, "front")]
    ops.apply(design, hall_edits.move_devices(design, a01.id, moves))
    assert (low.name, high.name) == ("gpu-server-A01-u10", "gpu-server-A01-u18")
    assert index_problems(design) == []


def test_a_cut_and_paste_names_the_pasted_device_after_where_it_lands(design, catalog):
    a01, a02 = _racks(design)
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 2))
    device = a01.devices[0]
    copied = hall_edits.copy_devices(design, [device.id])
    ops.apply(design, requests.delete(design, [device.id]))
    ops.apply(design, hall_edits.paste(design, catalog, a02.id, copied, 20))
    assert [d.name for d in a02.devices] == ["gpu-server-A02-u20"]


def test_a_suffixed_pattern_name_still_follows(design, catalog):
    a01, a02 = _racks(design)
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 2))
    device = a01.devices[0]
    edit.rename_device(design, device.id, "gpu-server-A01-u2-3")
    ops.apply(design, hall_edits.move_devices(design, a02.id, [(device.id, 2, "front")]))
    assert device.name == "gpu-server-A02-u2"


def test_two_servers_that_swap_places_keep_their_names(design, catalog):
    """A ring of renames cannot be ordered; the names stay as they were, unique."""
    a01, _ = _racks(design)
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 2))
    ops.apply(design, requests.place_new(design, catalog, a01.id, DGX, 10))
    low, high = a01.devices
    moves = [(low.id, 10, "front"), (high.id, 2, "front")]
    ops.apply(design, hall_edits.move_devices(design, a01.id, moves))
    assert (low.position, high.position) == (10, 2)
    assert (low.name, high.name) == ("gpu-server-A01-u2", "gpu-server-A01-u10")
    assert index_problems(design) == []
