"""Captures in the project file (schema 8), ``workbench asbuilt`` and the as-built sheet."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import openpyxl
import pytest
from cli_helpers import digest, run

from workbench import asbuilt
from workbench.export.asbuilt_sheet import write_asbuilt
from workbench.store import ProjectFileError, open_design, save_design
from workbench.templates import build_template

DATA = Path(__file__).parent / "data"
CAPTURES = DATA / "captures"


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("p") / "pod.dcwb"
    save_design(build_template("dgx-h100-superpod", gpus=256), path)
    return path


def _copy(saved: Path, tmp_path: Path) -> Path:
    target = tmp_path / "pod.dcwb"
    shutil.copyfile(saved, target)
    return target


def test_captures_round_trip_and_a_bad_row_is_named(saved: Path, tmp_path: Path) -> None:
    design = open_design(saved)
    read = asbuilt.read_folder(CAPTURES / "lldpctl-json", who="ana", now="2026-04-02T08:00:00Z")
    design.captures[:] = read.captures
    path = tmp_path / "with.dcwb"
    save_design(design, path)
    back = open_design(path)
    assert back.captures == list(read.captures) and len(back.captures) == 13
    first = back.captures[0]
    assert (first.source, first.format, first.imported_by) == (
        "gpu00001.json",
        "lldpctl-json",
        "ana",
    )
    assert first.speed_gbps == 10.0 and first.line > 1
    conn = sqlite3.connect(path)
    conn.execute("UPDATE captures SET format = 'telnet' WHERE seq = 2")
    conn.commit()
    conn.close()
    with pytest.raises(ProjectFileError, match=r"captures row 2, format: 'telnet' is not one of"):
        open_design(path)


def test_v7_sample_opens_with_its_results_and_no_captures(tmp_path: Path) -> None:
    copy = tmp_path / "v7.dcwb"
    shutil.copyfile(DATA / "project_v7.dcwb", copy)
    before = copy.read_bytes()
    design = open_design(copy)
    assert design.name == "Sample saved by schema version 7"
    assert [r.verdict for r in design.acceptance] == ["PASS", "FAIL"]
    assert design.captures == []
    assert copy.read_bytes() == before
    assert not asbuilt.verdicts(design)


def test_cli_stores_prints_and_exits_by_verdicts(saved: Path, tmp_path: Path) -> None:
    path = _copy(saved, tmp_path)
    done = run("asbuilt", str(path), str(CAPTURES / "ibnetdiscover"), "--json")
    assert done.returncode == 1, done.stderr
    out = json.loads(done.stdout)
    assert out["totals"]["overall"]["swapped"] == 4
    assert out["totals"]["planes"]["compute"]["missing"] == 1
    assert out["files"] == [{"file": "fabric.txt", "format": "ibnetdiscover", "records": 512}]
    assert any(
        v["verdict"] == "unexpected" and v["where"].startswith("fabric.txt:")
        for v in out["verdicts"]
    )
    assert len(open_design(path).captures) == 512
    # Captures that match the design exactly: exit 0, and the stored ones are replaced.
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "gpu00005.json").write_bytes(
        (CAPTURES / "lldpctl-json" / "gpu00005.json").read_bytes()
    )
    done = run("asbuilt", str(path), str(clean))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 correct" in done.stdout
    assert [c.source for c in open_design(path).captures] == ["gpu00005.json"]


def test_cli_says_each_long_step(saved: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    """Reading a folder, checking every link and printing the verdicts are each a step
    that announces itself past two seconds (a whole-fabric capture of a 1,000,000-GPU
    campus reads ~19,000 files and checks 4.4 million links): every such step, in order,
    between the open and the write that already say so."""
    from workbench.cli import progress
    from workbench.cli.main import main

    labels: list[str] = []
    real = progress.step

    def recorded(label: str, *args, **kwargs):
        labels.append(label)
        return real(label, *args, **kwargs)

    monkeypatch.setattr(progress, "step", recorded)
    path = _copy(saved, tmp_path)
    links = len(open_design(path).links)
    assert main(["asbuilt", str(path), str(CAPTURES / "ibnetdiscover"), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["files"][0]["records"] == 512
    assert labels == [
        "opening pod.dcwb",
        "reading the captures in ibnetdiscover",
        "writing pod.dcwb",
        f"checking {links:,} links against the captures",
        "counting the verdicts by plane, row and rack",
        "printing every verdict",
    ]


def test_cli_refuses_a_malformed_capture_and_changes_nothing(saved: Path, tmp_path: Path) -> None:
    path = _copy(saved, tmp_path)
    before = digest(path)
    bad = tmp_path / "bad"
    shutil.copytree(CAPTURES / "nclu-lldp", bad)
    (bad / "zz.txt").write_text('Switch\t64 "S-0a"\t\t# "leaf"\n[1]\t"H-0b"[1] # broken\n')
    done = run("asbuilt", str(path), str(bad))
    assert done.returncode == 2
    assert "zz.txt:2: not an ibnetdiscover port line" in done.stderr
    assert "nothing changed" in done.stderr
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "pod.dcwb"]


def test_asbuilt_sheet_reads_back(saved: Path, tmp_path: Path) -> None:
    design = open_design(saved)
    design.captures[:] = asbuilt.read_folder(
        CAPTURES / "nvue-lldp", who="", now="2026-04-02T08:00:00Z"
    ).captures
    target = write_asbuilt(design, tmp_path / "asbuilt.xlsx")
    wb = openpyxl.load_workbook(target)
    ws = wb["As built"]
    rows = list(ws.iter_rows(values_only=True))
    header = rows[0]
    assert header[:3] == ("Verdict", "Link", "Plane") and header[-3:] == (
        "Fixed",
        "Signed by",
        "Date",
    )
    body = rows[1:]
    assert len(body) == len(design.links) + 1  # every link, and the unexpected one
    verdicts = [r[0] for r in body]
    assert verdicts[0] == "wrong-port" and verdicts[-1] == "correct"
    swapped = [r for r in body if r[0] == "swapped"]
    assert len(swapped) == 2 and {r[5] for r in swapped} <= {"gpu00003", "gpu00004", "sto-leaf-001"}
    slow = next(r for r in body if r[0] == "wrong-speed")
    assert (slow[9], slow[11]) == (200, 100) and slow[13].startswith("sto-leaf-001.txt:")
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref.startswith("A1:")
    assert any("yes,no" in (dv.formula1 or "") for dv in ws.data_validations.dataValidation)
    totals = {(r[0], r[1]): r for r in wb["Totals"].iter_rows(min_row=2, values_only=True)}
    assert totals[("plane", "storage")][3] == 1  # Scope, Name, then VERDICTS: wrong-speed


def test_check_tells_its_parts_and_gives_the_same_verdicts(saved: Path, monkeypatch) -> None:
    """asbuilt.check's progress (a whole-fabric check at 1,000,000 GPUs takes minutes):
    its parts in order, the captured neighbours and touched links told every
    TELL_EVERY of them, the fractions rising and below 1; the verdicts as without."""
    from workbench.asbuilt import matcher

    design = open_design(saved)
    read = asbuilt.read_folder(CAPTURES / "ibnetdiscover", who="ana", now="2026-04-02T08:00:00Z")
    plain = asbuilt.check(design, read.captures)
    monkeypatch.setattr(matcher, "TELL_EVERY", 100)
    told: list[tuple[float, str]] = []
    verdicts = asbuilt.check(design, read.captures, lambda f, part: told.append((f, part)))
    assert verdicts == plain
    parts = [part.split(":")[0] for _f, part in told]
    assert list(dict.fromkeys(parts)) == [
        "the design's link ends",
        "reading",
        "the links no capture touches",
        "matching",
        "looking into 5 links not found as designed",  # the sample's planted faults
        "captured cables the design lacks",
    ]
    records = len(read.captures)
    assert [p for _f, p in told if p.startswith("reading")] == [
        f"reading: {first:,} of {records:,} captured neighbours" for first in range(0, records, 100)
    ]
    fractions = [f for f, _part in told]
    assert fractions == sorted(fractions) and fractions[-1] < 1.0


def test_the_read_tells_each_file_by_its_share_of_the_bytes(tmp_path: Path) -> None:
    """read_folder's progress: before each file, the share of the folder read so far
    by bytes and a weight per file (one big ibnetdiscover file is most of a
    whole-fabric capture's bytes, its 26,000 small tables a third of its time), the
    file's name and size, then 1.0 at the end."""
    from workbench.asbuilt import reading

    folder = tmp_path / "caps"
    shutil.copytree(CAPTURES / "lldpctl-json", folder)
    names = sorted(p.name for p in folder.iterdir())
    sizes = [(folder / n).stat().st_size for n in names]
    told: list[tuple[float, str]] = []
    asbuilt.read_folder(folder, who="ana", now="2026-04-02T08:00:00Z",
                        progress=lambda f, what: told.append((f, what)))  # fmt: skip
    assert len(names) > 1
    assert told[-1] == (1.0, "")
    weights = [size + reading.FILE_WEIGHT for size in sizes]
    assert [f for f, _what in told[:-1]] == [
        sum(weights[:k]) / sum(weights) for k in range(len(names))
    ]
    assert [what.split(" (")[0] for _f, what in told[:-1]] == names
    assert all(
        what.endswith(f"file {k:,} of {len(names):,}") for k, (_f, what) in enumerate(told[:-1], 1)
    )
