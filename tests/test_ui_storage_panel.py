"""The storage panel: tier figures and verdicts, "Add storage tier…" driven with real
key and mouse events as one undo step, selection of a tier's devices, and no
recomputation on edits that cannot move the figures."""

from __future__ import annotations

import copy

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from storage_designs import HDD, PFS, RACK, SLOW_NODE, storage_design

from workbench.calc.storage_tiers import tier_figures
from workbench.catalog import load_catalog
from workbench.model import Link, ops
from workbench.model.errors import EditError
from workbench.planning.storage_tier import plan_storage_tier
from workbench.ui.commands import EditCommand
from workbench.ui.shell.document import Document
from workbench.ui.storage.panel import StoragePanel


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False, strict=True)


def shown_panel(qtbot, design, catalog) -> StoragePanel:
    document = Document(design, catalog=catalog)
    panel = StoragePanel(document)
    document.setParent(panel)
    qtbot.addWidget(panel)
    panel.resize(1100, 500)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: document.figures.checked)
    panel.refresh()
    return panel


def cells(panel: StoragePanel, row: int) -> list[str]:
    return [panel.table.item(row, c).text() for c in range(panel.table.columnCount())]


def retype(qtbot, widget, text: str) -> None:
    """Click into a field, select what is there and type ``text``, as a person would."""
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    qtbot.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(widget, text)


def test_panel_shows_figures_and_verdicts(qtbot, catalog) -> None:
    """Six 8-GPU nodes with one 25G storage NIC each (48 GPUs, 6 × 25 / 8 = 18.75 GB/s of
    clients) and two all-flash nodes on two 200G links each (2 × 50 = 100 GB/s)."""
    design = storage_design(
        catalog, nodes=6, node_slug=SLOW_NODE.slug, appliances=2, appliance_links=2
    )
    panel = shown_panel(qtbot, design, catalog)
    assert panel.table.rowCount() == 1
    # 2 × 368.64 × 0.8 = 589.8 TB usable; 48 GPUs: 12.3 TB and 0.391 GB/s per GPU.
    assert cells(panel, 0) == [
        "hot",
        "Hot",
        "2",
        "2 of 2",
        "590 TB",
        "100 GB/s",
        "60.0 GB/s",
        "18.8 GB/s (clients)",
        "12.3 TB",
        "0.391 GB/s",
    ]
    lines = panel.verdict_lines()
    state, text = lines[0]
    assert state == "error"
    assert text.startswith("Hot read 18.8 GB/s (limited by the storage NICs of the 6 GPU nodes")
    assert text.endswith("against the 50 GB/s rule (48 GPUs, above 40)")
    state, text = lines[1]
    assert state == "warning"
    assert "slowest gpu-00: 25 Gb/s for 8 GPUs (needs 100)" in text
    messages = [t for s, t in lines[2:]]
    assert any(t.startswith("6 GPU nodes have 25 Gb/s of storage ports") for t in messages)
    assert any("Tier Hot: its 2 appliances serve 100.0 GB/s" in t for t in messages)


def test_panel_says_an_uncabled_tier_serves_nothing(qtbot, catalog) -> None:
    """Before issue 24: "0 of 2" cabled and still 100 GB/s of effective read, no finding."""
    design = storage_design(catalog, nodes=6, appliances=2)
    panel = shown_panel(qtbot, design, catalog)
    row = cells(panel, 0)
    assert row[3] == "0 of 2" and row[7] == "0 GB/s (cabling)"
    texts = [text for _state, text in panel.verdict_lines()]
    assert any("0 of 2 appliances cabled" in t for t in texts)
    assert any(t.startswith("Tier Hot: 0 of 2 cabled into the storage plane") for t in texts)


