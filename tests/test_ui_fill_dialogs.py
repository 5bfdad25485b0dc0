"""The placement helpers' dialogs: fill a rack, place across racks; one undo step each."""

from __future__ import annotations

import copy

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QMainWindow, QMenu

from workbench.catalog import load_catalog
from workbench.catalog.vocabulary import item_role
from workbench.model import Design, Rack, Row, Site
from workbench.ui.racks.fill_dialogs import (
    FillRackDialog,
    PlaceAcrossDialog,
    fill_actions,
    rackable_items,
)
from workbench.ui.shell.document import Document

DGX = "nvidia-dgx-h100"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def design(catalog) -> Design:
    """Three empty 50 kW racks with rear-door heat exchangers."""
    racks = [
        Rack(f"r{i}", f"R0{i}", "generic-rack-48u-rdhx", cooling="rear-door", power_limit_kw=50.0)
        for i in (1, 2, 3)
    ]
    design = Design(sites=[Site("s", "Hall", [Row("w", "Row A", racks)])])
    design.device_types = {"generic-rack-48u-rdhx": catalog["generic-rack-48u-rdhx"]}
    return design


@pytest.fixture
def window(qtbot, design, catalog):
    window = QMainWindow()
    window.document = Document(design, catalog=catalog, parent=window)
    qtbot.addWidget(window)
    return window


@pytest.fixture
def warnings(boxes) -> list[tuple[str, str]]:
    return boxes("warning")


def place_button(dialog):
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


def test_fill_rack_dialog_places_what_fits_as_one_undo_step(window, qtbot, warnings):
    document = window.document
    start = copy.deepcopy(document.design)
    dialog = FillRackDialog(document, "r1", window)
    qtbot.addWidget(dialog)
    assert dialog.set_slug(DGX)
    dialog.count.setValue(10)
    assert (
        "Would place 4 of 10" in dialog.preview.text()
        and "51.0 kW of 50.0 kW" in dialog.preview.text()
    )
    assert document.design == start  # the preview changes nothing
    qtbot.mouseClick(place_button(dialog), Qt.MouseButton.LeftButton)
    rack = document.design.find_rack("r1")
    assert [d.position for d in rack.devices] == [1, 9, 17, 25]
    assert [d.name for d in rack.devices][0] == "gpu-server-R01-u1"
    assert document.undo_stack.count() == 1
    assert document.undo_stack.undoText() == "Fill R01 with 4 × NVIDIA DGX H100"
    assert dialog.report is not None and dialog.report.missing == 6
    assert "Placed 4 of 10" in window.statusBar().currentMessage()
    ((title, text),) = warnings
    assert "6 did not fit" in text and "cooling limit (51.0 kW of 50.0 kW)" in text
    document.undo_stack.undo()
    assert document.design == start
    document.undo_stack.redo()
    assert len(document.design.find_rack("r1").devices) == 4


def test_fill_rack_dialog_offers_how_many_fit_and_refuses_when_none_do(window, qtbot, warnings):
    document = window.document
    dialog = FillRackDialog(document, "r1", window)
    qtbot.addWidget(dialog)
    assert dialog.slug() is not None
    dialog.set_slug(DGX)
    dialog.count.setValue(4)
    assert dialog.preview.text() == "All 4 fit." and place_button(dialog).isEnabled()
    dialog.accept()
    assert warnings == []  # everything fitted: the status bar only
    assert "Placed 4 of 4" in window.statusBar().currentMessage()
    again = FillRackDialog(document, "r1", window)
    qtbot.addWidget(again)
    again.set_slug(DGX)
    assert again.preview.text().startswith("Nothing fits: R01: another NVIDIA DGX H100")
    assert not place_button(again).isEnabled()
    # Offered first: the model of the device selected in the rack (else the rack's most
    # common one, else a GPU server), and as many as fit (at least 1).
    document.select(document.design.find_rack("r1").devices[0].id)
    same = FillRackDialog(document, "r1", window)
    qtbot.addWidget(same)
    assert same.slug() == DGX and same.count.value() == 1
    empty = FillRackDialog(document, "r2", window)
    qtbot.addWidget(empty)
    offered = document.catalog[empty.slug()]
    assert item_role(offered) == "gpu-server"
    assert empty.count.value() == len(empty.plan(48).report.placed) > 0


def test_place_across_dialog_spreads_evenly_and_undoes(window, qtbot, warnings):
    document = window.document
    start = copy.deepcopy(document.design)
    document.select_many(["r1", "r2", "r3"])
    dialog = PlaceAcrossDialog(document, ["r1", "r2", "r3"], window)
    qtbot.addWidget(dialog)
    assert dialog.set_slug(DGX)
    dialog.count.setValue(10)
    assert dialog.preview.text() == "All 10 fit."
    dialog.accept()
    counts = [len(document.design.find_rack(r).devices) for r in ("r1", "r2", "r3")]
    assert counts == [4, 3, 3]
    assert document.undo_stack.count() == 1
    assert document.undo_stack.undoText() == "Place 10 × NVIDIA DGX H100 across 3 racks"
    assert warnings == []
    document.undo_stack.undo()
    assert document.design == start

    dialog = PlaceAcrossDialog(document, ["r1", "r2"], window)
    qtbot.addWidget(dialog)
    dialog.set_slug(DGX)
    dialog.count.setValue(10)
    dialog.accept()
    assert [len(document.design.find_rack(r).devices) for r in ("r1", "r2")] == [4, 4]
    ((_title, text),) = warnings
    assert "2 did not fit" in text and "R01:" in text and "R02:" in text


def test_fill_actions_follow_the_rack_and_the_selection(window, qtbot):
    document = window.document
    menu = QMenu(window)
    fill, across = fill_actions(menu, document, window, "r2")
    assert menu.actions() == [fill, across]
    assert fill.text() == "Fill R02 with N × …" and fill.isEnabled()
    assert not across.isEnabled()  # nothing selected
    document.select_many(["w"])  # the row: all three racks
    menu = QMenu(window)
    fill, across = fill_actions(menu, document, window, None)
    assert not fill.isEnabled()
    assert across.isEnabled() and "3 selected racks" in across.text()
    across.trigger()
    dialog = window.findChild(PlaceAcrossDialog)
    assert dialog is not None and dialog.rack_ids == ["r1", "r2", "r3"]
    dialog.reject()
    menu = QMenu(window)
    fill, _ = fill_actions(menu, document, window, "r1")
    fill.trigger()
    opened = window.findChild(FillRackDialog)
    assert opened is not None and opened.rack_id == "r1"
    opened.reject()


def test_the_model_list_holds_rackable_items_servers_first(window):
    items = rackable_items(window.document)
    kinds = [i.kind for i in items]
    assert set(kinds) == {"server", "storage", "switch", "pdu"}
    assert kinds == sorted(kinds, key=["server", "storage", "switch", "pdu"].index)
