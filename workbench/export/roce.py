"""The RoCE lossless baseline: what every switch and NIC port of a RoCE plane is set to.

RoCE needs a lossless Ethernet: "if the switches' PFC and ECN are not configured
correctly, inter-node communication can lose half its performance", and "PFC and ECN
parameters that disagree make the receiver drop packets ... put them in the deployment
document as the standard baseline" (seed 000).  The baseline, each value with its
source (:data:`BASELINE`):

- **PFC** on the RDMA priority only, 3 (seed 004: ``mlnx_qos -i eth0 --pfc
  0,0,0,1,0,0,0,0``), on every switch port and NIC port of the plane;
- **ECN** (DCQCN) on that traffic class, marking before PFC has to pause (seed 004:
  "ECN marks at the start of congestion instead of dropping ... avoids PFC storms";
  ``/sys/class/net/<port>/ecn/roce_np/enable``), with the switch's marking thresholds
  (planning figures, to be tuned on site);
- **DSCP trust** on switch and NIC, the RDMA traffic marked DSCP 26 and mapped to
  priority 3 (NCCL's ``NCCL_IB_TC`` = DSCP × 4, :mod:`workbench.export.nccl`);
- **MTU** the plane's own (9000 for RoCE, seeds 001 and 004: "MTU mismatch is the most
  hidden trap ... both ends must change together"); switch ports a little above it;
- **bonding**: the parameter (RDMA) ports are never bonded — NCCL aggregates and
  balances the ports itself — while the management pair runs active-backup with
  ``miimon=100`` (seed 001).

:func:`roce_rows` lists one row per switch and per host NIC of every RoCE plane (the
``roce-baseline.csv`` of the handoff folders); :func:`roce_check_items` gives a node's
checklist rows for the same settings.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass

from workbench.calc.fabric.planes import plane_structures
from workbench.export.nccl import ROCE_DSCP, ROCE_GID_INDEX
from workbench.model.design import Design, Device, Network
from workbench.model.ports import host_plane

#: The RDMA (lossless) priority and traffic class.
RDMA_PRIORITY = 3
#: PFC enable vector by priority 0..7.
PFC_VECTOR = ",".join("1" if p == RDMA_PRIORITY else "0" for p in range(8))
#: Switch ECN (WRED) marking thresholds on the RDMA class, KB (planning figures).
ECN_MIN_KB, ECN_MAX_KB = 150, 1500
#: How far above the hosts' MTU switch ports are set (the usual 9216 for 9000).
SWITCH_MTU_HEADROOM = 216

SEED_000 = "seed 000 (RoCE needs PFC and ECN right; make them the deployment baseline)"
SEED_001 = "seed 001 (MTU equal on both ends; management bond active-backup, no bond on RDMA)"
SEED_004 = "seed 004 (mlnx_qos --pfc 0,0,0,1,0,0,0,0; ecn/roce_np/enable; ib_send_bw -x 3)"

#: Setting → (value, source), the same for every device of a RoCE plane.
BASELINE: dict[str, tuple[str, str]] = {
    "pfc_priority": (str(RDMA_PRIORITY), SEED_004),
    "pfc_vector": (PFC_VECTOR, SEED_004),
    "ecn": ("on (DCQCN) for the RDMA class", f"{SEED_004}; {SEED_000}"),
    "ecn_thresholds_kb": (
        f"min {ECN_MIN_KB}, max {ECN_MAX_KB}",
        "planning figures: a common starting point for 400G RoCE ports; tune on site",
    ),
    "trust": ("dscp", "planning: switch and NIC classify by DSCP (L3), not PCP"),
    "dscp_map": (
        f"DSCP {ROCE_DSCP} -> priority {RDMA_PRIORITY}; CNP DSCP 48 -> priority 6",
        "planning: the usual RoCE marking (NCCL_IB_TC = DSCP x 4)",
    ),
    "gid_index": (str(ROCE_GID_INDEX), SEED_004),
    "bond": ("none on RDMA ports; management active-backup miimon=100", SEED_001),
}

COLUMNS = (
    "plane", "device", "role", "ports", "mtu", "pfc_priority", "pfc_vector", "ecn",
    "ecn_thresholds_kb", "trust", "dscp_map", "gid_index", "bond", "commands", "sources",
)  # fmt: skip


@dataclass(frozen=True)
class RoceRow:
    """One switch or one host's NIC ports on a RoCE plane, and its settings."""

    plane: str
    device: str
    role: str  # "switch" | "nic"
    ports: int
    mtu: int
    commands: str

    def cells(self) -> list[str]:
        """The row under :data:`COLUMNS`."""
        values = [self.plane, self.device, self.role, str(self.ports), str(self.mtu)]
        for key in COLUMNS[5:13]:
            value, _source = BASELINE[key]
            if key == "ecn_thresholds_kb" and self.role == "nic":
                value = "switch setting"
            if key == "gid_index" and self.role == "switch":
                value = "host setting"
            values.append(value)
        sources = sorted({s for _v, source in BASELINE.values() for s in source.split("; ")})
        return [*values, self.commands, "; ".join(sources)]


