"""Scenario figures kept in the user's cache folder between runs: the same figures back,
keyed by the file's bytes, the catalog and the program, nothing trusted that is damaged
or foreign, and never a byte written into the project file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import digest, run

from workbench.catalog import load_catalog
from workbench.cli.catalog_load import load_catalog_noting_errors
from workbench.planning.scenarios import figures as figures_module
from workbench.planning.scenarios import figures_cache
from workbench.planning.scenarios.figures import (
    ScenarioFigures,
    figures_of,
    figures_of_file,
    figures_of_file_noting,
    keep_figures_of_saved,
)
from workbench.rules import full_check
from workbench.store import open_design, save_design
from workbench.templates import variants
from workbench.templates.builder import build_template
from workbench.templates.bundled import bundled_sample
from workbench.templates.variants import VariantRequest, make_variant


@pytest.fixture(scope="module")
def sample_figures() -> ScenarioFigures:
    """The figures of the bundled sample saved as ``hall.dcwb``."""
    return figures_of(bundled_sample(), "hall")


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty cache folder of this test's own, and no figures kept in memory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
    return tmp_path / "cache" / "workbench" / "figures"


@pytest.fixture
def saved(tmp_path) -> Path:
    path = tmp_path / "projects" / "hall.dcwb"
    path.parent.mkdir()
    save_design(bundled_sample(), path)
    return path


def new_process(monkeypatch) -> list[Path]:
    """Forget the figures kept in memory (as a new process would) and count the files
    that are opened from now on."""
    monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
    opened: list[Path] = []
    real = figures_module.open_design

    def counting(path, catalog=None):
        opened.append(Path(path))
        return real(path, catalog=catalog)

    monkeypatch.setattr(figures_module, "open_design", counting)
    return opened


def test_figures_come_back_exactly_from_their_dict(sample_figures):
    data = json.loads(json.dumps(sample_figures.to_dict()))
    assert ScenarioFigures.from_dict(data, "hall") == sample_figures
    assert ScenarioFigures.from_dict(data, "other").name == "other"


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.pop("gpus"),
        lambda d: d.update(gpus="100"),
        lambda d: d.update(racks=True),
        lambda d: d.update(capex="lots"),
        lambda d: d.update(findings=[0, 1, 2]),
        lambda d: d.update(jobs={"x": {"days": "ten"}}),
        lambda d: d.update(capex_by_category={"compute": None}),
    ],
)
def test_a_figure_of_the_wrong_type_is_refused(sample_figures, damage):
    data = sample_figures.to_dict()
    damage(data)
    with pytest.raises(ValueError):
        ScenarioFigures.from_dict(data, "hall")


def test_a_new_process_reads_the_kept_figures_instead_of_the_design(
    cache, saved, sample_figures, monkeypatch
):
    before = digest(saved)
    first, from_disk = figures_of_file_noting(saved)
    assert not from_disk and first == sample_figures
    assert len(list(cache.glob("*.json"))) == 1
    opened = new_process(monkeypatch)
    again, from_disk = figures_of_file_noting(saved)
    assert from_disk and again == first and opened == []
    assert digest(saved) == before
    assert [p.name for p in saved.parent.iterdir()] == ["hall.dcwb"]  # nothing beside it


def test_a_copy_under_another_name_shares_the_entry_but_takes_its_own_name(
    cache, saved, monkeypatch
):
    figures_of_file(saved)
    copy = saved.with_name("hall.scenario-copy.dcwb")
    copy.write_bytes(saved.read_bytes())
    opened = new_process(monkeypatch)
    figures, from_disk = figures_of_file_noting(copy)
    assert from_disk and opened == [] and figures.name == "copy"


def test_other_bytes_another_catalog_or_no_cache_recompute(cache, saved, monkeypatch):
    figures_of_file(saved)
    opened = new_process(monkeypatch)
    catalog = load_catalog(include_user=False, strict=True)
    figures_of_file(saved, catalog=catalog)  # another catalog: another key
    assert opened == [saved.resolve()]
    new_process(monkeypatch)
    figures_of_file(saved, catalog=catalog)
    assert len(list(cache.glob("*.json"))) == 2
    save_design(build_template("dgx-b200-liquid", gpus=64), saved)  # other bytes
    opened = new_process(monkeypatch)
    other = figures_of_file(saved)
    assert opened == [saved.resolve()] and other.gpus == 64
    opened = new_process(monkeypatch)
    figures_of_file(saved, disk_cache=False)
    assert opened == [saved.resolve()]
    assert len(list(cache.glob("*.json"))) == 3  # --no-cache keeps nothing


@pytest.mark.parametrize(
    "entry",
    [
        b"",
        b"\x80\x81 not utf-8",
        b"{not json",
        b"[1, 2, 3]",
        b'{"format": 1, "key": "someone else", "figures": {}}',
        b'{"format": 999, "key": "KEY", "figures": {}}',
        b'{"format": 1, "key": "KEY", "figures": {"gpus": "many"}}',
        b'{"format": 1, "key": "KEY", "figures": ' + b"[" * 100_000 + b"}",
    ],
)
def test_a_damaged_or_foreign_entry_is_ignored_and_rewritten(
    cache, saved, sample_figures, monkeypatch, entry
):
    figures_of_file(saved)
    (kept,) = cache.glob("*.json")
    kept.write_bytes(entry.replace(b"KEY", kept.stem.encode()))
    opened = new_process(monkeypatch)
    figures, from_disk = figures_of_file_noting(saved)
    assert not from_disk and opened == [saved.resolve()] and figures == sample_figures
    assert json.loads(kept.read_bytes())["figures"] == sample_figures.to_dict()


def test_an_oversized_entry_is_not_read(cache, saved, monkeypatch):
    figures_of_file(saved)
    (kept,) = cache.glob("*.json")
    kept.write_bytes(b" " * (figures_cache.MAX_ENTRY_BYTES + 1))
    opened = new_process(monkeypatch)
    assert not figures_of_file_noting(saved)[1] and opened == [saved.resolve()]


def test_a_cache_folder_that_cannot_be_written_costs_nothing_but_time(
    tmp_path, saved, sample_figures, monkeypatch
):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
    assert figures_of_file(saved) == sample_figures


def test_old_entries_are_pruned(cache, monkeypatch):
    monkeypatch.setattr(figures_cache, "MAX_ENTRIES", 3)
    for n in range(5):
        assert figures_cache.store(f"{n:064d}", {"n": n})
    assert len(list(cache.glob("*.json"))) == 3


def test_cli_compare_says_what_it_read_from_the_cache(cache, saved, tmp_path):
    variant = saved.with_name("hall.scenario-b200.dcwb")
    save_design(build_template("dgx-b200-liquid", gpus=64), variant)
    fresh = run("compare", str(saved), str(variant), "--json", "--no-cache")
    assert fresh.returncode == 0, fresh.stderr
    assert not cache.exists()  # --no-cache keeps nothing
    first = run("compare", str(saved), str(variant), "--json")
    again = run("compare", str(saved), str(variant), "--json")
    assert first.returncode == again.returncode == 0
    assert "as kept in" not in first.stderr
    assert "as kept in" in again.stderr and "--no-cache" in again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout) == json.loads(fresh.stdout)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda catalog: (bundled_sample(), None), id="sample"),
        pytest.param(
            lambda catalog: _variant(catalog, node_type="nvidia-dgx-b200", cooling="liquid"),
            id="b200-liquid",
        ),
        pytest.param(
            lambda catalog: _variant(catalog, node_type="nvidia-dgx-b200", cooling="air"),
            id="b200-air",
        ),
    ],
)
def test_figures_kept_at_save_are_the_ones_the_file_gives_back(cache, tmp_path, monkeypatch, make):
    catalog = load_catalog(include_user=False, strict=True)
    design, variant = make(catalog)
    path = tmp_path / "hall.scenario-x.dcwb"
    save_design(design, path)
    kept = keep_figures_of_saved(
        design,
        path,
        catalog,
        findings=variant.findings if variant else None,
        context=variant.context if variant else None,
    )
    assert kept is not None and len(list(cache.glob("*.json"))) == 1
    opened = new_process(monkeypatch)
    reread = figures_of_file(path, catalog=catalog, disk_cache=False)
    assert opened == [path]  # computed from the file itself, not from what was kept
    assert reread == kept
    # And the next process reads the kept figures instead of the file.
    opened = new_process(monkeypatch)
    assert figures_of_file_noting(path, catalog=catalog) == (reread, True)
    assert opened == []


def _variant(catalog, **request):
    variant = make_variant(bundled_sample(), VariantRequest(**request), catalog)
    assert variant.findings is not None and variant.context is not None
    return variant.design, variant


def test_a_variant_is_checked_once_from_make_to_kept_figures(cache, tmp_path, monkeypatch):
    catalog = load_catalog(include_user=False, strict=True)
    checks = []
    real = full_check.check_design

    def counting(design, ctx=None, rules=None):
        checks.append(design)
        return real(design, ctx, rules)

    monkeypatch.setattr(variants, "check_design", counting)
    monkeypatch.setattr(figures_module, "check_design", counting)
    variant = make_variant(bundled_sample(), VariantRequest(cooling="liquid"), catalog)
    path = tmp_path / "hall.scenario-liquid.dcwb"
    save_design(variant.design, path)
    keep_figures_of_saved(
        variant.design, path, catalog, findings=variant.findings, context=variant.context
    )
    assert checks == [variant.design]


def test_cli_scenario_keeps_the_base_and_each_variants_figures(cache, tmp_path, saved, monkeypatch):
    result = run("scenario", str(saved), "--cooling", "air,liquid")  # XDG_CACHE_HOME: ours
    assert result.returncode == 0, result.stderr
    made = sorted(saved.parent.glob("hall.scenario-*.dcwb"))
    assert len(made) == 2 and len(list(cache.glob("*.json"))) == 3
    catalog = load_catalog_noting_errors()  # what compare looks items up in
    opened = new_process(monkeypatch)
    kept = [figures_of_file_noting(path, catalog=catalog) for path in (saved, *made)]
    assert all(from_disk for _figures, from_disk in kept)
    assert opened == []  # compare of the base and its variants opens none of them
    new_process(monkeypatch)
    assert kept[0][0] == figures_of_file(saved, catalog=catalog, disk_cache=False)


def test_figures_of_a_design_read_are_kept_only_for_the_bytes_read(cache, saved, monkeypatch):
    catalog = load_catalog(include_user=False, strict=True)
    read = figures_cache.file_digest(saved)
    design = open_design(saved, catalog=catalog)
    other = build_template("dgx-h100-superpod", gpus=64)
    save_design(other, saved)  # rewritten behind the reader
    assert keep_figures_of_saved(design, saved, catalog, read=read) is None
    assert list(cache.glob("*.json")) == []
    kept = keep_figures_of_saved(other, saved, catalog, read=figures_cache.file_digest(saved))
    assert kept is not None and kept.gpus == 64
    assert kept == figures_of_file(saved, catalog=catalog, disk_cache=False)


def _aged(path: Path, seconds: float = 120) -> Path:
    stamp = time.time() - seconds
    os.utime(path, (stamp, stamp))
    return path


@pytest.mark.skipif(os.name != "posix", reason="pids are only checked on POSIX")
def test_a_writer_killed_mid_write_leaves_a_temp_the_next_entry_sweeps(cache, tmp_path):
    script = (
        "import os, signal\n"
        "from workbench.planning.scenarios import figures_cache\n"
        "from workbench.store import atomic\n"
        "def killed(tmp):\n"  # the entry is written; killed before its rename
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "atomic.fsync_file = killed\n"
        "figures_cache.store('a' * 64, {'gpus': 1})\n"
    )
    killed = subprocess.run([sys.executable, "-c", script], timeout=120, check=False)
    assert killed.returncode == -9
    (left,) = [p for p in cache.iterdir() if p.name.endswith(".tmp")]
    assert re.fullmatch(rf"\.{'a' * 64}\.json\.\d+\.[0-9a-f]{{8}}\.tmp", left.name)
    assert not (cache / f"{'a' * 64}.json").exists()
    # Just killed: younger than the settling time, so possibly a write running now.
    figures_cache.store("b" * 64, {"gpus": 2})
    assert left.exists()
    # A stale one of a dead writer goes; one whose writer is alive stays.
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        running = cache / f".{'c' * 64}.json.{alive.pid}.0123abcd.tmp"
        running.write_bytes(b"{")
        _aged(running)
        _aged(left)
        figures_cache.store("d" * 64, {"gpus": 3})
        assert not left.exists()
        assert running.exists()
    finally:
        alive.kill()
        alive.wait()
    assert sorted(p.name for p in cache.glob("*.json")) == [f"{k * 64}.json" for k in "bd"]
