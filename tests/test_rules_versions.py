"""The version checks: each fires with its numbers and its source on the failing case
and stays quiet on the passing one; effective versions take the newest report over the
baseline; the incremental checker agrees with a full check after version edits."""

from __future__ import annotations

import json

import pytest

from workbench.catalog import load_catalog, snapshot_for
from workbench.model import Change, Design, Device, Rack, Row, Site
from workbench.model.versions import Assignment, Baseline, BaselineRevision, Observation
from workbench.rules import INTERNAL_ERROR, REGISTRY, Checker, Finding, Severity, check_design
from workbench.versions import compat
from workbench.versions.matrix import MIXED_SEPARATOR, effective_versions

DGX_H100 = "nvidia-dgx-h100"
DGX_B200 = "nvidia-dgx-b200"
STORAGE = "generic-cpu-storage-server"
RACK = "generic-rack-48u-rdhx"
VERSION_RULES = [r for r in REGISTRY.values() if r.id.startswith("VERSION-")]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def make(catalog, *nodes: tuple[str, str], stack: dict[str, str] | None = None) -> Design:
    """Nodes (name, catalog type) in one rack; ``stack`` becomes baseline "b1" r1,
    assigned to every node by the glob ``*``."""
    devices = [
        Device(f"d{i}", name, slug, position=1 + 10 * i) for i, (name, slug) in enumerate(nodes)
    ]
    types = snapshot_for(catalog, sorted({RACK, *(slug for _, slug in nodes)}))
    design = Design(
        sites=[Site("s", "Hall", [Row("r", "Row A", [Rack("r1", "A01", RACK, devices=devices)])])],
        device_types=types,
    )
    if stack is not None:
        design.versions.baselines.append(
            Baseline("b1", "H100 training", [BaselineRevision(1, stack)])
        )
        design.versions.assignments.append(Assignment("a1", "b1", "*"))
    return design


_SEQ = iter(range(1, 10**9))


def report(design: Design, node: str, at: str = "2026-03-01T00:00:00Z", **layers: str) -> None:
    """One import of ``layers`` for ``node`` (each row on its own line of one file)."""
    import_id = f"imp{next(_SEQ)}"
    for line, (layer, value) in enumerate(layers.items(), start=1):
        design.versions.observations.append(
            Observation(
                f"o{next(_SEQ)}", node, layer, value, f"{node}.txt", line, at, "ops", import_id
            )
        )


def run(design: Design, rule_id: str) -> list[Finding]:
    """The findings of one rule; the full check must agree."""
    mine = check_design(design, rules=[REGISTRY[rule_id]])
    assert mine == [f for f in check_design(design) if f.rule == rule_id]
    return mine


def only(design: Design, rule_id: str) -> Finding:
    found = run(design, rule_id)
    assert len(found) == 1, found
    return found[0]


# -- VERSION-DRIVER ---------------------------------------------------------------------------


def test_driver_too_old_for_cuda_12_4_is_an_error(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"driver": "520.61.05", "cuda": "12.4"})
    found = only(design, "VERSION-DRIVER")
    assert found.severity is Severity.ERROR and found.objects == ("d0",)
    for figure in ("gpu-n001", "520.61.05", "12.4", "525.60.13", "550.54.14"):
        assert figure in found.message
    assert "CUDA Toolkit Release Notes" in found.message  # the knowledge base row's source


def test_driver_535_with_cuda_12_4_runs_only_through_minor_version_compatibility(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"driver": "535.104.05", "cuda": "12.4"})
    found = only(design, "VERSION-DRIVER")
    assert found.severity is Severity.WARNING
    assert "minor version compatibility" in found.message
    assert "PTX" in found.message  # what is given up
    assert "Driver 550.54.14 or newer removes this warning" in found.message


