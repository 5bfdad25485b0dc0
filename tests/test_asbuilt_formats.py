"""Each capture format against the design: every verdict, and malformed files refused
with file and line.

The samples under ``tests/data/captures/`` were written by ``make_captures.py`` from the
256-GPU SuperPOD template, each with one fault of every kind its format can show;
``expected.json`` names the faulted links.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench import asbuilt
from workbench.asbuilt.matcher import DISCREPANCIES
from workbench.templates import build_template

DATA = Path(__file__).parent / "data" / "captures"
EXPECTED = json.loads((DATA / "expected.json").read_text())
NOW = "2026-04-02T08:00:00Z"


@pytest.fixture(scope="module")
def design():
    return build_template("dgx-h100-superpod", gpus=256)


def _verdicts(design, folder: Path):
    read = asbuilt.read_folder(folder, who="tester", now=NOW)
    design.captures[:] = read.captures
    try:
        return read, asbuilt.check(design)
    finally:
        design.captures.clear()


def _by_end(design, verdicts):
    name = {d.id: d.name for _, d in design.iter_devices()}
    out = {}
    for v in verdicts:
        if v.link_id is None:
            continue
        link = design.index.links[v.link_id]
        out[(name[link.a_device], link.a_port)] = v
        out[(name[link.b_device], link.b_port)] = v
    return out


@pytest.mark.parametrize("folder", sorted(EXPECTED))
def test_every_fault_gets_its_verdict_and_the_rest_are_correct(design, folder: str) -> None:
    read, verdicts = _verdicts(design, DATA / folder)
    assert {fmt for _, fmt, _ in read.files} == {folder}
    ends = _by_end(design, verdicts)
    faulted = set()
    for fault in EXPECTED[folder]["faults"]:
        v = ends[(fault["device"], fault["port"])]
        assert v.verdict == fault["verdict"], (fault, v)
        faulted.add(v.link_id)
    others = [v for v in verdicts if v.link_id and v.link_id not in faulted]
    assert {v.verdict for v in others} <= {"correct", "unchecked"}
    assert sum(v.verdict == "correct" for v in others) > 0
    unexpected = [v for v in verdicts if v.verdict == "unexpected"]
    assert len(unexpected) == EXPECTED[folder]["unexpected"]
    assert unexpected[0].where.startswith(tuple(f for f, _, _ in read.files))


def test_each_format_shows_each_verdict_it_can() -> None:
    """Every verdict is in the samples; only SONiC's table (no speed column) cannot show
    a wrong speed."""
    for folder, spec in EXPECTED.items():
        shown = {f["verdict"] for f in spec["faults"]} | {"unexpected"}
        wanted = set(DISCREPANCIES) - ({"wrong-speed"} if folder == "sonic-lldp" else set())
        assert shown == wanted, folder


def test_ib_names_rates_and_details(design) -> None:
    _, verdicts = _verdicts(design, DATA / "ibnetdiscover")
    ends = _by_end(design, verdicts)
    slow = ends[("gpu00006", "compute2")]
    assert (slow.expected_gbps, slow.found_gbps) == (400.0, 200.0)
    assert "4x at 200G" in slow.detail
    assert "storage2" in ends[("gpu00005", "compute3")].detail
    swapped = ends[("gpu00002", "compute0")]
    partner = ends[("gpu00002", "compute1")]
    assert partner.link_id in swapped.detail


def test_all_folders_together_add_up(design, tmp_path: Path) -> None:
    """One folder holding every format: each file is told apart by its content."""
    folder = tmp_path / "site"
    folder.mkdir()
    for sub in EXPECTED:
        for f in (DATA / sub).iterdir():
            shutil.copy(
                f, folder / f"{sub}-{f.name}" if sub == "ibnetdiscover" else folder / f.name
            )
    read, verdicts = _verdicts(design, folder)
    assert {fmt for _, fmt, _ in read.files} == set(EXPECTED)
    assert sum(n for _, _, n in read.files) == len(read.captures) > 500
    # The files disagree about a few cables (samples of different faults), but every
    # kind of verdict still shows, and each file is named where it is the source.
    assert {v.verdict for v in verdicts} >= set(DISCREPANCIES)
    sources = {v.where.split(":")[0] for v in verdicts if v.where}
    assert {"ibnetdiscover-fabric.txt", "sto-leaf-002.txt", "gpu00004.json"} <= sources


def _broken(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize(
    ("name", "edit", "problem"),
    [
        (
            "fabric.txt",
            lambda t: t.replace("4xNDR", "4xZZZ", 1),
            r"fabric\.txt:11: unknown InfiniBand rate 4xZZZ",
        ),
        (
            "fabric.txt",
            lambda t: t.replace('[2]\t"H-', '[2]\t"Q-', 1),
            r"fabric\.txt:12: not an ibnetdiscover port line",
        ),
        (
            "fabric.txt",
            lambda t: t.replace("vendid=0x2c9", "garbage here", 2),
            r"fabric\.txt:\d+: not an ibnetdiscover line",
        ),
    ],
)
def test_malformed_ibnetdiscover_names_file_and_line(tmp_path: Path, name, edit, problem) -> None:
    text = edit((DATA / "ibnetdiscover" / "fabric.txt").read_text())
    with pytest.raises(asbuilt.CaptureError, match=problem):
        asbuilt.read_folder(_broken(tmp_path, name, text), who="t", now=NOW)


def test_malformed_tables_name_file_and_line(tmp_path: Path) -> None:
    nvue = (DATA / "nvue-lldp" / "sto-leaf-001.txt").read_text().splitlines()
    nvue[9] = "swp7 oops this line is not a row of the table at all"
    with pytest.raises(asbuilt.CaptureError, match=r"sto-leaf-001\.txt:10: not a row of the table"):
        asbuilt.read_folder(
            _broken(tmp_path, "sto-leaf-001.txt", "\n".join(nvue)), who="t", now=NOW
        )
    nclu = (DATA / "nclu-lldp" / "mgt-tor-a01.txt").read_text().replace("10G ", "fast", 1)
    with pytest.raises(
        asbuilt.CaptureError, match=r"mgt-tor-a01\.txt:5: speed 'fast' is not a speed"
    ):
        asbuilt.read_folder(_broken(tmp_path / "n", "mgt-tor-a01.txt", nclu), who="t", now=NOW)
    sonic = (DATA / "sonic-lldp" / "sto-leaf-002.txt").read_text().splitlines()
    sonic[6] = sonic[6].replace("gpu00004", "gpu\x0700004")
    with pytest.raises(asbuilt.CaptureError, match=r"sto-leaf-002\.txt:7: .*control characters"):
        asbuilt.read_folder(
            _broken(tmp_path / "s", "sto-leaf-002.txt", "\n".join(sonic)), who="t", now=NOW
        )


def test_malformed_json_names_file_and_line(tmp_path: Path) -> None:
    text = (DATA / "lldpctl-json" / "gpu00001.json").read_text().splitlines()
    text[20] = text[20] + ","  # a trailing comma lldpctl never writes
    with pytest.raises(asbuilt.CaptureError, match=r"gpu00001\.json:\d+: not valid JSON"):
        asbuilt.read_folder(_broken(tmp_path, "gpu00001.json", "\n".join(text)), who="t", now=NOW)
    data = json.loads((DATA / "lldpctl-json" / "gpu00005.json").read_text())
    del data["lldp"]["interface"]["eno3"]["port"]
    with pytest.raises(asbuilt.CaptureError, match=r"gpu00005\.json:4: interface 'eno3' lacks"):
        asbuilt.read_folder(_broken(tmp_path / "j", "gpu00005.json", json.dumps(data, indent=2)),
                            who="t", now=NOW)  # fmt: skip


def test_unknown_and_oversized_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(
        asbuilt.CaptureError, match=r"notes\.txt: not a capture this workbench reads"
    ):
        asbuilt.read_folder(_broken(tmp_path, "notes.txt", "hello\n"), who="t", now=NOW)
    long = _broken(tmp_path / "l", "x.txt", 'Switch\t64 "S-01" # "a"\n' + "#" * 5000 + "\n")
    with pytest.raises(asbuilt.CaptureError, match=r"x\.txt:2: line longer than"):
        asbuilt.read_folder(long, who="t", now=NOW)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(asbuilt.CaptureError, match="holds no capture files"):
        asbuilt.read_folder(empty, who="t", now=NOW)


def test_one_neighbour_is_an_object_several_a_list(design) -> None:
    """lldpd folds a one-element list into the element: both shapes read the same."""
    one = json.loads((DATA / "lldpctl-json" / "gpu00005.json").read_text())
    assert isinstance(one["lldp"]["interface"], dict)
    many = json.loads((DATA / "lldpctl-json" / "gpu00001.json").read_text())
    assert isinstance(many["lldp"]["interface"], list)
    _, seen = asbuilt.read_file(DATA / "lldpctl-json" / "gpu00005.json")
    assert [(s.local_device, s.remote_device, s.remote_port) for s in seen] == [
        ("gpu00005", "mgt-tor-a02", "eth1")
    ]
