"""Importing a folder of node reports: layout, all-or-nothing, summary, apply and revert."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from workbench.model.design import Design, Device, Rack, Row, Site
from workbench.model.errors import EditError
from workbench.model.versions import Observation
from workbench.versions import importer
from workbench.versions.importer import apply_import, plan_import, revert_import
from workbench.versions.reports import ReportError

DATA = Path(__file__).parent / "data" / "node_reports"
WHEN = "2026-05-05T09:30:00Z"
NODES = ("gpu-r01-u02", "gpu-r01-u06", "gpu-r01-u10", "gpu-r01-u14")
XML_LAYERS = {
    "driver",
    "driver_cuda",
    "gpu_count",
    "gpu_model",
    "vbios",
    "gpu_serials",
    "gpu_memory_mib",
    "gpu_power_limit_w",
}


def make_design() -> Design:
    devices = [Device(f"d{i:06d}", name, "gpu-server") for i, name in enumerate(NODES, 1)]
    rack = Rack("r00001", "R01", "rack-42u", devices=devices)
    return Design(sites=[Site("site1", "Hall 1", [Row("row001", "A", [rack])])])


def put(folder: Path, relative: str, sample: str | None = None, text: str | None = None) -> Path:
    """Write ``folder/relative`` from a sample file or from ``text``."""
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if sample is not None:
        shutil.copyfile(DATA / sample, path)
    else:
        assert text is not None
        path.write_text(text)
    return path


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    """Both layouts: a folder for one node, prefixed files for another, and both for a
    third (the same node twice is fine)."""
    folder = tmp_path / "reports"
    put(folder, "gpu-r01-u02/smi.xml", "nvidia-smi-q-h100.xml")
    put(folder, "gpu-r01-u02/kernel", "uname-r.txt")
    put(folder, "gpu-r01-u02/ib.out", "ibstat.txt")
    put(folder, "gpu-r01-u06.nvidia-smi.csv", "nvidia-smi.csv")
    put(folder, "gpu-r01-u06.uname.txt", "uname-r.txt")
    put(folder, "gpu-r01-u10/bios.txt", "dmidecode-bios.txt")
    put(folder, "gpu-r01-u10.eth0.ethtool", "ethtool-i.txt")
    return folder


def by_node(observations: tuple[Observation, ...] | list[Observation]) -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for o in observations:
        table.setdefault(o.node, {})[o.layer] = o.value
    return table


def test_layouts_and_observation_records(reports: Path) -> None:
    design = make_design()
    plan = plan_import(design, reports, who="mara", when=WHEN)
    table = by_node(plan.observations)
    assert set(table) == {"gpu-r01-u02", "gpu-r01-u06", "gpu-r01-u10"}
    assert set(table["gpu-r01-u02"]) == XML_LAYERS | {"kernel", "nic_model", "nic_firmware"}
    assert table["gpu-r01-u02"]["driver_cuda"] == "12.4"
    assert table["gpu-r01-u06"]["driver"] == "550.90.07"
    assert table["gpu-r01-u06"]["kernel"] == "6.8.0-45-generic"
    assert table["gpu-r01-u10"] == {
        "bios": "2.1c",
        "nic_driver": "mlx5_core 24.04-0.6.6",
        "nic_firmware": "28.39.2048",
    }
    kernel = next(o for o in plan.observations if o.node == "gpu-r01-u02" and o.layer == "kernel")
    assert (kernel.source, kernel.line) == ("reports/gpu-r01-u02/kernel", 1)
    bios = next(o for o in plan.observations if o.layer == "bios")
    assert (bios.source, bios.line) == ("reports/gpu-r01-u10/bios.txt", 8)
    assert {o.observed_at for o in plan.observations} == {WHEN}
    assert {o.imported_by for o in plan.observations} == {"mara"}
    assert {o.import_id for o in plan.observations} == {plan.import_id}
    ids = [o.id for o in plan.observations]
    assert len(set(ids)) == len(ids)
    assert not any(design.index.in_use(i) for i in ids)
    # Nodes in name order, layers in the matrix's order within a node.
    assert [o.node for o in plan.observations] == sorted(o.node for o in plan.observations)
    assert design.versions.observations == []  # planning changes nothing


def test_summary_counts(reports: Path) -> None:
    design = make_design()
    plan = plan_import(design, reports, who="mara", when=WHEN)
    summary = plan.summary
    assert summary.files_read == 7
    assert summary.formats == {
        "nvidia-smi -q -x": 1,
        "uname -r": 2,
        "ibstat": 1,
        "nvidia-smi --query-gpu CSV": 1,
        "dmidecode -t bios": 1,
        "ethtool -i": 1,
    }
    assert summary.nodes_read == ("gpu-r01-u02", "gpu-r01-u06", "gpu-r01-u10")
    assert summary.nodes_updated == summary.nodes_read
    assert len(summary.first_reports) == len(plan.observations) == 11 + 8 + 3
    assert summary.changed == () and summary.unchanged == 0
    apply_import(design, plan)

    # A month later: one node's driver moved on, the rest is the same.
    put(
        reports,
        "gpu-r01-u06.nvidia-smi.csv",
        text=(DATA / "nvidia-smi.csv").read_text().replace("550.90.07", "550.127.05"),
    )
    second = plan_import(design, reports, who="mara", when="2026-06-05T09:30:00Z")
    assert second.import_id != plan.import_id
    assert not {o.id for o in second.observations} & {o.id for o in plan.observations}
    changed = second.summary.changed
    assert [(c.node, c.layer, c.old, c.new) for c in changed] == [
        ("gpu-r01-u06", "driver", "550.90.07", "550.127.05")
    ]
    assert changed[0].source == "reports/gpu-r01-u06.nvidia-smi.csv" and changed[0].line == 2
    assert second.summary.nodes_updated == ("gpu-r01-u06",)
    assert second.summary.first_reports == ()
    assert second.summary.unchanged == len(second.observations) - 1
    text = "\n".join(second.summary.lines())
    assert "1 nodes updated: 1 values changed" in text
    assert "gpu-r01-u06 NVIDIA driver 550.90.07 → 550.127.05" in text


def test_unknown_nodes_are_listed_not_imported(reports: Path) -> None:
    put(reports, "gpu-r09-u40/uname", "uname-r.txt")
    put(reports, "login-01.uname", "uname-r.txt")
    plan = plan_import(make_design(), reports, who="mara", when=WHEN)
    assert plan.summary.unknown_nodes == ("gpu-r09-u40", "login-01")
    assert not {"gpu-r09-u40", "login-01"} & {o.node for o in plan.observations}
    assert "gpu-r09-u40" in plan.summary.nodes_read
    assert "2 unknown nodes" in "\n".join(plan.summary.lines())


def test_a_bad_file_anywhere_aborts_the_whole_import(reports: Path) -> None:
    design = make_design()
    earlier = apply_import(design, plan_import(design, reports, who="mara", when=WHEN))
    before = list(design.versions.observations)
    assert earlier.count == len(before) > 0
    data = (DATA / "ibstat.txt").read_bytes()
    bad = reports / "gpu-r01-u14" / "ibstat.txt"
    bad.parent.mkdir()
    bad.write_bytes(data[:-5])  # cut off mid-line, in the last node by name
    with pytest.raises(ReportError) as caught:
        plan_import(design, reports, who="mara", when=WHEN)
    assert caught.value.file == str(bad) and caught.value.line == data.count(b"\n")
    assert design.versions.observations == before
    bad.write_bytes(b"\x00\x01junk")
    with pytest.raises(ReportError, match="NUL"):
        plan_import(design, reports, who="mara", when=WHEN)
    bad.write_text("a note somebody left\n")
    with pytest.raises(ReportError, match="not a report"):
        plan_import(design, reports, who="mara", when=WHEN)
    assert design.versions.observations == before


def test_a_bad_file_of_an_unknown_node_aborts_too(reports: Path) -> None:
    put(reports, "spare-01/smi.xml", text="<nvidia_smi_log>\n<driver_version>5")
    with pytest.raises(ReportError, match="well-formed"):
        plan_import(make_design(), reports, who="mara", when=WHEN)


def test_conflicting_values_name_both_files(reports: Path) -> None:
    put(reports, "gpu-r01-u02/kernel-again.txt", text="6.8.0-40-generic\n")
    with pytest.raises(ReportError) as caught:
        plan_import(make_design(), reports, who="mara", when=WHEN)
    message = str(caught.value)
    assert "kernel-again.txt" in message and str(reports / "gpu-r01-u02" / "kernel") in message
    assert "'6.8.0-40-generic'" in message and "'6.8.0-45-generic'" in message


def test_same_value_from_two_files_is_one_observation(reports: Path) -> None:
    put(reports, "gpu-r01-u02.kernel", "uname-r.txt")  # same node as the folder, same value
    plan = plan_import(make_design(), reports, who="mara", when=WHEN)
    kernels = [o for o in plan.observations if o.node == "gpu-r01-u02" and o.layer == "kernel"]
    assert len(kernels) == 1 and plan.summary.files_read == 8


def test_names_differing_only_by_case(reports: Path) -> None:
    put(reports, "GPU-R01-U06/uname", "uname-r.txt")
    with pytest.raises(ReportError, match="only by case"):
        plan_import(make_design(), reports, who="mara", when=WHEN)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and symlinks (POSIX)")
def test_skipped_entries_are_noted(reports: Path, tmp_path: Path) -> None:
    outside = put(tmp_path, "elsewhere/secret.txt", "uname-r.txt")
    (reports / "gpu-r01-u14.uname").symlink_to(outside)
    put(reports, ".DS_Store", text="junk\n")
    put(reports, "gpu-r01-u02/old/uname", "uname-r.txt")
    os.mkfifo(reports / "gpu-r01-u10" / "pipe")
    inside = reports / "gpu-r01-u14.kernel"
    inside.symlink_to(reports / "gpu-r01-u06.uname.txt")  # a link inside DIR is read
    plan = plan_import(make_design(), reports, who="mara", when=WHEN)
    notes = "\n".join(plan.summary.notes)
    assert "gpu-r01-u14.uname (a link to outside the folder)" in notes
    assert ".DS_Store (hidden)" in notes
    assert "gpu-r01-u02/old (a sub-folder" in notes
    assert "gpu-r01-u10/pipe (not a regular file)" in notes
    assert by_node(plan.observations)["gpu-r01-u14"] == {"kernel": "6.8.0-45-generic"}


def test_caps_and_empty_folders(
    reports: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    design = make_design()
    monkeypatch.setattr(importer, "MAX_FILES", 3)
    with pytest.raises(ReportError, match="more than 3 files"):
        plan_import(design, reports, who="mara", when=WHEN)
    monkeypatch.undo()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ReportError, match="no report files"):
        plan_import(design, empty, who="mara", when=WHEN)
    with pytest.raises(ReportError, match="not a folder"):
        plan_import(design, tmp_path / "missing", who="mara", when=WHEN)
    with pytest.raises(EditError):
        plan_import(design, reports, who="", when=WHEN)


def test_apply_and_revert_restore_exactly(reports: Path) -> None:
    design = make_design()
    first = plan_import(design, reports, who="mara", when=WHEN)
    apply_import(design, first)
    after_first = list(design.versions.observations)
    put(reports, "gpu-r01-u14/uname", text="6.8.0-49-generic\n")
    second = plan_import(design, reports, who="jo", when="2026-06-01T00:00:00Z")
    applied = apply_import(design, second)
    assert applied.nodes == {"gpu-r01-u02", "gpu-r01-u06", "gpu-r01-u10", "gpu-r01-u14"}
    assert design.versions.observations == after_first + list(second.observations)
    with pytest.raises(EditError, match="already"):
        apply_import(design, second)
    revert_import(design, applied)
    assert design.versions.observations == after_first
    assert all(a is b for a, b in zip(design.versions.observations, after_first, strict=True))
    with pytest.raises(EditError, match="not the newest"):
        revert_import(design, second)
    # History is never rewritten: only the newest import can be taken back (undo).
    apply_import(design, second)
    with pytest.raises(EditError, match="not the newest"):
        revert_import(design, first)
    assert design.versions.observations == after_first + list(second.observations)


def test_a_stale_plan_is_refused(reports: Path) -> None:
    design = make_design()
    one = plan_import(design, reports, who="mara", when=WHEN)
    two = plan_import(design, reports, who="mara", when=WHEN)  # same ids: planned together
    apply_import(design, one)
    before = list(design.versions.observations)
    with pytest.raises(EditError, match="already|taken"):
        apply_import(design, two)
    assert design.versions.observations == before


def test_progress_is_reported_and_can_cancel(
    reports: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importer, "PROGRESS_EVERY", 2)
    seen: list[int] = []
    plan_import(make_design(), reports, who="mara", when=WHEN, progress=seen.append)
    assert seen == [2, 4, 6]

    class Cancelled(Exception):
        pass

    def cancel(_count: int) -> None:
        raise Cancelled

    with pytest.raises(Cancelled):
        plan_import(make_design(), reports, who="mara", when=WHEN, progress=cancel)


def test_changes_are_against_the_newest_report(reports: Path) -> None:
    """ "Newest" is by observed_at, as the matrix reads it: an import of an older folder
    applied later does not become what the next import is compared with."""
    design = make_design()
    apply_import(design, plan_import(design, reports, who="mara", when="2026-06-01T00:00:00Z"))
    put(reports, "gpu-r01-u06.uname.txt", text="6.8.0-40-generic\n")
    apply_import(design, plan_import(design, reports, who="mara", when="2026-05-01T00:00:00Z"))
    put(reports, "gpu-r01-u06.uname.txt", text="6.8.0-45-generic\n")
    third = plan_import(design, reports, who="mara", when="2026-07-01T00:00:00Z")
    assert third.summary.changed == ()  # equal to June's, not to May's (the last row)
