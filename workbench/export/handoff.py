"""What the Slurm and Kubernetes handoffs share: the GPU nodes, their pools and teams.

Both schedulers must see the same cluster: the same node names, the same split into a
training, an inference and a dev pool, and the same per-team GPU limits.  Reading that
once here keeps ``slurm.conf`` and the Kubernetes labels from disagreeing about which
node serves which pool.

Defaults (domain brief §7, and the Chinese deployment article in the seeds, which gives
a 16-node cluster 12 training, 2 inference and 2 dev nodes):

- the pools are **disjoint**: a node runs either long training jobs, latency-bound
  serving or short dev jobs, so a checkpoint burst never stalls a P99 target;
- inference gets one node in 8 and dev one in 32 (at least one each from 4 nodes up),
  taken from the **end** of the node order (the last racks), so the training pool
  keeps whole racks and leaf groups at the front, where the scheduler packs jobs
  under the fewest switches; both counts can be set;
- with no teams given the design's teams are used (a share turned into GPUs of the
  cluster), and with none there is one, ``default``, allowed every GPU of the cluster.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.catalog.item import CatalogItem, is_gpu_server
from workbench.export.output import ExportError
from workbench.model.design import Design
from workbench.model.team_ops import TEAM_NAME
from workbench.text_rules import HOSTNAME_MAPPING_WORDS, node_hostname

#: The three pools, in the order files list them.
POOLS: tuple[str, ...] = ("training", "inference", "dev")


@dataclass(frozen=True)
class Node:
    """One GPU server as both schedulers see it."""

    device_id: str
    #: The host name both handoffs give it (:func:`workbench.text_rules.node_hostname`),
    #: empty when the mapping cannot carry the design's name (the export refuses it).
    name: str
    server: CatalogItem
    gpu: CatalogItem | None
    site: str
    row: str
    rack: str
    #: The device's name in the design, where it differs from the host name.
    design_name: str = ""

    @property
    def gpu_count(self) -> int:
        """GPUs in the node, from its catalog item."""
        return self.server.gpu_count


@dataclass(frozen=True)
class Team:
    """One team's share: a Slurm QOS and an account, a Kubernetes namespace and quota."""

    name: str
    gpus: int
    #: Queued plus running jobs per user (the seed's ``MaxSubmitJobsPerUser=20``), so
    #: one script cannot flood the scheduler with thousands of short jobs.
    max_submit_jobs_per_user: int = 20
    #: Longest job of the team, Slurm time text.
    max_wall: str = "240:00:00"
    #: The team's QOS priority (higher first), from the design's team.
    priority: int = 1


def gpu_nodes(design: Design) -> list[Node]:
    """Every server with GPUs, in site/row/rack order (what a cluster schedules)."""
    nodes: list[Node] = []
    for site in design.sites:
        for row in site.rows:
            for rack in row.racks:
                for device in rack.devices:
                    item = design.device_types.get(device.device_type)
                    if item is None or not is_gpu_server(item):
                        continue
                    gpu = design.device_types.get(item.gpu) if item.gpu else None
                    host = node_hostname(device.name) or ""
                    kept = device.name if host != device.name else ""
                    nodes.append(
                        Node(device.id, host, item, gpu, site.name, row.name, rack.name, kept)
                    )
    return nodes


def check_node_names(nodes: Sequence[Node], path: Path) -> None:
    """ExportError for the first node whose design name no host name carries, or whose
    host name another node already has (naming both devices)."""
    seen: dict[str, Node] = {}
    for node in nodes:
        if not node.name:
            raise ExportError(
                path,
                f"device {node.device_id} name {node.design_name!r} cannot be made a host name "
                f"({HOSTNAME_MAPPING_WORDS}): rename it",
            )
        if node.name in seen:
            first = seen[node.name]
            raise ExportError(
                path,
                f"devices {first.device_id} ({(first.design_name or first.name)!r}) and "
                f"{node.device_id} ({(node.design_name or node.name)!r}) share the host name "
                f"{node.name!r}: rename one of them",
            )
        seen[node.name] = node


