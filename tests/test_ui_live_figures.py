"""The document's shared live figures: right after every kind of change, computed once.

Every figure is compared with a fresh ``summarize`` / ``rack_loads`` / ``evaluate_workload``
of the model, so a cache that kept something it should have dropped fails here; the
call counts check that the views really share one computation per change.
"""

from __future__ import annotations

import copy
import sys
from collections import Counter
from dataclasses import replace

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox

from workbench.calc import summary as calc_summary
from workbench.calc import workload as calc_workload
from workbench.calc.summary import rack_load, rack_loads, summarize
from workbench.calc.workload import WorkloadResult, evaluate_workload
from workbench.model import Device, Workload, ops
from workbench.ui.commands import (
    EditCommand,
    add_workload,
    rename_device,
    rename_rack,
    set_rack_cooling,
    set_rack_fields,
    update_workload,
)
from workbench.ui.shell.document import Change, Document
from workbench.ui.shell.main_window import MainWindow

TRAINING = Workload(id="w1", name="Llama 3 70B", tokens=2e12, tp=8, pp=2)
INFERENCE = Workload(id="w2", name="Serving", kind="inference", tp=8, context=8192, concurrency=16)


def same_result(a: WorkloadResult, b: WorkloadResult) -> bool:
    """Equal figures, errors and explanations (InputErrors compare by their text)."""
    return a.to_dict() == b.to_dict() and a.explanations == b.explanations


def assert_fresh(document: Document) -> None:
    """Every cached figure equals what the calculators give for the model now."""
    design = document.design
    figures = document.figures
    assert figures.summary == summarize(design)
    expected = rack_loads(design)
    assert list(figures.rack_loads.items()) == list(expected.items())  # order too
    for workload in design.workloads:
        assert same_result(figures.workload(workload.id), evaluate_workload(design, workload))


@pytest.fixture
def document(qtbot, tiny_design) -> Document:
    del qtbot  # a QApplication must exist for the QObjects
    document = Document(tiny_design)
    document.push(add_workload(document, TRAINING))
    document.push(add_workload(document, INFERENCE))
    assert_fresh(document)
    return document


def AddDeviceCommand(document: Document, rack_id: str, device: Device) -> EditCommand:  # noqa: N802
    """A structure change (a device placed), as a drop from the catalog makes."""
    return EditCommand(document, ops.AddDevice(rack_id, device), "Add device")


def test_rename_keeps_the_summary_and_refreshes_only_that_racks_load(document):
    figures = document.figures
    summary, loads_before = figures.summary, dict(figures.rack_loads)
    computed = dict(figures.computed)
    document.push(rename_rack(document, "r1", "Renamed rack"))
    document.push(rename_device(document, "d1", "renamed"))
    assert figures.rack_loads["r1"].name == "Renamed rack"
    assert_fresh(document)
    assert figures.summary is summary  # a name moves no summary figure
    assert figures.rack_loads["r2"] is loads_before["r2"]  # untouched rack kept
    assert figures.computed["summary"] == computed["summary"]
    assert figures.computed["rack_loads"] == computed["rack_loads"]
    assert figures.computed["rack_load"] == computed["rack_load"] + 1  # r1, once


def test_cooling_change_updates_that_racks_limit(document):
    figures = document.figures
    summary = figures.summary
    assert figures.rack_loads["r1"].limit_kw == 50.0
    version = figures.rack_loads_version
    document.push(set_rack_cooling(document, "r1", "liquid"))
    # The power budget is the planner's figure: a cooling change leaves it (issue 19).
    assert figures.rack_loads["r1"].limit_kw == 50.0
    assert figures.rack_loads["r1"] == rack_load(document.design, document.design.find_rack("r1"))
    # ... but moves the PUE derived from the racks' cooling (issue 26), and only that.
    assert figures.summary.pue == calc_summary.design_pue(document.design) != summary.pue
    moved = {"pue": summary.pue, "facility_kw": summary.facility_kw}
    assert replace(figures.summary, **moved) == summary
    assert_fresh(document)
    document.push(set_rack_fields(document, "r1", {"cooling": "air", "power_limit_kw": 17.5}))
    assert figures.rack_loads_version > version
    assert figures.rack_loads["r1"].limit_kw == 17.5
    assert_fresh(document)


def test_workload_edit_recomputes_that_workload_only(document):
    figures = document.figures
    summary, loads = figures.summary, figures.rack_loads_version
    before = figures.workload("w1")
    serving = figures.workload("w2")
    document.push(update_workload(document, "w1", mfu=0.5))
    # The days scale with 1 / MFU: from the one predicted on the design to the typed 0.5.
    assert before.mfu_source == "predicted"
    assert figures.workload("w1").days == pytest.approx(before.days * before.mfu / 0.5)
    assert figures.workload("w2") is serving  # the other workload's result kept
    assert figures.summary is summary and figures.rack_loads_version == loads
    assert_fresh(document)


