"""The Scenarios panel in the window: Save as Scenario writes a sibling, the wizard's
ticks make one variant per combination (listed before, under a cancellable progress
dialog, findings listed, the made files ticked), two ticked scenarios are compared with
the best and worst marked, and a panel behind another tab reads nothing until raised."""

from __future__ import annotations

import os

import pytest
from PySide6.QtWidgets import QApplication
from qt_helpers import open_window

from workbench.calc.summary import rack_loads
from workbench.catalog import load_catalog
from workbench.model.rack_fields import built_cooling
from workbench.planning.scenarios import compare, figures_of, scenario_path
from workbench.store import open_design, save_design
from workbench.templates.bundled import bundled_sample
from workbench.templates.variants import MAX_VARIANTS, TOPOLOGIES, VariantChoices, VariantRequest
from workbench.ui.scenarios.table import BEST, WORST


@pytest.fixture
def window(qtbot, tmp_path):
    catalog = load_catalog(include_user=False, strict=True)
    base = tmp_path / "hall.dcwb"
    save_design(bundled_sample(), base)
    win = open_window(qtbot, tmp_path, open_design(base, catalog=catalog), catalog)
    win.document.set_path(base)
    return win


def _keep_message(actions):
    """``tell`` that keeps the message (and its details) instead of showing a box."""

    def tell(_title: str, text: str, details: str = "") -> None:
        actions.last_message = f"{text}\n\n{details}" if details else text

    return tell


class _Wizard:
    """The wizard as closed with ``choices`` ticked."""

    def __init__(self, choices: VariantChoices) -> None:
        self._choices = choices

    def choices(self) -> VariantChoices:
        return self._choices


def test_a_hidden_panel_reads_no_folder_until_raised(window):
    actions = window.scenario_actions
    window.checks_dock.raise_()
    QApplication.processEvents()
    before = actions.panel.refreshes
    window.document.set_path(window.document.path)  # what a Save As would do
    QApplication.processEvents()
    assert actions.panel.refreshes == before
    actions.dock.raise_()
    QApplication.processEvents()
    assert actions.panel.refreshes == before + 1


def test_save_as_scenario_and_variant_then_compare(window, tmp_path, qtbot):
    actions = window.scenario_actions
    actions.dock.raise_()
    QApplication.processEvents()
    actions.ask_label = lambda: "as is"
    saved = actions.save_as_scenario()
    assert saved == tmp_path / "hall.scenario-as-is.dcwb" and saved.exists()
    actions.run_wizard = lambda: _Wizard(VariantChoices(node_types=("nvidia-dgx-b200",)))
    actions.tell = _keep_message(actions)
    [variant] = actions.new_variant()
    assert variant == tmp_path / "hall.scenario-dgx-b200.dcwb"
    # One variant is ticked with the design, ready to compare.
    assert actions.panel.ticked() == [tmp_path / "hall.dcwb", variant]
    assert "passes the rules" in actions.last_message or "errors" in actions.last_message
    panel = actions.panel
    assert panel.files.count() == 3
    panel.tick([tmp_path / "hall.dcwb", variant])
    assert panel.compare_button.isEnabled()
    table = panel.compare_ticked()
    assert table is not None and table.names == ("hall", "dgx-b200")
    expected = compare(
        [
            figures_of(open_design(tmp_path / "hall.dcwb"), "hall"),
            figures_of(open_design(variant), "dgx-b200"),
        ]
    )
    assert [r.values for r in table.rows] == [r.values for r in expected.rows]
    grid = panel.grid
    assert grid.columnCount() == 2 and grid.rowCount() == len(table.rows)
    peak = next(y for y, r in enumerate(table.rows) if r.label == "Peak BF16")
    row = table.rows[peak]
    assert grid.item(peak, row.best[0]).background().color() == BEST
    assert grid.item(peak, row.worst[0]).background().color() == WORST
    assert panel.plots.bars_note and panel.plots.scatter_note
    # The keys sit under the plots (a key inside covered the second bar): each category
    # and each scenario named, and neither key overlaps its plot.
    plots = panel.plots
    assert "Compute" in plots.bars_legend.text() and "Installation" in plots.bars_legend.text()
    assert all(name in plots.scatter_legend.text() for name in table.names)
    for plot, key in ((plots.bars, plots.bars_legend), (plots.scatter, plots.scatter_legend)):
        assert plot.parentWidget() is key.parentWidget()
        assert plot.height() > 0 and key.height() > 0  # laid out, so the next line can fail
        assert not plot.geometry().intersects(key.geometry())