@pytest.mark.parametrize(
    ("driver", "cuda"),
    [
        ("550.54.14", "12.4"),
        ("580.65.06", "12.4"),  # drivers are backward compatible
        ("535.104.05", "12.2.2"),  # 535.104.05 > 535.54.03 although "104" < "54" as text
        ("535.104.05", "12.2"),
        ("570.124.06", "cu128"),
    ],
)
def test_driver_new_enough_passes(catalog, driver: str, cuda: str) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"driver": driver, "cuda": cuda})
    assert run(design, "VERSION-DRIVER") == []


def test_driver_order_is_numeric_not_text(catalog) -> None:
    """535.54.03 is below CUDA 12.2 Update 2's 535.104.05, though "54" > "104" as text."""
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"driver": "535.54.03", "cuda": "12.2.2"})
    found = only(design, "VERSION-DRIVER")
    assert found.severity is Severity.WARNING and "535.104.05" in found.message


def test_a_cuda_the_knowledge_base_lacks_is_said_not_guessed(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"driver": "550.54.14", "cuda": "12.7"})
    found = only(design, "VERSION-DRIVER")
    assert found.severity is Severity.INFO and "no row for CUDA 12.7" in found.message


def test_a_report_overrides_the_baseline_and_is_named(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"driver": "550.54.14", "cuda": "12.4"})
    assert run(design, "VERSION-DRIVER") == []
    report(design, "gpu-n001", driver="535.104.05")
    found = only(design, "VERSION-DRIVER")
    assert found.severity is Severity.WARNING
    assert "reported in gpu-n001.txt:1" in found.message
    assert "baseline 'H100 training' r1" in found.message  # where the CUDA 12.4 comes from


def test_the_newest_report_wins(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"cuda": "12.4"})
    report(design, "gpu-n001", at="2026-03-02T00:00:00Z", driver="550.54.15")
    report(design, "gpu-n001", at="2026-03-01T00:00:00Z", driver="520.61.05")  # older file
    assert run(design, "VERSION-DRIVER") == []
    report(design, "gpu-n001", at="2026-03-02T00:00:00Z", driver="520.61.05")  # re-import
    assert only(design, "VERSION-DRIVER").severity is Severity.ERROR


# -- VERSION-FRAMEWORK ------------------------------------------------------------------------


def test_framework_built_for_the_node_passes(catalog) -> None:
    stack = {"framework": "2.4.0+cu124", "cuda": "12.4", "driver": "550.54.14"}
    design = make(catalog, ("gpu-n001", DGX_H100), stack=stack)
    assert run(design, "VERSION-FRAMEWORK") == []


def test_framework_build_pytorch_never_shipped_is_a_warning(catalog) -> None:
    stack = {"framework": "2.4.0", "framework_cuda": "12.6", "cuda": "12.6", "driver": "560.35.05"}
    found = only(make(catalog, ("gpu-n001", DGX_H100), stack=stack), "VERSION-FRAMEWORK")
    assert found.severity is Severity.WARNING
    assert "PyTorch 2.4 was published for CUDA 11.8, 12.1, 12.4" in found.message
    assert "12.6" in found.message and "RELEASE.md" in found.message


def test_ngc_prerelease_builds_are_not_held_to_the_wheel_list(catalog) -> None:
    stack = {"framework": "2.4.0a0+3bcc3cd", "framework_cuda": "12.5", "cuda": "12.5"}
    stack["driver"] = "555.42.06"
    assert run(make(catalog, ("gpu-n001", DGX_H100), stack=stack), "VERSION-FRAMEWORK") == []


def test_framework_build_newer_than_the_driver_allows_is_an_error(catalog) -> None:
    stack = {"framework": "2.6.0+cu126", "driver": "520.61.05"}
    found = only(make(catalog, ("gpu-n001", DGX_H100), stack=stack), "VERSION-FRAMEWORK")
    assert found.severity is Severity.ERROR
    assert "cannot run the PyTorch build for CUDA 12.6" in found.message
    assert "560.28.03" in found.message  # CUDA 12.6 GA's driver


