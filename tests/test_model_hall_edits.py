"""Building a hall through the model: rows, racks, duplicates, moves, paste; and a long
random editing session replayed and undone to the very start."""

from __future__ import annotations

import copy
import random

import pytest

from workbench.catalog import load_catalog
from workbench.model import Design, Rack, Row, Site, hall_edits, ops, requests
from workbench.model.errors import EditError
from workbench.model.index import index_problems

AIR = "generic-rack-42u-air"
DGX = "nvidia-dgx-h100"
MGMT = "generic-mgmt-48p-10g"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def design(catalog) -> Design:
    design = Design(sites=[Site("site1", "Hall 1", [Row("row001", "Row A")])])
    design.device_types = {AIR: catalog[AIR]}
    return design


def apply(design: Design, batch: ops.Batch) -> ops.Applied:
    applied = ops.apply(design, batch)
    assert index_problems(design) == []
    return applied


def test_rows_and_racks_are_named_after_their_row(design, catalog):
    apply(design, hall_edits.add_racks(design, catalog, "row001", AIR, 3))
    assert [r.name for r in design.sites[0].rows[0].racks] == ["A01", "A02", "A03"]
    rack = design.sites[0].rows[0].racks[0]
    assert rack.cooling == "air" and rack.power_limit_kw == 12.0
    assert rack.feed("a") is not None and rack.feed("b") is not None
    row = hall_edits.add_row(design, catalog=catalog, rack_type=AIR, count=2)
    apply(design, row)
    new_row = design.sites[0].rows[1]
    assert new_row.name == "Row B" and [r.name for r in new_row.racks] == ["B01", "B02"]
    with pytest.raises(EditError, match="not a rack model"):
        hall_edits.add_racks(design, catalog, "row001", DGX, 1)


def test_duplicate_copies_the_contents_with_new_ids_and_no_labels(design, catalog):
    apply(design, hall_edits.add_racks(design, catalog, "row001", AIR, 1))
    rack = design.sites[0].rows[0].racks[0]
    apply(design, requests.place_new(design, catalog, rack.id, DGX, 2))
    rack.devices[0].serial, rack.devices[0].asset_tag = "SN1", "AT-1"
    start = copy.deepcopy(design)
    applied = apply(design, hall_edits.duplicate_rack(design, rack.id))
    twin = design.sites[0].rows[0].racks[1]
    assert twin.name == "A02" and twin.rack_type == AIR
    assert [d.device_type for d in twin.devices] == [DGX]
    assert twin.devices[0].id != rack.devices[0].id and twin.devices[0].serial == ""
    ops.apply(design, applied.inverse)
    assert design == start


def test_racks_move_along_their_row_until_the_end(design, catalog):
    apply(design, hall_edits.add_racks(design, catalog, "row001", AIR, 2))
    first = design.sites[0].rows[0].racks[0]
    apply(design, hall_edits.move_rack_along_row(design, first.id, 1))
    assert design.sites[0].rows[0].racks[1] is first
    with pytest.raises(EditError, match="already the last rack"):
        hall_edits.move_rack_along_row(design, first.id, 1)


def test_paste_keeps_the_group_shape_and_finds_room(design, catalog):
    apply(design, hall_edits.add_racks(design, catalog, "row001", AIR, 2))
    a, b = design.sites[0].rows[0].racks
    apply(design, requests.place_new(design, catalog, a.id, DGX, 2))
    apply(design, requests.place_new(design, catalog, a.id, MGMT, 42))
    copied = hall_edits.copy_devices(design, [d.id for d in a.devices])
    assert [c.offset for c in copied] == [0, 40]
    apply(design, hall_edits.paste(design, catalog, b.id, copied, None))
    assert sorted(d.position for d in b.devices) == [1, 41]
    assert len({d.name for _, d in design.iter_devices()}) == 4  # names stay unique
    with pytest.raises(EditError, match="taken by"):
        hall_edits.paste(design, catalog, b.id, copied, 1)


