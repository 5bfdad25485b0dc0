"""A file the reader refuses is still recoverable (issue 18): ``workbench repair`` and
the window mend an in-memory copy value by value (workbench.store.repair), list each
repair, and write nothing until asked; the original stays as it was."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_designs import full_design

from workbench.cli.main import main
from workbench.model.acceptance import AcceptanceResult
from workbench.model.captures import CapturedLink
from workbench.model.versions import Assignment, Baseline, BaselineRevision, Observation
from workbench.store import ProjectFileError, open_design, save_design
from workbench.store.repair import plan_repairs
from workbench.text_rules import STORED_TEXT


def _every_table_design():
    design = full_design()
    matrix = design.versions
    matrix.baselines.append(Baseline("bl-1", "stack", [BaselineRevision(1, {"driver": "550"})]))
    matrix.assignments.append(Assignment("as-1", "bl-1", "gpu-*"))
    node = next(d.name for _r, d in design.iter_devices())
    matrix.observations.append(
        Observation("obs1", node, "driver", "550", "r/x.txt", 1, "2026-01-01T00:00:00Z", "t", "im1")
    )
    design.acceptance.append(
        AcceptanceResult(
            node,
            "gpu.count",
            "8",
            "PASS",
            "results.csv",
            2,
            "2026-01-01T00:00:00Z",
            "t",
            "2026-01-01T00:00:00Z",
            "ai-1",
        )  # fmt: skip
    )
    design.captures.append(
        CapturedLink(
            "lldp.json",
            1,
            "lldpctl-json",
            node,
            "eth0",
            "sw1",
            "Ethernet1",
            None,
            None,
            "",
            "2026-01-01T00:00:00Z",
            "t",
            "ca-1",
        )  # fmt: skip
    )
    return design


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("repair") / "base.dcwb"
    save_design(_every_table_design(), path)
    open_design(path)
    return path


def _edited(base: Path, folder: Path, sql: str, *params: object) -> Path:
    path = folder / "bad.dcwb"
    path.write_bytes(base.read_bytes())
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()
    return path


COLUMNS = sorted(key for key in STORED_TEXT if not key.endswith("[]") and key != "meta.name")
HOSTILE = st.text(st.characters(codec=None, categories=None), max_size=60) | st.sampled_from(
    ["two\nlines", "nul\x00", "rtl\u202e", "x" * 5000, "", "  ", "\ud800", "\u200b"]
)


@pytest.mark.parametrize("column", COLUMNS)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=HOSTILE)
def test_any_text_in_any_column_is_mended(base: Path, tmp_path: Path, column: str, text: str):
    """Whatever a hand edit or an older workbench put in a text column, the mended
    copy opens, saves and reopens; the original is untouched."""
    table, field = column.split(".")
    raw = text.encode("utf-8", "surrogatepass")  # a lone surrogate: bytes no UTF-8 allows
    path = _edited(
        base, tmp_path, f'UPDATE "{table}" SET "{field}" = CAST(? AS TEXT) WHERE seq = 1', raw
    )
    before = path.read_bytes()
    plan = plan_repairs(path)
    assert path.read_bytes() == before
    out = tmp_path / "mended.dcwb"
    save_design(plan.design, out)
    open_design(out)
    try:
        open_design(path)
    except ProjectFileError as exc:  # refused: the repairs say where, starting there
        assert plan.repairs and "\n" not in plan.repairs[0].line(), exc
    else:
        assert plan.repairs == ()


def test_a_two_line_note_from_an_older_reader_rule_opens(base: Path, tmp_path: Path) -> None:
    path = _edited(base, tmp_path, "UPDATE racks SET name = ? WHERE seq = 1", "A\n1")
    with pytest.raises(ProjectFileError):
        open_design(path)
    (repair,) = plan_repairs(path).repairs
    assert repair.line().startswith("racks row 1, name: may not contain")
    assert repair.new == "'A 1'"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_cli_lists_then_writes_only_when_asked(base: Path, tmp_path: Path, capsys) -> None:
    path = _edited(base, tmp_path, "UPDATE devices SET notes = ? WHERE seq = 2", "a\x00b")
    digest = _digest(path)
    assert main(["repair", str(path)]) == 1
    out = capsys.readouterr().out
    assert "devices row 2, notes: may not contain the control character U+0000" in out
    assert "left as it was" in out and _digest(path) == digest
    assert main(["repair", str(path), "-o", str(tmp_path / "fixed.dcwb"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["repairs"][0]["action"] == "replaced" and _digest(path) == digest
    assert open_design(tmp_path / "fixed.dcwb")
    assert main(["repair", str(path), "--write"]) == 0
    assert open_design(path)
    assert main(["repair", str(path)]) == 0
    assert "nothing to repair" in capsys.readouterr().out


def test_cli_says_what_it_cannot_mend(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.dcwb"
    bad.write_bytes(b"SQLite format 3\x00" + bytes(100))
    assert main(["repair", str(bad)]) == 2
    assert "not something a repair can mend" in capsys.readouterr().err


def test_a_bad_snapshot_item_is_dropped_and_the_catalog_fills_in(base: Path, tmp_path: Path):
    conn = sqlite3.connect(base)
    slug, raw = conn.execute("SELECT slug, raw FROM catalog_snapshot LIMIT 1").fetchone()
    conn.close()
    item = json.loads(raw)
    item["u_height"] = -3
    path = _edited(base, tmp_path, "UPDATE catalog_snapshot SET raw = ? WHERE slug = ?",
                   json.dumps(item), slug)  # fmt: skip
    plan = plan_repairs(path)
    assert [(r.table, r.action) for r in plan.repairs] == [("catalog_snapshot", "dropped")]
    assert slug not in plan.design.device_types


def test_the_window_offers_the_repaired_copy(qtbot, base: Path, tmp_path: Path, monkeypatch):
    from qt_helpers import open_window

    from workbench.model.design import Design
    from workbench.ui.shell.file_actions import FileActions

    path = _edited(base, tmp_path, "UPDATE waivers SET note = ? WHERE seq = 1", "z" * 9000)
    digest = _digest(path)
    asked: list[list[str]] = []
    monkeypatch.setattr(
        FileActions, "ask_repair", lambda self, p, e, lines: asked.append(lines) or True
    )
    window = open_window(qtbot, tmp_path, Design())
    assert window.file_actions.open_path(path, ask_save=False)
    assert asked and "waivers row 1, note: is 9,000 characters long" in asked[0][0]
    assert window.document.is_dirty and _digest(path) == digest
    assert len(window.document.design.waivers[0].note) == 4096
    assert "repaired copy" in window.statusBar().currentMessage()


def test_repaired_copies_of_refused_fuzz_files_show_in_every_tab(qtbot, tmp_path: Path):
    """Bounded: the first few value corruptions the reader refuses, mended and toured
    through every tab of the window (the full sweep: tests/benchmarks/bench_fuzz_project)."""
    import random

    from fuzz_cases import BASE_SEED, all_value_cases, sample_bytes
    from qt_helpers import open_window
    from test_ui_odd_designs import _report, exercise

    cases = all_value_cases(BASE_SEED)
    random.Random(18).shuffle(cases)
    original = sample_bytes()
    toured = 0
    window = None
    for case in cases:
        data = case.build(original, tmp_path)
        if data is None:
            continue
        path = tmp_path / "refused.dcwb"
        path.write_bytes(data)
        try:
            open_design(path)
            continue
        except ProjectFileError:
            pass
        try:
            plan = plan_repairs(path)
        except ProjectFileError:
            continue  # not mendable (a word of a site's, row's or rack's vocabulary)
        assert plan.repairs, case.ident
        if window is None:
            window = open_window(qtbot, tmp_path, plan.design)
            window.file_actions.autosave_timer.stop()
        else:
            window.document.replace_design(plan.design, None)
        with qtbot.captureExceptions() as raised:
            exercise(window)
        assert not raised, f"{case.ident}: {_report(raised)}"
        toured += 1
        if toured == 3:
            break
    assert toured == 3


def test_unreadable_json_and_one_value_on_many_rows(base: Path, tmp_path: Path) -> None:
    path = _edited(base, tmp_path, "UPDATE meta SET value = '{' WHERE key = 'properties'")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE links SET network = 'gone'")  # every link names a missing network
    conn.commit()
    conn.close()
    plan = plan_repairs(path)
    actions = sorted({(r.table, r.field, r.action) for r in plan.repairs})
    assert actions == [("links", "network", "cleared"), ("meta", "properties", "replaced")]
    assert all(link.network is None for link in plan.design.links)


#: Columns whose values are also judged as references or by a rule of their own.
_MORE_THAN_TEXT = {"teams.name", "version_assignments.baseline_id"}


@pytest.mark.parametrize(
    "column", [c for c in COLUMNS if not c.endswith(".id") and c not in _MORE_THAN_TEXT]
)
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(max_size=40) | st.sampled_from(["a\nb", "x" * 5000, "", "\u202e", "\x00"]))
def test_the_reader_refuses_exactly_what_the_rule_refuses(
    base: Path, tmp_path: Path, column: str, text: str
) -> None:
    """Every stored text column, read back: the file opens iff the column's one rule
    (STORED_TEXT) accepts the value; the writer applies the same rule before saving."""
    table, field = column.split(".")
    path = _edited(base, tmp_path, f'UPDATE "{table}" SET "{field}" = ? WHERE seq = 1', text)
    try:
        open_design(path)
    except ProjectFileError as exc:
        assert STORED_TEXT[column].problem(text) is not None, exc
    else:
        assert STORED_TEXT[column].problem(text) is None
