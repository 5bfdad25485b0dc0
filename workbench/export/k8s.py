"""The Kubernetes handoff: node labels and taints, team quotas, a training Pod template.

Files (domain brief §7; the seed article's commands are ``kubectl label node ...
accelerator=a100-80g pool=train`` and ``kubectl taint node ... dedicated=train:NoSchedule``):

- **nodes.yaml**: one ``kind: Node`` document per GPU node with ``metadata.labels`` and,
  for training nodes, ``spec.taints``; ``kubectl apply -f nodes.yaml`` (or
  ``--server-side``) merges them into the registered nodes.  Labels: ``accelerator``
  (the GPU's catalog slug without the vendor, ``h100-sxm5-80gb``), ``pool``
  (training/inference/dev, the same split as the Slurm partitions), GPU count,
  ``topology.kubernetes.io/region`` = site and ``topology.kubernetes.io/zone`` = row
  (a row shares power and cooling, the failure domain spread constraints should see),
  and the rack under :data:`PREFIX`.  Training nodes carry
  ``dedicated=training:NoSchedule`` so ordinary workloads do not land on them; other
  nodes have no ``spec`` at all, so applying the file never clears a taint the control
  plane set (``node.kubernetes.io/unschedulable`` ...).
- **quotas.yaml**: a ``Namespace``, a ``ResourceQuota`` with
  ``requests.nvidia.com/gpu`` (extended resources are quota'd by requests only) and a
  ``PriorityClass`` (``<team>-priority``, the team's priority) per team: the design's
  teams (:class:`workbench.model.Team`) unless the export is given others.
- **pod-template.yaml**: a ``PodTemplate`` per training server type: whole node GPUs,
  requests equal to limits (QoS class Guaranteed, so a training pod is the last to be
  evicted), ``/dev/shm`` as a memory ``emptyDir`` (the 64 MiB default makes
  PyTorch DataLoader workers die with a bus error), and, on an InfiniBand or RoCE
  compute fabric, the RDMA devices: ``rdma/<resource>: 1`` from the RDMA shared device
  plugin, the ``IPC_LOCK`` capability (RDMA pins memory; without it the verbs
  registration fails and NCCL falls back to TCP sockets) and the NCCL environment of
  :mod:`workbench.export.nccl` (``NCCL_IB_HCA``, ``NCCL_SOCKET_IFNAME``, for RoCE
  ``NCCL_IB_GID_INDEX``).
- **rdma-shared-device-plugin.yaml** (RDMA fabrics only): the plugin's ``ConfigMap``
  (``kube-system/rdma-devices``, ``config.json``) in the form the NVIDIA Network
  Operator's ``rdmaSharedDevicePlugin`` and the standalone plugin read: one resource,
  :data:`RDMA_RESOURCE`, selecting the NVIDIA (vendor ``15b3``) adapters, shared by up
  to :data:`RDMA_HCA_MAX` pods per node.

The text is written directly, not through a YAML dumper: 12,500 Node documents then
take a fraction of a second; every value is quoted as a JSON string, which YAML reads
back unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from workbench.export.handoff import (
    POOLS,
    Node,
    Team,
    check_node_names,
    cpu_layout,
    gpu_nodes,
    host_ram_mib,
    make_teams,
    split_pools,
)
from workbench.export.nccl import NcclSetup, nccl_setup, server_types
from workbench.export.output import ExportError, Progress, no_progress, write_folder
from workbench.export.roce import roce_baseline_csv
from workbench.model.design import Design
from workbench.text_rules import HOSTNAME_MAPPING_WORDS

#: Prefix of the workbench's own label keys (a DNS subdomain, as Kubernetes requires).
PREFIX = "gpu.workbench"


#: The RDMA shared device plugin's resource for the compute ports (``rdma/<name>``).
RDMA_RESOURCE = "rdma_compute"
#: How many pods of a node may share the RDMA devices (the plugin's ``rdmaHcaMax``).
RDMA_HCA_MAX = 64

#: The taint that keeps ordinary pods off training nodes.
TRAINING_TAINT = {"key": "dedicated", "value": "training", "effect": "NoSchedule"}


def label_value(text: str) -> str:
    """``text`` as a valid label value: lowercase, ``[a-z0-9._-]``, 63 at most,
    alphanumeric at both ends (``Row A`` → ``row-a``)."""
    value = re.sub(r"[^a-z0-9._-]+", "-", text.lower())
    value = value[:63]
    return re.sub(r"^[^a-z0-9]+|[^a-z0-9]+$", "", value)


def accelerator(node: Node) -> str:
    """The GPU's slug without its vendor prefix (``nvidia-h100-sxm5-80gb`` → ``h100-sxm5-80gb``)."""
    slug = node.gpu.slug if node.gpu else node.server.gpu or node.server.slug
    for vendor in ("nvidia-", "amd-", "intel-"):
        if slug.startswith(vendor):
            slug = slug[len(vendor) :]
            break
    return label_value(slug) or "gpu"


