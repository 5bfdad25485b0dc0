"""The live summary, rack loads and workload evaluation on a synthetic DGX H100 design."""

from __future__ import annotations

import dataclasses

import pytest
from calc_designs import DGX_H100, H100, dgx_design

from workbench.calc import (
    DEFAULT_PUE,
    evaluate_workload,
    rack_loads,
    summarize,
    training_days_curve,
)
from workbench.catalog.vocabulary import COOLING_TYPES
from workbench.model.design import Workload


def test_summary_of_128_dgx_h100():
    # 128 DGX H100 (1,024 GPUs), 4 per rack + 1 switch per rack → 32 racks, 160 devices.
    design = dgx_design(128)
    s = summarize(design)
    assert (s.racks, s.devices, s.gpus) == (32, 160, 1024)
    # IT kW: 128 × 10.2 kW (DGX H100 User Guide) + 32 × 1 kW test switches
    assert s.it_kw == pytest.approx(128 * 10.2 + 32 * 1.0)
    assert s.typical_kw == pytest.approx(128 * 8.0 + 32 * 1.0)
    # Dense BF16 989.5 TFLOPS per H100 → 1,013.2 PFLOPS
    assert s.peak_pflops["bf16"] == pytest.approx(1024 * 989.5 / 1000)
    assert s.peak_pflops["fp8"] == pytest.approx(1024 * 1979 / 1000)
    assert s.gpu_models == {"nvidia-h100-sxm5-80gb": 1024}
    assert s.main_gpu == "nvidia-h100-sxm5-80gb"
    assert s.hbm_tb == pytest.approx(81.92)
    # Every rack of the synthetic design is rear-door cooled and no PUE is typed: the
    # planning PUE of that cooling type (catalog vocabulary), not the air default.
    assert s.pue == COOLING_TYPES["rear-door"].pue != DEFAULT_PUE
    assert s.pue_source == "from cooling"
    assert s.facility_kw == pytest.approx(s.it_kw * s.pue)
    assert s.heat_btu_h == pytest.approx(s.it_kw * 1000 * 3.412)
    assert s.cooling_tons == pytest.approx(s.heat_btu_h / 12_000)
    d = s.to_dict()
    assert {
        "racks",
        "devices",
        "gpus",
        "it_kw",
        "peak_pflops",
        "facility_kw",
        "heat_btu_h",
        "cooling_tons",
    } <= set(d)


def test_summary_edge_cases():
    empty = summarize(dgx_design(0))
    assert (empty.racks, empty.gpus, empty.it_kw, empty.peak_pflops) == (0, 0, 0.0, {})
    design = dgx_design(4)
    design.properties["pue"] = "1.15"
    assert summarize(design).facility_kw == pytest.approx(summarize(design).it_kw * 1.15)
    design.properties["pue"] = "nonsense"  # not a PUE: the racks' (rear-door) cooling
    assert summarize(design).pue == COOLING_TYPES["rear-door"].pue
    # a device whose type is missing from the snapshot is reported, not a crash
    design.sites[0].rows[0].racks[0].devices[0].device_type = "missing-slug"
    s = summarize(design)
    assert s.unknown_types == ("missing-slug",) and s.gpus == 24
    assert s.devices_without_power == 1 and s.unknown_power_types == ("missing-slug",)
    # a server without power figures counts 0 W and is flagged
    design.device_types[DGX_H100.slug] = dataclasses.replace(
        DGX_H100, max_power_w=None, typical_power_w=None
    )
    s = summarize(design)
    # ... and so does the device of the missing type: its power is unknown too (issue 19)
    assert s.devices_without_power == 4 and s.it_kw == pytest.approx(1.0)


def test_server_gpu_named_by_model_and_fallback_to_server_tflops():
    design = dgx_design(2)
    design.device_types[DGX_H100.slug] = dataclasses.replace(DGX_H100, gpu="H100 SXM5 80GB")
    assert summarize(design).peak_pflops["bf16"] == pytest.approx(16 * 0.9895)
    del design.device_types[H100.slug]
    design.device_types[DGX_H100.slug] = dataclasses.replace(
        DGX_H100, gpu="unknown-gpu", tflops={"bf16": 989.5}
    )
    s = summarize(design)
    assert s.peak_pflops["bf16"] == pytest.approx(16 * 0.9895)
    assert s.gpu_models == {"unknown-gpu": 16}


def test_rack_loads():
    design = dgx_design(10, per_rack=4, limit_kw=40.0)
    loads = rack_loads(design)
    assert list(loads) == ["r0", "r1", "r2"]
    r0 = loads["r0"]
    assert r0.kw_max == pytest.approx(4 * 10.2 + 1.0)
    assert r0.limit_kw == 40.0
    assert (r0.u_used, r0.u_total, r0.gpus) == (33, 48, 32)
    assert r0.weight_kg == pytest.approx(4 * 130.45 + 14.8)
    assert r0.max_weight_kg == 1500
    assert loads["r2"].kw_max == pytest.approx(2 * 10.2 + 1.0)
    assert sum(r.kw_max for r in loads.values()) == pytest.approx(summarize(design).it_kw)