def test_undo_and_redo_of_every_kind_of_edit(document):
    stack = document.undo_stack
    document.push(rename_device(document, "d2", "other"))
    document.push(set_rack_cooling(document, "r2", "liquid"))
    document.push(update_workload(document, "w1", tokens=5e12))
    document.push(
        AddDeviceCommand(
            document, "r2", Device(id="d9", name="late", device_type="nvidia-dgx-h100", position=1)
        )
    )
    assert document.figures.summary.gpus == 24
    assert_fresh(document)
    for _ in range(stack.count()):
        stack.undo()
        assert_fresh(document)
    assert document.figures.summary.gpus == 16
    for _ in range(stack.count()):
        stack.redo()
        assert_fresh(document)
    assert document.design.find_rack("r2").cooling == "liquid"


def test_replace_design_recomputes_everything(document, tiny_design):
    figures = document.figures
    figures.summary  # noqa: B018 - fill the cache for the old design
    other = replace(copy.deepcopy(tiny_design), workloads=[TRAINING])
    other.sites[0].rows.pop()  # a different design: one rack, no switch
    other.sites[0].rows[0].racks[0].devices.pop()
    document.replace_design(other, None)
    assert figures.summary.racks == 1 and figures.summary.devices == 2
    assert list(figures.rack_loads) == ["r1"]
    with pytest.raises(KeyError):
        figures.workload("w2")
    assert_fresh(document)


def test_a_retype_without_structure_still_recomputes_the_summary(document):
    """No command retypes a device today; one that does without ``structure`` must not
    leave a stale summary (the device types of the touched rack are compared)."""
    figures = document.figures
    assert figures.summary.gpus == 16
    device = document.design.find_device("d2")[1]
    device.device_type = "mgmt-48"
    document.notify(Change(devices=frozenset({"d2"})))
    assert figures.summary.gpus == 8
    assert_fresh(document)


def test_a_device_moved_between_racks_recomputes_only_those_racks(document):
    figures = document.figures
    figures.summary  # noqa: B018 - fill the caches
    figures.rack_loads  # noqa: B018
    before = dict(figures.computed)
    r2 = document.design.find_rack("r2")
    document.push(EditCommand(document, ops.MoveDevice("d2", "r2", 20, "front"), "Move"))
    assert figures.rack_loads["r2"].gpus == 8
    assert figures.find_device("d2")[0] is r2
    assert figures.computed["rack_load"] - before["rack_load"] == 2  # r1 and r2, not all
    assert figures.computed["rack_loads"] == before["rack_loads"]
    assert figures.computed["counts"] == before["counts"]  # recounted rack by rack
    assert_fresh(document)
    document.undo_stack.undo()
    assert figures.find_device("d2")[0].id == "r1"
    assert_fresh(document)


def test_a_switch_dropped_keeps_every_workload_estimate(document):
    """An estimate reads the GPUs and GPU servers, not the watts: a switch placed (what
    most drops are) must not re-run the training prediction (issue 21: ~12 ms of every
    drop, at any size).  A GPU server placed must."""
    figures = document.figures
    for workload in document.design.workloads:
        figures.workload(workload.id)
    before = figures.computed["workload"]
    switch = Device("s2", "mgmt-b01", "mgmt-48", position=40)
    document.push(AddDeviceCommand(document, "r2", switch))
    for workload in document.design.workloads:
        figures.workload(workload.id)
    assert figures.computed["workload"] == before
    assert_fresh(document)
    server = Device("d3", "dgx-003", "nvidia-dgx-h100", position=2)
    document.push(AddDeviceCommand(document, "r2", server))
    for workload in document.design.workloads:
        figures.workload(workload.id)
    assert figures.computed["workload"] == before + len(document.design.workloads)
    assert_fresh(document)


def test_a_server_moved_between_racks_keeps_the_summary_and_every_estimate(document):
    """A move changes two racks' devices, not the totals: the summary and the training
    predictions (which read the GPU and GPU-server totals) are not computed again, and
    still equal fresh ones (issue 21: ~1 ms of every move at 100,000 GPUs)."""
    figures = document.figures
    document.push(set_rack_cooling(document, "r2", "rear-door"))  # as r1: the same PUE
    figures.summary  # noqa: B018 - fill the caches
    for workload in document.design.workloads:
        figures.workload(workload.id)
    before = dict(figures.computed)
    document.push(EditCommand(document, ops.MoveDevice("d2", "r2", 20, "front"), "Move"))
    figures.summary  # noqa: B018
    for workload in document.design.workloads:
        figures.workload(workload.id)
    assert figures.computed["workload"] == before["workload"]
    assert figures.computed["summary"] == before["summary"]
    assert_fresh(document)
    document.undo_stack.undo()
    assert_fresh(document)


