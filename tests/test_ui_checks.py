"""The Checks view in the real main window: findings, double-click to show, waive, undo."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from qt_helpers import open_window, show_window

from workbench.model import Device
from workbench.rules import Severity
from workbench.ui.checks.model import FindingsModel, Row, object_name
from workbench.ui.commands import rename_device, set_rack_cooling


@pytest.fixture
def window(qtbot, tmp_path, tiny_design):
    # A third DGX H100 at U6 overlaps dgx-001 (U2-U9): one RACK-OVERLAP error.
    tiny_design.find_rack("r1").devices.append(
        Device(id="d3", name="dgx-003", device_type="nvidia-dgx-h100", position=6)
    )
    tiny_design.reindex()
    window = open_window(qtbot, tmp_path, tiny_design)
    yield window
    window.document.undo_stack.setClean()


def finding_index(view, rule: str):
    model = view.model
    for g in range(model.rowCount()):
        group = model.index(g, 0)
        for r in range(model.rowCount(group)):
            index = model.index(r, 0, group)
            if model.row_at(index).finding.rule == rule:
                return index
    raise AssertionError(f"no {rule} finding shown")


def test_findings_are_listed_and_counted(window):
    view = window.checks
    rules = {row.finding.rule for g in view.model.groups for row in g.rows}
    assert "RACK-OVERLAP" in rules
    assert window.summary.figure("checks").startswith("1 error")
    assert window.document.figures.rack_mark("r1") is Severity.ERROR
    assert window.document.figures.rack_mark("r2") is None


def test_double_click_selects_the_device_and_scrolls_it_into_view(qtbot, window):
    view = window.checks
    rack_view = window.rack_view
    rack_view.zoom_by(6.0)  # close in: the whole hall no longer fits
    rack_view.centerOn(rack_view.scene_rect_of("r2").center())
    index = finding_index(view, "RACK-OVERLAP")
    view.tree.scrollTo(index)
    rect = view.tree.visualRect(index)
    # A real double-click: press and release, then the second press arrives as a double
    # click (Qt's item views act only on a double click over the item first pressed).
    qtbot.mouseClick(view.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.document.selection == "d3"
    assert window.tabs.currentWidget() is rack_view
    shown = rack_view.mapToScene(rack_view.viewport().rect()).boundingRect()
    assert shown.intersects(rack_view.scene_rect_of("d3"))
    assert window.inspector.title.text() == "Device · dgx-003"


def test_waive_from_the_context_menu_then_undo(window, monkeypatch):
    view = window.checks
    document = window.document
    row = view.model.row_at(finding_index(view, "RACK-OVERLAP"))
    monkeypatch.setattr(view, "ask_waiver_note", lambda _row: "vendor rail kit, checked on site")
    menu = view.context_menu(row)
    next(a for a in menu.actions() if a.text() == "Waive…").trigger()
    assert [(w.rule, w.object_id, w.note) for w in document.design.waivers] == [
        ("RACK-OVERLAP", "d3", "vendor rail kit, checked on site")
    ]
    waived = view.model.row_at(finding_index(view, "RACK-OVERLAP"))
    assert waived.waived
    # No error left; the rack's missing PDUs stay a warning (RACK-PDU).
    assert window.summary.figure("checks") == "1 warning"
    assert document.figures.rack_mark("r1") is Severity.WARNING  # the waived error is gone
    document.undo_stack.undo()
    assert document.design.waivers == []
    assert window.summary.figure("checks").startswith("1 error")
    assert document.figures.rack_mark("r1") is Severity.ERROR
    document.undo_stack.redo()
    unwaive = view.context_menu(view.model.row_at(finding_index(view, "RACK-OVERLAP")))
    next(a for a in unwaive.actions() if a.text() == "Remove waiver").trigger()
    assert document.design.waivers == []


def test_an_edit_updates_the_findings_at_once(window):
    document = window.document
    document.push(set_rack_cooling(document, "r1", "air"))  # 3 DGX: 30.7 kW against 12
    rules = {row.finding.rule for g in window.checks.model.groups for row in g.rows}
    # The cooling limit follows the cooling; the power budget stays as set (issue 19).
    assert "RACK-COOLING" in rules and "RACK-POWER" not in rules
    row = window.checks.model.row_at(finding_index(window.checks, "RACK-COOLING"))
    assert "30.7 kW" in row.finding.message and "air limit 12 kW" in row.finding.message
    document.undo_stack.undo()
    rules = {row.finding.rule for g in window.checks.model.groups for row in g.rows}
    assert "RACK-POWER" not in rules and "RACK-COOLING" not in rules


def shown(model) -> list[tuple[str, list[tuple[str, ...]]]]:
    """What the model gives its tree through Qt's API: group titles and cells' text."""
    groups = []
    for g in range(model.rowCount()):
        group = model.index(g, 0)
        rows = [
            tuple(model.index(r, c, group).data() for c in range(model.columnCount()))
            for r in range(model.rowCount(group))
        ]
        groups.append((group.data(), rows))
    return groups


def shown_afresh(window) -> list[tuple[str, list[tuple[str, ...]]]]:
    """What a model built anew from the checker's findings shows (the plain reading)."""
    design = window.document.design
    waivers = {(w.rule, w.object_id): w for w in design.waivers}
    model = FindingsModel()
    model.set_rows(
        [
            Row(f, object_name(design, f.object_id), waivers.get(f.key))
            for f in window.document.figures.checker.findings()
        ]
    )
    return shown(model)


