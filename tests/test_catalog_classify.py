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
