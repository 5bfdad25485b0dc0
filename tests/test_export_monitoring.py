"""Monitoring handoff: prometheus.yml scrape jobs and alerts.yml at the checklist's marks,
read by the real consumer (Debian's prometheus package: promtool)."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml
from cli_helpers import run

from workbench.export.ip_plan import plan_addresses
from workbench.export.monitoring import write_monitoring
from workbench.templates.builder import sample_design

promtool = pytest.mark.skipif(shutil.which("promtool") is None, reason="needs promtool")


@pytest.fixture(scope="module")
def design():
    return sample_design()


@pytest.fixture(scope="module")
def folder(design, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mon") / "monitoring"
    write_monitoring(design, out)
    return out


def test_every_node_scraped_at_its_planned_address(design, folder: Path) -> None:
    config = yaml.safe_load((folder / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job["static_configs"] for job in config["scrape_configs"]}
    plan = plan_addresses(design)
    gpu_nodes = [(r, d) for r, d in design.iter_devices() if d.name.startswith("gpu")]
    dcgm = {g["labels"]["node"]: g for g in jobs["dcgm-exporter"]}
    assert len(dcgm) == len(gpu_nodes) == 128
    rack, node = gpu_nodes[0]
    entry = dcgm[node.name]
    assert entry["targets"] == [f"{plan.address_of(node.id, 'management')}:9400"]
    assert entry["labels"]["rack"] == rack.name and entry["labels"]["plane"] == "management"
    assert entry["labels"]["row"].startswith("Row ")
    nodes = {g["labels"]["node"] for g in jobs["node-exporter"]}
    assert nodes > set(dcgm)  # storage and services servers get a node exporter too
    assert "&id" not in (folder / "prometheus.yml").read_text()  # no YAML aliases


@promtool
def test_promtool_accepts_config_and_rules(folder: Path) -> None:
    for args in (["check", "config", "prometheus.yml"], ["check", "rules", "alerts.yml"]):
        run = subprocess.run(["promtool", *args], cwd=folder, capture_output=True, text=True,
                             timeout=120)  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr


@promtool
def test_alerts_fire_at_the_checklist_thresholds(folder: Path, tmp_path: Path) -> None:
    """promtool's rule unit tests: each threshold fires above the mark and not at it."""
    labels = 'node="gpu00001",rack="A01",node_type="nvidia-dgx-h100"'
    tests = textwrap.dedent(f"""\
        rule_files: [{folder / 'alerts.yml'}]
        evaluation_interval: 1m
        tests:
          - interval: 1m
            input_series:
              - series: 'DCGM_FI_DEV_GPU_TEMP{{{labels},gpu="0"}}'
                values: '81x10'
              - series: 'DCGM_FI_DEV_GPU_TEMP{{{labels},gpu="1"}}'
                values: '80x10'
              - series: 'DCGM_FI_DEV_XID_ERRORS{{{labels},gpu="2"}}'
                values: '0 0 79x8'
              - series: 'node_infiniband_symbol_error_total{{{labels},device="mlx5_3",port="1"}}'
                values: '5 5 5 9 9 9 9 9 9 9 9'
            alert_rule_test:
              - eval_time: 7m
                alertname: GpuTooHot
                exp_alerts:
                  - exp_labels: {{{labels.replace('=', ': ')}, gpu: "0", severity: warning}}
                    exp_annotations:
                      summary: GPU 0 of gpu00001 (rack A01) above 80 °C, the acceptance limit
              - eval_time: 7m
                alertname: GpuXidError
                exp_alerts:
                  - exp_labels: {{{labels.replace('=', ': ')}, gpu: "2", severity: critical}}
                    exp_annotations:
                      summary: XID 79 on GPU 2 of gpu00001 (rack A01)
              - eval_time: 7m
                alertname: GpuMissing
                exp_alerts:
                  - exp_labels: {{node: gpu00001, rack: A01, severity: critical}}
                    exp_annotations:
                      summary: gpu00001 reports 2 GPUs of 8
              - eval_time: 5m
                alertname: IbSymbolErrors
                exp_alerts:
                  - exp_labels: {{{labels.replace('=', ': ')}, device: mlx5_3, port: "1", severity: warning}}
                    exp_annotations:
                      summary: InfiniBand symbol errors on mlx5_3 port 1 of gpu00001 (rack A01)
        """)  # fmt: skip
    (tmp_path / "t.yml").write_text(tests)
    run = subprocess.run(["promtool", "test", "rules", str(tmp_path / "t.yml")],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def test_cli_writes_monitoring_files(tmp_path: Path) -> None:
    from workbench.store import save_design

    project = tmp_path / "s.dcwb"
    save_design(sample_design(), project)
    result = run("export", str(project), "--monitoring", str(tmp_path / "mon"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "mon" / "prometheus.yml").is_file()
    assert (tmp_path / "mon" / "alerts.yml").is_file()