def test_rows_updated_in_place_show_what_a_fresh_model_shows(window, qtlog):
    """The model announces only the rows an edit changed, inserted or removed: after
    each edit it shows what a model built afresh shows, Qt's model tester finds its
    announcements consistent, and the finding the user had selected stays selected."""
    from PySide6.QtTest import QAbstractItemModelTester

    view, document = window.checks, window.document
    mode = QAbstractItemModelTester.FailureReportingMode.Warning
    tester = QAbstractItemModelTester(view.model, mode)  # noqa: F841 - watches the model
    view.tree.setCurrentIndex(finding_index(view, "RACK-PDU"))
    assert shown(view.model) == shown_afresh(window)
    edits = [
        lambda: document.push(set_rack_cooling(document, "r1", "air")),  # a row comes
        lambda: document.push(rename_device(document, "d3", "dgx-three")),  # one changes
        document.undo_stack.undo,
        document.undo_stack.undo,  # the row goes
    ]
    announced: list[tuple[int, int, int]] = []
    view.model.dataChanged.connect(
        lambda first, last, *_: announced.append((first.internalId(), first.row(), last.row()))
    )
    for number, edit in enumerate(edits):
        before = shown(view.model)
        announced.clear()
        edit()
        assert shown(view.model) == shown_afresh(window)
        current = view.model.row_at(view.tree.currentIndex())
        assert current is not None and current.finding.rule == "RACK-PDU"
        if number == 1:  # the renamed device's row was said to change (the tree repaints it)
            renamed = finding_index(view, "RACK-OVERLAP")
            assert shown(view.model) != before
            assert (renamed.internalId(), renamed.row(), renamed.row()) in announced
    assert "RACK-COOLING" not in {r.finding.rule for g in view.model.groups for r in g.rows}
    assert not [r for r in qtlog.records if "FAIL" in r.message or "ASSERT" in r.message]


def test_a_shorter_count_leaves_the_filter_bar_where_it_was(window):
    """The count beside the filters keeps the width of its longest text: after an edit
    that lengthens it and its undo, the search box is neither moved nor resized (so Qt
    repaints the count alone, not the whole row)."""
    view, document = window.checks, window.document
    document.push(set_rack_cooling(document, "r1", "air"))  # an error more
    QApplication.processEvents()
    longer, box = view.summary.text(), view.search.geometry()
    document.undo_stack.undo()
    QApplication.processEvents()
    assert view.summary.text() != longer
    assert view.search.geometry() == box
    assert view.summary.width() >= view.summary.sizeHint().width()