def roce_networks(design: Design) -> list[Network]:
    """The design's RoCE networks (one per plane that runs RoCE)."""
    return [n for n in design.networks if n.technology == "roce"]


def _nic_commands(mtu: int) -> str:
    return (
        f"ip link set dev <port> mtu {mtu}; mlnx_qos -i <port> --trust dscp; "
        f"mlnx_qos -i <port> --pfc {PFC_VECTOR}; "
        "echo 1 > /sys/class/net/<port>/ecn/roce_np/enable; "
        "echo 1 > /sys/class/net/<port>/ecn/roce_rp/enable"
    )


def _switch_commands(mtu: int) -> str:
    return (
        f"port MTU {mtu + SWITCH_MTU_HEADROOM}; trust dscp; PFC on priority {RDMA_PRIORITY}; "
        f"ECN on traffic class {RDMA_PRIORITY} (min {ECN_MIN_KB} KB, max {ECN_MAX_KB} KB); "
        f"DSCP {ROCE_DSCP} -> priority {RDMA_PRIORITY} (NVIDIA Cumulus: nv set qos roce)"
    )


def roce_rows(design: Design) -> Iterator[RoceRow]:
    """A row per switch and per host of every RoCE plane, in plane then name order."""
    networks = roce_networks(design)
    if not networks:
        return
    planes = {n.plane: n for n in networks}
    structures = plane_structures(design, list(planes))
    devices = design.index.devices
    for plane, net in planes.items():
        structure = structures[plane]
        ports: dict[str, set[str]] = {}
        for link in structure.links:
            ports.setdefault(link.a_device, set()).add(link.a_port)
            ports.setdefault(link.b_device, set()).add(link.b_port)
        switches = set(structure.tiers)

        def name(device_id: str) -> str:
            found = devices.get(device_id)
            return found[1].name if found is not None else device_id

        for device_id in sorted(ports, key=name):
            switch = device_id in switches
            mtu = net.mtu + SWITCH_MTU_HEADROOM if switch else net.mtu
            yield RoceRow(
                plane,
                name(device_id),
                "switch" if switch else "nic",
                len(ports[device_id]),
                mtu,
                _switch_commands(net.mtu) if switch else _nic_commands(net.mtu),
            )


def roce_baseline_csv(design: Design) -> str | None:
    """``roce-baseline.csv`` text, or None when the design runs no RoCE plane."""
    rows = list(roce_rows(design))
    if not rows:
        return None
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(row.cells())
    return out.getvalue()


@dataclass(frozen=True)
class RoceCheck:
    """One checklist row for a node's RoCE ports: id, title, command, expected."""

    id: str
    title: str
    command: str
    expected: str


def roce_check_items(design: Design, device: Device) -> list[RoceCheck]:
    """The checklist rows for ``device``'s ports on a RoCE plane (none off RoCE)."""
    networks = {n.plane: n for n in roce_networks(design)}
    item = design.device_types.get(device.device_type)
    if not networks or item is None:
        return []
    planes = {host_plane(i.name, i.mgmt_only) for i in item.interfaces}
    mine = [net for plane, net in networks.items() if plane in planes]
    if not mine:
        return []
    mtu = min(n.mtu for n in mine)
    return [
        RoceCheck(
            "roce.pfc",
            f"PFC on priority {RDMA_PRIORITY} only, every RoCE port",
            "mlnx_qos -i <port> | grep -A2 'PFC configuration'",
            f"enabled {PFC_VECTOR.replace(',', ' ')}",
        ),
        RoceCheck(
            "roce.trust",
            "Ports trust DSCP",
            "mlnx_qos -i <port> | grep -i trust",
            "dscp",
        ),
        RoceCheck(
            "roce.ecn",
            "ECN on (DCQCN notification and reaction point)",
            "cat /sys/class/net/<port>/ecn/roce_np/enable /sys/class/net/<port>/ecn/roce_rp/enable",
            "1 and 1 on every RoCE port",
        ),
        RoceCheck(
            "roce.mtu_bond",
            f"MTU {mtu} on every RoCE port, none of them in a bond",
            "ip -d link show <port> | grep -E 'mtu|bond'",
            f"mtu {mtu}; no bond slave",
        ),
    ]
