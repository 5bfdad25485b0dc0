"""File ▸ New in the window: the New hall dialog gives a hall ready for drops, and every
action the empty-design screen offers works on a design with no site."""

from __future__ import annotations

import pytest
from qt_helpers import drag_over, drop, open_window

from workbench.catalog import load_catalog
from workbench.model import Design
from workbench.ui.shell.new_hall_dialog import NewHallDialog


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def window(qtbot, tmp_path, catalog):
    window = open_window(qtbot, tmp_path, Design(name="Untitled design"), catalog)
    yield window
    window.document.undo_stack.setClean()


def test_the_dialog_offers_the_racks_and_follows_the_model_cooling(qtbot, catalog):
    racks = [i for i in catalog if i.kind == "rack"]
    dialog = NewHallDialog(racks)
    qtbot.addWidget(dialog)
    assert dialog.rack_type.currentData() == "generic-rack-42u-air"
    assert dialog.rack_height.text() == "42U"
    assert dialog.cooling.currentData() == "air" and dialog.limit.value() == 12.0
    liquid = dialog.rack_type.findData("generic-rack-48u-liquid")
    dialog.rack_type.setCurrentIndex(liquid)
    assert dialog.cooling.currentData() == "liquid" and dialog.rack_height.text() == "48U"
    dialog.site.setText("Lab")
    dialog.rows.setValue(3)
    spec = dialog.spec()
    assert (spec.site, spec.rows, spec.rack_type, spec.cooling) == (
        "Lab",
        3,
        "generic-rack-48u-liquid",
        "liquid",
    )
    dialog.template.setCurrentIndex(1)
    assert not dialog.rows.isEnabled()


def test_file_new_builds_a_hall_ready_for_drops(window, catalog):
    dialog = NewHallDialog([i for i in catalog if i.kind == "rack"])
    dialog.hall.setText("Hall 2")
    dialog.racks_per_row.setValue(2)
    dialog.breaker.setValue(63)
    window.file_actions.ask_new_hall = dialog.spec
    assert window.file_actions.new()
    design = window.document.design
    assert design.sites[0].name == "Hall 2"
    racks = list(design.iter_racks())
    assert [r.name for r in racks] == ["A01", "A02"]
    assert racks[0].feed("a").breaker_a == 63
    assert not window.document.is_dirty
    window.rack_view.fit()
    mime, where, accepted = drag_over(window, "nvidia-dgx-h100", racks[0].id, 2)
    assert accepted
    assert drop(window, mime, where)
    names = sorted(d.name for d in racks[0].devices)
    assert names == ["gpu-server-A01-u2", "pdu-a01-a", "pdu-a01-b"]  # PDUs came with the hall


def test_the_empty_screens_actions_work_on_a_design_with_no_site(window):
    document, actions = window.document, window.hall_actions
    assert document.design.sites == []
    assert actions.add_row()
    assert document.design.sites[0].rows[0].name == "Row A"
    actions.ask_racks = lambda: ("generic-rack-42u-air", 2)
    assert actions.add_racks()
    assert [r.name for r in document.design.iter_racks()] == ["A01", "A02"]
    document.undo_stack.undo()
    document.undo_stack.undo()
    assert document.design.sites == []
