"""The plane structure a generator hands over (``FabricPlan.layers`` through
:func:`~workbench.calc.fabric.planes.layered_structure`) is the one the full pass reads
from the links, and the analysis of it is the analysis from scratch, figure for figure.

``workbench fabric`` analyses the plane it has just generated with the handed-over
structure; a design read from a file goes through the full pass.  Both must print the
same report, so every check here compares with the full pass on the same design.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.calc.fabric.analysis import analyse_plane
from workbench.calc.fabric.layered import PlaneLayers, layered_structure
from workbench.calc.fabric.planes import PlaneStructure, _plane_structures
from workbench.calc.fabric.tables import DeviceTable, link_arrays
from workbench.catalog import load_catalog
from workbench.model.design import Design, Link
from workbench.planning.fabric.generator import (
    FabricError,
    FabricRequest,
    build_fabric,
    generate_fabric,
)
from workbench.templates.builder import build_nodes


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def _generated(catalog, nodes: int, switch: str, **request: object):
    design = build_nodes("nvidia-dgx-h100", nodes, catalog, compute_switch=switch)
    plan = build_fabric(design, catalog, FabricRequest(plane="compute", switch=switch, **request))
    return design, plan


def _full(design: Design) -> PlaneStructure:
    """The full pass, read afresh (not the kept one)."""
    return _plane_structures(design, ["compute"])["compute"]


def _same_structure(got: PlaneStructure, want: PlaneStructure) -> None:
    assert got.plane == want.plane
    for name in ("links", "host_links", "switch_links"):
        a, b = getattr(got, name), getattr(want, name)
        assert len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True)), name
    assert got.hosts == want.hosts
    # In order: the switch order is the report's order (ports per switch, ties).
    assert list(got.tiers.items()) == list(want.tiers.items())


def _handed(design: Design, layers: PlaneLayers) -> PlaneStructure | None:
    devices = DeviceTable(design)
    return layered_structure(design, layers, devices, link_arrays(devices, layers.links))


def _check(design: Design, plan) -> None:
    assert plan.layers is not None
    devices = DeviceTable(design)
    arrays = link_arrays(devices, plan.layers.links)
    handed = layered_structure(design, plan.layers, devices, arrays)
    assert handed is not None
    full = _full(design)
    _same_structure(handed, full)
    from_scratch = analyse_plane(design, "compute").to_json()
    got = analyse_plane(design, "compute", structure=handed, devices=devices, arrays=arrays)
    assert got.to_json() == from_scratch


CASES = [
    # (nodes, switch, request): rail 2 and 3 tiers, leaf-spine 2 and 3, 2:1, top of rack.
    (128, "nvidia-qm9700", {"topology": "rail"}),
    (512, "nvidia-qm9700", {"topology": "rail", "oversubscription": 2.0}),
    (300, "nvidia-q3400-ra", {"topology": "rail", "su_nodes": 20}),
    (96, "nvidia-qm9700", {"topology": "2-tier"}),
    (64, "nvidia-qm9700", {"topology": "3-tier"}),
    (40, "nvidia-qm9700", {"topology": "auto", "oversubscription": 3.0}),
    (48, "nvidia-qm9700", {"topology": "tor"}),
]


@pytest.mark.parametrize(("nodes", "switch", "request_"), CASES)
def test_the_handed_over_structure_is_the_full_pass_and_so_is_the_report(
    catalog, nodes, switch, request_
) -> None:
    design, plan = _generated(catalog, nodes, switch, **request_)
    _check(design, plan)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    nodes=st.integers(1, 160),
    topology=st.sampled_from(["rail", "2-tier", "3-tier", "auto", "tor"]),
    oversubscription=st.sampled_from([1.0, 2.0, 3.0]),
    su_nodes=st.integers(2, 32),
    switch=st.sampled_from(["nvidia-qm9700", "nvidia-q3400-ra"]),
)
def test_any_generated_fabric_hands_over_what_the_full_pass_reads(
    catalog, nodes, topology, oversubscription, su_nodes, switch
) -> None:
    try:
        design, plan = _generated(
            catalog,
            nodes,
            switch,
            topology=topology,
            oversubscription=oversubscription,
            su_nodes=su_nodes,
        )
    except FabricError:
        return  # no such fabric of that switch: nothing handed over
    _check(design, plan)


def test_the_recorded_edit_hands_over_the_same(catalog) -> None:
    design = build_nodes("nvidia-dgx-h100", 64, catalog, compute_switch="nvidia-qm9700")
    request = FabricRequest(plane="compute", switch="nvidia-qm9700", topology="rail")
    plan, _applied = generate_fabric(design, catalog, request)
    _check(design, plan)


# -- where the layers are not the plane, nothing is handed over ---------------------------


@pytest.fixture
def built(catalog):
    return _generated(catalog, 64, "nvidia-qm9700", topology="3-tier")


def test_a_wrong_tier_is_refused(built) -> None:
    design, plan = built
    layers = plan.layers
    spine = plan.devices["spine"][0]
    for wrong in (1, 3, 0):
        tiers = {**layers.tiers, spine: wrong}
        assert _handed(design, dataclasses.replace(layers, tiers=tiers)) is None
    missing = {s: t for s, t in layers.tiers.items() if s != spine}
    assert _handed(design, dataclasses.replace(layers, tiers=missing)) is None


def test_a_host_link_counted_among_the_uplinks_is_refused(built) -> None:
    design, plan = built
    for off in (-1, 1):
        layers = dataclasses.replace(plan.layers, host_links=plan.layers.host_links + off)
        assert _handed(design, layers) is None


def test_a_link_the_layers_do_not_hold_is_refused(built) -> None:
    design, plan = built
    assert _handed(design, plan.layers) is not None
    link = design.links[0]
    design.links.append(
        Link("extra", link.a_device, "compute7", link.b_device, "p64", link.network)
    )
    design.reindex()
    assert _handed(design, plan.layers) is None
    layers = PlaneLayers("compute", design.links, plan.layers.host_links, plan.layers.tiers)
    assert _handed(design, layers) is None  # a host link among the uplinks


def test_links_of_another_plane_are_refused(built) -> None:
    design, plan = built
    other = next(n.id for n in design.networks if n.plane != "compute")
    for link in plan.layers.links[:1]:
        link.network = other
    assert _handed(design, plan.layers) is None


def test_no_layers_when_the_design_held_links_before(catalog) -> None:
    design, _plan = _generated(catalog, 32, "nvidia-qm9700", topology="rail")
    storage = FabricRequest(plane="storage", switch="nvidia-qm9700", topology="2-tier")
    try:
        plan = build_fabric(design, catalog, storage)
    except FabricError:
        pytest.skip("no storage fabric of this switch for the scratch design")
    assert plan.layers is None


def test_the_switches_come_in_the_links_order_not_the_devices(built) -> None:
    # Generated links name the switches in the order they were placed; the full pass
    # orders them as the links first name them, so the links are put in reverse here
    # (each part on its own: host links still first), and the order must follow.
    design, plan = built
    split = plan.layers.host_links
    links = design.links[:split][::-1] + design.links[split:][::-1]
    design.links[:] = links
    design.reindex()
    layers = dataclasses.replace(plan.layers, links=links)
    _check(design, dataclasses.replace(plan, layers=layers))
    placed = [s for tier in ("leaf", "spine", "core") for s in plan.devices[tier]]
    assert list(_full(design).tiers) != placed