def node_labels(node: Node, pool: str) -> dict[str, str]:
    """Every label of one node (see the module docstring)."""
    return {
        "accelerator": accelerator(node),
        "pool": pool,
        f"{PREFIX}/gpu-count": str(node.gpu_count),
        "topology.kubernetes.io/region": label_value(node.site) or "site",
        "topology.kubernetes.io/zone": label_value(node.row) or "row",
        f"{PREFIX}/rack": label_value(node.rack) or "rack",
    }


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def nodes_yaml(pools: Mapping[str, list[Node]], progress: Progress) -> str:
    """nodes.yaml: one Node document per node."""
    out = [
        "# Labels and taints for the GPU nodes; apply with: kubectl apply -f nodes.yaml",
        f"# Node {HOSTNAME_MAPPING_WORDS}; the annotation {PREFIX}/design-name",
        "# names the device where its name in the design differs.",
    ]
    done = 0
    total = sum(len(members) for members in pools.values()) or 1
    for pool in POOLS:
        for node in pools[pool]:
            out += ["---", "apiVersion: v1", "kind: Node", "metadata:", f"  name: {_q(node.name)}"]
            if node.design_name:
                out += [
                    "  annotations:",
                    f"    {_q(PREFIX + '/design-name')}: {_q(node.design_name)}",
                ]
            out.append("  labels:")
            out += [f"    {_q(k)}: {_q(v)}" for k, v in node_labels(node, pool).items()]
            if pool == "training":
                out.append("spec:")
                out.append("  taints:")
                t = TRAINING_TAINT
                out.append(f"  - key: {_q(t['key'])}")
                out.append(f"    value: {_q(t['value'])}")
                out.append(f"    effect: {_q(t['effect'])}")
            done += 1
            if done % 5000 == 0:
                progress(0.1 + 0.7 * done / total, "nodes.yaml")
    return "\n".join(out) + "\n"


def quotas_yaml(teams: Sequence[Team]) -> str:
    """quotas.yaml: a Namespace, a GPU ResourceQuota and a PriorityClass per team."""
    out = ["# One namespace and GPU quota per team; apply with: kubectl apply -f quotas.yaml"]
    for team in teams:
        out += [
            "---",
            "apiVersion: v1",
            "kind: Namespace",
            "metadata:",
            f"  name: {_q(team.name)}",
            "---",
            "apiVersion: v1",
            "kind: ResourceQuota",
            "metadata:",
            f"  name: {_q(team.name + '-gpu-quota')}",
            f"  namespace: {_q(team.name)}",
            "spec:",
            "  hard:",
            f"    requests.nvidia.com/gpu: {_q(str(team.gpus))}",
            "---",
            "apiVersion: scheduling.k8s.io/v1",
            "kind: PriorityClass",
            "metadata:",
            f"  name: {_q(team.name + '-priority')}",
            f"value: {team.priority}",
            "globalDefault: false",
            f"description: {_q(f'Jobs of team {team.name} (the Slurm QOS of the same name)')}",
        ]
    return "\n".join(out) + "\n"


def rdma_plugin_yaml() -> str:
    """rdma-shared-device-plugin.yaml: the plugin's ConfigMap (see the module docstring)."""
    config = {
        "configList": [
            {
                "resourceName": RDMA_RESOURCE,
                "rdmaHcaMax": RDMA_HCA_MAX,
                "selectors": {"vendors": ["15b3"]},
            }
        ]
    }
    return (
        "\n".join(
            [
                "# RDMA shared device plugin configuration (NVIDIA Network Operator:",
                "# NicClusterPolicy.spec.rdmaSharedDevicePlugin.config takes the same JSON).",
                "# Narrow the selectors (ifNames) to the compute ports if storage ports are",
                "# NVIDIA adapters too; apply with: kubectl apply -f rdma-shared-device-plugin.yaml",
                "---",
                "apiVersion: v1",
                "kind: ConfigMap",
                "metadata:",
                '  name: "rdma-devices"',
                '  namespace: "kube-system"',
                "data:",
                f"  config.json: {_q(json.dumps(config, sort_keys=True))}",
            ]
        )
        + "\n"
    )


