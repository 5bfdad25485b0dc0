"""``workbench fabric``: the JSON it prints, its table, and its exit statuses."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run


def fabric(*args: str):
    return run("fabric", *args)


def test_json_of_a_rail_optimized_fabric() -> None:
    # 128 DGX H100 = 4 SUs: the DGX SuperPOD H100 reference architecture's table 4 row
    # (32 leaves, 16 spines, 1,024 leaf–spine cables) plus 1,024 node–leaf links.
    result = fabric(
        "--nodes", "128", "--node-model", "nvidia-dgx-h100", "--switch", "nvidia-qm9700",
        "--rail-optimized", "--oversubscription", "1", "--speed", "400", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    for key in (
        "tiers",
        "leaf_switches",
        "spine_switches",
        "core_switches",
        "links",
        "oversubscription",
        "bisection_tbps",
        "cables",
    ):
        assert key in out, key
    assert (out["tiers"], out["leaf_switches"], out["spine_switches"], out["core_switches"]) == (
        2,
        32,
        16,
        0,
    )
    assert out["links"] == 2048
    assert out["oversubscription"] == {"leaf": 1.0}
    # Half of the 1,024 × 400G host ports cross the middle: 204.8 Tb/s.
    assert out["bisection_tbps"] == pytest.approx(204.8)
    assert sum(out["cables"]["by_media"].values()) == 2048
    assert out["shape"]["sus"] == 4 and out["gpus"] == 1024


def test_gpus_instead_of_nodes_and_the_table() -> None:
    # 1,000 GPUs of 8-GPU nodes: ceil(1000 / 8) = 125 nodes, 4 SUs (the last partial).
    result = fabric("--gpus", "1000", "--rail-optimized")
    assert result.returncode == 0, result.stderr
    assert "125 × nvidia-dgx-h100" in result.stdout
    assert "leaf switches     32" in result.stdout and "spine switches    16" in result.stdout


def test_three_tiers_at_2_to_1() -> None:
    # 16 SUs at 2:1 (see test_fabric_sizing): 128 leaves, 64 spines, 32 cores.
    result = fabric("--nodes", "512", "--rail-optimized", "--oversubscription", "2", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert (out["tiers"], out["leaf_switches"], out["spine_switches"], out["core_switches"]) == (
        3,
        128,
        64,
        32,
    )
    assert out["oversubscription"]["leaf"] == pytest.approx(2.0)


def test_an_impossible_fabric_exits_1_with_the_explanation() -> None:
    result = fabric("--gpus", "100000", "--rail-optimized", "--switch", "nvidia-qm9700")
    assert result.returncode == 1
    assert "65,536 host ports" in result.stderr and "4 tiers" in result.stderr
    assert "nvidia-q3400-ra" in result.stderr


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--nodes", "0"), "--nodes"),
        (("--gpus", "-8"), "--gpus"),
        (("--nodes", "4", "--node-model", "no-such-server"), "--node-model"),
        (("--nodes", "4", "--node-model", "nvidia-qm9700"), "--node-model"),
        (("--nodes", "4", "--node-model", "generic-cpu-storage-server"), "--node-model"),
        (("--nodes", "4", "--switch", "nvidia-dgx-h100"), "--switch"),
        (("--nodes", "4", "--switch", "no-such-switch"), "--switch"),
        (("--nodes", "4", "--oversubscription", "0.5"), "--oversubscription"),
        (("--nodes", "4", "--speed", "0"), "--speed"),
        (("--nodes", "4", "--su-nodes", "0"), "--su-nodes"),
    ],
)
def test_bad_options_exit_2_naming_the_option(args, option) -> None:
    result = fabric(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert option in result.stderr


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["--nodes", "64", "--rail-optimized", "--json"], 0),
        (["--nodes", "64", "--node-model", "no-such-server"], 2),
    ],
)
def test_the_collector_runs_again_after_the_command(args, status, capsys) -> None:
    # The command pauses the cyclic collector while it builds its scratch design; in a
    # process that goes on (a test, a caller of main()) it must be back on afterwards,
    # whether the command succeeded or refused.
    import gc

    from workbench.cli.main import main

    assert gc.isenabled()
    assert main(["fabric", *args]) == status
    assert gc.isenabled()
    out = capsys.readouterr().out
    if status == 0:
        # One JSON object, indented, ending in one newline.
        assert out == json.dumps(json.loads(out), indent=2) + "\n"
