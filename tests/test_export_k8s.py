"""The Kubernetes handoff: every document parses, uses the API's field names, carries
valid labels, and its counts equal the design."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from handoff_designs import mixed_h100_a100

from workbench.export.handoff import gpu_nodes
from workbench.export.k8s import label_value, write_k8s
from workbench.export.output import ExportError
from workbench.templates import build_template

# Kubernetes label syntax (apimachinery validation): optional DNS-subdomain prefix of
# at most 253 characters, a name of at most 63, a value of at most 63.
_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
EFFECTS = {"NoSchedule", "PreferNoSchedule", "NoExecute"}


def valid_key(key: str) -> bool:
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not all(_DNS_LABEL.match(p) for p in prefix.split("."))):
        return False
    return len(name) <= 63 and bool(_NAME.match(name))


def valid_value(value: str) -> bool:
    return value == "" or (len(value) <= 63 and bool(_NAME.match(value)))


@pytest.fixture(scope="module")
def superpod():
    return build_template("dgx-h100-superpod", gpus=1024)


@pytest.fixture(scope="module")
def exported(superpod, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("k8s") / "out"
    write_k8s(superpod, folder, teams={"team-a": 128, "team-b": 64})
    return folder


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def test_nodes_follow_the_api_and_the_design(superpod, exported):
    docs = _docs(exported / "nodes.yaml")
    nodes = gpu_nodes(superpod)
    assert [d["metadata"]["name"] for d in docs] == [n.name for n in nodes]
    pools = Counter()
    for doc in docs:
        assert doc["apiVersion"] == "v1" and doc["kind"] == "Node"
        assert set(doc) <= {"apiVersion", "kind", "metadata", "spec"}
        assert set(doc["metadata"]) == {"name", "labels"}
        labels = doc["metadata"]["labels"]
        for key, value in labels.items():
            assert isinstance(value, str) and valid_key(key) and valid_value(value), (key, value)
        assert labels["accelerator"] == "h100-sxm5-80gb"
        assert labels["gpu.workbench/gpu-count"] == "8"
        assert labels["topology.kubernetes.io/zone"].startswith("row-")
        pools[labels["pool"]] += 1
        taints = doc.get("spec", {}).get("taints", [])
        for taint in taints:
            assert set(taint) == {"key", "value", "effect"} and taint["effect"] in EFFECTS
        if labels["pool"] == "training":
            assert taints == [{"key": "dedicated", "value": "training", "effect": "NoSchedule"}]
        else:
            assert "spec" not in doc  # never clears a control-plane taint
    assert pools == {"training": 108, "inference": 16, "dev": 4}


def test_quota_per_team(exported):
    docs = _docs(exported / "quotas.yaml")
    quotas = {d["metadata"]["namespace"]: d for d in docs if d["kind"] == "ResourceQuota"}
    spaces = {d["metadata"]["name"] for d in docs if d["kind"] == "Namespace"}
    assert spaces == set(quotas) == {"team-a", "team-b"}
    assert quotas["team-a"]["spec"]["hard"] == {"requests.nvidia.com/gpu": "128"}
    assert quotas["team-b"]["spec"]["hard"] == {"requests.nvidia.com/gpu": "64"}
    assert all(d["apiVersion"] == "v1" for d in docs if d["kind"] != "PriorityClass")
    classes = {d["metadata"]["name"]: d["value"] for d in docs if d["kind"] == "PriorityClass"}
    assert classes == {"team-a-priority": 1, "team-b-priority": 1}


def test_design_teams_become_quotas_and_qos(tmp_path):
    """Before issue 24: teams existed only in the Python API, so the files always held
    one "default" team.  The design's teams (a count or a share, and a priority) now
    reach both handoffs."""
    from workbench.export.slurm import write_slurm
    from workbench.model import Team, ops
    from workbench.model.team_ops import AddTeam

    design = build_template("dgx-h100-superpod", gpus=256)  # 256 GPUs
    ops.apply(design, AddTeam(Team("team-1", "llm", gpus=128, priority=50)))
    ops.apply(design, AddTeam(Team("team-2", "research", share=0.25, priority=10)))
    write_k8s(design, tmp_path / "k8s")
    write_slurm(design, tmp_path / "slurm")
    docs = _docs(tmp_path / "k8s" / "quotas.yaml")
    quotas = {
        d["metadata"]["namespace"]: d["spec"]["hard"] for d in docs if d["kind"] == "ResourceQuota"
    }
    assert quotas == {
        "llm": {"requests.nvidia.com/gpu": "128"},
        "research": {"requests.nvidia.com/gpu": "64"},
    }
    classes = {d["metadata"]["name"]: d["value"] for d in docs if d["kind"] == "PriorityClass"}
    assert classes == {"llm-priority": 50, "research-priority": 10}
    qos = (tmp_path / "slurm" / "qos.sh").read_text()
    assert "GrpTRES=gres/gpu=128" in qos and "Priority=50" in qos
    assert "GrpTRES=gres/gpu=64" in qos and "Priority=10" in qos and "qos default" not in qos


def test_pod_template_is_guaranteed_with_memory_shm(exported):
    (doc,) = _docs(exported / "pod-template.yaml")
    assert doc["apiVersion"] == "v1" and doc["kind"] == "PodTemplate"
    spec = doc["template"]["spec"]
    (container,) = spec["containers"]
    assert container["resources"]["requests"] == container["resources"]["limits"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "8"
    (mount,) = container["volumeMounts"]
    assert mount["mountPath"] == "/dev/shm"
    (volume,) = spec["volumes"]
    assert volume["name"] == mount["name"] and volume["emptyDir"]["medium"] == "Memory"
    assert spec["tolerations"][0]["effect"] == "NoSchedule"
    assert spec["nodeSelector"] == {"accelerator": "h100-sxm5-80gb", "pool": "training"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("Row A", "row-a"), ("--A01--", "a01"), ("x" * 80, "x" * 63), ("Hall 1 / 2", "hall-1-2")],
)
def test_label_value_is_valid(text, expected):
    assert label_value(text) == expected and valid_value(expected)


def test_uppercase_node_name_is_mapped_and_annotated(tmp_path):
    design = build_template("hgx-h100-air")
    _rack, device = design.find_device(gpu_nodes(design)[0].device_id)
    device.name = "GPU01"
    write_k8s(design, tmp_path / "out")
    docs = [d for d in yaml.safe_load_all((tmp_path / "out" / "nodes.yaml").read_text()) if d]
    (mine,) = [d for d in docs if d["metadata"].get("annotations")]
    assert mine["metadata"]["name"] == "gpu01"
    assert mine["metadata"]["annotations"] == {"gpu.workbench/design-name": "GPU01"}


def test_names_that_collide_after_mapping_refused_before_writing(tmp_path):
    design = build_template("hgx-h100-air")
    first, second = gpu_nodes(design)[:2]
    design.find_device(first.device_id)[1].name = "GPU01"
    design.find_device(second.device_id)[1].name = "gpu01"
    with pytest.raises(ExportError, match=f"{first.device_id}.*{second.device_id}.*'gpu01'"):
        write_k8s(design, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# -- issue 24: ready for RDMA, checked by the Kubernetes schema ----------------------------
HAVE_VALIDATOR = (
    shutil.which("kubernetes-validate") is not None
    or (Path(sys.executable).parent / "kubernetes-validate").exists()
)


def _validate(folder: Path) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("kubernetes-validate") or str(
        Path(sys.executable).parent / "kubernetes-validate"
    )
    files = sorted(str(p) for p in folder.glob("*.yaml"))
    return subprocess.run(
        [tool, "--strict", "--quiet", *files], capture_output=True, text=True, timeout=120
    )


def _container(folder: Path) -> dict:
    docs = _docs(folder / "pod-template.yaml")
    return docs[0]["template"]["spec"]["containers"][0]


def test_pod_template_requests_rdma_and_ipc_lock(exported):
    """Before: no RDMA device, no IPC_LOCK, no NCCL environment: NCCL fell back to TCP."""
    container = _container(exported)
    assert container["resources"]["limits"]["rdma/rdma_compute"] == "1"
    assert container["securityContext"]["capabilities"]["add"] == ["IPC_LOCK"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["NCCL_IB_HCA"] == "=" + ",".join(f"mlx5_{i}" for i in range(8))
    assert env["NCCL_SOCKET_IFNAME"] == "mgmt0"
    assert "NCCL_IB_GID_INDEX" not in env
    (plugin,) = _docs(exported / "rdma-shared-device-plugin.yaml")
    config = json.loads(plugin["data"]["config.json"])
    assert config["configList"][0]["resourceName"] == "rdma_compute"


def test_roce_pod_template_sets_the_gid_index(tmp_path):
    design = build_template("hgx-h100-air")
    write_k8s(design, tmp_path / "out")
    env = {e["name"]: e["value"] for e in _container(tmp_path / "out")["env"]}
    assert env["NCCL_IB_GID_INDEX"] == "3" and env["NCCL_IB_TC"] == "104"


@pytest.mark.skipif(not HAVE_VALIDATOR, reason="pip install kubernetes-validate")
@pytest.mark.parametrize("template", ["dgx-h100-superpod", "hgx-h100-air", "mixed"])
def test_kubernetes_validate_strict_accepts_every_file(template, tmp_path):
    design = mixed_h100_a100() if template == "mixed" else build_template(template)
    write_k8s(design, tmp_path / "out", teams={"team-a": 16, "team-b": 8})
    assert {p.name for p in (tmp_path / "out").glob("*.yaml")} >= {
        "nodes.yaml", "quotas.yaml", "pod-template.yaml", "rdma-shared-device-plugin.yaml"}  # fmt: skip
    result = _validate(tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(not HAVE_VALIDATOR, reason="pip install kubernetes-validate")
def test_kubernetes_validate_strict_catches_a_wrong_field(tmp_path):
    """The consumer is real: a misspelt field fails it."""
    write_k8s(build_template("hgx-h100-air"), tmp_path / "out")
    path = tmp_path / "out" / "pod-template.yaml"
    path.write_text(path.read_text().replace("securityContext:", "securityContxt:"))
    assert _validate(tmp_path / "out").returncode != 0