def pod_templates_yaml(nodes: Sequence[Node], design: Design | None = None) -> str:
    """pod-template.yaml: one training PodTemplate per server type of the training pool.

    CPU and memory leave room for the kubelet and system daemons (8 logical CPUs, 10 % of
    memory); ``/dev/shm`` is a quarter of the pod's memory, 32–256 GiB.
    """
    out = ["# A training pod that takes a whole node; copy into your Job or PyTorchJob."]
    seen: set[str] = set()
    for node in nodes:
        if node.server.slug in seen:
            continue
        seen.add(node.server.slug)
        resources = [f"nvidia.com/gpu: {_q(str(node.gpu_count))}"]
        setup = nccl_setup(design, node.server) if design is not None else None
        rdma = setup is not None and setup.rdma and setup.compute_ports > 0
        if rdma:
            resources.append(f"rdma/{RDMA_RESOURCE}: {_q('1')}")
        layout = cpu_layout(node.server)
        if layout is not None:
            resources.append(f"cpu: {_q(str(max(1, layout.cpus - 8)))}")
        ram = host_ram_mib(node.server)
        memory_gib = int(ram / 1024 * 0.9) if ram else 0
        if memory_gib:
            resources.append(f"memory: {_q(f'{memory_gib}Gi')}")
        shm = max(32, min(256, memory_gib // 4)) if memory_gib else 64
        name = label_value("train-" + node.server.slug)
        out += [
            "---",
            "apiVersion: v1",
            "kind: PodTemplate",
            "metadata:",
            f"  name: {_q(name)}",
            "template:",
            "  metadata:",
            "    labels:",
            f"      app: {_q(name)}",
            "  spec:",
            "    nodeSelector:",
            f"      accelerator: {_q(accelerator(node))}",
            '      pool: "training"',
            "    tolerations:",
            f"    - key: {_q(TRAINING_TAINT['key'])}",
            '      operator: "Equal"',
            f"      value: {_q(TRAINING_TAINT['value'])}",
            f"      effect: {_q(TRAINING_TAINT['effect'])}",
            "    containers:",
            '    - name: "trainer"',
            '      image: "registry.local/ai/pytorch:latest"',
            *_nccl_lines(setup, rdma),
            "      resources:",
            "        requests:",
            *[f"          {r}" for r in resources],
            "        limits:",
            *[f"          {r}" for r in resources],
            "      volumeMounts:",
            '      - name: "shm"',
            '        mountPath: "/dev/shm"',
            "    volumes:",
            '    - name: "shm"',
            "      emptyDir:",
            '        medium: "Memory"',
            f"        sizeLimit: {_q(f'{shm}Gi')}",
        ]
    return "\n".join(out) + "\n"


def _nccl_lines(setup: NcclSetup | None, rdma: bool) -> list[str]:
    """The container's env and, for RDMA, its IPC_LOCK capability."""
    if setup is None:
        return []
    out = [f"      # {note}" for note in setup.notes]
    out.append("      env:")
    for key, value in setup.env.items():
        out += [f"      - name: {_q(key)}", f"        value: {_q(value)}"]
    if rdma:
        out += [
            "      securityContext:",
            "        capabilities:",
            '          add: ["IPC_LOCK"]',
        ]
    return out


def write_k8s(
    design: Design,
    folder: Path,
    *,
    progress: Progress = no_progress,
    teams: Mapping[str, int] | Sequence[Team] | None = None,
    inference_nodes: int | None = None,
    dev_nodes: int | None = None,
) -> list[Path]:
    """Write nodes.yaml, quotas.yaml, pod-template.yaml and (RDMA fabrics)
    rdma-shared-device-plugin.yaml into ``folder``.

    Options as :func:`workbench.export.slurm.write_slurm`, so both handoffs agree on
    pools and teams.  Everything is checked before a file is written.
    """
    folder = Path(folder)
    nodes = gpu_nodes(design)
    if not nodes:
        raise ExportError(folder, "the design has no GPU servers to label")
    check_node_names(nodes, folder)
    pools = split_pools(nodes, folder, inference_nodes=inference_nodes, dev_nodes=dev_nodes)
    team_list = make_teams(teams, sum(n.gpu_count for n in nodes), folder, design)
    progress(0.1, "nodes.yaml")
    files = {
        "nodes.yaml": nodes_yaml(pools, progress),
        "quotas.yaml": quotas_yaml(team_list),
        "pod-template.yaml": pod_templates_yaml(pools["training"] or nodes, design),
    }
    roce = roce_baseline_csv(design)
    if roce is not None:
        files["roce-baseline.csv"] = roce
    if any(nccl_setup(design, s).rdma for s in server_types(nodes)):
        files["rdma-shared-device-plugin.yaml"] = rdma_plugin_yaml()
    written = write_folder(folder, files)
    progress(1.0, "done")
    return written
