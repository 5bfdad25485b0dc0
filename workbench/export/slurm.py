"""The Slurm handoff: ``slurm.conf`` fragment, ``gres.conf``, ``topology.conf``, ``qos.sh``.

What each file holds and why (domain brief §7; checked by a real ``slurmctld`` in the
tests):

- **slurm.conf** is a fragment to paste under the site's own controller settings
  (``SlurmctldHost``, auth, paths stay the admin's): the cluster-wide lines the design
  decides (``GresTypes=gpu``, ``ReturnToService=2`` so a node that rebooted clean
  comes back by itself, ``TopologyPlugin=topology/tree``, ``select/cons_tres`` with
  ``CR_Core_Memory`` so GPUs, cores and memory are all allocatable), then one
  ``NodeName`` line per set of identical servers with Slurm hostlist ranges
  (``gpu[00001-12500]``), then the partitions of the three pools.  ``RealMemory`` is the installed
  memory less :data:`OS_MEMORY_SHARE` (5 %): the kernel reports 1–3 % less than is
  installed and a node whose real memory is below ``RealMemory`` is drained by Slurm,
  so the margin keeps nodes in service and leaves room for the OS and daemons.
  The CPU layout comes from the catalog (below); without threads per core, or without
  cores at all, a comment says so (``slurmd -C`` on a node prints them).
- **gres.conf** names the device files (``File=/dev/nvidia[0-7]``) rather than
  ``AutoDetect=nvml``: it works with every Slurm build (Debian's has no NVML) and lets
  the controller check the count against ``slurm.conf``; NVML detection can replace it
  on sites whose slurmd is built with it.
- **topology.conf** is the compute fabric as Slurm's tree plugin wants it: every node
  under exactly **one** leaf switch.  A rail-optimised fabric hangs each node under 8
  rail leaves, so nodes with the same set of leaves (a scalable unit) become one
  *virtual* leaf switch (``leafgroup001``; a comment lists its rail leaves); a node on
  a single leaf keeps that leaf's own name.  Above, groups whose switches share a spine
  are merged level by level (connected components), so every switch has one parent and
  the scheduler packs a job under as few switch groups as it can.  Nodes not cabled to
  the compute fabric are left out (and listed in a comment): Slurm runs single-node
  jobs on them only.
- **qos.sh**: Slurm keeps QOS in the accounting database (slurmdbd), not in
  slurm.conf, so per-team limits are a ``sacctmgr`` script: one QOS and one account
  per team, ``GrpTRES=gres/gpu=N`` (the TRES name sacctmgr wants for the brief's
  ``gpu=N``), ``MaxSubmitJobsPerUser`` and ``MaxWall``.  It can be run again.
- **cgroup.conf** (``ConstrainDevices``, ``ConstrainCores``, ``ConstrainRAMSpace``) with
  ``ProctrackType=proctrack/cgroup`` and ``TaskPlugin=task/cgroup,task/affinity`` in
  slurm.conf: GPU isolation (seed article: a job given 8 GPUs that sees 4, or one that
  sees a neighbour's, is a cgroup left open).
- **nccl.env**: the NCCL environment for job scripts (``source nccl.env``), from the
  design's compute ports and plane technology (:mod:`workbench.export.nccl`).

Partitions are split by GPU model when the cluster has more than one
(:func:`partition_lines`); ``CPUs``, ``Sockets``, ``CoresPerSocket`` and
``ThreadsPerCore`` come from the catalog's ``cpu_sockets``, ``cores_per_socket`` and
``threads_per_core`` props (each with its source).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

from workbench.calc.fabric.planes import plane_structure, tier_name
from workbench.export.handoff import (
    POOLS,
    Node,
    Team,
    check_node_names,
    cpu_layout,
    gpu_nodes,
    gpu_type,
    host_ram_mib,
    make_teams,
    split_pools,
)
from workbench.export.hostlist import compress
from workbench.export.nccl import nccl_env_files
from workbench.export.output import ExportError, Progress, no_progress, write_folder
from workbench.export.roce import roce_baseline_csv
from workbench.model.design import Design
from workbench.text_rules import HOSTNAME_MAPPING_WORDS, SLURM_NODE_NAME

#: Share of installed memory kept out of ``RealMemory`` for the OS (see the docstring).
OS_MEMORY_SHARE = 0.05

#: Names Slurm can hold in a hostlist (no brackets, commas, spaces or '=').
#: Switch names in topology.conf (node names come mapped: text_rules.node_hostname).
_SLURM_NAME = SLURM_NODE_NAME

#: Most names on one NodeName line when names are too irregular to compress.
_NAMES_PER_LINE = 512

#: Partition settings (seed article §4: training ≥ 10 days and whole nodes, inference
#: never oversubscribed, dev short and low priority).
PARTITIONS: dict[str, str] = {
    "training": "Default=YES DefaultTime=2-00:00:00 MaxTime=10-00:00:00 "
    "OverSubscribe=EXCLUSIVE PriorityJobFactor=10 State=UP",
    "inference": "DefaultTime=12:00:00 MaxTime=3-00:00:00 OverSubscribe=NO "
    "PriorityJobFactor=10 State=UP",
    "dev": "DefaultTime=02:00:00 MaxTime=08:00:00 OverSubscribe=NO PriorityJobFactor=1 State=UP",
}


def cluster_slug(name: str) -> str:
    """A ClusterName Slurm accepts (lowercase, letters, digits, '-'; 40 at most)."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:40].strip("-") or "cluster"


