"""``workbench estimate`` through main(argv): JSON keys, tables, bad input."""

from __future__ import annotations

import json

import pytest

from workbench.cli.main import main


def run_json(capsys, *argv: str) -> dict:
    assert main(["estimate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_training_estimate_json(capsys):
    # Domain brief §1 worked example (see test_calc_compute for 19.02 vs the prose's 18.99).
    out = run_json(
        capsys,
        "--params",
        "175e9",
        "--tokens",
        "200e9",
        "--gpu-tflops",
        "312",
        "--gpus",
        "1024",
        "--mfu",
        "0.4",
    )
    assert out["total_flops"] == pytest.approx(2.1e23)
    assert out["effective_pflops"] == pytest.approx(127.7952)
    # The worked example is compute time, C / rate; the days are wall-clock, which
    # the default goodput (0.9, Llama 3 paper §3.3.4) lengthens.
    assert round(out["compute_days"], 2) == 19.02
    assert out["mfu_source"] == "given" and out["goodput"] == 0.9
    assert out["days"] == pytest.approx(out["compute_days"] / 0.9)
    assert out["gpu_hours"] == pytest.approx(out["days"] * 24 * 1024)
    recompute = run_json(
        capsys,
        "--params",
        "175e9",
        "--tokens",
        "200e9",
        "--gpu-tflops",
        "312",
        "--gpus",
        "1024",
        "--mfu",
        "0.4",
        "--recompute",
    )
    # MFU counts model FLOPs only (PaLM Appendix B), so a stated MFU already pays for
    # the recompute: the days stay, and the hardware runs 8/6 of the model FLOPs (HFU).
    assert recompute["days"] == pytest.approx(out["days"])
    assert recompute["hfu"] == pytest.approx(0.4 * 8 / 6)


def test_memory_json(capsys):
    out = run_json(
        capsys,
        "--model",
        "llama3-70b",
        "--tokens",
        "15e12",
        "--gpu-tflops",
        "989.5",
        "--gpus",
        "1024",
        "--memory",
        "--tp",
        "8",
        "--pp",
        "4",
        "--zero",
        "1",
        "--hbm-gb",
        "80",
        "--recompute",
        "selective",
    )
    assert out["dp"] == 32
    parts = out["memory_breakdown_gb"]
    assert set(parts) == {"weights", "gradients", "optimizer", "activations", "total"}
    assert out["memory_gb_per_gpu"] == pytest.approx(parts["total"])
    # The heaviest stage is the first: 20 of the 80 layers plus the V·h embedding,
    # split over TP 8, 2 bytes each.  One layer: q and o 2·8192², k and v 2·8192·1024
    # (8 KV heads of 128), gated MLP 3·8192·28672, two RMSNorm vectors.
    layer = 2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192
    stage = 20 * layer + 128256 * 8192
    assert parts["weights"] == pytest.approx(2 * stage / 8 / 1e9, rel=1e-4)
    assert out["fits"] is True
    # memory alone (no --tokens): ZeRO's 16 bytes/param with bf16 gradients, 1B params,
    # one GPU → 16 GB; Megatron's fp32 main gradients (the default) 18 GB
    alone = run_json(capsys, "--params", "1e9", "--memory", "--grad-precision", "bf16")
    assert alone["memory_breakdown_gb"]["total"] == pytest.approx(16.0)
    megatron = run_json(capsys, "--params", "1e9", "--memory")
    assert megatron["memory_breakdown_gb"]["total"] == pytest.approx(18.0)
    assert alone["fits"] is None and "days" not in alone


def test_kv_json(capsys):
    out = run_json(capsys, "--model", "llama2-7b", "--context", "4096", "--kv")
    assert out["kv_cache_bytes_per_token"] == 524_288
    assert out["kv_cache_gib"] == 2.0


def test_readable_table_has_units(capsys):
    assert (
        main(
            [
                "estimate",
                "--params",
                "175e9",
                "--tokens",
                "200e9",
                "--gpu-tflops",
                "312",
                "--gpus",
                "1024",
                "--mfu",
                "0.4",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "Training time (days)" in text and "19.02" in text and "PFLOP/s" in text


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (
            [
                "--params",
                "175e9",
                "--tokens",
                "200e9",
                "--gpu-tflops",
                "312",
                "--gpus",
                "1024",
                "--mfu",
                "1.5",
            ],
            "--mfu",
        ),
        (["--params", "-1", "--tokens", "200e9", "--gpu-tflops", "312", "--gpus", "8"], "--params"),
        (
            ["--params", "nan", "--tokens", "200e9", "--gpu-tflops", "312", "--gpus", "8"],
            "--params",
        ),
        (["--params", "1e9", "--tokens", "200e9", "--gpu-tflops", "312", "--gpus", "0"], "--gpus"),
        (["--params", "1e9", "--tokens", "200e9", "--gpus", "8"], "--gpu"),
        (["--params", "1e9", "--memory", "--gpus", "1000", "--tp", "3"], "--tp"),
        (["--params", "1e9", "--memory", "--zero", "4"], "--zero"),
        (["--params", "1e9", "--memory", "--gpus", "16", "--tp", "2", "--dp", "4"], "--dp"),
        (["--params", "1e9", "--kv"], "--model"),
        (["--model", "llama2-7b", "--kv", "--context", "-5"], "--context"),
        (["--params", "1e9"], "--tokens"),
    ],
)
def test_bad_input_is_one_line_naming_the_flag(capsys, argv, flag):
    code = main(["estimate", *argv, "--json"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    line = captured.err.strip()
    assert "\n" not in line and flag in line and "Traceback" not in line


def test_gpu_slug_from_the_shipped_catalog(capsys):
    # A100 SXM4 80GB: dense BF16 312 TFLOPS, 80 GB (hardware-reference.json) → the seed's
    # example again, and the HBM for the memory verdict comes from the same item.
    out = run_json(
        capsys,
        "--model",
        "gpt3-175b",
        "--tokens",
        "200e9",
        "--gpu",
        "nvidia-a100-sxm4-80gb",
        "--gpus",
        "1024",
        "--memory",
        "--tp",
        "8",
        "--pp",
        "8",
        "--zero",
        "1",
        "--seq-len",
        "2048",
        "--recompute",
        "selective",
    )
    # The memory verdict uses what nvidia-smi reports for the card, 81,920 MiB.
    assert out["gpu_tflops"] == 312 and out["hbm_gb"] == pytest.approx(81920 * 2**20 / 1e9)
    # No --mfu: predicted from the GPU and the layout, then days = C / (gpus·peak·MFU)
    # / goodput with C from the published accounting (Narayanan et al. 2021 appendix:
    # 72·B·s·l·h²·(1 + s/6h + V/16lh) per step = model FLOPs per token × tokens).
    assert out["mfu_source"] == "predicted" and 0.3 < out["mfu"] < 0.6
    h, layers, s, vocab = 12288, 96, 2048, 50257
    per_token = 72 * layers * h * h * (1 + s / (6 * h) + vocab / (16 * layers * h))
    assert out["model_flops_per_token"] == pytest.approx(per_token, rel=1e-3)
    rate = 1024 * 312e12 * out["mfu"]
    assert out["days"] == pytest.approx(out["model_flops_per_token"] * 200e9 / rate / 0.9 / 86400)
    assert out["fits"] in (True, False)
    # a server slug uses its GPU: DGX H100 → H100 SXM5 dense FP8 1,979 TFLOPS
    server = run_json(
        capsys,
        "--params",
        "1e9",
        "--tokens",
        "1e9",
        "--gpu",
        "nvidia-dgx-h100",
        "--gpus",
        "8",
        "--precision",
        "fp8",
        "--mfu",
        "0.4",
    )
    assert server["gpu"] == "nvidia-h100-sxm5-80gb" and server["gpu_tflops"] == 1979


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--gpu", "no-such-gpu"], "--gpu"),
        (["--gpu", "nvidia-a100-sxm4-80gb", "--precision", "fp8"], "--precision"),
    ],
)
def test_bad_gpu_input(capsys, argv, flag):
    code = main(["estimate", "--params", "1e9", "--tokens", "1e9", "--gpus", "8", *argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and flag in err and "\n" not in err
