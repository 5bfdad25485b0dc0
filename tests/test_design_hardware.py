"""What the step-time model reads from a design: node, NVLink, NICs and the fabric.

Issue 12: "changing the design's node type, its NICs or the fabric's oversubscription
... moves the days for the right reason".  Each test changes one of them on a design
and checks the figure read and the direction the days move."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from workbench.calc.design_hardware import (
    FabricFigures,
    _compute_plane,
    compute_nic_gbps,
    compute_plane,
    compute_plane_in_steps,
    compute_plane_ready,
    fabric_figures,
    node_figures,
)
from workbench.calc.errors import InputError
from workbench.calc.fabric import graph as fabric_graph
from workbench.calc.training_estimate import curve_days, predicted_gpus_for_deadline
from workbench.calc.workload import evaluate_workload
from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.model.design import Workload
from workbench.planning.fabric.generator import FabricRequest, plan_fabric
from workbench.templates import build_template
from workbench.templates.builder import build_nodes


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def job(**kw) -> Workload:
    kw.setdefault("tp", 8)
    kw.setdefault("pp", 2)
    kw.setdefault("tokens", 1e12)
    return Workload("w1", "Job", model="llama3-8b", **kw)


def test_dgx_h100_has_one_400g_rail_port_per_gpu(catalog) -> None:
    # DGX H100 user guide: eight single-port ConnectX-7 NDR (400 Gb/s) for the compute
    # fabric, one per GPU; the catalog names them compute0..compute7.
    assert compute_nic_gbps(catalog.get("nvidia-dgx-h100")) == 400.0


def test_the_node_and_its_links_come_from_the_design(catalog) -> None:
    design = build_template("dgx-h100-superpod")
    gpu = design.device_types["nvidia-h100-sxm5-80gb"]
    node = node_figures(design, gpu)
    assert node.node_slug == "nvidia-dgx-h100" and node.gpus_per_node == 8
    assert node.nvlink_gbs == 900.0 and node.nic_gbps_per_gpu == 400.0 and not node.missing
    assert node_figures(design, gpu, nic_override=100.0).nic_gbps_per_gpu == 100.0


def test_a_rail_optimized_fabric_is_non_blocking_with_32_hosts_per_leaf() -> None:
    # DGX SuperPOD reference architecture: one rail leaf per GPU index of a 32-node SU.
    fabric = fabric_figures(build_template("dgx-h100-superpod"))
    assert fabric.oversubscription == 1.0 and fabric.gpus_per_leaf == 32
    assert "leaf" in fabric.source


def test_no_fabric_says_so_and_assumes_non_blocking(catalog) -> None:
    design = build_nodes("nvidia-dgx-h100", 4, catalog)
    design.workloads = [job()]
    design.reindex()
    assert fabric_figures(design) == FabricFigures()
    result = evaluate_workload(design, design.workloads[0])
    assert result.mfu_source == "predicted"
    assert any("no compute fabric" in w for w in result.warnings)


def test_an_oversubscribed_fabric_lengthens_the_days(catalog) -> None:
    design = build_nodes("nvidia-dgx-h100", 64, catalog)
    blocking = copy.deepcopy(design)
    for target, ratio in ((design, 1.0), (blocking, 4.0)):
        request = FabricRequest(
            plane="compute", switch="nvidia-qm9700", topology="2-tier",
            oversubscription=ratio,
        )  # fmt: skip
        ops.apply(target, plan_fabric(target, catalog, request).batch)
        # Replicas of 64 GPUs (TP 8 × PP 8) are larger than a leaf's ~51 hosts at 4:1,
        # so every DP ring hop leaves its leaf and the uplinks set its pace.
        target.workloads = [job(tp=8, pp=8)]
        target.reindex()
    assert fabric_figures(design).oversubscription == pytest.approx(1.0)
    assert fabric_figures(blocking).oversubscription == pytest.approx(4.0, rel=0.05)
    fast = evaluate_workload(design, design.workloads[0])
    slow = evaluate_workload(blocking, blocking.workloads[0])
    assert slow.step_breakdown_s["dp_exposed"] > fast.step_breakdown_s["dp_exposed"]
    assert slow.days > fast.days and slow.mfu < fast.mfu


def test_a_slower_nic_or_a_typed_mfu_moves_the_days_the_right_way() -> None:
    design = build_template("dgx-h100-superpod")
    base = evaluate_workload(design, job(tp=8, pp=1))
    slow_nic = evaluate_workload(design, job(tp=8, pp=1, nic_gbps=25.0))
    assert slow_nic.days > base.days and slow_nic.hardware.nic_gbps_per_gpu == 25.0
    given = evaluate_workload(design, job(tp=8, pp=1, mfu=base.mfu / 2))
    assert given.mfu_source == "given" and given.days == pytest.approx(2 * base.days)


@pytest.mark.parametrize("deadline", [30.0, 100.0, 500.0])
def test_the_deadline_answer_comes_from_the_same_predictions_as_the_curve(deadline) -> None:
    # The predicted MFU falls as GPUs are added at a fixed global batch, so the answer is
    # searched on the predicted curve: whole 32-node SUs of DGX H100 (256 GPUs), the
    # fewest whose predicted days meet the deadline.
    design = build_template("dgx-h100-superpod")
    workload = design.workloads[0]
    result = evaluate_workload(design, workload)
    assert result.mfu_source == "predicted"
    sizing = predicted_gpus_for_deadline(result, workload, deadline, 8, 32)
    assert sizing is not None and sizing.gpus_needed % 256 == 0
    assert sizing.nodes == sizing.gpus_needed // 8 == sizing.scalable_units * 32
    (at,) = curve_days(result, workload, [sizing.gpus_needed])
    (fewer,) = curve_days(result, workload, [sizing.gpus_needed - 256])
    assert at <= deadline and (fewer is None or fewer > deadline)
    # Physical rate = effective / the MFU predicted at that size, below the GPUs' peak.
    assert sizing.physical_pflops_needed <= sizing.gpus_needed * 989.5 / 1000


def test_an_unreachable_deadline_names_the_field() -> None:
    design = build_template("hgx-h100-air")
    workload = design.workloads[0]
    result = evaluate_workload(design, workload)
    with pytest.raises(InputError) as raised:
        predicted_gpus_for_deadline(result, workload, 1e-6, 8, 32)
    assert raised.value.field == "deadline_days"


@pytest.mark.parametrize("blocking", [1.0, 4.0])
@pytest.mark.parametrize("rows", [100_000, 5])
def test_the_compute_plane_in_steps_is_the_one_built_at_once(
    catalog, blocking, rows, monkeypatch
) -> None:
    monkeypatch.setattr(fabric_graph, "STEP_ROWS", rows)  # 5: the rows in many runs
    design = build_nodes("nvidia-dgx-h100", 64, catalog)
    request = FabricRequest(
        plane="compute", switch="nvidia-qm9700", topology="2-tier",
        oversubscription=blocking,
    )  # fmt: skip
    ops.apply(design, plan_fabric(design, catalog, request).batch)
    design.reindex()
    at_once = _compute_plane(design)  # built, not read from what is kept
    steps = compute_plane_in_steps(design, chunk=7)
    taken = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            stepped = done.value
            break
        taken += 1
    assert taken > len(design.links) // 7  # in steps, not in one go
    assert stepped == at_once and stepped.fabric.oversubscription is not None
    assert compute_plane_ready(design) and compute_plane(design) is stepped  # kept


def test_the_plane_graph_read_in_runs_of_rows_is_the_one_read_at_once(catalog, monkeypatch):
    design = build_nodes("nvidia-dgx-h100", 64, catalog)
    request = FabricRequest(plane="compute", switch="nvidia-qm9700", topology="2-tier")
    ops.apply(design, plan_fabric(design, catalog, request).batch)
    design.links[3] = dataclasses.replace(design.links[3], speed_gbps=100)  # not all equal
    design.reindex()
    at_once = fabric_graph.plane_graph(design, "compute")
    monkeypatch.setattr(fabric_graph, "STEP_ROWS", 5)
    design.reindex()
    in_runs = fabric_graph.plane_graph(design, "compute")
    assert len(in_runs.layer) > 5 * 10
    for column in ("layer", "lower", "upper", "gbps", "down", "up", "tier"):
        assert np.array_equal(getattr(in_runs, column), getattr(at_once, column)), column
    assert in_runs.layer_gbps == at_once.layer_gbps


def test_a_compute_plane_built_across_a_cabling_edit_is_not_kept(catalog) -> None:
    design = build_nodes("nvidia-dgx-h100", 16, catalog)
    request = FabricRequest(plane="compute", switch="nvidia-qm9700", topology="2-tier")
    ops.apply(design, plan_fabric(design, catalog, request).batch)
    design.reindex()
    steps = compute_plane_in_steps(design, chunk=5)
    next(steps)
    ops.apply(design, ops.RemoveLink(design.links[0].id))  # an edit between two steps
    for _step in steps:
        pass
    assert not compute_plane_ready(design)
    assert compute_plane(design) == _compute_plane(design)  # built anew on the next read