def test_the_undo_of_a_gpu_server_placed_takes_back_the_estimates_it_replaced(document):
    """A GPU server placed re-runs the training predictions; its undo brings back the
    GPU totals of before, and with them the results kept for them (nothing else they
    read moved), as its redo does with the placed server's.  An edit of anything else
    they read in between drops the kept ones: the undo then computes afresh."""
    figures = document.figures
    for workload in document.design.workloads:
        figures.workload(workload.id)
    per_pass = len(document.design.workloads)

    def computed_after(step) -> int:
        before = figures.computed["workload"]
        step()
        for workload in document.design.workloads:
            figures.workload(workload.id)
        assert_fresh(document)
        return figures.computed["workload"] - before

    server = Device("d3", "dgx-003", "nvidia-dgx-h100", position=2)
    assert (
        computed_after(lambda: document.push(AddDeviceCommand(document, "r2", server))) == per_pass
    )
    assert computed_after(document.undo_stack.undo) == 0
    assert computed_after(document.undo_stack.redo) == 0
    workload = document.design.workloads[0]
    assert (
        computed_after(
            lambda: document.push(update_workload(document, workload.id, name="renamed"))
        )
        >= 1
    )
    assert computed_after(document.undo_stack.undo) >= 1  # the rename's undo
    assert computed_after(document.undo_stack.undo) == per_pass  # kept ones were dropped


def test_lookups_match_the_model(document):
    figures, design = document.figures, document.design
    for rack, device in design.iter_devices():
        assert figures.find_device(device.id) == (rack, device)
    for rack in design.iter_racks():
        assert figures.find_rack(rack.id) is rack
    assert figures.find_device("r1") is None and figures.find_rack("nope") is None


def test_a_view_connected_after_the_document_reads_fresh_figures(document):
    seen = []
    document.changed.connect(lambda change: seen.append(document.figures.summary.devices))
    document.push(
        AddDeviceCommand(
            document, "r2", Device(id="d9", name="late", device_type="mgmt-48", position=40)
        )
    )
    document.undo_stack.undo()
    assert seen == [4, 3]


# -- the real window: one computation per change, shared by every view --------------
@pytest.fixture
def window(qtbot, tmp_path, monkeypatch, tiny_design) -> MainWindow:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    for name in ("critical", "question", "warning"):  # never block on a dialog
        monkeypatch.setattr(
            QMessageBox,
            name,
            staticmethod(lambda *args, **kwargs: QMessageBox.StandardButton.Discard),
        )
    document = Document(tiny_design)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(document, settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    # The first frame comes before the first check and estimates (issue 21): let it.
    qtbot.waitUntil(lambda: not document.figures.held)
    document.push(add_workload(document, TRAINING))
    QApplication.processEvents()
    yield window
    document.undo_stack.setClean()  # close without asking to save


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """Count calls of the calculators, however a module imported them."""
    counts: Counter[str] = Counter()
    originals = {
        "summarize": calc_summary.summarize,
        "rack_loads": calc_summary.rack_loads,
        "evaluate_workload": calc_workload.evaluate_workload,
    }

    def counting(name, original):
        def wrapper(*args, **kwargs):
            counts[name] += 1
            return original(*args, **kwargs)

        return wrapper

    for module in [m for name, m in sys.modules.items() if name.startswith("workbench")]:
        for name, original in originals.items():
            if getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, counting(name, original))
    return counts


