"""The window first, then the checks (issue 21): the first full check waits for the
first paint, runs in slices with its progress in the status strip, answers a reader at
once, and an edit made while it runs is not lost."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication
from qt_helpers import open_window

from workbench.catalog import load_catalog
from workbench.model import ops
from workbench.rules import check_design
from workbench.templates import sample_design
from workbench.ui.shell.document import Document


def _slice_through(figures, edit_after: int | None, edit) -> int:
    """Run the first check one slice per pass of the event loop, calling ``edit`` after
    ``edit_after`` slices (None: never); how many slices it took."""
    figures.check_soon()
    slices = 0
    while not figures.checked:
        QApplication.processEvents()
        slices += 1
        if slices == edit_after:
            edit()
    return slices


def test_the_first_check_runs_in_slices_after_it_is_released(qtbot, monkeypatch):
    design = sample_design(load_catalog(include_user=False, strict=True))
    document = Document(design)
    figures = document.figures
    monkeypatch.setattr(type(figures), "SLICE_MS", 0)  # one step per slice
    progress: list[int] = []
    figures.checkProgress.connect(progress.append)
    figures.hold_checks()
    figures.check_soon()
    for _ in range(5):
        QApplication.processEvents()
    assert not figures.checked and progress == []  # held: nothing ran
    figures.release_checks()
    QApplication.processEvents()
    # The modules the check needs are loaded first, a step per slice (CHECK_MODULES).
    while not progress and not figures.checked:
        QApplication.processEvents()
    assert not figures.checked and progress  # one slice ran, the rest is queued
    # An edit while the check runs: the finished findings still equal a full check.
    device = next(d for _r, d in design.iter_devices())
    applied = ops.apply(design, ops.RemoveDevice(device.id))
    document.notify(applied.change)
    qtbot.waitUntil(lambda: figures.checked, timeout=20_000)
    assert progress[-1] == 100 and progress == sorted(progress)
    assert sorted(figures.findings(), key=repr) == sorted(check_design(design), key=repr)


@pytest.mark.parametrize("spacing", [0.0, 1e9])
def test_progress_is_shown_at_most_every_progress_s(qtbot, monkeypatch, spacing):
    """Each progress signal repaints the strip: one per PROGRESS_S at most (the first at
    once), then 100 at the end; with no spacing, every new percent."""
    design = sample_design(load_catalog(include_user=False, strict=True))
    figures = Document(design).figures
    monkeypatch.setattr(type(figures), "SLICE_MS", 0)
    monkeypatch.setattr(type(figures), "PROGRESS_S", spacing)
    progress: list[int] = []
    figures.checkProgress.connect(progress.append)
    slices = _slice_through(figures, None, None)
    assert progress[-1] == 100 and progress == sorted(progress)
    if spacing:
        assert len(progress) == 2  # the first slice's percent, then the end
    else:
        assert len(set(progress)) > 10 and slices > 10


def test_a_reader_gets_the_findings_at_once_while_slices_run(qtbot, monkeypatch):
    design = sample_design(load_catalog(include_user=False, strict=True))
    document = Document(design)
    figures = document.figures
    monkeypatch.setattr(type(figures), "SLICE_MS", 0)
    figures.check_soon()
    QApplication.processEvents()
    assert not figures.checked
    assert sorted(figures.findings(), key=repr) == sorted(check_design(design), key=repr)
    assert figures.checked


def test_the_window_paints_before_the_first_check(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from workbench.ui.shell.main_window import MainWindow

    catalog = load_catalog(include_user=False, strict=True)
    seen: list[bool] = []
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    document = Document(sample_design(catalog))
    window = MainWindow(document, catalog=catalog, settings=settings)
    qtbot.addWidget(window)
    document.figures.findingsReady.connect(lambda: seen.append(bool(window._painted)))
    window.resize(1400, 900)
    window.show()
    qtbot.waitUntil(lambda: document.figures.checked and bool(seen), timeout=20_000)
    assert seen[0]  # the first frame was painted before the findings were ready
    document.undo_stack.setClean()


def test_the_estimates_view_is_built_when_its_tab_is_first_shown(qtbot, tmp_path):
    catalog = load_catalog(include_user=False, strict=True)
    window = open_window(qtbot, tmp_path, sample_design(catalog), catalog)
    assert window._estimates is None  # pyqtgraph and the plots cost nothing at start
    # The status strip still reads the first workload's training days.
    assert window.document.current_workload == window.document.design.workloads[0].id
    window.tabs.setCurrentWidget(window.estimates_page)
    assert window._estimates is not None
    assert window.estimates_page.widget() is window.estimates
    window.document.undo_stack.setClean()


def test_the_status_strip_reads_no_fabric_before_the_first_frame(qtbot):
    """A training estimate reads the compute fabric (seconds at 100,000 GPUs): the strip
    shows the job with its days to come until the window has painted (issue 21: the
    100,000-GPU window appeared only after the fabric was read)."""
    from workbench.ui.shell.summary_strip import SummaryStrip

    design = sample_design(load_catalog(include_user=False, strict=True))
    document = Document(design)
    figures = document.figures
    figures.hold_checks()
    strip = SummaryStrip(document)
    qtbot.addWidget(strip)
    strip.refresh()
    assert figures.computed["fabric"] == 0
    assert "days …" in strip.text()
    figures.release_checks()
    qtbot.waitUntil(lambda: "days …" not in strip.text())
    assert figures.computed["fabric"] == 1 and "days" in strip.text()


def test_the_link_tables_are_not_built_before_the_first_frame(qtbot, tmp_path, monkeypatch):
    """What the first frame draws (racks, devices) reads no link table: at 100,000 GPUs
    indexing the 440,000 links was ~0.3 s before the window appeared.  Opened from its
    file, as the window opens a design, with a fresh index."""
    from PySide6.QtCore import QSettings

    from workbench.model.index import DesignIndex
    from workbench.store import open_design
    from workbench.templates.bundled import SAMPLE_FILE
    from workbench.ui.shell.main_window import MainWindow

    catalog = load_catalog(include_user=False, strict=True)
    design = open_design(SAMPLE_FILE)
    assert design.links
    painted_when_built: list[bool] = []
    build = DesignIndex._index_links

    def spy(index: DesignIndex) -> None:
        painted_when_built.append(bool(window._painted))
        build(index)

    monkeypatch.setattr(DesignIndex, "_index_links", spy)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    document = Document()
    window = MainWindow(document, catalog=catalog, settings=settings)
    qtbot.addWidget(window)
    document.replace_design(design, None)
    window.resize(1400, 900)
    window.show()
    qtbot.waitUntil(lambda: document.figures.checked, timeout=20_000)
    assert all(painted_when_built)  # if built at all (the check itself needs none)
    document.undo_stack.setClean()


def test_a_sliced_check_with_port_faults_ends_with_the_findings_of_check_design(qtbot, monkeypatch):
    """FABRIC-PORT's suspects are read a few links per step between events, and the
    compute plane is built in steps before the rules: the findings the window ends
    with are check_design's, and the strip's estimate waits for the check."""
    import dataclasses

    from workbench.rules import port_suspects as suspect_pass
    from workbench.ui.shell.summary_strip import SummaryStrip

    monkeypatch.setattr(suspect_pass, "STEP_LINKS", 3)
    design = sample_design(load_catalog(include_user=False, strict=True))
    first = design.links[0]
    design.links.append(dataclasses.replace(first, id="l-twice"))  # its ports taken twice
    design.links.append(dataclasses.replace(first, id="l-nowhere", a_port="no-such-port"))
    design.reindex()
    document = Document(design)
    figures = document.figures
    monkeypatch.setattr(type(figures), "SLICE_MS", 0)  # one step per slice
    strip = SummaryStrip(document)
    qtbot.addWidget(strip)
    figures.check_soon()
    QApplication.processEvents()
    assert not figures.checked and "days …" in strip.text()  # pending, not a wrong figure
    qtbot.waitUntil(lambda: figures.checked, timeout=20_000)
    found = figures.findings()
    assert sorted(found, key=repr) == sorted(check_design(design), key=repr)
    assert any(f.rule == "FABRIC-PORT" for f in found)  # the faults were found
    qtbot.waitUntil(lambda: "days …" not in strip.text())
    assert "days" in strip.text()


def test_a_replaced_design_is_freed_without_the_collector(qtbot):
    """The window keeps the collector off from a design's load until its first check is
    done, and never thaws the old design: reference counting must free it whole.  The
    compute plane's kept device table names the design from its index (a cycle), so
    the document drops the old design's index when it replaces it."""
    import gc
    import weakref

    from workbench.calc.design_hardware import compute_plane_ready
    from workbench.model import Design

    document = Document()
    design = sample_design(load_catalog(include_user=False, strict=True))
    document.replace_design(design, None)
    figures = document.figures
    figures.findings()
    figures.fabric  # noqa: B018 - the compute plane and its tables, kept by the index
    assert compute_plane_ready(design) and "compute_tables" in design.index.fabric_cache
    gone = weakref.ref(design)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        document.replace_design(Design(), None)
        del design
        assert gone() is None, "the old design waits for a pass of the cyclic collector"
    finally:
        if was_enabled:
            gc.enable()


