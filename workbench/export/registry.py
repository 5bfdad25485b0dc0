"""The exports a design has, in one table: the command line's options and the window's
File ▸ Export menu are both built from it, so they cannot offer different exports."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ExportKind:
    """One export: its option, the module and function that write it, what it makes."""

    option: str
    module: str
    function: str
    metavar: str
    help: str

    @property
    def dest(self) -> str:
        return self.option.lstrip("-").replace("-", "_")


#: Every export, in the order they run and appear in ``--help`` and the File menu.
EXPORTS: tuple[ExportKind, ...] = (
    ExportKind("--bom", "workbench.export.bom", "write_bom", "X.xlsx",
               "bill of materials for procurement (prices and totals as formulas)"),
    ExportKind("--inventory", "workbench.export.inventory", "write_inventory", "X.xlsx",
               "one row per device: place, serial, asset tag, addresses, baseline"),
    ExportKind("--cables", "workbench.export.cables", "write_cables", "X.xlsx",
               "cable schedule and pull list for installers"),
    ExportKind("--ip-plan", "workbench.export.ip_plan", "write_ip_plan", "X.xlsx",
               "subnets per plane and one address per interface"),
    ExportKind("--asbuilt", "workbench.export.asbuilt_sheet", "write_asbuilt", "X.xlsx",
               "as-built sheet: every link's verdict from the captures, to fix and sign"),
    ExportKind("--checklist", "workbench.export.checklist", "write_checklist", "X.xlsx",
               "acceptance checklists, one sheet per node, to sign"),
    ExportKind("--slurm", "workbench.export.slurm", "write_slurm", "DIR",
               "slurm.conf, gres.conf and topology.conf fragments, QOS script"),
    ExportKind("--k8s", "workbench.export.k8s", "write_k8s", "DIR",
               "Kubernetes node labels, taints and ResourceQuota manifests"),
    ExportKind("--health-check", "workbench.export.health_check", "write_health_check", "DIR",
               "health_check.sh and the expected values it checks each node against"),
    ExportKind("--monitoring", "workbench.export.monitoring", "write_monitoring", "DIR",
               "prometheus.yml scrape jobs (DCGM and node exporters) and alerts.yml"),
    ExportKind("--netbox", "workbench.netbox.export", "write_netbox", "DIR",
               "NetBox bulk-import files in import order (manifest.json), and back"),
)  # fmt: skip


def exporter(kind: ExportKind) -> Callable[..., Any]:
    """The writing function of ``kind`` (imported on use: openpyxl costs 0.2 s)."""
    return getattr(importlib.import_module(kind.module), kind.function)