def test_filters_narrow_the_list(window):
    view = window.checks
    window.document.push(set_rack_cooling(window.document, "r1", "air"))
    total = view.model.visible_count()
    view.rule.setCurrentIndex(view.rule.findData("RACK-COOLING"))
    assert view.model.visible_count() == 1
    view.rule.setCurrentIndex(0)
    view.search.setText("no such text anywhere")
    assert view.model.visible_count() == 0
    view.search.clear()
    view.grouping.setCurrentIndex(view.grouping.findData("rule"))
    assert view.model.visible_count() == total
    assert all(len({r.finding.rule for r in g.rows}) == 1 for g in view.model.groups)


def test_a_workload_finding_opens_the_estimates_view_on_it(qtbot, window):
    document = window.document
    from workbench.model import Workload
    from workbench.ui.commands import add_workload

    document.push(add_workload(document, Workload(id="wl-9", name="Odd layout", tp=5, pp=1)))
    view = window.checks
    index = finding_index(view, "WORKLOAD-PARALLEL")
    view.show_finding(view.model.row_at(index))
    assert window.tabs.currentWidget() is window.estimates_page
    assert window.estimates.current_id == "wl-9"
    assert window.checks_dock.isVisible()  # the list being worked through stays
    window.tabs.setCurrentWidget(window.rack_view)
    assert window.checks_dock.isVisible()


def test_a_findings_object_follows_its_device_when_it_moves(qtbot, tmp_path, tiny_design):
    """A finding that does not change when its device moves still shows where it is."""
    from workbench.model import hall_edits
    from workbench.ui.commands import EditCommand

    tiny_design.find_device("d2")[1].name = "_dgx_002"  # no host name carries it
    tiny_design.reindex()
    window = open_window(qtbot, tmp_path, tiny_design)
    document = window.document
    view = window.checks
    assert document.figures.checker is not None  # the first check, now
    view.refresh(force=True)
    row = view.model.row_at(finding_index(view, "NODE-HOSTNAME"))
    assert row.object_name == "_dgx_002 (in A01)"
    batch = hall_edits.move_devices(document.design, "r2", [("d2", 20, "front")])
    document.push(EditCommand(document, batch, "Move device"))
    row = view.model.row_at(finding_index(view, "NODE-HOSTNAME"))
    assert row.object_name == "_dgx_002 (in B01)"
    document.undo_stack.setClean()


def test_the_group_counts_agree_with_the_status_strip(window, monkeypatch):
    view = window.checks
    row = view.model.row_at(finding_index(view, "RACK-OVERLAP"))
    monkeypatch.setattr(view, "ask_waiver_note", lambda _row: "checked on site")
    next(a for a in view.context_menu(row).actions() if a.text() == "Waive…").trigger()
    titles = [view.model.index(g, 0).data() for g in range(view.model.rowCount())]
    assert "Errors (0 + 1 waived)" in titles
    errors = window.summary.figure("checks")
    assert "error" not in errors or errors.startswith("✔")
    assert view.summary.text().startswith("0 errors")


def test_the_tree_says_why_it_is_empty_and_follows_edits_and_undo(qtbot, tmp_path, tiny_design):
    """When no finding is shown the tree itself says why (no page is swapped in: the
    tree stays the one widget shown), and an edit that brings the first error, or the
    undo that takes it away, changes what it shows at once."""
    window = open_window(qtbot, tmp_path, tiny_design)
    view = window.checks
    document = window.document
    qtbot.waitUntil(lambda: document.figures.checked)  # the first check runs in slices
    QApplication.processEvents()
    view.severity.setCurrentIndex(view.severity.findData(int(Severity.ERROR)))
    assert view.model.rowCount() == 0  # the rack's missing PDUs are only a warning
    assert view.tree.showing_placeholder()
    assert view.tree.placeholder == "No finding matches the filters."
    document.push(set_rack_cooling(document, "r1", "air"))  # 2 DGX against an air limit
    assert view.tree.isVisible()
    assert not view.tree.showing_placeholder()
    assert "RACK-COOLING" in {row.finding.rule for g in view.model.groups for row in g.rows}
    document.undo_stack.undo()
    assert view.tree.isVisible()
    assert view.model.rowCount() == 0 and view.tree.showing_placeholder()
    assert view.summary.text() == "0 errors · 1 warning · 0 shown"
    view.severity.setCurrentIndex(0)
    assert not view.tree.showing_placeholder()
    document.undo_stack.setClean()