def _faulty_sample():
    """The sample with faults for the rules whose full-check passes run in steps: two
    servers on one host name, a name that maps to none, two servers off every plane, a
    port cabled twice."""
    import dataclasses

    from workbench.catalog.item import is_gpu_server

    design = sample_design(load_catalog(include_user=False, strict=True))
    types = design.device_types
    gpus = [d for _r, d in design.iter_devices() if is_gpu_server(types.get(d.device_type))]
    gpus[3].name = gpus[2].name.upper()
    gpus[5].name = "gpu 05!"
    off = {gpus[7].id, gpus[8].id}
    design.links[:] = [
        link for link in design.links if link.a_device not in off and link.b_device not in off
    ]
    design.links.insert(40, dataclasses.replace(design.links[0], id="l-twice"))
    design.reindex()
    return design, gpus


@pytest.mark.parametrize("edit_after", [None, 3, 40, 200])
def test_a_sliced_check_of_a_file_ends_with_what_workbench_check_says(
    qtbot, monkeypatch, tmp_path, capsys, edit_after
):
    """The window's findings after its sliced first check are those ``workbench check
    --json`` prints for the same file; with an edit made after some slices, those it
    prints for the edited design saved to a file."""
    import json

    from workbench.cli.main import main
    from workbench.rules import identity as identity_rules
    from workbench.rules import port_suspects as suspect_pass
    from workbench.store import open_design, save_design

    monkeypatch.setattr(suspect_pass, "STEP_LINKS", 50)
    monkeypatch.setattr(identity_rules, "STEP_DEVICES", 7)
    design, _gpus = _faulty_sample()
    path = tmp_path / "faulty.dcwb"
    save_design(design, path)
    document = Document()
    document.replace_design(open_design(path), path)
    figures = document.figures
    monkeypatch.setattr(type(figures), "SLICE_MS", 0)  # one step per slice

    def edit() -> None:
        opened = document.design
        server = next(d for _r, d in opened.iter_devices() if d.name == "gpu 05!")
        document.notify(ops.apply(opened, ops.RemoveDevice(server.id)).change)

    slices = _slice_through(figures, edit_after, edit)
    assert slices > 10  # the check took many slices
    assert edit_after is None or slices > edit_after  # the edit came before its end
    if edit_after is not None:
        save_design(document.design, path)
    capsys.readouterr()
    main(["check", str(path), "--json", "--severity", "info"])
    printed = json.loads(capsys.readouterr().out)["findings"]
    expected = sorted((f["rule"], f["message"], tuple(f["objects"])) for f in printed)
    found = sorted((f.rule, f.message, f.objects) for f in figures.findings())
    assert found == expected
    assert {"NODE-HOSTNAME", "FABRIC-UNCABLED", "FABRIC-PORT"} <= {r for r, _m, _o in found}


@pytest.mark.parametrize("edit_after", [None, 2])
def test_the_rack_loads_read_in_steps_before_the_rules_are_current(qtbot, monkeypatch, edit_after):
    """The first check reads every rack's load a few racks per step before its rules
    (they read them all); an edit meanwhile leaves the loads the edited design has."""
    from workbench.calc.summary import LoadCache
    from workbench.render.safe_figures import safe_rack_load

    design = sample_design(load_catalog(include_user=False, strict=True))
    document = Document(design)
    figures = document.figures
    monkeypatch.setattr(type(figures), "SLICE_MS", 0)
    monkeypatch.setattr(type(figures), "STEP_RACKS", 2)

    def edit() -> None:
        device = next(d for r in design.iter_racks() if len(r.devices) > 1 for d in r.devices)
        document.notify(ops.apply(design, ops.RemoveDevice(device.id)).change)

    _slice_through(figures, edit_after, edit)
    cache = LoadCache()
    fresh = {rack.id: safe_rack_load(design, rack, cache) for rack in design.iter_racks()}
    assert dict(figures.rack_loads) == fresh
    if edit_after is None:
        assert figures.computed["rack_loads"] == 1  # read once, in the steps
