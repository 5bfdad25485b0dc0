"""The first working window, driven through real mouse and key events (journey 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from workbench.model.rack_fields import cooling_limit_kw
from workbench.ui.commands import add_workload
from workbench.ui.shell.document import Document
from workbench.ui.shell.main_window import MainWindow


@pytest.fixture
def dialogs(monkeypatch):
    """Record dialogs instead of blocking; unsaved changes are discarded unless a test says so."""
    calls: dict[str, list] = {
        "critical": [],
        "question": [],
        "answer": [QMessageBox.StandardButton.Discard],
    }

    def critical(parent, title, text, *args, **kwargs):
        calls["critical"].append((title, text))
        return QMessageBox.StandardButton.Ok

    def question(parent, title, text, *args, **kwargs):
        calls["question"].append((title, text))
        return calls["answer"][-1]

    monkeypatch.setattr(QMessageBox, "critical", staticmethod(critical))
    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    return calls


@pytest.fixture
def make_window(qtbot, tmp_path, monkeypatch, dialogs):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))

    def make(design, catalog=None) -> MainWindow:
        document = Document(design)
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(document, catalog=catalog, settings=settings)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        QApplication.processEvents()
        return window

    return make


@pytest.fixture
def window(make_window, tiny_design) -> MainWindow:
    return make_window(tiny_design)


def click_object(qtbot, window: MainWindow, object_id: str) -> None:
    """A real left click on the viewport where ``object_id`` is drawn."""
    view = window.rack_view
    rect = view.scene_rect_of(object_id)
    assert rect is not None, object_id
    if object_id in view._items:  # a rack: click its header, above the devices
        point = rect.topLeft() + (rect.topRight() - rect.topLeft()) * 0.5
        point.setY(rect.top() + 12)
    else:
        point = rect.center()
    view.centerOn(point)
    pos: QPoint = view.mapFromScene(point)
    assert view.viewport().rect().contains(pos)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_window_opens_on_the_sample_design(make_window):
    from workbench.catalog import load_catalog
    from workbench.templates import sample_design

    catalog = load_catalog(include_user=False)
    window = make_window(sample_design(), catalog)
    window.set_untitled_name("Sample design")
    assert window.windowTitle() == "Sample design[*] — Workbench"
    assert not window.isWindowModified()
    design = window.document.design
    assert len(window.rack_view._items) == sum(1 for _ in design.iter_racks())
    assert window.summary.figure("gpus") == "1,024 GPUs"
    assert "EF BF16 peak" in window.summary.figure("bf16")
    assert window.summary.figure("it").endswith("MW IT")
    assert window.palette_widget.model_item_count() == len(catalog.items)
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())][0] == "Racks"


def test_click_device_shows_it_in_the_inspector(qtbot, window):
    click_object(qtbot, window, "d2")
    assert window.document.selection == "d2"
    inspector = window.inspector
    assert inspector.device_name.text() == "dgx-002"
    assert inspector.device_fields["model"].text() == "DGX H100"
    assert inspector.device_fields["position"].text().startswith("U12–U19 (8U)")
    assert inspector.device_fields["rack"].text() == "A01"
    assert inspector.device_fields["gpus"].text() == "8 × H100 SXM5 80GB"
    assert "10.20 kW max" in inspector.device_fields["power"].text()


def test_click_background_clears_the_selection(qtbot, window):
    click_object(qtbot, window, "d1")
    view = window.rack_view
    corner = view.mapFromScene(view.sceneRect().bottomRight())
    view.centerOn(view.sceneRect().bottomRight())
    corner = view.mapFromScene(view.sceneRect().bottomRight()) - QPoint(3, 3)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=corner)
    assert window.document.selection is None
    assert window.inspector.stack.currentIndex() == 0


def test_rename_device_then_undo_and_redo_with_keys(qtbot, window):
    click_object(qtbot, window, "d1")
    editor = window.inspector.device_name
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, "node-a")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    design = window.document.design
    assert design.find_device("d1")[1].name == "node-a"
    assert window.isWindowModified()
    assert window.windowTitle().endswith("[*] — Workbench")

    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert design.find_device("d1")[1].name == "dgx-001"
    assert editor.text() == "dgx-001"
    assert not window.isWindowModified()

    qtbot.keyClick(
        editor,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert design.find_device("d1")[1].name == "node-a"
    window.undo_action.trigger()
    assert design.find_device("d1")[1].name == "dgx-001"
    window.redo_action.trigger()
    assert design.find_device("d1")[1].name == "node-a"


def test_blank_device_name_is_refused(qtbot, window):
    click_object(qtbot, window, "d1")
    editor = window.inspector.device_name
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert window.document.design.find_device("d1")[1].name == "dgx-001"
    assert editor.text() == "dgx-001"
    assert window.document.undo_stack.count() == 0


def test_rename_rack_from_the_inspector(qtbot, window):
    click_object(qtbot, window, "r1")
    assert window.document.selection == "r1"
    editor = window.inspector.rack_name
    assert editor.text() == "A01"
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClicks(editor, "GPU-01")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert window.document.design.find_rack("r1").name == "GPU-01"
    window.undo_action.trigger()
    assert window.document.design.find_rack("r1").name == "A01"


def test_cooling_change_via_combo_and_undo(qtbot, window):
    click_object(qtbot, window, "r1")
    combo = window.inspector.cooling
    assert combo.currentData() == "rear-door"
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Down)
    rack = window.document.design.find_rack("r1")
    # The cooling limit follows the cooling type; the power budget stays the planner's
    # (the combo used to set it to 120 kW while the rack form kept 50 kW: issue 19).
    assert rack.cooling == "liquid" and rack.power_limit_kw == 50.0
    assert cooling_limit_kw(window.document.design, rack) == 120.0
    assert "of 50 kW" in window.inspector.rack_fields["kw"].text()
    window.undo_action.trigger()
    assert rack.cooling == "rear-door" and rack.power_limit_kw == 50.0
    assert combo.currentData() == "rear-door"


def test_selection_from_elsewhere_is_highlighted(window):
    window.document.select("s1")
    assert window.rack_view._selected == ("s1",)
    assert window.inspector.device_name.text() == "mgmt-a01"


def test_summary_strip_follows_every_change(window):
    from workbench.model import Workload

    strip = window.summary
    assert strip.figure("gpus") == "16 GPUs"
    assert strip.figure("racks") == "2 racks"
    assert strip.figure("it") == "20.5 kW IT"
    assert strip.figure("days") == ""
    window.document.push(add_workload(window.document, Workload(id="w1", name="Llama")))
    assert strip.figure("days").startswith("Llama:")
    window.undo_action.trigger()
    assert strip.figure("days") == ""
    window.redo_action.trigger()
    assert strip.figure("days").startswith("Llama:")


def test_save_and_reopen_gives_an_equal_design(make_window, tmp_path, monkeypatch):
    import copy

    from PySide6.QtWidgets import QFileDialog

    from workbench.catalog import load_catalog
    from workbench.templates import sample_design

    window = make_window(sample_design(), load_catalog(include_user=False))
    original = copy.deepcopy(window.document.design)
    target = tmp_path / "site-a"
    monkeypatch.setattr(
        QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), ""))
    )
    window.file_actions.save_action.trigger()
    saved = tmp_path / "site-a.dcwb"
    assert saved.exists()
    assert window.document.path == saved.resolve()
    assert window.windowTitle() == "site-a.dcwb[*] — Workbench"
    assert not window.isWindowModified()
    assert window.file_actions.recent_files()[0] == str(saved.resolve())

    from workbench.templates.new_hall import HallSpec

    window.file_actions.ask_new_hall = lambda: HallSpec(rows=1, racks_per_row=2)
    window.file_actions.new()
    assert [r.name for r in window.document.design.iter_racks()] == ["A01", "A02"]
    assert window.file_actions.open_path(saved)
    assert window.document.design == original


def test_corrupt_file_shows_an_error_naming_it_and_is_untouched(window, tmp_path, dialogs):
    bad = tmp_path / "broken.dcwb"
    data = bytes(range(256)) * 40
    bad.write_bytes(data)
    before = window.document.design
    assert not window.file_actions.open_path(bad)
    assert len(dialogs["critical"]) == 1
    title, text = dialogs["critical"][0]
    assert "broken.dcwb" in text and "\n" not in text
    assert bad.read_bytes() == data
    assert window.document.design is before


def test_close_with_unsaved_changes_prompts(qtbot, window, dialogs):
    click_object(qtbot, window, "d1")
    from workbench.ui.commands import rename_device

    window.document.push(rename_device(window.document, "d1", "changed"))
    dialogs["answer"].append(QMessageBox.StandardButton.Cancel)
    window.close()
    assert window.isVisible()
    assert len(dialogs["question"]) == 1
    dialogs["answer"].append(QMessageBox.StandardButton.Discard)
    window.close()
    assert not window.isVisible()


def test_missing_recent_files_are_removed_with_a_message(window, tmp_path):
    actions = window.file_actions
    gone = tmp_path / "gone.dcwb"
    actions._set_recent([str(gone)])
    actions._fill_recent_menu()
    assert actions.recent_files() == []
    assert "gone.dcwb" in window.statusBar().currentMessage()


def test_autosave_is_offered_for_recovery(make_window, tmp_path, monkeypatch):
    import os

    from workbench import store
    from workbench.catalog import load_catalog
    from workbench.templates import sample_design
    from workbench.ui.commands import rename_rack

    catalog = load_catalog(include_user=False)
    window = make_window(sample_design(), catalog)
    path = tmp_path / "plan.dcwb"
    assert window.file_actions.save_to(path)
    rack_id = next(window.document.design.iter_racks()).id
    window.document.push(rename_rack(window.document, rack_id, "RECOVERED"))
    window.file_actions.autosave()
    copy = store.autosave_path(path)
    assert copy.exists()
    os.utime(copy, (path.stat().st_mtime + 5, path.stat().st_mtime + 5))
    window.document.undo_stack.setClean()  # pretend the session ended

    monkeypatch.setattr(window.file_actions, "ask_recovery", lambda p: "recover")
    assert window.file_actions.open_path(path)
    assert window.document.design.find_rack(rack_id).name == "RECOVERED"
    assert window.isWindowModified()
    assert window.file_actions.save()
    assert not copy.exists()


def test_run_app_with_a_bad_file_exits_1(qapp, tmp_path, dialogs, monkeypatch):
    from workbench.ui.shell import app as app_module

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(app_module, "load_catalog_reporting", lambda: (None, [], []))
    bad = tmp_path / "empty.dcwb"
    bad.write_bytes(b"")
    assert app_module.run_app(str(bad)) == 1
    assert "empty.dcwb" in dialogs["critical"][0][1]
    assert bad.read_bytes() == b""
    missing = tmp_path / "nope.dcwb"
    assert app_module.run_app(str(missing)) == 1
    assert not Path(missing).exists()


def test_catalog_problems_are_reported_without_blocking(qtbot, tiny_design, tmp_path):
    problems = ["catalogs/servers/bad.yaml:7: u_height: must be a number"]
    window = MainWindow(
        Document(tiny_design),
        catalog_problems=problems,
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(window)
    window.show()
    window.report_catalog_problems()
    assert "1 problem" in window.statusBar().currentMessage()
    box = window._problems_box
    assert box.isVisible() and not box.isModal()
    assert "bad.yaml:7: u_height" in box.detailedText()
    assert window.catalog_problems_action.isEnabled()
    box.close()


#: A user catalog entry that loads but warns, as ``workbench catalog validate`` shows.
ODD_PDU = """\
slug: test-pdu-odd
kind: pdu
manufacturer: Generic
model: Odd PDU 1-phase 230 V 32 A
u_height: 0
props:
  phases: 1
  voltage: 230
  breaker_a: 32
  capacity_kw: 10