def _node_attributes(node: Node, gres: str) -> tuple[str, list[str]]:
    """The hardware part of a NodeName line, and notes on what the catalog lacks."""
    parts: list[str] = []
    notes: list[str] = []
    layout = cpu_layout(node.server)
    if layout is not None:
        fields = (
            f"CPUs={layout.cpus} Sockets={layout.sockets} CoresPerSocket={layout.cores_per_socket}"
        )
        if layout.threads_per_core is not None:
            fields += f" ThreadsPerCore={layout.threads_per_core}"
        else:
            notes.append(
                f"{node.server.slug}: the catalog gives no threads_per_core; CPUs counts "
                "cores only ('slurmd -C' on a node prints the real layout)"
            )
        parts.append(fields)
    else:
        notes.append(f"{node.server.slug}: the catalog gives no core count ('slurmd -C' does)")
    ram = host_ram_mib(node.server)
    if ram is not None:
        parts.append(f"RealMemory={int(ram * (1 - OS_MEMORY_SHARE))}")
    else:
        notes.append(f"{node.server.slug}: the catalog gives no host_ram_gb")
    parts.append(f"Gres=gpu:{gres}:{node.gpu_count}")
    return " ".join(parts), notes


def _gpu_slug(node: Node) -> str:
    return node.gpu.slug if node.gpu else node.server.gpu or node.server.slug


def partition_name(pool: str, model: str, models: Sequence[str]) -> str:
    """The one home of partition naming: the pool's name, suffixed with the GPU model
    when the cluster has more than one (``training-h100``)."""
    return pool if len(models) <= 1 else f"{pool}-{model}"


def node_partitions(
    design: Design, *, inference_nodes: int | None = None, dev_nodes: int | None = None
) -> dict[str, str]:
    """Device id → the partition slurm.conf puts that GPU node in (the export's pools).

    The health check's 2-node ``srun`` asks for this partition: a mixed design has no
    plain ``training`` partition.
    """
    nodes = gpu_nodes(design)
    if not nodes:
        return {}
    pools = split_pools(
        nodes, Path("slurm.conf"), inference_nodes=inference_nodes, dev_nodes=dev_nodes
    )
    gres_types = _gres_types(nodes)
    gres_of = {n.device_id: gres_types[_gpu_slug(n)] for n in nodes}
    models = list(dict.fromkeys(gres_of.values()))
    return {
        node.device_id: partition_name(pool, gres_of[node.device_id], models)
        for pool in POOLS
        for node in pools[pool]
    }


