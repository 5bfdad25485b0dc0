"""A plane's structure from the layers a fabric generator has just laid out.

``workbench fabric`` generates a fabric on a scratch design and analyses it at once.
The generator knows what it built: its host links come first, then the links between
switches, and it made each switch a leaf, a spine or a core.  :func:`layered_structure`
turns that into the :class:`~workbench.calc.fabric.planes.PlaneStructure` the full
pass (:func:`~workbench.calc.fabric.planes.plane_structures`) would read from the links
one by one, checking in numpy, over the link arrays the analysis reads anyway, that it
is exactly that; where anything differs it answers None and the caller reads the links.
The analysis (:func:`~workbench.calc.fabric.analysis.analyse_plane`) is the same code
either way: only its input is handed over, never a figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter, is_

import numpy as np

from workbench.calc.fabric.planes import PlaneStructure, host_port_names, network_planes
from workbench.calc.fabric.tables import DeviceTable, LinkArrays, distinct
from workbench.catalog.item import CatalogItem
from workbench.model.design import Design, Link


@dataclass(frozen=True)
class PlaneLayers:
    """What a fabric generator knows of the plane it has just cabled: the plane's links
    in the design's order, its host links first (``host_links`` of them, host end
    first), then the links between switches; and the tier it built each switch for."""

    plane: str
    links: Sequence[Link]
    host_links: int
    tiers: Mapping[str, int]


def layered_structure(
    design: Design, layers: PlaneLayers, devices: DeviceTable, arrays: LinkArrays
) -> PlaneStructure | None:
    """The structure the full pass reads for ``layers.plane``, made from ``layers`` and
    ``arrays`` (:func:`~workbench.calc.fabric.tables.link_arrays` of ``layers.links``
    in ``devices``); None unless it is exactly that:

    * the design's links are ``layers.links`` and no other, every one on a network of
      the plane;
    * every first end of a host link is a host (a server or storage appliance) and no
      other end is: each of those is a known data port (never a management-only one,
      which is a host end on its own) of a device that is no host (the full pass's
      rule, :func:`~workbench.calc.fabric.planes.host_port_names`, asked per device);
    * the tiers given are each switch's distance from the hosts, the tiers the full
      pass's breadth-first search gives: the leaves (the switches on host links) are
      tier 1 and no other switch is; no link joins tiers further apart than 1, or a
      switch no host reaches (tier 0) to one a host does; every switch above tier 1
      has a neighbour one tier lower.

    The switches come in the full pass's order: the leaves as the host links name
    them, then the switch links' ends, first end first.

    Why: the full pass reads the 300,000 links of a 100,000-GPU fabric one by one in
    Python (~0.15-0.25 s of ``workbench fabric``); here they are read as the link
    arrays' device numbers and end codes, which the analysis needs anyway."""
    links, plane, split = layers.links, layers.plane, layers.host_links
    a, b = arrays.a, arrays.b
    if not 0 <= split <= len(links) or len(a) != len(links) or len(design.links) != len(links):
        return None
    if not all(map(is_, design.links, links)):
        return None
    planes = network_planes(design)
    if any(n is None or planes.get(n) != plane for n in set(map(attrgetter("network"), links))):
        return None
    missing = devices.missing
    if len(a) and ((a == missing).any() or (b == missing).any()):
        return None
    # Ends: the hosts' devices are hosts; every other end a data port of a non-host.
    host_numbers = distinct(a[:split])
    below, above = a[split:], b[split:]
    switch_numbers = distinct(np.concatenate([b[:split], below, above]))
    is_host = np.zeros(len(devices), dtype=bool)
    is_host[host_numbers] = True
    if is_host[switch_numbers].any():  # (np.intersect1d would import numpy.ma: ~15 ms)
        return None
    data = devices.ends.column("data")
    codes = np.concatenate([arrays.b_code[:split], arrays.a_code[split:], arrays.b_code[split:]])
    if not data[codes].all():
        return None
    items = devices.items
    kinds: dict[str, bool] = {}
    for numbers, host in ((host_numbers, True), (switch_numbers, False)):
        for number in numbers.tolist():
            if _is_host(items[number], kinds) is not host:
                return None
    # The switches in the full pass's order: first seen among the host links' leaf
    # ends, then the switch links' ends in turn.
    seen = np.concatenate([b[:split], np.column_stack([below, above]).reshape(-1)])
    first = np.full(len(devices), len(seen), dtype=np.int64)
    np.minimum.at(first, seen, np.arange(len(seen)))
    order = switch_numbers[np.argsort(first[switch_numbers])]
    ids = devices.ids
    switches = [ids[n] for n in order.tolist()]
    tier = np.fromiter(map(layers.tiers.get, switches, repeat(-1)), np.int64, len(switches))
    leaves = len(distinct(b[:split]))
    if not ((tier[:leaves] == 1).all() and (tier[leaves:] >= 0).all()):
        return None
    if (tier[leaves:] == 1).any():
        return None
    of = np.full(len(devices), -1, dtype=np.int64)
    of[order] = tier
    t_below, t_above = of[below], of[above]
    if ((t_below == 0) != (t_above == 0)).any() or (np.abs(t_below - t_above) > 1).any():
        return None
    lower = np.zeros(len(devices), dtype=bool)
    lower[above[t_above == t_below + 1]] = True
    lower[below[t_below == t_above + 1]] = True
    if not lower[order[tier >= 2]].all():
        return None
    return PlaneStructure(
        plane,
        list(links),
        {ids[n] for n in host_numbers.tolist()},
        dict(zip(switches, tier.tolist(), strict=True)),
        list(links[:split]),
        list(links[split:]),
    )


def _is_host(item: CatalogItem | None, kinds: dict[str, bool]) -> bool | None:
    """Whether every port of ``item`` is a host end (None: no item, never matched)."""
    if item is None:
        return None
    found = kinds.get(item.slug)
    if found is None:
        found = kinds[item.slug] = host_port_names(item) is None
    return found
