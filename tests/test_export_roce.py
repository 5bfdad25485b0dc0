"""The RoCE lossless baseline (issue 24): before, PFC, ECN, DSCP trust, MTU and bonding
appeared nowhere although a RoCE plane is a design choice the workbench offers."""

from __future__ import annotations

import csv

from workbench.calc.fabric.planes import plane_structure
from workbench.export.acceptance_items import node_checklists
from workbench.export.k8s import write_k8s
from workbench.export.roce import COLUMNS, PFC_VECTOR, roce_baseline_csv
from workbench.export.slurm import write_slurm
from workbench.templates import build_template


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(text.splitlines()))


def test_roce_plane_gets_a_row_per_switch_and_nic_with_sources(tmp_path):
    design = build_template("hgx-h100-air")
    assert any(n.technology == "roce" for n in design.networks)
    write_slurm(design, tmp_path / "slurm")
    write_k8s(design, tmp_path / "k8s")
    text = (tmp_path / "slurm" / "roce-baseline.csv").read_text()
    assert text == (tmp_path / "k8s" / "roce-baseline.csv").read_text()
    rows = _rows(text)
    assert list(rows[0]) == list(COLUMNS)
    structure = plane_structure(design, "compute")
    switches = {design.index.devices[s][1].name for s in structure.tiers}
    listed = {r["device"] for r in rows if r["plane"] == "compute" and r["role"] == "switch"}
    assert listed == switches
    nics = [r for r in rows if r["role"] == "nic" and r["plane"] == "compute"]
    assert nics and all(r["mtu"] == "9000" and r["pfc_vector"] == PFC_VECTOR for r in nics)
    assert all(int(r["mtu"]) > 9000 for r in rows if r["role"] == "switch")
    assert all(r["trust"] == "dscp" and "seed 004" in r["sources"] for r in rows)
    assert all("active-backup" in r["bond"] for r in rows)


def test_infiniband_design_has_no_roce_baseline(tmp_path):
    design = build_template("dgx-h100-superpod", gpus=64)
    assert roce_baseline_csv(design) is None
    write_slurm(design, tmp_path / "slurm")
    assert not (tmp_path / "slurm" / "roce-baseline.csv").exists()


def test_roce_nodes_get_checklist_rows():
    roce = build_template("hgx-h100-air")
    (_device, items), *_ = node_checklists(roce)
    ids = [i.id for i in items]
    assert {"roce.pfc", "roce.trust", "roce.ecn", "roce.mtu_bond"} <= set(ids)
    pfc = next(i for i in items if i.id == "roce.pfc")
    assert pfc.op == "manual" and "0 0 0 1 0 0 0 0" in pfc.expected
    ib = build_template("dgx-h100-superpod", gpus=64)
    (_device, items), *_ = node_checklists(ib)
    assert not [i for i in items if i.id.startswith("roce.")]