def test_framework_build_on_an_older_runtime_and_a_disagreeing_tag(catalog) -> None:
    stack = {"framework": "2.6.0+cu126", "framework_cuda": "12.4", "cuda": "12.4"}
    stack["driver"] = "560.35.05"
    found = run(make(catalog, ("gpu-n001", DGX_H100), stack=stack), "VERSION-FRAMEWORK")
    assert [f.severity for f in found] == [Severity.ERROR]
    assert "CUDA 12.6 build, but its CUDA build layer says 12.4" in found[0].message
    stack = {"framework": "2.6.0+cu126", "cuda": "12.4", "driver": "560.35.05"}
    found = run(make(catalog, ("gpu-n001", DGX_H100), stack=stack), "VERSION-FRAMEWORK")
    assert [f.severity for f in found] == [Severity.WARNING]
    assert "built for CUDA 12.6 but the node's CUDA runtime is 12.4" in found[0].message


# -- VERSION-GPU ------------------------------------------------------------------------------


def test_blackwell_on_an_r550_stack_is_an_error(catalog) -> None:
    stack = {"driver": "550.54.14", "cuda": "12.4", "framework": "2.4.0+cu124"}
    found = only(make(catalog, ("gpu-b001", DGX_B200), stack=stack), "VERSION-GPU")
    assert found.severity is Severity.ERROR
    for figure in ("B200", "Blackwell", "10.0", "570", "12.8", "550.54.14", "Migration Guide"):
        assert figure in found.message


def test_blackwell_on_its_own_stack_passes(catalog) -> None:
    stack = {"driver": "570.124.06", "cuda": "12.8.1", "framework": "2.7.0+cu128"}
    assert run(make(catalog, ("gpu-b001", DGX_B200), stack=stack), "VERSION-GPU") == []


def test_a_framework_build_without_kernels_for_the_gpu_is_an_error(catalog) -> None:
    stack = {"driver": "570.124.06", "cuda": "12.8", "framework": "2.7.0+cu126"}
    found = only(make(catalog, ("gpu-b001", DGX_B200), stack=stack), "VERSION-GPU")
    assert "framework's CUDA build is 12.6" in found.message


def test_an_observed_gpu_is_checked_too(catalog) -> None:
    design = make(catalog, ("gpu-x001", STORAGE), stack={"cuda": "11.7", "driver": "515.43.04"})
    assert run(design, "VERSION-GPU") == []  # the catalog type has no GPU
    report(design, "gpu-x001", gpu_model="NVIDIA H100 80GB HBM3")
    found = only(design, "VERSION-GPU")
    assert "Hopper" in found.message and "11.8" in found.message and "520" in found.message


def test_an_unknown_gpu_is_said_not_guessed_and_amd_is_not_cuda(catalog) -> None:
    design = make(catalog, ("gpu-x001", STORAGE), stack={"cuda": "12.4", "driver": "550.54.14"})
    report(design, "gpu-x001", gpu_model="Matrox G200eW")
    found = only(design, "VERSION-GPU")
    assert found.severity is Severity.INFO and "Matrox G200eW" in found.message
    design = make(catalog, ("gpu-x001", STORAGE), stack={"cuda": "12.4", "driver": "550.54.14"})
    report(design, "gpu-x001", gpu_model="AMD Instinct MI300X")
    assert run(design, "VERSION-GPU") == []


# -- VERSION-ONE-LAYER ------------------------------------------------------------------------


def revise(design: Design, versions: dict[str, str]) -> None:
    baseline = design.versions.baselines[0]
    revision = baseline.revisions[-1].revision + 1
    baseline.revisions.append(BaselineRevision(revision, versions))


