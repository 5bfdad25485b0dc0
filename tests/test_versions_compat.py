"""The compatibility knowledge base: each lookup gives the published figure (the source
of each is named beside it), every shipped row carries its source, and a bad row is one
error naming its file, line and field."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.versions.compare import parse_version
from workbench.versions.compat import CONFIDENCE, KB_DIR, load_kb, shipped_kb

V = parse_version


@pytest.fixture(scope="module")
def kb():
    return shipped_kb()


def test_the_shipped_knowledge_base_loads_without_errors() -> None:
    loaded = load_kb()
    assert loaded.errors == []
    assert len(loaded.toolkit_drivers) >= 40
    assert loaded.framework_rows and loaded.architectures and loaded.gpu_models and loaded.notes


def test_every_row_names_its_source_and_how_sure_it_is(kb) -> None:
    rows = [
        *kb.toolkit_drivers,
        *kb.minor_compats,
        *kb.framework_rows,
        *kb.architectures,
        *kb.gpu_models,
        *kb.notes,
    ]
    for row in rows:
        assert row.source.title and row.source.section, row
        # Only the planning documents and the shipped catalog have no public address.
        offline = "planning" in row.source.title or "catalog" in row.source.title
        assert row.source.url.startswith("https://") or offline, row
        assert row.confidence in CONFIDENCE
        if row.confidence == "unverified":
            assert row.note, f"{row.file}:{row.line}: an unverified row must say why"
        assert row.file.endswith(".yaml") and row.line


# CUDA Toolkit Release Notes, "CUDA Toolkit and Corresponding Driver Versions" (Linux
# x86_64 toolkit driver), https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/
@pytest.mark.parametrize(
    ("cuda", "release", "driver"),
    [
        ("11.8", "11.8 GA", "520.61.05"),
        ("12.0", "12.0 GA", "525.60.13"),
        ("12.1", "12.1 GA", "530.30.02"),
        ("12.2", "12.2 GA", "535.54.03"),
        ("12.2.2", "12.2 Update 2", "535.104.05"),
        ("12.4", "12.4 GA", "550.54.14"),
        ("12.4.0", "12.4 GA", "550.54.14"),
        ("12.4.1", "12.4 Update 1", "550.54.15"),
        ("12.6", "12.6 GA", "560.28.03"),
        ("12.6.3", "12.6 Update 3", "560.35.05"),
        ("12.8", "12.8 GA", "570.26"),
        ("12.8.1", "12.8 Update 1", "570.124.06"),
        ("13.0", "13.0 GA", "580.65.06"),
        ("cu124", "12.4 GA", "550.54.14"),
        # A component build number (cudart 12.4.127) is not an update: the GA row.
        ("12.4.127", "12.4 GA", "550.54.14"),
        # 11.0 GA was numbered 11.0.2.
        ("11.0", "11.0 GA", "450.51.05"),
    ],
)
def test_toolkit_driver_of_each_cuda_release(kb, cuda: str, release: str, driver: str) -> None:
    row = kb.toolkit_driver(cuda)
    assert row is not None
    assert (row.release, row.driver) == (release, V(driver))


def test_no_row_for_a_cuda_that_was_never_released(kb) -> None:
    assert kb.toolkit_driver("12.7") is None
    assert kb.toolkit_driver("99.1") is None


# NVIDIA CUDA Compatibility, "Minor Version Compatibility": 11.x from 450.80.02, 12.x
# from R525 (525.60.13 in the release notes' table), 13.x from R580,
# https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html
@pytest.mark.parametrize(
    ("cuda", "driver"),
    [("11.8", "450.80.02"), ("12.4", "525.60.13"), ("12.8", "525.60.13"), ("13.0", "580")],
)
def test_minor_version_compatibility_minimum(kb, cuda: str, driver: str) -> None:
    row = kb.minor_compat(cuda)
    assert row is not None and row.driver == V(driver)


def test_no_minor_version_compatibility_before_cuda_11(kb) -> None:
    assert kb.minor_compat("10.2") is None


# PyTorch RELEASE.md, "Release Compatibility Matrix" (stable + experimental CUDA),
# https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix
@pytest.mark.parametrize(
    ("release", "builds"),
    [
        ("2.1.0", ["11.8", "12.1"]),
        ("2.3.1", ["11.8", "12.1"]),
        ("2.4.0+cu124", ["11.8", "12.1", "12.4"]),
        ("2.5.1", ["11.8", "12.1", "12.4"]),
        ("2.6.0", ["11.8", "12.4", "12.6"]),
        ("2.7.0", ["11.8", "12.6", "12.8"]),
        ("2.8.0", ["12.6", "12.8", "12.9"]),
    ],
)
def test_cuda_builds_of_each_pytorch_release(kb, release: str, builds: list[str]) -> None:
    row = kb.framework_builds("torch", release)
    assert row is not None
    assert [str(b) for b in row.cuda_builds] == builds
    assert kb.framework_builds("PyTorch", release) is row


def test_no_row_for_an_unknown_framework_or_release(kb) -> None:
    assert kb.framework_builds("pytorch", "9.9") is None
    assert kb.framework_builds("tensorflow", "2.15") is None


# Architecture per GPU: NVIDIA's CUDA GPUs list (compute capability), and the shipped
# catalog's GPU slugs.
@pytest.mark.parametrize(
    ("gpu", "arch"),
    [
        ("NVIDIA H100 80GB HBM3", "hopper"),
        ("NVIDIA H100 PCIe", "hopper"),
        ("NVIDIA H200", "hopper"),
        ("NVIDIA H800", "hopper"),
        ("NVIDIA GH200 480GB", "hopper"),
        ("NVIDIA A100-SXM4-80GB", "ampere"),
        ("NVIDIA A800-SXM4-80GB", "ampere"),
        ("NVIDIA A10G", "ampere-ga10x"),
        ("NVIDIA L40S", "ada"),
        ("NVIDIA L40", "ada"),
        ("NVIDIA GeForce RTX 4090", "ada"),
        ("NVIDIA RTX 6000 Ada Generation", "ada"),
        ("Quadro RTX 6000", "turing"),
        ("NVIDIA B200", "blackwell"),
        ("Tesla V100-SXM2-32GB", "volta"),
        ("nvidia-h100-sxm5-80gb", "hopper"),
        ("nvidia-h200-sxm-141gb", "hopper"),
        ("nvidia-b200-sxm-180gb", "blackwell"),
        ("nvidia-a100-sxm4-80gb", "ampere"),
        ("nvidia-l40s", "ada"),
        ("amd-instinct-mi300x", "cdna3"),
        ("H100 SXM5 80GB", "hopper"),  # a catalog model name
    ],
)
def test_architecture_of_a_gpu(kb, gpu: str, arch: str) -> None:
    found = kb.arch_of(gpu)
    assert found is not None and found.arch == arch


def test_every_shipped_catalog_gpu_has_an_architecture(kb) -> None:
    from workbench.catalog import load_catalog

    gpus = load_catalog(include_user=False, strict=True).by_kind("gpu")
    assert gpus
    for item in gpus:
        assert kb.arch_of(item.slug) is not None, item.slug


def test_unknown_gpu_names_give_no_architecture(kb) -> None:
    assert kb.arch_of("Matrox G200eW") is None
    assert kb.arch_of("NVIDIA H1000") is None  # whole words only


# Minimum CUDA and driver per architecture.
@pytest.mark.parametrize(
    ("arch", "cuda", "driver"),
    [
        ("ampere", "11.0", "450"),  # Ampere compatibility guide: native code from CUDA 11.0
        ("ada", "11.8", "520"),  # CMake !8031: sm_89 from CUDA 11.8
        ("hopper", "11.8", "520"),  # sm_90 from 11.8; AI Enterprise 2.3: H100 with 520.61.05
        ("blackwell", "12.8", "570"),  # NVIDIA Blackwell migration guide: CUDA 12.8, R570+
    ],
)
def test_minimum_cuda_and_driver_per_architecture(kb, arch: str, cuda: str, driver: str) -> None:
    row = kb.architecture(arch)
    assert row is not None
    assert (row.min_cuda, row.min_driver) == (V(cuda), V(driver))


def test_amd_architectures_carry_no_cuda_figures(kb) -> None:
    cdna = kb.architecture("cdna3")
    assert cdna is not None and cdna.vendor == "amd" and cdna.min_cuda is None


def test_driver_and_kernel_notes(kb) -> None:
    kernel = {n.id for n in kb.notes_for("kernel")}
    assert {"dkms-pinned-kernel", "version-mismatch"} <= kernel
    mismatch = next(n for n in kb.notes if n.id == "version-mismatch")
    assert "Driver/library version mismatch" in mismatch.text


# -- validation -------------------------------------------------------------------------------

SOURCE = """  source:
    title: T
    url: https://example.org/
    section: S