def partition_lines(pools: Mapping[str, list[Node]], gres_of: Mapping[str, str]) -> list[str]:
    """The PartitionName lines: one partition per pool, split by GPU model when the
    cluster has more than one (``training-h100``, ``training-a100``).

    The seed article's rule: never put every GPU node in one partition, or small jobs
    take the big cards and big jobs queue; a job asking ``-p training-a100`` gets the
    card it was sized for, and ``--gres=gpu:h100:8`` cannot land on an A100 node.
    ``gres_of``: device id → gres type.  The first training partition is the default.
    """
    models = list(dict.fromkeys(gres_of.values()))  # node order: the main model first
    out: list[str] = []
    default_given = False
    for pool in POOLS:
        members = pools[pool]
        if not members:
            out.append(f"# PartitionName={pool}: no nodes in this pool (see the export options)")
            continue
        by_model: dict[str, list[str]] = {}
        for node in members:
            by_model.setdefault(gres_of[node.device_id], []).append(node.name)
        for model in sorted(by_model, key=models.index):
            name = partition_name(pool, model, models)
            settings = PARTITIONS[pool]
            if pool == "training":
                settings = settings.replace("Default=YES ", "" if default_given else "Default=YES ")
                default_given = True
            out.append(f"PartitionName={name} Nodes={compress(by_model[model])} {settings}")
    return out


def _gres_types(nodes: Sequence[Node]) -> dict[str, str]:
    """GPU slug → gres type; two GPU items sharing a short type get their memory added."""
    by_type: dict[str, set[str]] = defaultdict(set)
    items = {}
    for node in nodes:
        slug = _gpu_slug(node)
        items[slug] = node.gpu
        by_type[gpu_type(node.gpu, slug)].add(slug)
    result: dict[str, str] = {}
    for short, slugs in by_type.items():
        for slug in slugs:
            gpu = items[slug]
            if len(slugs) > 1 and gpu is not None and gpu.hbm_gb:
                result[slug] = f"{short}_{int(gpu.hbm_gb)}gb"
            else:
                result[slug] = short if len(slugs) == 1 else re.sub(r"[^a-z0-9]", "", slug)
    return result


def _chunks(names: list[str]) -> list[str]:
    """One hostlist, or several of at most :data:`_NAMES_PER_LINE` names each when the
    names are too irregular to compress into a short line."""
    whole = compress(names)
    if len(whole) <= 2048:
        return [whole]
    return [compress(names[i : i + _NAMES_PER_LINE]) for i in range(0, len(names), _NAMES_PER_LINE)]


def slurm_conf(
    design: Design, nodes: Sequence[Node], pools: Mapping[str, list[Node]], cluster: str
) -> tuple[str, str]:
    """The slurm.conf fragment and gres.conf text."""
    gres_types = _gres_types(nodes)
    groups: dict[str, list[str]] = {}
    gres_lines: dict[str, tuple[str, int]] = {}
    notes: list[str] = []
    for node in nodes:
        slug = _gpu_slug(node)
        attributes, missing = _node_attributes(node, gres_types[slug])
        if attributes not in groups:
            groups[attributes] = []
            gres_lines[attributes] = (gres_types[slug], node.gpu_count)
            notes.extend(missing)
        groups[attributes].append(node.name)
    gpus = sum(node.gpu_count for node in nodes)
    out = [
        f"# Slurm handoff for {design.name!r}: {len(nodes)} GPU nodes, {gpus} GPUs.",
        "# Paste under the site's controller settings (SlurmctldHost, AuthType, paths).",
        f"# Node {HOSTNAME_MAPPING_WORDS}.",
        f"ClusterName={cluster}",
        "GresTypes=gpu",
        "ReturnToService=2",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "TopologyPlugin=topology/tree",
        "# cgroups confine each job to the GPUs, cores and memory it was given (cgroup.conf):",
        "# without them a job sees every /dev/nvidia* of the node and the next job's",
        "# torch.cuda.device_count() comes out short.",
        "ProctrackType=proctrack/cgroup",
        "TaskPlugin=task/cgroup,task/affinity",
        "# QOS per team live in slurmdbd (see qos.sh); enforcing them needs",
        "# AccountingStorageType=accounting_storage/slurmdbd and",
        "# AccountingStorageEnforce=associations,limits,qos and, for GrpTRES=gres/gpu,",
        "# AccountingStorageTRES=gres/gpu (slurmctld refuses that TRES without slurmdbd).",
        "",
        f"# RealMemory = installed memory less {OS_MEMORY_SHARE:.0%} for the OS and daemons.",
    ]
    out.extend(f"# {note}" for note in notes)
    renamed = [n for n in nodes if n.design_name]
    if renamed:
        out.append(f"# {len(renamed)} host names differ from the design's names (host = design):")
        out.extend(f"#   {n.name} = {n.design_name}" for n in renamed)
    for attributes, names in groups.items():
        for hostlist in _chunks(names):
            out.append(f"NodeName={hostlist} {attributes}")
    out.append("")
    out.extend(partition_lines(pools, {n.device_id: gres_types[_gpu_slug(n)] for n in nodes}))
    gres = ["# Device files of each node's GPUs (AutoDetect=nvml can replace this)."]
    for attributes, names in groups.items():
        kind, count = gres_lines[attributes]
        files = "/dev/nvidia0" if count == 1 else f"/dev/nvidia[0-{count - 1}]"
        for hostlist in _chunks(names):
            gres.append(f"NodeName={hostlist} Name=gpu Type={kind} File={files}")
    return "\n".join(out) + "\n", "\n".join(gres) + "\n"