def test_save_as_scenario_needs_a_saved_design(qtbot, tmp_path):
    win = open_window(qtbot, tmp_path, bundled_sample())
    actions = win.scenario_actions
    actions.ask_label = lambda: "x"
    actions.tell = _keep_message(actions)
    assert actions.save_as_scenario() is None
    assert "Save the design first" in actions.last_message


def test_the_wizard_dialog_offers_the_catalogs_choices_and_lists_the_plan(qtbot, tmp_path):
    from workbench.ui.scenarios.wizard import ScenarioWizard

    catalog = load_catalog(include_user=False, strict=True)
    dialog = ScenarioWizard(catalog, bundled_sample(), tmp_path / "hall.dcwb")
    qtbot.addWidget(dialog)
    assert dialog.requests() == [] and not dialog.make_button.isEnabled()
    offered = [dialog.node.item(i).text() for i in range(dialog.node.count())]
    assert "nvidia-dgx-b200" in offered and all(catalog[s].gpu_count for s in offered)
    switches = {dialog.switch.item(i).text() for i in range(dialog.switch.count())}
    assert {"nvidia-qm9700", "nvidia-q3400-ra"} <= switches
    assert "generic-mgmt-48p-10g" not in switches  # an access switch is no compute leaf
    dialog.tick(dialog.node, ["nvidia-dgx-b200"])
    dialog.tick(dialog.cooling, ["air", "rear-door", "liquid"])
    wanted = [
        VariantRequest(node_type="nvidia-dgx-b200", cooling=c)
        for c in ("air", "liquid", "rear-door")  # the list's order
    ]
    assert dialog.requests() == wanted
    assert dialog.make_button.isEnabled() and dialog.make_button.text() == "Make 3 Variants"
    plan = dialog.plan.toPlainText()
    for request in wanted:
        assert scenario_path(tmp_path / "hall.dcwb", request.label()).name in plan
    # Past the cap the plan says why and nothing can be made.
    dialog.tick(dialog.topology, list(TOPOLOGIES))
    switches = [dialog.switch.item(i).text() for i in range(2)]
    dialog.tick(dialog.switch, switches)
    assert dialog.choices().count() == 12 > MAX_VARIANTS
    assert dialog.requests() == [] and not dialog.make_button.isEnabled()
    assert f"at most {MAX_VARIANTS}" in dialog.plan.toPlainText()


def test_the_wizards_ticks_make_those_variants_ticked_in_the_dock(window, tmp_path, qtbot):
    from workbench.ui.scenarios.wizard import ScenarioWizard

    actions = window.scenario_actions
    actions.dock.raise_()
    QApplication.processEvents()
    made_dialogs = []

    def run_wizard():
        dialog = ScenarioWizard(actions.catalog, window.document.design, window.document.path)
        qtbot.addWidget(dialog)
        dialog.tick(dialog.cooling, ["air", "liquid"])
        dialog.tick(dialog.topology, ["two-tier"])
        made_dialogs.append(dialog)
        return dialog

    shown = []
    real_progress = actions.progress_dialog

    def progress_dialog(count):
        dialog = real_progress(count)
        shown.append((count, dialog))
        return dialog

    actions.run_wizard = run_wizard
    actions.progress_dialog = progress_dialog
    actions.tell = _keep_message(actions)
    made = actions.new_variant()
    expected = [
        tmp_path / "hall.scenario-air-two-tier.dcwb",
        tmp_path / "hall.scenario-liquid-two-tier.dcwb",
    ]
    assert made == expected and all(p.exists() for p in made)
    assert [c for c, _ in shown] == [2]
    for path, cooling in zip(made, ("air", "liquid"), strict=True):
        design = open_design(path)
        racks = [design.find_rack(rack_id) for rack_id in rack_loads(design)]
        compute = [r for r in racks if any(d.device_type == "nvidia-dgx-h100" for d in r.devices)]
        assert compute
        assert {built_cooling(design.device_types.get(r.rack_type)) for r in compute} == {cooling}
        # One line per variant with its verdict, the findings behind it.
        verdict = next(x for x in actions.last_message.splitlines() if x.startswith(path.name))
        assert verdict.split(": ", 1)[1].startswith(("passes the rules", "breaks "))
        assert f"{path.name}:\n  " in actions.last_message
    assert actions.last_message.startswith("Made 2 of 2 variants.")
    assert actions.panel.ticked() == made
    assert actions.panel.compare_button.isEnabled()


