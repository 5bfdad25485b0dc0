"""What the incremental-rules tests share: a registry whose rules count the objects
they are asked about, and a design's first two cabled GPU servers with the switch at
the far end of the first one's first link."""

from __future__ import annotations

import dataclasses
from collections import Counter

from workbench.catalog.item import is_gpu_server
from workbench.model import Link
from workbench.rules import REGISTRY


def counted_rules(calls: Counter[str]):
    """The registry with every rule counting its calls in ``calls``."""

    def wrap(rule):
        def check(ctx, me, obj):
            calls[rule.id] += 1
            return rule.check(ctx, me, obj)

        return dataclasses.replace(rule, check=check)

    return {rule_id: wrap(rule) for rule_id, rule in REGISTRY.items()}


def cabled(design) -> tuple[str, str, str, str, Link]:
    """Two cabled GPU servers, and the switch (and its port) at the far end of the
    first's first link, with that link."""
    index, types = design.index, design.device_types
    node, other = [
        d.id
        for _r, d in design.iter_devices()
        if is_gpu_server(types[d.device_type]) and index.device_links.get(d.id)
    ][:2]
    link = index.links[min(index.device_links[node])]
    switch, port = (
        (link.b_device, link.b_port) if link.a_device == node else (link.a_device, link.a_port)
    )
    return node, other, switch, port, link