def test_a_revision_changing_two_layers_is_a_warning(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"driver": "535.104.05", "cuda": "12.2"})
    assert run(design, "VERSION-ONE-LAYER") == []  # a first revision has nothing before it
    revise(design, {"driver": "550.54.15", "cuda": "12.2"})
    assert run(design, "VERSION-ONE-LAYER") == []  # one layer
    revise(design, {"driver": "560.35.05", "cuda": "12.6", "kernel": "5.15.0-105-generic"})
    found = only(design, "VERSION-ONE-LAYER")
    assert found.severity is Severity.WARNING and found.objects == ("b1",)
    assert "r3 changes 3 layers at once compared with r2" in found.message
    assert "driver 550.54.15 → 560.35.05" in found.message
    assert "kernel (none) → 5.15.0-105-generic" in found.message
    assert "one layer at a time" in REGISTRY["VERSION-ONE-LAYER"].source


# -- VERSION-DRIFT ----------------------------------------------------------------------------


def test_drift_names_layers_expected_observed_and_the_file(catalog) -> None:
    stack = {"driver": "550.54.15", "cuda": "12.4", "kernel": "5.15.0-105-generic"}
    design = make(catalog, ("gpu-n001", DGX_H100), ("gpu-n002", DGX_H100), stack=stack)
    assert run(design, "VERSION-DRIFT") == []  # nothing reported yet: nothing to say
    report(design, "gpu-n001", driver="550.54.15", cuda="12.4.1", kernel="5.15.0-105-generic")
    report(design, "gpu-n002", driver="535.104.05", cuda="12.4", kernel="5.15.0-112-generic")
    found = only(design, "VERSION-DRIFT")  # 12.4.1 meets the 12.4 pin
    assert found.objects == ("d1",)
    assert "gpu-n002 differs from baseline 'H100 training' r1 in 2 layers" in found.message
    assert "driver expected 550.54.15, reported 535.104.05 (gpu-n002.txt:1)" in found.message
    assert "kernel expected 5.15.0-105-generic, reported 5.15.0-112-generic (gpu-n002.txt:3)" in (
        found.message
    )


def test_a_node_without_a_report_is_noted_once_others_reported(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), ("gpu-n002", DGX_H100), stack={"os": "22.04"})
    report(design, "gpu-n001", os="Ubuntu 22.04.4 LTS")
    found = only(design, "VERSION-DRIFT")
    assert found.severity is Severity.INFO and found.objects == ("d1",)
    assert "no imported report names it" in found.message


def test_an_assignment_to_a_deleted_baseline_is_noted(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), stack={"os": "22.04"})
    design.versions.assignments.append(Assignment("a2", "gone", "gpu-n001"))
    found = only(design, "VERSION-DRIFT")
    assert found.severity is Severity.INFO and "'gone'" in found.message


# -- VERSION-MIXED-GPU ------------------------------------------------------------------------


def test_a_node_reporting_two_gpu_models_is_an_error(catalog) -> None:
    design = make(catalog, ("gpu-n001", DGX_H100), ("gpu-n002", DGX_H100), stack={})
    mixed = MIXED_SEPARATOR.join(["NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"])
    report(design, "gpu-n001", gpu_model=mixed)
    report(design, "gpu-n002", gpu_model="NVIDIA H100 80GB HBM3")
    found = only(design, "VERSION-MIXED-GPU")
    assert found.severity is Severity.ERROR and found.objects == ("d0",)
    assert "reports 2 GPU models in gpu-n001.txt:1" in found.message
    assert "NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3" in found.message
    report(design, "gpu-n001", at="2026-04-01T00:00:00Z", gpu_model="NVIDIA H100 80GB HBM3")
    assert run(design, "VERSION-MIXED-GPU") == []  # the newest report is one model


def test_the_separator_is_the_report_parsers_one() -> None:
    from workbench.versions.reports import base

    assert base.MIXED_JOIN == MIXED_SEPARATOR


# -- effective versions -----------------------------------------------------------------------


