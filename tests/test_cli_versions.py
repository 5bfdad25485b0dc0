"""``workbench versions``: baseline, import, show and check through the real entry
point, with the project file written back and opened again."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.store import open_design
from workbench.versions.matrix import is_node

DATA = Path(__file__).parent / "data" / "node_reports"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def project(tmp_path) -> Path:
    out = tmp_path / "v.dcwb"
    assert main(["new", str(out), "--template", "hgx-h100-air"]) == 0
    return out


def gpu_nodes(path: Path) -> list[str]:
    design = open_design(path)
    return [d.name for _, d in design.iter_devices() if is_node(design, d)]


def stack(tmp_path: Path, text: str, name: str = "stack.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run_json(capsys, argv: list[str]) -> tuple[int, dict]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip().startswith("{") else {"err": err})


def test_baseline_then_check_then_upgrade_one_layer(project, tmp_path, capsys) -> None:
    first = stack(tmp_path, 'name: H100\ndriver: 535.104.05\ncuda: "12.2"\n')
    code, out = run_json(capsys, ["versions", "baseline", str(project), str(first), "--json"])
    assert code == 0 and out["new_baseline"] and out["nodes"] == 8
    design = open_design(project)
    (baseline,) = design.versions.baselines
    assert baseline.name == "H100" and baseline.current.versions == {
        "driver": "535.104.05",
        "cuda": "12.2",
    }
    # 535 runs CUDA 12.2 natively: no version finding.
    code, out = run_json(capsys, ["versions", "check", str(project), "--json"])
    assert code == 0 and out["errors"] == 0
    # CUDA 12.4 on the same driver: minor-version compatibility, a warning naming 550.54.14.
    second = stack(tmp_path, 'name: H100\ndriver: 535.104.05\ncuda: "12.4"\n', "s2.yaml")
    code, out = run_json(capsys, ["versions", "baseline", str(project), str(second), "--json"])
    assert code == 0 and out["baseline"]["revision"] == 2 and out["layers_changed"] == ["cuda"]
    code, out = run_json(capsys, ["versions", "check", str(project), "--json"])
    assert code == 0
    warnings = [f for f in out["findings"] if f["rule"] == "VERSION-DRIVER"]
    assert len(warnings) == 8 and all(f["severity"] == "warning" for f in warnings)
    assert all("550.54.14" in f["message"] and f["layer"] == "driver" for f in warnings)
    assert {f["node"] for f in warnings} == set(gpu_nodes(project))
    assert all(f["source"] for f in warnings)


def test_an_old_driver_is_an_error_and_exits_1(project, tmp_path, capsys) -> None:
    bad = stack(tmp_path, 'driver: 520.61.05\ncuda: "12.4"\n')
    assert main(["versions", "baseline", str(project), str(bad)]) == 0
    capsys.readouterr()
    code, out = run_json(capsys, ["versions", "check", str(project), "--json"])
    assert code == 1 and out["errors"] == 8
    first = out["findings"][0]
    assert set(first) >= {"severity", "node", "layer", "message", "source"}
    assert first["severity"] == "error" and "520.61.05" in first["message"]


def test_unquoted_versions_keep_their_text(project, tmp_path, capsys) -> None:
    """YAML reads 12.10 as the number 12.1; the stack means CUDA 12.10."""
    text = stack(tmp_path, "cuda: 12.10\ndriver: 550.54.14\n")
    assert main(["versions", "baseline", str(project), str(text)]) == 0
    assert open_design(project).versions.baselines[0].current.versions["cuda"] == "12.10"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("drvier: 535\n", "unknown layer 'drvier'"),
        ("driver: &a 535\ncuda: *a\n", "anchors and aliases"),
        ("driver: !!python/object:os.system 535\n", "tag"),
        ("driver: [535, 550]\n", "must be one version"),
        ("driver: 535\ndriver: 550\n", "given twice"),
        ("- driver\n", "expected `layer: version` lines"),
        ("name: only a name\n", "names no layer"),
    ],
)
def test_a_bad_stack_file_changes_nothing(project, tmp_path, capsys, text, words) -> None:
    before = digest(project)
    bad = stack(tmp_path, text)
    code = main(["versions", "baseline", str(project), str(bad)])
    _out, err = capsys.readouterr()
    assert code == 2 and words in err and str(bad) in err and "Traceback" not in err
    assert digest(project) == before


def test_import_show_and_drift(project, tmp_path, capsys) -> None:
    nodes = gpu_nodes(project)
    pin = stack(tmp_path, "driver: 535.104.05\nkernel: 5.15.0-105-generic\n")
    assert main(["versions", "baseline", str(project), str(pin), "--nodes", "*"]) == 0
    reports = tmp_path / "reports"
    (reports / nodes[0]).mkdir(parents=True)
    shutil.copy(DATA / "nvidia-smi-q-h100.xml", reports / nodes[0] / "smi.xml")
    shutil.copy(DATA / "uname-r.txt", reports / f"{nodes[1]}.uname.txt")
    shutil.copy(DATA / "uname-r.txt", reports / "not-a-node.uname.txt")
    capsys.readouterr()
    code, out = run_json(capsys, ["versions", "import", str(project), str(reports), "--json"])
    assert code == 0
    assert sorted(out["nodes_updated"]) == sorted(nodes[:2])
    assert out["unknown_nodes"] == ["not-a-node"] and out["observations"] > 0
    code, out = run_json(capsys, ["versions", "show", str(project), "--node", nodes[0], "--json"])
    (node,) = out["nodes"]
    assert node["observed"]["driver"]["value"] == "550.90.07"
    assert node["observed"]["driver"]["source"].endswith("smi.xml")
    assert [d["layer"] for d in node["drift"]] == ["driver"]
    code, out = run_json(capsys, ["versions", "check", str(project), "--json"])
    drift = [f for f in out["findings"] if f["rule"] == "VERSION-DRIFT"]
    warned = {f["node"]: f["layer"] for f in drift if f["severity"] == "warning"}
    assert warned == {nodes[0]: "driver", nodes[1]: "kernel"}
    # The six nodes that never reported are said, as information, not as drift.
    assert sorted(f["node"] for f in drift if f["severity"] == "info") == sorted(nodes[2:])


def test_a_malformed_report_refuses_the_whole_import(project, tmp_path, capsys) -> None:
    nodes = gpu_nodes(project)
    reports = tmp_path / "reports"
    reports.mkdir()
    shutil.copy(DATA / "uname-r.txt", reports / f"{nodes[1]}.uname.txt")
    (reports / f"{nodes[0]}.smi.xml").write_bytes(b"\x00\x01\x02 junk")
    before = digest(project)
    code = main(["versions", "import", str(project), str(reports)])
    _out, err = capsys.readouterr()
    assert code == 2 and "nothing changed" in err and f"{nodes[0]}.smi.xml" in err
    assert digest(project) == before
