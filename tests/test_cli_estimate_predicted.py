"""``workbench estimate`` without --mfu: the step time and MFU come from the hardware and
the layout (issue 12, "Command line").  Numbers are checked against the calculators'
own worked examples elsewhere; here the flags, the JSON keys and the bad input."""

from __future__ import annotations

import json

import pytest

from workbench.calc.presets import PRESETS
from workbench.calc.step_time import TERMS
from workbench.cli.main import main

LLAMA3_405B = [
    "--layers", "126", "--hidden", "16384", "--heads", "128", "--kv-heads", "8",
    "--ffn", "53248", "--vocab", "128256", "--gated-mlp",
]  # fmt: skip


def run_json(capsys, *argv: str) -> dict:
    assert main(["estimate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_full_architecture_is_predicted_on_a_server_slug(capsys) -> None:
    # Llama 3 405B (Dubey et al. 2024 Table 3 shape) on DGX H100: 126 layers on 16
    # stages is uneven (8 or 7 layers per stage) and must run, not be refused.
    out = run_json(
        capsys, *LLAMA3_405B, "--tokens", "15.6e12", "--gpu", "nvidia-dgx-h100",
        "--gpus", "16384", "--tp", "8", "--pp", "16", "--seq-len", "8192",
        "--global-batch", "2048", "--virtual-stages", "4", "--zero", "1",
    )  # fmt: skip
    assert out["node"] == "nvidia-dgx-h100" and out["mfu_source"] == "predicted"
    assert set(out["step_breakdown_s"]) == set(TERMS)
    assert sum(out["step_breakdown_s"].values()) == pytest.approx(out["step_time_s"])
    # N from the architecture: 405.9e9 (the paper's "405B").
    assert out["params"] == pytest.approx(405.9e9, rel=2e-3)
    assert 0 < out["mfu"] <= out["hfu"] < 1
    assert out["days"] == pytest.approx(out["compute_days"] / out["goodput"])
    assert out["gpu_hours"] == pytest.approx(out["days"] * 24 * 16384)
    assert out["fits"] in (True, False) and out["global_batch"] == 2048


def test_more_virtual_stages_shrink_the_bubble_and_a_faster_nic_never_slows(capsys) -> None:
    base = ["--model", "gpt3-175b", "--tokens", "300e9", "--gpu", "nvidia-dgx-a100",
            "--gpus", "1024", "--tp", "8", "--pp", "8", "--seq-len", "2048",
            "--global-batch", "1536"]  # fmt: skip
    plain = run_json(capsys, *base)
    interleaved = run_json(capsys, *base, "--virtual-stages", "3")
    assert (
        interleaved["step_breakdown_s"]["pipeline_bubble"]
        < plain["step_breakdown_s"]["pipeline_bubble"]
    )
    slow = run_json(capsys, *base, "--nic-gbps", "100")
    fast = run_json(capsys, *base, "--nic-gbps", "800")
    assert fast["step_time_s"] <= slow["step_time_s"]
    blocking = run_json(capsys, *base, "--oversubscription", "4")
    assert blocking["step_breakdown_s"]["dp_exposed"] >= plain["step_breakdown_s"]["dp_exposed"]


def test_a_given_mfu_wins_and_says_so(capsys) -> None:
    out = run_json(
        capsys, "--model", "llama3-70b", "--tokens", "15e12", "--gpu", "nvidia-dgx-h100",
        "--gpus", "1024", "--tp", "8", "--pp", "4", "--mfu", "0.35",
    )  # fmt: skip
    assert out["mfu"] == 0.35 and out["mfu_source"] == "given"
    assert "step_time_s" in out  # the prediction is still shown beside it


def test_presets_carry_their_architecture() -> None:
    for name in ("llama1-65b", "bloom-176b", "gpt3-175b", "megatron-1t", "megatron-530b"):
        model = PRESETS[name]
        assert model.has_architecture and model.ffn and model.vocab, name


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        # TP across nodes with no NIC figure: --gpu-tflops knows no node.
        (["--layers", "24", "--hidden", "2048", "--heads", "16", "--gpu-tflops", "312",
          "--gpus", "64", "--tp", "16"], "--tp"),
        (["--model", "llama3-8b", "--gpu", "nvidia-dgx-h100", "--gpus", "64", "--tp", "2",
          "--global-batch", "100"], "--global-batch"),
        (["--model", "llama3-8b", "--layers", "4", "--gpu", "nvidia-dgx-h100", "--gpus", "8"],
         "--layers"),
        (["--layers", "4", "--hidden", "256", "--gpu", "nvidia-dgx-h100", "--gpus", "8"],
         "--heads"),
        (["--params", "1e9", "--gpu", "nvidia-dgx-h100", "--gpus", "8"], "--mfu"),
        (["--model", "llama3-8b", "--gpu", "nvidia-dgx-h100", "--gpus", "8", "--goodput", "0"],
         "--goodput"),
        (["--model", "llama3-8b", "--gpu", "nvidia-dgx-h100", "--gpus", "8", "--pp", "2",
          "--virtual-stages", "0"], "--virtual-stages"),
    ],
)  # fmt: skip
def test_layouts_that_cannot_run_name_the_flag(capsys, argv, flag) -> None:
    code = main(["estimate", "--tokens", "1e12", *argv, "--json"])
    captured = capsys.readouterr()
    line = captured.err.strip()
    assert code == 2 and captured.out == ""
    assert line.startswith(f"workbench: {flag}") and "\n" not in line, line
