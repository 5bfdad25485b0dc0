"""The hosts a fabric generation cables and their free ports (planning.fabric.inputs).

:func:`plane_hosts` sifts the design's links by port name in one pass (issue 21: reading
each host's links took a fifth of a 1,000,000-GPU build).  Checked here against the
plain reading it replaced, each host's links through the index, on designs whose hosts
have some ports cabled already, on either end of a link, and one cabled to itself.
"""

from __future__ import annotations

import pytest

from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.model.design import Link
from workbench.planning.fabric.generator import FabricRequest, generate_fabric
from workbench.planning.fabric.inputs import _host_ends, plane_hosts
from workbench.planning.fabric.sizing import FabricError
from workbench.templates.builder import build_nodes

PLANES = ("compute", "storage", "management", "oob")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def by_device_links(design, request: FabricRequest, speed: float) -> list[tuple]:
    """The hosts and free ports read the old way: each host's links through the index."""
    index = design.index
    out = []
    for rack, device in design.iter_devices():
        item = design.device_types.get(device.device_type)
        if item is None:
            continue
        every = _host_ends(device, item, request.plane, speed)
        used = set()
        for link_id in index.device_links.get(device.id, ()):
            link = index.links[link_id]
            used.add(link.a_port if link.a_device == device.id else link.b_port)
        wanted = [end for end in every if end[1] not in used]
        if request.ports_per_host is not None:
            wanted = wanted[: request.ports_per_host]
        if wanted:
            out.append((rack.id, device.id, item.slug, wanted))
    return out


def found(design, request: FabricRequest, speed: float) -> list[tuple]:
    try:
        hosts = plane_hosts(design, request, speed)
    except FabricError:
        return []
    return [(h.rack.id, h.device.id, h.item.slug, h.ports) for h in hosts]


def test_free_ports_match_each_hosts_own_links(catalog) -> None:
    design = build_nodes("nvidia-dgx-h100", 12, catalog)
    generate_fabric(
        design, catalog, FabricRequest(plane="compute", switch="nvidia-qm9700", topology="rail")
    )
    generate_fabric(
        design,
        catalog,
        FabricRequest(plane="storage", switch="nvidia-sn4600", ports_per_host=1, speed_gbps=200),
    )
    nodes = [d for _r, d in design.iter_devices() if d.device_type == "nvidia-dgx-h100"]
    leaf = next(d for _r, d in design.iter_devices() if d.name.startswith("sto-leaf"))
    # A host on a link's b end, and a host cabled to itself: each counts its own port.
    extra = (Link(design.index.new_id("link"), leaf.id, "p60", nodes[3].id, "storage1"),)
    ops.apply(design, ops.AddLinks(extra))
    ops.apply(
        design,
        ops.AddLinks(
            (Link(design.index.new_id("link"), nodes[5].id, "storage1", nodes[5].id, "storage2"),)
        ),
    )
    checked = 0
    for plane in PLANES:
        for limit in (None, 1, 3):
            request = FabricRequest(plane=plane, switch="nvidia-sn4600", ports_per_host=limit)
            expected = by_device_links(design, request, 200.0)
            assert found(design, request, 200.0) == expected
            checked += len(expected)
    assert checked  # some plane has hosts to cable
    # The hand-made links show: node 3's storage1 is taken (a b end); node 5's link to
    # itself counts once, as its a end (storage1), as each host's own links always read.
    storage = dict(
        (d, ports)
        for _r, d, _s, ports in found(design, FabricRequest(plane="storage", switch="x"), 200.0)
    )
    assert "storage1" not in {p for _rail, p, _speed in storage[nodes[3].id]}
    five = {p for _rail, p, _speed in storage[nodes[5].id]}
    assert "storage1" not in five and "storage2" in five


def test_tries_sharing_a_memo_read_the_old_fabric_once(catalog, monkeypatch) -> None:
    """A failed try leaves the design as it was, so what a replace takes out is read
    once for all the tries of one plane (a full pass over the links each, 4.4 million
    at 1,000,000 GPUs), and the second try removes what a fresh one would."""
    from dataclasses import replace

    from workbench.planning.fabric import generator as fabric_generator

    design = build_nodes("nvidia-dgx-h100", 12, catalog)
    request = FabricRequest(
        plane="management", switch="generic-mgmt-48p-10g", spine_switch="nvidia-sn4600"
    )
    generate_fabric(design, catalog, request)  # the plane a replace then takes out
    calls = []
    real = fabric_generator.old_fabric

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(fabric_generator, "old_fabric", counted)
    memo: dict = {}
    first, applied = generate_fabric(design, catalog, request, hosts_memo=memo)
    ops.apply(design, applied.inverse)  # as a failed try leaves it
    second, _ = generate_fabric(
        design, catalog, replace(request, racks_per_access_switch=2), hosts_memo=memo
    )
    assert len(calls) == 1
    assert second.removed == first.removed and first.removed.links > 0
