"""Results of health_check.sh back into the design: round trip, all or nothing."""

from __future__ import annotations

import copy
import csv
import shutil
import subprocess
from pathlib import Path

import pytest
import sqlite_utils

from workbench.export.acceptance import ResultsError, read_results
from workbench.export.health_check import write_health_check
from workbench.model import ops
from workbench.model.acceptance import RemoveLastAcceptanceImport
from workbench.store import acceptance_table
from workbench.store.errors import ProjectFileError
from workbench.templates import build_template

HEADER = "node,item,measured,verdict,timestamp\n"


@pytest.fixture
def design():
    return build_template("hgx-h100-air")


def _run_script(design, tmp_path: Path) -> Path:
    folder = tmp_path / "hc"
    write_health_check(design, folder)
    out = tmp_path / "results"
    run = subprocess.run(
        ["bash", str(folder / "health_check.sh"), "-n", "gpu00001", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert run.returncode in (0, 1), run.stderr  # 1: some item failed on this machine
    return out


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_script_results_round_trip(design, tmp_path: Path) -> None:
    out = _run_script(design, tmp_path)
    with (out / "results-gpu00001.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["item"] for r in rows} >= {"gpu.count", "gpu.fp16_matmul", "biz.infer_p99"}
    assert all(r["verdict"] in ("PASS", "FAIL", "SKIP") for r in rows)
    plan = read_results(design, out, who="ana", now="2026-11-05T00:00:00Z")
    got = [(r.node, r.item, r.measured, r.verdict, r.measured_at, r.line) for r in plan.results]
    assert got == [
        (r["node"], r["item"], r["measured"], r["verdict"], r["timestamp"], i)
        for i, r in enumerate(rows, start=2)
    ]
    before = copy.deepcopy(design.acceptance)
    applied = ops.apply(design, plan.op())
    assert design.acceptance == list(plan.results)
    assert isinstance(applied.inverse, RemoveLastAcceptanceImport)
    ops.apply(design, applied.inverse)
    assert design.acceptance == before


def test_store_table_round_trip(design, tmp_path: Path) -> None:
    out = tmp_path / "r"
    out.mkdir()
    (out / "results-gpu00002.csv").write_text(
        HEADER + "gpu00002,gpu.count,8,PASS,2026-11-02T10:00:00Z\n"
        "gpu00002,gpu.driver,550.54.15,PASS,2026-11-02T10:00:01Z\n"
    )
    ops.apply(design, read_results(design, out).op())
    db = sqlite_utils.Database(tmp_path / "p.db")
    acceptance_table.create_tables(db)
    for table, rows in acceptance_table.acceptance_rows(design):
        db[table].insert_all(
            [dict(zip(acceptance_table.COLUMNS[table], r, strict=True)) for r in rows]
        )
    assert acceptance_table.read_acceptance(tmp_path / "p.db", db.conn) == design.acceptance
    db.execute("UPDATE acceptance_results SET verdict = 'MAYBE' WHERE seq = 2")
    with pytest.raises(ProjectFileError, match="acceptance_results row 2, verdict"):
        acceptance_table.read_acceptance(tmp_path / "p.db", db.conn)


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        ("gpu99999,gpu.count,8,PASS,2026-11-02T10:00:00Z\n", "node 'gpu99999' is not a GPU node"),
        ("mgt-tor-a01,gpu.count,8,PASS,2026-11-02T10:00:00Z\n", "is not a GPU node"),
        ("gpu00001,gpu.colour,8,PASS,2026-11-02T10:00:00Z\n", "not an acceptance item"),
        ("gpu00001,gpu.count,8,OK,2026-11-02T10:00:00Z\n", "verdict 'OK'"),
        ("gpu00001,gpu.count,8,PASS,yesterday\n", "not ISO 8601"),
        ("gpu00001,gpu.count,8,PASS\n", "has 4 fields"),
    ],
)
def test_bad_rows_refused_with_file_line(design, tmp_path: Path, rows: str, problem: str) -> None:
    out = tmp_path / "r"
    out.mkdir()
    (out / "results-a.csv").write_text(HEADER + "gpu00001,gpu.count,8,PASS,2026-11-02T10:00:00Z\n")
    (out / "results-b.csv").write_text(
        HEADER + "gpu00002,gpu.count,8,PASS,2026-11-02T10:00:00Z\n" + rows
    )
    before = copy.deepcopy(design)
    with pytest.raises(ResultsError) as err:
        read_results(design, out)
    assert str(err.value).startswith(f"{out / 'results-b.csv'}:3: ")
    assert problem in str(err.value)
    assert design.acceptance == [] and design.links == before.links


def test_bad_header_and_empty_folder(design, tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="holds no results"):
        read_results(design, tmp_path)
    (tmp_path / "results-x.csv").write_text("host,check\n")
    with pytest.raises(ResultsError, match=r"results-x.csv:1: header must be"):
        read_results(design, tmp_path)


def test_health_check_refuses_non_host_names(tmp_path: Path) -> None:
    from workbench.export.output import ExportError

    design = build_template("hgx-h100-air")
    # Mapped like slurm.conf maps it ('gpu 1,a' would be 'gpu-1-a'); this one maps to
    # '-gpu1', which no host name carries, and is refused as the Slurm export refuses it.
    next(d for _r, d in design.iter_devices() if d.name == "gpu00001").name = "_gpu1"
    with pytest.raises(ExportError, match="'_gpu1' cannot be made a host name"):
        write_health_check(design, tmp_path / "hc")
    assert not (tmp_path / "hc").exists()


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck not installed")
def test_script_passes_shellcheck(tmp_path: Path) -> None:
    write_health_check(build_template("hgx-h100-air"), tmp_path / "hc")
    run = subprocess.run(
        ["shellcheck", str(tmp_path / "hc" / "health_check.sh")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stdout