def test_cancel_stops_between_variants_and_keeps_the_ones_made(window, tmp_path, qtbot):
    actions = window.scenario_actions
    actions.dock.raise_()
    QApplication.processEvents()
    actions.run_wizard = lambda: _Wizard(VariantChoices(coolings=("air", "liquid", "rear-door")))
    actions.tell = _keep_message(actions)
    real_save = actions._save

    def save_then_cancel(design, target, refresh=True, **found):
        saved = real_save(design, target, refresh, **found)
        actions._progress.cancel()  # the user presses Cancel while the first is made
        return saved

    real_progress = actions.progress_dialog

    def progress_dialog(count):
        actions._progress = real_progress(count)
        return actions._progress

    actions.progress_dialog = progress_dialog
    actions._save = save_then_cancel
    made = actions.new_variant()
    assert made == [tmp_path / "hall.scenario-air.dcwb"]
    assert not (tmp_path / "hall.scenario-liquid.dcwb").exists()
    assert "Made 1 of 3 variants (cancelled)" in actions.last_message


def test_existing_variants_are_replaced_only_when_the_user_says_so(window, tmp_path):
    actions = window.scenario_actions
    actions.run_wizard = lambda: _Wizard(VariantChoices(coolings=("air", "liquid")))
    actions.tell = _keep_message(actions)
    old = tmp_path / "hall.scenario-liquid.dcwb"
    old.write_bytes(b"kept")
    asked = []
    actions.confirm_replace_all = lambda paths: asked.append(paths) or False
    assert actions.new_variant() == []
    assert asked == [[old]] and old.read_bytes() == b"kept"
    assert not (tmp_path / "hall.scenario-air.dcwb").exists()


def test_the_panel_writes_the_comparison_pdf(window, tmp_path):
    actions = window.scenario_actions
    actions.dock.raise_()
    QApplication.processEvents()
    actions.ask_label = lambda: "copy"
    copy = actions.save_as_scenario()
    panel = actions.panel
    panel.tick([tmp_path / "hall.dcwb", copy])
    assert not panel.pdf_button.isEnabled()  # nothing compared yet
    panel.compare_ticked()
    assert panel.pdf_button.isEnabled()
    actions.ask_pdf_path = lambda: tmp_path / "budget.pdf"
    written = actions.write_pdf()
    assert written == tmp_path / "budget.pdf"
    assert written.read_bytes()[:5] == b"%PDF-"


def test_saved_scenarios_figures_are_kept_as_the_files_give_them(window, tmp_path, monkeypatch):
    """Save as Scenario (with the window's findings) and a wizard variant (with its own)
    keep the figures the saved files give back, so comparing them opens neither."""
    from workbench.planning.scenarios import figures as figures_module

    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    actions = window.scenario_actions
    actions.tell = _keep_message(actions)
    window.document.figures.findings()  # the window's check has run
    assert window.document.figures.checked
    actions.ask_label = lambda: "as is"
    saved = actions.save_as_scenario()
    actions.run_wizard = lambda: _Wizard(
        VariantChoices(node_types=("nvidia-dgx-b200",), coolings=("liquid",))
    )
    [variant] = actions.new_variant()
    assert len(list((cache / "workbench" / "figures").glob("*.json"))) == 2
    for path in (saved, variant):
        monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
        kept, from_disk = figures_module.figures_of_file_noting(path, catalog=actions.catalog)
        assert from_disk
        monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
        assert kept == figures_module.figures_of_file(
            path, catalog=actions.catalog, disk_cache=False
        )


