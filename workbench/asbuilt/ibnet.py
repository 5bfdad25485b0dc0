"""``ibnetdiscover`` output (infiniband-diags): the whole InfiniBand subnet, as cabled.

The tool prints one block per node, a header (``vendid=``, ``devid=``, ``sysimgguid=``,
``switchguid=`` or ``caguid=``), the node line and one line per connected port::

    Switch  64 "S-b83fd20300a1b2c0"   # "MF0;ib-leaf-01:MQM9700/U1" enhanced port 0 lid 1 lmc 0
    [1]     "H-0c42a1030012ab34"[1](c42a1030012ab34)   # "dgx-001 mlx5_0" lid 12 4xNDR
    [33]    "S-b83fd20300a1b3d0"[1]     # "MF0;ib-spine-01:MQM9700/U1" lid 2 4xNDR

    Ca      1 "H-0c42a1030012ab34"      # "dgx-001 mlx5_0"
    [1](c42a1030012ab34)  "S-b83fd20300a1b2c0"[1]   # lid 12 lmc 0 "MF0;ib-leaf-01:..." lid 1 4xNDR

Names come from node descriptions, which is how clusters name IB nodes: a switch's
``MF0;NAME:MODEL/U1`` (or a plain ``NAME``) gives ``NAME``; a host adapter's
``HOST HCA`` (the ``mlx5_0`` the driver names, ``HOST mlx5_0`` being the default) gives
the host and the adapter.  A switch port is its number (``17``), an adapter's port its
adapter name (``mlx5_0``, or ``mlx5_0/2`` for a second port); the matcher maps them to
catalog interfaces.  Every cable shows up twice, once under each end's block: it is kept
once, where it is first seen.  Lines that are none of the above end the read with their
line number (a truncated copy, a different tool's output pasted in).

A multi-plane switch (NVIDIA Quantum-X800 Q3400: four ASICs, each its own node
``MF0;NAME:Q3400_RA/U1`` .. ``/U4``, every front port one lane per ASIC, ``1xXDR``)
shows one cable once per plane, each time between the same names: those records are
folded into one whose width and rate are the planes' sum (four ``1xXDR`` make the
800G of the port).  Records are folded only where the switch ends name different
planes (``/U<k>``), so two switches that merely share a name are never added up.
How the planes of a split Q3400 port, or a ConnectX-8 adapter's planes, show is not
documented publicly; those records are kept as they come.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import replace

from workbench.asbuilt.seen import CaptureError, Seen, checked_name, ib_rate

_NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR]-[0-9a-fA-F]+)"\s*(?:#\s*"([^"]*)")?')
_HEADER = re.compile(r"^(?:vendid|devid|sysimgguid|switchguid|caguid|routerguid)=\S+$")
# [1][ext 1]  "H-guid"[1](portguid)   # "desc" lid 12 4xNDR
_SWITCH_PORT = re.compile(
    r'^\[(\d+)\](?:\[ext \d+\])?\s+"([SHR]-[0-9a-fA-F]+)"\[(\d+)\](?:\[ext \d+\])?'
    r'(?:\([0-9a-fA-F]+\))?\s*#\s*"([^"]*)"\s+lid\s+\d+\s+(\d+)x([A-Za-z0-9]+)'
)
# [1](portguid)  "S-guid"[1]   # lid 12 lmc 0 "desc" lid 1 4xNDR
_CA_PORT = re.compile(
    r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([SHR]-[0-9a-fA-F]+)"\[(\d+)\](?:\[ext \d+\])?'
    r'(?:\([0-9a-fA-F]+\))?\s*#\s*(?:lid\s+\d+\s+lmc\s+\d+\s+)?"([^"]*)"\s+lid\s+\d+\s+'
    r"(\d+)x([A-Za-z0-9]+)"
)
_MF0 = re.compile(r"^MF0;([^:]+):")
_PLANE = re.compile(r"^MF0;[^:]+:[^/]*/U(\d+)$")


def looks_like(text: str) -> bool:
    """True when the text has ibnetdiscover's node lines (within its first lines)."""
    for line in text[:65536].splitlines():
        if _NODE.match(line) or line.startswith(("switchguid=", "caguid=")):
            return True
    return False


def node_name(description: str, *, switch: bool) -> tuple[str, str]:
    """(device name, adapter) from a node description; adapter "" for a switch, whose
    whole description is its name unless it is in the ``MF0;NAME:MODEL`` form."""
    text = description.strip()
    mf0 = _MF0.match(text)
    if mf0:
        return mf0.group(1).strip(), ""
    if switch:
        return text, ""
    head, _, tail = text.partition(" ")
    return head, tail.split()[0] if tail.strip() else ""