def split_pools(
    nodes: Sequence[Node],
    path: Path,
    *,
    inference_nodes: int | None = None,
    dev_nodes: int | None = None,
) -> dict[str, list[Node]]:
    """The nodes of each pool (see the module docstring); ExportError on bad counts."""
    total = len(nodes)
    default = total >= 4
    inference = (total // 8 or 1) if inference_nodes is None and default else inference_nodes or 0
    dev = (total // 32 or 1) if dev_nodes is None and default else dev_nodes or 0
    for label, count in (("inference_nodes", inference), ("dev_nodes", dev)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ExportError(path, f"{label} must be a whole number of nodes, not {count!r}")
    if inference + dev > total:
        raise ExportError(
            path,
            f"inference_nodes ({inference}) and dev_nodes ({dev}) exceed the design's "
            f"{total} GPU nodes",
        )
    training_end = total - inference - dev
    return {
        "training": list(nodes[:training_end]),
        "inference": list(nodes[training_end : total - dev]),
        "dev": list(nodes[total - dev :]),
    }


def design_teams(design: Design, total_gpus: int) -> list[Team] | None:
    """The design's teams (:class:`workbench.model.Team`) as handoff records: a share
    becomes that part of ``total_gpus``, rounded down, at least 1; None with none."""
    if not design.teams:
        return None
    records = []
    for team in design.teams:
        if team.gpus is not None:
            gpus = team.gpus
        else:
            gpus = max(1, math.floor((team.share or 0.0) * total_gpus + 1e-9))
        records.append(Team(team.name, gpus, priority=team.priority))
    return records


def make_teams(
    teams: Mapping[str, int] | Sequence[Team] | None,
    total_gpus: int,
    path: Path,
    design: Design | None = None,
) -> list[Team]:
    """The teams as :class:`Team` records, checked; ``{name: gpus}`` is accepted too.
    Without ``teams``, the design's own (:func:`design_teams`), else one "default"
    team allowed every GPU."""
    if teams is None and design is not None:
        teams = design_teams(design, total_gpus)
    if teams is None:
        return [Team("default", total_gpus)]
    if isinstance(teams, Mapping):
        records = [Team(str(name), gpus) for name, gpus in teams.items()]
    else:
        records = list(teams)
    seen: set[str] = set()
    for team in records:
        if not isinstance(team, Team):
            raise ExportError(path, f"teams: {team!r} is not a Team")
        if not TEAM_NAME.match(team.name):
            raise ExportError(
                path,
                f"team {team.name!r}: a team name is 1-63 lowercase letters, digits "
                "and '-' (it becomes a Kubernetes namespace and a Slurm QOS)",
            )
        if team.name in seen:
            raise ExportError(path, f"team {team.name!r} is listed twice")
        seen.add(team.name)
        for label, value in (
            ("gpus", team.gpus),
            ("max_submit_jobs_per_user", team.max_submit_jobs_per_user),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ExportError(path, f"team {team.name!r}: {label} must be a whole number ≥ 1")
        if not re.fullmatch(r"(\d+-)?\d+(:\d\d){0,2}", team.max_wall):
            raise ExportError(
                path, f"team {team.name!r}: max_wall {team.max_wall!r} is not HH:MM:SS"
            )
    return records


def gpu_type(gpu: CatalogItem | None, fallback: str) -> str:
    """A short lowercase GPU type for schedulers: ``H100 SXM5 80GB`` → ``h100``.

    The model's words up to the first one holding a digit (``GeForce RTX 4090`` →
    ``rtx4090``, ``Instinct MI300X`` → ``mi300x``), letters and digits only; the
    catalog slug when the model gives nothing usable.
    """
    if gpu is None:
        return re.sub(r"[^a-z0-9]", "", fallback.lower()) or "gpu"
    words = [w for w in gpu.model.lower().split() if w not in {"geforce", "instinct", "tesla"}]
    picked: list[str] = []
    for word in words:
        picked.append(word)
        if any(c.isdigit() for c in word):
            break
    text = re.sub(r"[^a-z0-9]", "", "".join(picked))
    return text or re.sub(r"[^a-z0-9]", "", gpu.slug.lower()) or "gpu"


@dataclass(frozen=True)
class CpuLayout:
    """A server's processors as a scheduler counts them (Slurm's NodeName fields)."""

    sockets: int
    cores_per_socket: int
    #: None when the catalog does not say (the ``cpu`` text names cores, not threads).
    threads_per_core: int | None

    @property
    def cores(self) -> int:
        """Physical cores of the node."""
        return self.sockets * self.cores_per_socket

    @property
    def cpus(self) -> int:
        """Logical CPUs (what Slurm's ``CPUs`` and Kubernetes' ``cpu`` count)."""
        return self.cores * (self.threads_per_core or 1)


def _whole(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


def cpu_layout(server: CatalogItem) -> CpuLayout | None:
    """The node's processors: the catalog's ``cpu_sockets``, ``cores_per_socket`` and
    ``threads_per_core`` props (each with a source) where given, else sockets and cores
    read from the ``cpu`` text (``2x Xeon 8480C (112 cores)``, threads unknown); None
    when the catalog does not say how many cores."""
    props = server.props
    sockets, per_socket = _whole(props.get("cpu_sockets")), _whole(props.get("cores_per_socket"))
    threads = _whole(props.get("threads_per_core"))
    if sockets is not None and per_socket is not None:
        return CpuLayout(sockets, per_socket, threads)
    text = str(props.get("cpu", ""))
    cores = re.search(r"(\d+)\s*cores?\b", text)
    if cores is None:
        return None
    found = re.match(r"\s*(\d+)\s*x\b", text)
    count = int(found.group(1)) if found else 1
    total = int(cores.group(1))
    if count < 1 or total % count:
        return CpuLayout(1, total, threads)
    return CpuLayout(count, total // count, threads)


def host_ram_mib(server: CatalogItem) -> int | None:
    """Installed host memory in MiB (the catalog's ``host_ram_gb`` counts GiB, as memory
    is sold), or None when unknown."""
    value = server.props.get("host_ram_gb")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return int(value * 1024)