def test_effective_versions_shape(catalog) -> None:
    design = make(
        catalog, ("gpu-n001", DGX_H100), ("pdu-1", STORAGE), stack={"driver": "550.54.15"}
    )
    design.versions.assignments[0] = Assignment("a1", "b1", "gpu-*")
    design.versions.assignments.append(Assignment("a2", "missing", "gpu-n00?"))
    design.versions.assignments.append(Assignment("a3", "b1", "gpu-n001"))  # last match wins
    report(design, "gpu-n001", driver="535.104.05", gpu_model="NVIDIA H100 80GB HBM3")
    report(design, "old-name", driver="550.54.15")
    table = effective_versions(design)
    assert list(table) == ["gpu-n001", "old-name"]  # pdu-1 matches no assignment
    node = table["gpu-n001"]
    assert (node.device_id, node.baseline_id, node.revision) == ("d0", "b1", 1)
    assert node.effective("driver") == "535.104.05"
    assert [(d.layer, d.expected, d.observed.value) for d in node.drift] == [
        ("driver", "550.54.15", "535.104.05")
    ]
    assert node.gpu_models == ("NVIDIA H100 80GB HBM3",)
    assert table["old-name"].device_id is None and table["old-name"].baseline_id is None
    data = json.loads(json.dumps({k: v.to_json() for k, v in table.items()}))
    assert data["gpu-n001"]["observed"]["driver"] == {
        "value": "535.104.05",
        "source": "gpu-n001.txt",
        "line": 1,
        "observed_at": "2026-03-01T00:00:00Z",
        "import_id": node.observed["driver"].import_id,
    }
    assert data["gpu-n001"]["baseline"] == {"id": "b1", "name": "H100 training", "revision": 1}


# -- the engine ------------------------------------------------------------------------------


def test_incremental_checks_agree_with_a_full_check(catalog) -> None:
    stack = {"driver": "550.54.15", "cuda": "12.4"}
    design = make(catalog, ("gpu-n001", DGX_H100), ("gpu-n002", DGX_H100), stack=stack)
    checker = Checker(design)
    assert [f for f in checker.findings() if f.rule.startswith("VERSION")] == []
    report(design, "gpu-n002", driver="520.61.05")
    checker.update(Change(versions=True))
    assert sorted(checker.findings(), key=repr) == sorted(check_design(design), key=repr)
    assert any(f.rule == "VERSION-DRIVER" and f.objects == ("d1",) for f in checker.findings())
    design.find_device("d1")[1].name = "renamed"  # no report names it now
    checker.update(Change(devices=frozenset({"d1"})))
    assert sorted(checker.findings(), key=repr) == sorted(check_design(design), key=repr)
    assert not any(f.rule == "VERSION-DRIVER" for f in checker.findings())


def test_the_rules_say_what_they_look_at() -> None:
    for registered in VERSION_RULES:
        assert "versions" in registered.looks_at
        assert registered.source.strip()
    assert {r.id for r in VERSION_RULES} == {
        "VERSION-DRIVER",
        "VERSION-FRAMEWORK",
        "VERSION-GPU",
        "VERSION-ONE-LAYER",
        "VERSION-DRIFT",
        "VERSION-MIXED-GPU",
    }


def test_a_broken_knowledge_base_is_one_internal_error_per_rule(catalog, monkeypatch) -> None:
    def broken() -> compat.KnowledgeBase:
        raise compat.CompatError("bad row", "kb/x.yaml", 3, "driver")

    monkeypatch.setattr("workbench.rules.versions.shipped_kb", broken)
    stack = {"driver": "550.54.15", "cuda": "12.4"}
    design = make(catalog, *((f"gpu-n{i:03}", DGX_H100) for i in range(4)), stack=stack)
    errors = [f for f in check_design(design) if f.rule == INTERNAL_ERROR]
    assert len(errors) == 2  # VERSION-DRIVER and VERSION-GPU (no framework here), not one per node
    assert all("kb/x.yaml:3: field 'driver': bad row" in f.message for f in errors)