def test_moving_several_devices_is_judged_together(design, catalog):
    apply(design, hall_edits.add_racks(design, catalog, "row001", AIR, 2))
    a, b = design.sites[0].rows[0].racks
    apply(design, requests.place_new(design, catalog, a.id, DGX, 2))
    apply(design, requests.place_new(design, catalog, a.id, DGX, 10))
    ids = [d.id for d in a.devices]
    # Both down by 1 U in the same rack: each one's old units are free to the group.
    apply(
        design, hall_edits.move_devices(design, a.id, [(ids[0], 1, "front"), (ids[1], 9, "front")])
    )
    assert [d.position for d in a.devices] == [1, 9]
    with pytest.raises(EditError, match="taken by"):  # the two would overlap each other
        hall_edits.move_devices(design, b.id, [(ids[0], 1, "front"), (ids[1], 5, "front")])


def test_a_long_random_session_undoes_to_the_start(design, catalog):
    """Hundreds of random requests (the window's own edits), then every inverse in
    reverse order: the whole model equals the start, and the index stays right."""
    rng = random.Random(20261201)
    start = copy.deepcopy(design)
    inverses = []
    for _ in range(400):
        index = design.index
        racks = sorted(index.racks)
        devices = sorted(index.devices)
        choice = rng.choice(
            [
                "rack",
                "row",
                "place",
                "place",
                "move",
                "delete",
                "duplicate",
                "shift",
                "paste",
                "fields",
            ]
        )
        try:
            if choice == "rack":
                row = rng.choice(sorted(index.rows))
                batch = hall_edits.add_racks(design, catalog, row, AIR, rng.randint(1, 2))
            elif choice == "row":
                batch = hall_edits.add_row(design, catalog=catalog, rack_type=AIR, count=1)
            elif choice == "place" and racks:
                batch = requests.place_new(
                    design, catalog, rng.choice(racks), rng.choice([DGX, MGMT]), rng.randint(1, 42)
                )
            elif choice == "move" and devices and racks:
                batch = hall_edits.move_devices(
                    design, rng.choice(racks), [(rng.choice(devices), rng.randint(1, 42), "front")]
                )
            elif choice == "delete" and (devices or racks):
                batch = requests.delete(design, [rng.choice(devices + racks)])
            elif choice == "duplicate" and racks:
                batch = hall_edits.duplicate_rack(design, rng.choice(racks))
            elif choice == "shift" and racks:
                batch = hall_edits.move_rack_along_row(
                    design, rng.choice(racks), rng.choice([-1, 1])
                )
            elif choice == "paste" and devices and racks:
                copied = hall_edits.copy_devices(design, rng.sample(devices, min(2, len(devices))))
                batch = hall_edits.paste(design, catalog, rng.choice(racks), copied, None)
            else:
                continue
        except EditError:
            continue  # refused requests change nothing (checked below by the final compare)
        inverses.append(apply(design, batch).inverse)
    assert len(inverses) > 150
    for inverse in reversed(inverses):
        ops.apply(design, inverse)
    assert index_problems(design) == []
    assert design == start


def test_new_racks_are_full_racks(catalog, design):
    rack = hall_edits.new_rack(design, "r9", "X01", catalog["generic-rack-48u-liquid"])
    assert isinstance(rack, Rack) and rack.cooling == "liquid"
    assert rack.power_limit_kw == catalog["generic-rack-48u-liquid"].props["cooling_limit_kw"]


def test_a_new_row_takes_the_first_free_letters_whatever_the_other_names():
    """next_row_name reads the taken names' letters as numbers (issue 21: hundreds of
    rows added by a template each walked every candidate again): the first "Row X"
    free, and names that are no candidate ("Row b", "Row  C", "Row A1") take none."""

    def named(*names: str) -> Design:
        return Design(sites=[Site("s", "S", [Row(f"r{i}", n) for i, n in enumerate(names)])])

    assert hall_edits.next_row_name(named()) == "Row A"
    assert hall_edits.next_row_name(named("Row A", "Row C", "Row b", "Row  B")) == "Row B"
    letters = [chr(ord("A") + i) for i in range(26)]
    every = [f"Row {x}" for x in letters] + ["Row AA", "Row A1", "Row AC"]
    assert hall_edits.next_row_name(named(*every)) == "Row AB"
    assert hall_edits.next_row_name(named(*every, "Row AB")) == "Row AD"
    assert hall_edits.next_row_name(named("Hall 2 A", "Row ZZ")) == "Row A"