def test_a_filter_changed_while_checking_does_not_say_the_design_passes(
    qtbot, tmp_path, monkeypatch
):
    """Until the first check ends the tree holds no rows; a filter changed meanwhile
    must not take that for a design that passes every rule."""
    from workbench.catalog import load_catalog
    from workbench.templates import sample_design
    from workbench.ui.shell.document import Document

    catalog = load_catalog(include_user=False, strict=True)
    document = Document(sample_design(catalog))
    figures = document.figures
    monkeypatch.setattr(type(figures), "SLICE_MS", 0)  # one step per slice
    window = show_window(qtbot, tmp_path, document, catalog)
    view = window.checks
    assert not figures.checked  # the premise: the check is still running
    view.severity.setCurrentIndex(view.severity.findData(int(Severity.ERROR)))
    assert view.tree.placeholder == "Checking the design…"
    assert view.summary.text() == "Checking…"
    qtbot.waitUntil(lambda: figures.checked, timeout=20_000)
    QApplication.processEvents()
    assert view.summary.text() != "Checking…"
    assert not view.tree.placeholder.startswith("✔")  # the sample has findings
    document.undo_stack.setClean()


def test_a_design_that_passes_says_so_in_the_tree(qtbot, tmp_path):
    from workbench.model import Design
    from workbench.rules import REGISTRY

    window = open_window(qtbot, tmp_path, Design())
    qtbot.waitUntil(lambda: window.document.figures.checked)
    QApplication.processEvents()
    tree = window.checks.tree
    assert tree.isVisible() and tree.showing_placeholder()
    assert tree.placeholder == (
        f"✔ The design passes all {len(REGISTRY)} design rules: nothing to fix."
    )
    # What is painted is the placeholder (grabbed pixels differ from an empty tree's).
    painted = tree.viewport().grab().toImage()
    tree.set_placeholder("")
    blank = tree.viewport().grab().toImage()
    assert painted != blank


def test_a_covered_checks_tab_catches_up_when_raised(qtbot, tmp_path, tiny_design):
    """Behind another tab of its dock the Checks view rebuilds no rows after an edit
    (nobody sees them); raised, it shows what the edit found, and an undo while it is
    covered is shown as well."""
    window = open_window(qtbot, tmp_path, tiny_design)
    view = window.checks
    document = window.document

    def rules() -> set[str]:
        return {row.finding.rule for g in view.model.groups for row in g.rows}

    window.storage_dock.raise_()
    qtbot.waitUntil(lambda: view.visibleRegion().isEmpty())
    document.push(set_rack_cooling(document, "r1", "air"))
    assert "RACK-COOLING" not in rules()  # not rebuilt while covered
    window.checks_dock.raise_()
    qtbot.waitUntil(lambda: "RACK-COOLING" in rules())
    window.storage_dock.raise_()
    QApplication.processEvents()
    document.undo()
    window.checks_dock.raise_()
    qtbot.waitUntil(lambda: "RACK-COOLING" not in rules())
    assert rules() == {"RACK-PDU"}
    document.undo_stack.setClean()


