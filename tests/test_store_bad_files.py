"""Bad project files: each gets one clear line naming the file, and is never touched.

Every case writes the bad bytes into a folder of their own, opens the file, and then
checks that the bytes are identical and that nothing (journal, -wal, -shm) appeared
beside it.  Files that need sqlite3 to make are built in a separate folder first.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from store_designs import one_rack_design, small_design, snapshot

from workbench.model.design import Design, Device, Rack, Row, Site
from workbench.store import SCHEMA_VERSION, ProjectFileError, open_design, save_design


def _good_bytes(work: Path) -> bytes:
    save_design(small_design(), work / "good.dcwb")
    return (work / "good.dcwb").read_bytes()


def _edited(work: Path, *sql: str) -> bytes:
    """A real project changed with SQL, in the work folder, returned as bytes."""
    path = work / "edited.dcwb"
    path.write_bytes(_good_bytes(work))
    conn = sqlite3.connect(path)
    for statement in sql:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path.read_bytes()


def _foreign_db(work: Path) -> bytes:
    path = work / "other-app.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, title TEXT)")
    conn.execute("INSERT INTO photos (title) VALUES ('cat')")
    conn.commit()
    conn.close()
    return path.read_bytes()


def _page_overwritten(work: Path) -> bytes:
    data = bytearray(_good_bytes(work))
    page = 4096
    assert len(data) >= 6 * page
    data[3 * page : 4 * page] = random.Random(3).randbytes(page)
    return bytes(data)


CASES: dict[str, tuple[Callable[[Path], bytes], str]] = {
    "empty": (lambda w: b"", "file is empty"),
    "random binary": (
        lambda w: random.Random(1).randbytes(8192),
        "not an SQLite database (corrupt or a different kind of file)",
    ),
    "text file": (
        lambda w: b"name: my cluster\nracks: 4\n",
        "not an SQLite database (corrupt or a different kind of file)",
    ),
    "truncated in half": (lambda w: (b := _good_bytes(w))[: len(b) // 2], "truncated or damaged"),
    "header only": (lambda w: _good_bytes(w)[:100], "truncated or damaged"),
    "page overwritten": (_page_overwritten, "truncated or damaged"),
    "another app's database": (_foreign_db, "not a workbench project (no design table)"),
    "newer schema": (
        lambda w: _edited(w, f"PRAGMA user_version = {SCHEMA_VERSION + 1}"),
        f"saved by a newer workbench (schema {SCHEMA_VERSION + 1}, this version reads up to "
        f"{SCHEMA_VERSION})",
    ),
    "bad JSON": (
        lambda w: _edited(w, "UPDATE software_stacks SET components = '{oops'"),
        "unreadable JSON in software_stacks ('base')",
    ),
    "missing table": (
        lambda w: _edited(w, "DROP TABLE links"),
        "truncated or damaged: missing table 'links'",
    ),
    "orphan device": (
        lambda w: _edited(w, "UPDATE devices SET rack_seq = 99 WHERE seq = 1"),
        "device 'd0-0' belongs to a missing rack",
    ),
    "bad snapshot": (
        lambda w: _edited(
            w, 'UPDATE catalog_snapshot SET raw = \'{"slug": "Not A Slug"}\' WHERE seq = 1'
        ),
        "catalog snapshot item 'rack-42u' is invalid",
    ),
}


def _written(case: str, path: Path, work: Path) -> Path:
    """``path`` holding the bad file of ``case``, made in the new folder ``work``."""
    work.mkdir()
    path.write_bytes(CASES[case][0](work))
    return path


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_file_is_refused_and_untouched(tmp_path: Path, case: str) -> None:
    expected = CASES[case][1]
    check = tmp_path / "check"
    check.mkdir()
    path = _written(case, check / "site-a.dcwb", tmp_path / "work")
    before = path.read_bytes()

    with pytest.raises(ProjectFileError) as caught:
        open_design(path)

    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message
    assert caught.value.path == path
    assert path.read_bytes() == before
    assert _listing(check) == ["site-a.dcwb"]


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.dcwb"
    with pytest.raises(ProjectFileError, match="nowhere.dcwb: no such file$"):
        open_design(path)
    assert _listing(tmp_path) == []


def test_folder_instead_of_file(tmp_path: Path) -> None:
    (tmp_path / "folder.dcwb").mkdir()
    with pytest.raises(ProjectFileError, match="folder.dcwb: is a folder"):
        open_design(tmp_path / "folder.dcwb")


def test_good_file_is_untouched_by_opening(tmp_path: Path) -> None:
    path = tmp_path / "good.dcwb"
    save_design(small_design(), path)
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    open_design(path)
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == mtime
    assert _listing(tmp_path) == ["good.dcwb"]


def test_wal_mode_file_of_another_app_is_not_a_project(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    conn = sqlite3.connect(work / "wal.db")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    path = tmp_path / "wal.dcwb"
    shutil.copyfile(work / "wal.db", path)
    before = path.read_bytes()
    with pytest.raises(ProjectFileError, match="not a workbench project"):
        open_design(path)
    assert path.read_bytes() == before
    assert _listing(tmp_path) == ["wal.dcwb", "work"]


# -- damage the integrity check sees and the rows do not ----------------------------------


def _index_page_overwritten(work: Path, good: bytes | None = None) -> bytes:
    """A good file (``good``, else the small design) with the page of an index the
    reader never uses (devices by rack) overwritten: every row still reads, and only
    ``PRAGMA quick_check`` sees it."""
    path = work / "index.db"
    path.write_bytes(_good_bytes(work) if good is None else good)
    conn = sqlite3.connect(path)
    (root,) = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'idx_devices_rack_seq'"
    ).fetchone()
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * page : root * page] = random.Random(5).randbytes(page)
    return bytes(data)


def test_damage_only_the_integrity_check_sees_is_refused(tmp_path: Path) -> None:
    """The check runs beside the reading (on its own copy of the bytes), so a file whose
    rows all read but whose pages are damaged must still be refused, never opened."""
    from workbench.store import binding, header, reader

    work = tmp_path / "work"
    work.mkdir()
    path = tmp_path / "index.dcwb"
    path.write_bytes(_index_page_overwritten(work))
    before = path.read_bytes()
    conn = header.load(path)  # the rows themselves read: only the check can tell
    with binding.collector_paused():
        design, _order = reader._read(path, conn)
    conn.close()
    assert design.links

    with pytest.raises(ProjectFileError) as caught:
        open_design(path)
    assert str(caught.value).startswith(f"{path}: truncated or damaged: ")
    assert "\n" not in str(caught.value)
    assert path.read_bytes() == before
    assert _listing(tmp_path) == ["index.dcwb", "work"]


def test_damage_is_named_before_what_the_rows_say(tmp_path: Path) -> None:
    """A damaged file whose rows are wrong too (bad JSON) is refused for its damage, as
    when the check ran before the rows were read."""
    work = tmp_path / "work"
    work.mkdir()
    bad_json = _edited(work, "UPDATE software_stacks SET components = '{oops'")
    path = tmp_path / "both.dcwb"
    path.write_bytes(_index_page_overwritten(work, bad_json))
    with pytest.raises(ProjectFileError, match="truncated or damaged") as caught:
        open_design(path)
    assert "JSON" not in str(caught.value)


@pytest.mark.parametrize("case", ["newer schema", "another app's database", "bad JSON"])
def test_refused_files_leave_no_check_running(tmp_path: Path, case: str) -> None:
    """However a file is refused, the open returns with its integrity check finished."""
    import threading

    expected = CASES[case][1]
    path = _written(case, tmp_path / "f.dcwb", tmp_path / "work")
    with pytest.raises(ProjectFileError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        open_design(path)
    assert not [t for t in threading.enumerate() if t.name == "quick_check"]


# -- catalog slugs missing from the snapshot -------------------------------------------


class _DictCatalog:
    """Stands in for workbench.catalog.Catalog: only ``get`` is used."""

    def __init__(self, items: dict, raise_key_error: bool = False) -> None:
        self.items, self.raise_key_error = items, raise_key_error

    def get(self, slug: str):
        if self.raise_key_error and slug not in self.items:
            raise KeyError(slug)
        return self.items.get(slug)


def _design_using_unsnapshotted_server() -> Design:
    types = snapshot()
    del types["dgx-h100"]
    return one_rack_design(types, [Device("d1", "node-1", "dgx-h100", position=1)])


def _catalog_missing(design: Design) -> list[tuple[str, ...]]:
    from workbench.rules import check_design

    return [f.objects for f in check_design(design) if f.rule == "CATALOG-MISSING"]


@pytest.mark.parametrize(
    "catalog",
    [None, _DictCatalog({}), _DictCatalog({}, raise_key_error=True)],
    ids=["no catalog", "catalog returns None", "catalog raises KeyError"],
)
def test_unknown_slug_opens_and_is_reported_by_the_rules(tmp_path: Path, catalog) -> None:
    """A slug neither the snapshot nor the catalog knows costs neither the design nor the
    file: it opens without that item, and CATALOG-MISSING names the device using it."""
    path = tmp_path / "slugs.dcwb"
    saved = _design_using_unsnapshotted_server()
    save_design(saved, path)
    before = path.read_bytes()

    design = open_design(path, catalog=catalog)

    assert design == saved
    assert "dgx-h100" not in design.device_types
    device = design.sites[0].rows[0].racks[0].devices[0]
    assert (device.name, device.device_type) == ("node-1", "dgx-h100")
    assert _catalog_missing(design) == [("d1", "k")]
    assert path.read_bytes() == before
    assert _listing(tmp_path) == ["slugs.dcwb"]


def test_unknown_slug_resolved_from_catalog_joins_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "slugs.dcwb"
    save_design(_design_using_unsnapshotted_server(), path)
    server = snapshot()["dgx-h100"]
    design = open_design(path, catalog=_DictCatalog({"dgx-h100": server}))
    assert design.device_types["dgx-h100"] == server
    assert design.sites[0].rows[0].racks[0].devices[0].device_type == "dgx-h100"
    assert _catalog_missing(design) == []


def test_unknown_rack_slug_opens_and_names_the_rack(tmp_path: Path) -> None:
    path = tmp_path / "rack.dcwb"
    save_design(
        Design(sites=[Site("s", "S", [Row("r", "R", [Rack("k", "Rack Ω", "ghost-rack")])])]), path
    )
    before = path.read_bytes()
    design = open_design(path)
    assert design.sites[0].rows[0].racks[0].rack_type == "ghost-rack"
    assert design.device_types == {}
    assert _catalog_missing(design) == [("k",)]
    assert path.read_bytes() == before


def test_missing_gpu_item_is_filled_from_catalog_when_possible(tmp_path: Path) -> None:
    types = snapshot()
    gpu = types.pop("h100-sxm")
    design = one_rack_design(types, [Device("d1", "node-1", "dgx-h100")])
    path = tmp_path / "gpu.dcwb"
    save_design(design, path)
    assert open_design(path) == design  # no catalog: still opens, GPU item absent
    filled = open_design(path, catalog=_DictCatalog({"h100-sxm": gpu}, raise_key_error=True))
    assert filled.device_types["h100-sxm"] == gpu


def test_an_interrupt_while_reading_stays_an_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during the read of a damaged file is not turned into a refusal, and the
    check beside the read is stopped with it."""
    import threading

    from workbench.store import reader

    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    work = tmp_path / "work"
    work.mkdir()
    path = tmp_path / "index.dcwb"
    path.write_bytes(_index_page_overwritten(work))
    monkeypatch.setattr(reader, "_read", interrupted)
    with pytest.raises(KeyboardInterrupt):
        open_design(path)
    assert not [t for t in threading.enumerate() if t.name == "quick_check"]
