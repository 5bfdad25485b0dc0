"""The Slurm handoff: its text against the design, and read by a real slurmctld.

The consumer test starts Debian's ``slurmctld`` (22.05) in the foreground on loopback
with ``auth/none``, the exported NodeName/PartitionName lines, gres.conf and
topology.conf, then asks ``scontrol``/``sinfo`` what the controller understood.  Two
test-only additions make a controller without real nodes start in a second: every
NodeName line gets ``State=CLOUD`` (with ``SlurmctldParameters=cloud_dns`` the
controller then does not resolve 12,500 host names, one ten-second DNS timeout each),
and ``PrivateData=cloud`` makes powered-down cloud nodes visible to scontrol.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import re
import shutil
import socket
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from handoff_designs import mixed_h100_a100

from workbench.export.handoff import Team, gpu_nodes, split_pools
from workbench.export.hostlist import compress, expand
from workbench.export.output import ExportError
from workbench.export.slurm import write_slurm
from workbench.templates import build_template

HAVE_SLURMCTLD = shutil.which("slurmctld") is not None and shutil.which("scontrol") is not None


@pytest.fixture(scope="module")
def superpod():
    """A rail-optimised SuperPOD: 128 DGX nodes in 4 scalable units of 8 rail leaves."""
    return build_template("dgx-h100-superpod", gpus=1024)


@pytest.fixture(scope="module")
def exported(superpod, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("slurm") / "out"
    write_slurm(superpod, folder, teams={"team-a": 128, "team-b": 64}, cluster_name="pod1")
    return folder


def _lines(path: Path, key: str) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.startswith(key + "=")]


def _field(line: str, key: str) -> str:
    found = re.search(rf"(?:^|\s){key}=(\S+)", line)
    assert found is not None, f"{key} missing in {line!r}"
    return found.group(1)


# -- hostlists -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "names",
    [
        [f"gpu{i:05d}" for i in range(1, 129)],
        ["gpu9", "gpu10", "gpu11", "login", "gpu00001", "gpu00003", "gpu00002"],
        ["a1b2", "a1b3", "x", "rack-a01-n7", "rack-a01-n8"],
    ],
)
def test_hostlist_round_trip(names, tmp_path):
    text = compress(names)
    assert sorted(expand(text)) == sorted(set(names))
    if HAVE_SLURMCTLD:  # Slurm's own expander must agree (scontrol wants some config)
        conf = tmp_path / "slurm.conf"
        conf.write_text("ClusterName=x\nSlurmctldHost=localhost\n")
        out = subprocess.run(
            ["scontrol", "show", "hostnames", text],
            env=dict(os.environ, SLURM_CONF=str(conf)),
            capture_output=True,
            text=True,
            check=True,
        )
        assert sorted(out.stdout.split()) == sorted(set(names))


def test_hostlist_compresses_ranges():
    assert compress(f"gpu{i:05d}" for i in range(1, 129)) == "gpu[00001-00128]"
    assert compress(["n1", "n2", "n4", "n5", "n9"]) == "n[1-2,4-5,9]"


# -- text against the design -------------------------------------------------------------
def test_nodes_and_gres_match_design(superpod, exported):
    nodes = gpu_nodes(superpod)
    lines = _lines(exported / "slurm.conf", "NodeName")
    listed = [name for line in lines for name in expand(_field(line, "NodeName"))]
    assert sorted(listed) == sorted(n.name for n in nodes)
    assert all(_field(line, "Gres") == "gpu:h100:8" for line in lines)
    assert all(_field(line, "CPUs") == "224" for line in lines)
    # 2048 GiB less the 5 % OS margin, in MiB.
    assert all(int(_field(line, "RealMemory")) == int(2048 * 1024 * 0.95) for line in lines)
    assert len(lines) == 1, "identical servers share one NodeName line"
    gres = _lines(exported / "gres.conf", "NodeName")
    assert sorted(n for g in gres for n in expand(_field(g, "NodeName"))) == sorted(listed)
    assert all("File=/dev/nvidia[0-7]" in g and "Type=h100" in g for g in gres)


def test_partitions_are_disjoint_and_cover_every_node(superpod, exported):
    parts = {
        _field(p, "PartitionName"): p for p in _lines(exported / "slurm.conf", "PartitionName")
    }
    assert set(parts) == {"training", "inference", "dev"}
    members = {name: expand(_field(line, "Nodes")) for name, line in parts.items()}
    assert Counter(len(v) for v in members.values()) == Counter([108, 16, 4])
    every = [n for names in members.values() for n in names]
    assert sorted(every) == sorted(n.name for n in gpu_nodes(superpod))
    assert "MaxTime=10-00:00:00" in parts["training"] and "Default=YES" in parts["training"]
    assert "OverSubscribe=NO" in parts["inference"]
    text = (exported / "slurm.conf").read_text()
    assert "ReturnToService=2" in text and "GresTypes=gpu" in text


def test_qos_script_per_team(exported):
    text = (exported / "qos.sh").read_text()
    assert "sacctmgr -i modify qos where name=team-a set GrpTRES=gres/gpu=128" in text
    assert "name=team-b set GrpTRES=gres/gpu=64 MaxSubmitJobsPerUser=20" in text
    assert "not in slurm.conf" in text


def test_topology_groups_rail_leaves(superpod, exported):
    switches = _lines(exported / "topology.conf", "SwitchName")
    leaves = [s for s in switches if " Nodes=" in s]
    assert len(leaves) == 4  # one virtual switch per scalable unit
    placed = [n for s in leaves for n in expand(_field(s, "Nodes"))]
    assert sorted(placed) == sorted(n.name for n in gpu_nodes(superpod))  # each node once
    tops = [s for s in switches if " Switches=" in s]
    assert len(tops) == 1 and expand(_field(tops[0], "Switches")) == [
        _field(s, "SwitchName") for s in leaves
    ]


def test_bad_options_write_nothing(superpod, tmp_path):
    target = tmp_path / "out"
    with pytest.raises(ExportError, match="team 'Team A'"):
        write_slurm(superpod, target, teams={"Team A": 8})
    with pytest.raises(ExportError, match="exceed the design's 128 GPU nodes"):
        write_slurm(superpod, target, inference_nodes=100, dev_nodes=100)
    with pytest.raises(ExportError, match="gpus must be a whole number"):
        write_slurm(superpod, target, teams=[Team("a", 0)])
    assert not target.exists()


def test_node_names_are_mapped_to_host_names_and_the_file_says_so(tmp_path):
    design = build_template("hgx-h100-air")
    _rack, device = design.find_device(gpu_nodes(design)[0].device_id)
    device.name = "GPU 1"
    write_slurm(design, tmp_path / "out")
    conf = (tmp_path / "out" / "slurm.conf").read_text()
    assert "#   gpu-1 = GPU 1" in conf
    hosts = [h for line in conf.splitlines() if line.startswith("NodeName=")
             for h in expand(line.split()[0].removeprefix("NodeName="))]  # fmt: skip
    assert "gpu-1" in hosts and all(h == h.lower() for h in hosts)


def test_a_name_no_host_name_carries_is_refused(tmp_path):
    design = build_template("hgx-h100-air")
    _rack, device = design.find_device(gpu_nodes(design)[0].device_id)
    device.name = "_gpu1"  # '-gpu1' after mapping: no host name starts with '-'
    with pytest.raises(ExportError, match="'_gpu1' cannot be made a host name"):
        write_slurm(design, tmp_path / "out")


def test_small_designs_get_no_empty_pools_by_mistake(superpod, tmp_path):
    nodes = gpu_nodes(superpod)[:3]
    pools = split_pools(nodes, tmp_path)
    assert [len(pools[p]) for p in ("training", "inference", "dev")] == [3, 0, 0]


# -- the real consumer ---------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def _slurmctld(exported: Path, work: Path):
    """A running slurmctld reading the export; yields the environment for scontrol."""
    state = work / "state"
    state.mkdir()
    preamble = f"""SlurmctldHost=localhost
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
AuthType=auth/none
CredType=cred/none
SlurmUser={getpass.getuser()}
StateSaveLocation={state}
SlurmdSpoolDir={work / "spool"}
SlurmctldPidFile={work / "slurmctld.pid"}
SlurmctldLogFile={work / "slurmctld.log"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
SlurmctldParameters=cloud_dns
PrivateData=cloud
"""
    body = []
    for line in (exported / "slurm.conf").read_text().splitlines():
        body.append(line + " State=CLOUD" if line.startswith("NodeName=") else line)
    (work / "slurm.conf").write_text(preamble + "\n".join(body) + "\n")
    for name in ("gres.conf", "topology.conf", "cgroup.conf"):
        shutil.copy(exported / name, work / name)
    env = dict(os.environ, SLURM_CONF=str(work / "slurm.conf"))
    daemon = subprocess.Popen(
        ["slurmctld", "-D", "-i"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            ping = subprocess.run(["scontrol", "ping"], env=env, capture_output=True, text=True)
            if "UP" in ping.stdout:
                break
            log = work / "slurmctld.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            assert daemon.poll() is None, f"slurmctld exited: {tail}"
            assert time.monotonic() < deadline, f"slurmctld did not answer: {tail}"
            time.sleep(0.1)
        yield env
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=5)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()


def _scontrol(env, *args: str) -> str:
    return subprocess.run(
        ["scontrol", *args], env=env, capture_output=True, text=True, check=True, timeout=10
    ).stdout


@pytest.mark.skipif(
    not HAVE_SLURMCTLD, reason="slurmctld not installed (apt-get install slurmctld slurm-client)"
)
def test_slurmctld_reads_the_export(superpod, exported, tmp_path):
    nodes = {n.name: n for n in gpu_nodes(superpod)}
    with _slurmctld(exported, tmp_path) as env:
        shown = {}
        for line in _scontrol(env, "-o", "show", "nodes").splitlines():
            shown[_field(line, "NodeName")] = line
        topology = _scontrol(env, "show", "topology")
        partitions = subprocess.run(
            ["sinfo", "-h", "-o", "%R %D"], env=env, capture_output=True, text=True, check=True
        ).stdout
    assert sorted(shown) == sorted(nodes)
    for line in shown.values():
        assert _field(line, "Gres") == "gpu:h100:8", line
        assert _field(line, "CPUTot") == "224", line  # 2 x 56 cores x 2 threads
    sizes = dict(line.split() for line in partitions.splitlines())
    assert sizes == {"training": "108", "inference": "16", "dev": "4"}
    expected = {
        _field(s, "SwitchName"): sorted(expand(_field(s, "Nodes")))
        for s in _lines(exported / "topology.conf", "SwitchName")
        if " Nodes=" in s
    }
    leaves = {}
    for line in topology.splitlines():
        if "Level=0" in line:
            leaves[_field(line, "SwitchName")] = sorted(expand(_field(line, "Nodes")))
    assert leaves == expected
    top = [line for line in topology.splitlines() if "Level=1" in line]
    assert len(top) == 1 and sorted(expand(_field(top[0], "Nodes"))) == sorted(nodes)


def test_single_leaf_fabric_keeps_switch_names_and_lists_uncabled_nodes(tmp_path):
    design = build_template("hgx-h100-air")
    first = gpu_nodes(design)[0]
    # Keep only rail 0 and unplug the first node: one physical leaf, one uncabled node.
    design.links = [
        link
        for link in design.links
        if not (link.a_port.startswith("compute") and link.a_port != "compute0")
        and first.device_id not in (link.a_device, link.b_device)
    ]
    design.reindex()
    write_slurm(design, tmp_path / "out")
    text = (tmp_path / "out" / "topology.conf").read_text()
    (leaf,) = [line for line in text.splitlines() if " Nodes=" in line]
    assert leaf == "SwitchName=cmp-leaf-su01-r1 Nodes=gpu[00002-00008]"
    assert f"single-node jobs only): {first.name}" in text


# -- issue 24: a cluster admin's Slurm ---------------------------------------------------
@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    """A DGX H100 SuperPOD plus a rack of DGX A100 nodes, exported."""
    folder = tmp_path_factory.mktemp("mixed") / "out"
    write_slurm(mixed_h100_a100(), folder, inference_nodes=2, dev_nodes=1)
    return folder


def test_partitions_split_by_gpu_model(mixed):
    """Before: one partition held both models (Nodes=gpu[00001-00008],gpu-a100-0)."""
    nodes = {
        _field(n, "NodeName"): _field(n, "Gres") for n in _lines(mixed / "slurm.conf", "NodeName")
    }
    model_of = {name: gres for hostlist, gres in nodes.items() for name in expand(hostlist)}
    parts = _lines(mixed / "slurm.conf", "PartitionName")
    names = [_field(p, "PartitionName") for p in parts]
    assert names == ["training-h100", "training-a100", "inference-a100", "dev-a100"]
    for line in parts:
        members = expand(_field(line, "Nodes"))
        assert len({model_of[m] for m in members}) == 1, line
        assert _field(line, "PartitionName").split("-")[-1] in model_of[members[0]]
    assert [p for p in parts if " Default=YES " in p] == [parts[0]]


def test_cpu_layout_from_the_catalog_with_threads(mixed):
    """Before: CPUs=112 ThreadsPerCore=1 on a DGX H100, which has 224 threads."""
    lines = {_field(n, "Gres"): n for n in _lines(mixed / "slurm.conf", "NodeName")}
    h100, a100 = lines["gpu:h100:8"], lines["gpu:a100:8"]
    assert [_field(h100, k) for k in ("CPUs", "Sockets", "CoresPerSocket", "ThreadsPerCore")] == [
        "224", "2", "56", "2"]  # fmt: skip
    assert [_field(a100, k) for k in ("CPUs", "Sockets", "CoresPerSocket", "ThreadsPerCore")] == [
        "256", "2", "64", "2"]  # fmt: skip
    item = build_template("dgx-h100-superpod", gpus=8).device_types["nvidia-dgx-h100"]
    assert all(item.sources.get(k) for k in ("cpu_sockets", "cores_per_socket", "threads_per_core"))


def test_cgroup_conf_constrains_devices_and_cores(mixed):
    """Before: no cgroup.conf, so a job could see every GPU of its node."""
    conf = dict(
        line.split("=", 1)
        for line in (mixed / "cgroup.conf").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert conf["ConstrainDevices"] == "yes" and conf["ConstrainCores"] == "yes"
    text = (mixed / "slurm.conf").read_text()
    assert "ProctrackType=proctrack/cgroup" in text and "TaskPlugin=task/cgroup" in text


def test_nccl_env_names_the_compute_hcas(mixed):
    """Before: no NCCL environment for Slurm jobs (NCCL would pick any interface)."""
    env = {}
    for line in (mixed / "nccl.env").read_text().splitlines():
        if line.startswith("export "):
            key, value = line[len("export ") :].split("=", 1)
            env[key] = value.strip('"')
    assert env["NCCL_IB_HCA"] == "=" + ",".join(f"mlx5_{i}" for i in range(8))
    assert env["NCCL_SOCKET_IFNAME"] == "mgmt0" and env["NCCL_IB_DISABLE"] == "0"
    assert "NCCL_IB_GID_INDEX" not in env  # InfiniBand: no RoCE GID
    assert (mixed / "nccl-nvidia-dgx-a100.env").exists()


@pytest.mark.skipif(
    not HAVE_SLURMCTLD, reason="slurmctld not installed (apt-get install slurmctld slurm-client)"
)
def test_slurmctld_reads_the_mixed_export(mixed, tmp_path):
    with _slurmctld(mixed, tmp_path) as env:
        shown = {}
        for line in _scontrol(env, "-o", "show", "nodes").splitlines():
            shown[_field(line, "NodeName")] = line
        partitions = subprocess.run(
            ["sinfo", "-h", "-o", "%R %D %G"], env=env, capture_output=True, text=True, check=True
        ).stdout
    assert len(shown) == 36
    assert _field(shown["gpu00001"], "CPUTot") == "224"
    assert _field(shown["gpu00001"], "ThreadsPerCore") == "2"
    assert _field(shown["gpu-a100-0"], "CPUTot") == "256"
    sizes = {line.split()[0]: line.split()[1:] for line in partitions.splitlines()}
    assert sizes == {
        "training-h100": ["32", "gpu:h100:8"],
        "training-a100": ["1", "gpu:a100:8"],
        "inference-a100": ["2", "gpu:a100:8"],
        "dev-a100": ["1", "gpu:a100:8"],
    }


def test_health_check_runs_srun_in_the_partitions_slurm_conf_gives(tmp_path):
    """Before: health_check.sh ran ``srun -p training`` although a mixed design's
    slurm.conf holds ``training-h100``/``training-a100`` and no ``training``: every
    node's 2-node job is now sent to the partition slurm.conf puts that node in."""
    from workbench.export.health_check import write_health_check

    design = mixed_h100_a100()
    write_slurm(design, tmp_path / "slurm")
    write_health_check(design, tmp_path / "hc")
    partition_of = {
        name: _field(line, "PartitionName")
        for line in _lines(tmp_path / "slurm" / "slurm.conf", "PartitionName")
        for name in expand(_field(line, "Nodes"))
    }
    rows = [
        row.split(",")
        for row in (tmp_path / "hc" / "expected.csv").read_text().splitlines()[1:]
        if row.split(",")[1] == "sched.srun_world"
    ]
    assert {row[0] for row in rows} == set(partition_of)
    for node, _item, _op, _want, param in rows:
        partition, _, per_node = param.rpartition(":")
        assert partition == partition_of[node], (node, param)
        assert int(per_node) > 0
    assert "training" not in partition_of.values() and len(set(partition_of.values())) > 2
    script = (tmp_path / "hc" / "health_check.sh").read_text()
    assert "srun -p training " not in script
