"""AddLinks applied without its Change (a template's build: no one undoes or views it)
does to the design exactly what the plain edit does, and returns the same inverse.

Each case is applied both ways to copies of one design; the copies must then be equal,
their indexes sound, and the inverse must take each back to the start.  A refused edit
is refused alike and changes nothing either way.
"""

from __future__ import annotations

import copy

import pytest
from store_designs import small_design

from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.model.change import Change
from workbench.model.design import Design, Link
from workbench.model.errors import EditError
from workbench.model.index import index_problems
from workbench.model.link_ops import add_links_unrecorded
from workbench.planning.fabric.generator import FabricRequest, build_fabric, generate_fabric
from workbench.planning.fabric.placement import Session
from workbench.templates.builder import build_nodes


def _devices(design: Design) -> list[str]:
    return [d.id for _r, d in design.iter_devices()]


def _fresh(design: Design, count: int) -> tuple[Link, ...]:
    """``count`` links with ids the index hands out (a generated fabric's batch)."""
    ends = _devices(design)
    ids = design.index.new_ids("link", count)
    return tuple(Link(i, ends[n % 3], f"p{n}", ends[3], f"q{n}") for n, i in enumerate(ids))


def _cases(design: Design) -> list[ops.AddLinks]:
    ends = _devices(design)
    named = tuple(Link(f"x{n}", ends[0], f"p{n}", ends[1], "q") for n in range(3))
    placed = (Link("y1", ends[1], "p", ends[2], "q"), Link("y2", ends[2], "p", ends[0], "q"))
    return [
        ops.AddLinks(_fresh(design, 4)),
        ops.AddLinks(named),
        ops.AddLinks(placed, (0, len(design.links) + 1)),
    ]


@pytest.mark.parametrize("case", [0, 1, 2])
def test_the_unrecorded_add_does_what_the_plain_edit_does(case: int) -> None:
    start = small_design("unrecorded")
    start.links.append(Link("l-old", _devices(start)[0], "z", _devices(start)[1], "z"))
    start.reindex()
    plain_design, quiet_design = copy.deepcopy(start), copy.deepcopy(start)
    op = _cases(plain_design)[case]
    if case == 0:  # the same ids handed out to the other copy, as the builder gets them
        quiet_design.index.new_ids("link", len(op.links))
    applied = ops.apply(plain_design, op)
    inverse = add_links_unrecorded(quiet_design, op)
    assert quiet_design == plain_design
    assert index_problems(quiet_design) == [] and index_problems(plain_design) == []
    assert inverse == applied.inverse
    assert applied.change.links == {link.id for link in op.links}  # the plain one still says
    ops.apply(quiet_design, inverse)
    ops.apply(plain_design, applied.inverse)
    assert quiet_design == plain_design == start
    assert index_problems(quiet_design) == []


def test_a_refused_add_is_refused_alike() -> None:
    design = small_design("refused")
    ends = _devices(design)
    start = copy.deepcopy(design)
    for bad in (
        ops.AddLinks((Link("g1", ends[0], "p", "ghost", "q"),)),
        ops.AddLinks(
            (Link("g2", ends[0], "p", ends[1], "q"), Link("g2", ends[1], "p", ends[0], "q"))
        ),
        ops.AddLinks((Link("g3", ends[0], "p", ends[1], "q"),), (5,)),
    ):
        with pytest.raises(EditError) as plain:
            ops.apply(copy.deepcopy(start), bad)
        with pytest.raises(EditError) as quiet:
            add_links_unrecorded(design, bad)
        assert str(quiet.value) == str(plain.value)
        assert design == start


def test_an_unrecorded_session_says_the_extent_is_unknown_and_rolls_back() -> None:
    design = small_design("session")
    start = copy.deepcopy(design)
    session = Session(design, recorded=False)
    applied = session.apply(ops.AddLinks(_fresh(design, 2)))
    assert applied.change == Change(everything=True)
    session.rollback()
    assert design == start and index_problems(design) == []


def test_a_fabric_built_unrecorded_is_the_one_generated() -> None:
    catalog = load_catalog(include_user=False, strict=True)
    request = FabricRequest(plane="compute", switch="nvidia-qm9700", topology="rail")
    built = build_nodes("nvidia-dgx-h100", 12, catalog)
    generated = copy.deepcopy(built)
    plan = build_fabric(built, catalog, request)
    same, _applied = generate_fabric(generated, catalog, request)
    assert plan.added == same.added and plan.added.links > 0
    assert built == generated and index_problems(built) == []