"""


@pytest.fixture
def warned_user_catalog(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "user-catalog"
    folder.mkdir()
    (folder / "odd-pdu.yaml").write_text(ODD_PDU, encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_USER_CATALOG", str(folder))
    return folder


def test_run_app_passes_catalog_warnings_to_the_window(
    qapp, warned_user_catalog, tmp_path, monkeypatch
):
    """The window is told about warnings too, not only about entries left out."""
    from workbench.ui.shell import app as app_module
    from workbench.ui.shell import main_window as main_window_module

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    built: dict = {}

    class Built(Exception):
        pass

    def record(document, **kwargs):
        built.update(kwargs)
        raise Built  # stop before a real window and the event loop

    monkeypatch.setattr(main_window_module, "MainWindow", record)
    with pytest.raises(Built):
        app_module.run_app(None)
    assert built["catalog_problems"] == []
    (warning,) = built["catalog_warnings"]
    assert "odd-pdu.yaml:10" in warning and "capacity_kw" in warning
    assert built["catalog"].get("test-pdu-odd") is not None, "a warned entry is loaded"


def test_catalog_warnings_enable_the_menu_and_are_not_called_left_out(
    qtbot, tiny_design, tmp_path, warned_user_catalog
):
    from workbench.ui.shell.app import load_catalog_reporting

    catalog, problems, warnings = load_catalog_reporting()
    assert problems == [] and len(warnings) == 1
    window = MainWindow(
        Document(tiny_design),
        catalog=catalog,
        catalog_problems=problems,
        catalog_warnings=warnings,
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(window)
    window.show()
    assert window.catalog_problems_action.isEnabled()
    window.report_catalog_problems()
    message = window.statusBar().currentMessage()
    assert "1 warning" in message and "skipped" not in message
    assert not hasattr(window, "_problems_box"), "a warning alone does not pop up at start"

    window.catalog_problems_action.trigger()
    box = window._problems_box
    assert box.isVisible() and not box.isModal()
    assert "could not be loaded" not in box.text() and "left out" not in box.text()
    assert "1 catalog warning" in box.text() and "loaded" in box.text()
    assert box.detailedText() == f"warning: {warnings[0]}"
    assert "warning: " in box.informativeText() and "capacity_kw" in box.informativeText()
    box.close()


def test_catalog_errors_and_warnings_are_listed_apart(qtbot, tiny_design, tmp_path):
    window = MainWindow(
        Document(tiny_design),
        catalog_problems=["a.yaml:3: field 'u_height': must be a number"],
        catalog_warnings=["b.yaml:9: field 'props.capacity_kw': 10 kW differs"],
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(window)
    window.show()
    window.report_catalog_problems()
    message = window.statusBar().currentMessage()
    assert "1 problem" in message and "1 warning" in message
    box = window._problems_box  # an error still opens the list at start
    assert box.detailedText().splitlines() == [
        "error: a.yaml:3: field 'u_height': must be a number",
        "warning: b.yaml:9: field 'props.capacity_kw': 10 kW differs",
    ]
    assert "1 catalog entry could not be loaded and was left out" in box.text()
    assert "1 catalog warning" in box.text()
    box.close()


def test_no_catalog_problems_leave_the_menu_item_disabled(qtbot, tiny_design, tmp_path):
    window = MainWindow(
        Document(tiny_design),
        settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
    )
    qtbot.addWidget(window)
    assert not window.catalog_problems_action.isEnabled()
    assert window.show_catalog_problems() is None


def test_about_box_shows_the_versions(window, monkeypatch):
    import platform

    import PySide6
    from PySide6.QtCore import qVersion

    import workbench

    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(
        QMessageBox, "about", staticmethod(lambda parent, title, text: shown.append((title, text)))
    )
    window.about_action.trigger()
    ((title, text),) = shown
    assert title == "About Workbench"
    assert f"Workbench {workbench.__version__}" in text
    assert qVersion() in text and PySide6.__version__ in text
    assert f"Python {platform.python_version()}" in text


def test_estimates_tab_puts_the_rack_docks_away_and_back(qtbot, window):
    """Catalog and inspector are about racks: the Estimates tab gives their width to the
    form and plots (a laptop screen squeezed the plots to slivers) and Racks brings them
    back; the saved layout keeps them."""
    assert window.palette_dock.isVisible() and window.inspector_dock.isVisible()
    tab_bar = window.tabs.tabBar()
    estimates = window.tabs.indexOf(window.estimates_page)
    qtbot.mouseClick(tab_bar, Qt.MouseButton.LeftButton, pos=tab_bar.tabRect(estimates).center())
    assert window.tabs.currentIndex() == estimates
    assert not window.palette_dock.isVisible() and not window.inspector_dock.isVisible()
    qtbot.mouseClick(tab_bar, Qt.MouseButton.LeftButton, pos=tab_bar.tabRect(0).center())
    assert window.palette_dock.isVisible() and window.inspector_dock.isVisible()
    # A dock the user closed stays closed.
    window.inspector_dock.close()
    qtbot.mouseClick(tab_bar, Qt.MouseButton.LeftButton, pos=tab_bar.tabRect(estimates).center())
    qtbot.mouseClick(tab_bar, Qt.MouseButton.LeftButton, pos=tab_bar.tabRect(0).center())
    assert window.palette_dock.isVisible() and not window.inspector_dock.isVisible()
    window.inspector_dock.show()
    # Closing on the Estimates tab saves the docks as the user had them.
    qtbot.mouseClick(tab_bar, Qt.MouseButton.LeftButton, pos=tab_bar.tabRect(estimates).center())
    assert window.close()
    window.restoreState(window.settings.value("window/state"))
    assert not window.palette_dock.isHidden() and not window.inspector_dock.isHidden()


def test_autosave_writes_only_what_changed_since_the_last_copy(make_window, tmp_path):
    from workbench import store
    from workbench.ui.commands import rename_rack

    window = make_window(_tiny_for_autosave())
    actions = window.file_actions
    path = tmp_path / "plan.dcwb"
    assert actions.save_to(path)
    assert not actions.autosave(), "nothing to save while clean"
    rack_id = next(window.document.design.iter_racks()).id
    window.document.push(rename_rack(window.document, rack_id, "R-one"))
    assert actions.autosave()
    copy = store.autosave_path(path)
    assert store.open_design(copy).find_rack(rack_id).name == "R-one"
    assert not actions.autosave(), "no change since the last copy"
    window.document.push(rename_rack(window.document, rack_id, "R-two"))
    assert actions.autosave()
    assert store.open_design(copy).find_rack(rack_id).name == "R-two"


def _tiny_for_autosave():
    from workbench.catalog import load_catalog
    from workbench.templates import build_template

    return build_template("dgx-h100-superpod", gpus=8, catalog=load_catalog(include_user=False))


# -- an unsaved design's autosave at start-up ---------------------------------------------
def _crashed_untitled_session() -> Path:
    """The autosave an unsaved design left when its session ended without saving."""
    from workbench import store

    design = _tiny_for_autosave()
    next(design.iter_racks()).name = "LOST-WORK"
    return store.write_autosave(design, None)


def test_start_recovers_the_autosave_of_an_unsaved_design(make_window, monkeypatch, tmp_path):
    from workbench import store
    from workbench.model import Design
    from workbench.ui.shell import app as app_module

    window = make_window(Design())
    copy = _crashed_untitled_session()
    monkeypatch.setattr(window.file_actions, "ask_untitled_recovery", lambda: True)
    app_module.start_without_file(window)
    document = window.document
    assert next(document.design.iter_racks()).name == "LOST-WORK"
    assert document.path is None and document.is_dirty and window.isWindowModified()
    assert copy.exists(), "kept until the user saves or discards"
    assert window.file_actions.autosave()  # the next session's copy is this design
    assert next(store.open_design(copy).iter_racks()).name == "LOST-WORK"
    assert window.file_actions.save_to(tmp_path / "kept.dcwb")
    assert not copy.exists()


def test_declining_the_recovery_starts_on_the_sample_and_drops_the_copy(make_window, monkeypatch):
    from workbench.model import Design
    from workbench.ui.shell import app as app_module

    window = make_window(Design())
    copy = _crashed_untitled_session()
    monkeypatch.setattr(window.file_actions, "ask_untitled_recovery", lambda: False)
    app_module.start_without_file(window)
    assert window.windowTitle().startswith("Sample design")
    assert all(rack.name != "LOST-WORK" for rack in window.document.design.iter_racks())
    assert not window.document.is_dirty
    assert not copy.exists()


def test_no_autosave_means_no_question_at_start(make_window, monkeypatch):
    from workbench.model import Design
    from workbench.ui.shell import app as app_module

    window = make_window(Design())
    asked = []
    monkeypatch.setattr(
        window.file_actions, "ask_untitled_recovery", lambda: asked.append(True) or True
    )
    app_module.start_without_file(window)
    assert asked == [] and window.windowTitle().startswith("Sample design")


def test_discarding_then_cancelling_open_still_autosaves_the_open_design(window, monkeypatch):
    """Discard removes the copy; when the file dialog is then cancelled the same unsaved
    design stays open, and the next autosave must write it again."""
    from PySide6.QtWidgets import QFileDialog

    from workbench import store
    from workbench.ui.commands import rename_rack

    actions = window.file_actions
    window.document.push(rename_rack(window.document, "r2", "B-two"))
    assert actions.autosave()
    copy = store.autosave_path(None)
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", staticmethod(lambda *args, **kwargs: ("", ""))
    )
    assert not actions.open()  # Save/Discard/Cancel answers Discard, then no file chosen
    assert not copy.exists() and window.document.is_dirty
    assert actions.autosave()
    assert copy.exists()


def test_a_refused_edit_says_why_in_the_status_bar(window):
    from workbench.ui.commands import rename_rack

    window.document.push(rename_rack(window.document, "r1", "  "))
    assert window.statusBar().currentMessage() == "A rack name cannot be empty."
    assert window.document.undo_stack.count() == 0


def _interrupted_save(tmp_path, design, newer_name: str):
    """``site.dcwb`` saved ten minutes ago, and a complete but never renamed save of a
    newer design beside it, as a crash between write and rename leaves it."""
    import dataclasses
    import os
    import subprocess
    import sys
    import time

    from workbench.store import save_design

    path = tmp_path / "site.dcwb"
    save_design(design, path)
    newer = tmp_path / "newer.dcwb"
    save_design(dataclasses.replace(design, name=newer_name), newer)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # a pid that has exited: the save that wrote the temp is gone
    temp = tmp_path / f".{path.name}.{child.pid}.0123abcd.tmp"
    newer.replace(temp)
    now = time.time()
    os.utime(path, (now - 600, now - 600))
    os.utime(temp, (now - 300, now - 300))
    return path, temp


@pytest.mark.parametrize("answer", ["Recover", "Open the File as It Is", None])
def test_an_interrupted_save_is_offered_when_its_file_is_opened(
    window, tmp_path, monkeypatch, tiny_design, answer
):
    path, temp = _interrupted_save(tmp_path, tiny_design, "the newer work")
    asked: list[str] = []

    def clicked(box):
        asked.append(box.text())
        return next((b for b in box.buttons() if b.text() == answer), None)

    monkeypatch.setattr(QMessageBox, "exec", lambda box: 0)
    monkeypatch.setattr(QMessageBox, "clickedButton", clicked)
    opened = window.file_actions.open_path(path, ask_save=False)
    assert len(asked) == 1 and "interrupted" in asked[0] and "site.dcwb" in asked[0]
    if answer == "Recover":
        assert opened and window.document.design.name == "the newer work"
        assert not temp.exists()
    elif answer is not None:
        assert opened and window.document.design.name == tiny_design.name
        assert not temp.exists()
    else:  # Cancel: nothing opened, nothing removed
        assert not opened and temp.exists()