def test_evaluate_training_workload():
    design = dgx_design(128)
    w = Workload(
        id="w1",
        name="70B pretrain",
        model="llama3-70b",
        tokens=15e12,
        mfu=0.4,
        tp=8,
        pp=4,
        zero=1,
        seq_len=4096,
        recompute="selective",
    )
    r = evaluate_workload(design, w)
    assert r.ok, r.errors
    assert r.gpu_slug == H100.slug and r.gpus == 1024 and r.dp == 32
    # Model FLOPs per token (PaLM Appendix B): 6·N + 12·L·s·(heads·head_dim), less the
    # input embedding's 6·V·h (a lookup, not a matmul) and of the RMSNorm weights
    # (elementwise), = 449.2e9.  Days are wall-clock: C / (1024 · 989.5e12 · 0.4) /
    # goodput 0.9 / 86400 = 214 days (193 of compute).
    norms = 2 * 8192 * 80 + 8192
    per_token = 6 * 70_553_706_496 + 12 * 80 * 4096 * 8192 - 6 * 128256 * 8192 - 6 * norms
    expected = per_token * 15e12 / (1024 * 989.5e12 * 0.4) / 86400
    assert r.compute_days == pytest.approx(expected, rel=1e-6)
    assert r.days == pytest.approx(expected / 0.9, rel=1e-6)
    assert r.mfu == 0.4 and r.mfu_source == "given"
    assert r.effective_pflops == pytest.approx(1024 * 989.5 * 0.4 / 1000)
    assert r.gpu_hours == pytest.approx(r.seconds * 1024 / 3600)
    assert r.memory is not None and r.memory.activations_bytes > 0
    # selective recompute with sequence parallelism (the default), tp 8: sbh·34/8 per
    # layer (Korthikanti et al. 2022 Table 2), 80 layers' worth on the first stage under
    # 1F1B = 11.4 GB, plus the embedding output of its in-flight micro-batches (< 5 %).
    layers_part = 4096 * 8192 * 34 / 8 * 80
    assert layers_part <= r.memory.activations_bytes <= 1.05 * layers_part
    assert r.fits is True
    text = str(r.explanations["days"])
    assert "goodput" in text and "1024" in text and "days" in text
    assert set(r.explanations) >= {
        "total_flops",
        "effective_pflops",
        "days",
        "gpu_hours",
        "memory_gb_per_gpu",
    }
    d = r.to_dict()
    assert d["days"] == r.days and d["memory_gb_per_gpu"] == r.memory_gb_per_gpu


def test_evaluate_collects_errors_instead_of_raising():
    design = dgx_design(16)  # 128 GPUs
    bad = Workload(id="w", name="bad", model="llama3-70b", mfu=1.5, tp=3, pp=1)
    r = evaluate_workload(design, bad)
    fields = {e.field for e in r.errors}
    assert {"mfu", "tp"} <= fields
    assert r.days is None and r.total_flops is not None  # what does not depend on mfu is there
    assert any(e.field == "mfu" for e in r.errors)
    custom = Workload(
        id="c", name="n only", model="custom", params=13e9, tp=8, pp=1, zero=3, mfu=0.4
    )
    rc = evaluate_workload(design, custom)
    assert rc.ok and rc.memory.activations_bytes is None and rc.warnings
    # Without an MFU a model known only by N cannot be predicted: the MFU box says so.
    unknown = evaluate_workload(design, Workload(id="u", name="n", model="custom", params=13e9))
    assert [e.field for e in unknown.errors] == ["mfu"] and unknown.days is None
    no_gpu = evaluate_workload(dgx_design(0), Workload(id="x", name="x"))
    assert {e.field for e in no_gpu.errors} == {"gpu_type"}
    assert (
        evaluate_workload(design, Workload(id="k", name="k", kind="party")).errors[0].field
        == "kind"
    )


def test_evaluate_inference_workload():
    design = dgx_design(1)
    w = Workload(
        id="i",
        name="serve",
        kind="inference",
        model="llama2-7b",
        context=4096,
        concurrency=8,
        tp=1,
        gpus=1,
    )
    r = evaluate_workload(design, w)
    assert r.ok, r.errors
    assert r.kv_bytes_per_token == 524_288 and r.kv_cache_gib == pytest.approx(16.0)
    assert r.max_concurrency == 27  # see test_calc_inference
    assert r.memory_gb_per_gpu == pytest.approx(13.48 + 8 * 2.147483648)
    assert r.fits is True
    assert r.decode_tokens_per_s == pytest.approx(8 * 3.35e12 / (13.48e9 + 8 * 2**31))
    assert "kv_heads" in str(r.explanations["kv_bytes_per_token"])


def test_training_days_curve():
    w = Workload(id="w", name="gpt3", model="custom", params=175e9, tokens=200e9)
    curve = training_days_curve(w, [512, 1024, 2048], 312)
    assert set(curve) == {0.3, 0.4, 0.5}
    assert curve[0.4][1] == pytest.approx(19.019, abs=0.001)
    assert curve[0.4][0] == pytest.approx(2 * curve[0.4][1])
    assert curve[0.3][1] > curve[0.4][1] > curve[0.5][1]
