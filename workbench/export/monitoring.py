"""``prometheus.yml`` and ``alerts.yml``: the monitoring the site runs from day one.

The seeds hand monitoring over with the cluster: a DCGM exporter (port
:data:`DCGM_PORT`) on every GPU node and a node exporter (:data:`NODE_PORT`) on every
server, scraped over the in-band management plane at the addresses of the IP plan
(:func:`workbench.export.ip_plan.plan_addresses`, the addresses the inventory and the
checklists give).  Each target is its own ``static_configs`` entry labelled with the
node (its host name, as slurm.conf names it), its design name, its site, row and rack, the plane it is scraped over and its catalog type, so an
alert names the rack a technician walks to.

``alerts.yml`` holds the thresholds the acceptance checklist signs against, so what was
accepted is what is watched (:mod:`workbench.export.acceptance_items`):

- GPU temperature above :data:`~workbench.export.acceptance_items.MAX_GPU_TEMP_C`;
- any XID error (``DCGM_FI_DEV_XID_ERRORS`` holds the last XID, 0 when none);
- fewer GPUs reporting than the node type holds, a power limit below the GPU's (per
  node type: the checklist's ``gpu.count`` and ``gpu.power_limit``);
- NVLink CRC, replay and recovery error counters growing (the DCGM exporter exports
  them once they are listed in its counters file);
- InfiniBand symbol errors, link error recoveries and links downed growing (the node
  exporter's ``infiniband`` collector);
- the clock off NTP by more than the checklist's ``os.chrony`` mark, or unsynchronised;
- an exporter down.

Both files are checked by ``promtool check config`` / ``check rules`` in the tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from workbench.catalog.item import is_gpu_server, power_figure_w
from workbench.export.acceptance_items import MAX_GPU_TEMP_C, node_host
from workbench.export.acceptance_preflight import MAX_CLOCK_OFFSET_MS
from workbench.export.ip_plan import plan_addresses
from workbench.export.output import Progress, no_progress, write_folder
from workbench.model.design import Design

DCGM_PORT = 9400
NODE_PORT = 9100
#: The plane the exporters are scraped over.
SCRAPE_PLANE = "management"
SCRAPE_INTERVAL = "15s"
#: How long a condition holds before it pages (one scrape blip is not an incident).
HOLD = "5m"
#: The window over which a growing error counter counts.
ERROR_WINDOW = "10m"


def _targets(design: Design, where: Path) -> Iterator[tuple[str, str, dict[str, str]]]:
    """(job, host:port, labels) for every exporter of the design, in design order."""
    plan = plan_addresses(design, where=where)
    for site in design.sites:
        for row in site.rows:
            for rack in row.racks:
                for device in rack.devices:
                    item = design.device_types.get(device.device_type)
                    if item is None or item.kind != "server":
                        continue
                    address = plan.address_of(device.id, SCRAPE_PLANE)
                    if address is None:
                        continue
                    # node: the host name slurm.conf and the health check use;
                    # device: the design's name for it (they differ in case, say).
                    labels = {"node": node_host(device), "device": device.name,
                              "site": site.name, "row": row.name,
                              "rack": rack.name, "plane": SCRAPE_PLANE,
                              "node_type": item.slug}  # fmt: skip
                    if is_gpu_server(item):
                        yield "dcgm-exporter", f"{address}:{DCGM_PORT}", labels
                    yield "node-exporter", f"{address}:{NODE_PORT}", labels


def prometheus_config(design: Design, where: Path = Path("prometheus.yml")) -> dict[str, Any]:
    """The scrape configuration as data (one job per exporter kind)."""
    jobs: dict[str, list[dict[str, Any]]] = {"dcgm-exporter": [], "node-exporter": []}
    for job, target, labels in _targets(design, where):
        jobs[job].append({"targets": [target], "labels": dict(labels)})  # no YAML aliases
    cluster = re.sub(r"[^A-Za-z0-9_.-]+", "-", design.name).strip("-") or "cluster"
    return {
        "global": {
            "scrape_interval": SCRAPE_INTERVAL,
            "evaluation_interval": SCRAPE_INTERVAL,
            "external_labels": {"cluster": cluster},
        },
        "rule_files": ["alerts.yml"],
        "scrape_configs": [
            {"job_name": job, "scrape_interval": SCRAPE_INTERVAL, "static_configs": groups}
            for job, groups in jobs.items()
            if groups
        ],
    }


def _rule(name: str, expr: str, hold: str, severity: str, summary: str) -> dict[str, Any]:
    rule: dict[str, Any] = {"alert": name, "expr": expr}
    if hold:
        rule["for"] = hold
    rule["labels"] = {"severity": severity}
    rule["annotations"] = {"summary": summary}
    return rule


def alert_rules(design: Design) -> dict[str, Any]:
    """The alert rules as data (see the module docstring for each threshold)."""
    gpu_rules = [
        _rule("GpuTooHot", f"DCGM_FI_DEV_GPU_TEMP > {MAX_GPU_TEMP_C}", HOLD, "warning",
              f"GPU {{{{ $labels.gpu }}}} of {{{{ $labels.node }}}} (rack {{{{ $labels.rack }}}}) "
              f"above {MAX_GPU_TEMP_C} °C, the acceptance limit"),
        _rule("GpuXidError", "DCGM_FI_DEV_XID_ERRORS > 0", "", "critical",
              "XID {{ $value }} on GPU {{ $labels.gpu }} of {{ $labels.node }} "
              "(rack {{ $labels.rack }})"),
        _rule("NvlinkErrors",
              " or ".join(f"increase(DCGM_FI_DEV_NVLINK_{c}_ERROR_COUNT_TOTAL[{ERROR_WINDOW}]) > 0"
                          for c in ("CRC_FLIT", "REPLAY", "RECOVERY")), "", "warning",
              "NVLink errors growing on GPU {{ $labels.gpu }} of {{ $labels.node }}"),
    ]  # fmt: skip
    for slug, gpus, watts in _node_types(design):
        gpu_rules.append(
            _rule("GpuMissing", f'count by (node, rack) (DCGM_FI_DEV_GPU_TEMP{{node_type="{slug}"}})'
                  f" < {gpus}", HOLD, "critical",
                  f"{{{{ $labels.node }}}} reports {{{{ $value }}}} GPUs of {gpus}")
        )  # fmt: skip
        if watts:
            gpu_rules.append(
                _rule("GpuPowerCapped",
                      f'DCGM_FI_DEV_POWER_MGMT_LIMIT{{node_type="{slug}"}} < {watts:g}', HOLD,
                      "warning", f"GPU {{{{ $labels.gpu }}}} of {{{{ $labels.node }}}} capped "
                      f"below {watts:g} W")
            )  # fmt: skip
    ib_rules = [
        _rule(name, f"increase(node_infiniband_{metric}[{ERROR_WINDOW}]) > 0", "", "warning",
              f"{what} on {{{{ $labels.device }}}} port {{{{ $labels.port }}}} of "
              "{{ $labels.node }} (rack {{ $labels.rack }})")
        for name, metric, what in (
            ("IbSymbolErrors", "symbol_error_total", "InfiniBand symbol errors"),
            ("IbLinkErrorRecovery", "link_error_recovery_total", "InfiniBand link recoveries"),
            ("IbLinkDowned", "link_downed_total", "InfiniBand link went down"),
            ("IbPortRcvErrors", "port_errors_received_total", "InfiniBand receive errors"),
        )
    ]  # fmt: skip
    node_rules = [
        _rule("ExporterDown", 'up{job=~"dcgm-exporter|node-exporter"} == 0', HOLD, "critical",
              "{{ $labels.job }} on {{ $labels.node }} (rack {{ $labels.rack }}) is down"),
        _rule("ClockOffset", f"abs(node_timex_offset_seconds) > {MAX_CLOCK_OFFSET_MS / 1000:g}",
              HOLD, "warning", f"{{{{ $labels.node }}}} clock off NTP by more than "
              f"{MAX_CLOCK_OFFSET_MS} ms"),
        _rule("ClockUnsynchronised", "node_timex_sync_status == 0", HOLD, "warning",
              "{{ $labels.node }} clock not synchronised"),
    ]  # fmt: skip
    return {
        "groups": [
            {"name": "gpu", "rules": gpu_rules},
            {"name": "infiniband", "rules": ib_rules},
            {"name": "node", "rules": node_rules},
        ]
    }


def _node_types(design: Design) -> list[tuple[str, int, float | None]]:
    """(catalog slug, GPUs, GPU power limit in W) of each GPU server type in use."""
    seen: dict[str, tuple[str, int, float | None]] = {}
    for _rack, device in design.iter_devices():
        item = design.device_types.get(device.device_type)
        if item is None or not is_gpu_server(item) or item.slug in seen:
            continue
        gpu = design.device_types.get(item.gpu or "")
        watts = power_figure_w(gpu)
        seen[item.slug] = (item.slug, item.gpu_count, watts)
    return list(seen.values())


def _dump(data: dict[str, Any], title: str) -> str:
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    body = yaml.dump(data, Dumper=dumper, sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=100)  # fmt: skip
    return f"# {title}, written by the workbench from the design.\n{body}"


def write_monitoring(
    design: Design, folder: Path, *, progress: Progress = no_progress
) -> list[Path]:
    """Write ``prometheus.yml`` and ``alerts.yml`` into ``folder`` (all or nothing)."""
    progress(0.1, "Scrape targets")
    config = _dump(prometheus_config(design, Path(folder) / "prometheus.yml"),
                   "Prometheus scrape configuration")  # fmt: skip
    progress(0.6, "Alert rules")
    rules = _dump(alert_rules(design), "Alert rules at the acceptance thresholds")
    written = write_folder(folder, {"prometheus.yml": config, "alerts.yml": rules})
    progress(1.0, "Done")
    return written
