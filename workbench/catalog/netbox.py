"""What the workbench reads out of NetBox device-type conventions.

NetBox names interface types by speed and cage (``400gbase-x-osfp``,
``25gbase-x-sfp28``, ``infiniband-ndr``) and has no notion of our ``kind``.  These
helpers turn those names into numbers the calculators can use, and guess a kind for a
device type imported from the community library, which never says "server" or "switch".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

#: Line rate of a 4x InfiniBand port per generation, Gb/s (the "x4" link NetBox means).
INFINIBAND_GBPS: dict[str, float] = {
    "sdr": 10.0,
    "ddr": 20.0,
    "qdr": 40.0,
    "fdr10": 40.0,
    "fdr": 56.0,
    "edr": 100.0,
    "hdr": 200.0,
    "ndr": 400.0,
    "xdr": 800.0,
}

#: ``<number><unit>base-...``: 100base-tx, 1000base-t, 2.5gbase-t, 400gbase-x-osfp, 1.6tbase-...
#: Digits are capped: a type name from a stranger's file such as ``9999...9gbase-x``
#: would otherwise give an infinite line rate that poisons every bandwidth sum.
_ETHERNET = re.compile(r"^(\d{1,6}(?:\.\d{1,6})?)([gt]?)base-")
_UNIT_GBPS = {"": 0.001, "g": 1.0, "t": 1000.0}

#: Interfaces on a device type beyond which it is taken for a switch (servers carry a
#: handful of NICs; even a 1U management switch has 24+ ports).
SWITCH_PORT_THRESHOLD = 24

#: Words in a model name or slug that mark a server whatever its port count.
SERVER_WORDS: tuple[str, ...] = (
    "dgx",
    "hgx",
    "server",
    "poweredge",
    "proliant",
    "thinksystem",
    "superserver",
    "ucs-c",
    "gpu",
)


def interface_speed_gbps(type_name: str) -> float | None:
    """Line rate in Gb/s of a NetBox interface type, or None when it has none.

    >>> interface_speed_gbps("400gbase-x-osfp"), interface_speed_gbps("1000base-t")
    (400.0, 1.0)
    """
    name = (type_name or "").strip().lower()
    if name.startswith("infiniband-"):
        return INFINIBAND_GBPS.get(name.removeprefix("infiniband-"))
    match = _ETHERNET.match(name)
    if match is None:
        return None  # virtual, lag, other, wireless types ...
    return round(float(match.group(1)) * _UNIT_GBPS[match.group(2)], 6)


def data_interfaces(interfaces: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Interfaces that carry traffic: not ``mgmt_only``, and with a known speed."""
    return [
        entry
        for entry in interfaces
        if isinstance(entry, Mapping)
        and not entry.get("mgmt_only")
        and interface_speed_gbps(str(entry.get("type", ""))) is not None
    ]


def infer_kind(mapping: Mapping[str, Any]) -> str:
    """Best guess of our ``kind`` for a NetBox device type that does not state one.

    NetBox rack types have a ``form_factor``; PDUs have ``power-outlets``; switches
    have many data ports (or say so in their model name).  Everything else that is a
    device is taken for a server, which is what most of the library's files are.
    """
    if "form_factor" in mapping and "power-ports" not in mapping:
        return "rack"
    if mapping.get("power-outlets"):
        return "pdu"
    interfaces = mapping.get("interfaces")
    ports = data_interfaces(interfaces) if isinstance(interfaces, list) else []
    text = f"{mapping.get('model', '')} {mapping.get('slug', '')}".lower()
    # A name that says "server" wins over the port count: the library's DGX A100 file
    # lists 36 Ethernet ports, yet nobody would call it a switch.
    if any(word in text for word in SERVER_WORDS):
        return "server"
    if len(ports) >= SWITCH_PORT_THRESHOLD or "switch" in text:
        return "switch"
    return "server"
