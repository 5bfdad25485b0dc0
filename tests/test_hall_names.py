"""Rows and racks added one edit after another with the names kept by the caller
(:class:`~workbench.model.hall_edits.HallNames`, the fabric generator's network racks)
get the names they get when each add reads the hall again (issue 21)."""

from __future__ import annotations

import pytest

from workbench.catalog import load_catalog
from workbench.model import Design, Row, Site, hall_edits, ops

AIR = "generic-rack-42u-air"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def hall(catalog) -> Design:
    # Names in the way: a rack another row's letters would give, and odd row names.
    rows = [Row("row001", "Row A"), Row("row002", "Row C"), Row("row003", "Row  B")]
    design = Design(sites=[Site("site1", "Hall 1", rows)])
    design.device_types = {AIR: catalog[AIR]}
    ops.apply(design, hall_edits.add_racks(design, catalog, "row001", AIR, 2))
    ops.apply(design, hall_edits.add_racks(design, catalog, "row002", AIR, 1))
    design.sites[0].rows[1].racks[0].name = "B02"  # as a planner may have typed it
    design.reindex()
    return design


def names(design: Design) -> list[tuple[str, list[str]]]:
    return [(row.name, [r.name for r in row.racks]) for s in design.sites for row in s.rows]


def test_kept_names_give_the_names_a_fresh_read_gives(catalog) -> None:
    fresh, kept = hall(catalog), hall(catalog)
    taken = hall_edits.HallNames(kept)
    for count in (3, 2, 4, 1, 30):
        for design, given in ((fresh, None), (kept, taken)):
            ops.apply(
                design,
                hall_edits.add_row(
                    design, catalog=catalog, rack_type=AIR, count=count, names=given
                ),
            )
            last = design.sites[0].rows[-1].id
            ops.apply(design, hall_edits.add_racks(design, catalog, last, AIR, 2, names=given))
    assert names(kept) == names(fresh)
    assert names(fresh)[3] == ("Row B", ["B01", "B03", "B04", "B05", "B06"])
    assert taken.racks == {r.name for r in kept.iter_racks()}
