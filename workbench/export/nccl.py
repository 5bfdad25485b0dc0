"""The NCCL environment a training job needs on this design's nodes.

Without it NCCL guesses: it may pick the management network for its bootstrap sockets
or, with no RDMA device visible, fall back to TCP sockets over the slowest path (the
seed article: "AllReduce directly an order of magnitude slower").  What the design
decides, per GPU server type:

- ``NCCL_IB_HCA``: the RDMA devices of the compute ports, listed exactly (``=`` prefix,
  so ``mlx5_1`` does not also match ``mlx5_10``), one per compute port the catalog item
  has.  Device names are the catalog's ``props.compute_hcas`` where the item gives them;
  otherwise ``mlx5_0`` … in port order, which a comment says to check against
  ``ibdev2netdev`` on the first node (the OS names devices, the design cannot).
- ``NCCL_SOCKET_IFNAME``: the in-band management port (bootstrap and out-of-band
  traffic stay off the compute fabric): the catalog's ``props.inband_ifname`` or the
  design's port name (``mgmt0``).
- RoCE only: ``NCCL_IB_GID_INDEX=3`` (the RoCEv2 IPv4 GID; the seed's
  ``ib_send_bw -x 3``) and ``NCCL_IB_TC`` for the lossless class (DSCP 26 → traffic
  class 104, :data:`ROCE_DSCP`).
- Plain Ethernet (no RDMA): ``NCCL_IB_DISABLE=1`` and the compute ports as sockets.

The same figures feed the Kubernetes pod template and the Slurm ``nccl.env``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.catalog.item import CatalogItem
from workbench.export.handoff import Node
from workbench.model.design import Design, Network
from workbench.model.ports import host_plane

#: RoCEv2 over IPv4: GID index 3 on ConnectX adapters (seed 004: ``ib_send_bw -x 3``).
ROCE_GID_INDEX = 3
#: DSCP of the lossless RDMA class (the RoCE baseline) and NCCL's traffic class for it.
ROCE_DSCP = 26
ROCE_TRAFFIC_CLASS = ROCE_DSCP * 4


@dataclass(frozen=True)
class NcclSetup:
    """The NCCL environment of one GPU server type, with why each value is what it is."""

    server: str
    technology: str
    compute_ports: int
    env: dict[str, str]
    notes: tuple[str, ...]

    @property
    def rdma(self) -> bool:
        """Whether the compute fabric carries RDMA (InfiniBand or RoCE)."""
        return self.technology in ("infiniband", "roce")


def compute_network(design: Design) -> Network | None:
    """The design's compute network (the first on the compute plane), if any."""
    return next((n for n in design.networks if n.plane == "compute"), None)


def _ports(item: CatalogItem, plane: str) -> list[str]:
    return [i.name for i in item.interfaces if host_plane(i.name, i.mgmt_only) == plane]


def nccl_setup(design: Design, server: CatalogItem) -> NcclSetup:
    """The NCCL environment for ``server`` on ``design``'s compute plane."""
    net = compute_network(design)
    technology = net.technology if net is not None else "infiniband"
    compute = _ports(server, "compute")
    inband = _ports(server, "management")
    notes: list[str] = []
    ifname = str(server.props.get("inband_ifname") or (inband[0] if inband else "eth0"))
    if not server.props.get("inband_ifname"):
        notes.append(
            f"NCCL_SOCKET_IFNAME={ifname} is the design's in-band port name; use the OS "
            "name of that port if it differs (ip -br link)"
        )
    env: dict[str, str] = {"NCCL_SOCKET_IFNAME": ifname}
    if technology in ("infiniband", "roce"):
        named = server.props.get("compute_hcas")
        if isinstance(named, list) and len(named) == len(compute) and named:
            hcas = [str(h) for h in named]
        else:
            hcas = [f"mlx5_{i}" for i in range(len(compute))]
            notes.append(
                "NCCL_IB_HCA lists the compute ports' RDMA devices in port order; check the "
                "names against 'ibdev2netdev' on the first node"
            )
        env["NCCL_IB_HCA"] = "=" + ",".join(hcas)
        env["NCCL_IB_DISABLE"] = "0"
        if technology == "roce":
            env["NCCL_IB_GID_INDEX"] = str(ROCE_GID_INDEX)
            env["NCCL_IB_TC"] = str(ROCE_TRAFFIC_CLASS)
    else:
        env["NCCL_IB_DISABLE"] = "1"
        env["NCCL_SOCKET_IFNAME"] = "=" + ",".join(compute) if compute else ifname
    return NcclSetup(server.slug, technology, len(compute), env, tuple(notes))


def server_types(nodes: Sequence[Node]) -> list[CatalogItem]:
    """The GPU server types of ``nodes``, in first-seen order."""
    seen: dict[str, CatalogItem] = {}
    for node in nodes:
        seen.setdefault(node.server.slug, node.server)
    return list(seen.values())


def env_text(setup: NcclSetup) -> str:
    """A shell file to ``source`` in job scripts (``export NAME=value`` lines)."""
    out = [
        f"# NCCL environment for {setup.server} ({setup.compute_ports} compute ports, "
        f"{setup.technology} compute fabric).  In a job script: source nccl.env",
    ]
    out += [f"# {note}" for note in setup.notes]
    out += [f'export {k}="{v}"' for k, v in setup.env.items()]
    return "\n".join(out) + "\n"


def nccl_env_files(design: Design, nodes: Sequence[Node]) -> dict[str, str]:
    """``nccl.env`` for the first GPU server type, ``nccl-<slug>.env`` for any other."""
    files: dict[str, str] = {}
    for i, server in enumerate(server_types(nodes)):
        name = "nccl.env" if i == 0 else f"nccl-{server.slug}.env"
        files[name] = env_text(nccl_setup(design, server))
    return files