CGROUP_CONF = """\
# cgroup.conf: confine every job step to what Slurm allocated it.
# ConstrainDevices: only the job's GPUs (/dev/nvidia*, from gres.conf) are visible;
# ConstrainCores: only its cores; ConstrainRAMSpace: its memory, so one job cannot
# push a neighbour into the OOM killer.  Read by slurmd with TaskPlugin=task/cgroup.
ConstrainCores=yes
ConstrainDevices=yes
ConstrainRAMSpace=yes
"""


def _switch_name(design: Design, switch_id: str) -> str | None:
    found = design.index.devices.get(switch_id)
    name = found[1].name if found else ""
    return name if _SLURM_NAME.fullmatch(name) else None


def topology_conf(design: Design, nodes: Sequence[Node], progress: Progress) -> str:
    """topology.conf for the tree plugin (see the module docstring)."""
    structure = plane_structure(design, "compute")
    tiers = structure.tiers
    by_id = {node.device_id: node.name for node in nodes}
    leaves_of: dict[str, set[str]] = defaultdict(set)
    for link in structure.host_links:
        for host, other in ((link.a_device, link.b_device), (link.b_device, link.a_device)):
            if host in by_id and tiers.get(other) == 1:
                leaves_of[host].add(other)
    up: dict[str, set[str]] = defaultdict(set)
    for link in structure.switch_links:
        a, b = link.a_device, link.b_device
        ta, tb = tiers.get(a, 0), tiers.get(b, 0)
        if ta and tb == ta + 1:
            up[a].add(b)
        elif tb and ta == tb + 1:
            up[b].add(a)
    progress(0.6, "topology.conf")
    used: set[str] = set()

    def name_group(tier: int, members: set[str], count: list[int]) -> str:
        if len(members) == 1:
            own = _switch_name(design, next(iter(members)))
            if own is not None and own not in used:
                used.add(own)
                return own
        while True:
            count[0] += 1
            candidate = f"{tier_name(tier).replace(' ', '')}group{count[0]:03d}"
            if candidate not in used:
                used.add(candidate)
                return candidate

    lines = ["# Compute fabric for TopologyPlugin=topology/tree."]
    # Level 1: nodes with the same set of leaves share one (virtual) leaf switch.
    by_leaves: dict[frozenset[str], list[str]] = {}
    uncabled: list[str] = []
    for node in nodes:
        leaves = leaves_of.get(node.device_id)
        if not leaves:
            uncabled.append(node.name)
            continue
        by_leaves.setdefault(frozenset(leaves), []).append(node.name)
    groups: list[tuple[str, set[str]]] = []  # (name, physical switches of this tier)
    counter = [0]
    for leaf_set, names in by_leaves.items():
        name = name_group(1, set(leaf_set), counter)
        if len(leaf_set) > 1:
            lines.append(f"# {name}: leaves {_names(design, leaf_set)}")
        lines.append(f"SwitchName={name} Nodes={compress(names)}")
        groups.append((name, set(leaf_set)))
    tier = 1
    while groups:
        above = [
            (name, set().union(*(up.get(s, set()) for s in members))) for name, members in groups
        ]
        if not any(switches for _name, switches in above):
            break
        tier += 1
        merged: dict[int, tuple[list[str], set[str]]] = {}
        for i, root in enumerate(_components([switches for _name, switches in above])):
            name, switches = above[i]
            if not switches:
                continue  # a top already: no parent
            children, members = merged.setdefault(root, ([], set()))
            children.append(name)
            members |= switches
        counter = [0]
        next_groups: list[tuple[str, set[str]]] = []
        for children, members in merged.values():
            name = name_group(tier, members, counter)
            if len(members) > 1:
                lines.append(f"# {name}: {tier_name(tier)}s {_names(design, members)}")
            lines.append(f"SwitchName={name} Switches={compress(children)}")
            next_groups.append((name, members))
        groups = next_groups
    if uncabled:
        lines.append(f"# Not on the compute fabric (single-node jobs only): {compress(uncabled)}")
    return "\n".join(lines) + "\n"


