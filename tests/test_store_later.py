"""Opening a file in two parts (``store.later``) judges it exactly as ``open_design``.

The window started on a file opens it without its links, draws, and reads the links
afterwards (:mod:`workbench.store.later`).  Whatever a file holds, the two parts
together must come to the same verdict as one ``open_design``: the same design, row for
row, or the same refusal, word for word, naming the file.  Compared here over the
seeded corruptions of the project-file fuzz test, the bad files of
``test_store_bad_files`` and bad links made with SQL; a gate left out of either part
(the whole check after the links, the integrity check, the links' own checks) makes a
case open in parts that ``open_design`` refuses.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from fuzz_cases import BASE_SEED, make_cases, sample_bytes
from test_store_bad_files import CASES, _edited, _written

from workbench.model.design import Design
from workbench.store import ProjectFileError, open_design
from workbench.store.later import LinksToRead, open_design_in_parts
from workbench.store.writer import design_rows

#: Fuzz cases compared (the fuzz test's default run draws 200 of the same seed).
FUZZ_CASES = 120


def _rows(design: Design) -> list:
    """Every table's rows, without the stamp of the moment they are made."""
    return [
        (table, [tuple(r) for r in rows if table != "meta" or r[0] != "saved_at"])
        for table, rows in design_rows(design)
    ]


def _verdict_whole(path: Path) -> tuple[str, object]:
    try:
        return "opened", _rows(open_design(path))
    except ProjectFileError as exc:
        return "refused", str(exc)


def _verdict_in_parts(path: Path) -> tuple[str, object]:
    try:
        design, later = open_design_in_parts(path)
    except ProjectFileError as exc:
        return "refused", str(exc)
    assert design.links == [], "the first part holds no links"
    try:
        return "opened", _rows(later.finish())
    except ProjectFileError as exc:
        return "refused", str(exc)


def _same_verdict(path: Path) -> tuple[str, object]:
    before = path.read_bytes()
    whole = _verdict_whole(path)
    parts = _verdict_in_parts(path)
    assert parts == whole, f"{path.name}: in parts {parts[0]}, whole {whole[0]}"
    assert path.read_bytes() == before
    if whole[0] == "refused":
        assert str(whole[1]).startswith(f"{path}: ")
    return whole


def _sql(tmp_path: Path, *statements: str) -> Path:
    """The small test design changed with SQL (``test_store_bad_files``'s ``_edited``)."""
    work = tmp_path / "work"
    work.mkdir()
    path = tmp_path / "edited.dcwb"
    path.write_bytes(_edited(work, *statements))
    return path


def test_the_sample_opens_the_same_in_parts(tmp_path: Path) -> None:
    path = tmp_path / "sample.dcwb"
    path.write_bytes(sample_bytes())
    verdict, rows = _same_verdict(path)
    assert verdict == "opened"
    links = dict(rows)["links"]  # type: ignore[call-overload]
    assert len(links) > 0, "the sample has links: the comparison covers reading them"


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_files_are_refused_the_same_in_parts(tmp_path: Path, case: str) -> None:
    path = _written(case, tmp_path / "site-a.dcwb", tmp_path / "work")
    assert _same_verdict(path)[0] == "refused"


BAD_LINKS = {
    "link to a missing device": "UPDATE links SET a_device = 'nowhere' WHERE seq = 1",
    "duplicate link id": "UPDATE links SET id = (SELECT id FROM links WHERE seq = 2) WHERE seq = 1",
    "link id of a device": "UPDATE links SET id = (SELECT id FROM devices LIMIT 1) WHERE seq = 1",
    "link without an id": "UPDATE links SET id = '' WHERE seq = 1",
    "negative length": "UPDATE links SET length_m = -3 WHERE seq = 1",
}


@pytest.mark.parametrize("case", sorted(BAD_LINKS))
def test_bad_links_are_refused_after_the_first_part(tmp_path: Path, case: str) -> None:
    path = _sql(tmp_path, BAD_LINKS[case])
    assert _same_verdict(path)[0] == "refused"
    design, later = open_design_in_parts(path)  # the first part itself is sound
    assert list(design.iter_devices())
    with pytest.raises(ProjectFileError):
        later.finish()


def test_seeded_corruptions_open_the_same_in_parts(tmp_path: Path) -> None:
    folder = tmp_path / "cases"
    folder.mkdir()
    verdicts = []
    for case in make_cases(FUZZ_CASES, BASE_SEED):
        data = case.build(sample_bytes(), folder)
        if data is None:
            continue
        path = folder / "case.dcwb"
        path.write_bytes(data)
        verdicts.append(_same_verdict(path)[0])
        for leftover in folder.iterdir():
            leftover.unlink()
    assert verdicts.count("refused") > FUZZ_CASES // 3
    assert verdicts.count("opened") > 5


def _quick_checks() -> int:
    return sum(t.name == "quick_check" for t in threading.enumerate())


def test_links_read_in_steps_then_cancelled_leave_nothing_running(tmp_path: Path) -> None:
    path = tmp_path / "sample.dcwb"
    path.write_bytes(sample_bytes())
    running = _quick_checks()
    design, later = open_design_in_parts(path)
    assert isinstance(later, LinksToRead) and later.total > 0
    later.step()
    assert design.links == [], "no link is in the design before finish()"
    later.cancel()
    assert _quick_checks() == running
    assert design.links == []


def test_links_read_one_chunk_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The steps read the same links as one read, however many chunks there are."""
    import workbench.store.reader as reader

    path = tmp_path / "sample.dcwb"
    path.write_bytes(sample_bytes())
    whole = _rows(open_design(path))
    monkeypatch.setattr(reader, "_CHUNK", 7)
    design, later = open_design_in_parts(path)
    steps = 0
    while not later.step():
        steps += 1
    assert steps >= later.total // 7 - 1
    assert later.read == later.total
    assert _rows(later.finish()) == whole
    assert len(design.links) == later.total