@pytest.fixture
def opened(qtbot, tmp_path, monkeypatch):
    """A window that opened ``hall.dcwb`` through File ▸ Open, with a cache folder of
    its own, no figures kept in memory, and its first check done."""
    from workbench.planning.scenarios import figures as figures_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
    catalog = load_catalog(include_user=False, strict=True)
    base = tmp_path / "hall.dcwb"
    save_design(bundled_sample(), base)
    win = open_window(qtbot, tmp_path, bundled_sample(), catalog)
    assert win.file_actions.open_path(base, ask_save=False)
    win.document.figures.findings()  # the window's check has run
    return win


def _entries(tmp_path) -> list:
    return sorted((tmp_path / "cache" / "workbench" / "figures").glob("*.json"))


def _no_reading_or_checking(monkeypatch) -> None:
    """From now on the scenario figures neither open a file nor run the rules."""
    from workbench.planning.scenarios import figures as figures_module

    def refused(*_args, **_kwargs):
        raise AssertionError("read or checked again")

    monkeypatch.setattr(figures_module, "open_design", refused)
    monkeypatch.setattr(figures_module, "check_design", refused)


def test_the_windows_save_keeps_the_figures_the_reopened_file_gives(opened, tmp_path, monkeypatch):
    from workbench.planning.scenarios import figures as figures_module
    from workbench.ui.commands import set_rack_cooling

    document = opened.document
    rack = next(document.design.iter_racks()).id
    document.push(set_rack_cooling(document, rack, "liquid"))
    document.figures.findings()  # checked again after the edit
    with monkeypatch.context() as patch:
        _no_reading_or_checking(patch)
        assert opened.file_actions.save_to(document.path)
        assert _entries(tmp_path) == []  # kept after the save returns, not during it
        QApplication.processEvents()
    assert len(_entries(tmp_path)) == 1
    monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
    kept, from_disk = figures_module.figures_of_file_noting(document.path, catalog=opened.catalog)
    assert from_disk
    monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
    reread = figures_module.figures_of_file(document.path, catalog=opened.catalog, disk_cache=False)
    assert kept == reread
    assert reread.racks and reread != figures_of(bundled_sample(), "hall")  # the edit is in


def test_the_panel_compares_the_open_design_from_memory(opened, tmp_path, monkeypatch):
    actions = opened.scenario_actions
    actions.tell = _keep_message(actions)
    actions.run_wizard = lambda: _Wizard(VariantChoices(coolings=("liquid",)))
    [variant] = actions.new_variant()
    base = opened.document.path
    with monkeypatch.context() as patch:
        _no_reading_or_checking(patch)
        actions.panel.tick([base, variant])
        table = actions.panel.compare_ticked()
    assert table is not None and table.names == ("hall", "liquid")
    from workbench.planning.scenarios import figures as figures_module

    monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
    assert figures_module.figures_of_file(base, catalog=actions.catalog) == figures_of(
        open_design(base, catalog=actions.catalog), "hall"
    )


def test_a_modified_document_is_never_used_for_its_files_figures(opened, tmp_path, monkeypatch):
    from workbench.planning.scenarios import figures as figures_module
    from workbench.ui.commands import set_rack_cooling
    from workbench.ui.scenarios.open_figures import open_design_figures

    document, catalog = opened.document, opened.catalog
    base = document.path
    rack = next(document.design.iter_racks()).id
    document.push(set_rack_cooling(document, rack, "air"))
    document.figures.findings()
    assert open_design_figures(document, catalog) is None  # edited, unsaved
    opened.scenario_actions.keep_saved_figures()
    QApplication.processEvents()
    assert _entries(tmp_path) == []
    # Edited between the save and the figures kept after it: nothing kept.
    assert opened.file_actions.save_to(base)
    document.push(set_rack_cooling(document, rack, "liquid"))
    QApplication.processEvents()
    assert _entries(tmp_path) == []
    # Undone to the saved design, but the file rewritten behind the window: not the file's.
    document.undo()
    assert not document.is_dirty
    save_design(bundled_sample(), base)
    os.utime(base, ns=(1, 1))
    assert open_design_figures(document, catalog) is None
    monkeypatch.setattr(figures_module, "_FILE_CACHE", {})
    assert opened.scenario_actions.panel._figures_of(base) == figures_of(bundled_sample(), "hall")
