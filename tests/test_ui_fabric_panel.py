"""The Cables panel: a plane's figures and its cable summary, kept current by edits."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from qt_helpers import open_window

from workbench.calc.fabric.planes import plane_structure
from workbench.catalog import load_catalog
from workbench.model import net_ops
from workbench.templates import sample_design
from workbench.ui.commands import EditCommand


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


@pytest.fixture
def window(qtbot, tmp_path, catalog):
    window = open_window(qtbot, tmp_path, sample_design(catalog), catalog)
    yield window
    window.document.undo_stack.setClean()


def test_the_cable_summary_shows_the_sample_compute_plane(qtbot, window):
    window.tabs.setCurrentWidget(window.fabric_view)
    window.fabric_view.set_plane("compute")
    window.cable_summary_action.trigger()
    panel = window.fabric_panel
    qtbot.waitUntil(lambda: panel.report is not None)
    # The sample is 128 DGX H100 (8 x 400G each) in 4 scalable units: NVIDIA's DGX
    # SuperPOD H100 reference architecture (RA-11333-001, Table 4) gives 32 leaves and
    # 16 spines for 4 SUs, with 1,024 node-leaf and 1,024 leaf-spine cables.
    text = panel.figures.text()
    assert "128 hosts, 2,048 links; 32 leaves at 1:1, 16 spines." in text
    assert "no host cut off" in text
    rows = panel.table.rowCount()
    cables = sum(int(panel.table.item(r, 2).text().replace(",", "")) for r in range(rows))
    assert cables == 2048
    # Optics: one single-port module at each node end of a fibre run, and one twin-port
    # module per QM9700 cage the runs use (two ports a cage); cables one per run.
    parts = {
        panel.parts.item(r, 0).text(): int(panel.parts.item(r, 1).text().replace(",", ""))
        for r in range(panel.parts.rowCount())
    }
    optics = sum(n for name, n in parts.items() if "optic-" in name)
    fibre_runs = sum(
        int(panel.table.item(r, 2).text().replace(",", ""))
        for r in range(rows)
        if panel.table.item(r, 0).text().startswith(("Multimode", "Single-mode"))
    )
    host = sum(n for name, n in parts.items() if "optic-400g" in name)
    twin = sum(n for name, n in parts.items() if "optic-800g" in name)
    assert host == fibre_runs and fibre_runs / 2 <= twin < fibre_runs
    assert optics == host + twin and cables == fibre_runs + (sum(parts.values()) - optics)


def test_the_panel_follows_the_plane_chosen_and_an_edit(qtbot, window):
    panel = window.fabric_panel
    window.show_cable_summary("storage")
    qtbot.waitUntil(lambda: panel.report is not None and panel.report.plane == "storage")
    before = panel.report.links
    # Take one spine out of the storage plane: its links go, the figures follow.
    structure = plane_structure(window.document.design, "storage")
    spine = structure.switches_in(2)[0]
    gone = tuple(link.id for link in structure.links if spine in (link.a_device, link.b_device))
    from workbench.model import ops

    window.document.push(EditCommand(window.document, ops.RemoveLinks(gone), "Cut"))
    qtbot.waitUntil(lambda: panel.report.links == before - len(gone))
    window.document.undo_stack.undo()
    qtbot.waitUntil(lambda: panel.report.links == before)
    # Choosing a plane in the panel's own selector shows it.
    box = panel.plane_box
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: panel.report.plane == "compute")


def test_a_network_edit_refreshes_the_figures(qtbot, window):
    panel = window.fabric_panel
    window.show_cable_summary("compute")
    qtbot.waitUntil(lambda: panel.report is not None and panel.report.plane == "compute")
    shown = panel.report
    window.document.push(
        EditCommand(
            window.document, net_ops.SetNetworkFields("net-compute", (("mtu", 2048),)), "MTU"
        )
    )
    qtbot.waitUntil(lambda: panel.report is not shown)
    assert panel.report.mtu  # IB wants 4096: the plane's MTU problem is reported


def test_covered_panels_put_their_work_off_until_their_tab_is_raised(qtbot, window):
    """A dock tabbed behind Checks stays ``isVisible()``; the Cables and Storage panels
    must not re-analyse the plane on every edit while covered (82 % and 8 % of a drop at
    16,384 GPUs), and must catch up when their tab is raised."""
    fabric, storage = window.fabric_panel, window.storage_panel
    window.checks_dock.raise_()
    qtbot.waitUntil(lambda: window.checks.isVisible())
    QApplication.processEvents()
    assert fabric.isVisible() and storage.isVisible()  # what Qt says of a covered tab
    analysed, computed = fabric.computed, storage.computed
    structure = plane_structure(window.document.design, "compute")
    link, cabled = structure.links[0], len(structure.links)
    from workbench.model import ops

    window.document.push(EditCommand(window.document, ops.RemoveLinks((link.id,)), "Cut"))
    for _ in range(5):
        QApplication.processEvents()
    assert fabric.computed == analysed and storage.computed == computed
    window.cables_dock.raise_()
    qtbot.waitUntil(lambda: fabric.computed == analysed + 1)
    assert fabric.report is not None and fabric.report.links == cabled - 1
    window.storage_dock.raise_()
    qtbot.waitUntil(lambda: storage.computed == computed + 1)


def test_covered_panels_are_built_when_their_tab_is_first_raised_and_show_the_edits_before(
    qtbot, window
):
    """Behind Checks, as shipped, the Storage and Cables panels (and the Fabric and
    Versions tabs) are not built at start.  Raising a tab builds its panel, which then
    shows the design as it is: an edit made before the panel existed is in its figures."""
    assert window._storage_panel is None and window._fabric_panel is None
    assert window._fabric_view is None and window._versions_view is None
    structure = plane_structure(window.document.design, "compute")
    link, cabled = structure.links[0], len(structure.links)
    from workbench.model import ops

    window.document.push(EditCommand(window.document, ops.RemoveLinks((link.id,)), "Cut"))
    QApplication.processEvents()
    assert window._fabric_panel is None  # an edit does not build a covered panel
    window.cables_dock.raise_()
    qtbot.waitUntil(lambda: window._fabric_panel is not None)
    panel = window._fabric_panel
    qtbot.waitUntil(lambda: panel.report is not None)
    assert window.cables_dock.widget() is panel
    assert panel.report.plane == "compute" and panel.report.links == cabled - 1
    assert window._storage_panel is None  # still covered
    window.storage_dock.raise_()
    qtbot.waitUntil(lambda: window._storage_panel is not None)
    storage = window._storage_panel
    assert window.storage_dock.widget() is storage
    qtbot.waitUntil(lambda: storage.computed > 0)
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._fabric_page))
    qtbot.waitUntil(lambda: window._fabric_view is not None)
    assert window.tabs.currentWidget() is window._fabric_view
    assert window.tabs.tabText(window.tabs.currentIndex()) == "Fabric"