def test_one_structure_change_computes_each_figure_once_and_only_where_it_moved(
    window, calls, qtbot
):
    """A device added to r2: no design-wide pass at all (the summary is rebuilt from the
    per-type counts, one rack load is recomputed), and the workload once for every view."""
    document = window.document
    # After the first check (which loads its modules first, then builds the compute
    # plane the estimate reads): the edit's own work is counted, not the check's.
    qtbot.waitUntil(lambda: document.figures.settled, timeout=20_000)
    calls.clear()
    computed = dict(document.figures.computed)
    document.push(
        AddDeviceCommand(
            document, "r2", Device(id="d9", name="late", device_type="nvidia-dgx-h100", position=1)
        )
    )
    QApplication.processEvents()
    assert calls == {"evaluate_workload": 1}
    delta = {k: v - computed[k] for k, v in document.figures.computed.items()}
    assert delta == {
        "summary": 1,
        "rack_loads": 0,
        "rack_load": 1,
        "workload": 1,
        "counts": 0,
        "check": 0,
        # A server added into a rack is cabled to nothing: the compute plane's figures
        # (half a second on a 100,000-GPU design) stay as they were.
        "fabric": 0,
    }
    assert window.summary.figure("gpus") == "24 GPUs"
    assert window.rack_view.load_of("r2").gpus == 8
    # The Estimates view, behind its tab, draws when shown, from the same shared result.
    window.tabs.setCurrentWidget(window.estimates_page)
    QApplication.processEvents()
    assert window.estimates.estimate.figure("gpus").text.startswith("24 ×")
    assert calls == {"evaluate_workload": 1}
    assert_fresh(document)


def test_a_rename_computes_no_design_wide_figure(window, calls):
    document = window.document
    window.tabs.setCurrentWidget(window.estimates_page)  # the plots are on screen
    QApplication.processEvents()
    plot_calls = []
    power_plot = window.estimates.power_plot
    original = power_plot.set_loads
    power_plot.set_loads = lambda *args: (plot_calls.append(args), original(*args))
    document.push(rename_device(document, "d1", "renamed"))
    QApplication.processEvents()
    assert calls == {}
    assert plot_calls == []  # no rack's load moved: the bars are not redrawn
    document.push(set_rack_fields(document, "r1", {"power_limit_kw": 120.0}))
    QApplication.processEvents()
    assert calls == {} and len(plot_calls) == 1
    assert list(plot_calls[0][3]) == [120.0, 12.0]  # the limits the plot now shows
    assert_fresh(document)


@pytest.mark.parametrize(
    ("change", "structural"),
    [
        (Change.all(), True),
        (Change(racks=frozenset({"r1"}), layout=True), True),
        (Change(devices=frozenset({"d1"}), added=frozenset({"d1"})), True),
        (Change(workloads=frozenset({"w1"})), False),  # a workload edited
        (Change(racks=frozenset({"r1"})), False),  # a rename
    ],
)
def test_which_changes_are_structural(change, structural):
    assert change.structural is structural


def test_a_new_design_is_announced_once(document, tiny_design):
    """Every view refreshes on ``designReplaced``; no ``changed`` repeats it."""
    seen = []
    document.designReplaced.connect(lambda: seen.append("replaced"))
    document.changed.connect(lambda change: seen.append(change))
    document.replace_design(copy.deepcopy(tiny_design), None)
    assert seen == ["replaced"]
    assert document.figures.summary.racks == 2


def test_the_hidden_estimates_view_draws_when_shown(window, calls):
    """Behind the Racks tab the plots are not redrawn on every edit; showing the tab
    brings them up to date with the shared figures."""
    document = window.document
    plot_calls = []
    power_plot = window.estimates.power_plot
    original = power_plot.set_loads
    power_plot.set_loads = lambda *args: (plot_calls.append(args), original(*args))
    document.push(set_rack_fields(document, "r1", {"power_limit_kw": 120.0}))
    QApplication.processEvents()
    assert plot_calls == []
    window.tabs.setCurrentWidget(window.estimates_page)
    QApplication.processEvents()
    assert len(plot_calls) == 1 and list(plot_calls[0][3]) == [120.0, 12.0]


def test_a_rack_load_read_before_the_table_is_that_racks_own_until_an_edit(
    qtbot, tiny_design, monkeypatch
):
    """Before every rack's load is read (the first frame, before the first check), a
    rack asked for is read on its own, exactly as the table would hold it; an edit drops
    what was read so; a reader of many racks gets the table."""
    del qtbot
    document = Document(tiny_design)
    figures, design = document.figures, document.design
    before = figures.rack_load("r2")
    assert before == rack_load(design, design.find_rack("r2"))
    assert figures.rack_load("no such rack") is None
    assert figures.computed["rack_loads"] == 0  # no table read for the first frame
    document.push(
        AddDeviceCommand(
            document, "r2", Device(id="d9", name="late", device_type="nvidia-dgx-h100", position=1)
        )
    )
    after = figures.rack_load("r2")
    assert after == rack_load(design, design.find_rack("r2")) != before
    assert figures.computed["rack_loads"] == 0
    monkeypatch.setattr(type(figures), "EARLY_LOADS", 1)  # r2 read: the next reader, the table
    assert figures.rack_load("r1") == rack_load(design, design.find_rack("r1"))
    assert figures.computed["rack_loads"] == 1
    assert_fresh(document)