def test_add_storage_tier_dialog_places_and_undoes(qtbot, catalog) -> None:
    design = storage_design(catalog, nodes=2, appliances=1)
    panel = shown_panel(qtbot, design, catalog)
    document = panel.document
    start = copy.deepcopy(document.design)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    dialog = panel.dialog
    qtbot.waitExposed(dialog)
    # Kind: one down to "warm" (the name follows), then back up to "hot".
    dialog.kind.setFocus()
    qtbot.keyClick(dialog.kind, Qt.Key.Key_Down)
    assert dialog.kind.currentData() == "warm" and dialog.name.text() == "Warm: object storage"
    assert dialog.slug() == "generic-object-storage-node"
    qtbot.keyClick(dialog.kind, Qt.Key.Key_Up)
    assert dialog.kind.currentData() == "hot" and dialog.slug() == PFS
    retype(qtbot, dialog.name, "Checkpoints")
    retype(qtbot, dialog.filesystem, "Lustre")
    retype(qtbot, dialog.count, "8")
    assert dialog.count.value() == 8
    # 8 × 368.64 TB = 2,949.12 TB raw = 2.95 PB; × 0.8 = 2.36 PB usable; 400 GB/s read.
    assert "2.95 PB raw, 2.36 PB usable" in dialog.preview.text()
    assert "400 GB/s read, 240 GB/s write" in dialog.preview.text()
    if dialog.cable.isChecked():  # the fabric generator is installed: place only, here
        box = dialog.cable
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
        assert not box.isChecked()
    add = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(add, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()

    tier = document.design.storage_tiers[-1]
    assert (tier.id, tier.name, tier.tier, tier.filesystem) == (
        "tier-hot-2",
        "Checkpoints",
        "hot",
        "Lustre",
    )
    assert len(tier.device_ids) == 8
    racks = [document.design.index.rack_of(d) for d in tier.device_ids]
    assert all(r is not None for r in racks)
    assert all(document.design.find_device(d)[1].device_type == PFS for d in tier.device_ids)
    # S01 holds one 2 kW node under a 12 kW cooling limit: 5 more fit (12.0 kW), the
    # other 3 go to one rack of a new row (6 fit in an empty one).
    by_rack = {r.name: sum(1 for x in racks if x is r) for r in racks}
    assert by_rack["S01"] == 5
    (new_rack,) = [name for name in by_rack if name != "S01"]
    assert by_rack[new_rack] == 3
    assert document.design.find_rack(racks[-1].id).rack_type == RACK
    assert document.undo_stack.count() == 1
    assert document.undo_stack.undoText() == "Add storage tier Checkpoints"
    # The panel follows, and a click on the new row selects the tier's appliances.
    qtbot.waitUntil(lambda: panel.tier_row("tier-hot-2") >= 0)
    row = panel.tier_row("tier-hot-2")
    assert cells(panel, row)[2:4] == ["8", "0 of 8"]
    rect = panel.table.visualItemRect(panel.table.item(row, 1))
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert set(document.selected) == set(tier.device_ids)

    document.undo_stack.undo()
    assert document.design == start
    qtbot.waitUntil(lambda: panel.tier_row("tier-hot-2") == -1)
    document.undo_stack.redo()
    assert document.design.storage_tiers[-1].device_ids == tier.device_ids


def test_add_dialog_cables_when_the_storage_plane_has_leaves(qtbot, catalog) -> None:
    design = storage_design(catalog, nodes=1, node_links=1, appliances=1, appliance_links=1)
    panel = shown_panel(qtbot, design, catalog)
    document = panel.document
    start = copy.deepcopy(document.design)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    dialog = panel.dialog
    qtbot.waitExposed(dialog)
    assert dialog.cable.isEnabled() and dialog.cable.isChecked()
    retype(qtbot, dialog.count, "2")
    qtbot.mouseClick(
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    assert not dialog.isVisible(), dialog.error.text()
    tier = document.design.storage_tiers[-1]
    cabled = [d for d in tier.device_ids if document.design.index.device_links.get(d)]
    assert len(tier.device_ids) == 2 and cabled == tier.device_ids
    qtbot.waitUntil(lambda: panel.tier_row(tier.id) >= 0)
    assert cells(panel, panel.tier_row(tier.id))[3] == "2 of 2"
    document.undo_stack.undo()
    assert document.design == start


def test_cabling_is_offered_only_where_it_can_work(qtbot, catalog) -> None:
    """No storage switch cabled yet, or an appliance without a network port (an 84-bay
    JBOD hangs off a server over SAS): the box is off, with the reason."""
    panel = shown_panel(qtbot, storage_design(catalog, nodes=1, appliances=1), catalog)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    dialog = panel.dialog
    assert not dialog.cable.isEnabled() and not dialog.cable.isChecked()
    assert dialog.cable.toolTip() == dialog.cabling_problem()
    dialog._switches = True  # as if the storage plane had leaves
    dialog.model.setCurrentIndex(dialog.model.findData(HDD))
    assert dialog.cabling_problem() == (
        "Generic 5U 84-bay HDD enclosure (JBOD) has no storage-plane port (it is "
        "attached through a server)."
    )
    assert not dialog.cable.isChecked()


def test_a_refused_tier_keeps_the_dialog_open_and_changes_nothing(qtbot, catalog) -> None:
    panel = shown_panel(qtbot, storage_design(catalog, nodes=1, appliances=1), catalog)
    document = panel.document
    start = copy.deepcopy(document.design)
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    dialog = panel.dialog
    qtbot.waitExposed(dialog)
    retype(qtbot, dialog.name, " ")
    qtbot.mouseClick(
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    assert dialog.isVisible() and dialog.error.text() == "A storage tier name cannot be empty."
    assert document.design == start and document.undo_stack.count() == 0


def test_plan_rolls_back_when_cabling_fails(catalog) -> None:
    """A cabling step that refuses leaves the design as it was (nothing half-made)."""
    design = storage_design(catalog, nodes=1, appliances=1)
    start = copy.deepcopy(design)

    def refuse(design, plane, ids):
        assert plane == "storage" and len(ids) == 2
        assert all(i in design.index.devices for i in ids)  # planned on the placed devices
        raise EditError("needs 2 ports, the storage leaf has 0 free")

    with pytest.raises(EditError, match="0 free"):
        plan_storage_tier(
            design, catalog, kind="hot", name="T", filesystem="", slug=PFS, count=2, attach=refuse
        )
    assert design == start


def test_plan_cables_with_attach_hosts(catalog) -> None:
    """With a cabling step, its edit joins the batch after the tier."""
    design = storage_design(catalog, nodes=1, appliances=1)

    def attach(design, plane, ids):
        links = tuple(
            Link(f"new-{k}", d, "storage0", "sw-1", f"swp{40 + k}", "net-storage")
            for k, d in enumerate(ids)
        )
        return ops.AddLinks(links)

    plan = plan_storage_tier(
        design, catalog, kind="hot", name="T", filesystem="", slug=PFS, count=2, attach=attach
    )
    assert plan.cabled and isinstance(plan.batch.ops[-1], ops.AddLinks)
    ops.apply(design, plan.batch)
    new = tier_figures(design)[-1]
    assert new.devices == new.cabled_devices == 2
    assert new.link_gbs == pytest.approx(2 * 200 / 8)  # one 200G link each


def test_plan_cables_with_the_fabric_generator(catalog) -> None:
    """With the generator installed, the new appliances are cabled to the storage leaf
    (an SN4600 with free 200G ports) in the same batch, and undo takes it all back."""
    design = storage_design(catalog, nodes=1, node_links=1, appliances=1, appliance_links=1)
    start = copy.deepcopy(design)
    plan = plan_storage_tier(
        design, catalog, kind="hot", name="T", filesystem="", slug=PFS, count=2
    )
    assert plan.cabled and design == start
    applied = ops.apply(design, plan.batch)
    new = tier_figures(design)[-1]
    assert new.devices == new.cabled_devices == 2 and new.link_gbs > 0
    ops.apply(design, applied.inverse)
    assert design == start


def test_dragging_a_server_does_not_recompute(qtbot, catalog) -> None:
    design = storage_design(catalog, nodes=2, appliances=1)
    panel = shown_panel(qtbot, design, catalog)
    document = panel.document
    before = panel.computed
    document.push(EditCommand(document, ops.MoveDevice("gpu-0", "rg0", 30, "front"), "Move"))
    QApplication.processEvents()
    panel.refresh()
    assert panel.computed == before
    document.push(EditCommand(document, ops.RemoveDevice("st-0"), "Remove"))
    qtbot.waitUntil(lambda: panel.computed == before + 1)
    assert cells(panel, 0)[2] == "0"


def test_new_storage_racks_get_pdus_sized_to_their_budget(catalog) -> None:
    """Before issue 24: the rack "Add storage tier" created had no PDU, no rule noticed
    and the BOM was two PDUs short."""
    from workbench.export.bom import bom_lines
    from workbench.planning.rack_pdus import PDU_CONTINUOUS_SHARE, pdu_capacity_kw
    from workbench.rules import check_design

    design = storage_design(catalog, nodes=1, appliances=1)
    before = {r.id for r in design.iter_racks()}
    plan = plan_storage_tier(
        design, catalog, kind="hot", name="T", filesystem="", slug=PFS, count=8, cable=False
    )
    applied = ops.apply(design, plan.batch)
    (new,) = [r for r in design.iter_racks() if r.id not in before]
    pdus = [d for d in new.devices if design.device_types[d.device_type].kind == "pdu"]
    assert sorted(d.name for d in pdus) == [
        f"pdu-{new.name.lower()}-a",
        f"pdu-{new.name.lower()}-b",
    ]
    capacity = pdu_capacity_kw(design.device_types[pdus[0].device_type])
    assert capacity is not None and capacity * PDU_CONTINUOUS_SHARE >= new.power_limit_kw
    assert not [f for f in check_design(design) if f.rule == "RACK-PDU" and new.id in f.objects]
    counted = sum(line.quantity for line in bom_lines(design)["racks_power"] if "PDU" in line.item)
    assert counted == 2
    ops.apply(design, applied.inverse)
    assert {r.id for r in design.iter_racks()} == before


def test_tier_figures_dialog_sets_and_undoes(qtbot, catalog) -> None:
    """Before issue 24 a tier had no field for metadata servers, small-file IOPS,
    dataset size or concurrent jobs; the panel's Tier figures… dialog sets them in one
    undoable step."""
    design = storage_design(catalog, nodes=6, appliances=2, appliance_links=2)
    panel = shown_panel(qtbot, design, catalog)
    document = panel.document
    assert panel.open_figures_dialog()
    dialog = panel.figures_dialog
    assert dialog.metadata_servers.text() == "not said"
    dialog.metadata_servers.setValue(2)
    dialog.dataset_tb.setValue(250.0)
    dialog.concurrent_jobs.setValue(3)
    dialog.accept()
    tier = document.design.storage_tiers[0]
    assert (tier.metadata_servers, tier.dataset_tb, tier.concurrent_jobs) == (2, 250.0, 3)
    assert tier.small_file_iops is None
    assert document.undo_stack.undoText() == "Set tier figures"
    qtbot.waitUntil(lambda: any("STORAGE-CAPACITY" in r for r in _rules(panel)))
    document.undo()
    tier = document.design.storage_tiers[0]
    assert (tier.metadata_servers, tier.dataset_tb, tier.concurrent_jobs) == (None, None, None)


def _rules(panel) -> list[str]:
    return [panel.verdicts.item(i).toolTip() for i in range(panel.verdicts.count())]


def test_tier_figures_dialog_sets_gpudirect_storage_with_undo(qtbot, catalog) -> None:
    """Before: a tier could not say whether its nodes read it with GPUDirect Storage.
    The Tier figures… dialog sets it (not said / yes / no) in one undoable step."""
    design = storage_design(catalog, nodes=6, appliances=2, appliance_links=2)
    panel = shown_panel(qtbot, design, catalog)
    document = panel.document
    assert panel.open_figures_dialog()
    dialog = panel.figures_dialog
    box = dialog.gpudirect_storage
    assert box.currentData() is None and box.currentText() == "not said"
    box.setCurrentIndex(box.findData(True))
    dialog.accept()
    assert document.design.storage_tiers[0].gpudirect_storage is True
    assert document.undo_stack.undoText() == "Set tier figures"
    document.undo()
    assert document.design.storage_tiers[0].gpudirect_storage is None