"""


def write(folder: Path, text: str, name: str = "kb.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def errors_of(folder: Path) -> list[str]:
    return [str(e) for e in load_kb(folder).errors]


def test_a_good_row_loads(tmp_path: Path) -> None:
    write(
        tmp_path,
        f'toolkit_drivers:\n- cuda: "12.4"\n  release: 12.4 GA\n  driver: "550.54.14"\n'
        f"  confidence: primary\n{SOURCE}",
    )
    loaded = load_kb(tmp_path)
    assert loaded.errors == []
    assert loaded.toolkit_driver("12.4").driver == V("550.54.14")


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            '- cuda: "12.4"\n  release: GA\n  driver: "550.54.14"\n  confidence: primary\n',
            r"kb\.yaml:2: field 'toolkit_drivers\[0\]\.source': is missing",
        ),
        (
            f'- cuda: "12.4"\n  release: GA\n  driver: "550.54.14"\n  confidence: sure\n{SOURCE}',
            r"kb\.yaml:5: field 'toolkit_drivers\[0\]\.confidence': 'sure'; use one of",
        ),
        (
            f'- cuda: 12.4\n  release: GA\n  driver: "550.54.14"\n  confidence: primary\n{SOURCE}',
            r"kb\.yaml:2: .*cuda'.*write the version in quotes",
        ),
        (
            f'- cuda: "12.4"\n  release: GA\n  driver: "latest"\n  confidence: primary\n{SOURCE}',
            r"kb\.yaml:4: .*driver'.*'latest' is not a version",
        ),
        (
            f'- cuda: "12.4"\n  release: GA\n  drivr: "550.54.14"\n  confidence: primary\n{SOURCE}',
            r"kb\.yaml:4: .*drivr'.*unknown field",
        ),
        (
            f'- cuda: "12.4"\n  release: GA\n  driver: "550.54.14"\n  confidence: primary\n{SOURCE.replace("https://example.org/", "http://example.org/")}',
            r"kb\.yaml:8: .*url'.*https://",
        ),
    ],
)
def test_a_bad_row_is_one_error_with_file_line_and_field(
    tmp_path: Path, row: str, expected: str
) -> None:
    write(tmp_path, "toolkit_drivers:\n" + row)
    found = errors_of(tmp_path)
    assert len(found) == 1, found
    assert found[0] == found[0].strip() and "\n" not in found[0]
    assert re.search(expected, found[0]), found[0]


def test_every_bad_row_is_reported_and_the_good_ones_kept(tmp_path: Path) -> None:
    good = f'- cuda: "12.4"\n  release: GA\n  driver: "550.54.14"\n  confidence: primary\n{SOURCE}'
    bad = f'- cuda: "12.5"\n  release: GA\n  driver: "x"\n  confidence: primary\n{SOURCE}'
    write(tmp_path, "toolkit_drivers:\n" + bad + good + bad.replace("12.5", "12.6"))
    loaded = load_kb(tmp_path)
    assert len(loaded.errors) == 2
    assert [str(r.cuda) for r in loaded.toolkit_drivers] == ["12.4"]


def test_unknown_sections_duplicates_and_references_are_errors(tmp_path: Path) -> None:
    row = f'- cuda: "12.4"\n  release: GA\n  driver: "550.54.14"\n  confidence: primary\n{SOURCE}'
    model = f'- arch: nowhere\n  names: ["X1"]\n  confidence: primary\n{SOURCE}'
    write(tmp_path, "toolkit_drivers:\n" + row + row + "gpu_model:\n- {}\ngpu_models:\n" + model)
    found = errors_of(tmp_path)
    assert any("kb.yaml:10: the same CUDA release again (first on" in e for e in found), found
    assert any("kb.yaml:18: unknown section" in e for e in found), found
    assert any("unknown architecture 'nowhere'" in e for e in found), found


def test_yaml_that_could_expand_or_run_code_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "toolkit_drivers: &a\n- *a\n")
    write(tmp_path, "notes: !!python/object:os.system {}\n", name="b.yaml")
    found = errors_of(tmp_path)
    assert any("kb.yaml" in e and "alias" in e for e in found), found
    assert any("b.yaml:1" in e and "tag" in e for e in found), found


def test_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    assert "not found" in errors_of(tmp_path / "nope")[0]


def test_the_shipped_folder_is_inside_the_package() -> None:
    assert KB_DIR.is_dir() and sorted(p.name for p in KB_DIR.glob("*.yaml"))