def test_a_group_that_comes_and_goes_keeps_the_others_and_the_current_row(qtbot, qtlog):
    """The Errors heading a first error brings (and its undo takes away) is inserted and
    removed as one row, the model is not reset: the finding the user had selected in
    another group stays selected, Qt's model tester finds the announcements consistent,
    and the model shows what one built afresh shows."""
    from PySide6.QtTest import QAbstractItemModelTester
    from PySide6.QtWidgets import QTreeView

    from workbench.rules import Finding

    def row(rule: str, severity: Severity, name: str) -> Row:
        return Row(Finding(rule, severity, f"{rule} on {name}", (name,)), name, None)

    warnings = [row("RACK-PDU", Severity.WARNING, "r1"), row("RACK-FEED", Severity.WARNING, "r2")]
    errors = [row("RACK-POWER", Severity.ERROR, "r3"), row("RACK-OVERLAP", Severity.ERROR, "r4")]
    info = [row("STORAGE-GDS", Severity.INFO, "t1")]
    model, tree = FindingsModel(), QTreeView()
    qtbot.addWidget(tree)
    tree.setModel(model)
    mode = QAbstractItemModelTester.FailureReportingMode.Warning
    tester = QAbstractItemModelTester(model, mode)  # noqa: F841 - watches the model
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    model.set_rows(warnings + info)
    tree.expandAll()
    tree.setCurrentIndex(model.index(1, 0, model.index(0, 0)))  # RACK-PDU, sorted second
    selected = model.row_at(tree.currentIndex())
    resets.clear()
    for rows in (warnings + errors + info, warnings, warnings + errors, warnings + info, info):
        model.set_rows(rows)
        afresh = FindingsModel()
        afresh.set_rows(rows)
        assert shown(model) == shown(afresh)
        if selected in rows:
            assert model.row_at(tree.currentIndex()) is selected
    assert resets == []
    assert model.row_at(tree.currentIndex()) is None  # its group went
    assert not [r for r in qtlog.records if "FAIL" in r.message or "ASSERT" in r.message]


def test_a_delegate_reads_each_cell_as_data_says(qtbot):
    """The tree's delegate asks a cell's roles in one :meth:`FindingsModel.multiData`
    call; what it reads (text, font, colour, icon, ...) is what asking :meth:`data` role
    by role reads, which a proxy in front of the model does (Qt's default multiData)."""
    from PySide6.QtCore import QIdentityProxyModel
    from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QTreeView

    from workbench.model import Waiver
    from workbench.rules import Finding

    def row(rule: str, severity: Severity, name: str, waiver: Waiver | None = None) -> Row:
        return Row(Finding(rule, severity, f"{rule} on {name}", (name,)), name, waiver)

    model = FindingsModel()
    model.set_rows(
        [
            row("RACK-POWER", Severity.ERROR, "r3"),
            row("RACK-OVERLAP", Severity.ERROR, "d4", Waiver("RACK-OVERLAP", "d4", "rails ok")),
            row("RACK-PDU", Severity.WARNING, "r1"),
            row("STORAGE-GDS", Severity.INFO, "t1"),
        ]
    )
    proxy = QIdentityProxyModel()
    proxy.setSourceModel(model)
    asked: list[int] = []
    plain = model.data
    model.data = lambda index, role=Qt.ItemDataRole.DisplayRole: (  # type: ignore[method-assign]
        asked.append(int(role)) or plain(index, role)
    )
    tree = QTreeView()
    qtbot.addWidget(tree)
    tree.setModel(model)
    delegate = QStyledItemDelegate()

    def read(index) -> tuple:
        option = QStyleOptionViewItem()
        delegate.initStyleOption(option, index)
        icon = option.icon.pixmap(12, 12).toImage() if not option.icon.isNull() else None
        return (
            option.text,
            option.font.bold(),
            option.palette.color(option.palette.ColorRole.Text).name(),
            option.displayAlignment.value,
            option.features.value,
            option.backgroundBrush.style(),
            icon,
        )

    cells = 0
    for g in range(model.rowCount()):
        group = model.index(g, 0)
        parents = [(group, proxy.mapFromSource(group))]
        for column in range(model.columnCount()):
            assert read(model.index(g, column)) == read(proxy.index(g, column))
            cells += 1
        for source_group, proxy_group in parents:
            for r in range(model.rowCount(source_group)):
                for column in range(model.columnCount()):
                    asked.clear()
                    mine = read(model.index(r, column, source_group))
                    assert asked == []  # one multiData call, no data() per role
                    assert mine == read(proxy.index(r, column, proxy_group))
                    cells += 1
    assert cells == 4 * (3 + 4)
