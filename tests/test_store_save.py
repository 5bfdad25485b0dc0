"""Atomic save and autosave: a failed save never costs the previous file."""

from __future__ import annotations

import errno
import fnmatch
import os
import sqlite3
from pathlib import Path

import pytest
from store_designs import small_design

from workbench.model.design import Design
from workbench.store import (
    ProjectFileError,
    autosave_is_newer,
    autosave_path,
    discard_autosave,
    open_design,
    save_design,
    write_autosave,
)
from workbench.store import atomic as atomic_module
from workbench.store import writer as writer_module


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, bytes]:
    """A project saved once, and its bytes."""
    path = tmp_path / "site-a.dcwb"
    save_design(small_design("old"), path)
    return path, path.read_bytes()


def _assert_only_old_file(path: Path, old: bytes) -> None:
    assert path.read_bytes() == old
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    assert open_design(path).name == "old"


def test_unserialisable_design_leaves_old_file(saved: tuple[Path, bytes]) -> None:
    path, old = saved
    design = small_design("new")
    design.workloads[1].model_config = {"callback": object()}
    with pytest.raises(
        ProjectFileError, match=r"site-a\.dcwb: cannot save: cannot store a value of type object"
    ):
        save_design(design, path)
    _assert_only_old_file(path, old)


def test_disk_full_while_writing_leaves_old_file(
    saved: tuple[Path, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, old = saved
    calls: list[str] = []
    real_insert = writer_module._insert

    def insert_then_fail(conn: sqlite3.Connection, file, table: str, rows) -> None:
        calls.append(table)
        if table == "devices":  # part-way: meta, sites, rows and racks are written
            raise sqlite3.OperationalError("database or disk is full")
        real_insert(conn, file, table, rows)

    monkeypatch.setattr(writer_module, "_insert", insert_then_fail)
    with pytest.raises(ProjectFileError, match="cannot save: database or disk is full"):
        save_design(small_design("new"), path)
    assert calls[-1] == "devices" and "racks" in calls
    _assert_only_old_file(path, old)


def test_failing_rename_leaves_old_file(
    saved: tuple[Path, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, old = saved

    def no_space(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", no_space)
    with pytest.raises(ProjectFileError) as caught:
        save_design(small_design("new"), path)
    assert str(caught.value) == f"{path}: cannot save: {os.strerror(errno.ENOSPC)}"
    monkeypatch.undo()
    _assert_only_old_file(path, old)


def test_interrupt_mid_save_is_not_swallowed_and_cleans_up(
    saved: tuple[Path, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, old = saved

    def interrupted(*args, **kwargs) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic_module, "fsync_file", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_design(small_design("new"), path)
    _assert_only_old_file(path, old)


def test_missing_folder(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "folder" / "x.dcwb"
    with pytest.raises(ProjectFileError) as caught:
        save_design(Design(), path)
    assert str(caught.value) == f"{path}: cannot save: No such file or directory"
    assert list(tmp_path.iterdir()) == []


def test_folder_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "plain-file").write_text("x")
    with pytest.raises(ProjectFileError, match="plain-file/x.dcwb: cannot save: Not a directory"):
        save_design(Design(), tmp_path / "plain-file" / "x.dcwb")


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user"
)
def test_unwritable_folder(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(ProjectFileError, match="cannot save: Permission denied"):
            save_design(Design(), folder / "x.dcwb")
    finally:
        folder.chmod(0o700)


def test_target_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "taken.dcwb").mkdir()
    with pytest.raises(ProjectFileError, match="taken.dcwb: cannot save"):
        save_design(Design(), tmp_path / "taken.dcwb")
    assert [p.name for p in tmp_path.iterdir()] == ["taken.dcwb"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_permissions_of_replaced_file_are_kept(saved: tuple[Path, bytes]) -> None:
    path, _ = saved
    path.chmod(0o640)
    save_design(small_design("new"), path)
    assert path.stat().st_mode & 0o777 == 0o640


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_new_file_follows_umask_not_private_temp_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        save_design(Design(), tmp_path / "new.dcwb")
    finally:
        os.umask(old)
    assert (tmp_path / "new.dcwb").stat().st_mode & 0o777 == 0o644


# -- autosave -----------------------------------------------------------------------


def test_autosave_lives_beside_the_file_hidden_and_gitignorable(tmp_path: Path) -> None:
    path = tmp_path / "site-a.dcwb"
    copy = autosave_path(path)
    assert copy == tmp_path / ".site-a.dcwb.autosave"
    assert fnmatch.fnmatch(copy.name, "*.dcwb.autosave")  # the pattern in .gitignore


def test_autosave_of_untitled_goes_to_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    expected = tmp_path / "state" / "workbench" / "autosave" / "untitled.dcwb.autosave"
    assert autosave_path(None) == expected
    assert not autosave_is_newer(None)
    design = small_design("never saved")
    assert write_autosave(design, None) == expected
    assert autosave_is_newer(None)
    assert open_design(expected) == design
    discard_autosave(None)
    assert not expected.exists()


def test_autosave_newer_older_and_discard(tmp_path: Path) -> None:
    path = tmp_path / "site-a.dcwb"
    assert not autosave_is_newer(path)  # neither exists
    save_design(small_design("saved"), path)
    assert not autosave_is_newer(path)  # no autosave
    edited = small_design("edited, not saved")
    copy = write_autosave(edited, path)
    assert copy == autosave_path(path)
    os.utime(path, ns=(1_000_000_000_000, 1_000_000_000_000))
    os.utime(copy, ns=(2_000_000_000_000, 2_000_000_000_000))
    assert autosave_is_newer(path)
    assert open_design(copy) == edited
    os.utime(path, ns=(3_000_000_000_000, 3_000_000_000_000))
    assert not autosave_is_newer(path)  # saved after the autosave was written
    discard_autosave(path)
    assert not copy.exists()
    assert not autosave_is_newer(path)
    discard_autosave(path)  # discarding twice is fine
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site-a.dcwb"]
    assert open_design(path).name == "saved"


def test_autosave_counts_when_project_file_is_gone(tmp_path: Path) -> None:
    path = tmp_path / "deleted.dcwb"
    write_autosave(small_design(), path)
    assert autosave_is_newer(path)


def test_item_the_parser_would_refuse_is_refused_at_save_time(saved: tuple[Path, bytes]) -> None:
    """Better now, with the old file intact, than when the user next opens their work."""
    from workbench.catalog.item import CatalogItem

    path, old = saved
    design = small_design("new")
    design.device_types["Bad Slug"] = CatalogItem(
        slug="Bad Slug", kind="rack", manufacturer="X", model="Y"
    )
    with pytest.raises(
        ProjectFileError, match="cannot save: catalog item 'Bad Slug' cannot be stored"
    ):
        save_design(design, path)
    _assert_only_old_file(path, old)


def test_saving_through_a_symlink_updates_the_real_file(tmp_path: Path) -> None:
    real_folder = tmp_path / "shared-drive"
    real_folder.mkdir()
    real = real_folder / "site-a.dcwb"
    save_design(small_design("first"), real)
    link = tmp_path / "site-a.dcwb"
    link.symlink_to(real)
    save_design(small_design("second"), link)
    assert link.is_symlink(), "the link stays a link"
    assert open_design(real).name == "second"
    assert sorted(p.name for p in real_folder.iterdir()) == ["site-a.dcwb"]
