"""The health check and the acceptance import name GPU nodes as Slurm does.

A design named by the default pattern (``gpu-server-A01-u2``: capitals) gets host
names from ``text_rules.node_hostname`` in slurm.conf (``gpu-server-a01-u2``).  Before,
``expected.csv`` kept the design's names, so ``health_check.sh`` on the node (which
matches ``hostname -s``) found no items, its ``sinfo -n``/``kubectl get node`` asked
about a node no scheduler knows, and results named by host name were refused on import.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import pytest

from workbench.export.acceptance import ResultsError, read_results
from workbench.export.acceptance_items import node_checklists
from workbench.export.handoff import gpu_nodes
from workbench.export.health_check import write_health_check
from workbench.export.hostlist import expand
from workbench.export.output import ExportError
from workbench.export.slurm import write_slurm
from workbench.model import requests
from workbench.templates import build_template


@pytest.fixture
def patterned():
    """The HGX template with every GPU server named by the design's own pattern."""
    design = build_template("hgx-h100-air")
    for node in gpu_nodes(design):
        rack, device = design.find_device(node.device_id)
        item = design.device_types[device.device_type]
        taken = {d.name for _r, d in design.iter_devices() if d.id != device.id}
        device.name = requests.device_name(design, item, rack, device.position, taken)
    return design


def _slurm_hosts(folder: Path) -> set[str]:
    conf = (folder / "slurm.conf").read_text()
    return {
        host
        for line in conf.splitlines()
        if line.startswith("NodeName=")
        for host in expand(line.split()[0].removeprefix("NodeName="))
    }


def _expected_nodes(folder: Path) -> set[str]:
    with (folder / "expected.csv").open() as f:
        return {row["node"] for row in csv.DictReader(f)}


def test_health_check_nodes_are_slurm_node_names(patterned, tmp_path: Path) -> None:
    names = {d.name for _r, d in patterned.iter_devices() if d.name.startswith("gpu-server-")}
    assert names and all(n != n.lower() for n in names)  # the pattern's capitals
    write_slurm(patterned, tmp_path / "slurm")
    write_health_check(patterned, tmp_path / "hc")
    hosts = _slurm_hosts(tmp_path / "slurm")
    assert _expected_nodes(tmp_path / "hc") == hosts
    assert hosts == {n.lower() for n in names}


def test_scheduler_commands_ask_about_the_host_name(patterned) -> None:
    for device, items in node_checklists(patterned):
        host = device.name.lower()
        commands = {i.id: i.command for i in items}
        assert f"sinfo -h -n {host} " in commands["sched.sinfo"]
        assert f"scontrol show node {host} " in commands["sched.gres"]
        assert f"kubectl get node {host} " in commands["sched.k8s_gpus"]
        assert device.name not in " ".join(commands.values())


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_results_by_host_name_attach_to_the_design_device(patterned, tmp_path: Path) -> None:
    device = next(d for _r, d in patterned.iter_devices() if d.name.startswith("gpu-server-"))
    host = device.name.lower()
    write_health_check(patterned, tmp_path / "hc")
    out = tmp_path / "results"
    run = subprocess.run(
        ["bash", str(tmp_path / "hc" / "health_check.sh"), "-n", host, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert run.returncode in (0, 1), run.stderr  # 1: some item failed on this machine
    with (out / f"results-{host}.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert rows and {r["node"] for r in rows} == {host}
    plan = read_results(patterned, out, now="2026-11-05T00:00:00Z")
    assert [(r.node, r.item) for r in plan.results] == [(device.name, r["item"]) for r in rows]


def test_results_by_design_name_still_attach(patterned, tmp_path: Path) -> None:
    device = next(d for _r, d in patterned.iter_devices() if d.name.startswith("gpu-server-"))
    (tmp_path / "results-x.csv").write_text(
        "node,item,measured,verdict,timestamp\n"
        f"{device.name},gpu.count,8,PASS,2026-11-02T10:00:00Z\n"
        f"{device.name.lower()},gpu.driver,550.54.15,PASS,2026-11-02T10:00:00Z\n"
    )
    plan = read_results(patterned, tmp_path)
    assert [r.node for r in plan.results] == [device.name, device.name]


def test_a_host_name_two_nodes_share_is_refused(patterned, tmp_path: Path) -> None:
    first, second = gpu_nodes(patterned)[:2]
    _rack, a = patterned.find_device(first.device_id)
    _rack, b = patterned.find_device(second.device_id)
    a.name, b.name = "GPU-1", "gpu_1"  # both map to 'gpu-1'
    with pytest.raises(ExportError, match="share the host name 'gpu-1'"):
        write_health_check(patterned, tmp_path / "hc")
    assert not (tmp_path / "hc").exists()
    (tmp_path / "results-gpu-1.csv").write_text(
        "node,item,measured,verdict,timestamp\ngpu-1,gpu.count,8,PASS,2026-11-02T10:00:00Z\n"
    )
    with pytest.raises(ResultsError, match="'gpu-1' is shared by several GPU nodes"):
        read_results(patterned, tmp_path)


def test_monitoring_labels_nodes_by_their_slurm_host_names(patterned, tmp_path: Path) -> None:
    import yaml

    from workbench.export.monitoring import write_monitoring

    write_slurm(patterned, tmp_path / "slurm")
    write_monitoring(patterned, tmp_path / "mon")
    config = yaml.safe_load((tmp_path / "mon" / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job["static_configs"] for job in config["scrape_configs"]}
    labels = [g["labels"] for g in jobs["dcgm-exporter"]]
    assert {lab["node"] for lab in labels} == _slurm_hosts(tmp_path / "slurm")
    assert all(lab["node"] == lab["device"].lower() != lab["device"] for lab in labels)
