"""Atomic export output: a whole file or folder set, or nothing, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.export.output import ExportCancelled, ExportError, write_file, write_folder


def test_a_file_is_replaced_only_when_the_writer_finishes(tmp_path: Path) -> None:
    target = tmp_path / "bom.xlsx"
    target.write_bytes(b"the old workbook")

    def cancelled(tmp: Path) -> None:
        tmp.write_bytes(b"half a workbook")
        raise ExportCancelled

    with pytest.raises(ExportCancelled):
        write_file(target, cancelled)
    assert target.read_bytes() == b"the old workbook"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bom.xlsx"]
    write_file(target, lambda tmp: tmp.write_bytes(b"the new workbook"))
    assert target.read_bytes() == b"the new workbook"


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda root: root / "no-such-folder" / "x.xlsx", "the folder does not exist"),
        (lambda root: root, "is a folder, not a file"),
    ],
)
def test_unwritable_targets_are_one_line_naming_the_path(tmp_path, make, words) -> None:
    target = make(tmp_path)
    with pytest.raises(ExportError) as caught:
        write_file(target, lambda tmp: tmp.write_bytes(b"x"))
    assert words in str(caught.value) and str(target) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_folder_set_is_written_together(tmp_path: Path) -> None:
    folder = tmp_path / "slurm"
    written = write_folder(folder, {"slurm.conf": "a\n", "gres.conf": "b\n"})
    assert sorted(p.name for p in written) == ["gres.conf", "slurm.conf"]
    assert (folder / "slurm.conf").read_text() == "a\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
    with pytest.raises(ExportError, match="not a plain file name"):
        write_folder(folder, {"ok.conf": "new\n", "../escape": "x"})
    assert not (folder / "ok.conf").exists()  # nothing of the failed set was put in place
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_file_where_the_folder_should_be_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "k8s"
    blocker.write_text("not a folder")
    with pytest.raises(ExportError, match="is a file, not a folder"):
        write_folder(blocker, {"nodes.yaml": "x"})


def test_a_workbook_held_open_is_named_and_left_as_it_was(tmp_path: Path, monkeypatch) -> None:
    """Windows refuses to replace a file Excel has open (a sharing violation, reported as
    EACCES).  The export says so, the open file keeps its bytes, no temporary remains."""
    import errno
    import os

    from workbench.export.bom import write_bom
    from workbench.templates import build_template

    target = tmp_path / "bom.xlsx"
    target.write_bytes(b"the workbook open in Excel")
    real_replace = os.replace

    def sharing_violation(src, dst, *args, **kwargs):
        if Path(dst) == target:
            raise PermissionError(errno.EACCES, "The process cannot access the file", str(dst))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", sharing_violation)
    with pytest.raises(ExportError) as raised:
        write_bom(build_template("hgx-h100-air"), target)
    message = str(raised.value)
    assert message.startswith(str(target)) and "held open by another program" in message
    assert "\n" not in message
    assert target.read_bytes() == b"the workbook open in Excel"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bom.xlsx"]
