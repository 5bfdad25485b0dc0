"""Host groups and the worst single failures read off the hosts' switch numbers
(:attr:`~workbench.calc.fabric.graph.PlaneGraph.host_rows`) equal the plain reading
of :attr:`~workbench.calc.fabric.graph.PlaneGraph.host_switches`, a set of switch ids
per host, on generated fabrics and on fabrics with links cut at random."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.calc.fabric.failure import (
    FailureImpact,
    _layer_losses,
    _own_losses,
    worst_single_failures,
)
from workbench.calc.fabric.graph import PlaneGraph, plane_graph
from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.planning.fabric.generator import FabricRequest, build_fabric
from workbench.templates.builder import build_nodes


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def _plain_groups(graph: PlaneGraph) -> dict[frozenset[str], list[str]]:
    groups: dict[frozenset[str], list[str]] = {}
    for host, switches in graph.host_switches.items():
        groups.setdefault(frozenset(switches), []).append(host)
    return groups


def _plain_worst(graph: PlaneGraph) -> dict[int, FailureImpact]:
    """worst_single_failures as it read host_switches, a set per host."""
    tiers = graph.structure.tiers
    single_homed: dict[str, list[str]] = {}
    touching: dict[str, int] = {}
    for host, switches in graph.host_switches.items():
        for switch in switches:
            touching[switch] = touching.get(switch, 0) + 1
        if len(switches) == 1:
            (only,) = switches
            single_homed.setdefault(only, []).append(host)
    sole_uplink = graph.sole_uplinks()
    stranding: dict[str, list[str]] = {}
    for host, switches in graph.host_switches.items():
        spines = {sole_uplink.get(leaf) for leaf in switches}
        if len(spines) == 1:
            (spine,) = spines
            if spine is not None:
                stranding.setdefault(spine, []).append(host)
    worst: dict[int, FailureImpact] = {}
    for tier, cut_by in ((1, single_homed), (2, stranding)):
        best = None
        for switch in graph.structure.switches_in(tier):
            losses = _layer_losses(graph, _own_losses(graph, switch))
            pct = max((loss.lost_pct for loss in losses), default=0.0)
            cut = len(cut_by.get(switch, ()))
            degraded = touching.get(switch, 0) - cut if tier == 1 else 0
            key = (cut, pct, degraded)
            if best is None or key > best[0]:
                best = (key, switch)
        if best is None:
            continue
        switch = best[1]
        degraded_hosts: tuple[str, ...] = ()
        if tier == 1:
            degraded_hosts = tuple(
                sorted(h for h, s in graph.host_switches.items() if switch in s and len(s) > 1)
            )
        worst[tier] = FailureImpact(
            graph.plane,
            (switch,),
            (tiers[switch],),
            _layer_losses(graph, _own_losses(graph, switch)),
            tuple(sorted(cut_by.get(switch, ()))),
            degraded_hosts,
            method="closed form",
        )
    return worst


def _check(design) -> None:
    graph = plane_graph(design, "compute")
    groups = graph.host_groups()
    want = _plain_groups(graph)
    assert list(groups.items()) == list(want.items())
    assert worst_single_failures(graph) == _plain_worst(graph)


REQUESTS = [
    (40, "nvidia-qm9700", {"topology": "rail", "su_nodes": 8}),
    (24, "nvidia-qm9700", {"topology": "2-tier"}),
    (48, "nvidia-qm9700", {"topology": "3-tier"}),
    (30, "nvidia-qm9700", {"topology": "2-tier", "oversubscription": 3.0}),
]


@pytest.mark.parametrize(("nodes", "switch", "request_"), REQUESTS)
def test_generated_fabrics(catalog, nodes, switch, request_):
    design = build_nodes("nvidia-dgx-h100", nodes, catalog, compute_switch=switch)
    build_fabric(design, catalog, FabricRequest(plane="compute", switch=switch, **request_))
    _check(design)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=st.sampled_from(REQUESTS), data=st.data())
def test_fabrics_with_links_cut(catalog, case, data):
    """Cut links leave hosts on fewer switches, some on one (single-homed), some on
    none, leaves on one spine (stranding): every branch of the closed form."""
    nodes, switch, request_ = case
    design = build_nodes("nvidia-dgx-h100", nodes, catalog, compute_switch=switch)
    build_fabric(design, catalog, FabricRequest(plane="compute", switch=switch, **request_))
    ids = [link.id for link in design.links]
    share = data.draw(st.floats(0.0, 0.97))
    cut = data.draw(st.randoms(use_true_random=False)).sample(ids, int(len(ids) * share))
    if cut:
        ops.apply(design, ops.RemoveLinks(tuple(cut)))
    _check(design)
