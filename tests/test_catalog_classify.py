"""Kind, role and GPUs come from the evidence in a NetBox file, each with its reasons,
and what the file cannot tell is asked (never guessed) before an import."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from workbench.catalog import load_file
from workbench.catalog.classify import CONFIDENT, classify
from workbench.catalog.item import RACKABLE_KINDS
from workbench.cli.main import main

NETBOX = Path(__file__).parent / "data" / "netbox"


def _raw(name: str) -> dict:
    return yaml.safe_load((NETBOX / name).read_text())


@pytest.mark.parametrize(
    ("name", "kind", "role", "gpu", "count"),
    [
        ("nvidia-dgx-a100-library.yaml", "server", "gpu-server", "nvidia-a100-sxm4-80gb", 8),
        ("supermicro-as-8125gs-tnmr2.yaml", "server", "gpu-server", "amd-instinct-mi300x", 8),
        ("dell-poweredge-xe9680.yaml", "server", "gpu-server", "nvidia-h100-sxm5-80gb", 8),
        ("pure-storage-flashblade-s200.yaml", "storage", "storage", None, 0),
        ("netapp-aff-a900.yaml", "storage", "storage", None, 0),
        ("ddn-ai400x2.yaml", "storage", "storage", None, 0),
        ("vast-data-ceres-dbox.yaml", "storage", "storage", None, 0),
        ("dell-powerscale-f710.yaml", "storage", "storage", None, 0),
        ("mellanox-sn2100.yaml", "switch", "compute-switch", None, 0),
        ("edgecore-as7326-56x.yaml", "switch", "compute-switch", None, 0),
        ("arista-dcs-7050sx3-48yc8.yaml", "switch", "compute-switch", None, 0),
        ("juniper-ex2300-48t.yaml", "switch", "management-switch", None, 0),
        ("nvidia-qm9700-library.yaml", "switch", "compute-switch", None, 0),
        ("apc-ap8886.yaml", "pdu", "pdu", None, 0),
    ],
)
def test_each_file_is_classified_from_its_evidence(name, kind, role, gpu, count):
    found = classify(_raw(name))
    assert (found.kind.value, found.role.value) == (kind, role), found.kind.describe()
    assert (found.gpu.value, found.gpu_count.value) == (gpu, count)
    assert not found.ambiguous, [q.describe() for q in found.questions()]
    assert all(d.evidence for d in found.decisions())  # every decision says why
    [item] = load_file(NETBOX / name).items  # and the parser takes the same decisions
    assert (item.kind, item.role, item.gpu, item.gpu_count) == (kind, role, gpu, count)


@pytest.mark.parametrize("name", ["panduit-cp48blu.yaml", "vertiv-xdu070.yaml"])
def test_patch_panels_and_cdus_are_passive_rack_items(name):
    found = classify(_raw(name))
    assert found.role.value == "other" and found.kind.confidence >= CONFIDENT
    result = load_file(NETBOX / name)
    [item] = result.items
    assert found.kind.value == "infrastructure"
    assert item.kind == "infrastructure" and item.role == "other" and item.max_power_w is None
    assert not any("passive rack item" in w.message for w in result.warnings)  # no stand-in
    assert "infrastructure" in RACKABLE_KINDS  # takes rack units like any rack item


@pytest.mark.parametrize(
    ("name", "candidates"),
    [
        ("dell-poweredge-xe8545.yaml", {"nvidia-a100-sxm4-40gb", "nvidia-a100-sxm4-80gb"}),
        ("dell-poweredge-xe9680-any.yaml", {"nvidia-h100-sxm5-80gb", "amd-instinct-mi300x"}),
        ("nvidia-gb300-compute-tray.yaml", set()),
    ],
)
def test_a_gpu_the_file_does_not_name_is_a_question(name, candidates):
    found = classify(_raw(name))
    assert found.role.value == "gpu-server" and found.gpu_count.certain
    [question] = found.questions()
    assert question.field == "gpu" and question.value is None
    assert candidates <= set(question.candidates)
    answered = found.answered(gpu="nvidia-a100-sxm4-80gb", gpu_count=4)
    assert not answered.ambiguous and answered.gpu.evidence == ("stated by the user",)


def test_a_file_with_no_evidence_is_asked_about():
    found = classify({"manufacturer": "Acme", "model": "Box 1", "slug": "acme-box-1"})
    assert found.kind.confidence < CONFIDENT and "switch" in found.kind.candidates
    assert "--kind" in found.refusal() and found.to_dict()["kind"]["certain"] is False


def test_stated_fields_win_over_evidence():
    raw = _raw("mellanox-sn2100.yaml") | {"kind": "server", "role": "cpu-server"}
    found = classify(raw)
    assert (found.kind.value, found.role.value, found.kind.confidence) == (
        "server",
        "cpu-server",
        1,
    )


def test_cli_refuses_an_ambiguous_file_and_takes_the_answer(tmp_path, capsys):
    dest = tmp_path / "user"
    source = NETBOX / "dell-poweredge-xe8545.yaml"
    assert main(["catalog", "import-netbox", "--dest", str(dest), str(source)]) == 1
    err = capsys.readouterr().err
    assert "cannot tell without guessing: gpu?" in err and "--gpu SLUG --gpu-count N" in err
    assert (
        "nvidia-a100-sxm4-40gb" in err and not dest.joinpath("dell-poweredge-xe8545.yaml").exists()
    )
    code = main(
        ["catalog", "import-netbox", "--dest", str(dest), "--gpu", "nvidia-a100-sxm4-80gb",
         "--gpu-count", "4", str(source)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    copied = (dest / "dell-poweredge-xe8545.yaml").read_bytes()
    assert copied.startswith(source.read_bytes())  # the original, then our own fields
    [item] = load_file(dest / "dell-poweredge-xe8545.yaml").items
    assert (item.gpu, item.gpu_count, item.role) == ("nvidia-a100-sxm4-80gb", 4, "gpu-server")


LIBRARY = Path(__file__).parent / "data" / "netbox_library"


def _library(path: str) -> dict:
    return yaml.safe_load((LIBRARY / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("path", "count"),
    [
        ("Supermicro/SYS-421GE-TNRT.yaml", 8),  # once a CPU server with 0 GPUs, silently
        ("Supermicro/SYS-4029GP-TRT.yaml", 8),
        ("Supermicro/SYS-4029GP-TRT2.yaml", 10),
        ("Lenovo/ThinkSystem-SR680a-v3.yaml", 8),
        ("Lenovo/ThinkSystem-SR675-v3.yaml", 8),
        ("Nvidia/DGX-Spark.yaml", 1),
        ("Supermicro/AS-4126GS-NMR-LCC.yml", 8),
        ("Supermicro/ARS-121GL-NB3-LCC-R1.yaml", 4),
        ("Gigabyte/XV23-ZX0-AAJ1.yaml", 4),
    ],
)
def test_a_server_with_gpu_evidence_is_never_taken_with_zero_gpus(path, count):
    """Real library files: the GPU evidence makes a GPU server, and what the file does
    not settle (which GPU, how many in a PCIe chassis) is asked, best guess first."""
    found = classify(_library(path))
    assert (found.kind.value, found.role.value) == ("server", "gpu-server")
    assert found.kind.certain and found.role.certain
    assert found.gpu_count.value == count  # the likely answer comes first
    assert found.ambiguous and {q.field for q in found.questions()} <= {"gpu", "gpu_count"}


def test_comments_and_gpu_bays_settle_an_mi300x_server():
    """AS-8125GS-TNMR2: 'comments say 8x AMD Instinct MI300X' and eight bays named GPU;
    once guessed storage from its drive bays."""
    found = classify(_library("Supermicro/AS-8125GS-TNMR2.yml"))
    assert not found.ambiguous, found.refusal()
    assert (found.kind.value, found.role.value) == ("server", "gpu-server")
    assert (found.gpu.value, found.gpu_count.value) == ("amd-instinct-mi300x", 8)


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("Nvidia/SN2201.yaml", "management-switch"),  # 48 x 1G, 4 x 100G uplinks
        ("Dell/Networking_N3248TE-ON.yaml", "management-switch"),
        ("Arista/DCS-7010TX-48.yaml", "management-switch"),
        ("Cisco/N9K-C93108TC-FX.yaml", "management-switch"),
        ("Dell/Networking_s5248f-on-os10.yaml", "compute-switch"),  # 48 x 25G: a leaf
        ("Mellanox/SN2010.yml", "compute-switch"),  # swp ports, once guessed a server
        ("Nvidia/NVLink-5-Switch.yaml", "compute-switch"),  # once a management switch
        ("Nvidia/Q3400-RA.yaml", "compute-switch"),
    ],
)
def test_access_ports_decide_management_or_fabric(path, role):
    found = classify(_library(path))
    assert (found.kind.value, found.role.value) == ("switch", role), found.role.describe()
    assert not found.ambiguous


@pytest.mark.parametrize(
    "path",
    [
        "Lenovo/ThinkSystem-DE4000H.yaml",
        "Lenovo/ThinkSystem-DG5200.yaml",
        "HPE/Alletra-6000.yaml",
        "HPE/Alletra-Storage-MP-B10120.yaml",
        "Dell/EMC-MD1400.yml",
        "Supermicro/SSG-6049P-E1CR36H.yml",
    ],
)
def test_storage_lines_of_server_makers_are_storage(path):
    found = classify(_library(path))
    assert (found.kind.value, found.role.value) == ("storage", "storage")
    assert not found.ambiguous, found.refusal()


def test_an_answered_kind_recomputes_the_role():
    found = classify(_library("Lenovo/ThinkSystem-DE4000H.yaml")).answered(kind="server")
    assert (found.kind.value, found.role.value) == ("server", "cpu-server")
    switch = classify(_library("Nvidia/SN2201.yaml")).answered(kind="switch")
    assert switch.role.value == "management-switch"  # from the ports, not a default


def test_gpu_server_without_a_gpu_asks_for_one(tmp_path, capsys):
    found = classify(_library("Lenovo/ThinkSystem-SR650-v3.yaml")).answered(role="gpu-server")
    assert {q.field for q in found.questions()} == {"gpu", "gpu_count"}
    dest = tmp_path / "user"
    source = LIBRARY / "Lenovo" / "ThinkSystem-SR650-v3.yaml"
    args = ["catalog", "import-netbox", "--dest", str(dest), "--role", "gpu-server"]
    assert main([*args, str(source)]) == 1
    assert "gpu? best guess None" in capsys.readouterr().err
    more = ["--gpu", "nvidia-l40s", "--gpu-count", "4", str(source)]
    assert main([*args, *more]) == 0, capsys.readouterr().err
    [item] = load_file(dest / "lenovo-thinksystem-sr650-v3.yaml").items
    assert (item.role, item.gpu, item.gpu_count) == ("gpu-server", "nvidia-l40s", 4)


def test_an_answered_gpu_writes_the_count_the_file_gives(tmp_path, capsys):
    dest = tmp_path / "user"
    source = LIBRARY / "Lenovo" / "ThinkSystem-SR680a-v3.yaml"
    assert main(["catalog", "import-netbox", "--dest", str(dest), str(source)]) == 1
    err = capsys.readouterr().err
    assert "nvidia-h100-sxm5-80gb, nvidia-h200-sxm-141gb" in err  # likely answers first
    args = ["catalog", "import-netbox", "--dest", str(dest), "--gpu", "nvidia-h200-sxm-141gb"]
    assert main([*args, str(source)]) == 0, capsys.readouterr().err
    [item] = load_file(dest / "lenovo-thinksystem-sr680a-v3.yaml").items
    assert (item.kind, item.role, item.gpu, item.gpu_count) == (
        "server", "gpu-server", "nvidia-h200-sxm-141gb", 8,
    )  # fmt: skip