def _components(sets: list[set[str]]) -> list[int]:
    """For each set, a representative index: sets sharing a member (transitively) get
    the same one (union-find), so each merged group has exactly one parent."""
    parent = list(range(len(sets)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, members in enumerate(sets):
        for member in members:
            if member in owner:
                parent[find(i)] = find(owner[member])
            else:
                owner[member] = i
    return [find(i) for i in range(len(sets))]


def _names(design: Design, switch_ids: set[str] | frozenset[str]) -> str:
    names = []
    for switch_id in switch_ids:
        found = design.index.devices.get(switch_id)
        names.append(found[1].name if found else switch_id)
    return compress(sorted(names))


def qos_script(teams: Sequence[Team], cluster: str) -> str:
    """qos.sh: one QOS and one account per team, safe to run again."""
    out = [
        "#!/bin/sh",
        f"# Per-team limits for cluster {cluster}.  Slurm keeps QOS in the accounting",
        "# database (slurmdbd), not in slurm.conf, so they are set with sacctmgr.",
        "# 'add' reports an existing QOS or account and goes on; 'modify' sets the limits.",
        "set -u",
    ]
    for team in teams:
        limits = (
            f"GrpTRES=gres/gpu={team.gpus} MaxSubmitJobsPerUser={team.max_submit_jobs_per_user} "
            f"MaxWall={team.max_wall} Priority={team.priority}"
        )
        out += [
            f"sacctmgr -i add qos {team.name} || true",
            f"sacctmgr -i modify qos where name={team.name} set {limits}",
            f"sacctmgr -i add account {team.name} cluster={cluster} || true",
            f"sacctmgr -i modify account where name={team.name} set qos={team.name} "
            f"defaultqos={team.name}",
        ]
    return "\n".join(out) + "\n"


def write_slurm(
    design: Design,
    folder: Path,
    *,
    progress: Progress = no_progress,
    cluster_name: str | None = None,
    teams: Mapping[str, int] | Sequence[Team] | None = None,
    inference_nodes: int | None = None,
    dev_nodes: int | None = None,
) -> list[Path]:
    """Write slurm.conf, gres.conf, topology.conf, qos.sh, cgroup.conf and nccl.env
    into ``folder``.

    ``teams``: ``{name: gpus}`` or :class:`Team` records (default: one team with every
    GPU); ``inference_nodes``/``dev_nodes``: pool sizes (see
    :mod:`workbench.export.handoff`).  Everything is checked before a file is written.
    """
    folder = Path(folder)
    nodes = gpu_nodes(design)
    if not nodes:
        raise ExportError(folder, "the design has no GPU servers to schedule")
    check_node_names(nodes, folder)
    cluster = cluster_slug(cluster_name or design.name)
    pools = split_pools(nodes, folder, inference_nodes=inference_nodes, dev_nodes=dev_nodes)
    team_list = make_teams(teams, sum(n.gpu_count for n in nodes), folder, design)
    progress(0.1, "slurm.conf")
    conf, gres = slurm_conf(design, nodes, pools, cluster)
    progress(0.4, "topology.conf")
    topology = topology_conf(design, nodes, progress)
    progress(0.9, "qos.sh")
    files = {
        "slurm.conf": conf,
        "gres.conf": gres,
        "topology.conf": topology,
        "qos.sh": qos_script(team_list, cluster),
        "cgroup.conf": CGROUP_CONF,
        **nccl_env_files(design, nodes),
    }
    roce = roce_baseline_csv(design)
    if roce is not None:
        files["roce-baseline.csv"] = roce
    written = write_folder(folder, files)
    progress(1.0, "done")
    return written