def parse(where: str, lines: list[str], _name: str) -> list[Seen]:
    """The subnet's cables, each once; CaptureError naming the line of the first problem."""
    seen: list[Seen] = []
    done: set[tuple[str, int]] = set()  # (node guid, port) ends already recorded
    node: tuple[str, str, str, str] | None = None  # kind, guid, device, adapter
    plane = 0  # the node's ASIC plane (``/U<k>``), 0 for none
    planes = array("B")  # per record: its local end's plane, its remote end's plane
    multi: set[str] = set()  # switches with an ASIC past the first (``/U2`` ..)
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#") or _HEADER.match(line):
            continue
        match = _NODE.match(line)
        if match:
            kind, _ports, guid, description = match.groups()
            if description is None:
                raise CaptureError(where, number, f"{kind} {guid} has no node description")
            device, adapter = node_name(description, switch=kind != "Ca")
            checked_name(where, number, "node name", device)
            node = (kind, guid, device, adapter)
            plane = _plane(description) if kind != "Ca" else 0
            if plane > 1:
                multi.add(device)
            continue
        if not line.startswith("["):
            raise CaptureError(where, number, f"not an ibnetdiscover line: {line[:60]!r}")
        if node is None:
            raise CaptureError(where, number, "a port line before any Switch or Ca line")
        kind, guid, device, adapter = node
        port_re = _SWITCH_PORT if kind != "Ca" else _CA_PORT
        match = port_re.match(line)
        if match is None:
            raise CaptureError(where, number, f"not an ibnetdiscover port line: {line[:60]!r}")
        port, remote_guid, remote_port, description, width, generation = match.groups()
        local_end, remote_end = (guid, int(port)), (remote_guid, int(remote_port))
        if local_end in done or remote_end in done:
            continue  # the other end's block listed this cable already
        done.add(local_end)
        done.add(remote_end)
        rate = ib_rate(int(width), generation)
        if rate is None:
            raise CaptureError(where, number, f"unknown InfiniBand rate {width}x{generation}")
        remote_device, remote_adapter = node_name(description, switch=remote_guid[0] != "H")
        local = _port_name(adapter, int(port))
        remote = _port_name(remote_adapter, int(remote_port))
        seen.append(
            Seen(
                number,
                device,
                checked_name(where, number, "local port", local, port=True),
                checked_name(where, number, "remote node name", remote_device),
                checked_name(where, number, "remote port", remote, port=True),
                rate,
                int(width),
            )
        )
        planes.append(min(plane, 255))
        planes.append(min(_plane(description), 255) if remote_guid[0] != "H" else 0)
    return _fold_planes(seen, planes, multi) if multi else seen


def _plane(description: str) -> int:
    """The ASIC plane ``k`` of a switch described ``MF0;NAME:MODEL/U<k>`` (0: none)."""
    match = _PLANE.match(description.strip())
    return int(match.group(1)) if match else 0


def _fold_planes(seen: list[Seen], planes: array, multi: set[str]) -> list[Seen]:
    """One record per cable of a multi-plane switch: a record between the same names
    as an earlier one, with every switch end on a plane the earlier ones did not use,
    is another plane of that cable, and its lanes and rate are added to it."""
    out: list[Seen] = []
    cables: dict[tuple[tuple[str, str], ...], tuple[int, list[tuple[int, int]]]] = {}
    for i, record in enumerate(seen):
        if record.local_device not in multi and record.remote_device not in multi:
            out.append(record)
            continue
        ends = ((record.local_device, record.local_port),
                (record.remote_device, record.remote_port))  # fmt: skip
        key = tuple(sorted(ends))
        on = (planes[2 * i], planes[2 * i + 1])
        if key[0] != ends[0]:
            on = on[::-1]
        folded = cables.get(key)
        if folded is None:
            cables[key] = (len(out), [on])
            out.append(record)
            continue
        index, kept = folded
        if not any(on) or not all(p == 0 or all(k[j] != p for k in kept) for j, p in enumerate(on)):
            out.append(record)  # the same plane again: two switches sharing a name
            continue
        first = out[index]
        out[index] = replace(
            first,
            speed_gbps=(first.speed_gbps or 0.0) + (record.speed_gbps or 0.0),
            width=(first.width or 0) + (record.width or 0),
        )
        kept.append(on)
    return out


def _port_name(adapter: str, port: int) -> str:
    """``17`` for a switch port, ``mlx5_0`` (``mlx5_0/2`` past the first) for an adapter."""
    if not adapter:
        return str(port)
    return adapter if port == 1 else f"{adapter}/{port}"
