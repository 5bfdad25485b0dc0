"""The caps on a capture folder scale with the design it is checked against, and a
folder its sizes already put over them is refused before anything is parsed (issue 21:
a whole-fabric ibnetdiscover of a 1,000,000-GPU campus hit a fixed 256 MiB cap, and
19,192 LLDP tables hit a fixed record cap, each after ~40 s of parsing)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench import asbuilt
from workbench.asbuilt import reading

DATA = Path(__file__).parent / "data" / "captures"


def test_the_caps_grow_with_the_design_and_never_fall_below_the_floors() -> None:
    small = asbuilt.limits_for(100)
    assert small == asbuilt.CaptureLimits()
    campus = asbuilt.limits_for(2_000_000)  # about a 1,000,000-GPU campus's links
    assert campus.records == 8_000_000 > 5_000_000  # 19,192 LLDP tables' records
    assert campus.file_bytes > 648 * 2**20  # its whole-fabric ibnetdiscover file
    # Its ~26,000 Ethernet switches each print a table: more files than the floor.
    assert asbuilt.limits_for(4_400_000, 1_150_000).files == 2_300_000 > 26_154
    assert asbuilt.limits_for(100, 40).files == reading.MAX_FILES


def folder_of(tmp_path: Path) -> Path:
    folder = tmp_path / "captures"
    folder.mkdir()
    source = DATA / "ibnetdiscover" / "fabric.txt"
    for i in range(3):
        shutil.copy(source, folder / f"capture-{i}{source.suffix}")
    return folder


def refused_unparsed(folder: Path, limits: asbuilt.CaptureLimits, monkeypatch) -> str:
    def never(*_args, **_kwargs):
        raise AssertionError("a file was parsed before the sizes were checked")

    monkeypatch.setattr(reading, "read_file", never)
    with pytest.raises(asbuilt.CaptureError) as caught:
        asbuilt.read_folder(folder, who="t", now="2026-12-06T00:00:00Z", limits=limits)
    return str(caught.value)


def test_a_folder_too_big_for_the_design_is_refused_before_parsing(tmp_path, monkeypatch):
    folder = folder_of(tmp_path)
    total = sum(p.stat().st_size for p in folder.iterdir())
    limits = asbuilt.CaptureLimits(folder_bytes=total - 1)
    assert "those of this design are at most" in refused_unparsed(folder, limits, monkeypatch)


def test_a_file_too_big_for_the_design_is_refused_before_parsing(tmp_path, monkeypatch):
    folder = folder_of(tmp_path)
    size = max(p.stat().st_size for p in folder.iterdir())
    limits = asbuilt.CaptureLimits(file_bytes=size - 1)
    message = refused_unparsed(folder, limits, monkeypatch)
    assert "capture-0" in message and "a capture of this design is at most" in message


def test_the_record_cap_is_the_designs(tmp_path) -> None:
    folder = folder_of(tmp_path)
    read = asbuilt.read_folder(folder, who="t", now="2026-12-06T00:00:00Z")
    per_file = len(read.captures) // 3
    with pytest.raises(asbuilt.CaptureError, match="more than"):
        asbuilt.read_folder(
            folder,
            who="t",
            now="2026-12-06T00:00:00Z",
            limits=asbuilt.CaptureLimits(records=2 * per_file),
        )


def test_the_file_count_cap_is_the_designs(tmp_path, monkeypatch) -> None:
    """A folder of more files than the design's cap is refused before any is parsed; as
    many as it allows are read."""
    folder = folder_of(tmp_path)  # three files
    read = asbuilt.read_folder(
        folder, who="t", now="2026-12-06T00:00:00Z", limits=asbuilt.CaptureLimits(files=3)
    )
    assert len(read.files) == 3
    message = refused_unparsed(folder, asbuilt.CaptureLimits(files=2), monkeypatch)
    assert "more than 2 capture files" in message
