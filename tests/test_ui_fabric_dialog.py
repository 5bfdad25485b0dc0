"""The fabric generator's dialog: its live preview is the generator's plan, an
impossible request shows why and cannot be applied, and OK is one undoable step.

The small fabric (``fabric_cabling.small_fabric``): four DGX H100 nodes, 8 compute ports
each, so 32 host ports.  With 64-port QM9700 switches at 1:1 a leaf takes k/2 = 32 hosts
ports and sends 32 up, so an automatic (2-tier) fabric is by hand one leaf, and one
spine (ceil(1 × 32 / 64) = 1, which divides the 32 uplinks): 32 + 32 = 64 links.
"""

from __future__ import annotations

import pytest
from fabric_cabling import small_fabric
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from qt_helpers import open_window

from workbench.calc.fabric.planes import plane_structure
from workbench.catalog import load_catalog
from workbench.ui.fabric.dialog import FabricDialog


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def window(qtbot, tmp_path, catalog):
    window = open_window(qtbot, tmp_path, small_fabric(catalog), catalog)
    window.file_actions.autosave_timer.stop()
    yield window
    window.document.undo_stack.setClean()


def open_dialog(qtbot, window) -> FabricDialog:
    window.generate_fabric_action.trigger()
    dialog = window._fabric_dialog
    qtbot.waitExposed(dialog)
    return dialog


def choose(dialog: FabricDialog, combo, data) -> None:
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)
    dialog.update_plan()  # what the timer does a moment after the last change


def test_the_preview_is_the_generators_plan_and_ok_applies_it_in_one_step(qtbot, window):
    document = window.document
    design = document.design
    old = {link.id for link in design.links}
    dialog = open_dialog(qtbot, window)
    assert dialog.plane == "compute"
    assert dialog.switch_box.currentData() == "nvidia-qm9700"  # what the leaves are now
    assert dialog.ratio_box.value() == 1.0
    choose(dialog, dialog.topology_box, "auto")
    text = dialog.preview.text()
    assert "1 leaves · 1 spines · 0 cores · 64 links" in text
    assert "Replaces the plane's 64 links and 4 switches" in text
    assert dialog.ok_button.isEnabled()
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    QApplication.processEvents()
    compute = plane_structure(design, "compute")
    assert len(compute.links) == 64 and not old & {link.id for link in compute.links}
    assert len(compute.switches_in(1)) == 1 and len(compute.switches_in(2)) == 1
    # Every node's eight compute ports are cabled: 32 host links.
    assert len(compute.host_links) == 32 and compute.hosts == {"n1", "n2", "n3", "n4"}
    assert document.undo_stack.count() == 1
    assert document.undo_stack.undoText() == "Generate compute fabric"
    assert window.tabs.currentWidget() is window.fabric_view
    assert window.fabric_view.plane == "compute"
    document.undo_stack.undo()
    assert {link.id for link in design.links} == old
    assert {"leaf1", "leaf2", "spine1", "spine2"} <= design.index.devices.keys()


def test_an_impossible_request_says_why_and_cannot_be_applied(qtbot, window):
    dialog = open_dialog(qtbot, window)
    choose(dialog, dialog.switch_box, "generic-mgmt-48p-10g")
    assert dialog.plan is None
    assert "has no port that runs at 400G" in dialog.preview.text()
    assert not dialog.ok_button.isEnabled()
    dialog.accept()  # even forced, nothing is pushed
    assert window.document.undo_stack.count() == 0
    choose(dialog, dialog.switch_box, "nvidia-qm9700")
    assert dialog.ok_button.isEnabled()
    dialog.reject()


def test_the_selected_racks_hosts_can_be_the_ones_cabled(qtbot, window):
    window.document.select_many(["r1"])
    dialog = open_dialog(qtbot, window)
    assert dialog.some_hosts.isChecked()
    assert "2 selected hosts" in dialog.some_hosts.text()
    assert dialog.request().hosts == ("n1", "n2")
    dialog.all_hosts.setChecked(True)
    assert dialog.request().hosts is None
    dialog.reject()


def test_each_plane_starts_with_its_own_defaults(qtbot, window):
    dialog = open_dialog(qtbot, window)
    choose(dialog, dialog.plane_box, "management")
    assert dialog.switch_box.currentData() == "generic-mgmt-48p-10g"
    assert dialog.topology_box.currentData() == "tor"
    assert dialog.ratio_box.value() == 3.0  # the generator's default for management
    dialog.reject()
